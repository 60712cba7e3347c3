"""A release: CHANGELOG.md's newest version is the one `trainspec --version` prints, the package
builds and the provider plugin reports; `python -m build` makes an sdist and a wheel that
`twine check` accepts; the wheel installs in a fresh virtualenv (no index: the lock's wheels,
TRAINSPEC_WHEELHOUSE, which .ci/run fills) and runs there, from the lines the README gives."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from compiler import install
from compiler.version import VERSION

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = ROOT / "CHANGELOG.md"
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)
# https://keepachangelog.com/en/1.1.0/: the kinds of change, each a ### heading of a release.
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def changelog_version() -> str:
    found = RELEASE.search(CHANGELOG.read_text(encoding="utf-8"))
    assert found, "CHANGELOG.md has no release heading '## [X.Y.Z] - YYYY-MM-DD'"
    return found[1]


def test_the_changelog_is_keep_a_changelog_and_its_newest_release_is_the_version():
    text = CHANGELOG.read_text(encoding="utf-8")
    headings = re.findall(r"^(#{1,3}) (.*)$", text, re.M)
    assert headings[0] == ("#", "Changelog") and headings[1] == ("##", "[Unreleased]")
    releases = [title for level, title in headings[2:] if level == "##"]
    assert releases and all(RELEASE.match(f"## {title}") for title in releases), releases
    versions = [tuple(map(int, RELEASE.match(f"## {t}")[1].split("."))) for t in releases]
    assert versions == sorted(versions, reverse=True), "newest first"
    assert {title for level, title in headings if level == "###"} <= KINDS
    assert changelog_version() == VERSION


def test_trainspec_version_and_the_package_version_are_the_changelog_s():
    proc = subprocess.run([sys.executable, "-m", "compiler", "--version"], capture_output=True,
                          text=True, timeout=60)
    assert proc.stdout == f"trainspec {changelog_version()}\n"
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "compiler.version.VERSION"}
    # Where a release is named for users: the README's install lines, the hooks' rev.
    assert f"@v{VERSION}" in (ROOT / "README.md").read_text()
    assert f"rev: v{VERSION}" in (ROOT / ".pre-commit-hooks.yaml").read_text()


def test_the_release_script_checks_what_the_tests_check():
    script = (ROOT / "scripts" / "release").read_text()
    for step in ("python -m build", "twine check --strict", "git tag -a", "CHANGELOG.md",
                 "tests/test_release.py"):
        assert step in script, step


def readme_install_lines() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r'^\$ (pip install .*?)(?:\s+#.*)?$', section, re.M)


@pytest.mark.slow
def test_build_twine_check_and_a_fresh_venv_runs_the_wheel(tmp_path):
    wheelhouse = os.environ.get("TRAINSPEC_WHEELHOUSE")
    if not wheelhouse:
        how = ("needs the lock's wheels for an offline install: python -m pip download "
               "--require-hashes --no-deps -r requirements.lock -d DIR, then "
               "TRAINSPEC_WHEELHOUSE=DIR (.ci/run does both)")
        if os.environ.get("TRAINSPEC_REQUIRE_ENGINE"):
            pytest.fail(how + " (TRAINSPEC_REQUIRE_ENGINE is set: CI must run it)")
        pytest.skip(how)
    dist = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir",
                            str(dist), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    built = sorted(p.name for p in dist.iterdir())
    assert built == [f"trainspec-{VERSION}-py3-none-any.whl", f"trainspec-{VERSION}.tar.gz"]
    twine = subprocess.run([sys.executable, "-m", "twine", "check", "--strict",
                            *map(str, sorted(dist.iterdir()))],
                           capture_output=True, text=True, timeout=300)
    assert twine.returncode == 0, twine.stdout + twine.stderr
    assert twine.stdout.count("PASSED") == 2, twine.stdout

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python, bindir = venv / "bin" / "python", venv / "bin"
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(tmp_path),
           "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": f"{wheelhouse} {dist}",
           "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    lines = readme_install_lines()
    wheel_line = [line for line in lines if ".whl" in line]
    index_line = [line for line in lines if f"=={VERSION}" in line]
    git_line = [line for line in lines if "git+https://" in line and f"@v{VERSION}" in line]
    assert wheel_line and index_line and git_line, lines
    # What init writes into requirements.txt (index form) is the README's index line.
    assert index_line[0].split(None, 2)[2].strip('"') == install.index_line()[0]
    # The index line first (dist/ stands in for the index), then the wheel's: already there.
    for line in (index_line[0], wheel_line[0]):
        argv = [a.strip('"') for a in line.split()]
        argv = [a.replace("dist/", f"{dist}/") for a in argv]
        assert argv[:2] == ["pip", "install"], line
        proc = subprocess.run([str(python), "-m", *argv], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"{line}\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}"

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True,
                              timeout=300)
    version = run(str(bindir / "trainspec"), "--version")
    assert version.stdout == f"trainspec {VERSION}\n", version.stderr
    for folder in ("specs", "examples/specs"):
        proc = run(str(bindir / "trainspec"), "validate", str(ROOT / folder))
        assert proc.returncode == 0, proc.stderr
        assert re.search(r"\d+ spec\(s\) checked, 0 with errors$", proc.stderr.strip())
    proc = run(str(python), "-c", "import compiler, compiler.pulumi_program, compiler.provider;"
               "print(compiler.__file__)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(str(venv)), "imported from the venv, not this checkout"
    assert (bindir / "pulumi-resource-trainspec").is_file()
