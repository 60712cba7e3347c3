"""Benchmark: the emergency stop. `pulumi destroy` of N running jobs as a ratio to the destroy of
one, under the real engine, against the bundled emulator with cancels that take seconds.

Two stacks of this repository's Pulumi project (bench_provider.py's: N small Vertex CustomJob
specs labelled to run until cancelled), one with N jobs and one with 1, are brought `up`; then
each is destroyed and timed. The emulator keeps a cancelled job CANCELLING for
`--cancel-seconds` (3 s by default; a real cancel takes seconds to minutes), and destroy returns
only once every job has stopped, so the destroy of one job is about one cancel. Every job must
be CANCELLED afterwards. Target (issue 22): N jobs within 3x the time of one.

`--parallel` is the engine's (`pulumi destroy --parallel`): its default is 4 per CPU, and each
delete holds one of those slots until its job has stopped, so a stop of N jobs at once needs at
least N. Needs the Pulumi CLI on PATH:

    PATH="$(scripts/install-pulumi-cli | tail -n 1):$PATH" python benchmarks/bench_destroy.py [--n 200]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_provider import trainspec_stack
from job_specs import HOLD, vertex

TARGET = 3.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=200, help="running jobs to destroy")
    p.add_argument("--cancel-seconds", type=float, default=3.0,
                   help="how long the emulator keeps a cancelled job CANCELLING")
    p.add_argument("--parallel", type=int, default=None,
                   help="pulumi destroy --parallel (default: N)")
    p.add_argument("--keep", action="store_true", help="keep the temporary projects")
    args = p.parse_args(argv)
    parallel = args.parallel or args.n
    cli = shutil.which("pulumi")
    if cli is None:
        p.error('no pulumi on PATH: PATH="$(scripts/install-pulumi-cli | tail -n 1):$PATH"')

    from compiler.cloud.emulator import serve

    server, _ = serve(progress_seconds=0.2, cancel_seconds=args.cancel_seconds)
    tmp = Path(tempfile.mkdtemp(prefix="bench-destroy-"))
    times = {}
    try:
        stacks = {n: trainspec_stack(tmp / f"jobs-{n}", cli, server.url, n) for n in (1, args.n)}
        # One identity per job: the same name in the same stack name would adopt the other's.
        (stacks[1].root / "specs" / "job-0000.yaml").write_text(vertex(name="one", labels=HOLD))
        for stack in stacks.values():
            stack.run("up", "--yes", "--skip-preview", "--suppress-outputs")
        time.sleep(1.0)  # every job RUNNING (0.2 s per step; the hold label keeps it there)
        for n, stack in stacks.items():
            times[n] = stack.run("destroy", "--yes", "--skip-preview", "--suppress-outputs",
                                 "--parallel", str(parallel))
        states = [server.emulator._render_vertex(name)["state"]
                  for name in server.emulator.state["vertex"]]
        stopped = states.count("JOB_STATE_CANCELLED")
        if stopped != len(states) or len(states) != 1 + args.n:
            raise SystemExit(f"expected {1 + args.n} cancelled jobs: {sorted(set(states))}, "
                             f"{stopped} of {len(states)} cancelled")
    finally:
        server.shutdown()
        server.server_close()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    print(f"jobs: {args.n}  cancel: {args.cancel_seconds:g} s  --parallel {parallel}  "
          f"cores: {os.cpu_count()}  python: {platform.python_version()}  pulumi: "
          f"{subprocess.run([cli, 'version'], capture_output=True, text=True).stdout.strip()}")
    ratio = times[args.n] / times[1]
    print(f"destroy  1 job {times[1]:8.2f} s   {args.n} jobs {times[args.n]:8.2f} s   "
          f"ratio {ratio:5.2f}x (target <= {TARGET:g}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
