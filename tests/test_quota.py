"""Capacity: an allocation-quota 429 is final (one POST, then a clear error), a rate-limit 429
keeps its backoff, and `trainspec quota` sums what the jobs hold against the project's limits
and usage, all against the emulator (which serves quotas and refuses a create over one)."""

from __future__ import annotations

import io
import textwrap

import pytest
from test_provider_plugin import plugin  # noqa: F401 - the plugin process fixture

from compiler import cli, pipeline, quota
from compiler.catalog import quotas as table
from compiler.cloud.emulator.quotas import holds, parse_quota
from compiler.cloud.emulator.server import serve
from compiler.cloud.errors import ApiError
from compiler.cloud.rest import Client
from compiler.jobs.identity import identity
from compiler.provider.jobs import VertexCustomJob
from compiler.pulumi_resources.bodies import source_map
from compiler.pulumi_resources.provider import JobError

H100 = "aiplatform.googleapis.com/custom_model_training_preemptible_nvidia_h100_gpus"
A100 = "aiplatform.googleapis.com/custom_model_training_nvidia_a100_gpus"
CPUS = "aiplatform.googleapis.com/custom_model_training_cpus"


def spec(tmp_path, name: str, pools: str, strategy: str = "STANDARD", file: str = "") -> str:
    path = tmp_path / (file or f"{name}.yaml")
    path.write_text(textwrap.dedent(f"""\
        apiVersion: trainspec/v1
        kind: TrainingJob
        metadata:
          name: {name}
          labels: {{emulator-hold: running}}
        spec:
          project: acme-test
          region: us-central1
          container: {{image: gcr.io/acme-test/trainer:1}}
          pools: {{{pools}}}
          scheduling: {{timeout: 2h, strategy: {strategy}}}
        """))
    return str(path)


A100_POOLS = "chief: {accelerator: {type: A100, count: 4}}"
H100_POOLS = "chief: {machineType: a3-highgpu-8g}, worker: {replicas: 1, machineType: a3-highgpu-8g}"


@pytest.fixture
def emulator(monkeypatch):
    server, _ = serve(port=0, progress_seconds=60, quotas={
        (A100, "us-central1"): (6, 0), (H100, "us-central1"): (24, 2),
        (CPUS, "us-central1"): (1000, 0)}, log=None)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", server.url)
    monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", "emulated-token")
    yield server
    server.shutdown()
    server.server_close()


def _body(path: str) -> dict:
    result = pipeline.compile_file(path)
    assert result.ok, [d.format() for d in result.diagnostics]
    return result.body


# --- the 429 -----------------------------------------------------------------------------------

def test_a_quota_429_is_final_after_one_post(emulator, tmp_path):
    posts: list[str] = []
    emulator.emulator.log = posts.append
    body = _body(spec(tmp_path, "a", A100_POOLS))
    Client(sleep=lambda s: None).vertex_create("acme-test", "us-central1", body)  # 4 of 6
    posts.clear()
    with pytest.raises(ApiError) as info:
        Client(sleep=lambda s: pytest.fail("a quota 429 is never retried")).vertex_create(
            "acme-test", "us-central1", body)
    assert info.value.quota_exceeded and info.value.quota_metrics == [A100]
    assert (info.value.status, info.value.status_name, info.value.ambiguous) == \
        (429, "RESOURCE_EXHAUSTED", False)
    assert len([p for p in posts if "POST" in p]) == 1


def test_a_rate_limit_429_keeps_its_backoff(emulator, tmp_path):
    emulator.emulator.fault_rate_429 = 1.0  # "Quota exceeded (emulated).": no metric named
    sleeps: list[float] = []
    with pytest.raises(ApiError) as info:
        Client(sleep=sleeps.append, max_attempts=3).vertex_create(
            "acme-test", "us-central1", _body(spec(tmp_path, "a", A100_POOLS)))
    assert not info.value.quota_exceeded and len(sleeps) == 2


