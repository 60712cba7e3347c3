"""Benchmark: a pull request's check of a big specs repository with one spec changed, warm cache.

N generated specs (bench_compile.py's, default 10,000) and their compiled requests, committed
on a base branch of a git repository; the result cache is filled by one run of the check there
(as CI restores it from the base branch's run), then a pull-request branch changes one spec,
compiles and commits it, and the two trainspec steps the generated workflow
(compiler/_templates/github-workflow.yml) runs on a pull request run, in turn, on the same
cache: the check (`compile --out compiled --check --format github --report sarif=FILE`) and
the diff (`diff BASE --merge-base --format markdown`). Printed: each step alone, the two
together ("the workflow", the goal's number), and, for comparison, the two commands the check
replaces (`validate --format github --report sarif=FILE`, `compile --out --check`). Their CPU
time (user + system, child processes included: git's too) and wall time are printed as a
ratio to the whole-tree floor (bench_compile.py's: PyYAML's C loader + json.dumps + write of
every spec) measured in the same run, interleaved; medians of the rounds. Target (issue 23):
the workflow <= 0.2x. With --verify, each warm command's output (and SARIF file) is compared
with a cold run's, byte for byte.

    python benchmarks/bench_incremental.py [--specs 10000] [--repeat 3] [--verify] [--profile N]
        [--stack]

--stack: the repository holds a Pulumi stack config (`Pulumi.dev.yaml`, setting the secret the
generated specs read), so the workflow's diff step runs with `--stack dev`.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_compile import FLOOR, generate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGET = 0.2
# trainspec from this checkout, its modules byte-compiled once and then loaded as compiled, as
# from the `pip install` a CI workflow runs (PYTHONDONTWRITEBYTECODE would compile ~80 modules
# from source in every process: 0.2 s of CPU each, a cost no installed trainspec pays).
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
       "PYTHONPATH": str(ROOT)}


def timed(argv: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> tuple[float, float, str]:
    """Wall and CPU seconds of `argv` (its processes included) and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in ok:
        sys.exit(f"failed ({proc.returncode}): {' '.join(argv)}\n{proc.stderr[-2000:]}")
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, \
        proc.stdout + proc.stderr


# A command is one argv (exit codes `ok`), or steps run in turn (argv, exit codes), timed as one.
Steps = tuple[tuple[list[str], tuple[int, ...]], ...]


