"""spec.tuning.studyStopping ↔ studySpec.studyStoppingConfig: compiled by the STUDY_STOPPING
table (the golden hpt-vertex-study-stopping has every key), imported back by it, bad
durations located."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from compiler import pipeline
from compiler.importers import decompile

GOLDEN = Path(__file__).parent / "golden" / "hpt-vertex-study-stopping"


def test_an_imported_body_gives_the_spec_back():
    outcome = decompile.decompile((GOLDEN / "vertex.json").read_text(), "vertex.json")
    assert outcome.ok, [d.format() for d in outcome.diagnostics]
    spec = yaml.safe_load(outcome.text)
    written = yaml.safe_load((GOLDEN / "spec.yaml").read_text())
    assert spec["spec"]["tuning"]["studyStopping"] == written["spec"]["tuning"]["studyStopping"]


def test_a_field_without_a_key_is_refused_by_the_importer():
    body = json.loads((GOLDEN / "vertex.json").read_text())
    body["studySpec"]["studyStoppingConfig"]["maximumRuntimeConstraint"] = {
        "endTime": "2030-01-01T00:00:00Z"}
    outcome = decompile.decompile(json.dumps(body), "vertex.json")
    assert [d.code for d in outcome.diagnostics if d.is_error] == ["import-unknown-field"]


def test_a_bad_or_zero_duration_is_located(tmp_path):
    text = (GOLDEN / "spec.yaml").read_text().replace("noProgressFor: 3h", "noProgressFor: 0s")
    result = pipeline.compile_text(text, "s.yaml")
    (error,) = result.errors
    assert (error.code, error.path, error.position.line) == (
        "duration-range", "$.spec.tuning.studyStopping.noProgressFor", 19)
    result = pipeline.compile_text(text.replace("noProgressFor: 0s", "noProgressFor: soon"),
                                   "s.yaml")
    assert result.errors and not result.ok


def test_the_body_sends_every_row():
    body = json.loads((GOLDEN / "vertex.json").read_text())
    assert body["studySpec"]["studyStoppingConfig"]["maximumRuntimeConstraint"] == {
        "maxDuration": "86400s"}


def test_it_is_sent_with_a_warning_that_its_docs_are_vizier_s():
    result = pipeline.compile_file(str(GOLDEN / "spec.yaml"))
    (warning,) = [d.format() for d in result.diagnostics]
    assert "Vertex AI Vizier" in warning and warning.endswith("[tuning-study-stopping]")


def _stopping(text: str, **swap: str):
    spec = (GOLDEN / "spec.yaml").read_text()
    for old, new in swap.items():
        assert old.replace("_", " ") in spec, old
        spec = spec.replace(old.replace("_", " "), new)
    return pipeline.compile_text(spec, "s.yaml")


def test_a_minimum_above_its_maximum_is_a_located_error():
    result = _stopping("", **{"minTrials:_10": "minTrials: 90", "minRuntime:_30m": "minRuntime: 2d"})
    found = sorted((d.code, d.path, d.position.line) for d in result.errors)
    assert found == [
        ("study-stopping-contradiction", "$.spec.tuning.studyStopping.minRuntime", 24),
        ("study-stopping-contradiction", "$.spec.tuning.studyStopping.minTrials", 22)]
    assert not result.ok
    text = "\n".join(d.format() for d in result.errors)
    assert "s.yaml:22:18: error: $.spec.tuning.studyStopping.minTrials: minTrials 90 is more " \
           "than maxTrials 80" in text and text.endswith("[study-stopping-contradiction]")


def test_bounds_the_job_never_reaches_and_multi_objective_no_progress_are_warnings():
    result = _stopping("", **{"maxTrials:_80": "maxTrials: 1000", "minTrials:_10": "minTrials: 200",
                              "metrics:_{auc:_maximize}": "metrics: {auc: maximize, loss: minimize}"})
    assert result.ok, [d.format() for d in result.errors]
    found = sorted((d.path, d.code) for d in result.diagnostics
                   if d.code == "study-stopping-ineffective")
    at = "$.spec.tuning.studyStopping."
    assert found == [(at + k, "study-stopping-ineffective") for k in
                     ("maxTrials", "minTrials", "noProgressFor", "noProgressTrials")]
    text = "\n".join(d.format() for d in result.diagnostics)
    assert "maxTrials 1000 is more than the job's tuning.maxTrials 100" in text
    assert "single-objective" in text and text.endswith("[study-stopping-ineffective]")
