"""Benchmark: `diff BASE --merge-base --format markdown` (the generated workflow's diff step) in
a big specs repository with one spec changed in the working tree.

N generated specs (bench_compile.py's, default 10,000) are committed on a base branch; a
pull-request branch changes one spec. The diff's CPU time (user + system) and wall time are
printed as a ratio to the whole-tree floor (bench_compile.py's: PyYAML's C loader + json.dumps
+ write of every spec), measured in the same run, interleaved; medians of --repeat rounds.
Target (issue 23): a small fraction of compiling the tree. With --verify, the report is
compared with a full comparison's (TRAINSPEC_DIFF_FULL=1), byte for byte.

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
        floor_argv = [py, "-c", FLOOR, "specs", str(root / "floor-out")]
        runs: dict[str, list[tuple[float, float]]] = {"floor": [], "diff": []}
        report = ""
        for _ in range(args.repeat):
            shutil.rmtree(root / "floor-out", ignore_errors=True)
            runs["floor"].append(timed(floor_argv, root)[:2])
            wall, cpu, report = timed(diff, root, ok=(2,))
            runs["diff"].append((wall, cpu))
        median = {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
                  for name, r in runs.items()}
        floor_wall, floor_cpu = median["floor"]
        print(f"{args.specs} specs, 1 changed; median of {args.repeat}")
        print(f"{'':<8}{'wall s':>9}{'cpu s':>9}{'wall x':>9}{'cpu x':>9}")
        for name, (wall, cpu) in median.items():
            print(f"{name:<8}{wall:>9.3f}{cpu:>9.3f}{wall / floor_wall:>9.2f}"
                  f"{cpu / floor_cpu:>9.2f}")
        if args.verify:
            import os

            os.environ["TRAINSPEC_DIFF_FULL"] = "1"
            try:
                full = timed(diff, root, ok=(2,))
            finally:
                del os.environ["TRAINSPEC_DIFF_FULL"]
            print(f"full comparison: {full[0]:.3f} s wall, {full[1]:.3f} s CPU; report "
                  f"{'identical to' if full[2] == report else 'DIFFERS from'} the fast one's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
