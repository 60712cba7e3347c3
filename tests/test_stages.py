"""The stages between normalize and lower: each target's RESOLVE passes choose every default
(each with a note), its CHECK passes only report, never change the job."""

from __future__ import annotations

import copy
import datetime
from pathlib import Path

import pytest

from compiler import pipeline
from compiler.normalize.job import normalize
from compiler.options import Options
from compiler.source import read as source
from compiler.targets import PLATFORMS

GOLDEN = Path(__file__).parent / "golden"
TODAY = datetime.date(2026, 11, 22)
SPECS = sorted(p / "spec.yaml" for p in GOLDEN.iterdir() if (p / "spec.yaml").is_file())


def _resolved(spec: Path, platform: str):
    doc, _ = source.parse(spec.read_bytes(), "spec.yaml")
    c = doc.collector()
    job = normalize(doc, c, Options(platform=platform))
    for resolve in PLATFORMS[platform].target.RESOLVE:
        resolve(job)
    return job, c


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.parent.name)
def test_check_passes_never_change_the_job(spec: Path, platform: str) -> None:
    job, c = _resolved(spec, platform)
    before = copy.deepcopy(job)
    for check in PLATFORMS[platform].target.CHECK:
        check(job, c, TODAY)
    assert job == before


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_every_default_resolve_chooses_is_noted(platform: str) -> None:
    """A spec that leaves the machine and the chief to the target gets both, said in notes."""
    spec = b"""apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: defaults}
spec:
  region: us-central1
  container: {image: us-docker.pkg.dev/p/r/i:1}
  aiPlatform: {scaleTier: CUSTOM}
"""
    doc, _ = source.parse(spec, "spec.yaml")
    job = normalize(doc, doc.collector(), Options(platform=platform))
    assert not job.pools and job.spec_chief is not None and not job.notes
    for resolve in PLATFORMS[platform].target.RESOLVE:
        resolve(job)
    chief = job.pools["chief"]
    assert chief is job.spec_chief and chief.machine_type
    assert job.defaulted("$.spec.pools.chief") and job.defaulted("$.spec.pools.chief.machineType")


def test_a_defaulted_legacy_machine_is_not_a_mix_of_kinds() -> None:
    """resolve gives a pool without machineType the legacy `standard` when the other pools use
    legacy names; check then sees one kind (it used to refuse the default it had chosen)."""
    spec = b"""apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: legacy}
spec:
  platform: ai-platform
  region: us-central1
  container: {image: gcr.io/p/i:1}
  pools:
    chief: {machineType: standard}
    worker: {replicas: 2}
"""
    result = pipeline.compile_text(spec, "spec.yaml", today=TODAY)
    assert result.ok, result.diagnostics
    assert result.body["trainingInput"]["workerType"] == "standard"


def test_the_compile_in_the_middle_reads_no_config(monkeypatch: pytest.MonkeyPatch) -> None:
    """The repo config is passed in by the entry point that reads files: compile_document
    never looks one up (no module-global cache, no disk)."""
    from compiler.config import load as config_load
    from compiler.config.model import Policy

    def no_lookup(*args, **kwargs):
        raise AssertionError("compile_document looked up a repo config")

    doc, found = source.parse(b"apiVersion: trainspec/v1\nkind: TrainingJob\nmetadata: {name: a}"
                              b"\nspec: {container: {image: gcr.io/p/t:1}}\n", "spec.yaml")
    monkeypatch.setattr(config_load, "find", no_lookup)
    repo = config_load.Found(policies=((Policy(require_encryption_key=True), "trainspec.yaml"),))
    result = pipeline.compile_document(doc, found, Options(), TODAY, repo)
    assert any(d.file == "spec.yaml" and "encryptionKey" in d.message
               for d in result.diagnostics), result.diagnostics
