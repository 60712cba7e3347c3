"""The providers driven over gRPC where the real engine cannot reach (tests/engine has the rest).

What only this harness can do: faults at the HTTP layer (429/503 storms, a create answered 500
after it took effect), unknown inputs as a preview sends them, request bodies the program would
never register (a 400 from the API), a spec edited between the program's compile and the
provider's check, and a job id that belongs to another stack.

`python -u -m pulumi.dynamic` runs as a subprocess in the project directory (what the CLI's
pulumi-resource-pulumi-python shim does), and `Engine` calls it as the engine does: Check olds =
old inputs; Diff/Delete olds = old outputs; Read = outputs and inputs; every number a float64;
a replacement is delete-before-replace (the provider always asks for it) with Check re-run
without olds, as pkg/resource/deploy does.
"""

from __future__ import annotations

import json
import os
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

from compiler import model, pipeline
from compiler import pulumi_resources as pr
from compiler.cloud import emulator as emu
from compiler.cloud import jobs as cloud_jobs
from compiler.options import Options

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
            assert d.deleteBeforeReplace  # else the engine deletes only at the end of `up`
            self.delete(urn, id_, old_outs)
            inputs, failures = self.check(urn, {}, news)  # a replacement re-checks without olds
            assert not failures, failures
            new_id, outs = self.create(urn, inputs)
            return "replace", new_id, outs, inputs
        return "update", id_, self.update(urn, id_, old_outs, inputs), inputs


def _struct(d: dict) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(json.loads(json.dumps(d)))  # plain JSON: every number becomes a float64
    return s


def _props(s) -> dict:
    return rpc.deserialize_properties(s, keep_unknowns=True)


VERTEX_PROVIDER = serialize_provider(pr.VertexCustomJobProvider())
TUNING_PROVIDER = serialize_provider(pr.VertexHyperparameterTuningJobProvider())
ML_PROVIDER = serialize_provider(pr.AiPlatformJobProvider())


def urn(kind: str, name: str) -> str:
    return f"urn:pulumi:dev::trainspec::pulumi-python:dynamic/trainspec:{kind}::{name}"


