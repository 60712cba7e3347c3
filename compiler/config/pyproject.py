"""`[tool.trainspec]` of a pyproject.toml: its data, and where each key is written.

tomllib keeps no positions, so a small line scanner maps the section's keys to lines: table
headers (`[tool.trainspec.policy]`, `[[tool.trainspec.overrides]]`) and `key = ` lines, dotted
ones too (`tool.trainspec.ignore = `). A value spread over lines, or inside an inline table, is
located at its key; that is as close as a config error needs.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from ..diagnostics import Position
from ..source.jsonpath import child

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the 3.10 backport, a dependency there
    import tomli as tomllib

SECTION = ("tool", "trainspec")
_PART = r"""(?:"[^"]*"|'[^']*'|[A-Za-z0-9_-]+)"""
_PARTS = re.compile(_PART)
_HEADER = re.compile(r"^[ \t]*(\[\[?)[ \t]*([^\]]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$")
_KEY = re.compile(rf"^[ \t]*({_PART}(?:[ \t]*\.[ \t]*{_PART})*)[ \t]*=")
# What `affordable` looks at: a one-line string or a comment (skipped whole), an escape, the
# quotes of a multi-line string, brackets, dots, line breaks.
_TOKEN = re.compile(r"""#[^\n]*|"(?:[^"\\\n]|\\.)*"(?!")|'[^'\n]*'(?!')|\\.|"{3}|'{3}|["'\[\]{}.\n]""",
                    re.S)
MAX_DEPTH = 64  # as YAML's (source/limits.py); a pyproject.toml nests a few levels
MAX_DOTS = 256  # a dotted key's parts: tomllib is quadratic in them
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")
# A file that mentions [tool.trainspec], as a table header, a dotted key
# (`tool.trainspec.ignore = `) or a key of a [tool] table (`trainspec = {...}`): if trainspec
# cannot parse it, the error is trainspec's to report.
MENTIONS = re.compile(
    rb"^[ \t]*(?:\[\[?[ \t]*tool[ \t]*\.[ \t]*trainspec[ \t]*[\].]"
    rb"|tool[ \t]*\.[ \t]*trainspec[ \t]*[.=]"
    rb"|tool[ \t]*=[ \t]*\{[^\n]*\btrainspec\b"
    rb"|\[[ \t]*tool[ \t]*\][^\n]*\n(?:(?![ \t]*\[\[?[ \t]*[A-Za-z0-9_\"'])[^\n]*\n)*?"
    rb"[ \t]*trainspec[ \t]*[.=])", re.M)


class TomlError(Exception):
    """Not TOML; `position` is where the parser stopped."""

    def __init__(self, message: str, position: Position):
        super().__init__(message)
        self.position = position


def load(text: str) -> dict[str, Any] | None:
    """The `[tool.trainspec]` table (None if there is none)."""
    tool = parse(text).get("tool")
    return tool.get("trainspec") if isinstance(tool, dict) else None


def parse(text: str) -> dict[str, Any]:
    """A TOML document, parsed within bounds: tomllib recurses once per nested array or inline
    table and is quadratic in a dotted key's parts, so `affordable` refuses those first."""
    affordable(text)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        at = _TOML_AT.search(str(e))
        message = _TOML_AT.sub("", str(e)).replace("(at end of document)", "").strip()
        if at:
            where = Position(int(at.group(1)), int(at.group(2)))
        else:  # "(at end of document)"
            where = Position(text.count("\n") + 1, len(text) - (text.rfind("\n") + 1) + 1)
        raise TomlError(f"invalid TOML: {message}", where) from e
    except (RecursionError, MemoryError) as e:  # a last resort: `affordable` comes first
        raise TomlError("invalid TOML: nested too deeply", Position(1, 1)) from e


def affordable(text: str) -> None:
    """Refuse, before parsing, arrays and inline tables nested deeper than MAX_DEPTH and lines
    with more than MAX_DOTS dots outside strings (a dotted key of that many parts), in one pass
    over quotes, comments, brackets, dots and line breaks."""
    depth, dots, line, start, inside = 0, 0, 1, 0, ""  # inside: the string or comment opened
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token == "\n":
            line, dots, start = line + 1, 0, m.end()
            if inside in ('"', "'"):  # (a one-line string left open: tomllib says so)
                inside = ""
        elif inside:
            if token == inside:
                inside = ""
        elif token in ('"""', "'''", '"', "'"):
            inside = token
        elif len(token) > 1:  # a one-line string, a comment, an escape
            continue
        elif token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise TomlError(f"invalid TOML: nested too deeply (more than {MAX_DEPTH} arrays "
                                "or inline tables)", Position(line, m.start() - start + 1))
        elif token in "]}":
            depth = max(depth - 1, 0)
        elif token == ".":
            dots += 1
            if dots > MAX_DOTS:
                raise TomlError(f"invalid TOML: more than {MAX_DOTS} dots on one line (a dotted "
                                "key of that many parts)", Position(line, m.start() - start + 1))


def positions(text: str) -> dict[str, Position]:
    """JSON path (`$.policy.maxTimeout`, `$.overrides[1].paths`, with `#key` for a key's own
    place) → where it is written, for the keys of [tool.trainspec]: under its table headers,
    or as dotted keys (`tool.trainspec.ignore = `, `trainspec.policy.maxTimeout = ` under
    [tool]). An inline table's keys are located at the key holding it."""
    found: dict[str, Position] = {}
    table: list[str] = []  # the TOML path of the current table
    here = "$"  # its JSON path, with array-of-tables indices
    arrays: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), 1):
        header = _HEADER.match(line)
        if header:
            table = _names(header.group(2))
            here = "$"
            if tuple(table[:2]) == SECTION:
                for part in table[2:]:
                    here = child(here, part)
                if header.group(1) == "[[":
                    arrays[here] = arrays.get(here, -1) + 1
                    found.setdefault(here, Position(number, 1))
                    here = f"{here}[{arrays[here]}]"
                found.setdefault(here, Position(number, 1))
                found.setdefault(here + "#key", Position(number, 1))
            continue
        key = _KEY.match(line)
        full = table + _names(key.group(1)) if key else []
        if tuple(full[:2]) != SECTION and not (full == ["tool"] and "trainspec" in line):
            continue
        path = here if tuple(table[:2]) == SECTION else "$"
        column = key.start(1) + 1  # type: ignore[union-attr]
        value_at = line.index("=", key.end(1)) + 1  # type: ignore[union-attr]
        value_at += len(line[value_at:]) - len(line[value_at:].lstrip())
        found.setdefault("$", Position(number, column))
        parts = full[max(2, len(table)):]
        for i, part in enumerate(parts, 1):  # a dotted key's tables are where the key is
            path = child(path, part)
            found.setdefault(path + "#key", Position(number, column))
            found.setdefault(path, Position(number, value_at + 1 if i == len(parts) else column))
    return found


def _names(dotted: str) -> list[str]:
    """The parts of a dotted TOML key or table name, unquoted."""
    return [part.strip("\"'") for part in _PARTS.findall(dotted)]
