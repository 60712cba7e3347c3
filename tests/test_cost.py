"""Costs in `explain` and `diff` (compiler/cost.py, compiler/report/review.py): goldens under
tests/golden-cost/ (regenerate with UPDATE_GOLDEN=1 and review the diff)."""

from __future__ import annotations

import dataclasses
import difflib
import io
import json
import os
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

from compiler import cli, cost, pipeline
from compiler.catalog import prices as catalog
from compiler.options import Options

GOLDEN = Path(__file__).parent / "golden-cost"
SPECS = sorted((GOLDEN / "specs").glob("*.yaml"))
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def _check(path: Path, actual: str) -> None:
    if UPDATE:
        path.write_text(actual, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, "".join(difflib.unified_diff(
        expected.splitlines(True), actual.splitlines(True), "expected", "actual"))


@pytest.mark.parametrize("spec", SPECS, ids=[s.stem for s in SPECS])
def test_explain_shows_the_cost(spec: Path, monkeypatch) -> None:
    monkeypatch.chdir(GOLDEN / "specs")
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["explain", spec.name], out, err) == 0, err.getvalue()
    _check(GOLDEN / f"{spec.stem}.explain", out.getvalue())


def _estimate(name: str) -> cost.Estimate:
    result = pipeline.compile_file(str(GOLDEN / "specs" / name), Options())
    found = cost.of_result(result)
    assert found is not None
    return found


def test_an_estimate_is_replicas_times_machine_and_accelerators() -> None:
    e = _estimate("h100.yaml")
    each = Decimal("10.8790864") + 8 * Decimal("11.2660332")
    assert e.rate == 2 * each and e.at_most == 2 * each * 24
    assert e.timeout_written and e.tier == "on-demand"


def test_flex_start_reads_the_flex_start_prices() -> None:
    assert _estimate("h100-flex.yaml").rate == 2 * (Decimal("5.4755168")
                                                    + 8 * Decimal("5.6702436"))


def test_a_tuning_job_costs_every_trial_at_the_default_timeout() -> None:
    e = _estimate("tuning.yaml")
    assert (e.trials, e.parallel, e.waves) == (20, 5, 4) and not e.timeout_written
    assert e.at_most == Decimal("0.1900") * 7 * 24 * 20
    assert e.rate_at_once == Decimal("0.1900") * 5


def test_an_unknown_price_is_never_a_number() -> None:
    e = _estimate("unknown.yaml")
    assert e.rate is None and e.at_most is None
    assert e.missing == ["NVIDIA_TESLA_T4", "n1-standard-8"]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("fmt,suffix", [("text", "txt"), ("markdown", "md"), ("json", "json")])
def test_diff_shows_each_jobs_cost_change_and_the_total(tmp_path, fmt, suffix) -> None:
    specs = _repo(tmp_path, "h100.yaml", "unknown.yaml", "scale-tier.yaml")
    # HEAD: a second H100 worker, a tuning job added, the BASIC job deleted, the T4 job's
    # timeout set (its price is unknown on both sides).
    h100 = (specs / "h100.yaml").read_text()
    (specs / "h100.yaml").write_text(h100.replace("replicas: 1", "replicas: 2"))
    shutil.copy(GOLDEN / "specs" / "tuning.yaml", specs / "tuning.yaml")
    (specs / "scale-tier.yaml").unlink()
    with (specs / "unknown.yaml").open("a") as f:
        f.write("  scheduling: {timeout: 12h}\n")
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["diff", "main", "--repo", str(tmp_path), "--format", fmt], out, err)
    assert code == 2, err.getvalue()
    _check(GOLDEN / f"diff.{suffix}", out.getvalue())


def _repo(tmp_path: Path, *names: str) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "specs").mkdir()
    for name in names:
        shutil.copy(GOLDEN / "specs" / name, tmp_path / "specs" / name)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    return tmp_path / "specs"


def _diff(repo: Path, fmt: str = "text") -> str:
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["diff", "main", "--repo", str(repo), "--format", fmt], out, err) == 2, \
        err.getvalue()
    return out.getvalue()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("edits", [
    [("name: census-basic\n", "name: census-basic\n  run: 2\n")],  # metadata.run: a re-run
    # A new image, the finished job submitted again (as a new run: ml v1 reuses no jobId).
    [("census:3.1", "census:3.2"), ("name: census-basic\n", "name: census-basic\n  run: 2\n")],
])
def test_a_resubmitted_job_costs_a_whole_run_not_nothing(tmp_path, edits) -> None:
    specs = _repo(tmp_path, "scale-tier.yaml")
    text = (specs / "scale-tier.yaml").read_text()
    for edit in edits:
        text = text.replace(*edit)
    (specs / "scale-tier.yaml").write_text(text)
    out = _diff(tmp_path).splitlines()
    assert "  cost: $0.19/h → $0.19/h; at most $0.57 → $0.57 a run (re-run: +$0.57 at most) †" \
        in out, out
    assert out[-1] == "cost: +$0.00/run at most; re-runs: +$0.57 at most"
    report = json.loads(_diff(tmp_path, "json"))
    assert report["entries"][0]["cost"]["rerunUsd"] == "0.57"
    assert (report["cost"]["changeUsd"], report["cost"]["rerunUsd"]) == ("0.00", "0.57")


def _verified(monkeypatch) -> None:
    """The catalog as if `prices refresh` had read every row today."""
    rows = tuple(dataclasses.replace(p, status=catalog.VERIFIED) for p in catalog.ROWS)
    monkeypatch.setattr(catalog, "_BY_KEY", catalog.index(rows))


def test_a_verified_price_has_no_mark_nor_footnote(monkeypatch) -> None:
    shipped = cost.lines(_estimate("h100.yaml"))
    assert shipped[-2].endswith(" †") and shipped[-1].startswith(
        "  † prices from secondary sources (cloudbilling SKUs 2E83-99F1-391A")
    assert shipped[-1].endswith(", 2025-08-16): run `trainspec prices refresh`")
    _verified(monkeypatch)
    e = _estimate("h100.yaml")
    assert e.verified and not any("†" in line for line in cost.lines(e))
