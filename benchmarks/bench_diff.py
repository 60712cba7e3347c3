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
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_compile import generate  # noqa: E402
from bench_incremental import git, print_table, rounds, timed  # noqa: E402

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
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "base")
        git(root, "checkout", "-qb", "pr")
        changed = sorted((root / "specs").rglob("*.yaml"))[args.specs // 2]
        changed.write_text(changed.read_text().replace("cost-center: cc", "cost-center: pr"))
        diff = [py, "-m", "compiler", "diff", "main", "--merge-base", "--format", "markdown"]
        cache = ["--cache", str(root / "cache")]
        # as the workflow's validate step leaves it (TRAINSPEC_CACHE) before the diff step
        fill = timed([py, "-m", "compiler", "validate", "specs", *cache], root)
        commands = {"diff": diff, "diff --cache": diff + cache}
        median, reports = rounds(root, commands, args.repeat, ok=(2,))
        print(f"{args.specs} specs, 1 changed; cache filled by one validate in {fill[0]:.2f} s "
              f"wall, {fill[1]:.2f} s CPU; median of {args.repeat}")
        print_table(median, 14)
        if args.verify:
            full = timed([py, "-c", FULL], root, ok=(2,))
            for name, report in reports.items():
                print(f"{name}: report {'identical to' if full[2] == report else 'DIFFERS from'}"
                      f" a full comparison's ({full[0]:.3f} s wall, {full[1]:.3f} s CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
