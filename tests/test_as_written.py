"""What a spec says is what is sent, or a located error (issue 8 §1).

YAML 1.1 (PyYAML) reads some numbers otherwise than they look: `0600` is octal 384, `1:30` is
base-60 90, `2.0` is a float, `1e-5` is a string. None of them may reach a request as a
different value, and nothing non-finite or beyond int64 may reach JSON at all.
"""

from __future__ import annotations

import datetime
import json
import math

import pytest

from compiler import discovery, emit, pipeline
from compiler.cloud.rest import ApiError, Client
from compiler.importers import decompile
from compiler.options import Options
from compiler.source import read as source

TODAY = datetime.date(2026, 11, 22)

BASE = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: job}
spec:
  platform: PLATFORM
  region: us-central1
  container: {image: gcr.io/p/t:1}
  pools:
    chief: {machineType: n1-standard-8, accelerator: {type: T4, count: COUNT}, disk: {sizeGb: SIZE}}
    worker: {machineType: n1-standard-8, replicas: REPLICAS}
  scheduling: {SCHEDULING}
"""
GOOD = {"PLATFORM": "vertex", "COUNT": "2", "SIZE": "500", "REPLICAS": "4",
        "SCHEDULING": "timeout: 600"}


def spec(**changes: str) -> str:
    text = BASE
    for key, value in {**GOOD, **changes}.items():
        text = text.replace(key, value)
    return text


def compile_(text: str) -> pipeline.Result:
    return pipeline.compile_text(text, "s.yaml", today=TODAY)


def errors(text: str) -> list[str]:
    return [d.format() for d in compile_(text).errors]


def test_the_base_spec_compiles_to_what_it_says() -> None:
    body = compile_(spec()).body
    chief, worker = body["jobSpec"]["workerPoolSpecs"]
    assert chief["machineSpec"]["acceleratorCount"] == 2
    assert chief["diskSpec"]["bootDiskSizeGb"] == 500
    assert worker["replicaCount"] == "4"
    assert body["jobSpec"]["scheduling"]["timeout"] == "600s"


@pytest.mark.parametrize("changes,where,written", [
    ({"COUNT": "2.0"}, "s.yaml:9:72: error: $.spec.pools.chief.accelerator.count", "2"),
    ({"SIZE": "500.0"}, "s.yaml:9:91: error: $.spec.pools.chief.disk.sizeGb", "500"),
    ({"REPLICAS": "4.0"}, "s.yaml:10:52: error: $.spec.pools.worker.replicas", "4"),
    ({"PLATFORM": "ai-platform", "SCHEDULING": "priority: 7.0"},
     "s.yaml:11:26: error: $.spec.scheduling.priority", "7"),
])
def test_integral_floats_in_integer_fields_are_refused_located(changes, where, written) -> None:
    # Before: count 2.0 compiled to 1 GPU, replicas 4.0 to 1, sizeGb and priority dropped.
    found = errors(spec(**changes))
    assert found == [f"{where}: expected an integer, got {written}.0 (write {written}: with a "
                     "decimal point YAML reads a float) [wrong-type]"]


@pytest.mark.parametrize("changes,where,read_as,hint", [
    ({"SCHEDULING": "timeout: 0600"}, "$.spec.scheduling.timeout", "the octal number 384",
     "write 600s if you meant 600 seconds, or 384s if you meant octal"),
    ({"SCHEDULING": "timeout: 1:30"}, "$.spec.scheduling.timeout",
     "the base-60 number 90 (seconds)", "1m30s, 1h30m, or plain seconds (90)"),
    ({"SCHEDULING": "maxWait: 010"}, "$.spec.scheduling.maxWait", "the octal number 8",
     "write 10s"),
    ({"SIZE": "0500"}, "$.spec.pools.chief.disk.sizeGb", "the octal number 320",
     "write 500 if you meant 500, 320 if you meant octal, or '0500' for text"),
    ({"REPLICAS": "010"}, "$.spec.pools.worker.replicas", "the octal number 8",
     "write 10 if you meant 10"),
    ({"REPLICAS": "1:00"}, "$.spec.pools.worker.replicas", "the base-60 number 60",
     "write 60 if you meant 60"),
    ({"COUNT": "0_10"}, "$.spec.pools.chief.accelerator.count", "the octal number 8", "10"),
])
def test_yaml11_octal_and_base60_numbers_are_refused_with_how_to_write_them(
        changes, where, read_as, hint) -> None:
    result = compile_(spec(**changes))
    assert not result.ok and result.body is None
    (error,) = result.errors
    assert error.path == where and error.position is not None
    assert error.message.startswith("YAML 1.1 reads ") and read_as in error.message
    assert hint in error.hint


def test_leading_zeros_that_change_nothing_are_taken() -> None:
    body = compile_(spec(COUNT="02", SCHEDULING="timeout: 00600s")).body
    assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["acceleratorCount"] == 2


@pytest.mark.parametrize("value,kind", [(".inf", "not a finite number"),
                                        ("-.inf", "not a finite number"),
                                        (".nan", "not a finite number"),
                                        (".NaN", "not a finite number"),
                                        ("99999999999999999999", "64-bit integer range"),
                                        ("-9223372036854775809", "64-bit integer range")])
@pytest.mark.parametrize("field", ["COUNT", "SIZE", "REPLICAS", "timeout", "maxWait",
                                   "priority", "maxTrials", "minValue", "discreteValues"])
def test_non_finite_and_huge_numbers_are_refused_in_every_numeric_field(field, value, kind):
    if field in ("COUNT", "SIZE", "REPLICAS"):
        text = spec(**{field: value})
    elif field in ("timeout", "maxWait"):
        text = spec(SCHEDULING=f"{field}: {value}")
    elif field == "priority":
        text = spec(PLATFORM="ai-platform", SCHEDULING=f"priority: {value}")
    else:
        params = (f"{{parameterName: p, type: DOUBLE, minValue: {value}, maxValue: 1.0}}"
                  if field == "minValue" else
                  f"{{parameterName: p, type: DISCRETE, discreteValues: [1, {value}]}}")
        trials = value if field == "maxTrials" else "4"
        text = spec(PLATFORM="ai-platform").replace("  scheduling:", (
            "  aiPlatform:\n    hyperparameters: {goal: MAXIMIZE, maxTrials: " + trials
            + ", hyperparameterMetricTag: acc, params: [" + params + "]}\n  scheduling:"))
    result = compile_(text)
    assert result.body is None
    assert any(kind in d.message and d.position is not None for d in result.errors), \
        [d.format() for d in result.errors]


def test_where_the_text_is_sent_yaml_numbers_stay_as_written() -> None:
    text = spec().replace("{image: gcr.io/p/t:1}", "{image: gcr.io/p/t:1, args: [--mode, 0600, "
                          "--every, 1:30, .inf, .nan, 99999999999999999999, 2.0, 1e-5]}\n"
                          "  env: {UMASK: 0600, AT: '1:30', X: .nan}")
    result = compile_(text)
    assert result.ok, [d.format() for d in result.errors]
    container = result.body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]
    assert container["args"] == ["--mode", "0600", "--every", "1:30", ".inf", ".nan",
                                 "99999999999999999999", "2.0", "1e-5"]
    assert container["env"][0] == {"name": "UMASK", "value": "0600"}
    assert {"name": "X", "value": ".nan"} in container["env"]


def test_compiled_output_is_strict_json() -> None:
    with pytest.raises(ValueError):
        emit.dumps({"x": math.nan})  # never written, even if a stage let one through
    text = emit.dumps(compile_(spec()).body)
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))


def test_the_provider_refuses_non_finite_numbers_before_sending() -> None:
    body = {"trainingInput": {"hyperparameters": {"params": [{"minValue": math.inf}]}}}
    found = discovery.violations("ml", "GoogleCloudMlV1__Job", body)
    assert ("trainingInput.hyperparameters.params[0].minValue",
            "inf is not a finite number; JSON cannot carry it") in found

    class NoNetwork:
        def request(self, *args, **kwargs):
            raise AssertionError("a body with NaN was sent")

    client = Client(endpoint="http://127.0.0.1:9", session=NoNetwork())
    with pytest.raises(ApiError) as caught:
        client.ml_create("p", {"jobId": "j", "x": math.nan})
    assert "not JSON" in str(caught.value) and "nothing was sent" in str(caught.value)


def test_duplicate_keys_inside_merges_are_located_errors() -> None:
    text = ("a: 1\nspec:\n  <<: {region: us-central1, region: europe-west4}\n")
    doc, found = source.parse(text, "m.yaml")
    assert [d.format() for d in found] == [
        "m.yaml:3:29: error: $.spec.region: duplicate key 'region' (first at line 3) "
        "[yaml-duplicate-key]"]


def test_merges_inside_merged_mappings_are_merged_not_kept_as_a_key() -> None:
    text = "x: &x {k: 1}\ny: &y {<<: *x, j: 2}\nz: {<<: *y, j: 3}\n"
    doc, found = source.parse(text)
    assert found == [] and doc.data["z"] == {"j": 3, "k": 1}
    doc, found = source.parse("a: &a {<<: *a}\n")
    assert [d.message for d in found] == ["recursive alias"]
    doc, found = source.parse("a: &a {k: 1}\nb: {<<: *a, <<: [{k: 2}]}\n")
    assert [d.message for d in found] == ["duplicate key '<<' (first at line 2)"]


def test_a_hand_written_exponent_gets_one_message_with_how_to_write_it() -> None:
    text = spec(PLATFORM="ai-platform").replace("  scheduling:", (
        "  aiPlatform:\n    hyperparameters:\n      goal: MAXIMIZE\n      maxTrials: 4\n"
        "      hyperparameterMetricTag: acc\n      params:\n"
        "        - {parameterName: lr, type: DOUBLE, minValue: 1e-5, maxValue: 1.0e-1}\n"
        "  scheduling:"))
    assert errors(text) == [
        "s.yaml:17:55: error: $.spec.aiPlatform.hyperparameters.params[0].minValue: expected a "
        "number, got a string (YAML reads 1e-5 as text: an exponent needs a '.' before it and a "
        "sign after the 'e'; write 1.0e-5) [wrong-type]"]
    assert errors(text.replace("1e-5", "1.0e-5")) == []


def test_import_writes_exponents_its_own_loader_reads_back_as_numbers() -> None:
    body = {"jobId": "j", "trainingInput": {
        "scaleTier": "CUSTOM", "masterType": "n1-standard-4", "region": "us-central1",
        "masterConfig": {"imageUri": "gcr.io/p/t:1"}, "args": ["--lr", "1e-05"],
        "hyperparameters": {"goal": "MAXIMIZE", "maxTrials": 4, "hyperparameterMetricTag": "a",
                            "params": [{"parameterName": "lr", "type": "DOUBLE",
                                        "minValue": 1e-05, "maxValue": 0.1},
                                       {"parameterName": "d", "type": "DISCRETE",
                                        "discreteValues": [1e-05, 2.5e-05, 1e20]}]}}}
    outcome = decompile.decompile(json.dumps(body), "job.json")
    assert outcome.ok
    # An ml tuning config imports as a HyperparameterTuningJob (issue 10): spec.tuning.
    assert "double: [1.0e-05, 0.1]" in outcome.text
    assert "discrete: [1.0e-05, 2.5e-05, 1.0e+20]" in outcome.text
    again = pipeline.compile_text(outcome.text, "imported.yaml", Options(), TODAY)
    assert again.ok, [d.format() for d in again.errors]
    # ml's default of one trial at a time is written out by the import (Vertex requires it).
    assert again.body["trainingInput"]["hyperparameters"] == {
        **body["trainingInput"]["hyperparameters"], "maxParallelTrials": 1}
    assert again.body["trainingInput"]["args"] == ["--lr", "1e-05"]  # a string stays a string


# -- issue 16 review: what is written is what is sent ------------------------------------------

@pytest.mark.parametrize("written,sent", [
    ("12345678.123456789", "12345678.123456789s"),
    ("123456789012.123456789", "123456789012.123456789s"),
    ("100000000000.000000001", "100000000000.000000001s"),
    ("1_000.5", "1000.5s"),
    ("0.000000001", "0.000000001s"),
])
def test_plain_second_durations_are_read_from_their_text_exactly(written, sent) -> None:
    # Before: read as a double and rounded: "12345678.12345679s", "100000000000s".
    result = compile_(spec(SCHEDULING=f"timeout: {written}"))
    assert result.ok, [d.format() for d in result.errors]
    assert result.body["jobSpec"]["scheduling"]["timeout"] == sent


def test_plain_second_durations_beyond_nanoseconds_are_located_errors() -> None:
    found = errors(spec(SCHEDULING="timeout: 1.0000000001"))
    assert found == ["s.yaml:11:25: error: $.spec.scheduling.timeout: '1.0000000001' is more "
                     "precise than a nanosecond, the APIs' resolution (at most 9 digits after "
                     "the point in seconds): 1.0000000001s cannot be sent exactly "
                     "[duration-range]"]


def test_a_merge_tag_on_a_key_that_is_not_the_merge_key_is_refused() -> None:
    text = ("spec:\n  env:\n    NCCL_DEBUG: INFO\n"
            "    !!merge innocent-comment: {NCCL_DEBUG: WARN, LD_PRELOAD: /tmp/x.so}\n")
    doc, found = source.parse(text, "m.yaml")
    assert [d.format() for d in found] == [
        "m.yaml:4:5: error: $.spec.env: cannot read 'innocent-comment' as a merge key: it is "
        "tagged !!merge (a merge key is written <<; drop the tag for a key) [yaml-value]"]
    text = text.replace("!!merge innocent-comment", "? !!merge [a]\n    ")
    assert any(d.code == "yaml-value" for d in source.parse(text)[1])


def test_plain_and_tagged_merge_keys_still_merge() -> None:
    for key in ("<<", "!!merge <<"):
        doc, found = source.parse(f"a: &a {{k: 1}}\nb: {{{key}: *a, j: 2}}\n")
        assert found == [] and doc.data["b"] == {"j": 2, "k": 1}


@pytest.mark.parametrize("changes,where,read_as,hint", [
    ({"COUNT": "0b10"}, "$.spec.pools.chief.accelerator.count", "the binary number 2",
     "write 2 if you meant 2, or '0b10' for text"),
    ({"SCHEDULING": "timeout: 0b1000"}, "$.spec.scheduling.timeout", "the binary number 8",
     "write 8s"),
])
def test_yaml11_binary_numbers_are_refused_like_octal(changes, where, read_as, hint) -> None:
    result = compile_(spec(**changes))
    assert not result.ok and result.body is None
    (error,) = result.errors
    assert error.path == where and error.position is not None and error.code == "misread-number"
    assert read_as in error.message and "YAML 1.2 reads it as text" in error.message
    assert hint in error.hint


def test_hexadecimal_numbers_read_the_same_in_yaml_11_and_12_and_are_taken() -> None:
    body = compile_(spec(COUNT="0x2", SCHEDULING="timeout: 0x10")).body
    assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["acceleratorCount"] == 2
    assert body["jobSpec"]["scheduling"]["timeout"] == "16s"


def legacy(params: str) -> str:
    return spec(PLATFORM="ai-platform").replace("  scheduling:", (
        "  aiPlatform:\n    hyperparameters: {goal: MAXIMIZE, maxTrials: 4, "
        "hyperparameterMetricTag: acc, params: [" + params + "]}\n  scheduling:"))


def test_legacy_integers_a_double_cannot_hold_are_located_errors() -> None:
    found = errors(legacy("{parameterName: p, type: INTEGER, minValue: 9007199254740993, "
                          "maxValue: 9007199254740999}"))
    assert any("$.spec.aiPlatform.hyperparameters.params[0].minValue: 9007199254740993 cannot "
               "be sent exactly: the API takes it as a double, which reads it as "
               "9007199254740992" in f for f in found), found
    assert compile_(legacy("{parameterName: p, type: INTEGER, minValue: -9007199254740992, "
                           "maxValue: 9007199254740992}")).ok


@pytest.mark.parametrize("written,sent", [("1.00000000000000001", "1.0"),
                                          ("0.12345678901234567890", "0.12345678901234568")])
def test_numbers_a_double_cannot_hold_exactly_are_refused_with_the_value_sent(written, sent):
    found = compile_(legacy(f"{{parameterName: p, type: DOUBLE, minValue: {written}, "
                            "maxValue: 2.0}")).errors
    assert [(d.path, d.code) for d in found] == [
        ("$.spec.aiPlatform.hyperparameters.params[0].minValue", "inexact-number")]
    assert f"a double reads {written} as {sent}" in found[0].message
    assert compile_(legacy("{parameterName: p, type: DOUBLE, minValue: 0.1, maxValue: 0.3}")).ok
    whole = compile_(legacy("{parameterName: p, type: INTEGER, minValue: 1.00000000000000001, "
                            "maxValue: 4}"))  # before: whole, and sent as 1
    assert [d.code for d in whole.errors] == ["inexact-number"] and whole.body is None


def test_a_number_too_small_for_a_double_is_reported_as_underflow() -> None:
    found = compile_(legacy("{parameterName: p, type: DOUBLE, minValue: 1.0e-400, "
                            "maxValue: 1.0, scaleType: UNIT_LOG_SCALE}")).errors
    assert found and found[0].code == "inexact-number"
    assert found[0].format() == (
        "s.yaml:12:135: error: $.spec.aiPlatform.hyperparameters.params[0].minValue: 1.0e-400 is "
        "too small for a double: it would be sent as 0.0 (write 0 if you meant 0, or a number "
        "above about 2.2e-308) [inexact-number]")


def test_a_project_from_the_stack_config_is_validated_like_spec_project() -> None:
    text = spec().replace("  region: us-central1\n", "")
    result = pipeline.compile_text(text, "s.yaml", Options(project="BAD PROJECT!!",
                                                           region="us-central1"), today=TODAY)
    assert [d.code for d in result.errors] == ["project-id"] and result.body is None
    assert "'BAD PROJECT!!' is not a project id" in result.errors[0].message


@pytest.mark.parametrize("image", ["us-docker.pkg.dev/p/t/resnet:1.4.2\\n\\e",
                                   "us-docker.pkg.dev/p/t/resnet:1.4.2\\u202e",
                                   "gcr.io/p/t:1 --privileged"])
def test_an_image_that_cannot_be_an_image_reference_is_a_located_error(image) -> None:
    found = compile_(spec().replace("{image: gcr.io/p/t:1}", f'{{image: "{image}"}}')).errors
    assert [(d.path, d.code) for d in found] == [("$.spec.container.image", "image-reference")]
    assert found[0].position is not None and found[0].format().endswith(
        "(e.g. us-docker.pkg.dev/PROJECT/REPOSITORY/IMAGE:TAG) [image-reference]")


@pytest.mark.parametrize("image", ["gcr.io/P/t:1", "gcr.io/p/t:", "$PUBLISHED_IMAGE_URI",
                                   "gcr.io/${PROJECT_ID}/t:1"])
def test_an_image_outside_the_grammar_is_a_warning_and_sent_as_written(image) -> None:
    """Only what no reference can hold is certain; the grammar is not known to be enforced at
    submit time, and shell templates (imported configs) write `$IMAGE_URI`."""
    result = compile_(spec().replace("{image: gcr.io/p/t:1}", f'{{image: "{image}"}}'))
    assert result.errors == []
    assert [(d.path, d.code) for d in result.diagnostics if d.code.startswith("image-")] == [
        ("$.spec.container.image", "image-reference-grammar")]
    pools = result.body.get("jobSpec", {}).get("workerPoolSpecs", [])
    assert pools[0]["containerSpec"]["imageUri"] == image


@pytest.mark.parametrize("image", [
    "gcr.io/p/t:1", "us-docker.pkg.dev/acme-ml-prod/trainers/resnet:1.4.2", "ubuntu",
    "localhost:5000/x/y_z__w-v:Latest_1", "gcr.io/p/t@sha256:" + "a" * 64,
    "gcr.io/p/t:1@sha256:" + "0" * 64, "[::1]:5000/x:1"])
def test_image_references_of_the_grammar_are_taken(image) -> None:
    assert compile_(spec().replace("{image: gcr.io/p/t:1}", f'{{image: "{image}"}}')).ok
