"""The local emulator, served in-process on 127.0.0.1 and driven with the real REST client."""

import json
import os
import socket
import subprocess
import sys
import time

import pytest
import requests
from faultproxy import FaultProxy
from hypothesis import given, settings
from hypothesis import strategies as st

from compiler import discovery
from compiler.cloud.emulator import Emulator, serve
from compiler.cloud.rest import ApiError, Client
from compiler.testing import value_paths

TOKEN = "ya29.emulator-test-token"
STEP = 10.0
VERTEX_SCHEMA = "GoogleCloudAiplatformV1CustomJob"
ML_SCHEMA = "GoogleCloudMlV1__Job"


def vertex_body(name="train", **labels):
    return {
        "displayName": name,
        "labels": {"team": "vision", **labels},
        "jobSpec": {"workerPoolSpecs": [
            {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
             "containerSpec": {"imageUri": "gcr.io/p/train:1"}},
            {},
            {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "2",
             "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/x/tf:2",
                                   "packageUris": ["gs://b/p.tar.gz"], "pythonModule": "t.task"}},
        ]},
    }


def ml_body(job_id="train_1", **labels):
    return {"jobId": job_id, "labels": labels, "trainingInput": {
        "scaleTier": "CUSTOM", "masterType": "n1-standard-4", "region": "us-central1",
        "masterConfig": {"imageUri": "gcr.io/p/train:1"}}}


class FakeClock:
    def __init__(self, now=1_700_000_000.0):
        self.now = now

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def start(monkeypatch):
    """start(**Emulator options) -> (server, client); servers are stopped after the test."""
    monkeypatch.delenv("TRAINSPEC_API_ENDPOINT", raising=False)
    monkeypatch.delenv("TRAINSPEC_ACCESS_TOKEN", raising=False)
    servers = []

    def _start(client_options=None, **options):
        server, _ = serve(port=0, **options)
        servers.append(server)
        opts = {"endpoint": server.url, "token": TOKEN, "sleep": lambda s: None, "timeout": 5,
                **(client_options or {})}
        return server, Client(**opts)

    yield _start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def clock():
    return FakeClock()


def test_vertex_create_get_list_cancel_delete(start, clock):
    server, c = start(clock=clock, progress_seconds=STEP)
    job = c.vertex_create("p", "us-central1", vertex_body("a"))
    other = c.vertex_create("p", "us-central1", vertex_body("b", team="audio"))
    c.vertex_create("p", "europe-west4", vertex_body("c"))
    assert job["name"].startswith("projects/p/locations/us-central1/customJobs/")
    assert job["name"].rsplit("/", 1)[1].isdigit()
    assert job["state"] == "JOB_STATE_QUEUED" and job["createTime"].endswith("Z")
    assert job["jobSpec"] == vertex_body()["jobSpec"]
    assert c.vertex_get(job["name"]) == job

    listed = c.vertex_list("p", "us-central1", filter='labels.team="vision"')["customJobs"]
    assert [j["name"] for j in listed] == [job["name"]]
    assert [j["name"] for j in c.vertex_list("p", "us-central1", "labels.team=audio AND "
                                             'display_name="b"')["customJobs"]] == [other["name"]]
    assert len(c.vertex_list("p", "us-central1")["customJobs"]) == 2
    assert c.vertex_list("p", "us-central1", 'labels.team="nobody"') == {"customJobs": []}

    with pytest.raises(ApiError) as info:
        c.vertex_delete(job["name"])  # still QUEUED: the emulator wants a cancel first
    assert (info.value.status, info.value.status_name) == (400, "FAILED_PRECONDITION")

    assert c.vertex_cancel(job["name"]) == {}
    assert c.vertex_get(job["name"])["state"] == "JOB_STATE_CANCELLING"
    clock.advance(STEP)
    cancelled = c.vertex_get(job["name"])
    assert cancelled["state"] == "JOB_STATE_CANCELLED"
    assert cancelled["error"] == {"code": 1, "message": "CANCELED"}
    assert "endTime" in cancelled
    with pytest.raises(ApiError) as info:
        c.vertex_cancel(job["name"])
    assert info.value.status_name == "FAILED_PRECONDITION"

    op = c.vertex_delete(job["name"])
    assert op["done"] is True and "/operations/" in op["name"]
    assert requests.get(f"{server.url}/v1/{op['name']}", timeout=5).json() == op
    with pytest.raises(ApiError) as info:
        c.vertex_get(job["name"])
    assert (info.value.status, info.value.status_name) == (404, "NOT_FOUND")


