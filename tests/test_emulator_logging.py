"""The emulator's Cloud Logging (entries:list), web access URIs and tuning trials, driven with
the real REST client (fixtures and bodies from test_emulator.py)."""

import datetime

import pytest
import requests
from test_emulator import FakeClock, ml_body, vertex_body

from compiler.cloud.emulator import serve
from compiler.cloud.rest import ApiError, Client

STEP = 10.0


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def start():
    """start(**Emulator options) -> (server, client) on a fresh emulator; stopped afterwards."""
    servers = []

    def _start(**options):
        server, _ = serve(port=0, **options)
        servers.append(server)
        return server, Client(endpoint=server.url, sleep=lambda s: None, timeout=5)

    yield _start
    for server in servers:
        server.shutdown()
        server.server_close()



def _lines(entries):
    return [(e["resource"]["labels"]["task_name"], e["severity"],
             e.get("textPayload") or e["jsonPayload"]["message"]) for e in entries]


def _job_filter(name):
    return f'resource.type="ml_job" AND resource.labels.job_id="{name.rsplit("/", 1)[1]}"'


def test_vertex_logs_appear_as_the_job_progresses_with_replica_task_names(start, clock):
    _, c = start(clock=clock, progress_seconds=STEP)
    name = c.vertex_create("p", "us-central1", vertex_body())["name"]
    assert _lines(c.log_entries("p", _job_filter(name))) == [
        ("service", "INFO", "Waiting for job to be provisioned.")]
    clock.advance(2 * STEP)  # RUNNING: pools 0 (1 replica) and 2 (2 replicas); pool 1 is empty
    running = c.log_entries("p", _job_filter(name))
    assert [t for t, _, m in _lines(running) if m.endswith("training started")] == [
        "workerpool0-0", "workerpool2-0", "workerpool2-1"]
    assert running[-1]["labels"] == {"ml.googleapis.com/task_name": "workerpool2-1"}
    assert running[-1]["logName"] == "projects/p/logs/workerpool2-1"
    clock.advance(STEP)
    done = _lines(c.log_entries("p", _job_filter(name)))
    assert done[-1] == ("service", "INFO", "Job completed successfully.")
    assert ("workerpool0-0", "INFO", "[emulator] step 3/3 loss=0.2500") in done
    assert len(done) == 2 + 3 * (1 + 3 + 1) + 1
    stamps = [e["timestamp"] for e in c.log_entries("p", _job_filter(name))]
    assert stamps == sorted(stamps)
    # Newest first, and one replica only (the filters clients use).
    newest = c.log_entries("p", _job_filter(name), order_by="timestamp desc")
    assert _lines(newest)[0] == done[-1]
    pool2 = c.log_entries("p", _job_filter(name) + ' AND resource.labels.task_name=~"^workerpool2-"')
    assert {t for t, _, _ in _lines(pool2)} == {"workerpool2-0", "workerpool2-1"}


def test_ml_logs_name_master_and_workers_and_a_failure_is_an_error(start, clock):
    _, c = start(clock=clock, progress_seconds=STEP)
    body = ml_body("census_1", **{"emulator-result": "failed"})
    body["trainingInput"].update(workerCount="2", workerType="n1-standard-4")
    c.ml_create("p", body)
    name = f"projects/p/jobs/{body['jobId']}"
    clock.advance(3 * STEP)
    lines = _lines(c.log_entries("p", _job_filter(name)))
    assert [t for t, _, m in lines if m.endswith("training started")] == [
        "master-replica-0", "worker-replica-0", "worker-replica-1"]
    assert lines[-3:] == [
        ("master-replica-0", "ERROR", "RuntimeError: emulated failure (label emulator-result: "
                                      "failed)"),
        ("service", "ERROR", "The replica master-replica-0 exited with a non-zero status of 1."),
        ("service", "ERROR", "Job failed.")]
    errors = c.log_entries("p", _job_filter(name) + " AND severity>=ERROR")
    assert len(errors) == 3


def test_a_cancelled_job_stops_logging_at_the_cancel(start, clock):
    _, c = start(clock=clock, progress_seconds=STEP)
    name = c.vertex_create("p", "us-central1", vertex_body(**{"emulator-hold": "running"}))["name"]
    clock.advance(2 * STEP + STEP * 0.3)  # running, after step 1 of 3
    c.vertex_cancel(name)
    clock.advance(5 * STEP)
    lines = _lines(c.log_entries("p", _job_filter(name)))
    assert lines[-1] == ("service", "INFO", "Job was cancelled.")
    assert not any("step 2/3" in m or "finished" in m for _, _, m in lines)
    assert any("step 1/3" in m for _, _, m in lines)


