"""The text and JSON reports of diagnostics: `file:line:col: severity: path: message [code]`
lines (a terminal, a log), and the JSON object `validate --format json` prints."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from ..config import check as config_check
from ..config.plaintext import redact_diagnostic
from ..diagnostics import Diagnostic, has_errors, sort_key

# A repo config's own rules quote config values, never a spec's (a config holds no
# credential); a hostile config has 90,000 of them (tests/test_hostile.py).
_NO_USER_VALUE = frozenset({config_check.CODE, config_check.UNKNOWN, config_check.NOT_TUNABLE})


def ordered(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` as every report shows them: in file and position order, no message
    quoting a secret the detector finds (a spec's own secrets are scrubbed where it is
    compiled, pipeline._done; this catches every other command's: import, status, ...)."""
    return [d if d.code in _NO_USER_VALUE else redact_diagnostic(d, pairs=False)
            for d in sorted(diagnostics, key=sort_key)]


def format_text(diagnostics: Iterable[Diagnostic]) -> str:
    """One line per diagnostic (Diagnostic.format), in file and position order."""
    return "\n".join(d.format() for d in ordered(diagnostics))


def report_json(diagnostics: Sequence[Diagnostic], files: Iterable[str]) -> str:
    """`validate --format json`: the files checked, whether they passed, every diagnostic."""
    report = {"files": sorted(files), "ok": not has_errors(diagnostics),
              "errors": sum(d.is_error for d in diagnostics),
              "warnings": sum(not d.is_error for d in diagnostics),
              "diagnostics": [d.to_json() for d in ordered(diagnostics)]}
    return json.dumps(report, indent=2, allow_nan=False) + "\n"
