"""The real Pulumi engine against the bundled emulator.

Each test gets a temporary copy of a specs repository (this repo's Pulumi.yaml and __main__.py, the
specs it writes), a local file backend, and an emulator served from this process so that tests can
see every API call. The CLI comes from PATH (`scripts/install-pulumi-cli` prints where it is); the
program and the provider run with this interpreter's environment (the repo's virtualenv).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from compiler.cloud import emulator as emulator_module

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: faultproxy

ROOT = Path(__file__).resolve().parents[2]
HOW = ("engine tests need the Pulumi CLI v{v}: "
       'export PATH="$(scripts/install-pulumi-cli | tail -n 1):$PATH"')


def _cli_version() -> str:
    script = (ROOT / "scripts" / "install-pulumi-cli").read_text()
    return next(line.split("=", 1)[1] for line in script.splitlines()
                if line.startswith("VERSION="))


def _find_cli() -> str | None:
    found = shutil.which("pulumi")
    if not found or not shutil.which("pulumi-language-python"):
        return None
    out = subprocess.run([found, "version"], capture_output=True, text=True, timeout=60)
    return found if out.stdout.strip() == f"v{_cli_version()}" else None


@pytest.fixture(scope="session")
def pulumi_cli() -> str:
    found = _find_cli()
    if found:
        return found
    message = HOW.format(v=_cli_version())
    if os.environ.get("TRAINSPEC_REQUIRE_ENGINE"):
        pytest.fail(message + " (TRAINSPEC_REQUIRE_ENGINE is set: CI must run them)")
    pytest.skip(message)


class Emulator:
    """An in-process emulator; `calls` lists every request line it answered but the quota reads
    of a Check (Service Usage limits, Monitoring usage), which `quota_reads` lists."""

    QUOTA_READS = ("/consumerQuotaMetrics", "/timeSeries?")

    def __init__(self, **options):
        self.calls: list[str] = []
        self.quota_reads: list[str] = []
        self._lock = threading.Lock()
        self.server, self.thread = emulator_module.serve(log=self._log, **options)
        self.url = self.server.url
        self.api = self.server.emulator

    def _log(self, line: str) -> None:
        with self._lock:
            quota = any(f in line and '"GET ' in line for f in self.QUOTA_READS)
            (self.quota_reads if quota else self.calls).append(line)

    def requests(self, verb: str | None = None, contains: str = "") -> list[str]:
        with self._lock:
            return [c for c in self.calls
                    if (verb is None or f'"{verb} ' in c) and contains in c]

    def vertex_jobs(self) -> dict[str, dict]:
        """name → rendered CustomJob, as GET returns it now."""
        with self.api._lock:
            return {n: self.api._render_vertex(n) for n in self.api.state["vertex"]}

    def tuning_jobs(self) -> dict[str, dict]:
        """name → rendered HyperparameterTuningJob, as GET returns it now."""
        with self.api._lock:
            return {n: self.api._render_vertex(n) for n in self.api.state["tuning"]}

    def ml_jobs(self) -> dict[str, dict]:
        with self.api._lock:
            return {n: self.api._render_ml(n) for n in self.api.state["ml"]}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def emulator():
    emu = Emulator(progress_seconds=0.5)
    yield emu
    emu.close()


# A Pulumi YAML program that uses the trainspec provider: the `Specs` component over specs/.
YAML_PROGRAM = """\
name: {name}
runtime: yaml
resources:
  specs:
    type: trainspec:index:Specs
    properties:
      path: specs
outputs:
  jobs: ${{specs.jobs}}
"""


@pytest.fixture(scope="session")
def yaml_host(pulumi_cli) -> str:
    """The YAML language host and the trainspec provider plugin, both found on PATH."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    host = shutil.which("pulumi-language-yaml")
    if host and shutil.which("pulumi-resource-trainspec", path=path):
        return host
    message = ("engine tests of a YAML program need pulumi-language-yaml beside pulumi and "
               "pulumi-resource-trainspec in this environment (pip install -e .): "
               + HOW.format(v=_cli_version()))
    if os.environ.get("TRAINSPEC_REQUIRE_ENGINE"):
        pytest.fail(message + " (TRAINSPEC_REQUIRE_ENGINE is set: CI must run them)")
    pytest.skip(message)


