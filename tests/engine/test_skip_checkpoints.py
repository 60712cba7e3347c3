"""PULUMI_SKIP_CHECKPOINTS (the engine saves the state once, at the end of an operation, not
after every step): a `pulumi up` killed after some jobs were created and answered leaves a
state that knows none of them, and the next `up` must still end with exactly one job per spec
(docs/pulumi.md "Speed": why trainspec can run without per-step checkpoints)."""

from __future__ import annotations

import threading

from job_specs import HOLD, ml, vertex

NAMES = ("a", "b", "c", "d", "e")


def test_up_killed_without_checkpoints_loses_no_job_and_duplicates_none(project, emulator):
    p = project()
    p.env["PULUMI_SKIP_CHECKPOINTS"] = "true"
    for name in NAMES:
        p.write(f"specs/{name}.yaml", vertex(name=name, labels=HOLD))
    p.write("specs/census.yaml", ml(labels=HOLD))
    answered, stuck, release = [], threading.Event(), threading.Event()
    handle = emulator.api.handle
    lock = threading.Lock()

    def some_answers(method, target, body=b""):
        creating = method == "POST" and target.endswith(("/customJobs", "/jobs"))
        with lock:
            late = creating and len(answered) >= 3
            if creating and not late:
                answered.append(target)
        answer = handle(method, target, body)
        if late:  # created, but `up` never hears of it
            stuck.set()
            release.wait(60)
        return answer

    # Killed a second after: the answered creates are done steps, which a checkpoint would save.
    p.up_killed(emulator, some_answers, stuck, release, settle=1.0)
    created = len(emulator.vertex_jobs()) + len(emulator.ml_jobs())
    assert 4 <= created <= 6
    jobs_in_state = [r for r in p.state().get("resources", [])
                     if r["type"].startswith("trainspec:index:") and r.get("id")]
    assert jobs_in_state == []  # nothing was saved: the next `up` knows none of the jobs

    # The killed `up` left its lock: `pulumi cancel`, as a user does; what it left running is
    # left running (the plugin stops by itself).
    p.run("cancel", "--yes")
    try:
        again = p.up()
        assert len(emulator.vertex_jobs()) == len(NAMES) and len(emulator.ml_jobs()) == 1, \
            again.stdout
        jobs = p.outputs()["jobs"]
        assert sorted(jobs[n]["name"] for n in NAMES) == sorted(emulator.vertex_jobs())
        assert p.up().returncode == 0 and len(emulator.vertex_jobs()) == len(NAMES)
    finally:
        p.kill_strays()  # after the assertions: never between the steps