def test_the_real_bodies_are_classified():
    class Response:
        status_code, reason, headers, text = 429, "", {}, ""

        def __init__(self, error):
            self.error = error

        def json(self):
            return {"error": self.error}

    from compiler.cloud.errors import response_error

    vertex = response_error("POST", "u", Response({
        "code": 429, "status": "RESOURCE_EXHAUSTED", "message": "The following quota metrics "
        "exceed quota limits: aiplatform.googleapis.com/custom_model_training_nvidia_l4_gpus"}),
        False, str)
    assert vertex.quota_metrics == ["aiplatform.googleapis.com/custom_model_training_nvidia_l4_gpus"]
    ml = response_error("POST", "u", Response({
        "code": 429, "status": "RESOURCE_EXHAUSTED", "message": "Quota failure for project p.",
        "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
            {"subject": "p", "description": "The request for 2 K80 accelerators exceeds the "
             "allowed maximum of 0 A100, 0 K80."}]}]}), False, str)
    assert ml.quota_exceeded and ml.quota_metrics == []
    rate = response_error("POST", "u", Response({
        "code": 429, "status": "RESOURCE_EXHAUSTED", "message": "Quota exceeded for quota "
        "metric 'Job or LRO submission requests' and limit 'Job or LRO submission requests per "
        "minute per region' of service 'aiplatform.googleapis.com'"}), False, str)
    assert not rate.quota_exceeded


def test_the_provider_fails_at_once_naming_metric_region_and_spec(emulator, tmp_path):
    path = spec(tmp_path, "big", A100_POOLS.replace("count: 4", "count: 8"))
    result = pipeline.compile_file(path)
    props = {"request": result.body, "project": "acme-test", "region": "us-central1",
             "identity": identity("organization", "trainspec", "dev", "big"), "specHash": "h",
             "specFile": path,
             "sourceMap": source_map(result), "secretEnv": {}}
    requests: list[str] = []
    emulator.emulator.log = requests.append
    with pytest.raises(JobError) as info:
        VertexCustomJob().create(props)
    text = str(info.value)
    assert text.startswith(f"{path}:")
    assert f"quota exceeded in us-central1, not retried: {A100}" in text
    assert "console.cloud.google.com/iam-admin/quotas?project=acme-test" in text
    assert emulator.emulator.state["vertex"] == {}
    assert len([r for r in requests if '"POST ' in r]) == 1, requests


# --- the check ---------------------------------------------------------------------------------

def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_quota_sums_the_stack_against_limit_and_usage(emulator, tmp_path):
    spec(tmp_path, "h100", H100_POOLS, "FLEX_START")
    spec(tmp_path, "h100-b", H100_POOLS, "SPOT")  # 16 + 16 preemptible H100s, 2 in use, 24
    code, out, err = run("quota", str(tmp_path))
    assert code == 1, (out, err)
    assert f"acme-test us-central1 {H100}: need 32, in use 2, limit 24" in out
    line = next(x for x in err.splitlines() if x.endswith("[quota]"))
    assert line.startswith(f"{tmp_path / 'h100-b.yaml'}:")
    assert ": error: $.spec.pools.chief: " in line and line.endswith("[quota]")
    assert "need 32 at once (h100-b, h100)" in line and "limit is 24 with 2 in use" in line
    assert "request_increase" in line


def test_usage_counts_the_emulators_running_jobs_and_unverified_is_a_warning(emulator, tmp_path):
    path = spec(tmp_path, "a", A100_POOLS)
    Client().vertex_create("acme-test", "us-central1", _body(path))  # 4 A100s now in use
    code, out, err = run("quota", path)
    assert code == quota.EXIT_UNVERIFIED  # over, on a metric name not verified
    assert f"{A100}: need 4, in use 4, limit 6: over by 2" in out
    assert "warning:" in err and err.rstrip().endswith("[quota-unverified]")
    assert "not verified ([429] issue 21" in err


def test_a_metric_the_project_does_not_list_is_not_checked(emulator, tmp_path):
    code, out, err = run("quota", spec(tmp_path, "t", "chief: {accelerator: {type: T4, count: 1}}"))
    assert code == 0 and "[quota-unknown-metric]" in err
    assert "custom_model_training_nvidia_t4_gpus in us-central1: project acme-test lists no " \
           "such quota, so it was not checked" in err


def test_without_credentials_one_line_says_not_checked(monkeypatch, tmp_path):
    monkeypatch.delenv("TRAINSPEC_API_ENDPOINT", raising=False)
    monkeypatch.delenv("TRAINSPEC_ACCESS_TOKEN", raising=False)
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "none.json"))
    code, out, err = run("quota", spec(tmp_path, "a", A100_POOLS))
    assert code == 0 and out.startswith("quota not checked: ") and out.count("\n") == 1