def test_vertex_lifecycle_follows_the_clock(start, clock):
    _, c = start(clock=clock, progress_seconds=STEP)
    name = c.vertex_create("p", "us-central1", vertex_body())["name"]
    seen = []
    for _ in range(5):
        seen.append(c.vertex_get(name)["state"])
        clock.advance(STEP)
    assert seen == ["JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING",
                    "JOB_STATE_SUCCEEDED", "JOB_STATE_SUCCEEDED"]
    done = c.vertex_get(name)
    assert done["createTime"] < done["startTime"] < done["endTime"] == done["updateTime"]
    assert "error" not in done


def test_labels_hold_a_job_running_or_make_it_fail(start, clock):
    _, c = start(clock=clock, progress_seconds=STEP)
    held = c.vertex_create("p", "r", vertex_body(**{"emulator-hold": "running"}))["name"]
    failing = c.vertex_create("p", "r", vertex_body(**{"emulator-result": "failed"}))["name"]
    ml_failing = c.ml_create("p", ml_body("f", **{"emulator-result": "failed"}))
    clock.advance(100 * STEP)
    assert c.vertex_get(held)["state"] == "JOB_STATE_RUNNING"
    failed = c.vertex_get(failing)
    assert failed["state"] == "JOB_STATE_FAILED" and failed["error"]["code"] != 0
    ml_failed = c.ml_get("projects/p/jobs/f")
    assert ml_failed["state"] == "FAILED" and ml_failed["errorMessage"]
    assert ml_failing["state"] == "QUEUED"
    c.vertex_cancel(held)
    clock.advance(STEP)
    assert c.vertex_get(held)["state"] == "JOB_STATE_CANCELLED"


def test_a_cancel_takes_cancel_seconds(start, clock):
    _, c = start(clock=clock, progress_seconds=1, cancel_seconds=30)
    held = c.vertex_create("p", "r", vertex_body(**{"emulator-hold": "running"}))["name"]
    c.ml_create("p", ml_body("held", **{"emulator-hold": "running"}))
    clock.advance(5)
    c.vertex_cancel(held)
    c.ml_cancel("projects/p/jobs/held")
    clock.advance(29)
    assert c.vertex_get(held)["state"] == "JOB_STATE_CANCELLING"
    assert c.ml_get("projects/p/jobs/held")["state"] == "CANCELLING"
    clock.advance(1)
    done = c.vertex_get(held)
    assert done["state"] == "JOB_STATE_CANCELLED" and done["endTime"] == done["updateTime"]
    assert c.ml_get("projects/p/jobs/held")["state"] == "CANCELLED"


def test_zero_progress_means_instant_success(start):
    _, c = start(progress_seconds=0)
    assert c.vertex_create("p", "r", vertex_body())["state"] == "JOB_STATE_SUCCEEDED"
    assert c.ml_create("p", ml_body())["state"] == "SUCCEEDED"
    with pytest.raises(ApiError) as info:
        c.ml_cancel("projects/p/jobs/train_1")
    assert (info.value.status, info.value.status_name) == (400, "FAILED_PRECONDITION")


def test_ml_create_duplicate_get_patch_cancel(start, clock):
    _, c = start(clock=clock, progress_seconds=STEP)
    job = c.ml_create("p", ml_body(team="vision"))
    assert job["jobId"] == "train_1" and job["state"] == "QUEUED"
    assert job["trainingOutput"] == {} and job["etag"]
    with pytest.raises(ApiError) as info:
        c.ml_create("p", ml_body())
    assert (info.value.status, info.value.status_name) == (409, "ALREADY_EXISTS")
    c.ml_create("q", ml_body())  # job IDs are unique per project only

    name = "projects/p/jobs/train_1"
    clock.advance(2 * STEP)
    got = c.ml_get(name)
    assert got["state"] == "RUNNING" and "startTime" in got

    patched = c.ml_patch(name, {"labels": {"team": "audio"}, "etag": got["etag"]})
    assert patched["labels"] == {"team": "audio"} and patched["etag"] != got["etag"]
    assert c.ml_get(name)["labels"] == {"team": "audio"}
    with pytest.raises(ApiError) as info:  # stale etag
        c.ml_patch(name, {"labels": {"team": "x"}, "etag": got["etag"]})
    assert (info.value.status, info.value.status_name) == (409, "ABORTED")
    with pytest.raises(ApiError) as info:
        c.ml_patch(name, {"labels": {"team": "x"}, "etag": patched["etag"]},
                   update_mask="labels,trainingInput")
    assert info.value.status == 400
    with pytest.raises(ApiError) as info:
        c.ml_patch(name, {"labels": {"team": "x"}})
    assert [f for f, _ in info.value.field_violations] == ["etag"]

    listed = c.ml_list("p", filter='labels.team="audio"')["jobs"]
    assert [j["jobId"] for j in listed] == ["train_1"]

    assert c.ml_cancel(name) == {}
    assert c.ml_get(name)["state"] == "CANCELLING"
    clock.advance(STEP)
    cancelled = c.ml_get(name)
    assert cancelled["state"] == "CANCELLED" and cancelled["errorMessage"]
    assert c.ml_list("p", filter="state=CANCELLED")["jobs"] == [cancelled]
    with pytest.raises(ApiError):
        c.ml_get("projects/p/jobs/missing")


