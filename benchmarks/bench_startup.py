"""Benchmark: start-up of `trainspec --version` and `validate FILE` as a ratio to the floor.

The floor is `python -c "import yaml, jsonschema"`: the least a command that reads a YAML spec
and checks it against a JSON Schema starts with. Every command is a fresh process, run
interleaved (floor, version, validate, floor, ...) --repeat times; the ratios are of medians,
in wall time and in CPU time (user + system of the child, steadier on a shared machine).
Target (issue 23): both <= 1.5x.

    python benchmarks/bench_startup.py [--repeat 15] [--spec specs/nlp/bert-cpu-smoke.yaml]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.5


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `argv` (it must exit 0)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=15, help="runs of each command (default 15)")
    p.add_argument("--spec", default="specs/nlp/bert-cpu-smoke.yaml",
                   help="the spec `validate` checks")
    args = p.parse_args(argv)
    py = sys.executable
    commands = {
        "floor": [py, "-c", "import yaml, jsonschema"],
        "--version": [py, "-m", "compiler", "--version"],
        "validate": [py, "-m", "compiler", "validate", args.spec],
    }
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for command in commands.values():  # once each: warm the file cache
        timed(command)
    for _ in range(args.repeat):
        for name, command in commands.items():
            runs[name].append(timed(command))
    wall = {n: statistics.median(w for w, _ in r) for n, r in runs.items()}
    cpu = {n: statistics.median(c for _, c in r) for n, r in runs.items()}
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.repeat} interleaved "
          f"runs each, medians")
    print(f"{'command':<12}{'wall s':>9}{'cpu s':>9}{'wall x':>9}{'cpu x':>9}")
    worst = 0.0
    for name in commands:
        ratio_wall, ratio_cpu = wall[name] / wall["floor"], cpu[name] / cpu["floor"]
        if name != "floor":
            worst = max(worst, ratio_cpu)
        print(f"{name:<12}{wall[name]:>9.3f}{cpu[name]:>9.3f}{ratio_wall:>9.2f}{ratio_cpu:>9.2f}")
    print(f"target <= {TARGET}x the floor (CPU): {'met' if worst <= TARGET else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
