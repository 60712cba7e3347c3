"""Benchmark: `pulumi preview` and `pulumi up` of N specs under the real engine, as a ratio to a
program registering N trivial resources, measured in the same run.

trainspec: this repository's Pulumi project (Pulumi.yaml, __main__.py: the `trainspec:index:Specs`
component, served by the provider plugin `pulumi-resource-trainspec`) over N small Vertex
CustomJob specs, against the bundled emulator (in this process, on a free port).
baseline: a Python program of the same language host that registers N local
ComponentResources (`bench:index:Item`, no inputs): what the engine and the language host cost
per resource, with no provider plugin and no plugin download.

Each is a fresh stack on a file backend: preview (nothing exists), up (N creations), then a
second up that changes nothing. Also printed: the state bytes per job (`pulumi stack export`)
beside the baseline's per item. Targets (issues 18, 23): preview and up <= 1.5x, the no-change up
<= 1.3x, and the ratio at 1,000 no worse than at 500 (run with --n 1000). --skip-checkpoints runs
both under PULUMI_SKIP_CHECKPOINTS=true (docs/pulumi.md, "Speed"). Needs the Pulumi CLI on PATH:

    PATH="$(scripts/install-pulumi-cli | tail -n 1):$PATH" python benchmarks/bench_provider.py [--n 500]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))  # job_specs: the engine tests' small specs
TARGETS = {"preview": 1.5, "up": 1.5, "up again": 1.3}

BASELINE_PROGRAM = """\
import pulumi


class Item(pulumi.ComponentResource):
    def __init__(self, name: str) -> None:
        super().__init__("bench:index:Item", name, None, None)
        self.register_outputs({})


for i in range(int(pulumi.Config().require("n"))):
    Item(f"item-{i:04d}")
"""


class Stack:
    """A project folder with one stack on its own file backend."""

    def __init__(self, root: Path, cli: str, endpoint: str, skip_checkpoints: bool = False):
        self.root, self.cli = root, cli
        (root / ".state").mkdir(parents=True)
        (root / "venv").symlink_to(Path(sys.prefix))
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "TRAINSPEC_"))},
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "PYTHONPATH": str(ROOT),
            "PULUMI_BACKEND_URL": (root / ".state").as_uri(),
            "PULUMI_CONFIG_PASSPHRASE": "bench",
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
            "PULUMI_HOME": str(root / ".pulumi-home"),
            "TRAINSPEC_API_ENDPOINT": endpoint,
            **({"PULUMI_SKIP_CHECKPOINTS": "true"} if skip_checkpoints else {}),
        }

    def run(self, *args: str) -> tuple[float, float]:
        """(wall seconds, CPU seconds) of `pulumi ARGS` (it must succeed). The CPU time is the
        CLI's and every process it started and waited for (language host, provider plugins):
        the stable view on a shared machine, where wall time depends on the neighbours."""
        before = cpu_of_children()
        start = time.perf_counter()
        proc = subprocess.run([self.cli, *args, "--non-interactive"], cwd=self.root, env=self.env,
                              capture_output=True, text=True, timeout=7200)
        took = time.perf_counter() - start, cpu_of_children() - before
        if proc.returncode != 0:
            raise SystemExit(f"pulumi {' '.join(args)} in {self.root} exited {proc.returncode}\n"
                             f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        return took

    def export(self) -> tuple[int, list[dict]]:
        """(bytes of `pulumi stack export`, its resources)."""
        proc = subprocess.run([self.cli, "stack", "export"], cwd=self.root, env=self.env,
                              capture_output=True, text=True, check=True, timeout=600)
        return len(proc.stdout.encode()), json.loads(proc.stdout)["deployment"]["resources"]


def cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def per_resource(resources: list[dict]) -> float:
    """Mean bytes of one resource's entry in the state (compact JSON)."""
    sizes = [len(json.dumps(r, separators=(",", ":")).encode()) for r in resources]
    return sum(sizes) / max(len(sizes), 1)