@pytest.mark.parametrize("body,fields", [
    ({"displayName": "", "jobSpec": {"workerPoolSpecs": [{}, {"replicaCount": "1"}]}},
     ["display_name", "job_spec.worker_pool_specs[0]",
      "job_spec.worker_pool_specs[1].machine_spec.machine_type", "job_spec.worker_pool_specs[1]"]),
    ({"displayName": "x"}, ["job_spec"]),
    ({"displayName": "x", "jobSpec": {"workerPoolSpecs": []}}, ["job_spec.worker_pool_specs"]),
    ({**vertex_body(), "state": "JOB_STATE_RUNNING"}, ["state"]),
    ({**vertex_body(), "labels": {"Team": "x"}}, ['labels["Team"]']),
    ({**vertex_body(), "jobSpec": {"workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-4", "acceleratorCount": "lots"},
         "containerSpec": {"imageUri": "i"}, "pythonPackageSpec": {}}]}},
     ["job_spec.worker_pool_specs[0].machine_spec.accelerator_count",
      "job_spec.worker_pool_specs[0]"]),
    ({**vertex_body(), "jobSpec": {"workerPoolSpecs": [
        {"machineSpec": {"machineType": "a4x-highgpu-4g", "acceleratorType": "NVIDIA_GB200",
                         "acceleratorCount": 4, "gpuPartitionSize": "1g.23gb"},
         "containerSpec": {"imageUri": "i"},
         "nfsMounts": [{"server": "nfs.example", "path": "/x", "mountPoint": "x"}]}]}},
     ["job_spec.worker_pool_specs[0].nfs_mounts[0].server",
      "job_spec.worker_pool_specs[0].machine_spec.gpu_partition_size",
      "job_spec.worker_pool_specs[0].machine_spec.reservation_affinity"]),
])
def test_vertex_refuses_bad_bodies_with_field_violations(start, body, fields):
    """Schema violations and the documented rules the emulator encodes itself."""
    server, c = start()
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "us-central1", body)
    assert (info.value.status, info.value.status_name) == (400, "INVALID_ARGUMENT")
    assert [f for f, _ in info.value.field_violations] == fields
    assert server.emulator.state["vertex"] == {}


@pytest.mark.parametrize("change,fields", [
    ({"jobId": "1bad-id"}, ["job_id"]),
    ({"jobId": None}, ["job_id", "job_id"]),
    ({"trainingInput": {"scaleTier": "CUSTOM"}},
     ["training_input.region", "training_input.master_type", "training_input.runtime_version",
      "training_input.package_uris", "training_input.python_module"]),
    ({"trainingInput": {"scaleTier": "BASIC", "region": "us-central1", "workerCount": "2",
                        "masterConfig": {"imageUri": "i"}}},
     ["training_input.worker_count", "training_input.worker_type"]),
    ({"trainingInput": {"scaleTier": "BASIC", "region": "r", "masterConfig": {"imageUri": "i"},
                        "scheduling": {"maxRunningTime": "2h"}}},
     ["training_input.scheduling.max_running_time"]),
    ({"createTime": "2024-01-01T00:00:00Z"}, ["create_time"]),
])
def test_ml_refuses_bad_bodies_with_field_violations(start, change, fields):
    _, c = start()
    with pytest.raises(ApiError) as info:
        c.ml_create("p", {**ml_body(), **change})
    assert (info.value.status, info.value.status_name) == (400, "INVALID_ARGUMENT")
    assert [f for f, _ in info.value.field_violations] == fields


