"""The emulator's hyperparameterTuningJobs, driven with the real REST client: the lifecycle,
trials in waves with measurements, and the refusals of the real API (independently encoded in
compiler/cloud/emulator/tuning.py)."""

from __future__ import annotations

import copy
import json

import pytest
from test_emulator import STEP, TOKEN, FakeClock, vertex_body

from compiler.cloud.emulator import Emulator, serve, server_rules
from compiler.cloud.rest import TUNING_JOBS, ApiError, Client

TUNING_SCHEMA = "GoogleCloudAiplatformV1HyperparameterTuningJob"


def tuning_body(trials=4, parallel=2, **labels) -> dict:
    return {
        "displayName": "hpt", "labels": {"team": "ads", **labels},
        "studySpec": {
            "metrics": [{"metricId": "auc", "goal": "MAXIMIZE"}],
            "parameters": [
                {"parameterId": "lr", "doubleValueSpec": {"minValue": 0.001, "maxValue": 0.1},
                 "scaleType": "UNIT_LOG_SCALE"},
                {"parameterId": "layers", "integerValueSpec": {"minValue": "1", "maxValue": "4"}},
                {"parameterId": "opt", "categoricalValueSpec": {"values": ["adam", "sgd"]},
                 "conditionalParameterSpecs": [{
                     "parameterSpec": {"parameterId": "momentum",
                                       "doubleValueSpec": {"minValue": 0, "maxValue": 0.9}},
                     "parentCategoricalValues": {"values": ["sgd"]}}]},
            ]},
        "maxTrialCount": trials, "parallelTrialCount": parallel,
        "trialJobSpec": vertex_body()["jobSpec"],
    }


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def client(monkeypatch, clock):
    monkeypatch.delenv("TRAINSPEC_API_ENDPOINT", raising=False)
    server, _ = serve(port=0, clock=clock, progress_seconds=STEP)
    yield Client(endpoint=server.url, token=TOKEN, sleep=lambda s: None, timeout=5)
    server.shutdown()
    server.server_close()


def test_create_get_list_cancel_delete(client, clock):
    job = client.vertex_create("p", "us-central1", tuning_body(), TUNING_JOBS)
    assert job["name"].startswith("projects/p/locations/us-central1/hyperparameterTuningJobs/")
    assert job["state"] == "JOB_STATE_QUEUED" and "trials" not in job
    assert client.vertex_get(job["name"]) == job
    client.vertex_create("p", "us-central1", vertex_body())  # a CustomJob: another collection
    listed = client.vertex_list("p", "us-central1", 'labels.team="ads"', TUNING_JOBS)
    assert [j["name"] for j in listed[TUNING_JOBS]] == [job["name"]]
    assert len(client.vertex_list("p", "us-central1")["customJobs"]) == 1
    clock.advance(2 * STEP)  # RUNNING: the first wave of trials
    running = client.vertex_get(job["name"])
    assert running["state"] == "JOB_STATE_RUNNING"
    assert [t["state"] for t in running["trials"]] == ["ACTIVE", "ACTIVE"]
    with pytest.raises(ApiError) as info:
        client.vertex_delete(job["name"])
    assert info.value.status_name == "FAILED_PRECONDITION"
    client.vertex_cancel(job["name"])
    clock.advance(STEP)
    cancelled = client.vertex_get(job["name"])
    assert cancelled["state"] == "JOB_STATE_CANCELLED"
    assert [t["state"] for t in cancelled["trials"]] == ["INFEASIBLE", "INFEASIBLE"]
    assert client.vertex_delete(job["name"])["done"] is True
    with pytest.raises(ApiError) as info:
        client.vertex_get(job["name"])
    assert info.value.not_found


def test_trials_run_in_waves_and_end_with_measurements(client, clock):
    name = client.vertex_create("p", "us-central1", tuning_body(trials=5, parallel=2),
                                TUNING_JOBS)["name"]
    seen = []
    for _ in range(7):
        job = client.vertex_get(name)
        seen.append((job["state"], [t["state"] for t in job.get("trials", [])]))
        clock.advance(STEP)
    assert seen == [
        ("JOB_STATE_QUEUED", []), ("JOB_STATE_PENDING", []),
        ("JOB_STATE_RUNNING", ["ACTIVE", "ACTIVE"]),
        ("JOB_STATE_RUNNING", ["SUCCEEDED", "SUCCEEDED", "ACTIVE", "ACTIVE"]),
        ("JOB_STATE_RUNNING", ["SUCCEEDED"] * 4 + ["ACTIVE"]),
        ("JOB_STATE_SUCCEEDED", ["SUCCEEDED"] * 5), ("JOB_STATE_SUCCEEDED", ["SUCCEEDED"] * 5)]
    trial = job["trials"][0]
    assert trial["finalMeasurement"]["metrics"][0]["metricId"] == "auc"
    assert {p["parameterId"] for p in trial["parameters"]} == {"lr", "layers", "opt"}
    assert 0.001 <= trial["parameters"][0]["value"] <= 0.1
    assert job["endTime"] == job["trials"][-1]["endTime"]


