"""`import` of a config whose values have the wrong type (issue 16 §2): a located
`import-shape` error and exit 1, never a traceback. Each case is one crash a fuzzer found
(every value of the corpus and golden-import configs swapped to a list, mapping, null, number
or string), reduced to a small config: REST bodies, gcloud --config files (with the flags that
read the value) and Vertex SDK arguments."""

from __future__ import annotations

import io
import json

import pytest

from compiler import cli

POOL = {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
        "containerSpec": {"imageUri": "gcr.io/p/t:1"}}
SDK_POOL = {"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
            "container_spec": {"image_uri": "gcr.io/p/t:1"}}


def _job(pool: dict | None = None, **spec) -> dict:
    return {"displayName": "job", "jobSpec": {"workerPoolSpecs": [pool or POOL], **spec}}


def _env(name) -> dict:
    return _job({**POOL, "containerSpec": {"imageUri": "gcr.io/p/t:1",
                                           "env": [{"name": name, "value": "1"}]}})


def _hpt(parameter: dict) -> dict:
    return {"displayName": "hpt", "maxTrialCount": 2, "parallelTrialCount": 1,
            "studySpec": {"metrics": [{"metricId": "loss", "goal": "MINIMIZE"}],
                          "parameters": [parameter]},
            "trialJobSpec": {"workerPoolSpecs": [POOL]}}


def _sdk_hpt(**parameter) -> dict:
    return {"metric_spec": {"loss": "minimize"}, "max_trial_count": 2,
            "parameter_spec": {"lr": {"type": "DoubleParameterSpec", "min": 0.1, "max": 1,
                                      **parameter}},
            "worker_pool_specs": [SDK_POOL]}


def _conditional(parent) -> dict:
    return {"study_spec": {"metrics": [{"metric_id": "loss", "goal": "MINIMIZE"}], "parameters": [
        {"parameter_id": "batch", "discrete_value_spec": {"values": [4, 8]},
         "conditional_parameter_specs": parent}]},
        "max_trial_count": 2, "trial_job_spec": {"worker_pool_specs": [SDK_POOL]}}


_PARENT = [{"parameter_spec": {"parameter_id": "lr", "double_value_spec": {
    "min_value": 0.1, "max_value": 1}}, "parent_discrete_values": {"values": [4]}}]

# (config, where the error is) for a REST body or SDK arguments (job.json).
CASES = {
    "strategy-list": (_job(scheduling={"strategy": ["SPOT"]}), "$.jobSpec.scheduling.strategy"),
    "strategy-mapping": (_job(scheduling={"strategy": {"k": "v"}}),
                         "$.jobSpec.scheduling.strategy"),
    "env-name-list": (_env(["x"]), "$.jobSpec.workerPoolSpecs[0].containerSpec.env[0].name"),
    "env-name-mapping": (_env({}), "$.jobSpec.workerPoolSpecs[0].containerSpec.env[0].name"),
    "env-name-null": (_env(None), "$.jobSpec.workerPoolSpecs[0].containerSpec.env[0]"),
    "env-name-number": (_env(1.5), "$.jobSpec.workerPoolSpecs[0].containerSpec.env[0]"),
    "reservation-type-list": (_job({**POOL, "machineSpec": {
        "machineType": "n1-standard-4", "reservationAffinity": {
            "reservationAffinityType": ["ANY_RESERVATION"]}}}),
        "$.jobSpec.workerPoolSpecs[0].machineSpec.reservationAffinity.reservationAffinityType"),
    "discrete-values-number": (_hpt({"parameterId": "b", "discreteValueSpec": {"values": 7}}),
                               "$.studySpec.parameters[0].discreteValueSpec.values"),
    "null-list-item": (_hpt({"parameterId": "b", "discreteValueSpec": {"values": [1, None]}}),
                       "$.studySpec.parameters[0].discreteValueSpec.values[1]"),
    "labels-null-value": ({**_job(), "labels": {"team": None}}, "$.labels.team"),
    "sdk-job-spec-list": ({"job_spec": ["x"]}, "$.job_spec"),
    "sdk-job-spec-number": ({"job_spec": 7}, "$.job_spec"),
    "sdk-run-kwargs-list": ({"container_uri": "gcr.io/p/t:1", "run_kwargs": ["x"]},
                            "$.run_kwargs"),
    "sdk-run-kwargs-number": ({"container_uri": "gcr.io/p/t:1", "run_kwargs": 7},
                              "$.run_kwargs"),
    "sdk-constructor-kwargs-list": ({"worker_pool_specs": [SDK_POOL],
                                     "constructor_kwargs": ["x"]}, "$.constructor_kwargs"),
    "sdk-strategy-list": ({"container_uri": "gcr.io/p/t:1",
                           "run_kwargs": {"scheduling_strategy": ["SPOT"]}},
                          "$.jobSpec.scheduling.strategy"),  # the request field it sets
    "sdk-scale-mapping": (_sdk_hpt(scale={}), "$.parameter_spec['lr'].scale"),
    "sdk-type-list": (_sdk_hpt(type=["x"]), "$.parameter_spec['lr'].type"),
    "sdk-values-number": (_sdk_hpt(type="DiscreteParameterSpec", values=7),
                          "$.parameter_spec['lr'].values"),
    "sdk-search-algorithm-list": ({**_sdk_hpt(), "search_algorithm": ["grid"]},
                                  "$.search_algorithm"),
    "gapic-parent-values-list": (_conditional([{**_PARENT[0], "parent_discrete_values": ["x"]}]),
                                 "$.study_spec.parameters[0].conditional_parameter_specs[0]"
                                 ".parent_discrete_values"),
    "gapic-parent-values-number": (_conditional([{**_PARENT[0], "parent_discrete_values": {
        "values": 7}}]), "$.study_spec.parameters[0].conditional_parameter_specs[0]"
                         ".parent_discrete_values.values"),
    "gapic-conditionals-number": (_conditional(7),
                                  "$.study_spec.parameters[0].conditional_parameter_specs"),
}


