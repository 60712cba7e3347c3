"""Upgrade safety: a stack made by the trainspec provider keeps working when a later trainspec
moves its internal modules, because nothing of the code is in the state (issue 18; under the
dynamic providers, moving `compiler.pulumi_resources` broke refresh and destroy of every stack,
their code being pickled into it by module and class name).

The upgrade is a throwaway copy of the package, first on PYTHONPATH for the program and the
plugin, in which the job lifecycle (`compiler.pulumi_resources`) and the provider's resource
types (`compiler.provider.jobs`) live under other names; only the contract stays (the console
script's `compiler.provider:main`, the program's `compiler.pulumi_program:main`, the types).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from job_specs import HOLD, ml, vertex

ROOT = Path(__file__).resolve().parents[2]
MOVES = {"pulumi_resources": "job_lifecycle", "provider/jobs.py": "provider/job_types.py"}


def moved_copy(where: Path) -> Path:
    """A copy of the `compiler` package with its internal modules renamed (MOVES), every
    import in it rewritten to match."""
    package = where / "compiler"
    shutil.copytree(ROOT / "compiler", package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "pulumi_resources").rename(package / "job_lifecycle")
    (package / "provider" / "jobs.py").rename(package / "provider" / "job_types.py")
    for source in package.rglob("*.py"):
        text = source.read_text()
        text = text.replace("pulumi_resources", "job_lifecycle")
        if source.parent.name == "provider":
            text = re.sub(r"^from \.jobs import", "from .job_types import", text, flags=re.M)
            text = re.sub(r"^from \. import jobs, ", "from . import job_types as jobs, ", text,
                          flags=re.M)
        source.write_text(text)
    # An editable install's finder (setuptools' __editable__ module on sys.meta_path) would
    # still find a submodule the copy lacks in the checkout: the copy's interpreters drop it.
    (where / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return where


SITECUSTOMIZE = """\
import sys

sys.meta_path[:] = [f for f in sys.meta_path
                    if "__editable__" not in str(getattr(f, "__module__", type(f).__module__))]
"""


def test_refresh_and_destroy_of_a_stack_work_after_internal_modules_move(
        project, emulator, tmp_path):
    p = project()
    p.write("specs/bert.yaml", vertex(labels=HOLD))
    p.write("specs/census.yaml", ml(labels=HOLD))
    p.up()
    jobs = {r["urn"].rsplit("::", 1)[1]: r["id"] for r in p.resources()}
    assert set(jobs) == {"bert", "census"}
    state = str(p.state())
    # New stacks hold data only: no pickled provider, no module of trainspec's code.
    assert "__provider" not in state and "pulumi-python:dynamic" not in state
    assert "compiler." not in state and "pulumi_resources" not in state

    p.env["PYTHONPATH"] = str(moved_copy(tmp_path / "upgrade"))
    probe = subprocess.run(
        [sys.executable, "-c", "import compiler, importlib.util as u; print(compiler.__file__); "
         "print(u.find_spec('compiler.pulumi_resources'), u.find_spec('compiler.provider.jobs'))"],
        env=p.env, cwd=p.root, capture_output=True, text=True, check=True)
    where, found = probe.stdout.splitlines()
    assert where.startswith(str(tmp_path / "upgrade")) and found == "None None", probe.stdout

    calls = len(emulator.calls)
    refreshed = p.run("refresh", "--yes", "--skip-preview")
    assert "Traceback" not in refreshed.stdout + refreshed.stderr
    read = emulator.calls[calls:]
    assert [c for c in read if '"GET' not in c] == []
    assert all(any(job in c for c in read) for job in jobs.values()), read
    assert {r["urn"].rsplit("::", 1)[1]: r["id"] for r in p.resources()} == jobs

    destroyed = p.run("destroy", "--yes", "--skip-preview")
    assert "Traceback" not in destroyed.stdout + destroyed.stderr
    assert emulator.vertex_jobs()[jobs["bert"]]["state"] == "JOB_STATE_CANCELLED"
    assert emulator.ml_jobs()[jobs["census"]]["state"] == "CANCELLED"
    assert p.resources("") == []


def test_the_same_move_breaks_a_dynamic_provider_stack(project, emulator, tmp_path):
    """The contrast that makes the test above mean something: 0.1's stacks (code pickled into
    state) cannot be destroyed once the module their code lived in has moved."""
    from test_provider_migration import LEGACY_PROGRAM

    p = project()
    p.write("__main__.py", LEGACY_PROGRAM)
    p.write("specs/bert.yaml", vertex(labels=HOLD))
    p.up()
    assert "__provider" in str(p.state())

    p.env["PYTHONPATH"] = str(moved_copy(tmp_path / "upgrade"))
    destroyed = p.run("destroy", "--yes", "--skip-preview", check=False)
    assert destroyed.returncode != 0
    assert "compiler.pulumi_resources" in destroyed.stdout + destroyed.stderr
    assert [c for c in emulator.requests("POST") if ":cancel" in c] == []