def test_hold_keeps_the_last_wave_running_and_failed_trials_are_infeasible(client, clock):
    held = client.vertex_create("p", "us-central1", tuning_body(
        trials=4, parallel=2, **{"emulator-hold": "running"}), TUNING_JOBS)["name"]
    failed = client.vertex_create("p", "us-central1", tuning_body(
        trials=2, parallel=2, **{"emulator-result": "failed"}), TUNING_JOBS)["name"]
    clock.advance(10 * STEP)
    job = client.vertex_get(held)
    assert job["state"] == "JOB_STATE_RUNNING"
    assert [t["state"] for t in job["trials"]] == ["SUCCEEDED", "SUCCEEDED", "ACTIVE", "ACTIVE"]
    job = client.vertex_get(failed)
    assert job["state"] == "JOB_STATE_FAILED"
    assert {t["state"] for t in job["trials"]} == {"INFEASIBLE"}


def _with(path: list, value) -> dict:
    body = tuning_body()
    target = body
    for key in path[:-1]:
        target = target[key]
    if value is None:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return body


P = ["studySpec", "parameters"]


@pytest.mark.parametrize("body, field, phrase", [
    (_with(["maxTrialCount"], None), "max_trial_count", "Required"),
    (_with(["parallelTrialCount"], 0), "parallel_trial_count", "at least 1"),
    (_with(["studySpec", "metrics"], []), "study_spec.metrics", "at least one"),
    (_with(["studySpec", "metrics"], [{"metricId": "val loss", "goal": "MINIMIZE"}]),
     "study_spec.metrics[0].metric_id", "whitespaces"),
    (_with(P + [0, "parameterId"], "layers"), "study_spec.parameters[1].parameter_id", "unique"),
    (_with(P + [0, "doubleValueSpec"], {"minValue": 1, "maxValue": 0.5}),
     "study_spec.parameters[0].double_value_spec", "greater than"),
    (_with(P + [0, "doubleValueSpec"], {"minValue": 0, "maxValue": 1}),
     "study_spec.parameters[0].scale_type", "strictly positive"),
    (_with(P + [1, "integerValueSpec"], None), "study_spec.parameters[1]", "Exactly one"),
    (_with(P + [2, "scaleType"], "UNIT_LINEAR_SCALE"), "study_spec.parameters[2].scale_type",
     "CATEGORICAL"),
    (_with(P + [2, "conditionalParameterSpecs", 0, "parentCategoricalValues"],
           {"values": ["rmsprop"]}),
     "study_spec.parameters[2].conditional_parameter_specs[0].parent_categorical_values.values[0]",
     "Must exist"),
    (_with(["studySpec", "algorithm"], "GRID_SEARCH"), "study_spec.algorithm", "grid search"),
    ({**tuning_body(), "studySpec": {**tuning_body()["studySpec"], "decayCurveStoppingSpec": {},
                                     "medianAutomatedStoppingSpec": {}}},
     "study_spec", "one automated stopping spec"),
    ({**tuning_body(), "trialJobSpec": {"workerPoolSpecs": [{}]}},
     "trial_job_spec.worker_pool_specs[0]", "must not be empty"),
])
def test_refuses_what_the_api_refuses(client, body, field, phrase):
    with pytest.raises(ApiError) as info:
        client.vertex_create("p", "us-central1", body, TUNING_JOBS)
    assert info.value.status_name == "INVALID_ARGUMENT"
    assert any(f == field and phrase in d for f, d in info.value.field_violations), \
        info.value.field_violations


def test_discrete_parents_and_disjoint_children_are_accepted():
    body = copy.deepcopy(tuning_body())
    body["studySpec"]["parameters"].append({
        "parameterId": "batch", "discreteValueSpec": {"values": [16, 32, 64]},
        "conditionalParameterSpecs": [
            {"parameterSpec": {"parameterId": "decay", "doubleValueSpec": {"minValue": 0.1,
                                                                           "maxValue": 1}},
             "parentDiscreteValues": {"values": [16]}},
            {"parameterSpec": {"parameterId": "decay", "doubleValueSpec": {"minValue": 0.2,
                                                                           "maxValue": 2}},
             "parentDiscreteValues": {"values": [32, 64]}}]})
    assert server_rules("aiplatform", body, TUNING_SCHEMA) == []
    body["studySpec"]["parameters"][-1]["conditionalParameterSpecs"][1][
        "parentDiscreteValues"]["values"] = [16, 64]
    assert [f for f, _ in server_rules("aiplatform", body, TUNING_SCHEMA)] == [
        "study_spec.parameters[3].conditional_parameter_specs[1].parameter_spec.parameter_id"]


def test_a_custom_job_body_is_refused_by_the_tuning_collection():
    status, body = Emulator().handle(
        "POST", "/v1/projects/p/locations/us-central1/hyperparameterTuningJobs",
        b'{"displayName": "x", "jobSpec": {}}')
    assert status == 400
    fields = {v["field"] for v in body["error"]["details"][0]["fieldViolations"]}
    assert {"job_spec", "study_spec", "max_trial_count"} <= fields


def test_tuning_jobs_persist_across_restarts_with_their_cancel_and_delete(tmp_path):
    """--state FILE: the tuning collection is journalled like the others."""
    state = str(tmp_path / "s.json")
    first = Emulator(state_file=state, progress_seconds=0)
    path = "/v1/projects/p/locations/us-central1/hyperparameterTuningJobs"
    kept, gone = (first.handle("POST", path, json.dumps(tuning_body()).encode())[1]["name"]
                  for _ in range(2))
    assert first.handle("DELETE", f"/v1/{gone}")[0] == 200
    first.close()
    again = Emulator(state_file=state, progress_seconds=0)
    assert list(again.state["tuning"]) == [kept]
    status, job = again.handle("GET", f"/v1/{kept}")
    assert status == 200 and job["state"] == "JOB_STATE_SUCCEEDED" and len(job["trials"]) == 4
    again.close()
