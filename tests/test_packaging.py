"""A regular (non-editable) install works: the schema and the lock ship inside the package.
requirements.lock pins, with hashes, every dependency pyproject.toml names, inside its ranges."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from compiler import scaffold

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
EXTRAS = ("pulumi", "test")


@pytest.mark.slow
def test_installed_wheel_validates_specs(tmp_path: Path) -> None:
    wheels, target = tmp_path / "wheels", tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    str(ROOT), "-w", str(wheels)],
                   check=True, capture_output=True, timeout=300, cwd=tmp_path)
    wheel = next(wheels.glob("trainspec-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--target", str(target), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    proc = subprocess.run([sys.executable, "-m", "compiler", "validate", str(ROOT / "specs")],
                          cwd=tmp_path, env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().endswith("0 with errors")
    # init from the installed package writes the lock it ships (package data, not the link).
    proc = subprocess.run([sys.executable, "-m", "compiler", "init", "repo"], cwd=tmp_path,
                          env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert _entries((tmp_path / "repo" / "requirements.lock").read_text()) == _entries(
        LOCK.read_text())


def test_python_sdk_pin_matches_the_cli_that_is_installed() -> None:
    """The engine runs the Python SDK against the CLI of scripts/install-pulumi-cli: one version."""
    import re
    script = (ROOT / "scripts" / "install-pulumi-cli").read_text()
    cli = re.search(r"^VERSION=(\S+)$", script, re.M)
    pin = re.search(r'"pulumi==([^"]+)"', (ROOT / "pyproject.toml").read_text())
    assert cli and pin and cli[1] == pin[1]
    assert [str(r.specifier) for r, _ in _entries(LOCK.read_text()) if r.name == "pulumi"] == [
        f"=={cli[1]}"]


def _entries(lock: str) -> list[tuple[Requirement, list[str]]]:
    """The lock's requirements, each with its hashes (continuation lines joined)."""
    text = re.sub(r"\\\n", " ", "\n".join(line for line in lock.splitlines()
                                           if not line.lstrip().startswith("#")))
    result = []
    for line in filter(None, map(str.strip, text.splitlines())):
        spec, *hashes = line.split(" --hash=")
        result.append((Requirement(spec), [h.strip() for h in hashes]))
    return result


def _declared() -> list[Requirement]:
    """What the lock must hold: trainspec[pulumi,test]'s dependencies and its build backend."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    project = pyproject["project"]
    extras = project["optional-dependencies"]
    return [Requirement(r) for r in [*project["dependencies"], *(r for e in EXTRAS
                                                                 for r in extras[e]),
                                     *pyproject["build-system"]["requires"]]]


# Python versions and platforms the lock is for: (python_full_version, sys_platform, system).
ENVIRONMENTS = [(f"3.{minor}.0", platform, system) for minor in (10, 11, 12, 13)
                for platform, system in (("linux", "Linux"), ("darwin", "Darwin"))]


def _marker_env(python: str, platform: str, system: str) -> dict[str, str]:
    return {**default_environment(), "python_full_version": python,
            "python_version": python.rsplit(".", 1)[0], "sys_platform": platform,
            "platform_system": system, "implementation_name": "cpython",
            "platform_python_implementation": "CPython", "extra": ""}


def test_every_lock_entry_is_one_exact_version_with_hashes_and_trainspec_is_not_locked():
    entries = _entries(LOCK.read_text())
    assert len(entries) > 20
    for req, hashes in entries:
        assert str(req.specifier).startswith("==") and len(req.specifier) == 1, req
        assert hashes and all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in hashes), req
    assert "trainspec" not in {canonicalize_name(r.name) for r, _ in entries}
    # the top-level file is the package data init copies
    assert LOCK.resolve() == (ROOT / "compiler" / "_templates" / "requirements.lock").resolve()


@pytest.mark.parametrize("environment", ENVIRONMENTS, ids="-".join)
def test_the_lock_pins_every_declared_dependency_inside_its_range(environment):
    """On each supported Python and platform: one locked version per package, and every
    dependency of trainspec[pulumi,test] is locked at a version its range in pyproject allows."""
    env = _marker_env(*environment)
    locked: dict[str, list[str]] = {}
    for req, _ in _entries(LOCK.read_text()):
        if req.marker is None or req.marker.evaluate(env):
            locked.setdefault(canonicalize_name(req.name), []).append(
                next(iter(req.specifier)).version)
    assert {name: versions for name, versions in locked.items() if len(versions) != 1} == {}
    for req in _declared():
        if req.marker is not None and not req.marker.evaluate(env):
            continue
        (version,) = locked.get(canonicalize_name(req.name), [None])
        assert version is not None, f"{req} is not in requirements.lock (run scripts/lock)"
        assert req.specifier.contains(version, prereleases=True), (
            f"requirements.lock pins {req.name}=={version}, outside pyproject's {req}")


def test_declared_ranges_have_upper_bounds():
    """Honest ranges for library users: a tested lower bound and an upper bound each."""
    for req in _declared():
        ops = {s.operator for s in req.specifier}
        assert ops == {"=="} or ({">=", "<"} <= ops), f"{req}: give it >=LOW,<HIGH"


def test_ci_and_the_quick_start_install_exactly_the_lock():
    """.ci/run and scripts/quickstart install the lock with hashes and trainspec without
    resolving again, built by the locked setuptools, so CI tests exactly what is locked."""
    for script in (ROOT / ".ci" / "run", ROOT / "scripts" / "quickstart"):
        installs = [line for line in script.read_text().splitlines() if "pip install" in line]
        assert len(installs) == 2, script
        assert installs[0].endswith("--require-hashes -r requirements.lock"), script
        assert " --no-deps --no-build-isolation " in installs[1], script


def test_the_build_backend_is_locked_and_used_by_every_install_after_the_lock():
    """pip builds trainspec in an isolated environment with the newest setuptools it finds,
    unhashed, unless told otherwise: the backend is locked, and every line that installs
    trainspec after the lock (scripts, init's repositories and workflow, the docs) builds it
    with that one."""
    locked = {canonicalize_name(r.name) for r, _ in _entries(LOCK.read_text())}
    backend = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    assert {canonicalize_name(Requirement(r).name) for r in backend} <= locked
    files = [".ci/run", "scripts/quickstart", "requirements.txt", "README.md", "docs/pulumi.md",
             "compiler/_templates/github-workflow.yml", "compiler.scaffold.INSTALL"]
    for name in files:
        text = scaffold.INSTALL if name == "compiler.scaffold.INSTALL" else (ROOT / name).read_text()
        lines = re.findall(r"pip install[^\n`]*?(?:-r requirements\.txt|-e \.)", text)
        assert lines, name
        for line in lines:
            assert "--no-build-isolation" in line, f"{name}: {line}"
