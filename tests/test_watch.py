"""`status`, `logs`, `wait` and `cancel` against the emulator.

Jobs are submitted by the Pulumi provider classes themselves (so they carry exactly the labels
a `pulumi up` stamps); the emulator and the commands share one fake clock, so following a job
from QUEUED to its end takes no real time.
"""

from __future__ import annotations

import datetime
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from job_specs import FAIL, HOLD, ml, vertex
from job_specs import tuning as vertex_tuning

from compiler import cli, model, pipeline
from compiler import pulumi_resources as pr
from compiler.cloud import jobs as cloud_jobs
from compiler.cloud.emulator import serve
from compiler.cloud.rest import ApiError, Client
from compiler.jobs import identity as ident
from compiler.jobs import log as joblog
from compiler.jobs import track, watch, workspace
from compiler.options import Options

ROOT = Path(__file__).resolve().parent.parent
STEP = 10.0  # emulator seconds per state step


def tuning(name: str) -> str:
    """An ml hyperparameter tuning job with interactive shells."""
    return ml(name).replace("  platform: ai-platform\n", "  platform: ai-platform\n"
                            "  enableWebAccess: true\n") + (
        "  aiPlatform:\n"
        "    hyperparameters:\n"
        "      goal: MINIMIZE\n"
        "      hyperparameterMetricTag: loss\n"
        "      maxTrials: 4\n"
        "      params:\n"
        "        - {parameterName: lr, type: DOUBLE, minValue: 0.001, maxValue: 0.1}\n")