def timed_steps(steps: Steps, cwd: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of `steps` run in turn, and their outputs one after the other."""
    done = [timed(argv, cwd, ok) for argv, ok in steps]
    return sum(d[0] for d in done), sum(d[1] for d in done), "".join(d[2] for d in done)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com",
                    *args], cwd=root, check=True, capture_output=True)


def rounds(root: Path, commands: dict[str, list[str] | Steps], repeat: int,
           ok: tuple[int, ...] = (0,)) -> tuple[dict[str, tuple[float, float]], dict[str, str]]:
    """Median wall and CPU seconds of the floor (on `root`/specs) and of each command over
    `repeat` rounds, each round running them in turn (load from other processes on the machine
    hits them alike), and each command's last output."""
    floor = [sys.executable, "-c", FLOOR, "specs", str(root / "floor-out")]
    runs: dict[str, list[tuple[float, float]]] = {n: [] for n in ["floor", *commands]}
    outputs: dict[str, str] = {}
    for _ in range(repeat):
        shutil.rmtree(root / "floor-out", ignore_errors=True)
        runs["floor"].append(timed(floor, root)[:2])
        for name, command in commands.items():
            wall, cpu, outputs[name] = timed_steps(command, root) if isinstance(
                command, tuple) else timed(command, root, ok)
            runs[name].append((wall, cpu))
    return {name: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
            for name, r in runs.items()}, outputs


def print_table(median: dict[str, tuple[float, float]], width: int) -> None:
    """Each row's wall and CPU seconds and their ratios to the floor's."""
    floor_wall, floor_cpu = median["floor"]
    print(f"{'':<{width}}{'wall s':>9}{'cpu s':>9}{'wall x':>9}{'cpu x':>9}")
    for name, (wall, cpu) in median.items():
        print(f"{name:<{width}}{wall:>9.3f}{cpu:>9.3f}{wall / floor_wall:>9.2f}"
              f"{cpu / floor_cpu:>9.2f}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--specs", type=int, default=10000, help="number of specs (default 10000)")
    p.add_argument("--repeat", type=int, default=3, help="median of N rounds (default 3)")
    p.add_argument("--verify", action="store_true",
                   help="compare each warm command's output with a cold run's")
    p.add_argument("--profile", type=int, default=0, metavar="N",
                   help="also print the N costliest functions of each step of the workflow "
                   "(cProfile, its own time)")
    p.add_argument("--stack", action="store_true",
                   help="a stack config in the repository: diff runs with --stack dev")
    args = p.parse_args(argv)
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="trainspec-incr-") as tmp:
        root = Path(tmp)
        generate(root / "specs", args.specs)
        (root / ".gitignore").write_text("/cache/\n/floor-out/\n*.sarif\n")
        if args.stack:  # the workflow passes --stack when Pulumi.$PULUMI_STACK.yaml is there
            (root / "Pulumi.yaml").write_text("name: jobs\nruntime: python\n")
            (root / "Pulumi.dev.yaml").write_text(
                "config:\n  trainspec:wandbApiKey:\n    secure: v1:AAAA\n")
        cache = ["--cache", str(root / "cache")]
        timed([py, "-m", "compiler", "compile", "specs", "--out", "compiled"], root)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "specs")
        check = [py, "-m", "compiler", "compile", "specs", "--out", "compiled", "--check",
                 "--format", "github", "--report", "sarif=trainspec.sarif", *cache]
        fill = timed(check, root)
        git(root, "checkout", "-qb", "pr")
        changed = sorted((root / "specs").rglob("*.yaml"))[args.specs // 2]
        changed.write_text(changed.read_text().replace("cost-center: cc", "cost-center: pr"))
        subprocess.run([py, "-m", "compiler", "compile", "specs", "--out", "compiled"],
                       cwd=root, check=True, capture_output=True)  # the PR commits it
        git(root, "commit", "-qam", "the pull request")
        diff = [py, "-m", "compiler", "diff", "main", "--merge-base",
                *(["--stack", "dev"] if args.stack else []), "--format", "markdown", *cache]
        workflow: Steps = ((check, (0,)), (diff, (2,)))  # as the workflow runs them
        commands: dict[str, list[str] | Steps] = {
            "validate": [py, "-m", "compiler", "validate", "specs", "--format", "github",
                         "--report", "sarif=validate.sarif", *cache],
            "compile --check": [py, "-m", "compiler", "compile", "specs", "--out", "compiled",
                                "--check", *cache],
            "the PR check": check,
            "diff": diff,
            "the workflow": workflow,
        }
        median, outputs = rounds(root, commands, args.repeat, ok=(0, 2))
        print(f"{args.specs} specs, 1 changed; cache filled by one check in "
              f"{fill[0]:.2f} s wall, {fill[1]:.2f} s CPU; median of {args.repeat}")
        print_table(median, 20)
        ratio = median["the workflow"][1] / median["floor"][1]
        print(f"target: the workflow (check, then diff) <= {TARGET}x the floor (CPU): "
              f"{'met' if ratio <= TARGET else 'NOT met'} ({ratio:.2f}x)")
        for name, (step, codes) in zip(("the PR check", "diff"), workflow):
            if not args.profile:
                break
            # (cProfile exits 0 whatever the command's exit code)
            stats = timed([py, "-m", "cProfile", "-s", "tottime", *step[1:]], root,
                          (0, *codes))[2]
            table = stats[stats.index("   Ordered by"):].splitlines()
            print(f"\nprofile of {name}, top {args.profile} by own time:")
            print("\n".join(line[:120] for line in table[2:args.profile + 4]))
        if args.verify:
            reports = {"validate": "validate.sarif", "the PR check": "trainspec.sarif",
                       "the workflow": "trainspec.sarif"}
            for name, command in commands.items():
                report = root / reports[name] if name in reports else None
                warm_report = report.read_text() if report else ""
                steps = command if isinstance(command, tuple) else ((command, (0, 2)),)
                cold = timed_steps(tuple(([a for a in argv if a not in cache], codes)
                                         for argv, codes in steps), root)[2]
                same = cold == outputs[name] and (
                    report is None or report.read_text() == warm_report)
                print(f"{name}: warm output {'identical to' if same else 'DIFFERS from'} "
                      "a cold run's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