# --- what a job holds --------------------------------------------------------------------------

def test_needs_per_pool_trial_and_strategy(tmp_path):
    result = pipeline.compile_file(spec(tmp_path, "h", H100_POOLS, "FLEX_START"))
    found = {n.metric: n for n in quota.of_result(result)}
    assert found[H100].amount == 16 and found[H100].verified
    assert found[CPUS.replace("training_", "training_preemptible_")].amount == 2 * 208
    result = pipeline.compile_file(spec(tmp_path, "a", A100_POOLS))
    assert {n.metric: n.verified for n in quota.of_result(result)}[A100] is False


def test_the_emulator_reads_what_a_job_holds_itself(tmp_path):
    body = _body(spec(tmp_path, "h", H100_POOLS, "SPOT"))
    assert holds(body)[H100] == 16
    assert parse_quota("custom_model_training_cpus@us-central1=8:2") == (CPUS, "us-central1", 8, 2)


def test_every_row_names_a_source_and_only_primary_rows_are_verified():
    rows = [*table.ACCELERATORS.values(), table.CPU_ROW]
    assert all(r.source for r in rows)
    verified = [(r.stem, p) for r in rows for p in (False, True)
                if table.status(r, p) == table.VERIFIED]
    assert verified == [("nvidia_h100_gpus", True)]  # [DWS], facts §A.10 ✅
    assert all(table.status(r, p) == table.VERIFIED or not r.source.startswith("[DWS]")
               for r in rows for p in (True,))


# --- the provider's Check (a preview) ----------------------------------------------------------

def test_preview_check_refuses_the_job_that_tips_the_stack_over(emulator, plugin, tmp_path):  # noqa: F811
    from pulumi.runtime.proto import provider_pb2

    from compiler.provider import wire

    stub, folder = plugin
    requests: list[str] = []
    emulator.emulator.log = requests.append
    stub.Configure(provider_pb2.ConfigureRequest(args=wire.encode(
        {"project": "acme-test", "region": "us-central1", "endpoint": emulator.url})), timeout=20)
    for name in ("one", "two"):
        spec(folder, name, H100_POOLS, "FLEX_START")

    def check(name, olds=None):
        answer = stub.Check(provider_pb2.CheckRequest(
            urn=f"urn:pulumi:dev::acme::trainspec:index:VertexCustomJob::{name}",
            olds=wire.encode(olds or {}), news=wire.encode({"specFile": f"{name}.yaml"})),
            timeout=60)
        return wire.decode(answer.inputs)[0], [(f.property, f.reason) for f in answer.failures]

    inputs, failures = check("one")  # 16 of the 22 free
    assert failures == []
    _, failures = check("two")  # 32 together
    ((prop, reason),) = failures
    assert prop == "specFile" and reason.startswith("two.yaml:10:")
    assert reason.endswith("[quota]") and "need 32 at once" in reason and "with 2 in use" in reason
    _, failures = check("one", olds=inputs)  # unchanged: claims nothing, submits nothing
    _, failures = check("two")
    assert failures == []
    assert not [r for r in requests if '"POST ' in r], requests  # nothing was sent


def test_a_tuning_job_holds_its_parallel_trials():
    from pathlib import Path  # noqa: PLC0415

    every = Path(__file__).parent / "golden" / "hpt-vertex-every-field" / "spec.yaml"
    result = pipeline.compile_text(every.read_text().replace("  region:", "  project: acme-ml\n"
                                                             "  region:"), "hpt.yaml")
    found = {n.metric.rsplit("_training_", 1)[1]: n.amount for n in quota.of_result(result)}
    assert found == {"nvidia_t4_gpus": 8, "cpus": 8 * 8}  # 8 parallel trials × (T4, 8 vCPUs)
    assert holds(result.body)[f"{table.PREFIX}nvidia_t4_gpus"] == 8  # the emulator agrees


