"""`pulumi preview / up / refresh / destroy` with the real engine, against the emulator.

Every rule of docs/pulumi.md "Lifecycle" that the engine decides together with the provider.
"""

from __future__ import annotations

import os
import signal
import threading
import time

from faultproxy import FaultProxy
from job_specs import FAIL, HOLD, ml, tuning, vertex

BERT, CENSUS = "specs/bert.yaml", "specs/census.yaml"


def states(jobs: dict) -> list[str]:
    return sorted(j["state"] for j in jobs.values())


def test_preview_calls_no_api_up_creates_each_job_once_and_a_second_up_is_a_no_op(
        project, emulator):
    p = project()
    p.write(BERT, vertex(labels=HOLD))
    p.write(CENSUS, ml(labels=HOLD))

    preview = p.run("preview")
    assert "+ 4 to create" in preview.stdout  # the stack, the Specs component, two jobs
    assert emulator.calls == []  # a preview never submits, nor even reads

    p.up()
    assert len(emulator.requests("POST", "/customJobs HTTP")) == 1
    assert len(emulator.requests("POST", "/jobs HTTP")) == 1
    assert len(emulator.vertex_jobs()) == len(emulator.ml_jobs()) == 1
    out = p.outputs()["jobs"]
    assert out["bert"]["name"].startswith("projects/acme-test/locations/us-central1/customJobs/")
    assert out["census"]["name"] == "projects/acme-test/jobs/census"
    assert "resource.type%3D%22ml_job%22" in out["bert"]["logsUrl"]

    before = len(emulator.calls)
    again = p.up()
    assert "4 unchanged" in again.stdout
    assert emulator.calls[before:] == []


def test_an_edited_spec_cancels_the_old_job_before_creating_the_new_one(project, emulator):
    p = project()
    p.write(BERT, vertex(labels=HOLD))
    p.up()
    (old,) = emulator.vertex_jobs()

    p.write(BERT, vertex(labels=HOLD, steps=20))
    preview = p.run("preview", "--diff")
    assert "+-1 to replace" in preview.stdout
    p.up()

    jobs = emulator.vertex_jobs()
    assert len(jobs) == 2
    new = next(n for n in jobs if n != old)
    assert jobs[old]["state"] == "JOB_STATE_CANCELLED"
    assert jobs[new]["state"] in ("JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING")
    calls = emulator.requests("POST")
    cancel = next(i for i, c in enumerate(calls) if ":cancel" in c)
    second_create = [i for i, c in enumerate(calls) if c.endswith('/customJobs HTTP/1.1" 200 -')][1]
    assert cancel < second_create  # delete before replace: never two generations at once
    assert p.outputs()["jobs"]["bert"]["name"] == new


def test_a_label_change_is_recorded_for_a_vertex_job_and_patches_an_ai_platform_job(
        project, emulator):
    p = project()
    p.write(BERT, vertex(labels=HOLD))
    p.write(CENSUS, ml(labels=HOLD))
    p.up()
    (vertex_old,) = emulator.vertex_jobs()

    p.write(BERT, vertex(labels=HOLD + ", owner: ana"))
    p.write(CENSUS, ml(labels=HOLD + ", owner: ana"))
    p.up()

    vertex_jobs, ml_jobs = emulator.vertex_jobs(), emulator.ml_jobs()
    # A Vertex job's labels cannot change: kept in state for the next run, never a re-run.
    assert list(vertex_jobs) == [vertex_old]
    assert vertex_jobs[vertex_old]["state"] == "JOB_STATE_RUNNING"
    assert list(ml_jobs) == ["projects/acme-test/jobs/census"]  # same job, updated in place
    census = ml_jobs["projects/acme-test/jobs/census"]
    assert census["labels"]["owner"] == "ana" and census["state"] == "RUNNING"
    assert emulator.requests("PATCH", "/jobs/census")


