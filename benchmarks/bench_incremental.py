"""Benchmark: a pull request's check of a big specs repository with one spec changed, warm cache.

N generated specs (bench_compile.py's, default 10,000) and their compiled requests; the result
cache is filled by one run (as CI restores it from the base branch's run), one spec is changed,
then the checks the generated workflow runs (compiler/_templates/github-workflow.yml) run:
`validate --format github --report sarif=FILE` and `compile --out --check`, both with
`--cache`. Their CPU time (user + system, worker processes included) and wall time are printed
as a ratio to the whole-tree floor (bench_compile.py's: PyYAML's C loader + json.dumps + write
of every spec) measured in the same run. Target (issue 23): <= 0.2x. With --verify, the warm
check's output is compared with a cold run's, byte for byte.

    python benchmarks/bench_incremental.py [--specs 10000] [--repeat 3] [--verify]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_compile import FLOOR, generate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGET = 0.2


def timed(argv: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> tuple[float, float, str]:
    """Wall and CPU seconds of `argv` (its processes included) and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok:
        sys.exit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr[-2000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, \
        proc.stdout + proc.stderr


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--specs", type=int, default=10000, help="number of specs (default 10000)")
    p.add_argument("--repeat", type=int, default=3, help="best of N rounds (default 3)")
    p.add_argument("--verify", action="store_true",
                   help="compare the warm check's output with a cold run's")
    args = p.parse_args(argv)
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="trainspec-incr-") as tmp:
        root = Path(tmp)
        generate(root / "specs", args.specs)
        (root / ".git").mkdir()  # the repository's root: configs are looked up to here
        cache = ["--cache", str(root / "cache")]
        timed([py, "-m", "compiler", "compile", "specs", "--out", "compiled"], root)
        fill = timed([py, "-m", "compiler", "validate", "specs", *cache], root)
        changed = sorted((root / "specs").rglob("*.yaml"))[args.specs // 2]
        changed.write_text(changed.read_text().replace("cost-center: cc", "cost-center: pr"))
        subprocess.run([py, "-m", "compiler", "compile", "specs", "--out", "compiled"],
                       cwd=root, check=True, capture_output=True)  # the PR commits it
        checks = {
            "validate": [py, "-m", "compiler", "validate", "specs", "--format", "github",
                         "--report", "sarif=trainspec.sarif", *cache],
            "compile --check": [py, "-m", "compiler", "compile", "specs", "--out", "compiled",
                                "--check", *cache],
        }
        floor_argv = [py, "-c", FLOOR, "specs", str(root / "floor-out")]
        best = {name: (float("inf"), float("inf")) for name in ["floor", *checks]}
        outputs: dict[str, str] = {}
        for _ in range(args.repeat):
            shutil.rmtree(root / "floor-out", ignore_errors=True)
            wall, cpu, _ = timed(floor_argv, root)
            best["floor"] = (min(best["floor"][0], wall), min(best["floor"][1], cpu))
            for name, command in checks.items():
                wall, cpu, outputs[name] = timed(command, root)
                best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
        floor_wall, floor_cpu = best["floor"]
        total_wall = sum(best[n][0] for n in checks)
        total_cpu = sum(best[n][1] for n in checks)
        print(f"{args.specs} specs, 1 changed; cache filled by one validate in "
              f"{fill[0]:.2f} s wall, {fill[1]:.2f} s CPU; best of {args.repeat}")
        print(f"{'':<20}{'wall s':>9}{'cpu s':>9}{'wall x':>9}{'cpu x':>9}")
        for name in best:
            wall, cpu = best[name]
            print(f"{name:<20}{wall:>9.3f}{cpu:>9.3f}{wall / floor_wall:>9.2f}"
                  f"{cpu / floor_cpu:>9.2f}")
        print(f"{'the PR check':<20}{total_wall:>9.3f}{total_cpu:>9.3f}"
              f"{total_wall / floor_wall:>9.2f}{total_cpu / floor_cpu:>9.2f}")
        print(f"target <= {TARGET}x the floor (CPU): "
              f"{'met' if total_cpu / floor_cpu <= TARGET else 'NOT met'}")
        if args.verify:
            sarif = (root / "trainspec.sarif").read_text()
            for name, command in checks.items():
                cold = timed([a for a in command if a not in cache], root)[2]
                same = cold == outputs[name] and (name != "validate" or sarif == (
                    root / "trainspec.sarif").read_text())
                print(f"{name}: warm output {'identical to' if same else 'DIFFERS from'} "
                      "a cold run's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