def test_odd_answers_are_not_checked_never_a_traceback():
    from test_rest_client import FakeResponse, FakeSession  # noqa: PLC0415

    from compiler.cloud.quotas import Quotas  # noqa: PLC0415

    odd = [FakeResponse(200, text="[1, 2]"),
           FakeResponse(200, {"metrics": [{"metric": A100, "consumerQuotaLimits": [
               {"unit": "1/{project}/{region}", "quotaBuckets": ["x", {"dimensions": "y",
                                                                       "effectiveLimit": "3"}]},
               "z"]}, 7]}),
           FakeResponse(403, {"error": {"code": 403, "status": "PERMISSION_DENIED",
                                        "message": "no serviceusage.quotas.get"}})]
    found = [quota.read(["p"], Quotas("https://example.test", "t", session=FakeSession(
        answer, FakeResponse(200, {"timeSeries": [{"points": [{"value": 3}]}, None]}))))
        for answer in odd]
    assert "not a JSON object" in found[0].problem
    assert found[1].problem is None and found[1].limits == {("p", A100, ""): 3}
    assert "PERMISSION_DENIED" in found[2].problem


def test_replacing_a_running_job_gives_its_share_back_and_says_so_once(emulator, plugin,  # noqa: F811
                                                                        tmp_path):
    """The engine's replace of a running job: Check (old inputs), Diff (replace, delete-first),
    Check again without olds. The new job fits once the old one is cancelled: its share of the
    usage is given back, and a second job is checked against what is left."""
    from pulumi.runtime.proto import provider_pb2

    from compiler.provider import jobs, wire

    stub, folder = plugin
    emulator.emulator.state.setdefault("vertex", {})
    config = {"project": "acme-test", "region": "us-central1", "endpoint": emulator.url}
    stub.Configure(provider_pb2.ConfigureRequest(args=wire.encode(config)), timeout=20)
    path = spec(folder, "one", H100_POOLS, "FLEX_START")
    urn = "urn:pulumi:dev::acme::trainspec:index:VertexCustomJob::one"
    token = "trainspec:index:VertexCustomJob"
    old = jobs.check(token, urn, {}, {"specFile": path}, jobs.Config.from_inputs(config)).inputs
    outs = VertexCustomJob().create(old).outs  # running: 2 + 16 of 24 in use
    old = {k: v for k, v in old.items() if k not in jobs.NOT_IN_STATE}
    (folder / "one.yaml").write_text((folder / "one.yaml").read_text().replace(
        "trainer:1", "trainer:2"))

    def check(name, olds=None):
        answer = stub.Check(provider_pb2.CheckRequest(
            urn=urn.replace("::one", f"::{name}"), olds=wire.encode(olds or {}),
            news=wire.encode({"specFile": f"{name}.yaml"})), timeout=60)
        return wire.decode(answer.inputs)[0], [f.reason for f in answer.failures]

    news, failures = check("one", old)
    assert failures == []
    diff = stub.Diff(provider_pb2.DiffRequest(
        urn=urn, id=outs["name"], olds=wire.encode(outs), news=wire.encode(news),
        old_inputs=wire.encode(old)), timeout=60)
    assert diff.deleteBeforeReplace and "request" in diff.replaces
    _, failures = check("one")  # the replacement: 16 against 24 less (18 - its 16)
    assert failures == []
    spec(folder, "two", H100_POOLS, "FLEX_START")
    _, failures = check("two")  # 32 together against the 2 others use
    (reason,) = failures
    assert "need 32 at once (one, two)" in reason and "limit is 24 with 2 in use now" in reason


def test_a_replaced_job_that_has_finished_gives_nothing_back(emulator, tmp_path):
    """Its share is no longer in the usage: subtracting it would hide the others' use."""
    from compiler import plan
    from compiler.provider import capacity, jobs

    config = {"project": "acme-test", "region": "us-central1", "endpoint": emulator.url}
    urn = "urn:pulumi:dev::acme::trainspec:index:VertexCustomJob::one"
    path = spec(tmp_path, "one", H100_POOLS, "FLEX_START")
    inputs = jobs.check("trainspec:index:VertexCustomJob", urn, {}, {"specFile": path},
                        jobs.Config.from_inputs(config)).inputs
    outs = VertexCustomJob().create(inputs).outs
    emulator.emulator.cancel_seconds = 0
    Client().vertex_cancel(outs["name"])
    assert Client().vertex_get(outs["name"])["state"] == "JOB_STATE_CANCELLED"
    ledger = capacity.Ledger()
    assert ledger.check(urn, inputs, inputs, plan.REPLACE, emulator.url, None) == ([], [], [])
    ledger.replacing(urn, {**outs, "state": "JOB_STATE_RUNNING"})  # as last recorded
    bigger = {**inputs, "request": _body(spec(tmp_path, "one", H100_POOLS.replace(
        "replicas: 1", "replicas: 2"), "FLEX_START"))}  # 24 of 24, 2 in use (not 0)
    failures, warnings, notes = ledger.check(urn, {}, bigger, plan.CREATE, emulator.url, None)
    assert len(failures) == 1 and "need 24 at once" in failures[0][1]
    assert "with 2 in use now, so 22 free" in failures[0][1]
    # The same Check again (the engine's second one) says nothing new.
    assert ledger.check(urn, {}, bigger, plan.CREATE, emulator.url, None)[1:] == ([], [])