def inputs_for(path: Path, *, keep: bool = False, secrets: dict | None = None,
               stack: str = "dev") -> dict:
    """The inputs the program registers for one spec (see _JobResource)."""
    result = pipeline.compile_file(str(path))
    assert result.ok, [d.format() for d in result.diagnostics]
    job = result.job
    owner = pr.identity("organization", "trainspec", stack, job.name)
    return {
        "request": result.body, "platform": job.platform, "project": job.project,
        "region": job.region, "identity": owner, "specFile": result.file, "run": job.run,
        "specHash": pr.spec_hash(owner, result.body, job.run),
        "sourceMap": pr.source_map(result), "keepJobRecords": keep,
        "secretEnv": secrets or {},
        "__provider": ML_PROVIDER if job.platform == "ai-platform" else
        TUNING_PROVIDER if job.kind == "HyperparameterTuningJob" else VERTEX_PROVIDER,
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


def tuning_spec(folder: Path, name: str, *, hold: bool = True, trials: int = 4) -> Path:
    path = folder / f"{name}.yaml"
    hold_label = "emulator-hold: running, " if hold else ""
    path.write_text(textwrap.dedent(f"""\
        apiVersion: trainspec/v1
        kind: HyperparameterTuningJob
        metadata:
          name: {name}
          labels: {{{hold_label}team: ads}}
        spec:
          project: acme-test
          region: us-central1
          container: {{image: gcr.io/acme-test/ads:2}}
          pools:
            chief: {{machineType: n1-standard-4}}
          tuning:
            metrics: {{loss: minimize}}
            parameters:
              lr: {{double: [0.001, 0.1], scale: log}}
              layers: {{integer: [1, 4]}}
            maxTrials: {trials}
            parallelTrials: 2
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






def test_retried_create_adopts_instead_of_starting_a_second_job(world, tmp_path):
    server, engine, _ = world
    news = inputs_for(vertex_spec(tmp_path, "adopt-me"))
    u = urn("VertexCustomJob", "adopt-me")
    first, outs = engine.create(u, news)
    again, _ = engine.create(u, news)  # e.g. `up` interrupted before the state was saved
    assert again == first
    label = f'labels.{model.SPEC_HASH_LABEL}="{news["specHash"]}"'
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
    # A jobId held by another stack's job is not adopted, nor one with another trainingInput.
    theirs = inputs_for(ml_spec(tmp_path, "adopt_ml"), stack="prod")
    with pytest.raises(grpc.RpcError) as info:
        engine.create(mu, theirs)
    assert "the AI Platform jobId 'adopt_ml' is taken by another Pulumi stack or project" \
        in info.value.details()
    changed = inputs_for(ml_spec(tmp_path, "adopt_ml", epochs=99))
    with pytest.raises(grpc.RpcError) as info:
        engine.create(mu, changed)
    assert "is taken by an earlier, different version of this job" in info.value.details()


def test_a_job_of_another_stack_is_never_cancelled(world, tmp_path):
    """A state that points at another stack's job (copied state, a shared id): refuse, touch nothing."""
    server, engine, _ = world
    spec = vertex_spec(tmp_path, "shared")
    ours, theirs = inputs_for(spec), inputs_for(spec, stack="prod")
    u = urn("VertexCustomJob", "shared")
    their_id, their_outs = engine.create(u, theirs)
    with pytest.raises(grpc.RpcError) as info:
        # `stack export` of prod imported into dev, then `up` in dev: the state now says this
        # resource (dev's identity) owns prod's job, and its `owner` output still says prod.
        engine.delete(u, their_id, {**their_outs, "identity": ours["identity"]})
    assert "belongs to another Pulumi stack or project" in info.value.details()
    assert "CANCEL" not in _stored(server, their_id)["state"]  # untouched
    engine.delete(u, their_id, their_outs)
    assert _stored(server, their_id) is None


def test_an_ai_platform_job_of_another_stack_is_refused_by_its_name(world, tmp_path):
    """ml v1 jobs carry no `name` field: the refusal names the job by its id, never `None`."""
    _, engine, _ = world
    spec = ml_spec(tmp_path, "shared_ml")
    ours, theirs = inputs_for(spec), inputs_for(spec, stack="prod")
    u = urn("AiPlatformJob", "shared_ml")
    their_id, their_outs = engine.create(u, theirs)
    with pytest.raises(grpc.RpcError) as info:
        engine.delete(u, their_id, {**their_outs, "identity": ours["identity"]})
    assert f": {their_id} belongs to another Pulumi stack or project" in info.value.details()
    assert "trainspec:renamedFrom" in info.value.details()


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
    assert "Traceback" not in details
    assert "creating a CustomJob in projects/acme-test/locations/us-central1: HTTP 400 " \
        "INVALID_ARGUMENT" in last
    assert (f"{spec}:13:20: $.spec.pools.chief.machineType "
            "(job_spec.worker_pool_specs[0].machine_spec.machine_type): Required in a non-empty "
            "pool.") in last
    assert TOKEN not in details

    # What the schema refuses is caught earlier, at check, with the same location.
    bad = inputs_for(spec)
    bad["request"]["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineTyp"] = "x"
    _, failures = engine.check(urn("VertexCustomJob", "refused"), {}, bad)
    assert failures == [("specFile", f"{spec}:12:5: $.spec.pools.chief: "
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
    assert expected and failures == [("specFile", d.format()) for d in expected]
    assert failures[0][1] == (f"{news['specFile']}:14:27: error: $.spec.pools.chief.disk.typ: "
                              "unknown key 'typ' (did you mean 'type'?) [unknown-key]")

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
    assert failures == [("specFile", f"{spec}:17:8: error: $.spec.env: ai-platform has no "
                         "environment variables (env is vertex only; pass settings as args) "
                         "[vertex-only]")]


def test_a_new_run_replaces_the_job_with_the_same_request_and_keeps_the_old_record(world,
                                                                                  tmp_path):
    server, engine, log = world
    u = urn("VertexCustomJob", "rerun")
    spec = vertex_spec(tmp_path, "rerun", hold=False)
    first = inputs_for(spec, keep=True)
    _, old_id, old_outs, old_inputs = engine.up(u, first)
    assert _wait_state(server, old_id, {"JOB_STATE_SUCCEEDED"}, 60) == "JOB_STATE_SUCCEEDED"

    spec.write_text(spec.read_text().replace("  name: rerun\n", "  name: rerun\n  run: 2\n"))
    second = inputs_for(spec, keep=True)
    assert second["request"] == first["request"] and second["specHash"] != first["specHash"]
    d = engine.diff(u, old_id, old_outs, second)
    assert d.changes == provider_pb2.DiffResponse.DIFF_SOME
    assert list(d.replaces) == ["run"] and d.deleteBeforeReplace
    action, new_id, outs, _ = engine.up(u, second, (old_id, old_outs, old_inputs))
    assert action == "replace" and new_id != old_id
    # The previous run's record is kept (and not cancelled: it had finished).
    assert _stored(server, old_id)["state"] == "JOB_STATE_SUCCEEDED"
    new = _stored(server, new_id)
    assert new["labels"][model.SPEC_HASH_LABEL] == second["specHash"]
    sent = {k: v for k, v in new.items() if k in first["request"]}
    assert {**sent, "labels": first["request"]["labels"]} == first["request"]
    # Same run again: nothing to do.
    again = engine.diff(u, new_id, outs, inputs_for(spec, keep=True))
    assert again.changes == provider_pb2.DiffResponse.DIFF_NONE
    engine.delete(u, new_id, outs)


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


@pytest.mark.parametrize("spec, provider, collection", [
    (vertex_spec, pr.VertexCustomJobProvider, "customJobs"),
    (tuning_spec, pr.VertexHyperparameterTuningJobProvider, "hyperparameterTuningJobs")])
def test_create_that_took_effect_behind_a_500_is_adopted(tmp_path, monkeypatch, spec, provider,
                                                         collection):
    """The POST reached the server but its answer was lost as a 500: no second job."""
    import requests

    server, _ = emu.serve(progress_seconds=STEP)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", server.url)
    monkeypatch.delenv("TRAINSPEC_ACCESS_TOKEN", raising=False)
    real = requests.Session.request
    lost = []

    def request(self, method, url, **kwargs):
        response = real(self, method, url, **kwargs)
        if method == "POST" and url.endswith(f"/{collection}") and not lost:
            lost.append(url)
            response.status_code, response._content = 500, b'{"error": {"code": 500}}'
        return response

    monkeypatch.setattr(requests.Session, "request", request)
    try:
        props = inputs_for(spec(tmp_path, "lost-answer"))
        created = provider().create(props)
        jobs = server.emulator.handle("GET", "/v1/projects/acme-test/locations/us-central1/"
                                      f"{collection}")[1][collection]
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


def test_an_ml_create_that_keeps_failing_with_500_reports_the_500(tmp_path, monkeypatch):
    """Each 500 is looked into (the job may exist); when it never does, the create's own error
    is what the user reads, after a bounded number of attempts."""
    import requests

    server, _ = emu.serve(progress_seconds=STEP)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", server.url)
    monkeypatch.delenv("TRAINSPEC_ACCESS_TOKEN", raising=False)
    real, posts = requests.Session.request, []

    def request(self, method, url, **kwargs):
        if method == "POST" and url.endswith("/jobs"):
            posts.append(url)  # refused before it reaches the server
            response = requests.Response()
            response.status_code, response._content = 500, b'{"error": {"code": 500}}'
            response.url, response.request = url, requests.Request(method, url).prepare()
            return response
        return real(self, method, url, **kwargs)

    monkeypatch.setattr(requests.Session, "request", request)
    try:
        props = inputs_for(ml_spec(tmp_path, "never_created"))
        with pytest.raises(pr.JobError, match=r"creating projects/acme-test/jobs/never_created: "
                                              r"HTTP 500"):
            pr.AiPlatformJobProvider().create(props)
        assert len(posts) == pr.CREATE_ATTEMPTS
        assert server.emulator.state["ml"] == {}
    finally:
        server.shutdown()


def test_the_provider_impersonates_the_stack_s_gcp_service_account():
    """gcp:impersonateServiceAccount, as pulumi-gcp reads it, reaches every API client (set by
    configure() in the provider process, after the provider was unpickled)."""
    from pulumi.dynamic import Config, ConfigureRequest

    provider = pr.VertexCustomJobProvider()
    assert provider._client().impersonate_service_account is None
    provider.configure(ConfigureRequest(Config(
        {"gcp:impersonateServiceAccount": "runner@acme.iam.gserviceaccount.com"}, "trainspec")))
    assert provider._client().impersonate_service_account == "runner@acme.iam.gserviceaccount.com"


def test_a_tuning_job_has_the_custom_job_lifecycle_and_reports_its_best_trial(world, tmp_path):
    """Create adopts its own job, refresh reads the trials, delete cancels (owner checked)."""
    server, engine, log = world
    u = urn("VertexHyperparameterTuningJob", "ads-hpt")
    news = inputs_for(tuning_spec(tmp_path, "ads-hpt"))
    assert engine.check(u, {}, news)[1] == []
    _, id_, outs, inputs = engine.up(u, news)
    assert id_.startswith("projects/acme-test/locations/us-central1/hyperparameterTuningJobs/")
    assert outs["trialCount"] == 0 and outs.get("bestTrial") is None
    again, _ = engine.create(u, inputs)  # an interrupted `up`: the live job is adopted
    assert again == id_
    assert sum("POST /v1/projects/acme-test/locations/us-central1/hyperparameterTuningJobs "
               in line and " 200 " in line for line in log) == 1
    deadline = time.monotonic() + 10
    while True:  # the emulator runs one wave of 2 trials per step; the last wave is held
        _, read = engine.read(u, id_, outs, inputs)
        if read["succeededTrials"] == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert read["state"] == "JOB_STATE_RUNNING" and read["trialCount"] == 4
    best = read["bestTrial"]
    assert set(best) == {"id", "parameters", "metrics"} and set(best["parameters"]) == {
        "lr", "layers"}
    trials = [t for t in _stored(server, id_)["trials"] if t["state"] == "SUCCEEDED"]
    lowest = min(trials, key=lambda t: t["finalMeasurement"]["metrics"][0]["value"])
    assert best["id"] == lowest["id"]  # the goal is minimize
    theirs = inputs_for(tuning_spec(tmp_path, "ads-hpt"), stack="prod")
    with pytest.raises(grpc.RpcError) as info:
        engine.delete(u, id_, {**read, "identity": theirs["identity"]})
    assert "belongs to another Pulumi stack or project" in info.value.details()
    engine.delete(u, id_, read)
    calls = [line.split('"')[1] for line in log if id_ in line]
    cancel = calls.index(f"POST /v1/{id_}:cancel HTTP/1.1")
    assert f"DELETE /v1/{id_} HTTP/1.1" in calls[cancel:]  # cancelled, then (keepJobRecords
    assert _stored(server, id_) is None                    # false) its record deleted
    engine.delete(u, id_, read)  # already gone: only the API's NOT_FOUND, no error


def test_a_tuning_job_body_is_checked_against_its_own_schema(world, tmp_path):
    _, engine, _ = world
    u = urn("VertexHyperparameterTuningJob", "bad-hpt")
    news = inputs_for(tuning_spec(tmp_path, "bad-hpt"))
    news["request"]["jobSpec"] = news["request"].pop("trialJobSpec")
    _, failures = engine.check(u, {}, news)
    assert any("jobSpec: unknown field 'jobSpec'" in reason for _, reason in failures), failures


def test_best_trial_follows_the_goal_of_the_first_metric():
    def trial(id_, value, state="SUCCEEDED"):
        return {"id": id_, "state": state, "parameters": [{"parameterId": "lr", "value": 0.1}],
                "finalMeasurement": {"metrics": [{"metricId": "auc", "value": value}]}}
    job = {"studySpec": {"metrics": [{"metricId": "auc", "goal": "MAXIMIZE"}]},
           "trials": [trial("1", 0.5), trial("2", 0.9), trial("3", 0.99, "ACTIVE")]}
    assert cloud_jobs.best_trial(job) == {"id": "2", "metrics": {"auc": 0.9},
                                  "parameters": {"lr": 0.1}}
    job["studySpec"]["metrics"][0]["goal"] = "MINIMIZE"
    assert cloud_jobs.best_trial(job)["id"] == "1"
    assert cloud_jobs.best_trial({"studySpec": {}, "trials": []}) is None


@pytest.mark.parametrize("provider, write, collection, kept", [
    (pr.VertexCustomJobProvider, vertex_spec, "customJobs", "vertex"),
    (pr.VertexHyperparameterTuningJobProvider, tuning_spec, "hyperparameterTuningJobs", "tuning"),
])
def test_a_create_whose_job_appears_late_is_adopted_never_posted_twice(
        tmp_path, monkeypatch, provider, write, collection, kept):
    """The server commits the POST only after the client gave up: the provider waits for the job
    to appear instead of POSTing again (a second POST would start a second job)."""
    server, _ = emu.serve(progress_seconds=STEP)
    handle = server.emulator.handle

    def slow_commit(method, target, body=b""):
        if method == "POST" and target.endswith(f"/{collection}"):
            time.sleep(1.5)  # still working when the client's deadline passes
        return handle(method, target, body)

    server.emulator.handle = slow_commit
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", server.url)
    monkeypatch.setenv("TRAINSPEC_REQUEST_DEADLINE", "1")
    monkeypatch.setenv("TRAINSPEC_CREATE_SETTLE_SECONDS", "10")
    try:
        props = inputs_for(write(tmp_path, "late"))
        created = provider().create(props)
        jobs = list(server.emulator.state[kept])
        assert jobs == [created.id]

        # A job that never appears: the create fails saying so, and still POSTs only once.
        server.emulator.handle = lambda method, target, body=b"": (
            (time.sleep(1.5), (500, {"error": {"code": 500, "status": "INTERNAL"}}))[1]
            if method == "POST" else handle(method, target, body))
        monkeypatch.setenv("TRAINSPEC_CREATE_SETTLE_SECONDS", "0.5")
        with pytest.raises(pr.JobError, match="the job may exist but did not appear within 0.5s"):
            provider().create(inputs_for(write(tmp_path, "lost")))
        assert list(server.emulator.state[kept]) == jobs
    finally:
        server.shutdown()


@pytest.mark.parametrize("provider, write, collection, kept", [
    (pr.VertexCustomJobProvider, vertex_spec, "customJobs", "vertex"),
    (pr.VertexHyperparameterTuningJobProvider, tuning_spec, "hyperparameterTuningJobs", "tuning"),
])
def test_a_create_refused_with_429_looks_for_its_job_again_before_each_post(
        tmp_path, monkeypatch, provider, write, collection, kept):
    """While a create waits out a 429, another process makes its job (a killed `up` that was
    retrying the same create): the retry adopts that job instead of POSTing a second one."""
    server, _ = emu.serve(progress_seconds=STEP)
    handle = server.emulator.handle
    refused = []

    def busy(method, target, body=b""):
        if method == "POST" and target.endswith(f"/{collection}") and not refused:
            refused.append(handle(method, target, body)[1]["name"])  # the other process's POST
            return 429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                                   "message": "Quota exceeded."}}
        return handle(method, target, body)

    server.emulator.handle = busy
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", server.url)
    try:
        created = provider().create(inputs_for(write(tmp_path, "busy")))
        assert list(server.emulator.state[kept]) == refused == [created.id]
    finally:
        server.shutdown()
