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
