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
from ..source.numbers import DOUBLE_ONLY, exact
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

    def suspect(self, path: str) -> bool:
        """Whether the number at `path` is not what its text says, as it will be used: a
        duration's plain seconds are read from the text itself, so a double's limits
        (12345678.123456789) do not apply to it."""
        reading = self.doc.suspect.get(path)
        return reading is not None and not (reading.kind in DOUBLE_ONLY
                                            and path in fields.DURATION_PATHS)

    def numbers_as_written(self) -> None:
        """Refuse numbers YAML read otherwise than they look (0600 is octal 384, 1:30 is 90),
        that JSON cannot carry (.inf, .nan, beyond int64) or a double cannot hold
        (1.00000000000000001), wherever the number itself, not its text, would be used."""
        for path, reading in self.doc.suspect.items():
            if path not in self.as_text and self.suspect(path):
                message, hint = reading.problem(duration=path in fields.DURATION_PATHS)
                self.c.error(path, message, hint, code=reading.code)

    def decode(self, row: fields.Row, raw: dict, key: str, path: str) -> Any:
        """`raw[key]` as the row's model value; None if absent, misread or refused here. A
        duration written as plain seconds is read from its text, exactly (never as a double)."""
        if key not in raw or self.suspect(path):
            return None
        written = raw[key]
        if row.codec.name == "duration" and isinstance(written, float):
            written = exact(self.doc.raw.get(path, "")) or written
        value = row.codec.decode(written)
        if row.codec.name != "duration":
            return value
        if value is None:
            self.c.error(path, f"invalid duration {raw[key]!r}",
                         "use 90s, 30m, 2h, 1d, 1h30m or plain seconds", code="duration-syntax")
        elif value == 0 and row.codec.positive:
            self.c.error(path, f"{key} must be greater than 0", code="duration-range")
        elif durations.problem(value):
            shown = self.doc.raw.get(path, raw[key])  # as written: 1.0000000001, not a double
            self.c.error(path, f"{shown!r} is {durations.problem(value)}", code="duration-range")
        else:
            return value
        return None
