"""The `pulumi-resource-trainspec` plugin over gRPC, as the engine starts it (the executable on
PATH, its port on the first line), without the CLI: the schema it serves and the sdk/state keys
agree, Configure never claims preview support, Check reports each spec diagnostic located and a
wrong type by name, and secrets keep their wrapper (tests/engine drives it under the engine).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from job_specs import ml, vertex
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

from compiler import provider
from compiler.provider import jobs, sdk, wire
from compiler.pulumi_resources.provider import INPUT_KEYS, OUTPUT_KEYS, TUNING_OUTPUT_KEYS

ROOT = Path(__file__).resolve().parent.parent
URN = "urn:pulumi:dev::acme::trainspec:index:Specs$trainspec:index:{t}::{n}"


@contextlib.contextmanager
def serve(cwd: Path):
    """The plugin as the engine starts it (its port on the first line), in project folder
    `cwd`: a stub to call it."""
    exe = shutil.which("pulumi-resource-trainspec", path=str(Path(sys.executable).parent))
    assert exe, "pip install -e . installs the console script pulumi-resource-trainspec"
    # stdin a pipe held open, as the engine's: end of file there tells the plugin to stop.
    proc = subprocess.Popen([exe, "127.0.0.1:1"], cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    port = proc.stdout.readline().decode().strip()
    assert port.isdigit(), proc.stderr.read().decode()[-2000:]
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield provider_pb2_grpc.ResourceProviderStub(channel)
    finally:
        channel.close()
        proc.kill()
        proc.wait(10)


def _run_apart(coroutine):
    """Run `coroutine` on a loop of its own, leaving the thread's current event loop as it was
    (`asyncio.run` clears it, and the Pulumi SDK's mocks in later tests need one)."""
    import asyncio

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.close()


@pytest.fixture
def plugin(tmp_path):
    with serve(tmp_path) as stub:
        yield stub, tmp_path


def test_the_schema_names_every_input_and_output_the_provider_keeps():
    schema = json.loads(provider.schema_text())
    for name, cls in sdk.JOBS.items():
        resource = schema["resources"][name]
        assert set(resource["inputProperties"]) == {
            "specFile", "spec", "project", "region", "stagingBucket", "keepJobRecords",
            "secretEnv", "organization", "impersonateServiceAccount", "retainOnDelete"}
        outputs = OUTPUT_KEYS + (TUNING_OUTPUT_KEYS if cls is sdk.VertexHyperparameterTuningJob
                                 else ())
        assert set(resource["properties"]) == (
            set(resource["inputProperties"]) | set(INPUT_KEYS) | set(outputs)) - set(
            jobs.NOT_IN_STATE), name
        assert set(cls.OUTPUTS) == set(outputs)
        assert resource["inputProperties"]["secretEnv"]["secret"] is True
    assert set(schema["config"]["variables"]) == set(jobs.Config.KEYS)
    assert schema["resources"]["trainspec:index:Specs"]["isComponent"] is True


def test_get_schema_and_configure_without_preview_support(plugin):
    stub, _ = plugin
    served = stub.GetSchema(provider_pb2.GetSchemaRequest(), timeout=20).schema
    assert json.loads(served) == json.loads(provider.schema_text())
    answer = stub.Configure(provider_pb2.ConfigureRequest(args=wire.encode(
        {"project": "acme-test", "region": "us-central1"})), timeout=20)
    # Without supportsPreview the engine never calls Create/Update in a preview.
    assert answer.supportsPreview is False and answer.acceptSecrets is True
    with pytest.raises(grpc.RpcError) as raised:
        stub.Handshake(provider_pb2.ProviderHandshakeRequest(engine_address="x"), timeout=20)
    assert raised.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_the_plugin_reports_the_release_version_to_the_engine(plugin):
    """GetPluginInfo: the engine logs it and records it, so an upgrade can be told apart."""
    import re

    from google.protobuf import empty_pb2
    stub, _ = plugin
    newest = re.search(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert stub.GetPluginInfo(empty_pb2.Empty(), timeout=20).version == newest[1]


def test_check_config_keeps_the_provider_keys_and_refuses_a_wrong_type(plugin):
    stub, _ = plugin
    answer = stub.CheckConfig(provider_pb2.CheckRequest(news=wire.encode(
        {"project": "p", "keepJobRecords": "maybe", "specs": "specs", "wandbApiKey": "x"})),
        timeout=20)
    kept, _ = wire.decode(answer.inputs)
    assert kept == {"project": "p", "keepJobRecords": "maybe"}  # not the program's settings
    assert [(f.property, f.reason) for f in answer.failures] == [
        ("keepJobRecords", "must be true or false")]


def test_check_compiles_the_spec_and_reports_each_problem_located(plugin):
    stub, folder = plugin
    stub.Configure(provider_pb2.ConfigureRequest(args=wire.encode(
        {"project": "acme-test", "region": "us-central1"})), timeout=20)
    (folder / "bad.yaml").write_text(vertex(name="bad").replace("n1-standard-4", "n1-standard-5"))
    (folder / "bert.yaml").write_text(vertex())
    (folder / "census.yaml").write_text(ml())

    def check(type_name, news, name="bert"):
        answer = stub.Check(provider_pb2.CheckRequest(
            urn=URN.format(t=type_name, n=name), olds=wire.encode({}), news=wire.encode(
                news, {"secretEnv"} & set(news))), timeout=60)
        inputs, secret = wire.decode(answer.inputs)
        return inputs, secret, [(f.property, f.reason) for f in answer.failures]

    _, _, failures = check("VertexCustomJob", {"specFile": "bad.yaml"}, "bad")
    ((prop, reason),) = failures
    assert prop == "specFile" and reason.startswith("bad.yaml:11:26: error: ")
    assert "n1-standard-5" in reason and reason.endswith("]")  # its code

    _, _, failures = check("VertexCustomJob", {"specFile": "census.yaml"}, "census")
    assert "declare it as a trainspec:index:AiPlatformJob" in failures[0][1]
    _, _, failures = check("VertexCustomJob", {"specFile": "bert.yaml", "spec": {}})
    assert "exactly one of specFile" in failures[0][1]

    inputs, secret, failures = check("VertexCustomJob",
                                     {"specFile": "bert.yaml", "secretEnv": {"k": "v"}})
    assert failures == [] and secret == {"secretEnv"}
    assert inputs["platform"] == "vertex" and inputs["project"] == "acme-test"
    assert inputs["request"]["displayName"] == "bert" and inputs["keepJobRecords"] is True
    assert "sourceMap" not in inputs  # the provider keeps it for Create, not the state
    # The same spec inline compiles to the same request and owner.
    spec = __import__("yaml").safe_load(vertex())
    inline, _, failures = check("VertexCustomJob", {"spec": spec})
    assert failures == [] and inline["request"] == inputs["request"]
    assert inline["specHash"] == inputs["specHash"]


def test_wire_keeps_secrets_and_unknowns():
    struct = wire.encode({"a": 1, "s": {"x": "y"}, "u": wire.UNKNOWN}, {"s"})
    plain, secret = wire.decode(struct)
    assert plain == {"a": 1.0, "s": {"x": "y"}, "u": wire.UNKNOWN} and secret == {"s"}
    assert jobs.for_id("projects/p/locations/r/customJobs/1") == jobs.token("VertexCustomJob")
    assert jobs.for_id("projects/p/jobs/x") == jobs.token("AiPlatformJob")
    assert jobs.for_id("projects/p/x") is None


def test_wire_reads_a_struct_as_protobuf_json_format_does():
    """decode walks the Struct itself (json_format's generic printer was most of its cost): the
    same values, types and key order as `json_format.MessageToDict`, and the same refusal of a
    number JSON cannot hold."""
    from google.protobuf import json_format, struct_pb2

    props = {"n": 3, "f": 0.5, "neg": -2.0, "t": True, "no": False, "none": None, "s": "x",
             "empty": {}, "nothing": [], "deep": {"a": [1, {"b": [None, "c", [2.5, {}]]}]},
             "out": {wire.SIG: wire.OUTPUT, "secret": True, "value": {"k": [1]}},
             "unknown": {wire.SIG: wire.OUTPUT}, "sec": {wire.SIG: wire.SECRET, "value": 7}}
    struct = struct_pb2.Struct()
    struct.update(props)
    struct.fields["unset"].CopyFrom(struct_pb2.Value())  # no kind: null, as json_format reads it
    raw = json_format.MessageToDict(struct)
    found = {k: [] for k in raw}
    expected = {k: wire._plain(v, found[k]) for k, v in raw.items()}
    plain, secret = wire.decode(struct)
    assert plain == expected and list(plain) == list(expected)
    assert repr(plain) == repr(expected)  # the same types: 3.0, not 3
    assert secret == {k for k, v in found.items() if v} == {"out", "sec"}
    assert wire.decode(None) == ({}, set()) == wire.decode(struct_pb2.Struct())
    for bad in (float("nan"), float("inf")):
        struct = struct_pb2.Struct()
        struct.update({"x": [bad]})
        with pytest.raises(ValueError):
            json_format.MessageToDict(struct)
        with pytest.raises(ValueError):
            wire.decode(struct)


def test_a_job_impersonates_its_own_account_else_the_providers():
    job = jobs.VertexCustomJob()
    job.config = jobs.Config(impersonate_service_account="provider@p.iam.gserviceaccount.com")
    assert job._client().impersonate_service_account == "provider@p.iam.gserviceaccount.com"
    jobs.IMPERSONATE.set("job@p.iam.gserviceaccount.com")
    try:
        assert job._client().impersonate_service_account == "job@p.iam.gserviceaccount.com"
    finally:
        jobs.IMPERSONATE.set(None)


def _stopped(pid: int, seconds: float) -> bool:
    import os
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        stat = Path(f"/proc/{pid}/stat")
        if stat.is_file() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return True  # exited, not yet reaped by its parent
        time.sleep(0.2)
    os.kill(pid, 9)
    return False


@pytest.mark.parametrize("stderr", ["DEVNULL", "PIPE"])
def test_the_plugin_stops_when_the_engine_that_started_it_is_gone(tmp_path, stderr):
    """As the CLI starts it: a session of its own, stdin, stdout and stderr pipes to the engine
    (a dead engine's stderr pipe must not keep the plugin from stopping)."""
    exe = shutil.which("pulumi-resource-trainspec", path=str(Path(sys.executable).parent))
    # A stand-in engine: starts the plugin, prints its pid once it served, and dies.
    engine = subprocess.run([sys.executable, "-c", (
        "import subprocess, sys\n"
        f"p = subprocess.Popen([{exe!r}, '127.0.0.1:1'], stdin=subprocess.PIPE, "
        f"stdout=subprocess.PIPE, stderr=subprocess.{stderr}, start_new_session=True)\n"
        "p.stdout.readline()\n"
        "print(p.pid)\n")], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    pid = int(engine.stdout.strip())
    assert _stopped(pid, 15), "the plugin kept running after its engine was gone"


def test_the_plugin_stops_when_its_stdin_from_the_engine_closes(tmp_path):
    """The engine holds the write end of the plugin's stdin until it exits: EOF there means the
    engine is gone even when the plugin's parent is not the engine (a wrapper started it)."""
    exe = shutil.which("pulumi-resource-trainspec", path=str(Path(sys.executable).parent))
    proc = subprocess.Popen([exe, "127.0.0.1:1"], cwd=tmp_path, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip().isdigit()
        proc.stdin.close()
        assert proc.wait(15) != 0
        assert b"the engine is gone" in proc.stderr.read()
    finally:
        proc.kill()


def test_a_source_map_in_a_state_written_before_is_no_change(plugin):
    stub, folder = plugin
    stub.Configure(provider_pb2.ConfigureRequest(args=wire.encode(
        {"project": "acme-test", "region": "us-central1"})), timeout=20)
    (folder / "bert.yaml").write_text(vertex())
    urn = URN.format(t="VertexCustomJob", n="bert")
    answer = stub.Check(provider_pb2.CheckRequest(urn=urn, olds=wire.encode({}), news=wire.encode(
        {"specFile": "bert.yaml"})), timeout=60)
    news, _ = wire.decode(answer.inputs)
    job = "projects/acme-test/locations/us-central1/customJobs/1"
    olds = {**news, "sourceMap": {"*": {"at": "bert.yaml:6:1", "path": "$.spec"}}, "name": job,
            "owner": news["identity"], "state": "JOB_STATE_RUNNING"}
    diff = stub.Diff(provider_pb2.DiffRequest(id=job, urn=urn, olds=wire.encode(olds),
                                              news=wire.encode(news)), timeout=60)
    assert (diff.changes, list(diff.diffs)) == (provider_pb2.DiffResponse.DIFF_NONE, [])


def test_an_api_error_at_create_is_located_with_the_source_map_of_the_check(plugin):
    from compiler.cloud import emulator

    stub, folder = plugin
    server, _ = emulator.serve()
    try:
        stub.Configure(provider_pb2.ConfigureRequest(args=wire.encode(
            {"project": "acme-test", "region": "us-central1", "endpoint": server.url})),
            timeout=20)
        (folder / "bert.yaml").write_text(vertex())
        urn = URN.format(t="VertexCustomJob", n="bert")
        answer = stub.Check(provider_pb2.CheckRequest(urn=urn, olds=wire.encode({}),
                                                      news=wire.encode({"specFile": "bert.yaml"})),
                            timeout=60)
        news, _ = wire.decode(answer.inputs)
        # A body the schema allows but the API refuses (no machineType in a non-empty pool).
        del news["request"]["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machineType"]
        with pytest.raises(grpc.RpcError) as raised:
            stub.Create(provider_pb2.CreateRequest(urn=urn, properties=wire.encode(news)),
                        timeout=60)
    finally:
        server.shutdown()
        server.server_close()
    assert "HTTP 400" in raised.value.details()
    assert "bert.yaml:11:" in raised.value.details(), raised.value.details()


def test_a_check_that_fails_midway_still_sends_the_warnings_it_found(tmp_path, monkeypatch):
    """The compile's warnings are the user's only pointer to what went on: a Check whose later
    work raises (the request's checks, the quota ledger) still logs them, then fails."""

    from compiler.provider import server

    spec = tmp_path / "warn.yaml"
    text = vertex().replace("args: [--steps,", "args: [--api-key=sk-abcdefghijklmnopqrstuvwxyz"
                                                 "0123456789, --steps,")
    assert "--api-key" in text
    spec.write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", "x")

    class Context:
        async def abort(self, code, message):
            raise RuntimeError(message)

    async def check() -> list[tuple[int, str]]:
        servicer = server.Servicer(provider._provider_class()(), [], "127.0.0.1:1")
        await servicer.Configure(provider_pb2.ConfigureRequest(args=wire.encode(
            {"project": "acme-test", "region": "us-central1"})), Context())
        logged: list[tuple[int, str]] = []

        async def log(severity: int, text: str, urn: str) -> None:
            logged.append((severity, text))

        servicer._log = log
        token = "trainspec:index:VertexCustomJob"

        def broken(*args, **kwargs):
            raise RuntimeError("the request's checks failed")

        servicer.providers[token].check = broken
        with pytest.raises(RuntimeError, match="the request's checks failed"):
            await servicer.Check(provider_pb2.CheckRequest(
                urn=URN.format(t="VertexCustomJob", n="j"), olds=wire.encode({}),
                news=wire.encode({"specFile": "warn.yaml"})), Context())
        return logged

    logged = _run_apart(check())
    assert any("--api-key" in text for _, text in logged), logged


def test_a_large_jobs_diff_runs_off_the_event_loop(tmp_path, monkeypatch):
    """Diff is answered on the plugin's event loop (cheaper than a hop to a thread), but a job
    with an unusually large body goes to a worker thread, not to stall every other call."""
    import threading

    from compiler.provider import server

    monkeypatch.chdir(tmp_path)

    class Context:
        async def abort(self, code, message):
            raise RuntimeError(message)

    async def threads() -> list[str]:
        servicer = server.Servicer(provider._provider_class()(), [], "127.0.0.1:1")
        token = "trainspec:index:VertexCustomJob"
        seen: list[str] = []
        diff = servicer.providers[token].diff

        def recording(*args):
            seen.append(threading.current_thread().name)
            return diff(*args)

        servicer.providers[token].diff = recording
        for args in (1, 20_000):
            inputs = {"specFile": "a.yaml", "request": {"args": ["--x"] * args}}
            await servicer.Diff(provider_pb2.DiffRequest(
                id="j", urn=URN.format(t="VertexCustomJob", n="j"), olds=wire.encode(inputs),
                news=wire.encode(inputs), old_inputs=wire.encode(inputs)), Context())
        return seen

    small, large = _run_apart(threads())
    assert small == threading.main_thread().name and large != small