def test_the_ledger_reads_every_claim_only_when_a_metric_may_be_over(emulator, tmp_path,
                                                                    monkeypatch):
    """A preview of N new jobs within the quota is linear in N: each Check weighs its own needs
    against the running sums; the stack's claims are gone over (for the message's sum and
    jobs) only once one may be over, and then the refusal is the same as before."""
    from compiler import plan
    from compiler.provider import capacity

    seen = []
    check = quota.check
    monkeypatch.setattr(quota, "check", lambda needs, *a, **k: (
        seen.append(len(list(needs))), check(needs, *a, **k))[1])
    result = pipeline.compile_file(spec(tmp_path, "one", "chief: {machineType: n1-standard-8}"))
    inputs = {"platform": "vertex", "project": "acme-test", "region": "us-central1",
              "request": result.body, "specFile": result.file}
    ledger = capacity.Ledger()
    for i in range(40):  # 8 CPUs each against 1,000
        assert ledger.check(f"urn:{i}", {}, inputs, plan.CREATE, emulator.url, None)[0] == []
    assert max(seen) == len(ledger.claims["urn:0"])
    big = pipeline.compile_file(spec(tmp_path, "big", H100_POOLS, "FLEX_START"))
    for i in range(2):  # 16 + 16 H100s against 24 less 2 in use: the second is refused
        failures = ledger.check(f"urn:big{i}", {}, {**inputs, "request": big.body},
                                plan.CREATE, emulator.url, None)[0]
    (reason,) = [r for _, r in failures]
    assert "need 32 at once" in reason and max(seen) > 40


def test_a_label_only_change_is_neither_priced_nor_counted(emulator, tmp_path):
    from compiler import plan
    from compiler.provider import capacity

    result = pipeline.compile_file(spec(tmp_path, "one", H100_POOLS, "FLEX_START"))
    assert capacity.cost_note(plan.UPDATE, result) is None
    assert capacity.cost_note(plan.NONE, result) is None
    assert capacity.cost_note(plan.REPLACE, result).startswith("cost: $")
    inputs = {"platform": "vertex", "project": "acme-test", "region": "us-central1",
              "request": {**result.body, "labels": {"team": "b"}}, "specFile": result.file}
    ledger = capacity.Ledger()
    for _ in range(2):  # 16 + 16 > 22 free if the update were counted
        assert ledger.check("urn:a", {"request": result.body}, inputs, plan.UPDATE,
                            emulator.url, None) == ([], [], [])
    assert ledger.claims == {"urn:a": []}


# --- `trainspec quota`: the stack, what is skipped, exit codes ---------------------------------

def _stack_repo(tmp_path, monkeypatch, pools: str = H100_POOLS, strategy: str = "FLEX_START"):
    """A Pulumi project whose stack `dev` sets the project and region; one spec without them."""
    monkeypatch.setenv("PULUMI_HOME", str(tmp_path / "pulumi-home"))  # no selected stack
    monkeypatch.delenv("PULUMI_STACK", raising=False)
    (tmp_path / "Pulumi.yaml").write_text("name: trainspec\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config:\n  gcp:project: acme-test\n"
                                              "  gcp:region: us-central1\n")
    path = spec(tmp_path, "llm", pools, strategy)
    text = (tmp_path / "llm.yaml").read_text()
    (tmp_path / "llm.yaml").write_text(text.replace("  project: acme-test\n", "").replace(
        "  region: us-central1\n", ""))
    return path