class FakeClock:
    def __init__(self, now: float = 1_700_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class World:
    def __init__(self, root: Path, server, clock: FakeClock):
        self.root, self.server, self.clock = root, server, clock
        self.client = Client(endpoint=server.url)

    def spec(self, name: str, text: str | None = None, labels: str = "") -> str:
        """specs/NAME.yaml: `text`, else a Vertex job with a chief and two workers."""
        path = self.root / "specs" / f"{name}.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(text or vertex(name, labels=labels, workers=2))
        return f"specs/{name}.yaml"

    def submit(self, spec: str, stack: str = "dev", project: str = "trainspec") -> str:
        """What `pulumi up` does for this spec: the provider's create, labels and all."""
        r = pipeline.compile_file(spec, Options(project="acme-test", region="us-central1"))
        assert r.ok, [d.format() for d in r.diagnostics]
        owner = ident.identity("organization", project, stack, r.job.name)
        props = {"request": r.body, "platform": r.job.platform, "project": r.job.project,
                 "region": r.job.region, "identity": owner, "specFile": r.file,
                 "run": r.job.run, "specHash": ident.spec_hash(owner, r.body, r.job.run),
                 "sourceMap": {}, "keepJobRecords": True, "secretEnv": {}}
        provider = (pr.AiPlatformJobProvider() if r.job.platform == "ai-platform"
                    else pr.VertexHyperparameterTuningJobProvider()
                    if r.job.kind == "HyperparameterTuningJob" else pr.VertexCustomJobProvider())
        return provider.create(props).id

    def cancel(self, name: str) -> None:
        (self.client.vertex_cancel if "/locations/" in name else self.client.ml_cancel)(name)


@pytest.fixture
def world(tmp_path, monkeypatch):
    clock = FakeClock()
    server, _ = serve(clock=clock, progress_seconds=STEP)
    for key in list(os.environ):
        if key.startswith(("PULUMI_", "TRAINSPEC_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", server.url)
    monkeypatch.setenv("PULUMI_HOME", str(tmp_path / "pulumi-home"))  # no selected stack
    monkeypatch.setattr(watch, "sleep", clock.advance)
    monkeypatch.setattr(watch, "monotonic", clock)
    monkeypatch.setattr(watch, "utcnow", lambda: datetime.datetime.fromtimestamp(
        clock.now, datetime.timezone.utc))
    root = tmp_path / "repo"
    root.mkdir()
    (root / "Pulumi.yaml").write_text("name: trainspec\nruntime: python\n")
    (root / "Pulumi.dev.yaml").write_text("config:\n  gcp:project: acme-test\n"
                                          "  gcp:region: us-central1\n")
    monkeypatch.chdir(root)
    yield World(root, server, clock)
    server.shutdown()
    server.server_close()


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        code = cli.main(list(argv), out, err)
    except SystemExit as exc:  # argparse: a usage error (its message went to sys.stderr)
        return int(exc.code or 0), out.getvalue(), "usage error"
    return code, out.getvalue(), err.getvalue()


def status_json(*paths: str) -> dict[str, dict]:
    code, out, err = run("status", *paths, "--stack", "dev", "--format", "json")
    assert code == 0, err
    return {j["name"]: j for j in json.loads(out)["jobs"]}


# --- status --------------------------------------------------------------------------------------

def test_status_of_many_specs_succeeded_failed_cancelled_and_not_submitted(world):
    ok, bad, gone = world.spec("bert"), world.spec("bert-fail", labels=FAIL), world.spec(
        "bert-held", labels=HOLD)
    census, fresh = world.spec("census", ml("census")), world.spec("census-new", ml("census-new"))
    ids = {s: world.submit(s) for s in (ok, bad, gone, census)}
    world.clock.advance(2.5 * STEP)
    world.cancel(ids[gone])
    world.clock.advance(2 * STEP)

    code, out, err = run("status", "specs", "--stack", "dev")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "stack organization/trainspec/dev"
    assert lines[1].split() == ["SPEC", "JOB", "PLATFORM", "STATE", "STARTED", "DURATION",
                                "CONSOLE"]
    rows = {line.split()[1]: line.split() for line in lines[2:7]}
    assert rows["bert"][2:4] == ["vertex", "SUCCEEDED"] and rows["bert"][6] == "10s"
    assert rows["bert"][7] == cloud_jobs.vertex_console_url(ids[ok], "acme-test")
    assert rows["bert-fail"][3] == "FAILED"
    assert rows["bert-held"][3] == "CANCELLED"
    assert rows["census"][2:4] == ["ai-platform", "SUCCEEDED"]
    assert rows["census-new"][2:] == ["ai-platform", "NOT", "SUBMITTED", "-", "-", "-"]
    assert any(line.startswith("1 spec(s) have no job in this stack yet: `pulumi up` submits "
                               "them (a stack or project renamed") for line in lines)
    assert f"bert-fail: {ids[bad]}" in lines
    assert "  error     Emulated failure (label emulator-result)." in lines
    assert "  error     CANCELED" in lines

    jobs = status_json("specs")
    assert jobs["census-new"] == {
        "spec": fresh, "name": "census-new", "platform": "ai-platform", "project": "acme-test",
        "stack": "organization/trainspec/dev",
        "identity": ident.identity("organization", "trainspec", "dev", "census-new"),
        "generation": jobs["census-new"]["generation"], "run": None, "exists": False}
    b = jobs["bert"]
    assert (b["job"], b["state"], b["apiState"], b["final"], b["current"]) == (
        ids[ok], "SUCCEEDED", "JOB_STATE_SUCCEEDED", True, True)
    assert b["durationSeconds"] == STEP and b["error"] is None
    assert b["logsUrl"] == cloud_jobs.logs_url(ids[ok], "acme-test")
    assert jobs["bert-fail"]["error"] == "Emulated failure (label emulator-result)."
    assert jobs["census"]["consoleUrl"] == cloud_jobs.ml_console_url(ids[census], "acme-test")


def test_running_job_duration_web_access_and_tuning_trials(world):
    spec = world.spec("tune", tuning("tune"))
    world.submit(spec)
    world.clock.advance(2.5 * STEP)
    job = status_json(spec)["tune"]
    assert job["state"] == "RUNNING" and job["durationSeconds"] == 0.5 * STEP
    assert list(job["webAccessUris"]) == ["master-replica-0"]
    trials = job["trials"]
    assert (trials["completed"], trials["max"], trials["goal"], trials["metric"]) == (
        2, 4, "MINIMIZE", "loss")
    # MINIMIZE: the best trial is the one with the lowest objective value reported so far.
    api_trials = world.client.ml_get("projects/acme-test/jobs/tune")["trainingOutput"]["trials"]
    lowest = min(api_trials, key=lambda t: t["finalMetric"]["objectiveValue"])
    assert trials["best"]["trialId"] == lowest["trialId"]
    code, out, _ = run("status", spec, "--stack", "dev")
    assert "  shell     chief-0    https://" in out
    assert f"  trials    2 of 4 completed; best trial {lowest['trialId']}: loss" in out


def test_a_vertex_tuning_job_shows_its_trials_and_best_trial_and_is_waited_for(world):
    spec = world.spec("ads-hpt", vertex_tuning("ads-hpt"))  # 4 trials, 2 at a time, auc maximize
    name = world.submit(spec)
    assert "/hyperparameterTuningJobs/" in name
    world.clock.advance(3.5 * STEP)  # RUNNING: the first wave of two trials has ended
    job = status_json(spec)["ads-hpt"]
    assert (job["job"], job["state"]) == (name, "RUNNING")
    assert job["consoleUrl"] == cloud_jobs.tuning_console_url(name, "acme-test")
    trials = job["trials"]
    assert (trials["completed"], trials["max"], trials["goal"], trials["metric"]) == (
        2, 4, "MAXIMIZE", "auc")
    done = [t for t in world.client.vertex_get(name)["trials"] if t["state"] == "SUCCEEDED"]
    top = max(done, key=lambda t: t["finalMeasurement"]["metrics"][0]["value"])
    assert trials["best"] == {
        "trialId": top["id"], "objectiveValue": top["finalMeasurement"]["metrics"][0]["value"],
        "hyperparameters": {p["parameterId"]: p["value"] for p in top["parameters"]}}
    code, out, _ = run("status", spec, "--stack", "dev")
    assert f"  trials    2 of 4 completed; best trial {top['id']}: auc" in out
    code, out, err = run("wait", spec, "--stack", "dev", "--interval", f"{STEP}s")
    assert (code, err) == (0, "") and out.splitlines()[-1].startswith("all 1 job(s) succeeded")
    assert status_json(spec)["ads-hpt"]["trials"]["completed"] == 4


def test_vertex_tensorboard_and_dashboard_links(world):
    spec = world.spec("board")
    text = (world.root / spec).read_text().replace(
        "spec:\n", "spec:\n  serviceAccount: t@acme-test.iam.gserviceaccount.com\n"
        "  vertex:\n    tensorboard: projects/123/locations/us-central1/tensorboards/77\n"
        "    enableDashboardAccess: true\n", 1)
    (world.root / spec).write_text(text)
    name = world.submit(spec)
    world.clock.advance(2.5 * STEP)
    job = status_json(spec)["board"]
    assert job["tensorboardUrl"] == ("https://us-central1.tensorboard.googleusercontent.com/"
                                     "experiment/projects+123+locations+us-central1+tensorboards+"
                                     f"77+experiments+{name.rsplit('/', 1)[1]}")
    assert sorted(job["webAccessUris"]) == ["workerpool0-0", "workerpool1-0", "workerpool1-1"]


def test_another_stacks_or_projects_job_is_never_this_specs(world):
    spec = world.spec("bert")
    world.submit(spec, stack="prod")
    world.submit(spec, project="other-project")
    assert status_json(spec)["bert"]["exists"] is False
    code, _, err = run("status", spec, "--stack", "prod")  # no Pulumi.prod.yaml: no gcp:project
    assert code == 1 and ("specs/bert.yaml:6:1: error: $.spec: no project: set spec.project or "
                          "`pulumi config set gcp:project ...`") in err
    prod = json.loads(run("status", spec, "--stack", "prod", "--project", "acme-test", "--region",
                          "us-central1", "--format", "json")[1])["jobs"][0]
    assert prod["exists"] is True and prod["stack"] == "organization/trainspec/prod"
    # Qualified names and --org choose the organization.
    code, out, _ = run("status", spec, "--stack", "acme/dev", "--format", "json")
    assert json.loads(out)["jobs"][0]["exists"] is False
    code, _, err = run("status", spec, "--stack", "acme/otherproj/dev")
    assert code == 1 and "is a stack of project 'otherproj'" in err


def test_an_edited_spec_says_its_job_is_an_older_version_and_a_rerun_keeps_history(world):
    spec = world.spec("bert")
    world.submit(spec)
    path = world.root / spec
    path.write_text(path.read_text().replace("bert:1", "bert:2"))
    job = status_json(spec)["bert"]
    assert job["exists"] and job["current"] is False
    assert "  note      the spec changed since this job was submitted" in run(
        "status", spec, "--stack", "dev")[1]
    code, out, _ = run("wait", spec, "--stack", "dev", "--interval", "10s")
    assert code == 0 and out.splitlines()[0] == "[     0s] bert: QUEUED  (an earlier version of the spec)"
    path.write_text(path.read_text().replace("  name: bert\n", "  name: bert\n  run: 2\n"))
    world.clock.advance(1)
    second = world.submit(spec)
    job = status_json(spec)["bert"]
    assert (job["job"], job["current"], job["run"], job["previousRuns"]) == (second, True, "2", 1)


def test_status_bad_input_is_located_and_calls_no_api(world):
    world.spec("bert")
    bad = world.root / "specs" / "bad.yaml"
    bad.write_text(vertex("bad", workers=2).replace("replicas: 2", "replicaz: 2"))
    log = []
    world.server.emulator.log = log.append
    code, out, err = run("status", "specs", "missing.yaml", "--stack", "dev")
    assert code == 1 and out == "" and "Traceback" not in err
    assert "missing.yaml: error: $: no such file or directory" in err
    assert "specs/bad.yaml:12:42: error: $.spec.pools.worker.replicaz: unknown key 'replicaz'" in err
    assert log == []  # nothing is asked of the API before every spec is good
    code, _, err = run("status", "specs/bert.yaml")  # no stack anywhere
    assert code == 1 and "no Pulumi stack selected for project 'trainspec'" in err
    code, _, err = run("status", "nothing-here")
    assert code == 1 and "nothing-here: error: $: no such file or directory" in err


def test_api_and_endpoint_failures_are_one_line(world, monkeypatch):
    spec = world.spec("bert")
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "ftp://nowhere")
    code, out, err = run("status", spec, "--stack", "dev")
    assert code == 1 and out == "" and err.startswith("error: TRAINSPEC_API_ENDPOINT must be")
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", world.server.url + "/wrong-prefix")
    code, _, err = run("status", spec, "--stack", "dev")
    assert code == 1 and "an HTML page, not an API answer" in err and "Traceback" not in err


# --- logs ----------------------------------------------------------------------------------------

def test_logs_in_order_with_replica_names_and_only_this_job(world):
    spec, other = world.spec("bert"), world.spec("other")
    name = world.submit(spec)
    world.submit(other)
    world.clock.advance(4 * STEP)
    code, out, err = run("logs", spec, "--stack", "dev")
    assert code == 0
    assert err == f"bert: {name} (SUCCEEDED)\n"
    lines = out.splitlines()
    replicas = [line.split()[1] for line in lines]
    assert replicas[:5] == ["service", "service", "chief-0", "worker-0", "worker-1"]
    assert lines[-1].endswith("service            Job completed successfully.")
    assert len(lines) == 2 + 3 * 5 + 1  # other's lines are not shown
    stamps = [line.split()[0] for line in lines]
    assert stamps == sorted(stamps)
    chief = run("logs", spec, "--stack", "dev", "--replica", "chief")[1].splitlines()
    assert {line.split()[1] for line in chief} == {"chief-0"} and len(chief) == 5
    one = run("logs", spec, "--stack", "dev", "--replica", "worker-1")[1].splitlines()
    assert {line.split()[1] for line in one} == {"worker-1"}
    raw = run("logs", spec, "--stack", "dev", "--replica", "workerpool1-0")[1].splitlines()
    assert {line.split()[1] for line in raw} == {"worker-0"}
    service = run("logs", spec, "--stack", "dev", "--replica", "service")[1].splitlines()
    assert len(service) == 3
    code, _, err = run("logs", spec, "--stack", "dev", "--replica", "coordinator")
    assert code == 1 and "expected one of chief, worker, parameterServer, reductionServer, evaluator" in err


def test_logs_since_shows_only_recent_lines(world, capsys):
    spec = world.spec("census", ml("census"))
    world.submit(spec)
    world.clock.advance(4 * STEP)
    lines = run("logs", spec, "--stack", "dev", "--since", "15s")[1].splitlines()
    assert lines and all("provisioned" not in line for line in lines)
    assert lines[-1].endswith("Job completed successfully.")
    assert {line.split()[1] for line in lines} == {"service", "chief-0"}
    assert run("logs", spec, "--stack", "dev", "--since", "yesterday")[0] == 64  # usage error
    assert "'yesterday' is not a duration" in capsys.readouterr().err


def test_follow_until_the_job_succeeds(world):
    spec = world.spec("bert")
    world.submit(spec)
    code, out, err = run("logs", spec, "--stack", "dev", "--follow", "--interval", "3s")
    assert code == 0
    assert out.splitlines()[0].endswith("Waiting for job to be provisioned.")
    assert out.splitlines()[-1].endswith("Job completed successfully.")
    assert len(out.splitlines()) == 2 + 3 * 5 + 1  # each line once, though polls overlap
    assert err.splitlines()[-1] == "bert: SUCCEEDED"


def test_follow_a_job_that_fails_exits_1(world):
    spec = world.spec("census", ml("census", labels=FAIL))
    world.submit(spec)
    code, out, err = run("logs", spec, "--stack", "dev", "-f", "--interval", "4s")
    assert code == 1
    assert "chief-0            ERROR RuntimeError: emulated failure" in out
    assert out.splitlines()[-1].endswith("service            ERROR Job failed.")
    assert err.splitlines()[-1] == "census: FAILED: Emulated failure (label emulator-result)."


def test_follow_a_job_that_is_cancelled_exits_1(world, monkeypatch):
    spec = world.spec("bert", labels=HOLD)
    name = world.submit(spec)

    def sleep_then_cancel(seconds):
        world.clock.advance(seconds)
        if 2.5 * STEP < world.clock.now - 1_700_000_000.0 < 2.5 * STEP + seconds:
            world.cancel(name)

    monkeypatch.setattr(watch, "sleep", sleep_then_cancel)
    code, out, err = run("logs", spec, "--stack", "dev", "--follow", "--interval", "2s")
    assert code == 1
    assert out.splitlines()[-1].endswith("Job was cancelled.")
    assert "training finished" not in out
    assert err.splitlines()[-1] == "bert: CANCELLED: CANCELED"


def test_logs_of_a_job_not_submitted_and_bad_input(world, capsys):
    spec = world.spec("bert")
    code, out, err = run("logs", spec, "--stack", "dev", "--follow")
    assert (code, out) == (1, "")
    assert err == (f"error: {spec}: 'bert' has no job in stack organization/trainspec/dev yet: "
                   "`pulumi up` submits it\n")
    code, _, err = run("logs", "specs", "--stack", "dev")
    assert code == 1 and "is a folder" in err
    code, _, err = run("logs", "missing.yaml", "--stack", "dev")
    assert code == 1 and "missing.yaml: error: $: no such file or directory" in err
    (world.root / "specs" / "bad.yaml").write_text("apiVersion: trainspec/v1\nkind: TrainingJob\n")
    code, _, err = run("logs", "specs/bad.yaml", "--stack", "dev")
    assert code == 1 and "specs/bad.yaml:1:1: error: $: missing required key 'metadata'" in err
    assert "Traceback" not in err
    assert run("logs", spec, "specs/bad.yaml", "--stack", "dev")[0] == 64  # one SPEC: a usage error
    assert "unrecognized arguments: specs/bad.yaml" in capsys.readouterr().err


def test_ctrl_c_stops_follow_and_wait_quietly(world, monkeypatch):
    spec = world.spec("bert", labels=HOLD)
    world.submit(spec)

    def interrupt(_):
        raise KeyboardInterrupt

    monkeypatch.setattr(watch, "sleep", interrupt)
    code, out, err = run("logs", spec, "--stack", "dev", "--follow")
    assert code == 130 and "Traceback" not in err and "Waiting for job" in out
    code, out, err = run("wait", spec, "--stack", "dev")
    assert code == 130 and "Traceback" not in err and err == ""


@pytest.mark.slow
def test_ctrl_c_on_a_real_process_exits_130_without_a_traceback(tmp_path):
    server, _ = serve(progress_seconds=3600)  # the job stays queued
    try:
        root = tmp_path / "repo"
        (root / "specs").mkdir(parents=True)
        (root / "Pulumi.yaml").write_text("name: trainspec\n")
        (root / "specs" / "bert.yaml").write_text(vertex("bert"))
        env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "TRAINSPEC_"))},
               "TRAINSPEC_API_ENDPOINT": server.url, "PYTHONPATH": str(ROOT),
               "PULUMI_STACK": "dev"}
        r = pipeline.compile_file(str(root / "specs" / "bert.yaml"),
                                  Options(project="acme-test", region="us-central1"))
        owner = ident.identity("organization", "trainspec", "dev", "bert")
        body = {**r.body, "labels": {**r.body["labels"], model.IDENTITY_LABEL: owner}}
        Client(endpoint=server.url).vertex_create("acme-test", "us-central1", body)
        proc = subprocess.Popen([sys.executable, "-m", "compiler", "logs", "specs/bert.yaml",
                                 "--project", "acme-test", "--region", "us-central1", "-f"],
                                cwd=root, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        line = proc.stdout.readline()  # the first log line: it is following now
        assert "Waiting for job to be provisioned." in line or time.monotonic() > deadline
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130
        assert "Traceback" not in err and "KeyboardInterrupt" not in err
    finally:
        server.shutdown()
        server.server_close()


# --- wait ----------------------------------------------------------------------------------------

def test_wait_for_many_jobs_that_all_succeed(world):
    specs = [world.spec("bert"), world.spec("census", ml("census"))]
    for s in specs:
        world.submit(s)
    code, out, err = run("wait", "specs", "--stack", "dev", "--interval", f"{STEP}s")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "[     0s] bert: QUEUED",
        "[     0s] census: QUEUED",
        "[    10s] bert: QUEUED → PENDING",
        "[    10s] census: QUEUED → PREPARING",
        "[    20s] bert: PENDING → RUNNING",
        "[    20s] census: PREPARING → RUNNING",
        "[    30s] bert: RUNNING → SUCCEEDED",
        "[    30s] census: RUNNING → SUCCEEDED",
        "all 2 job(s) succeeded (30s)",
    ]


