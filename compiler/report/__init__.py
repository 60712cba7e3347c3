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

from ..diagnostics import Diagnostic
from . import formats, review
from .review import Review
from .text import format_text, report_json

__all__ = ["REPORTERS", "Reporter", "choices", "format_text", "help_text"]


def _text(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    return format_text(diagnostics) + "\n" if diagnostics else ""


def _sarif(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
    return json.dumps(formats.sarif(diagnostics), indent=2, allow_nan=False) + "\n"


def _github(diagnostics: Sequence[Diagnostic], files: Sequence[str]) -> str:
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
    Reporter("text", "", _text, review.render_text, stderr=True),
    Reporter("markdown", "a PR comment", None, review.render_markdown),
    Reporter("json", "", report_json, review.render_json),
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
