"""`import -- gcloud ...` against what gcloud itself sends: tests/golden-import/<case>/.

Each case holds `command` (a gcloud command line), the files it names (`config.yaml`), and what
gcloud 528 did with it, recorded verbatim by scripts/regenerate-golden-import:
  gcloud.json    the request body gcloud printed (--log-http) before failing to connect, or
  gcloud.error   gcloud's refusal.
and trainspec's side:
  import.error   import's refusal (every case gcloud refuses has one: import refuses too), or
  expect         for a command gcloud sends but the API or trainspec refuses: `refused: PHRASE`
                 and why (the import warns, compile refuses with PHRASE).
For every gcloud.json, the imported spec compiles to exactly that body, but for the documented
equivalences asserted one by one in `_equivalent` (ml's default tier, deprecated Spot names, an
unspecified tuning algorithm). UPDATE_GOLDEN=1 rewrites import.error.
"""

from __future__ import annotations

import copy
import datetime
import importlib.machinery
import importlib.util
import json
import os
import shlex
import shutil
from pathlib import Path

import pytest

from compiler import pipeline
from compiler.importers import decompile
from compiler.options import Options
from compiler.report import format_text

ROOT = Path(__file__).parent / "golden-import"
SCRIPT = Path(__file__).parent.parent / "scripts" / "regenerate-golden-import"
TODAY = datetime.date(2026, 11, 22)
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
CASES = sorted(p.name for p in ROOT.iterdir() if (p / "command").is_file())
# The deprecated Scheduling.strategy names ([DD-AIP] enumDeprecated): import writes the current
# name, so the compiled body says SPOT / STANDARD where gcloud passed the old one on.
DEPRECATED_STRATEGY = {"LOW_COST": "SPOT", "ON_DEMAND": "STANDARD"}


def words(case: str) -> list[str]:
    return shlex.split((ROOT / case / "command").read_text(encoding="utf-8"))


def run_import(case: str, monkeypatch) -> decompile.Outcome:
    monkeypatch.chdir(ROOT / case)  # --config names a file beside the command, as a user would
    return decompile.import_gcloud(words(case), [])


def platform(case: str) -> str:
    return "vertex" if {"custom-jobs", "hp-tuning-jobs"} & set(words(case)) else "ai-platform"


def _equivalent(gcloud_body: dict, ours: dict, api: str) -> dict:
    """`ours` with the documented differences from gcloud's body undone, each asserted."""
    ours = copy.deepcopy(ours)
    if api == "ai-platform":
        tin = ours["trainingInput"]
        if "scaleTier" not in gcloud_body["trainingInput"]:
            # trainspec always sends the tier; gcloud omits it, and the API default is BASIC.
            assert tin.pop("scaleTier") == "BASIC"
    else:
        spec = "trialJobSpec" if "trialJobSpec" in gcloud_body else "jobSpec"
        sent = gcloud_body[spec].get("scheduling", {}).get("strategy")
        if sent in DEPRECATED_STRATEGY:
            assert ours[spec]["scheduling"]["strategy"] == DEPRECATED_STRATEGY[sent]
            ours[spec]["scheduling"]["strategy"] = sent
        if gcloud_body.get("studySpec", {}).get("algorithm") == "ALGORITHM_UNSPECIFIED":
            # --algorithm algorithm-unspecified: the proto default, which a spec says by
            # leaving `algorithm` out (bayesian, the service's choice); nothing is sent.
            assert "algorithm" not in ours["studySpec"]
            ours["studySpec"]["algorithm"] = "ALGORITHM_UNSPECIFIED"
    return ours


@pytest.mark.parametrize("case", CASES)
def test_golden_import(case: str, monkeypatch) -> None:
    folder = ROOT / case
    outcome = run_import(case, monkeypatch)
    messages = format_text(outcome.diagnostics)
    if (folder / "gcloud.error").exists():
        assert not (folder / "gcloud.json").exists()
        assert not outcome.ok, f"gcloud refuses this command, import accepted it:\n{outcome.text}"
        if UPDATE:
            (folder / "import.error").write_text(messages + "\n", encoding="utf-8")
            return
        assert messages + "\n" == (folder / "import.error").read_text(encoding="utf-8")
        return
    expect = folder / "expect"
    result = pipeline.compile_text(outcome.text, "<imported>", Options(), today=TODAY) \
        if outcome.ok else None
    if expect.exists():  # sent by gcloud, refused by the API: import or compile says why
        phrase = expect.read_text(encoding="utf-8").splitlines()[0].removeprefix("refused: ")
        if result is not None:
            messages = format_text(result.errors)
        assert phrase in messages, messages
        return
    assert outcome.ok and result is not None, messages
    assert result.ok, outcome.text + format_text(result.diagnostics)
    assert platform(case) == result.job.platform
    sent = json.loads((folder / "gcloud.json").read_text(encoding="utf-8"))
    assert _equivalent(sent, result.body, result.job.platform) == sent, outcome.text


def test_every_case_is_recorded() -> None:
    for case in CASES:
        folder = ROOT / case
        recorded = [(folder / f).exists() for f in ("gcloud.json", "gcloud.error")]
        assert recorded.count(True) == 1, case
        assert (folder / "import.error").exists() == recorded[1], case


def test_cases_cover_both_apis_and_refusals() -> None:
    kinds = {(platform(c), (ROOT / c / "gcloud.json").exists()) for c in CASES}
    assert kinds == {("vertex", True), ("vertex", False), ("ai-platform", True),
                     ("ai-platform", False)}
    tuning = {(ROOT / c / "gcloud.json").exists() for c in CASES if "hp-tuning-jobs" in words(c)}
    assert tuning == {True, False}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcloud") is None, reason="gcloud is not installed")
def test_live_gcloud_still_sends_the_recorded_bodies(tmp_path) -> None:
    """A few cases re-run against the installed gcloud (in parallel): the recordings are not
    stale. The whole set is re-recorded with scripts/regenerate-golden-import."""
    loader = importlib.machinery.SourceFileLoader("regen", str(SCRIPT))
    spec = importlib.util.spec_from_loader("regen", loader)
    regen = importlib.util.module_from_spec(spec)
    loader.exec_module(regen)
    picked = ["vertex-config-flags-override", "vertex-kms-key-parts", "ml-custom-container-pools"]
    for name in picked:
        shutil.copytree(ROOT / name, tmp_path / name)
        for stale in ("gcloud.json", "gcloud.error"):
            (tmp_path / name / stale).unlink(missing_ok=True)
    regen.ROOT = tmp_path
    assert regen.main(picked) == 0
    for name in picked:
        assert json.loads((tmp_path / name / "gcloud.json").read_text()) == \
            json.loads((ROOT / name / "gcloud.json").read_text()), name