def test_refresh_records_success_and_failure_with_the_failure_message(project, emulator):
    p = project()
    p.write(BERT, vertex())
    p.write(CENSUS, ml(labels=FAIL))
    p.up()
    assert p.outputs()["jobs"]["bert"]["state"] != "JOB_STATE_SUCCEEDED"
    time.sleep(2.5)  # the emulator moves a job one step every 0.5 s

    p.run("refresh", "--yes", "--skip-preview")
    recorded = {r["urn"].rsplit("::", 1)[1]: r["outputs"] for r in p.resources()}
    # The stack's own outputs are the program's: they follow on the next `up`.
    p.up()
    for out in (recorded, p.outputs()["jobs"]):
        assert out["bert"]["state"] == "JOB_STATE_SUCCEEDED" and out["bert"]["error"] == ""
        assert out["census"]["state"] == "FAILED"
        assert "Emulated failure" in out["census"]["error"]


def test_destroy_cancels_running_jobs_and_keeps_their_records(project, emulator):
    p = project()
    p.write(BERT, vertex(labels=HOLD))
    p.write(CENSUS, ml(labels=HOLD))
    p.up()

    p.run("destroy", "--yes", "--skip-preview")
    assert states(emulator.vertex_jobs()) == ["JOB_STATE_CANCELLED"]
    assert states(emulator.ml_jobs()) == ["CANCELLED"]  # destroy waits until it is stopped
    assert not emulator.requests("DELETE")
    assert p.resources() == []


def test_removing_a_spec_cancels_its_job_and_keep_job_records_false_deletes_it(project, emulator):
    p = project()
    p.write(BERT, vertex(labels=HOLD))
    p.write("specs/other.yaml", vertex(name="other", labels=HOLD))
    p.run("config", "set", "keepJobRecords", "false")
    p.up()
    other = p.outputs()["jobs"]["other"]["name"]

    os.remove(p.root / "specs/other.yaml")
    p.up()
    assert other not in emulator.vertex_jobs()  # cancelled, then its record deleted
    assert emulator.requests("POST", ":cancel") and emulator.requests("DELETE")
    assert states(emulator.vertex_jobs()) == ["JOB_STATE_RUNNING"]


def kill_mid_create(p, emulator) -> None:
    """`pulumi up` killed once the API has taken a job's POST, before it answers."""
    created, release = threading.Event(), threading.Event()
    handle = emulator.api.handle

    def slow_answers(method, target, body=b""):
        answer = handle(method, target, body)
        if method == "POST" and target.endswith(("/customJobs", "/jobs")):
            created.set()
            release.wait(60)  # the job exists; `up` waits for an answer that never comes
        return answer

    emulator.api.handle = slow_answers
    up = p.popen("up", "--yes", "--skip-preview")
    try:
        assert created.wait(120), up.stdout.read() if up.poll() is not None else "no create"
        time.sleep(0.5)
        os.killpg(up.pid, signal.SIGKILL)
        up.wait(30)
    finally:
        emulator.api.handle = handle
        release.set()


def test_up_killed_mid_create_and_run_again_ends_with_one_job_per_spec(project, emulator):
    p = project()
    for name in ("a", "b", "c"):
        p.write(f"specs/{name}.yaml", vertex(name=name, labels=HOLD))
    p.write(CENSUS, ml(labels=HOLD))
    kill_mid_create(p, emulator)
    assert 1 <= len(emulator.vertex_jobs()) + len(emulator.ml_jobs()) <= 4

    # The killed `up` left its lock behind: `pulumi cancel` is the documented way out. What it
    # left running is left running (test_killed_up.py: the provider stops by itself).
    p.run("cancel", "--yes")
    try:
        again = p.up()
        assert len(emulator.vertex_jobs()) == 3 and len(emulator.ml_jobs()) == 1, again.stdout
        out = p.outputs()["jobs"]
        assert sorted(out[n]["name"] for n in "abc") == sorted(emulator.vertex_jobs())
    finally:
        p.kill_strays()


def test_an_invalid_spec_fails_preview_with_its_location_and_submits_nothing(project, emulator):
    p = project()
    p.write(BERT, vertex())
    p.write("specs/bad.yaml", vertex(name="bad").replace("n1-standard-4", "n1-standard-5"))
    p.write("specs/leak.yaml", vertex(name="leak") + "  env: {TOKEN: {secret: gcp:credentials}}\n")

    for command in (("preview",), ("up", "--yes", "--skip-preview")):
        proc = p.run(*command, check=False)
        text = proc.stdout + proc.stderr
        assert proc.returncode != 0
        assert "specs/bad.yaml:11:26" in text and "n1-standard-5" in text
        assert "specs/leak.yaml:12:25" in text and "gcp:credentials" in text
        assert "Traceback" not in text
    assert emulator.calls == []


