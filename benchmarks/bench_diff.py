"""Benchmark: `diff BASE --merge-base --format markdown` (the generated workflow's diff step) in
a big specs repository with one spec changed in the working tree.

N generated specs (bench_compile.py's, default 10,000) are committed on a base branch; a
pull-request branch changes one spec. The diff's CPU time (user + system) and wall time are
printed as a ratio to the whole-tree floor (bench_compile.py's: PyYAML's C loader + json.dumps
+ write of every spec), measured in the same run, interleaved; medians of --repeat rounds:
without a result cache (each spec alike on both sides compiled once) and with the cache the
workflow's validate step fills (TRAINSPEC_CACHE). Target (issue 23): <= 0.2x. With --verify,
each report is compared with a full comparison's (both sides compiled), byte for byte.

    python benchmarks/bench_diff.py [--specs 10000] [--repeat 3] [--verify]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_compile import FLOOR, generate  # noqa: E402
from bench_incremental import timed  # noqa: E402

# Both sides read and compiled in full (diff.review(incremental=False)), as before issue 23.
FULL = """
import sys
from pathlib import Path
from compiler import diff
from compiler.report import REPORTERS
rv = diff.review(Path("."), "main", None, merge_base=True, incremental=False)
sys.stdout.write(REPORTERS["markdown"].review(rv))
sys.exit(rv.exit_code)
"""


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--specs", type=int, default=10000, help="number of specs (default 10000)")
    p.add_argument("--repeat", type=int, default=3, help="median of N rounds (default 3)")
    p.add_argument("--verify", action="store_true",
                   help="compare the report with a full comparison's")
    args = p.parse_args(argv)
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="trainspec-diff-") as tmp:
        root = Path(tmp)
        generate(root / "specs", args.specs)
        _git(root, "init", "-q", "-b", "main")
        _git(root, "add", "-A")
        _git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base")
        _git(root, "checkout", "-qb", "pr")
        changed = sorted((root / "specs").rglob("*.yaml"))[args.specs // 2]
        changed.write_text(changed.read_text().replace("cost-center: cc", "cost-center: pr"))
        diff = [py, "-m", "compiler", "diff", "main", "--merge-base", "--format", "markdown"]
        cache = ["--cache", str(root / "cache")]
        # as the workflow's validate step leaves it (TRAINSPEC_CACHE) before the diff step
        fill = timed([py, "-m", "compiler", "validate", "specs", *cache], root)
        commands = {"diff": diff, "diff --cache": diff + cache}
        floor_argv = [py, "-c", FLOOR, "specs", str(root / "floor-out")]
        runs: dict[str, list[tuple[float, float]]] = {"floor": [], **{n: [] for n in commands}}
        reports: dict[str, str] = {}
        for _ in range(args.repeat):
            shutil.rmtree(root / "floor-out", ignore_errors=True)
            runs["floor"].append(timed(floor_argv, root)[:2])
            for name, argv in commands.items():
                wall, cpu, reports[name] = timed(argv, root, ok=(2,))
                runs[name].append((wall, cpu))
        median = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
                  for name, r in runs.items()}
        floor_wall, floor_cpu = median["floor"]
        print(f"{args.specs} specs, 1 changed; cache filled by one validate in {fill[0]:.2f} s "
              f"wall, {fill[1]:.2f} s CPU; median of {args.repeat}")
        print(f"{'':<14}{'wall s':>9}{'cpu s':>9}{'wall x':>9}{'cpu x':>9}")
        for name, (wall, cpu) in median.items():
            print(f"{name:<14}{wall:>9.3f}{cpu:>9.3f}{wall / floor_wall:>9.2f}"
                  f"{cpu / floor_cpu:>9.2f}")
        if args.verify:
            full = timed([py, "-c", FULL], root, ok=(2,))
            for name, report in reports.items():
                print(f"{name}: report {'identical to' if full[2] == report else 'DIFFERS from'}"
                      f" a full comparison's ({full[0]:.3f} s wall, {full[1]:.3f} s CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