def test_responses_conform_apart_from_output_only_fields(start):
    _, c = start()
    for api, schema, job in [
            ("aiplatform", VERTEX_SCHEMA, c.vertex_create("p", "r", vertex_body())),
            ("ml", ML_SCHEMA, c.ml_create("p", ml_body()))]:
        found = discovery.violations(api, schema, job)
        assert found and all("output only" in message for _, message in found), found


def test_fault_storms_are_survived_by_retries_without_duplicates(start):
    sleeps = []
    # Creates are retried through 429s only (a 503 may hide a create that took effect: the
    # provider looks it up instead); reads are retried through both.
    server, c = start(client_options={"max_attempts": 60, "sleep": sleeps.append},
                      fault_rate_429=0.5, seed=7, progress_seconds=0)
    names = [c.vertex_create("p", "r", vertex_body(f"job-{i}"))["name"] for i in range(10)]
    for i in range(5):
        c.ml_create("p", ml_body(f"job_{i}"))
    assert len(sleeps) > 5  # the storm really happened
    server.emulator.fault_rate_429, server.emulator.fault_rate_503 = 0.3, 0.3
    for name in names:
        assert c.vertex_get(name)["name"] == name
    server.emulator.fault_rate_429 = server.emulator.fault_rate_503 = 0.0
    assert [j["name"] for j in c.vertex_list("p", "r")["customJobs"]] == names
    assert len(c.ml_list("p")["jobs"]) == 5


def test_client_gives_up_after_max_attempts(start):
    sleeps = []
    server, c = start(client_options={"max_attempts": 3, "sleep": sleeps.append},
                      fault_rate_503=1.0)
    with pytest.raises(ApiError) as info:
        c.vertex_get("projects/p/locations/r/customJobs/1")
    assert (info.value.status, info.value.status_name) == (503, "UNAVAILABLE")
    assert len(sleeps) == 2
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "r", vertex_body())
    assert (info.value.status, info.value.ambiguous) == (503, True)  # never retried blindly
    assert server.emulator.state["vertex"] == {}  # faults strike before any effect
    server.emulator.fault_rate_503 = 0.0
    server.emulator.fault_rate_429 = 1.0
    with pytest.raises(ApiError) as info:
        c.ml_list("p")
    assert (info.value.status, info.value.status_name) == (429, "RESOURCE_EXHAUSTED")


def test_environment_selects_endpoint_and_token(start, monkeypatch):
    lines = []
    server, _ = start(log=lines.append)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", server.url)
    monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", TOKEN)
    c = Client(sleep=lambda s: None)
    job = c.vertex_create("p", "us-central1", vertex_body())
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "us-central1", {"displayName": "x"})
    assert c.vertex_get(job["name"])["name"] == job["name"]
    assert any("POST /v1/projects/p/locations/us-central1/customJobs" in line for line in lines)
    # The token is sent (Authorization header) but never logged or echoed in errors.
    assert all(TOKEN not in line for line in lines)
    assert TOKEN not in str(info.value) and TOKEN not in repr(c)


def test_raw_http_shapes(start):
    server, _ = start()
    headers = {"Authorization": f"Bearer {TOKEN}"}
    # A path no API serves: Google's front end answers with an HTML page, not a Status.
    for method in ("GET", "POST", "PUT"):
        wrong = requests.request(method, f"{server.url}/v1/projects/p/nothing?x=<b>",
                                 headers=headers, timeout=5)
        assert wrong.status_code == 404, method
        assert wrong.headers["Content-Type"].startswith("text/html")
        assert wrong.text.startswith("<!DOCTYPE html>") and "Error 404 (Not Found)!!1" in wrong.text
        assert "<code>/v1/projects/p/nothing</code>" in wrong.text
    # A missing resource on a real route: the API's own google.rpc.Status.
    for path in ("projects/p/locations/r/customJobs/1", "projects/p/jobs/j",
                 "projects/p/locations/r/operations/1"):
        missing = requests.get(f"{server.url}/v1/{path}", headers=headers, timeout=5)
        assert missing.status_code == 404
        assert missing.headers["Content-Type"].startswith("application/json")
        assert missing.json()["error"]["code"] == 404
        assert missing.json()["error"]["status"] == "NOT_FOUND"
    bad = requests.post(f"{server.url}/v1/projects/p/jobs", data=b"{not json", headers=headers,
                        timeout=5)
    assert bad.status_code == 400 and bad.json()["error"]["status"] == "INVALID_ARGUMENT"
    assert bad.headers["Content-Type"].startswith("application/json")
    not_object = requests.post(f"{server.url}/v1/projects/p/jobs", json=[1], timeout=5)
    assert not_object.status_code == 400