def _import(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["import", *argv], out, err)
    assert out.getvalue() == ""
    return code, err.getvalue()


def _located(err: str, file: str, path: str) -> None:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if f": error: {path}:" in line]
    assert lines, err
    assert lines[0].startswith(file + ":") and lines[0].split(":")[1] != "0", err
    assert lines[0].endswith("[import-shape]"), err


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_value_of_the_wrong_type_is_a_located_error(case: str, tmp_path) -> None:
    config, path = CASES[case]
    file = tmp_path / "job.json"
    file.write_text(json.dumps(config, indent=2))
    code, err = _import([str(file)])
    assert code == 1, err
    if path.endswith("env[0]"):  # a null or number name: the entry is no {name, value}
        assert f"error: {path}: an env entry must be {{name, value}}" in err, err
        return
    _located(err, str(file), path)


@pytest.mark.parametrize("config,flags,path", [
    # read by the flags merge before any importer: --master-image-uri writes masterConfig.
    ("trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n  masterConfig: [x]\n",
     ["ai-platform", "jobs", "submit", "training", "j", "--region=us-central1",
      "--master-image-uri=gcr.io/p/t:1"], "$.trainingInput.masterConfig"),
    # --args writes every pool's args.
    ("workerPoolSpecs: 7\n", ["ai", "custom-jobs", "create", "--region=us-central1",
                              "--display-name=j", "--args=--x"], "$.workerPoolSpecs"),
])
def test_a_gcloud_config_value_of_the_wrong_type_is_a_located_error(
        config: str, flags: list[str], path: str, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text(config)
    code, err = _import(["--", "gcloud", *flags, "--config=config.yaml"])
    assert code == 1, err
    _located(err, "config.yaml", path)


def test_a_null_field_is_unset(tmp_path) -> None:
    """proto3 JSON reads a null field as unset: a null masterConfig imports as none."""
    file = tmp_path / "job.json"
    file.write_text(json.dumps({"jobId": "j", "trainingInput": {
        "scaleTier": "BASIC", "region": "us-central1", "masterConfig": None,
        "packageUris": ["gs://b/t.tar.gz"], "pythonModule": "t.task"}}))
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["import", str(file)], out, err) == 0, err.getvalue()
    assert "masterConfig" not in out.getvalue() and "Traceback" not in err.getvalue()