def test_wait_exits_1_listing_failed_and_cancelled_jobs(world, monkeypatch):
    ok, bad, held = (world.spec("bert"), world.spec("census", ml("census", labels=FAIL)),
                     world.spec("bert-held", labels=HOLD))
    ids = {s: world.submit(s) for s in (ok, bad, held)}

    def sleep_then_cancel(seconds):
        world.clock.advance(seconds)
        if world.clock.now - 1_700_000_000.0 >= 3 * STEP:
            world.cancel(ids[held]) if world.client.vertex_get(ids[held])["state"] == \
                "JOB_STATE_RUNNING" else None

    monkeypatch.setattr(watch, "sleep", sleep_then_cancel)
    code, out, err = run("wait", "specs", "--stack", "dev", "--interval", "5s")
    assert code == 1
    assert "bert-held: CANCELLING → CANCELLED" in out
    assert err.splitlines() == [
        "2 of 3 job(s) did not succeed:",
        f"  bert-held ({held}): CANCELLED: CANCELED",
        f"  census ({bad}): FAILED: Emulated failure (label emulator-result).",
    ]


def test_wait_times_out_with_exit_2(world):
    spec = world.spec("bert", labels=HOLD)
    world.submit(spec)
    code, out, err = run("wait", spec, "--stack", "dev", "--timeout", "1m", "--interval", "25s")
    assert code == 2
    assert out.splitlines()[-1] == "[    25s] bert: QUEUED → RUNNING"
    assert err == "timeout after 1m: still running: bert (RUNNING)\n"
    assert world.clock.now - 1_700_000_000.0 == pytest.approx(60)  # never sleeps past the limit