def test_two_projects_with_a_dev_stack_each_get_and_keep_their_own_job(project, emulator):
    ours, theirs = project(name="team-a", folder="a"), project(name="team-b", folder="b")
    for p in (ours, theirs):
        p.write(BERT, vertex(labels=HOLD))
        p.up()
    mine, other = ours.outputs()["jobs"]["bert"]["name"], theirs.outputs()["jobs"]["bert"]["name"]
    assert mine != other and len(emulator.vertex_jobs()) == 2  # same spec and stack: two jobs

    ours.run("destroy", "--yes", "--skip-preview")
    jobs = emulator.vertex_jobs()
    assert jobs[other]["state"] == "JOB_STATE_RUNNING"
    assert jobs[mine]["state"] == "JOB_STATE_CANCELLED"


def test_protect_refuses_destroy_and_retain_on_delete_leaves_the_job_running(project, emulator):
    # A project not named trainspec: `pulumi config set KEY` writes ml-jobs:KEY, and the program
    # reads settings there too; secrets only ever from trainspec:.
    p = project(name="ml-jobs")
    p.write(BERT, vertex(labels=HOLD) + "  env: {WANDB_API_KEY: {secret: wandbApiKey}}\n")
    p.write(CENSUS, ml(labels=HOLD))
    p.run("config", "set", "--path", "protect[0]", "bert")
    p.run("config", "set", "--path", "retainOnDelete[0]", "census")
    p.run("config", "set", "--secret", "trainspec:wandbApiKey", "s3cr3t-from-ml-jobs")
    p.up()
    (bert,) = emulator.vertex_jobs().values()
    env = bert["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"]
    assert {"name": "WANDB_API_KEY", "value": "s3cr3t-from-ml-jobs"} in env

    refused = p.run("destroy", "--yes", "--skip-preview", check=False)
    assert refused.returncode != 0 and "protected" in refused.stdout + refused.stderr
    p.run("config", "rm", "protect")
    p.up()
    p.run("destroy", "--yes", "--skip-preview")
    assert states(emulator.ml_jobs()) == ["RUNNING"]  # retained: Pulumi forgot it
    assert states(emulator.vertex_jobs()) == ["JOB_STATE_CANCELLED"]

    p.run("config", "set", "--path", "protect[0]", "nosuchjob")
    bad = p.run("preview", check=False)
    assert bad.returncode != 0 and "trainspec:protect: no spec has metadata.name 'nosuchjob'" \
        in bad.stdout + bad.stderr


def test_create_answers_lost_on_the_way_back_still_give_one_job(project, emulator):
    for drop in ("first", "every"):
        with FaultProxy(emulator.url, drop=drop) as proxy:
            p = project(folder=f"repo-{drop}", endpoint=proxy.url)
            p.write(BERT, vertex(name=f"bert-{drop}", labels=HOLD))
            p.write(CENSUS, ml(name=f"census-{drop}", labels=HOLD))
            p.up()
            assert proxy.dropped == (1 if drop == "first" else 2)
            out = p.outputs()["jobs"]
        vertex_jobs = [n for n, j in emulator.vertex_jobs().items()
                       if j["displayName"] == f"bert-{drop}"]
        assert vertex_jobs == [out[f"bert-{drop}"]["name"]]
        assert f"projects/acme-test/jobs/census_{drop}" in emulator.ml_jobs()


def test_a_404_from_a_wrong_endpoint_is_an_error_never_a_deleted_job(project, emulator):
    p = project()
    p.write(BERT, vertex(labels=HOLD))
    p.up()
    name = p.outputs()["jobs"]["bert"]["name"]

    p.env["TRAINSPEC_API_ENDPOINT"] = emulator.url + "/not-the-api"
    for command in (("refresh", "--yes", "--skip-preview"), ("destroy", "--yes", "--skip-preview")):
        proc = p.run(*command, check=False)
        text = proc.stdout + proc.stderr
        assert proc.returncode != 0, text
        assert "HTTP 404" in text and "Traceback" not in text
    assert [r["id"] for r in p.resources()] == [name]  # still tracked
    assert emulator.vertex_jobs()[name]["state"] == "JOB_STATE_RUNNING"


