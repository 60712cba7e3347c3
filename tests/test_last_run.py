"""`explain --last-run`: the spec's last job in the stack (as `status` finds it), how long it
ran × the rate, against the emulator on the status tests' fake clock."""

from __future__ import annotations

from job_specs import h100
from test_watch import STEP, run, world  # noqa: F401 - the emulator, stack and clock fixture


def test_the_last_run_is_priced_by_what_it_ran(world):  # noqa: F811
    spec = world.spec("llm", h100("llm"))
    code, out, err = run("explain", spec, "--last-run", "--stack", "dev")
    assert code == 0, err
    assert "  last run                 none: no job of this spec in stack" in out
    name = world.submit(spec)
    world.clock.advance(10 * STEP)  # QUEUED, PENDING, then RUNNING for one step: 10 s
    code, out, err = run("explain", spec, "--last-run", "--stack", "dev")
    assert code == 0, err
    assert "total                    $101.01/h; at most $2,424.18 for the 1d timeout" in out
    assert f"  last run                 {name} (SUCCEEDED) ran 10s × $101.01/h ≈ $0.28 †" in out


def test_last_run_needs_a_file(world):  # noqa: F811
    code, _, err = run("explain", "-", "--last-run")
    assert code == 1 and "not of standard input" in err