def test_wait_for_a_job_not_submitted_and_bad_input(world, capsys):
    world.submit(world.spec("bert"))
    fresh = world.spec("census", ml("census"))
    code, out, err = run("wait", "specs", "--stack", "dev")
    assert (code, out) == (1, "")
    assert err == (f"error: {fresh}: 'census' has no job in stack organization/trainspec/dev "
                   "yet: `pulumi up` submits it\n")
    (world.root / "specs" / "census.yaml").write_text(ml("census").replace("machineType",
                                                                           "machineTyp"))
    code, out, err = run("wait", "specs", "missing", "--stack", "dev")
    assert (code, out) == (1, "") and "Traceback" not in err
    assert "missing: error: $: no such file or directory" in err
    assert "specs/census.yaml:12:13: error: $.spec.pools.chief.machineTyp: unknown key" in err
    assert run("wait", "specs", "--stack", "dev", "--timeout", "soon")[0] == 64  # usage error
    assert "'soon' is not a duration" in capsys.readouterr().err


# --- cancel --------------------------------------------------------------------------------------

LIVE_STATES = {"JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING", "JOB_STATE_CANCELLING",
        "QUEUED", "PREPARING", "RUNNING", "CANCELLING"}


def job_state(world, name: str) -> str:
    job = (world.client.ml_get(name) if "/locations/" not in name
           else world.client.vertex_get(name))
    return job["state"]