def test_entries_are_scoped_to_the_named_project_and_time(start, clock):
    _, c = start(clock=clock, progress_seconds=STEP)
    mine = c.vertex_create("p", "us-central1", vertex_body())["name"]
    c.vertex_create("other", "us-central1", vertex_body())
    clock.advance(4 * STEP)
    ids = {e["resource"]["labels"]["job_id"] for e in c.log_entries("p", 'resource.type="ml_job"')}
    assert ids == {mine.rsplit("/", 1)[1]}
    later = datetime.datetime.fromtimestamp(clock.now - 2 * STEP, datetime.timezone.utc)
    recent = c.log_entries("p", _job_filter(mine) + f' AND timestamp>="{later:%Y-%m-%dT%H:%M:%SZ}"')
    assert recent and "provisioned" not in str(_lines(recent))


def test_entries_list_pages_and_refuses_what_the_api_refuses(start, clock):
    server, c = start(clock=clock, progress_seconds=STEP)
    name = c.vertex_create("p", "us-central1", vertex_body())["name"]
    clock.advance(4 * STEP)
    url = f"{server.url}/v2/entries:list"
    first = requests.post(url, json={"resourceNames": ["projects/p"], "pageSize": 5},
                          timeout=5).json()
    assert len(first["entries"]) == 5 and first["nextPageToken"]
    rest = requests.post(url, json={"resourceNames": ["projects/p"], "pageSize": 1000,
                                    "pageToken": first["nextPageToken"]}, timeout=5).json()
    assert len(first["entries"]) + len(rest["entries"]) == len(c.log_entries("p", ""))
    assert "nextPageToken" not in rest
    for body, field in [
            ({}, "resource_names"),
            ({"resourceNames": ["p"]}, "resource_names"),
            ({"resourceNames": ["projects/p"], "orderBy": "severity"}, "order_by")]:
        answer = requests.post(url, json=body, timeout=5)
        assert answer.status_code == 400
        assert answer.json()["error"]["details"][0]["fieldViolations"][0]["field"] == field
    for bad in ('resource.type="ml_job" OR severity=ERROR', 'nonsense="x"', "timestamp>=yesterday",
                'resource.type=', "severity>=LOUD", '(resource.type="ml_job")',
                f'{_job_filter(name)} AND'):
        with pytest.raises(ApiError) as info:
            c.log_entries("p", bad)
        assert (info.value.status, info.value.status_name) == (400, "INVALID_ARGUMENT"), bad


def test_web_access_uris_while_running(start, clock):
    _, c = start(clock=clock, progress_seconds=STEP)
    body = vertex_body()
    body["jobSpec"]["enableWebAccess"] = True
    name = c.vertex_create("p", "us-central1", body)["name"]
    assert "webAccessUris" not in c.vertex_get(name)
    clock.advance(2 * STEP)
    uris = c.vertex_get(name)["webAccessUris"]
    assert sorted(uris) == ["workerpool0-0", "workerpool2-0", "workerpool2-1"]
    assert all(u.startswith("https://") for u in uris.values())
    ml = ml_body("shell_1")
    ml["trainingInput"]["enableWebAccess"] = True
    c.ml_create("p", ml)
    ml_name = "projects/p/jobs/shell_1"
    clock.advance(2 * STEP)
    assert list(c.ml_get(ml_name)["trainingOutput"]["webAccessUris"]) == ["master-replica-0"]


def test_tuning_trials_complete_while_the_job_runs(start, clock):
    _, c = start(clock=clock, progress_seconds=STEP)
    body = ml_body("tune_1")
    body["trainingInput"]["hyperparameters"] = {
        "goal": "MAXIMIZE", "hyperparameterMetricTag": "accuracy", "maxTrials": 4,
        "params": [{"parameterName": "lr", "type": "DOUBLE", "minValue": 0.001, "maxValue": 0.1},
                   {"parameterName": "opt", "type": "CATEGORICAL",
                    "categoricalValues": ["adam", "sgd"]}]}
    c.ml_create("p", body)
    name = f"projects/p/jobs/{body['jobId']}"
    assert c.ml_get(name)["trainingOutput"] == {}
    clock.advance(2.5 * STEP)
    half = c.ml_get(name)["trainingOutput"]
    assert half["isHyperparameterTuningJob"] is True and half["completedTrialCount"] == "2"
    assert [t["trialId"] for t in half["trials"]] == ["1", "2"]
    clock.advance(STEP)
    done = c.ml_get(name)["trainingOutput"]
    assert done["completedTrialCount"] == "4" and len(done["trials"]) == 4
    assert done["hyperparameterMetricTag"] == "accuracy"
    assert set(done["trials"][0]["hyperparameters"]) == {"lr", "opt"}
    assert all(isinstance(t["finalMetric"]["objectiveValue"], float) for t in done["trials"])
