"""The tuning model shared by spec.tuning and aiPlatform.hyperparameters (compiler/tuning.py)."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest
import yaml

from compiler import pipeline
from compiler.diagnostics import Collector
from compiler.options import Options
from compiler.tuning import model as tuning
from compiler.tuning import rules as tuning_rules

GOLDEN = Path(__file__).parent / "golden"
TODAY = datetime.date(2026, 11, 22)


def compile_text(text: str, platform: str) -> pipeline.Result:
    return pipeline.compile_text(text, "s.yaml", Options(platform=platform), today=TODAY)


def test_both_syntaxes_compile_to_the_same_ai_platform_request():
    """The legacy block and spec.tuning are one model: the same trainingInput.hyperparameters."""
    legacy = compile_text((GOLDEN / "aip-hptuning/spec.yaml").read_text(), "ai-platform")
    new = compile_text((GOLDEN / "hpt-census-both/spec.yaml").read_text(), "ai-platform")
    assert legacy.ok and new.ok
    assert legacy.body == new.body


def test_the_vertex_refusal_of_ai_platform_hyperparameters_says_what_to_write():
    """The hint's spec.tuning, pasted as told, compiles for vertex and, for ai-platform, to the
    hyperparameters the legacy block sent."""
    text = (GOLDEN / "aip-hptuning/spec.yaml").read_text()
    refused = compile_text(text, "vertex")
    (error,) = [d for d in refused.errors if d.path == "$.spec.aiPlatform.hyperparameters"]
    written = re.search(r"spec\.tuning: (\{.*\})$", error.hint).group(1)
    data = yaml.safe_load(text)
    data["kind"] = "HyperparameterTuningJob"
    del data["spec"]["aiPlatform"]
    data["spec"]["tuning"] = yaml.safe_load(written)
    migrated = yaml.safe_dump(data, sort_keys=False)
    vertex = compile_text(migrated, "vertex")
    assert vertex.ok, [d.format() for d in vertex.errors]
    assert vertex.body["studySpec"]["algorithm"] == "RANDOM_SEARCH"
    assert vertex.body["maxTrialCount"] == 10 and vertex.body["maxFailedTrialCount"] == 1
    ml = compile_text(migrated, "ai-platform")
    assert ml.body["trainingInput"]["hyperparameters"] == \
        compile_text(text, "ai-platform").body["trainingInput"]["hyperparameters"]


def test_ml_defaults_are_written_out_for_vertex():
    """No tag, goal or trial counts in the legacy block: their ml defaults, which Vertex needs."""
    c = Collector()
    t = tuning_rules.from_ml({"params": [{"parameterName": "lr", "type": "DOUBLE",
                                           "minValue": 0.1, "maxValue": 1}]}, c)
    assert c.items == []
    assert tuning.to_spec(t) == {"metrics": {"training/hptuning/metric": "maximize"},
                                 "parameters": {"lr": {"double": [0.1, 1]}},
                                 "maxTrials": 1, "parallelTrials": 1}


def test_to_spec_reads_back_as_the_same_search():
    text = (GOLDEN / "hpt-vertex-every-field/spec.yaml").read_text()
    raw = yaml.safe_load(text)["spec"]["tuning"]
    first = tuning_rules.from_spec(raw, Collector())
    again = tuning_rules.from_spec(tuning.to_spec(first), Collector())
    assert again == first


@pytest.mark.parametrize("parameters, points", [
    ({"a": {"integer": [1, 4]}, "b": {"categorical": ["x", "y"]}}, 8),
    ({"a": {"discrete": [1, 2, 3]}}, 3),
    ({"a": {"integer": [1, 4]}, "b": {"double": [0, 1]}}, None),
    # sgd searches momentum's 3 values too: adam 1 + sgd 3 = 4 combinations.
    ({"o": {"categorical": ["adam", "sgd"],
            "conditional": [{"when": ["sgd"], "parameters": {"m": {"discrete": [1, 2, 3]}}}]}}, 4),
    # a huge integer range with one conditional value: counted, not enumerated.
    ({"n": {"integer": [1, 2**31 - 1],
            "conditional": [{"when": [5], "parameters": {"k": {"integer": [1, 10]}}}]}},
     2**31 - 2 + 10),
])
def test_grid_points(parameters, points):
    t = tuning_rules.from_spec({"metrics": {"m": "maximize"}, "parameters": parameters},
                               Collector())
    assert tuning.grid_points(t) == points


def test_summary_is_readable():
    t = tuning_rules.from_spec(yaml.safe_load(
        (GOLDEN / "hpt-vertex-every-field/spec.yaml").read_text())["spec"]["tuning"], Collector())
    lines = tuning.summary(t)
    assert lines[0] == "metrics     auc (maximize), latency_ms (minimize)"
    assert lines[1] == "search      random, 64 trials, 8 in parallel, stop after 4 failed"
    assert lines[2] == "grid points unbounded (a double parameter)"
    assert "parameters  learning_rate  double [1e-05, 0.1], log scale" in lines
    assert "            layers         integer [1, 8] (8 values)" in lines
    assert "              if optimizer in [sgd]: momentum double [0, 0.99]" in lines
    assert lines[-1] == "options     early stopping convex rule, measurement best"