def recorded_calls(world) -> list[tuple[str, str]]:
    """Record every (method, path) the emulator answers from now on."""
    seen: list[tuple[str, str]] = []
    handle = world.server.emulator.handle

    def recorded(method, target, body=b"", **kw):
        seen.append((method, target.split("?")[0]))
        return handle(method, target, body, **kw)

    world.server.emulator.handle = recorded
    return seen


def test_cancel_stops_every_running_job_of_the_stack_at_once_and_waits(world):
    specs = [world.spec("bert", labels=HOLD), world.spec("gpt", labels=HOLD),
             world.spec("census", ml("census", labels=HOLD)),
             world.spec("ads-hpt", vertex_tuning(labels=HOLD)), world.spec("done")]
    ours = {s: world.submit(s) for s in specs}
    theirs = [world.submit(specs[0], stack="prod"),
              world.submit(specs[0], project="other-project")]
    world.clock.advance(3.5 * 10.0)  # `done` has succeeded; the held ones run
    assert job_state(world, ours[specs[-1]]) == "JOB_STATE_SUCCEEDED"
    seen = recorded_calls(world)

    code, out, err = run("cancel", "specs", "--stack", "dev")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "stack organization/trainspec/dev: 4 running job(s) of 5 spec(s)"
    assert f"cancelling bert (specs/bert.yaml): {ours[specs[0]]} RUNNING" in lines
    assert any(line.endswith("census: CANCELLING → CANCELLED") for line in lines)
    assert lines[-1].startswith("stopped 4 job(s) (")
    for spec in specs[:-1]:
        assert job_state(world, ours[spec]).endswith("CANCELLED")
    assert job_state(world, ours[specs[-1]]) == "JOB_STATE_SUCCEEDED"  # finished: left alone
    assert all(job_state(world, name) == "JOB_STATE_RUNNING" for name in theirs)  # not this stack's
    # Every cancel was sent before the first read of the wait: all at once, then waited for.
    cancels = [i for i, (m, path) in enumerate(seen) if path.endswith(":cancel")]
    first_wait_read = next(i for i, (m, path) in enumerate(seen)
                           if i > cancels[0] and m == "GET" and not path.endswith("Jobs"))
    assert len(cancels) == 4 and max(cancels) < first_wait_read

    code, out, _ = run("cancel", "specs", "--stack", "dev")  # again: nothing left to stop
    assert code == 0 and out.splitlines() == [
        "stack organization/trainspec/dev: 0 running job(s) of 5 spec(s)"]