def test_not_found_only_when_the_api_says_so(start):
    server, c = start()
    for call in (lambda c: c.vertex_get("projects/p/locations/r/customJobs/404"),
                 lambda c: c.vertex_delete("projects/p/locations/r/customJobs/404"),
                 lambda c: c.ml_get("projects/p/jobs/missing")):
        with pytest.raises(ApiError) as info:
            call(c)
        assert (info.value.status, info.value.not_found) == (404, True)
    # A client pointed at a wrong prefix reaches no API: its 404 must not read as "job gone".
    _, wrong = start(client_options={"endpoint": server.url + "/wrongprefix"})
    name = c.vertex_create("p", "r", vertex_body())["name"]
    with pytest.raises(ApiError) as info:
        wrong.vertex_get(name)
    assert (info.value.status, info.value.status_name) == (404, "NOT_FOUND")
    assert info.value.not_found is False and "HTML" in info.value.message
    assert c.vertex_get(name)["name"] == name


@pytest.mark.parametrize("drop", ["first", "every"])
@pytest.mark.parametrize("api", ["vertex", "ml"])
def test_a_create_answered_by_a_closed_connection_is_not_repeated(start, api, drop):
    server, _ = start(progress_seconds=0)
    with FaultProxy(server.url, drop=drop) as proxy:
        _, c = start(client_options={"endpoint": proxy.url})
        with pytest.raises(ApiError) as info:
            if api == "vertex":
                c.vertex_create("p", "us-central1", vertex_body())
            else:
                c.ml_create("p", ml_body())
        assert (info.value.status, info.value.ambiguous) == (None, True)
        assert (proxy.forwarded, proxy.matched, proxy.dropped) == (1, 1, 1)
        # The job exists exactly once; the caller finds it by its labels.
        if api == "vertex":
            assert len(c.vertex_list("p", "us-central1")["customJobs"]) == 1
        else:
            assert len(c.ml_list("p")["jobs"]) == 1
    assert len(server.emulator.state[api]) == 1


def test_a_read_answered_by_a_closed_connection_is_retried(start):
    server, c = start(progress_seconds=0)
    c.vertex_create("p", "r", vertex_body())
    with FaultProxy(server.url, match=lambda method, path: method == "GET") as proxy:
        _, through = start(client_options={"endpoint": proxy.url})
        assert len(through.vertex_list("p", "r")["customJobs"]) == 1
        assert (proxy.forwarded, proxy.matched, proxy.dropped) == (2, 2, 1)


def test_a_create_that_cannot_connect_is_retried_and_not_ambiguous(start):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sleeps = []
    c = Client(f"http://127.0.0.1:{port}", sleep=sleeps.append, max_attempts=3, timeout=5)
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "r", vertex_body())
    assert (info.value.status_name, info.value.ambiguous) == ("UNAVAILABLE", False)
    assert len(sleeps) == 2


def test_list_pages_and_filters(start):
    server, c = start()
    for i in range(5):
        c.vertex_create("p", "r", vertex_body(f"job-{i}"))
    url = f"{server.url}/v1/projects/p/locations/r/customJobs"
    first = requests.get(url, params={"pageSize": 2}, timeout=5).json()
    assert len(first["customJobs"]) == 2 and first["nextPageToken"]
    second = requests.get(url, params={"pageSize": 2, "pageToken": first["nextPageToken"]},
                          timeout=5).json()
    assert [j["displayName"] for j in second["customJobs"]] == ["job-2", "job-3"]
    assert len(c.vertex_list("p", "r")["customJobs"]) == 5
    queued = c.vertex_list("p", "r", 'state=JOB_STATE_QUEUED AND display_name="job-4"')
    assert [j["displayName"] for j in queued["customJobs"]] == ["job-4"]
    assert len(c.vertex_list("p", "r", 'display_name!="job-4"')["customJobs"]) == 4
    for bad in ("create_time>1", "labels.a=b AND", "bogus=1"):
        with pytest.raises(ApiError) as info:
            c.vertex_list("p", "r", bad)
        assert info.value.status_name == "INVALID_ARGUMENT"
    assert requests.get(url, params={"pageToken": "%%%"}, timeout=5).status_code == 400