def test_a_tuning_job_is_created_once_refreshed_with_its_best_trial_and_cancelled(
        project, emulator):
    p = project()
    p.write("specs/ads-hpt.yaml", tuning(labels=HOLD))  # the last wave of trials stays running
    p.up()
    assert len(emulator.requests("POST", "/hyperparameterTuningJobs HTTP")) == 1
    assert emulator.requests("POST", "/customJobs HTTP") == []
    (name,) = emulator.tuning_jobs()
    assert name.startswith("projects/acme-test/locations/us-central1/hyperparameterTuningJobs/")
    assert p.outputs()["jobs"]["ads-hpt"]["name"] == name
    (resource,) = p.resources()
    assert resource["type"] == "trainspec:index:VertexHyperparameterTuningJob"

    time.sleep(2.5)  # 0.5 s steps: queued, pending, the first wave of 2 trials done
    p.run("refresh", "--yes", "--skip-preview")
    (resource,) = p.resources()
    outs = resource["outputs"]
    assert outs["state"] == "JOB_STATE_RUNNING"
    assert outs["trialCount"] == 4 and outs["succeededTrials"] == 2
    best = outs["bestTrial"]
    live = emulator.tuning_jobs()[name]["trials"]
    done = [t for t in live if t["state"] == "SUCCEEDED"]
    top = max(done, key=lambda t: t["finalMeasurement"]["metrics"][0]["value"])
    assert best["id"] == top["id"] and set(best["parameters"]) == {"lr", "optimizer"}
    p.up()  # the stack's exports follow the refreshed outputs
    assert p.outputs()["jobs"]["ads-hpt"]["bestTrial"]["id"] == top["id"]

    p.run("destroy", "--yes", "--skip-preview")
    assert emulator.tuning_jobs()[name]["state"] == "JOB_STATE_CANCELLED"
    assert len(emulator.requests("POST", f"{name}:cancel")) == 1
    assert not emulator.requests("DELETE")  # records are kept by default
    assert p.resources() == []


def test_a_spec_turned_into_a_tuning_job_cancels_the_old_job_first(project, emulator):
    """kind (or platform) changes the resource type: an alias keeps it one resource, so the
    change is a delete-before-replace like any other, not a new job beside the old one."""
    p = project()
    p.write("specs/ads-hpt.yaml", vertex(name="ads-hpt", labels=HOLD))
    p.up()
    (old,) = emulator.vertex_jobs()
    p.write("specs/ads-hpt.yaml", tuning(labels=HOLD))
    preview = p.run("preview")
    assert "+-1 to replace" in preview.stdout
    p.up()
    assert emulator.vertex_jobs()[old]["state"] == "JOB_STATE_CANCELLED"
    (new,) = emulator.tuning_jobs()
    calls = emulator.requests("POST")
    cancel = next(i for i, c in enumerate(calls) if f"{old}:cancel" in c)
    create = next(i for i, c in enumerate(calls) if "/hyperparameterTuningJobs HTTP" in c)
    assert cancel < create
    (resource,) = p.resources()
    assert resource["type"].endswith(":VertexHyperparameterTuningJob") and resource["id"] == new


def rename_bert(p, emulator) -> str:
    """Apply bert, rename its metadata.name to bert-v2 and apply again: the preview says
    replace, the old job is cancelled before the new one is submitted. The new job's name."""
    p.write(BERT, vertex(name="bert", labels=HOLD))
    p.up()
    (old,) = emulator.vertex_jobs()
    p.write(BERT, vertex(name="bert-v2", labels=HOLD))
    preview = p.run("preview", "--diff")
    assert "+-1 to replace" in preview.stdout and "to create" not in preview.stdout
    p.up()
    jobs = emulator.vertex_jobs()
    (new,) = [n for n in jobs if n != old]
    assert jobs[old]["state"] == "JOB_STATE_CANCELLED"
    calls = emulator.requests("POST")
    cancel = next(i for i, c in enumerate(calls) if f"{old}:cancel" in c)
    creates = [i for i, c in enumerate(calls) if c.endswith('/customJobs HTTP/1.1" 200 -')]
    assert cancel < creates[1]  # delete before create: never two generations at once
    assert list(p.outputs()["jobs"]) == ["bert-v2"] and p.outputs()["jobs"]["bert-v2"]["name"] == new
    return new