def test_dry_run_lists_the_jobs_and_cancels_nothing(world):
    spec = world.spec("bert", labels=HOLD)
    name = world.submit(spec)
    seen = recorded_calls(world)
    code, out, _ = run("cancel", spec, "--stack", "dev", "--dry-run")
    assert code == 0
    assert out.splitlines()[1:] == [f"would cancel bert (specs/bert.yaml): {name} QUEUED",
                                    "dry run: nothing was cancelled"]
    assert all(method == "GET" for method, _ in seen)
    assert job_state(world, name) == "JOB_STATE_QUEUED"


def test_bad_input_is_located_and_nothing_is_sent(world):
    world.spec("bert", labels=HOLD)
    (world.root / "specs" / "bad.yaml").write_text(
        vertex("bad", workers=2).replace("replicas: 2", "replicaz: 2"))
    seen = recorded_calls(world)
    code, out, err = run("cancel", "specs", "--stack", "dev")
    assert code == 1 and out == "" and "Traceback" not in err
    assert "specs/bad.yaml:12:42: error: $.spec.pools.worker.replicaz: unknown key 'replicaz'" in err
    assert seen == []
    code, _, err = run("cancel", "specs/bert.yaml")  # no stack selected anywhere
    assert code == 1 and "no Pulumi stack selected for project 'trainspec'" in err