class Project:
    """A specs repository in a temporary folder, driven with the real `pulumi`.

    runtime "python" is this repository's program (Pulumi.yaml and __main__.py); "yaml" is
    YAML_PROGRAM, served by the trainspec provider plugin.
    """

    def __init__(self, root: Path, cli: str, endpoint: str, name: str = "trainspec",
                 stack: str = "dev", backend: Path | None = None, init: bool = False,
                 runtime: str = "python"):
        self.root, self.cli, self.stack = root, cli, stack
        if init:  # a repository written by `python -m compiler init`, as a user starts one
            subprocess.run([sys.executable, "-m", "compiler", "init", str(root), "--name", name],
                           cwd=ROOT, check=True, capture_output=True, timeout=120)
        root.mkdir(parents=True, exist_ok=True)
        (root / "specs").mkdir(exist_ok=True)
        if runtime == "yaml":
            (root / "Pulumi.yaml").write_text(YAML_PROGRAM.format(name=name))
        elif not init:
            pulumi_yaml = (ROOT / "Pulumi.yaml").read_text()
            (root / "Pulumi.yaml").write_text(pulumi_yaml.replace("name: trainspec\n",
                                                                  f"name: {name}\n", 1))
            shutil.copy(ROOT / "__main__.py", root / "__main__.py")
        # The project's virtualenv is this interpreter's: it has trainspec installed editable.
        (root / "venv").symlink_to(Path(sys.prefix))
        backend = backend or root / ".state"
        backend.mkdir(exist_ok=True)
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "TRAINSPEC_"))},
            # The CLI on PATH, as a user has it: the provider asks it which stacks exist.
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), str(Path(cli).parent),
                                     os.environ.get("PATH", "")]),
            # The program and the provider import this checkout's compiler, whatever is installed.
            "PYTHONPATH": str(ROOT),
            "PULUMI_BACKEND_URL": backend.as_uri(),
            "PULUMI_CONFIG_PASSPHRASE": "engine-tests",
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            "PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION": "true",
            "PULUMI_HOME": str(root / ".pulumi-home"),
            "TRAINSPEC_API_ENDPOINT": endpoint,
            "TRAINSPEC_CANCEL_TIMEOUT": "30",
        }
        self.run("stack", "init", stack)
        self.run("config", "set", "gcp:project", "acme-test")
        self.run("config", "set", "gcp:region", "us-central1")

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
        return path

    def run(self, *args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess:
        proc = subprocess.run([self.cli, *args, "--non-interactive"], cwd=self.root, env=self.env,
                              capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"pulumi {' '.join(args)} exited {proc.returncode}\n"
                                 f"{proc.stdout}\n{proc.stderr}")
        return proc

    def up(self, *args: str, **kw) -> subprocess.CompletedProcess:
        return self.run("up", "--yes", "--skip-preview", *args, **kw)

    def popen(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen([self.cli, *args, "--non-interactive"], cwd=self.root,
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)

    def up_killed(self, emulator, answer, reached: threading.Event, release: threading.Event,
                  settle: float) -> None:
        """`pulumi up` with the emulator answering through `answer`, SIGKILLed `settle` seconds
        after `reached` is set; then the emulator answers as before (`release` set) and what
        the killed `up` left running is left running, as on the user's machine (the plugin
        must stop by itself: test_killed_up.py)."""
        handle = emulator.api.handle
        emulator.api.handle = answer
        up = self.popen("up", "--yes", "--skip-preview")
        try:
            assert reached.wait(120), up.stdout.read() if up.poll() is not None else "not reached"
            time.sleep(settle)
            os.killpg(up.pid, signal.SIGKILL)
            up.wait(30)
        finally:
            emulator.api.handle = handle
            release.set()

    def kill_strays(self) -> None:
        """Kill what a SIGKILLed `pulumi up` leaves running: the engine starts its provider
        plugins (`pulumi-resource-trainspec`, and a 0.1 stack's dynamic provider,
        `python -m pulumi.dynamic`) in sessions of their own, in the project directory, and
        nothing tells them to stop once the engine is gone."""
        proc = Path("/proc")
        if not proc.is_dir():
            return
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                cwd = os.readlink(entry / "cwd")
            except OSError:
                continue
            ours = cwd == str(self.root) or any(str(self.root).encode() in a for a in argv)
            plugin = b"pulumi.dynamic" in argv or any(
                a.endswith(b"pulumi-resource-trainspec") for a in argv)
            if ours and plugin:
                try:
                    os.kill(int(entry.name), signal.SIGKILL)
                except OSError:
                    pass

    def trainspec(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """`python -m compiler ARGS` in the repository, with the stack's environment."""
        return subprocess.run([sys.executable, "-m", "compiler", *args], cwd=self.root,
                              env=self.env, capture_output=True, text=True, timeout=timeout)

    def outputs(self) -> dict:
        import json
        return json.loads(self.run("stack", "output", "--json", "--show-secrets").stdout)

    def state(self) -> dict:
        """The stack's deployment as `pulumi stack export` shows it."""
        import json
        return json.loads(self.run("stack", "export").stdout)["deployment"]

    def resources(self, type_suffix: str = "Job") -> list[dict]:
        return [r for r in self.state().get("resources", []) if r["type"].endswith(type_suffix)]


@pytest.fixture
def project(tmp_path, pulumi_cli, emulator):
    def make(name: str = "trainspec", folder: str = "repo", endpoint: str | None = None,
             **kw) -> Project:
        return Project(tmp_path / folder, pulumi_cli, endpoint or emulator.url, name=name, **kw)
    return make