def test_renaming_metadata_name_cancels_the_old_job_before_creating_the_new_one(
        project, emulator):
    p = project()
    new = rename_bert(p, emulator)
    before = len(emulator.calls)
    assert "3 unchanged" in p.up().stdout and emulator.calls[before:] == []  # nothing left over
    p.run("destroy", "--yes", "--skip-preview")
    assert emulator.vertex_jobs()[new]["state"] == "JOB_STATE_CANCELLED"


def test_a_spec_rolled_back_to_an_earlier_generation_submits_a_new_job(project, emulator):
    """A replace never adopts a job of an earlier generation: rolling a spec back to a request
    that already ran (its job finished, same owner and specHash labels) submits a new job, as
    preview and diff say. Only the retried create of the same replace adopts (below)."""
    p = project()
    p.write(BERT, vertex())
    p.up()
    (first,) = emulator.vertex_jobs()
    p.write(BERT, vertex(steps=20))
    p.up()
    p.write(BERT, vertex())  # back to the first request: same specHash as the first job
    preview = p.run("preview", "--diff")
    assert "+-1 to replace" in preview.stdout
    p.up()
    jobs = emulator.vertex_jobs()
    assert len(emulator.requests("POST", "/customJobs HTTP")) == 3 and len(jobs) == 3
    name = p.outputs()["jobs"]["bert"]["name"]
    assert name not in (first,) and name in jobs
    before = len(emulator.calls)
    assert "3 unchanged" in p.up().stdout and emulator.calls[before:] == []
    p.write(BERT, vertex().replace("  name: bert\n", "  name: bert\n  run: 2\n"))
    p.up()
    p.write(BERT, vertex())  # the run removed: the spec hash of the first and third jobs
    p.up()
    assert len(emulator.requests("POST", "/customJobs HTTP")) == 5
    assert p.outputs()["jobs"]["bert"]["name"] not in (first, name)


def test_a_rollback_killed_mid_create_adopts_its_own_job_when_run_again(project, emulator):
    """The retried create of a replace adopts the job its interrupted attempt made, and only
    that one: not the first generation's finished job with the same spec hash."""
    p = project()
    p.write(BERT, vertex())
    p.up()
    p.write(BERT, vertex(steps=20))
    p.up()
    p.write(BERT, vertex())
    kill_mid_create(p, emulator)
    assert len(emulator.vertex_jobs()) == 3
    p.run("cancel", "--yes")
    try:
        p.up()
        jobs = emulator.vertex_jobs()
        assert len(jobs) == 3 and len(emulator.requests("POST", "/customJobs HTTP")) == 3
        assert p.outputs()["jobs"]["bert"]["name"] == max(
            jobs, key=lambda n: jobs[n]["createTime"])
    finally:
        p.kill_strays()


def test_an_ai_platform_run_removed_is_refused_by_preview_when_its_jobid_was_used(
        project, emulator):
    """metadata.run removed or lowered names a jobId an earlier run has: the provider's check
    reads it, so preview refuses (located, with the way out) and `up` cancels nothing."""
    p = project()
    p.write(CENSUS, ml())  # it succeeds: the same request as the last spec below
    p.up()
    p.write(CENSUS, ml(labels=HOLD).replace("  name: census\n", "  name: census\n  run: 2\n"))
    p.up()
    assert sorted(emulator.ml_jobs()) == ["projects/acme-test/jobs/census",
                                          "projects/acme-test/jobs/census_run_2"]
    p.write(CENSUS, ml())  # the run removed: jobId census again, its finished job's
    preview = p.run("preview", check=False)
    assert preview.returncode != 0
    text = preview.stdout + preview.stderr
    assert "the AI Platform jobId 'census' is taken by an earlier run of this job" in text
    assert "bump metadata.run past every earlier run" in text and "[ml-job-immutable]" in text
    before = len(emulator.calls)
    assert p.up(check=False).returncode != 0
    assert not [c for c in emulator.calls[before:] if ":cancel" in c or "POST" in c]
    assert emulator.ml_jobs()["projects/acme-test/jobs/census_run_2"]["state"] == "RUNNING"