def test_state_file_persists_jobs_across_restarts(start, tmp_path, clock):
    state = tmp_path / "emulator.json"
    _, c = start(state_file=str(state), clock=clock, progress_seconds=STEP)
    vertex = c.vertex_create("p", "r", vertex_body())
    c.ml_create("p", ml_body())
    c.ml_cancel("projects/p/jobs/train_1")
    # A snapshot and the journal of the writes since (no temp files left).
    assert sorted(p.name for p in tmp_path.iterdir()) == ["emulator.json",
                                                          "emulator.json.journal"]

    clock.advance(STEP)
    _, again = start(state_file=str(state), clock=clock, progress_seconds=STEP)
    assert again.vertex_get(vertex["name"])["state"] == "JOB_STATE_PENDING"
    assert again.ml_get("projects/p/jobs/train_1")["state"] == "CANCELLED"
    with pytest.raises(ApiError) as info:
        again.ml_create("p", ml_body())
    assert info.value.status == 409
    assert again.vertex_create("p", "r", vertex_body())["name"] != vertex["name"]


@pytest.mark.slow
def test_cli_prints_its_address_and_serves(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.Popen(
        [sys.executable, "-m", "compiler.cloud.emulator", "--port", "0", "--quiet",
         "--step-seconds", "0", "--state", str(tmp_path / "s.json")],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip()
        assert line.startswith("trainspec emulator listening on http://127.0.0.1:"), line
        c = Client(line.rsplit(" ", 1)[1], TOKEN, sleep=lambda s: None, timeout=5)
        assert c.vertex_create("p", "r", vertex_body())["state"] == "JOB_STATE_SUCCEEDED"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=8)



@settings(max_examples=150, deadline=None, derandomize=True)
@given(data=st.data())
def test_mutated_bodies_are_refused_never_crash(data):
    emulator = Emulator(progress_seconds=0)
    for target, good in [("/v1/projects/p/locations/r/customJobs", vertex_body()),
                         ("/v1/projects/p/jobs", ml_body())]:
        path = data.draw(st.sampled_from(list(value_paths(good))[1:]))
        body = json.loads(json.dumps(good))
        holder = body
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = data.draw(JSON)
        status, payload = emulator.handle("POST", target, json.dumps(body).encode())
        assert status in (200, 400), payload
        if status == 400:
            assert payload["error"]["status"] == "INVALID_ARGUMENT"


def test_deeply_nested_json_is_a_400_not_a_server_error():
    em = Emulator(progress_seconds=0)
    deep = b'{"displayName": "x", "jobSpec": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    status, body = em.handle("POST", "/v1/projects/p/locations/us-central1/customJobs", deep)
    assert status == 400 and body["error"]["status"] == "INVALID_ARGUMENT"
    nested = b'{"a": ' * 100 + b"1" + b"}" * 100
    status, _ = em.handle("POST", "/v1/projects/p/locations/us-central1/customJobs", nested)
    assert status == 400


def test_both_apis_refuse_more_than_64_labels():
    from compiler.cloud.emulator import server_rules

    for api, body in (("aiplatform", vertex_body()), ("ml", ml_body())):
        body["labels"] = {f"k{i}": "v" for i in range(65)}
        assert "labels" in dict(server_rules(api, body)), api
        del body["labels"]["k0"]
        assert "labels" not in dict(server_rules(api, body)), api


# -- limits: request bodies, silent clients, state that grows (issue 8 §2) ----------------------

def _raw(server, data: bytes, wait: float = 5.0) -> bytes:
    """Send `data` on a fresh connection; everything the server answers before closing."""
    host, port = server.server_address[:2]
    with socket.create_connection((host, port), timeout=wait) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)


