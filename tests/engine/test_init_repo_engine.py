"""A repository made by `python -m compiler init`, driven with the real `pulumi`, and the
commands that follow its jobs (`status`, `logs`, `wait`) finding them with no stack flag:
the stack `pulumi stack init` selected is read from the files the Pulumi CLI wrote."""

from __future__ import annotations

import json


def test_pulumi_preview_works_in_a_new_repository(project, emulator):
    p = project(name="ml-jobs", init=True)
    preview = p.run("preview")
    # the stack, the Specs component and the example job
    assert "+ 3 to create" in preview.stdout, preview.stdout
    assert "trainspec:index:VertexCustomJob" in preview.stdout and "example" in preview.stdout
    assert emulator.calls == []


def test_up_then_status_logs_wait_find_the_job_and_a_new_run_keeps_the_old_one(
        project, emulator):
    p = project(name="ml-jobs", init=True)
    before = json.loads(p.trainspec("status", "specs", "--format", "json").stdout)["jobs"][0]
    assert before["exists"] is False and before["stack"] == "organization/ml-jobs/dev"

    p.up()
    (first,) = emulator.vertex_jobs()
    waited = p.trainspec("wait", "specs", "--interval", "0.2s", "--timeout", "2m")
    assert waited.returncode == 0, waited.stdout + waited.stderr
    assert waited.stdout.splitlines()[-1].startswith("all 1 job(s) succeeded")

    status = p.trainspec("status", "specs")
    assert status.returncode == 0, status.stderr
    assert status.stdout.splitlines()[0] == "stack organization/ml-jobs/dev"
    row = status.stdout.splitlines()[2].split()
    assert row[:4] == ["specs/example.yaml", "example", "vertex", "SUCCEEDED"]
    # The job status found is the one `pulumi up` made, and its URL is the stack output's.
    assert p.outputs()["jobs"]["example"]["consoleUrl"] == row[-1]
    assert p.outputs()["jobs"]["example"]["name"] == first

    logs = p.trainspec("logs", "specs/example.yaml")
    assert logs.returncode == 0, logs.stderr
    assert logs.stdout.splitlines()[-1].endswith("Job completed successfully.")
    assert "chief-0" in logs.stdout

    # Re-run the unchanged spec on purpose: a new job, the first run's record kept.
    spec = p.root / "specs" / "example.yaml"
    spec.write_text(spec.read_text().replace("  name: example\n", "  name: example\n  run: 2\n"))
    preview = p.run("preview", "--diff")
    assert "+-1 to replace" in preview.stdout and "run" in preview.stdout
    p.up()
    jobs = emulator.vertex_jobs()
    assert len(jobs) == 2 and jobs[first]["state"] == "JOB_STATE_SUCCEEDED"
    second = next(n for n in jobs if n != first)
    assert {k: v for k, v in jobs[second]["jobSpec"].items()} == jobs[first]["jobSpec"]
    now = json.loads(p.trainspec("status", "specs", "--format", "json").stdout)["jobs"][0]
    assert (now["job"], now["run"], now["current"], now["previousRuns"]) == (second, "2", True, 1)
