"""`[tool.trainspec]` of a pyproject.toml: its data, and where each key is written.

tomllib keeps no positions, so a small line scanner maps the section's keys to lines: table
headers (`[tool.trainspec.policy]`, `[[tool.trainspec.overrides]]`) and `key = ` lines. A value
spread over lines is located at its key; that is as close as a config error needs.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from ..diagnostics import Position
from ..jsonpath import child

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 backport, a dependency there
    import tomli as tomllib

SECTION = ("tool", "trainspec")
_HEADER = re.compile(r"^[ \t]*(\[\[?)[ \t]*([^\]]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$")
_KEY = re.compile(r"^[ \t]*(\"[^\"]*\"|'[^']*'|[A-Za-z0-9_-]+)[ \t]*=")
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")
MENTIONS = re.compile(rb"^[ \t]*\[\[?[ \t]*tool[ \t]*\.[ \t]*trainspec[ \t]*[\].]", re.M)


class TomlError(Exception):
    """Not TOML; `position` is where the parser stopped."""

    def __init__(self, message: str, position: Position):
        super().__init__(message)
        self.position = position


def load(text: str) -> dict[str, Any] | None:
    """The `[tool.trainspec]` table (None if there is none)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        at = _TOML_AT.search(str(e))
        message = _TOML_AT.sub("", str(e)).replace("(at end of document)", "").strip()
        if at:
            where = Position(int(at.group(1)), int(at.group(2)))
        else:  # "(at end of document)"
            where = Position(text.count("\n") + 1, len(text) - (text.rfind("\n") + 1) + 1)
        raise TomlError(f"invalid TOML: {message}", where) from e
    except RecursionError as e:  # nesting deep enough to exhaust the parser's stack
        raise TomlError("invalid TOML: nested too deeply", Position(1, 1)) from e
    tool = data.get("tool")
    return tool.get("trainspec") if isinstance(tool, dict) else None


def positions(text: str) -> dict[str, Position]:
    """JSON path (`$.policy.maxTimeout`, `$.overrides[1].paths`, with `#key` for a key's own
    place) → where it is written, for the keys of [tool.trainspec]."""
    found: dict[str, Position] = {}
    table: str | None = None  # the JSON path of the current table, None outside ours
    arrays: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        header = _HEADER.match(line)
        if header:
            parts = [p.strip().strip("\"'") for p in header.group(2).split(".")]
            table = None
            if tuple(parts[:2]) == SECTION:
                table = "$"
                for part in parts[2:]:
                    table = child(table, part)
                if header.group(1) == "[[":
                    arrays[table] = arrays.get(table, -1) + 1
                    found.setdefault(table, Position(number, 1))
                    table = f"{table}[{arrays[table]}]"
                found.setdefault(table, Position(number, 1))
                found.setdefault(table + "#key", Position(number, 1))
            continue
        key = _KEY.match(line) if table is not None else None
        if key:
            path = child(table, key.group(1).strip("\"'"))  # type: ignore[arg-type]
            column = key.start(1) + 1
            found.setdefault(path + "#key", Position(number, column))
            value_at = line.index("=", key.end(1)) + 1
            value_at += len(line[value_at:]) - len(line[value_at:].lstrip())
            found.setdefault(path, Position(number, value_at + 1))
    return found
