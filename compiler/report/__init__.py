"""Reporters: one registry of the formats trainspec writes its results in.

Each reporter renders what a command found: diagnostics (`validate`, `compile`, `explain`, the
Pulumi program, `status`/`logs`/`wait`, `import`, `local-run`) and a review (`diff`). A
command offers the reporters that render what it reports (`choices`), so a new format is one
row here and its renderers (text.py, formats.py, review.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from .review import Review
    from .text import format_text

__all__ = ["REPORTERS", "Reporter", "choices", "format_text", "help_text"]

# The renderers' modules are imported when one renders (a command's --format choices need
# only this table): text.py's format_text and report_json are read through __getattr__.
_LAZY = {"format_text": ".text", "report_json": ".text"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _lazy(module: str, function: str) -> Callable[..., str]:
    """The renderer `function` of this package's `module`, imported on its first call."""
    def render(*args: Any) -> str:
        return getattr(import_module(module, __name__), function)(*args)
    render.__name__ = render.__qualname__ = function
    return render


def _text(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    from .text import format_text

    return format_text(diagnostics) + "\n" if diagnostics else ""


def _sarif(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    from . import formats

    return json.dumps(formats.sarif(diagnostics), indent=2, allow_nan=False) + "\n"


def _github(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    from . import formats

    return formats.github(diagnostics)


@dataclass(frozen=True)
class Reporter:
    name: str  # the value of --format
    what: str  # what --help says of it ("" for nothing)
    # (diagnostics, files checked) → the report, None: not a format of diagnostics.
    diagnostics: Callable[[Sequence[Diagnostic], Sequence[str]], str] | None
    review: Callable[[Review], str] | None  # `diff`'s report of a review
    # Diagnostics as text go to stderr, beside what the command prints (a compiled request);
    # a machine-read report goes to stdout, alone.
    stderr: bool = False


DIAGNOSTICS, REVIEW = "diagnostics", "review"

REPORTERS = {r.name: r for r in (
    Reporter("text", "", _text, _lazy(".review", "render_text"), stderr=True),
    Reporter("markdown", "a PR comment", None, _lazy(".review", "render_markdown")),
    Reporter("json", "", _lazy(".text", "report_json"), _lazy(".review", "render_json")),
    Reporter("sarif", "SARIF 2.1.0 for GitHub code scanning", _sarif, None),
    Reporter("github", "workflow-command annotations", _github, None),
)}


def choices(what: str) -> tuple[str, ...]:
    """The reporters that render `what` (DIAGNOSTICS or REVIEW): a command's --format."""
    return tuple(r.name for r in REPORTERS.values() if getattr(r, what) is not None)


def help_text(what: str) -> str:
    """--format's help: "text (default), json, sarif (SARIF 2.1.0 …) or github (…)"."""
    names = [f"{n} ({'default' if n == 'text' else REPORTERS[n].what})"
             if n == "text" or REPORTERS[n].what else n for n in choices(what)]
    return ", ".join(names[:-1]) + " or " + names[-1]
