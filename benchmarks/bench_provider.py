"""Benchmark: `pulumi preview` and `pulumi up` of N specs under the real engine, as a ratio to a
program registering N do-nothing resources with the same bodies, measured in the same run.

trainspec: this repository's Pulumi project (Pulumi.yaml, __main__.py: the `trainspec:index:Specs`
component, served by the provider plugin `pulumi-resource-trainspec`) over N small Vertex
CustomJob specs, against the bundled emulator (in this process, on a free port; it lists a CPU
quota, so each job's Check weighs the project's quota as against Google's).
baseline (issue 23's: "the same project registering as many do-nothing resources with the same
bodies"): a Python program of the same language host that registers N local ComponentResources
(`bench:index:Item`), each carrying as its inputs exactly what a trainspec job holds as inputs in
the state (its compiled request body and the rest, computed by the provider's own Check before
the run) and as its outputs those inputs plus a job's outputs as a create answers them. So the
engine registers, checkpoints and logs about as many bytes per resource on both sides, and
the ratio is what trainspec costs beyond that: its provider plugin (Construct, and Check, Diff,
Create per job over gRPC), its compile and the job's own API calls. No plugin, no download.
The old baseline (N ComponentResources with no inputs: the engine's bare cost per resource) is
printed beside it with --bare.

Each is a fresh stack on a file backend: preview (nothing exists), up (N creations), then a
second up that changes nothing. Also printed: the state bytes per job (`pulumi stack export`)
beside the baseline's per item. Targets (issues 18, 23): preview and up <= 1.5x, the no-change up
<= 1.3x, and the ratio at 1,000 no worse than at 500 (run with --n 1000). --skip-checkpoints runs
every project under PULUMI_SKIP_CHECKPOINTS=true (docs/pulumi.md, "Speed"). Needs the Pulumi CLI on PATH:

    PATH="$(scripts/install-pulumi-cli | tail -n 1):$PATH" python benchmarks/bench_provider.py [--n 500]
"""

from __future__ import annotations

import argparse
import compileall
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
CPU_QUOTA = "aiplatform.googleapis.com/custom_model_training_cpus"

