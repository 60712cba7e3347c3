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

import ast
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
    import of them in it rewritten to match, whatever its form (relative or absolute, a module
    or a name imported from its package, at the top or inside a function)."""
    package = where / "compiler"
    shutil.copytree(ROOT / "compiler", package, ignore=shutil.ignore_patterns("__pycache__"))
    moves = {_dotted(old): _dotted(new) for old, new in MOVES.items()}
    for old, new in MOVES.items():
        (package / old).rename(package / new)
    for source in package.rglob("*.py"):
        text = _rewrite(source.read_text(), _module(source, where), moves)
        for old, new in moves.items():  # absolute names in code, strings and docs
            text = re.sub(rf"\b{re.escape(old)}\b", new, text)
        source.write_text(text)
        left = [node.lineno for node, _ in _imports_of(moves, text, _module(source, where))]
        assert left == [], f"{source}:{left}: an import of a moved module is left"
    # An editable install's finder (setuptools' __editable__ module on sys.meta_path) would
    # still find a submodule the copy lacks in the checkout: the copy's interpreters drop it.
    (where / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return where


def _dotted(path: str) -> str:
    return "compiler." + path.removesuffix(".py").replace("/", ".")


def _module(source: Path, where: Path) -> str:
    return ".".join(source.relative_to(where).with_suffix("").parts)


def _imports_of(moves: dict[str, str], text: str, module: str):
    """(line, rewritten statement) for each `from ... import` in text that names a moved
    module: from the module or below it, or the module itself from its package."""
    package = module.removesuffix(".__init__") if module.endswith(".__init__") \
        else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.ImportFrom):
            continue
        base = ".".join([*package.split(".")[:len(package.split(".")) - node.level + 1],
                         *([node.module] if node.module else [])]) if node.level \
            else node.module
        for old, new in moves.items():
            if base == old or base.startswith(old + "."):
                yield node, ast.ImportFrom(new + base[len(old):], node.names, 0)
            elif base == old.rpartition(".")[0] and any(
                    a.name == old.rpartition(".")[2] for a in node.names):
                assert new.rpartition(".")[0] == base, (old, new)  # the same package
                names = [ast.alias(new.rpartition(".")[2], a.asname or a.name)
                         if a.name == old.rpartition(".")[2] else a for a in node.names]
                yield node, ast.ImportFrom(node.module, names, node.level)


def _rewrite(text: str, module: str, moves: dict[str, str]) -> str:
    lines = text.splitlines(keepends=True)
    found = sorted(_imports_of(moves, text, module), key=lambda f: -f[0].lineno)
    for node, statement in found:
        first, last = lines[node.lineno - 1], lines[node.end_lineno - 1]
        lines[node.lineno - 1:node.end_lineno] = [
            first[:node.col_offset] + ast.unparse(statement) + last[node.end_col_offset:]]
    return "".join(lines)


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
