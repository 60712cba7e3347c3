"""The readers every part of normalization shares (job.py, pools.py, tasks.py): text as
written, integers not misread, simple fields decoded by their row."""

from __future__ import annotations

import re
from typing import Any

from .. import durations, fields
from ..diagnostics import Collector
from ..options import Options
from ..source.document import Document
from ..source.jsonpath import child
from ..source.reads import as_int

# What a joined line starting with `- ` leaves inside a string: `--epochs - "10"`.
_LIST_ITEM = re.compile(r"\s-\s+\S")


class Reader:
    """One spec's normalization state: the document, where problems go, and the caller's
    options; the readers every part shares (text as written, integers not misread, simple
    fields)."""

    def __init__(self, doc: Document, c: Collector, options: Options):
        self.doc, self.c, self.options = doc, c, options
        self.as_text: set[str] = set()  # paths whose scalar is sent as the text written

    def text(self, value: Any, path: str) -> str:
        """A scalar as typed: non-strings keep their source text (1e-3, yes, 0600)."""
        if isinstance(value, str):
            return value
        self.as_text.add(path)
        return self.doc.raw.get(path, str(value))

    def strings(self, value: Any, path: str) -> tuple[str, ...]:
        """A list of args as typed: non-string scalars keep their source text (1e-3, yes)."""
        if not isinstance(value, list):
            return ()
        for i, item in enumerate(value):
            at = child(path, i)
            if at in self.doc.joined and isinstance(item, str) and _LIST_ITEM.search(item):
                self.c.warning(at, f"{item!r} is one argument: YAML joined the lines below "
                               "its '- ' into it, and a '- ' there is text, not a list item",
                               "put each '- ' item at the same indentation as the first",
                               code="folded-args")
        return tuple(self.text(item, child(path, i)) for i, item in enumerate(value)
                     if isinstance(item, (str, int, float, bool)))

    def integer(self, raw: dict, key: str, path: str) -> int | None:
        """An integer field; None if absent, not an integer, or misread (see numbers_as_written),
        so no rule reasons about a value the spec did not mean."""
        return None if path in self.doc.suspect else as_int(raw.get(key))

    def numbers_as_written(self) -> None:
        """Refuse numbers YAML read otherwise than they look (0600 is octal 384, 1:30 is 90)
        or that JSON cannot carry (.inf, .nan, beyond int64), wherever the number itself,
        not its text, would be used."""
        for path, reading in self.doc.suspect.items():
            if path not in self.as_text:
                message, hint = reading.problem(duration=path in fields.DURATION_PATHS)
                self.c.error(path, message, hint, code="misread-number")

    def decode(self, row: fields.Row, raw: dict, key: str, path: str) -> Any:
        """`raw[key]` as the row's model value; None if absent, misread or refused here."""
        if key not in raw or path in self.doc.suspect:
            return None
        value = row.codec.decode(raw[key])
        if row.codec.name != "duration":
            return value
        if value is None:
            self.c.error(path, f"invalid duration {raw[key]!r}",
                         "use 90s, 30m, 2h, 1d, 1h30m or plain seconds", code="duration-syntax")
        elif value == 0 and row.codec.positive:
            self.c.error(path, f"{key} must be greater than 0", code="duration-range")
        elif durations.problem(value):
            self.c.error(path, f"{raw[key]!r} is {durations.problem(value)}", code="duration-range")
        else:
            return value
        return None
