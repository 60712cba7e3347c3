"""Diagnostics: every problem trainspec finds, as a value with a place and a remedy.

Stages collect diagnostics instead of raising, so one run reports every problem; the CLI
decides the exit code at the end.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True, order=True)
class Position:
    line: int  # 1-based
    column: int  # 1-based


@dataclass(frozen=True)
class Diagnostic:
    """One problem. `path` is a JSON path into the spec (``$.spec.pools.chief``)."""

    path: str
    message: str
    severity: str = ERROR
    file: str = "<input>"
    position: Position | None = None
    hint: str | None = None
    # The rule's stable code (compiler/rules.py): what `ignore`, `severity`, inline
    # `# trainspec: ignore[code]` and SARIF name.
    code: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == ERROR

    def format(self) -> str:
        """The diagnostic as one line of text (file, path, message and hint `printable`)."""
        where = printable(self.file)
        if self.position is not None:
            where += f":{self.position.line}:{self.position.column}"
        text = f"{where}: {self.severity}: {printable(self.path)}: {printable(self.message)}"
        if self.hint:
            text += f" ({printable(self.hint)})"
        if self.code:
            text += f" [{self.code}]"
        return text

    def to_json(self) -> dict:
        return {
            "file": self.file,
            "line": self.position.line if self.position else None,
            "column": self.position.column if self.position else None,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
            "hint": self.hint,
            "code": self.code,
        }


def printable(text: str) -> str:
    """`text` as it may be printed on one line of a terminal, log or report: every character
    that is not printable (line breaks: \\n, \\r, U+2028, U+0085; ESC and the other C0 and C1
    controls; TAB; format characters such as the bidi override U+202E) written as its Python
    escape (`\\n`, `\\x1b`, `\\u202e`). Keys, values and file names are the user's: printed raw,
    a line break would forge a diagnostic line and ESC would drive the terminal."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)


def json_printable(text: str) -> str:
    """JSON text written with ensure_ascii=False, with every character `printable` would escape
    also escaped (JSON escapes only those below U+0020; U+2028, U+0085 or U+202E would reach the
    reader raw). Line breaks outside strings (indentation) stay."""
    if text.replace("\n", "").isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == "\n" else json.dumps(ch)[1:-1]
                   for ch in text)


def sort_key(d: Diagnostic) -> tuple:
    pos = d.position or Position(0, 0)
    return (d.file, pos.line, pos.column, d.path, d.message)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.is_error for d in diagnostics)


class TrainspecError(Exception):
    """Base class of trainspec's own failures."""



@dataclass
class Collector:
    """Gathers diagnostics for one file; `where(path)` resolves source positions."""

    file: str = "<input>"
    positions: dict[str, Position] = field(default_factory=dict)
    items: list[Diagnostic] = field(default_factory=list)

    def locate(self, path: str) -> Position | None:
        # Walk up the JSON path until a known position: a missing key is reported at its parent.
        p = path
        while True:
            if p in self.positions:
                return self.positions[p]
            if p in ("$", ""):
                return None
            cut = max(p.rfind("."), p.rfind("["))
            if cut <= 0:
                return self.positions.get("$")
            p = p[:cut]

    def add(self, path: str, message: str, *, severity: str = ERROR, hint: str | None = None,
            key: bool = False, code: str | None = None) -> None:
        pos = self.positions.get(path + "#key") if key else None
        if pos is None:
            pos = self.locate(path)
        self.items.append(Diagnostic(path, message, severity, self.file, pos, hint, code))

    def error(self, path: str, message: str, hint: str | None = None, key: bool = False,
              code: str | None = None) -> None:
        self.add(path, message, hint=hint, key=key, code=code)

    def warning(self, path: str, message: str, hint: str | None = None,
                code: str | None = None) -> None:
        self.add(path, message, severity=WARNING, hint=hint, code=code)

    def report(self, path: str, problems: Iterable) -> None:
        """Add the structured problems (rules.Problem) a pure check found in the object at
        `path`: each at its key below `path`, with its rule's severity."""
        for p in problems:
            self.add(f"{path}.{p.key}" if p.key else path, p.message, severity=p.severity,
                     hint=p.hint, code=p.code)

    @property
    def failed(self) -> bool:
        return has_errors(self.items)