def test_a_refused_cancel_is_one_line_and_exit_1_the_others_are_still_stopped(world):
    refused, other = world.spec("bert", labels=HOLD), world.spec("gpt", labels=HOLD)
    names = {s: world.submit(s) for s in (refused, other)}
    handle = world.server.emulator.handle

    def forbid(method, target, body=b"", **kw):
        if target.endswith(f"{names[refused]}:cancel"):
            return 403, {"error": {"code": 403, "status": "PERMISSION_DENIED",
                                   "message": "Permission 'aiplatform.customJobs.cancel' denied"}}
        return handle(method, target, body, **kw)

    world.server.emulator.handle = forbid
    code, out, err = run("cancel", "specs", "--stack", "dev")
    assert code == 1 and "Traceback" not in err
    assert err.startswith(f"error: specs/bert.yaml: bert: cancelling {names[refused]}: POST ")
    assert "HTTP 403 PERMISSION_DENIED" in err and len(err.splitlines()) == 1
    assert out.splitlines()[-1].startswith("stopped 1 job(s)")
    assert job_state(world, names[other]) == "JOB_STATE_CANCELLED"
    assert job_state(world, names[refused]) in LIVE_STATES


def test_jobs_still_stopping_at_the_timeout_exit_2(world):
    spec = world.spec("bert", labels=HOLD)
    name = world.submit(spec)
    world.server.emulator.cancel_seconds = 3600.0
    code, out, err = run("cancel", spec, "--stack", "dev", "--timeout", "30s")
    assert code == 2 and err == "timeout after 30s: still stopping: bert (CANCELLING)\n"
    assert job_state(world, name) == "JOB_STATE_CANCELLING"
    code, out, _ = run("cancel", spec, "--stack", "dev", "--no-wait")  # cancelled already
    assert code == 0 and out.splitlines()[-1] == "cancel requested for 1 job(s)"