BASELINE_PROGRAM = """\
import json

import pulumi


class Item(pulumi.ComponentResource):
    def __init__(self, name: str, inputs: dict, outputs: dict) -> None:
        super().__init__("bench:index:Item", name, inputs, None)
        self.register_outputs(outputs)


with open("bodies.json") as f:
    items = json.load(f)
for name, item in items.items():
    Item(name, item["inputs"], item["outputs"])
"""
BARE_PROGRAM = """\
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


def bodies(project: Path, n: int) -> dict[str, dict]:
    """{item name: {"inputs", "outputs"}}: what each trainspec job of `project` holds in the
    state after an `up`, computed with the provider's own Check (in `project`, the inputs the
    `Specs` component sends) and its outputs as a create answers (an emulator job's name)."""
    from compiler.provider import jobs

    config = jobs.Config(project="acme-bench", region="us-central1")
    custom = jobs.token("VertexCustomJob")
    provider = jobs.VertexCustomJob()
    found, cwd = {}, os.getcwd()
    os.chdir(project)
    try:
        for i in range(n):
            name = f"job-{i:04d}"
            urn = f"urn:pulumi:bench::trainspec::{jobs.token('Specs')}${custom}::{name}"
            checked = jobs.check(custom, urn, {}, {
                "specFile": f"specs/{name}.yaml", "project": "acme-bench",
                "region": "us-central1", "keepJobRecords": True, "secretEnv": {},
                "organization": "organization"}, config)
            if checked.failures:
                raise SystemExit(f"{name}: {checked.failures}")
            inputs = {k: v for k, v in checked.inputs.items() if k not in jobs.NOT_IN_STATE}
            job_id = f"projects/acme-bench/locations/us-central1/customJobs/{10**18 + i}"
            outputs = jobs.without_nulls(provider._outs(inputs, {
                "state": "JOB_STATE_QUEUED", "createTime": "2026-01-01T00:00:00.000000Z"}, job_id))
            found[name] = {"inputs": jobs.without_nulls(inputs), "outputs": outputs}
    finally:
        os.chdir(cwd)
    return found


def baseline_stack(where: Path, cli: str, endpoint: str, n: int, skip: bool,
                   items: dict[str, dict] | None) -> Stack:
    """The baseline: `items` as do-nothing resources (BASELINE_PROGRAM), or with None, N bare
    ones (BARE_PROGRAM)."""
    where.mkdir()
    (where / "Pulumi.yaml").write_text("name: baseline\nruntime:\n  name: python\n  options:\n"
                                       "    toolchain: pip\n    virtualenv: venv\n")
    (where / "__main__.py").write_text(BARE_PROGRAM if items is None else BASELINE_PROGRAM)
    if items is not None:
        (where / "bodies.json").write_text(json.dumps(items))
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
    p.add_argument("--bare", action="store_true",
                   help="also run N resources with no inputs (the engine's bare cost)")
    args = p.parse_args(argv)
    cli = shutil.which("pulumi")
    if cli is None:
        p.error('no pulumi on PATH: PATH="$(scripts/install-pulumi-cli | tail -n 1):$PATH"')

    # trainspec's modules as an install has them, compiled to bytecode (pip compiles a wheel's
    # modules when it installs them): in a checkout run with PYTHONDONTWRITEBYTECODE set, the
    # program and the plugin would compile every module from source again in each command
    # (about 0.25 s of CPU each), which no user's `pulumi up` pays. The baseline's program
    # imports only the Pulumi SDK, compiled when pip installed it.
    compileall.compile_dir(ROOT / "compiler", quiet=1)
    from compiler.cloud.emulator import serve

    # The project lists its CPU quota, as Google's does: each job's Check weighs it (the
    # provider's quota ledger), as in a real stack; without it the check stops at "not listed".
    server, _ = serve(progress_seconds=3600.0, quotas={(CPU_QUOTA, "us-central1"): (10**6, 0)})
    tmp = Path(tempfile.mkdtemp(prefix="bench-provider-"))
    try:
        ours = trainspec_stack(tmp / "trainspec", cli, server.url, args.n, args.skip_checkpoints)
        stacks = {"baseline": baseline_stack(tmp / "baseline", cli, server.url, args.n,
                                             args.skip_checkpoints, bodies(ours.root, args.n))}
        if args.bare:
            stacks["bare"] = baseline_stack(tmp / "bare", cli, server.url, args.n,
                                            args.skip_checkpoints, None)
        stacks["trainspec"] = ours
        times = {}
        for label, stack in stacks.items():
            times[label, "preview"] = stack.run("preview")
            times[label, "up"] = stack.run("up", "--yes", "--skip-preview")
        posted = len(server.emulator.state["vertex"])
        for label, stack in stacks.items():
            times[label, "up again"] = stack.run("up", "--yes", "--skip-preview")
        exported = {label: stack.export() for label, stack in stacks.items()}
        jobs = [r for r in exported["trainspec"][1]
                if r["type"] == "trainspec:index:VertexCustomJob"]
        items = {label: [r for r in exported[label][1] if r["type"] == "bench:index:Item"]
                 for label in stacks if label != "trainspec"}
        created = len(server.emulator.state["vertex"])
        if (len(jobs) != args.n or any(len(i) != args.n for i in items.values())
                or not created == posted == args.n):
            raise SystemExit(f"expected {args.n} of each: {len(jobs)} jobs in state, "
                             f"{created} on the emulator, "
                             f"{ {k: len(v) for k, v in items.items()} } baseline items")
    finally:
        server.shutdown()
        server.server_close()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"projects kept in {tmp}")

    print(f"specs: {args.n}  cores: {os.cpu_count()}  python: {platform.python_version()}  "
          f"pulumi: {subprocess.run([cli, 'version'], capture_output=True, text=True).stdout.strip()}")
    print(f"baseline: {args.n} do-nothing resources (local ComponentResources, bench:index:Item) "
          "with the jobs' inputs and outputs, from a Python program"
          + ("; bare: the same with no inputs" if args.bare else "")
          + ("; all with PULUMI_SKIP_CHECKPOINTS=true" if args.skip_checkpoints else ""))
    print("wall and CPU seconds (the CLI with its language host and plugins)")
    for op, target in TARGETS.items():
        (b, bc), (t, tc) = times["baseline", op], times["trainspec", op]
        print(f"{op:<8} baseline {b:7.2f} s {bc:7.2f} cpu   trainspec {t:7.2f} s {tc:7.2f} cpu   "
              f"ratio {t / b:5.2f}x, cpu {tc / bc:5.2f}x (target <= {target}x)")
        if args.bare:
            (b, bc) = times["bare", op]
            print(f"{'':<8} bare     {b:7.2f} s {bc:7.2f} cpu   "
                  f"{'':<33}ratio {t / b:5.2f}x, cpu {tc / bc:5.2f}x")
    for label, found in items.items():
        print(f"state    {label:<8} {per_resource(found):8.0f} B/item   "
              f"(whole stack export: {exported[label][0]} B)")
    print(f"state    trainspec {per_resource(jobs):7.0f} B/job    "
          f"(whole stack export: {exported['trainspec'][0]} B)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
