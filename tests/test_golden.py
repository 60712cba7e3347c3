"""Golden cases: tests/golden/<case>/spec.yaml → expected request body and diagnostics per platform.

Per platform P in (vertex, ai-platform):
  P.json          the exact request body (its absence means compiling for P must fail)
  P.diagnostics   every diagnostic, one per line (its absence means none at all)
A case without any P.* file for a platform is not compiled for it. Regenerate with
UPDATE_GOLDEN=1 and review the diff: goldens are the contract, not a snapshot to bless.
"""

from __future__ import annotations

import datetime
import difflib
import json
import os
from pathlib import Path

import pytest

from compiler import discovery, emit, pipeline
from compiler.cloud import emulator
from compiler.options import Options
from compiler.report import format_text
from compiler.targets import body_schema

GOLDEN = Path(__file__).parent / "golden"
TODAY = datetime.date(2026, 11, 22)
PLATFORMS = ("vertex", "ai-platform")
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def cases():
    for case in sorted(p for p in GOLDEN.iterdir() if (p / "spec.yaml").is_file()):
        for platform in PLATFORMS:
            if any((case / f"{platform}.{ext}").exists() for ext in ("json", "diagnostics")) \
                    or (UPDATE and (case / "platforms").read_text().split().count(platform)
                        if (case / "platforms").exists() else False):
                yield pytest.param(case, platform, id=f"{case.name}-{platform}")


def _diff(expected: str, actual: str) -> str:
    return "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                        "expected", "actual"))


@pytest.mark.parametrize("case,platform", list(cases()))
def test_golden(case: Path, platform: str) -> None:
    blob = (case / "spec.yaml").read_bytes()
    result = pipeline.compile_text(blob, "spec.yaml", Options(platform=platform), today=TODAY)
    body_file, diag_file = case / f"{platform}.json", case / f"{platform}.diagnostics"
    actual_diags = format_text(result.diagnostics) + "\n" if result.diagnostics else ""
    actual_body = emit.dumps(result.body) if result.ok else None
    if UPDATE:
        for path, text in ((body_file, actual_body), (diag_file, actual_diags or None)):
            if text:
                path.write_text(text, encoding="utf-8")
            elif path.exists():
                path.unlink()
        return
    expected_diags = diag_file.read_text(encoding="utf-8") if diag_file.exists() else ""
    assert actual_diags == expected_diags, _diff(expected_diags, actual_diags)
    if body_file.exists():
        expected = body_file.read_text(encoding="utf-8")
        assert actual_body == expected, _diff(expected, actual_body or "(compile failed)\n")
        api, schema = body_schema(platform, result.job.kind)
        assert discovery.violations(api, schema, json.loads(expected)) == []
        assert emulator.server_rules(api, json.loads(expected), schema) == []
    else:
        assert not result.ok, "compiled, but the case expects a refusal"
        assert all(d.position is not None for d in result.errors), "every error is located"