def test_the_commands_never_import_pulumi():
    code = ("import sys; from compiler import cli; "
            "cli.parser().parse_args(['status', 'x']); cli.parser().parse_args(['cancel', 'x']); "
            "assert 'pulumi' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_help_lists_the_commands():
    text = textwrap.dedent(cli.parser().format_help())
    for command in ("status", "logs", "wait", "cancel"):
        assert command in text


def test_a_vertex_job_whose_spec_changed_only_in_labels_is_current(world):
    """`pulumi up` records a Vertex job's new labels for its next run (no re-run): status does
    not call the job an older version of the spec, and any other change still does."""
    spec = world.spec("bert")
    world.submit(spec)
    path = world.root / spec
    path.write_text(path.read_text().replace("labels: {team: nlp", "labels: {team: nlp, "
                                                                    "cost-center: cc-1"))
    assert status_json(spec)["bert"]["current"] is True
    assert "note" not in run("status", spec, "--stack", "dev")[1]
    path.write_text(path.read_text().replace("cost-center: cc-1", "cost-center: cc-1, a: b")
                    .replace("bert:1", "bert:2"))
    assert status_json(spec)["bert"]["current"] is False


def test_an_ml_job_is_also_read_by_its_job_id_when_the_list_cannot_show_it(world):
    spec = world.spec("census", ml("census"))
    world.submit(spec)
    world.submit(world.spec("census-other", ml("census-other")), stack="prod")  # not ours
    listed = []

    class NoListFilter(Client):
        """An API that refuses the labels filter (or lists only the last 90 days)."""

        def ml_list(self, project, filter=None):
            listed.append(filter)
            raise ApiError(400, "Invalid filter.", "INVALID_ARGUMENT")

    stack = workspace.resolve(spec, stack="dev")
    r = track.compile_for(spec, stack)
    found = track.locate(r, stack, NoListFilter(endpoint=world.server.url))
    assert listed and [j["name"] for j in found.jobs] == ["projects/acme-test/jobs/census"]
    assert found.current
    other = track.compile_for("specs/census-other.yaml", stack)
    assert track.locate(other, stack, NoListFilter(endpoint=world.server.url)).jobs == []

    class Broken(Client):
        def ml_list(self, project, filter=None):
            raise ApiError(403, "Permission denied.", "PERMISSION_DENIED")

    with pytest.raises(ApiError):
        track.locate(r, stack, Broken(endpoint=world.server.url))


def test_the_log_reader_shows_each_entry_once_and_late_ones_too():
    def entry(n: int, second: int) -> dict:
        return {"insertId": f"e{n}", "timestamp": f"2024-01-01T00:00:{second:02d}.000000Z",
                "resource": {"labels": {"task_name": "workerpool0-0"}}, "textPayload": f"line {n}"}

    class Script:
        def __init__(self, *pages):
            self.pages, self.filters = list(pages), []

        def log_entries(self, project, filter):
            self.filters.append(filter)
            return self.pages.pop(0)

    client = Script([entry(1, 10), entry(2, 20)],
                    [entry(1, 10), entry(2, 20), entry(3, 30)],
                    [entry(2, 20), entry(4, 15), entry(3, 30)])  # e4 arrived late
    found = track.Found(pipeline.Result("s.yaml"), None, jobs=[
        {"name": "projects/p/locations/r/customJobs/7"}])
    since = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    reader = joblog.LogReader(client, found, since, None)
    seen = [e["insertId"] for _ in range(3) for e in reader.read()]
    assert seen == ["e1", "e2", "e3", "e4"]
    assert client.filters[0].endswith('timestamp>="2024-01-01T00:00:00.000000Z"')
    # Later polls re-read the last minute before the newest entry seen, for late arrivals.
    assert client.filters[1].endswith('timestamp>="2023-12-31T23:59:20.000000Z"')
    assert client.filters[2].endswith('timestamp>="2023-12-31T23:59:30.000000Z"')
    assert client.filters[0].startswith(
        'resource.type="ml_job" AND resource.labels.job_id="7" AND ')
    assert joblog.log_line("vertex", entry(4, 15)) == \
        "2024-01-01T00:00:15.000Z chief-0            line 4"
