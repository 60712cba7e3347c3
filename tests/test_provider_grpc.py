"""The providers driven the way the Pulumi engine drives them, against the local emulator.

`python -u -m pulumi.dynamic` runs as a subprocess in the project directory (what the CLI's
pulumi-resource-pulumi-python shim does), and these tests call Configure → Check → Diff →
Create → Read → Update → Delete over gRPC with the SDK's own stubs, mirroring the engine's
argument choices (Check olds = old inputs; Diff/Delete olds = old outputs; Read = outputs and
inputs; every number a float64). The `__provider` string is the one the program registers
(tests/test_pulumi_program.py checks that they are the same).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf import struct_pb2
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import rpc
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

from compiler import pipeline
from compiler import pulumi_resources as pr
from compiler.cloud import emulator as emu
from compiler.normalize import Options

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "test-token-never-logged-0000"
SECRET = "wandb-s3cr3t-value"
STEP = 0.2  # emulator seconds per state step


# --- the harness -------------------------------------------------------------------------------

class Engine:
    """A minimal stand-in for the engine's provider calls, one provider process."""

    def __init__(self, url: str, extra_env: dict | None = None):
        env = {**os.environ, "TRAINSPEC_API_ENDPOINT": url, "TRAINSPEC_ACCESS_TOKEN": TOKEN,
               "TRAINSPEC_CANCEL_TIMEOUT": "20", "PULUMI_PROJECT": "trainspec",
               **(extra_env or {})}
        self.proc = subprocess.Popen([sys.executable, "-u", "-m", "pulumi.dynamic"], cwd=ROOT,
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode().strip()  # the port, first line
        if not line.isdigit():
            self.close()
            raise RuntimeError(f"provider did not start: {line!r} "
                               f"{self.proc.stderr.read().decode()[-2000:]}")
        self.channel = grpc.insecure_channel(f"127.0.0.1:{line}")
        grpc.channel_ready_future(self.channel).result(timeout=20)
        self.stub = provider_pb2_grpc.ResourceProviderStub(self.channel)
        # Configure first: configure() runs once per distinct __provider string, on first use.
        self.stub.Configure(provider_pb2.ConfigureRequest(args=_struct(
            {"gcp:project": "acme-test", "gcp:region": "us-central1"})), timeout=20)

    def close(self) -> None:
        if getattr(self, "channel", None):
            self.channel.close()
        self.proc.kill()
        self.proc.wait(timeout=10)

    def check(self, urn, olds, news):
        r = self.stub.Check(provider_pb2.CheckRequest(urn=urn, olds=_struct(olds),
                                                      news=_struct(news)), timeout=60)
        return _props(r.inputs), [(f.property, f.reason) for f in r.failures]

    def diff(self, urn, id_, olds, news):
        return self.stub.Diff(provider_pb2.DiffRequest(id=id_, urn=urn, olds=_struct(olds),
                                                       news=_struct(news)), timeout=60)

    def create(self, urn, news):
        r = self.stub.Create(provider_pb2.CreateRequest(urn=urn, properties=_struct(news)),
                             timeout=60)
        return r.id, _props(r.properties)

    def read(self, urn, id_, outs, inputs):
        r = self.stub.Read(provider_pb2.ReadRequest(id=id_, urn=urn, properties=_struct(outs),
                                                    inputs=_struct(inputs)), timeout=60)
        return r.id, _props(r.properties)

    def update(self, urn, id_, olds, news):
        r = self.stub.Update(provider_pb2.UpdateRequest(id=id_, urn=urn, olds=_struct(olds),
                                                        news=_struct(news)), timeout=60)
        return _props(r.properties)

    def delete(self, urn, id_, outs):
        self.stub.Delete(provider_pb2.DeleteRequest(id=id_, urn=urn, properties=_struct(outs)),
                         timeout=60)

    def up(self, urn, news, old=None):
        """What `pulumi up` does for one resource: returns (action, id, outs, inputs)."""
        if old is None:
            inputs, failures = self.check(urn, {}, news)
            assert not failures, failures
            id_, outs = self.create(urn, inputs)
            return "create", id_, outs, inputs
        id_, old_outs, old_inputs = old
        inputs, failures = self.check(urn, old_inputs, news)
        assert not failures, failures
        d = self.diff(urn, id_, old_outs, inputs)
        if d.changes == provider_pb2.DiffResponse.DIFF_NONE:
            return "same", id_, old_outs, inputs
        if d.replaces:
            if d.deleteBeforeReplace:
                self.delete(urn, id_, old_outs)
                new_id, outs = self.create(urn, inputs)
            else:
                new_id, outs = self.create(urn, inputs)
                self.delete(urn, id_, old_outs)
            return "replace", new_id, outs, inputs
        return "update", id_, self.update(urn, id_, old_outs, inputs), inputs


def _struct(d: dict) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(json.loads(json.dumps(d)))  # plain JSON: every number becomes a float64
    return s


def _props(s) -> dict:
    return rpc.deserialize_properties(s, keep_unknowns=True)


VERTEX_PROVIDER = serialize_provider(pr.VertexCustomJobProvider())
ML_PROVIDER = serialize_provider(pr.AiPlatformJobProvider())


def urn(kind: str, name: str) -> str:
    return f"urn:pulumi:dev::trainspec::pulumi-python:dynamic/trainspec:{kind}::{name}"


def inputs_for(path: Path, *, keep: bool = False, secrets: dict | None = None) -> dict:
    """The inputs the program registers for one spec (see __main__.declare)."""
    result = pipeline.compile_file(str(path))
    assert result.ok, [d.format() for d in result.diagnostics]
    job = result.job
    return {
        "request": result.body, "platform": job.platform, "project": job.project,
        "region": job.region, "specFile": result.file,
        "specHash": pr.spec_hash("dev", job.name, result.body),
        "sourceMap": pr.source_map(result), "keepJobRecords": keep,
        "secretEnv": secrets or {},
        "__provider": VERTEX_PROVIDER if job.platform == "vertex" else ML_PROVIDER,
    }


def vertex_spec(folder: Path, name: str, *, machine: str = "n1-standard-4", hold: bool = True,
                labels: str = "", secret: bool = False, file: str | None = None) -> Path:
    path = folder / (file or f"{name}.yaml")
    hold_label = "emulator-hold: running, " if hold else ""
    lines = ["apiVersion: trainspec/v1", "kind: TrainingJob", "metadata:", f"  name: {name}",
             f"  labels: {{{hold_label}team: vision{labels}}}", "spec:", "  project: acme-test",
             "  region: us-central1", "  container:", "    image: gcr.io/acme-test/trainer:1",
             "  pools:", "    chief:", f"      machineType: {machine}",
             "      disk: {sizeGb: 200}"]
    if secret:
        lines += ["  env:", "    WANDB_API_KEY: {secret: wandbApiKey}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def ml_spec(folder: Path, name: str, *, hold: bool = True, team: str = "tabular",
            epochs: int = 20) -> Path:
    path = folder / f"{name}.yaml"
    hold_label = "emulator-hold: running, " if hold else ""
    path.write_text(textwrap.dedent(f"""\
        apiVersion: trainspec/v1
        kind: TrainingJob
        metadata:
          name: {name}
          labels: {{{hold_label}team: {team}}}
        spec:
          platform: ai-platform
          project: acme-test
          region: us-central1
          container:
            image: gcr.io/acme-test/census:3
            args: [--epochs={epochs}]
          pools:
            chief: {{machineType: n1-standard-8}}
          scheduling:
            priority: 10
        """))
    return path


@pytest.fixture(scope="module")
def world():
    """(emulator server, engine, request log) shared by the module's scenarios."""
    log: list[str] = []
    server, _ = emu.serve(progress_seconds=STEP, log=log.append)
    engine = Engine(server.url)
    try:
        yield server, engine, log
    finally:
        engine.close()
        server.shutdown()
        server.server_close()


def _stored(server, name: str) -> dict | None:
    status, body = server.emulator.handle("GET", f"/v1/{name}")
    return body if status == 200 else None


def _wait_state(server, name: str, states: set[str], limit: float = 10) -> str:
    deadline = time.monotonic() + limit
    while True:
        state = (_stored(server, name) or {}).get("state", "")
        if state in states or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


# --- scenarios -----------------------------------------------------------------------------------

def test_first_apply_and_reapply_without_change(world, tmp_path):
    server, engine, log = world
    news = inputs_for(vertex_spec(tmp_path, "first-apply", secret=True),
                      secrets={"trainspec:wandbApiKey": SECRET})
    u = urn("VertexCustomJob", "first-apply")
    action, id_, outs, inputs = engine.up(u, news)
    assert action == "create"
    assert re.fullmatch(r"projects/acme-test/locations/us-central1/customJobs/\d+", id_)
    assert outs["name"] == id_ and outs["state"] == "JOB_STATE_QUEUED"
    assert outs["createTime"].endswith("Z")
    assert outs["consoleUrl"] == (
        "https://console.cloud.google.com/vertex-ai/locations/us-central1/training/"
        f"{id_.rsplit('/', 1)[1]}/cpu?project=acme-test")
    assert outs["request"] == news["request"] and outs["specHash"] == news["specHash"]
    job = _stored(server, id_)
    # The job got the real secret and the adoption label; outputs hold the value only in
    # secretEnv (which the engine keeps secret), never in the echoed request.
    env = job["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"]
    assert env == [{"name": "WANDB_API_KEY", "value": SECRET}]
    assert job["labels"][pr.SPEC_HASH_LABEL] == news["specHash"]
    assert job["jobSpec"]["workerPoolSpecs"][0]["diskSpec"]["bootDiskSizeGb"] == 200
    assert SECRET not in json.dumps({k: v for k, v in outs.items() if k != "secretEnv"})
    assert outs["secretEnv"] == {"trainspec:wandbApiKey": SECRET}

    # Re-apply, nothing changed: DIFF_NONE, no API call.
    before = len(log)
    action, id2, _, _ = engine.up(u, news, (id_, outs, inputs))
    assert (action, id2) == ("same", id_)
    assert len(log) == before

    # A new provider build (different __provider) alone: in-place update without an API call.
    moved = {**news, "__provider": serialize_provider(pr.VertexCustomJobProvider()) + "\n",
             "specFile": "elsewhere/first-apply.yaml"}
    d = engine.diff(u, id_, outs, moved)
    assert d.changes == provider_pb2.DiffResponse.DIFF_SOME and not d.replaces
    updated = engine.update(u, id_, outs, {**moved, "__provider": news["__provider"]})
    assert len(log) == before
    assert updated["state"] == outs["state"] and updated["specFile"] == "elsewhere/first-apply.yaml"

    # A rotated secret: the job would keep the old value, so it is replaced; the spec hash is
    # unchanged, so the old job goes first (else the new create would adopt it).
    rotated = {**news, "secretEnv": {"trainspec:wandbApiKey": SECRET + "-2"}}
    d = engine.diff(u, id_, updated, rotated)
    assert list(d.replaces) == ["secretEnv"] and d.deleteBeforeReplace
    engine.delete(u, id_, updated)


def test_spec_change_replaces_and_the_old_job_is_cancelled(world, tmp_path):
    server, engine, _ = world
    u = urn("VertexCustomJob", "replace-me")
    old_news = inputs_for(vertex_spec(tmp_path, "replace-me"))
    _, old_id, old_outs, old_inputs = engine.up(u, old_news)
    assert _wait_state(server, old_id, {"JOB_STATE_RUNNING"}) == "JOB_STATE_RUNNING"

    news = inputs_for(vertex_spec(tmp_path, "replace-me", machine="n1-standard-8"))
    d = engine.diff(u, old_id, old_outs, engine.check(u, old_inputs, news)[0])
    assert d.changes == provider_pb2.DiffResponse.DIFF_SOME
    assert list(d.replaces) == ["request"] and not d.deleteBeforeReplace
    action, new_id, outs, _ = engine.up(u, news, (old_id, old_outs, old_inputs))
    assert action == "replace" and new_id != old_id
    assert outs["request"]["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"] == \
        "n1-standard-8"
    assert _stored(server, old_id) is None  # cancelled, then deleted (keepJobRecords false)
    assert _stored(server, new_id)["state"] != "JOB_STATE_CANCELLED"
    engine.delete(u, new_id, outs)


def test_label_only_change_on_ai_platform_patches_in_place(world, tmp_path):
    server, engine, log = world
    u = urn("AiPlatformJob", "census-labels")
    news = inputs_for(ml_spec(tmp_path, "census-labels"))
    action, id_, outs, inputs = engine.up(u, news)
    assert action == "create" and id_ == "projects/acme-test/jobs/census_labels"
    assert outs["consoleUrl"] == ("https://console.cloud.google.com/ai-platform/jobs/"
                                  "census_labels?project=acme-test")
    # int32 priority crossed the engine as 10.0 and reached the API as 10.
    assert _stored(server, id_)["trainingInput"]["scheduling"]["priority"] == 10
    etag = _stored(server, id_)["etag"]

    relabelled = inputs_for(ml_spec(tmp_path, "census-labels", team="census"))
    log.clear()
    action, id2, outs2, _ = engine.up(u, relabelled, (id_, outs, inputs))
    assert (action, id2) == ("update", id_)
    assert any(line.startswith("PATCH") or '"PATCH /v1/projects/acme-test/jobs/census_labels'
               in line for line in log), log
    live = _stored(server, id_)
    assert live["labels"]["team"] == "census" and live["etag"] != etag
    assert outs2["request"]["labels"]["team"] == "census" and outs2["name"] == id_

    # Any other change cannot be applied: ml v1 jobIds are never reusable. Refused at check.
    changed = inputs_for(ml_spec(tmp_path, "census-labels", team="census", epochs=30))
    _, failures = engine.check(u, relabelled, changed)
    assert failures and failures[0][0] == "request"
    assert "rename metadata.name" in failures[0][1]
    assert failures[0][1].startswith(f"{tmp_path}/census-labels.yaml:4:9: ")

    # Destroy: cancelled (ml jobs cannot be deleted), then forgotten.
    engine.delete(u, id_, outs2)
    assert _wait_state(server, id_, {"CANCELLED"}) == "CANCELLED"


def test_refresh_of_a_finished_job_and_of_a_deleted_one(world, tmp_path):
    server, engine, _ = world
    u = urn("VertexCustomJob", "finishes")
    _, id_, outs, inputs = engine.up(u, inputs_for(vertex_spec(tmp_path, "finishes", hold=False)))
    assert _wait_state(server, id_, {"JOB_STATE_SUCCEEDED"}) == "JOB_STATE_SUCCEEDED"
    read_id, refreshed = engine.read(u, id_, outs, inputs)
    assert read_id == id_ and refreshed["state"] == "JOB_STATE_SUCCEEDED"
    assert refreshed["request"] == outs["request"] and refreshed["createTime"] == outs["createTime"]
    # A refreshed, finished job is still no change.
    d = engine.diff(u, id_, refreshed, engine.check(u, inputs, inputs)[0])
    assert d.changes == provider_pb2.DiffResponse.DIFF_NONE
    # Destroy of a finished job: no cancel, record deleted; a later refresh sees it gone.
    engine.delete(u, id_, refreshed)
    assert _stored(server, id_) is None
    gone_id, _ = engine.read(u, id_, refreshed, inputs)
    assert gone_id == ""
    engine.delete(u, id_, refreshed)  # deleting twice is fine: 404 = already gone


def test_destroy_of_a_running_job_cancels_it(world, tmp_path):
    server, engine, log = world
    u = urn("VertexCustomJob", "runs-forever")
    _, id_, outs, _ = engine.up(u, inputs_for(vertex_spec(tmp_path, "runs-forever")))
    assert _wait_state(server, id_, {"JOB_STATE_RUNNING"}) == "JOB_STATE_RUNNING"
    log.clear()
    engine.delete(u, id_, outs)
    calls = [re.sub(r"HTTP/1.1.*", "", line.split('"')[1]).strip() for line in log]
    number = id_.rsplit("/", 1)[1]
    assert f"POST /v1/{id_}:cancel" in calls and f"DELETE /v1/{id_}" in calls
    assert calls.index(f"POST /v1/{id_}:cancel") < calls.index(f"DELETE /v1/{id_}")
    assert _stored(server, id_) is None, number

    # keepJobRecords: cancelled and kept.
    u2 = urn("VertexCustomJob", "kept")
    _, id2, outs2, _ = engine.up(u2, inputs_for(vertex_spec(tmp_path, "kept"), keep=True))
    engine.delete(u2, id2, outs2)
    assert _stored(server, id2)["state"] == "JOB_STATE_CANCELLED"


def test_retried_create_adopts_instead_of_starting_a_second_job(world, tmp_path):
    server, engine, _ = world
    news = inputs_for(vertex_spec(tmp_path, "adopt-me"))
    u = urn("VertexCustomJob", "adopt-me")
    first, outs = engine.create(u, news)
    again, _ = engine.create(u, news)  # e.g. `up` interrupted before the state was saved
    assert again == first
    label = f'labels.{pr.SPEC_HASH_LABEL}="{news["specHash"]}"'
    status, found = server.emulator.handle(
        "GET", "/v1/projects/acme-test/locations/us-central1/customJobs?filter="
        + label.replace(" ", "%20"))
    assert status == 200 and len(found["customJobs"]) == 1
    engine.delete(u, first, outs)

    ml = inputs_for(ml_spec(tmp_path, "adopt_ml"))
    mu = urn("AiPlatformJob", "adopt_ml")
    first, outs = engine.create(mu, ml)
    again, _ = engine.create(mu, ml)  # 409 on the deterministic jobId, same trainingInput
    assert again == first == "projects/acme-test/jobs/adopt_ml"
    engine.delete(mu, first, outs)
    # Another job holding the jobId is not adopted.
    other = inputs_for(ml_spec(tmp_path, "adopt_ml", epochs=99))
    with pytest.raises(grpc.RpcError) as info:
        engine.create(mu, other)
    assert "the AI Platform jobId 'adopt_ml' is taken by another job" in info.value.details()


def test_a_400_is_mapped_to_the_spec_file_and_line(world, tmp_path):
    _, engine, _ = world
    spec = vertex_spec(tmp_path, "refused", hold=False)
    news = inputs_for(spec)
    # A body the schema allows but the API refuses (no machineType in a non-empty pool).
    del news["request"]["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"]
    with pytest.raises(grpc.RpcError) as info:
        engine.create(urn("VertexCustomJob", "refused"), news)
    details = info.value.details()
    last = details.strip().splitlines()[-1]
    assert last.startswith("compiler.pulumi_resources.JobError: creating a CustomJob in "
                           "projects/acme-test/locations/us-central1: HTTP 400 INVALID_ARGUMENT")
    assert (f"{spec}:13:20: $.spec.pools.chief.machineType "
            "(job_spec.worker_pool_specs[0].machine_spec.machine_type): Required in a non-empty "
            "pool.") in last
    assert TOKEN not in details

    # What the schema refuses is caught earlier, at check, with the same location.
    bad = inputs_for(spec)
    bad["request"]["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineTyp"] = "x"
    _, failures = engine.check(urn("VertexCustomJob", "refused"), {}, bad)
    assert failures == [("request", f"{spec}:12:5: $.spec.pools.chief: "
                         "jobSpec.workerPoolSpecs[0].machineSpec.machineTyp: unknown field "
                         "'machineTyp' (did you mean 'machineType'?)")]


def test_preview_unknowns_are_skipped(world, tmp_path):
    _, engine, _ = world
    news = inputs_for(vertex_spec(tmp_path, "unknowns"))
    u = urn("VertexCustomJob", "unknowns")
    partial = {**news, "secretEnv": rpc.UNKNOWN, "project": rpc.UNKNOWN}
    _, failures = engine.check(u, {}, partial)
    assert failures == []
    d = engine.diff(u, "projects/acme-test/locations/us-central1/customJobs/1",
                    {k: v for k, v in news.items() if k != "__provider"}, partial)
    assert d.changes == provider_pb2.DiffResponse.DIFF_UNKNOWN
    _, failures = engine.check(u, {}, {**news, "project": ""})
    assert failures == [("project", "required: a non-empty string")]


def test_check_recompiles_the_spec_file_with_the_compiler(world, tmp_path):
    _, engine, _ = world
    spec = vertex_spec(tmp_path, "recheck")
    news = inputs_for(spec)
    # specFile relative to the provider's cwd (the project directory), as the program gives it.
    news["specFile"] = os.path.relpath(spec, ROOT)
    u = urn("VertexCustomJob", "recheck")
    assert engine.check(u, {}, news)[1] == []

    # The spec on disk no longer compiles: every error is a located CheckFailure, even though
    # the (stale) request still conforms to the discovery document.
    spec.write_text(spec.read_text().replace("disk: {sizeGb: 200}",
                                             "disk: {sizeGb: 200, typ: pd-ssd}"))
    _, failures = engine.check(u, {}, news)
    expected = pipeline.compile_file(news["specFile"], Options(
        platform="vertex", project="acme-test", region="us-central1")).errors
    assert expected and failures == [("request", d.format()) for d in expected]
    assert failures[0][1] == (f"{news['specFile']}:14:27: error: $.spec.pools.chief.disk.typ: "
                              "unknown key 'typ' (did you mean 'type'?)")

    # Unknown inputs (preview) and a deleted file (destroy/refresh) skip the compile.
    for key in ("specFile", "project", "region"):
        assert engine.check(u, {}, {**news, key: rpc.UNKNOWN})[1] == []
    spec.unlink()
    assert engine.check(u, {}, news)[1] == []


def test_check_compiles_for_the_resource_platform(world, tmp_path):
    _, engine, _ = world
    spec = ml_spec(tmp_path, "recheck_ml")
    news = inputs_for(spec)
    u = urn("AiPlatformJob", "recheck_ml")
    assert engine.check(u, {}, news)[1] == []
    # env is valid on Vertex, not on AI Platform: the compile uses the resource's platform.
    with spec.open("a") as f:
        f.write("  env: {MODE: fast}\n")
    _, failures = engine.check(u, {}, news)
    assert failures == [("request", f"{spec}:17:8: error: $.spec.env: ai-platform has no "
                         "environment variables (env is vertex only; pass settings as args)")]


def test_429_and_503_storms_are_survived(tmp_path):
    log: list[str] = []
    server, _ = emu.serve(progress_seconds=STEP, fault_rate_429=0.2, fault_rate_503=0.2,
                          seed=20240601, log=log.append)
    engine = Engine(server.url)
    try:
        u = urn("VertexCustomJob", "stormy")
        news = inputs_for(vertex_spec(tmp_path, "stormy"))
        _, id_, outs, inputs = engine.up(u, news)
        read_id, _ = engine.read(u, id_, outs, inputs)
        assert read_id == id_
        engine.delete(u, id_, outs)
        refused = sum(' 429 ' in line or ' 503 ' in line for line in log)
        assert refused >= 2, log  # the storm really happened ...
        assert _stored(server, id_) is None  # ... and the lifecycle completed
        # One job was created, however many POSTs were refused.
        assert server.emulator.state["vertex"] == {}
        assert sum(line.split('"')[1].startswith("POST /v1/projects/acme-test/locations/"
                                                 "us-central1/customJobs ")
                   and ' 200 ' in line for line in log) == 1
    finally:
        engine.close()
        server.shutdown()
        server.server_close()


def test_create_that_took_effect_behind_a_500_is_adopted(tmp_path, monkeypatch):
    """The POST reached the server but its answer was lost as a 500: no second job."""
    import requests

    server, _ = emu.serve(progress_seconds=STEP)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", server.url)
    monkeypatch.delenv("TRAINSPEC_ACCESS_TOKEN", raising=False)
    real = requests.Session.request
    lost = []

    def request(self, method, url, **kwargs):
        response = real(self, method, url, **kwargs)
        if method == "POST" and url.endswith("/customJobs") and not lost:
            lost.append(url)
            response.status_code, response._content = 500, b'{"error": {"code": 500}}'
        return response

    monkeypatch.setattr(requests.Session, "request", request)
    try:
        props = inputs_for(vertex_spec(tmp_path, "lost-answer"))
        created = pr.VertexCustomJobProvider().create(props)
        jobs = server.emulator.handle("GET", "/v1/projects/acme-test/locations/us-central1/"
                                      "customJobs")[1]["customJobs"]
        assert lost and len(jobs) == 1 and created.id == jobs[0]["name"]
    finally:
        server.shutdown()


def test_moving_a_job_to_another_region_replaces_it(world, tmp_path):
    server, engine, _ = world
    u = urn("VertexCustomJob", "mover")
    old_news = inputs_for(vertex_spec(tmp_path, "mover"))
    _, old_id, old_outs, old_inputs = engine.up(u, old_news)
    news = {**old_news, "region": "europe-west4"}
    d = engine.diff(u, old_id, old_outs, news)
    assert d.changes == provider_pb2.DiffResponse.DIFF_SOME
    assert list(d.replaces) == ["region"]
    engine.delete(u, old_id, old_outs)