def trainspec_stack(where: Path, cli: str, endpoint: str, n: int, skip: bool) -> Stack:
    from job_specs import HOLD, vertex

    where.mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", where / "Pulumi.yaml")
    shutil.copy(ROOT / "__main__.py", where / "__main__.py")
    (where / "specs").mkdir()
    for i in range(n):
        (where / "specs" / f"job-{i:04d}.yaml").write_text(
            vertex(name=f"job-{i:04d}", steps=i, labels=HOLD))
    s = Stack(where, cli, endpoint, skip)
    s.run("stack", "init", "bench")
    s.run("config", "set", "gcp:project", "acme-bench")
    s.run("config", "set", "gcp:region", "us-central1")
    return s


def baseline_stack(where: Path, cli: str, endpoint: str, n: int, skip: bool) -> Stack:
    where.mkdir()
    (where / "Pulumi.yaml").write_text("name: baseline\nruntime:\n  name: python\n  options:\n"
                                       "    toolchain: pip\n    virtualenv: venv\n")
    (where / "__main__.py").write_text(BASELINE_PROGRAM)
    s = Stack(where, cli, endpoint, skip)
    s.run("stack", "init", "bench")
    s.run("config", "set", "n", str(n))
    return s


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=500, help="specs (and baseline resources)")
    p.add_argument("--keep", action="store_true", help="keep the temporary projects")
    p.add_argument("--skip-checkpoints", action="store_true",
                   help="run both projects with PULUMI_SKIP_CHECKPOINTS=true")
    args = p.parse_args(argv)
    cli = shutil.which("pulumi")
    if cli is None:
        p.error('no pulumi on PATH: PATH="$(scripts/install-pulumi-cli | tail -n 1):$PATH"')

    from compiler.cloud.emulator import serve

    server, _ = serve(progress_seconds=3600.0)
    tmp = Path(tempfile.mkdtemp(prefix="bench-provider-"))
    try:
        base = baseline_stack(tmp / "baseline", cli, server.url, args.n, args.skip_checkpoints)
        ours = trainspec_stack(tmp / "trainspec", cli, server.url, args.n, args.skip_checkpoints)
        times = {}
        for label, stack in (("baseline", base), ("trainspec", ours)):
            times[label, "preview"] = stack.run("preview")
            times[label, "up"] = stack.run("up", "--yes", "--skip-preview")
        posted = len(server.emulator.state["vertex"])
        for label, stack in (("baseline", base), ("trainspec", ours)):
            times[label, "up again"] = stack.run("up", "--yes", "--skip-preview")
        ours_bytes, ours_resources = ours.export()
        base_bytes, base_resources = base.export()
        jobs = [r for r in ours_resources if r["type"] == "trainspec:index:VertexCustomJob"]
        items = [r for r in base_resources if r["type"] == "bench:index:Item"]
        created = len(server.emulator.state["vertex"])
        if len(jobs) != args.n or len(items) != args.n or not created == posted == args.n:
            raise SystemExit(f"expected {args.n} of each: {len(jobs)} jobs in state, "
                             f"{created} on the emulator, {len(items)} baseline items")
    finally:
        server.shutdown()
        server.server_close()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    print(f"specs: {args.n}  cores: {os.cpu_count()}  python: {platform.python_version()}  "
          f"pulumi: {subprocess.run([cli, 'version'], capture_output=True, text=True).stdout.strip()}")
    print(f"baseline: {args.n} local ComponentResources (bench:index:Item) from a Python program"
          + ("; both with PULUMI_SKIP_CHECKPOINTS=true" if args.skip_checkpoints else ""))
    print("wall and CPU seconds (the CLI with its language host and plugins)")
    for op, target in TARGETS.items():
        (b, bc), (t, tc) = times["baseline", op], times["trainspec", op]
        print(f"{op:<8} baseline {b:7.2f} s {bc:7.2f} cpu   trainspec {t:7.2f} s {tc:7.2f} cpu   "
              f"ratio {t / b:5.2f}x, cpu {tc / bc:5.2f}x (target <= {target}x)")
    print(f"state    baseline {per_resource(items):8.0f} B/item   trainspec "
          f"{per_resource(jobs):8.0f} B/job   (whole stack export: {base_bytes} B and "
          f"{ours_bytes} B)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