def test_quota_reads_project_and_region_from_the_stack_and_says_what_it_skips(
        emulator, tmp_path, monkeypatch):
    path = _stack_repo(tmp_path, monkeypatch)
    code, out, err = run("quota", path)
    assert code == 0, (out, err)
    assert f"skipped {path}: no project and no region" in out
    assert "--stack" in out
    code, out, err = run("quota", "--stack", "dev", path)
    assert code == 0, (out, err)
    assert f"acme-test us-central1 {H100}: need 16, in use 2, limit 24" in out
    assert "skipped" not in out


def test_quota_counts_the_stacks_unchanged_running_job_as_kept(emulator, tmp_path, monkeypatch):
    """Deployed and unchanged: its job holds its share already (in use), `pulumi up` submits
    nothing. Changed: its running job is cancelled first (a replace), its share given back."""
    from compiler.jobs import track, workspace

    path = _stack_repo(tmp_path, monkeypatch)
    stack = workspace.resolve(path, stack="dev")
    result = track.compile_for(path, stack)
    owner = identity(stack.organization, stack.project, stack.name, "llm")
    from compiler.jobs.identity import spec_hash
    from compiler.pulumi_resources.provider import owner_labels
    body = {**result.body, "labels": owner_labels(result.body, owner,
                                                   spec_hash(owner, result.body, None))}
    Client().vertex_create("acme-test", "us-central1", body)  # 2 + 16 of 24 in use
    code, out, err = run("quota", "--stack", "dev", path)
    assert code == 0, (out, err)
    assert f"{H100}: need 0, in use 18, limit 24: fits" in out
    assert "kept: llm's running job" in out
    (tmp_path / "llm.yaml").write_text((tmp_path / "llm.yaml").read_text().replace(
        "trainer:1", "trainer:2"))
    code, out, err = run("quota", "--stack", "dev", path)
    assert code == 0, (out, err)
    assert f"{H100}: need 16, in use 2, limit 24: fits" in out  # 18 less the replaced 16


def test_quota_says_over_and_exits_by_how_sure_the_metric_is(emulator, tmp_path):
    spec(tmp_path, "h100", H100_POOLS, "FLEX_START")
    spec(tmp_path, "h100-b", H100_POOLS, "SPOT")
    code, out, _ = run("quota", str(tmp_path))
    assert code == 1 and f"{H100}: need 32, in use 2, limit 24: over by 10" in out
    (tmp_path / "a").mkdir()
    path = spec(tmp_path / "a", "a", A100_POOLS.replace("count: 4", "count: 8"))  # 8 > 6
    code, out, err = run("quota", path)
    assert code == 3, (out, err)  # over on a metric whose name is not verified: a warning
    assert f"{A100}: need 8, in use 0, limit 6: over by 2" in out
    assert ": warning: " in err and err.rstrip().endswith("[quota-unverified]")
    code, out, err = run("quota", "--strict", path)
    assert code == 1 and ": error: " in err and err.rstrip().endswith("[quota-unverified]")
    (tmp_path / "a" / "trainspec.yaml").write_text("severity:\n  quota-unverified: error\n")
    code, out, err = run("quota", path)
    assert code == 1 and ": error: " in err and err.rstrip().endswith("[quota-unverified]")


def test_the_preview_follows_the_repo_configs_severity_for_quota_unverified(emulator, tmp_path):
    from compiler import plan
    from compiler.provider import capacity

    path = spec(tmp_path, "a", A100_POOLS.replace("count: 4", "count: 8"))  # 8 of 6
    result = pipeline.compile_file(path)
    inputs = {"platform": "vertex", "project": "acme-test", "region": "us-central1",
              "request": result.body, "specFile": path, "sourceMap": source_map(result)}
    failures, warnings, _ = capacity.Ledger().check("urn:a", {}, inputs, plan.CREATE,
                                                    emulator.url, None)
    assert failures == [] and warnings[0].endswith("[quota-unverified]")
    (tmp_path / "trainspec.yaml").write_text("severity:\n  quota-unverified: error\n")
    failures, warnings, _ = capacity.Ledger().check("urn:a", {}, inputs, plan.CREATE,
                                                    emulator.url, None)
    ((prop, reason),) = failures
    assert prop == "specFile" and ": error: " in reason and reason.endswith("[quota-unverified]")
    assert warnings == []