def test_a_body_over_the_limit_gets_413_unread(start):
    server, c = start(max_body=1000)
    path = "/v1/projects/p/locations/us-central1/customJobs"
    # Announces a gigabyte and sends none of it: the answer must not wait for the body.
    answer = _raw(server, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n"
                  "Content-Type: application/json\r\n\r\n".encode(), wait=5)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413 ")
    assert json.loads(body) == {"error": {
        "code": 413, "status": "INVALID_ARGUMENT",
        "message": "Request payload size exceeds the limit: 1000 bytes."}}
    chunked = _raw(server, f"POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                   "\r\n5\r\nhello\r\n0\r\n\r\n".encode())
    assert chunked.startswith(b"HTTP/1.1 411 ")
    assert c.vertex_create("p", "us-central1", vertex_body())["state"]  # still serving


def test_a_silent_client_is_dropped_after_the_timeout(start):
    server, c = start(request_timeout=0.5)
    started = time.monotonic()
    # Headers never finished: without a socket timeout this thread would wait forever.
    assert _raw(server, b"GET /v1/projects/p/jobs HTTP/1.1\r\nHost: x\r\n", wait=10) == b""
    assert time.monotonic() - started < 5
    path = "/v1/projects/p/locations/us-central1/customJobs"
    # A body announced but cut short is dropped too, without an answer or a traceback.
    assert _raw(server, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{{"
                .encode(), wait=10) == b""
    assert c.vertex_create("p", "us-central1", vertex_body())["state"]


def test_state_stays_fast_as_jobs_accumulate(tmp_path):
    # Before: every write rewrote and fsynced the whole state (2,000 creates took ~100 s).
    state = tmp_path / "s.json"
    emulator = Emulator(state_file=str(state), progress_seconds=0)
    body = json.dumps(vertex_body()).encode()
    started = time.monotonic()
    for i in range(2000):
        status, _ = emulator.handle("POST", "/v1/projects/p/locations/r/customJobs", body)
        assert status == 200
        assert time.monotonic() - started < 20, f"{i} creates took 20 s"
    # Listing by label (what a create does first) reads stored jobs, not 2,000 renderings.
    status, found = emulator.handle("GET", "/v1/projects/p/locations/r/customJobs?filter="
                                    "labels.team%3Dvision&pageSize=5")
    assert status == 200 and len(found["customJobs"]) == 5
    assert time.monotonic() - started < 20
    emulator.close()
    again = Emulator(state_file=str(state), progress_seconds=0)
    assert len(again.state["vertex"]) == 2000 and again.state["next_id"] == 2001
    again.close()


def test_a_write_cut_short_is_ignored_and_the_journal_is_folded(tmp_path, monkeypatch):
    from compiler.cloud.emulator import journal as module  # noqa: PLC0415

    monkeypatch.setattr(module, "COMPACT_AFTER", 5)
    state = tmp_path / "s.json"
    first = Emulator(state_file=str(state), progress_seconds=0, clock=FakeClock())
    assert first.handle("POST", "/v1/projects/p/jobs", json.dumps(ml_body()).encode())[0] == 200
    name = "/v1/projects/p/jobs/train_1"
    for i in range(10):  # a write per patch: past 1 record + 5 lines, a snapshot is taken
        etag = first.handle("GET", name)[1]["etag"]
        patch = json.dumps({"labels": {"n": str(i)}, "etag": etag}).encode()
        assert first.handle("PATCH", name + "?updateMask=labels", patch)[0] == 200
    snapshot = json.loads(state.read_text())
    assert snapshot["ml"]["projects/p/jobs/train_1"]["version"] == 7  # folded after 6 patches
    assert len(open(f"{state}.journal", "rb").read().splitlines()) == 4
    first.close()
    with open(f"{state}.journal", "ab") as f:
        f.write(b'{"next_id": 99, "changes": [["ml", "proj')  # the process died mid-write
    again = Emulator(state_file=str(state), progress_seconds=0, clock=FakeClock())
    record = again.state["ml"]["projects/p/jobs/train_1"]
    assert record["version"] == 11 and record["job"]["labels"] == {"n": "9"}
    assert again.state["next_id"] == 1
    assert open(f"{state}.journal", "rb").read().endswith(b"}\n")  # the torn line is gone
    again.close()


def test_nan_and_infinity_are_not_json():
    em = Emulator(progress_seconds=0)
    for literal in ("NaN", "Infinity", "-Infinity"):
        body = json.dumps(vertex_body()).replace('"replicaCount": "1"',
                                                 f'"replicaCount": "1", "x": {literal}')
        status, answer = em.handle("POST", "/v1/projects/p/locations/r/customJobs",
                                   body.encode())
        assert status == 400 and "not JSON" in answer["error"]["message"], literal
