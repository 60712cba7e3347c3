"""`import` of gcloud `ai hp-tuning-jobs create --config FILE` + flags, against the request
bodies gcloud itself sent (tests/gcloud-hpt, recorded with --log-http).

Compiling the imported spec for vertex gives gcloud's body, modulo proto3 JSON: key order,
int64 as a string or a number, a double written 4 or 4.0, and *_UNSPECIFIED enums (the proto
default) counting as absent.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from compiler import pipeline
from compiler.importers import decompile
from compiler.options import Options

CASES = sorted(p for p in (Path(__file__).parent / "gcloud-hpt").iterdir() if p.is_dir())
# gcloud flags that are not the command's own: global flags and the config file.
GLOBAL = ("--project", "--access-token-file", "--log-http", "--quiet", "--config")


def canon(value, key: str = ""):
    if isinstance(value, dict):
        return {k: canon(v, k) for k, v in value.items()
                if not (isinstance(v, str) and v.endswith("_UNSPECIFIED"))}
    if isinstance(value, list):
        return [canon(v, key) for v in value]
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def flags(case: Path) -> list[str]:
    words = shlex.split(case.joinpath("command").read_text().splitlines()[0])
    argv = words[words.index("create") + 1:]
    return [w for w in argv if not w.startswith(GLOBAL)]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_imported_config_compiles_to_gcloud_body(case: Path) -> None:
    text = case.joinpath("config.yaml").read_text()
    outcome = decompile.decompile(text, "config.yaml", decompile.parse_flags(flags(case)))
    assert outcome.ok, [d.format() for d in outcome.diagnostics]
    assert "kind: HyperparameterTuningJob" in outcome.text
    result = pipeline.compile_text(outcome.text, "imported.yaml", Options(platform="vertex"))
    assert result.ok, outcome.text + "\n".join(d.format() for d in result.errors)
    expected = json.loads(case.joinpath("request.json").read_text())
    assert canon(result.body) == canon(expected), outcome.text


def test_every_case_is_recorded() -> None:
    assert len(CASES) >= 3
    for case in CASES:
        assert {p.name for p in case.iterdir()} == {"command", "config.yaml", "request.json"}
