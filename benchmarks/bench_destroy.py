"""Benchmark: the emergency stop. Stopping N running jobs as a ratio to stopping one, under the
real engine, against the bundled emulator with cancels that take seconds.

Per way of stopping, two stacks of this repository's Pulumi project (bench_provider.py's: small
Vertex CustomJob specs labelled to run until cancelled), one with N jobs and one with 1, are
brought `up`; then each is stopped and timed. The emulator keeps a cancelled job CANCELLING for
`--cancel-seconds` (3 s by default; a real cancel takes seconds to minutes); every way returns
only once every job has stopped, so stopping one job takes about one cancel (plus the start-up
of the command). Every job must be CANCELLED afterwards. Target (issue 22): N jobs within 3x
the time of one. The ways:

  destroy         `pulumi destroy --parallel N` (the engine's default is 4 per CPU, and each
                  delete holds one of those slots until its job has stopped);
  destroy-skip    the same with PULUMI_SKIP_CHECKPOINTS=true: a file backend rewrites the whole
                  state file after every step, so without it the destroy of N jobs costs O(N^2)
                  in state writes however parallel the deletes are;
  cancel          `trainspec cancel specs` (no Pulumi at all).

Needs the Pulumi CLI on PATH:

    PATH="$(scripts/install-pulumi-cli | tail -n 1):$PATH" python benchmarks/bench_destroy.py [--n 200]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_provider import trainspec_stack
from job_specs import HOLD, vertex

TARGET = 3.0


WAYS = ("destroy", "destroy-skip", "cancel")
SKIP = {"PULUMI_SKIP_CHECKPOINTS": "true"}


def stop(stack, way: str, parallel: int) -> float:
    """Seconds one way of stopping every job of `stack` took (it must succeed)."""
    if way == "cancel":
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "compiler", "cancel", "specs", "--stack",
                               "bench"], cwd=stack.root, env=stack.env, capture_output=True,
                              text=True, timeout=3600)
        if proc.returncode != 0:
            raise SystemExit(f"trainspec cancel exited {proc.returncode}\n{proc.stderr[-3000:]}")
        return time.perf_counter() - start
    saved = dict(stack.env)
    if way == "destroy-skip":
        stack.env.update(SKIP)
    try:
        wall, _cpu = stack.run("destroy", "--yes", "--skip-preview", "--suppress-outputs",
                               "--parallel", str(parallel))
        return wall
    finally:
        stack.env = saved


def running_stack(where: Path, cli: str, endpoint: str, n: int):
    """A stack of this repository's project brought `up` with n jobs that run until cancelled;
    each job's name is unique to it (the same name in another stack of the same name and
    project would be adopted, not created)."""
    stack = trainspec_stack(where, cli, endpoint, n, False)
    for spec in (stack.root / "specs").iterdir():
        spec.write_text(vertex(name=f"{where.name}-{spec.stem}", labels=HOLD))
    stack.env.update(SKIP)  # the set-up is not what is measured
    stack.run("up", "--yes", "--skip-preview", "--suppress-outputs")
    stack.env = {k: v for k, v in stack.env.items() if k not in SKIP}
    return stack


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=200, help="running jobs to stop")
    p.add_argument("--cancel-seconds", type=float, default=3.0,
                   help="how long the emulator keeps a cancelled job CANCELLING")
    p.add_argument("--parallel", type=int, default=None,
                   help="pulumi destroy --parallel (default: N)")
    p.add_argument("--ways", default=",".join(WAYS), help=f"some of {', '.join(WAYS)}")
    p.add_argument("--repeat", type=int, default=1,
                   help="runs of every way (fresh stacks each), medians printed")
    p.add_argument("--keep", action="store_true", help="keep the temporary projects")
    args = p.parse_args(argv)
    parallel = args.parallel or args.n
    ways = [w for w in args.ways.split(",") if w]
    if not ways or set(ways) - set(WAYS):
        p.error(f"--ways: some of {', '.join(WAYS)}")
    cli = shutil.which("pulumi")
    if cli is None:
        p.error('no pulumi on PATH: PATH="$(scripts/install-pulumi-cli | tail -n 1):$PATH"')

    from compiler.cloud.emulator import serve

    server, _ = serve(progress_seconds=0.2, cancel_seconds=args.cancel_seconds)
    tmp = Path(tempfile.mkdtemp(prefix="bench-destroy-"))
    times: dict[tuple[str, int], list[float]] = {(w, n): [] for w in ways for n in (1, args.n)}
    try:
        for r in range(args.repeat):
            stacks = {}
            for way in ways:
                for n in (1, args.n):
                    stacks[way, n] = running_stack(tmp / f"{way}-{n}-{r}", cli, server.url, n)
            time.sleep(1.0)  # every job RUNNING (0.2 s per step; the hold label keeps it there)
            for (way, n), stack in stacks.items():  # interleaved: 1 job, N jobs, next way
                times[way, n].append(stop(stack, way, parallel))
        states = [server.emulator._render_vertex(name)["state"]
                  for name in server.emulator.state["vertex"]]
        stopped = states.count("JOB_STATE_CANCELLED")
        expected = args.repeat * len(ways) * (1 + args.n)
        if stopped != len(states) or len(states) != expected:
            raise SystemExit(f"expected {expected} cancelled jobs: "
                             f"{sorted(set(states))}, {stopped} of {len(states)} cancelled")
    finally:
        server.shutdown()
        server.server_close()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    print(f"jobs: {args.n}  cancel: {args.cancel_seconds:g} s  --parallel {parallel}  "
          f"cores: {os.cpu_count()}  python: {platform.python_version()}  pulumi: "
          f"{subprocess.run([cli, 'version'], capture_output=True, text=True).stdout.strip()}  "
          f"medians of {args.repeat} interleaved run(s)")
    for way in ways:
        one, many = statistics.median(times[way, 1]), statistics.median(times[way, args.n])
        print(f"{way:<13} 1 job {one:8.2f} s   {args.n} jobs {many:8.2f} s   "
              f"ratio {many / one:5.2f}x (target <= {TARGET:g}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
