"""`python -m compiler init DIR`: a ready specs repository, never overwriting anything.
(`pulumi preview`/`up` in such a repository: tests/engine/test_init.py.)"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from compiler import cli, emit, scaffold
from compiler.schema import validate as schemas
from compiler.version import VERSION

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = ["Pulumi.yaml", "__main__.py", "requirements.lock", "requirements.txt", "specs/example.yaml",
            "schemas/v1/trainspec.schema.json", "compiled/example.json",
            "compiled/.trainspec-outputs", "trainspec.yaml", ".github/workflows/trainspec.yml",
            ".pre-commit-config.yaml", ".vscode/settings.json", ".vscode/extensions.json",
            ".gitignore"]


def run(*argv: str, cwd: Path | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def tree(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_init_writes_a_repository_that_validates_and_is_up_to_date(tmp_path):
    target = tmp_path / "ml-jobs"
    code, out, err = run("init", str(target), "--requirement", "trainspec[pulumi]==0.1.0")
    assert (code, err) == (0, "")
    assert tree(target) == sorted(EXPECTED)
    assert out.splitlines()[0] == f"created {target} (Pulumi project 'ml-jobs', trainspec {VERSION}):"
    assert (target / "Pulumi.yaml").read_text().startswith("name: ml-jobs\n")
    assert "keepJobRecords:" in (target / "Pulumi.yaml").read_text()  # the config schema
    assert (target / "requirements.txt").read_text().splitlines()[-1] == "trainspec[pulumi]==0.1.0"
    assert scaffold.INSTALL in (target / "requirements.txt").read_text()
    # The example validates, its compiled request is current, its modeline names the schema.
    code, _, err = run("validate", str(target / "specs"))
    assert code == 0, err
    code, _, err = run("compile", str(target / "specs"), "--out", str(target / "compiled"),
                       "--check")
    assert code == 0, err
    first = (target / "specs" / "example.yaml").read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schemas/v1/trainspec.schema.json"
    schema = json.loads((target / "specs" / "../schemas/v1/trainspec.schema.json").read_text())
    assert schema == schemas.schema()
    assert "metadata" in schema["properties"] and "run" in schema["properties"]["metadata"][
        "properties"]
    # VS Code: the same schema for every spec under specs/, from the Red Hat YAML extension.
    settings = json.loads((target / ".vscode" / "settings.json").read_text())
    ((path, globs),) = settings["yaml.schemas"].items()
    assert json.loads((target / path).read_text()) == schema
    assert globs == ["specs/**/*.yaml", "specs/**/*.yml"]
    assert json.loads((target / ".vscode" / "extensions.json").read_text()) == {
        "recommendations": ["redhat.vscode-yaml"]}


def test_init_writes_this_trainspecs_lock_and_installs_from_it(tmp_path):
    """A new repository installs the same pinned, hashed packages as this one's CI."""
    target = tmp_path / "repo"
    assert run("init", str(target))[0] == 0
    lock = (target / "requirements.lock").read_text()
    assert lock.startswith(f"# trainspec {VERSION}'s lock")
    def pins(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("#")]
    assert pins(lock) == pins((ROOT / "requirements.lock").read_text())
    assert (scaffold.TEMPLATES / "requirements.lock").read_text() == (
        ROOT / "requirements.lock").read_text()
    for install in ("pip install --require-hashes -r requirements.lock",
                    "pip install --no-deps --no-build-isolation -r requirements.txt"):
        assert install in scaffold.INSTALL
        assert (target / ".github" / "workflows" / "trainspec.yml").read_text().count(install) == 2
    assert "pip install -r requirements.txt" not in (
        target / ".github" / "workflows" / "trainspec.yml").read_text()


def test_the_repository_files_are_the_templates(tmp_path):
    """This repository is a specs repository too: its program files are what init writes."""
    templates = scaffold.TEMPLATES
    assert (ROOT / "__main__.py").read_text() == (templates / "__main__.py").read_text()
    assert (ROOT / "Pulumi.yaml").read_text() == (templates / "Pulumi.yaml").read_text()
    assert (ROOT / "examples" / "github-actions" / "trainspec.yml").read_text() == (
        templates / "github-workflow.yml").read_text()
    main = (templates / "__main__.py").read_text()
    assert "from compiler.pulumi_program import main" in main and len(main.splitlines()) <= 12
    # Every command the CI workflow and the pre-commit hooks run exists.
    for name in ("github-workflow.yml", "pre-commit-config.yaml"):
        text = (templates / name).read_text()
        for command in ("validate specs", "compile specs --out compiled --check"):
            assert f"python -m compiler {command}" in text


def test_init_never_overwrites_and_writes_nothing_then(tmp_path):
    target = tmp_path / "repo"
    (target / "specs").mkdir(parents=True)
    (target / "specs" / "example.yaml").write_text("mine")
    (target / "Pulumi.yaml").write_text("name: mine\n")
    code, out, err = run("init", str(target))
    assert (code, out) == (1, "")
    assert err == (f"error: {target} already has Pulumi.yaml, specs/example.yaml; init never "
                   "overwrites a file: nothing written\n")
    assert tree(target) == ["Pulumi.yaml", "specs/example.yaml"]
    assert (target / "specs" / "example.yaml").read_text() == "mine"
    # Unrelated files are no obstacle.
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "README.md").write_text("hello")
    assert run("init", str(tmp_path / "other"), "--name", "other")[0] == 0
    assert (tmp_path / "other" / "README.md").read_text() == "hello"


def test_init_refuses_bad_targets_and_names(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    code, _, err = run("init", str(f))
    assert code == 1 and "exists and is not a folder; nothing written" in err
    code, _, err = run("init", str(tmp_path / "ok"), "--name", "bad name")
    assert code == 1 and "'bad name' is not a Pulumi project name" in err
    assert not (tmp_path / "ok").exists()


def test_a_write_that_fails_midway_leaves_nothing(tmp_path):
    target = tmp_path / "repo"
    target.mkdir()
    (target / ".github").write_text("a file where a folder must go")
    code, out, err = run("init", str(target))
    assert code == 1 and out == "" and "nothing written" in err
    assert tree(target) == [".github"]
    assert not (target / "specs").exists()


def _git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_requirement_pins_a_version_a_commit_or_says_it_cannot(tmp_path):
    installed = tmp_path / "site-packages"
    installed.mkdir()
    assert scaffold.requirement(installed) == (f"trainspec[pulumi]=={VERSION}", [])
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text('[project]\nname = "trainspec"\n')
    line, comments = scaffold.requirement(checkout)
    assert line == f"trainspec[pulumi] @ file://localhost{checkout}"
    assert "is not a git repository" in comments[0]
    _git(checkout, "init", "-q")
    _git(checkout, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "x",
         "--allow-empty")
    _git(checkout, "add", "pyproject.toml")
    _git(checkout, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", "y")
    commit = _git(checkout, "rev-parse", "HEAD")
    line, comments = scaffold.requirement(checkout)
    assert line == f"trainspec[pulumi] @ git+file://localhost{checkout}@{commit}"
    assert comments[-1] == f"#   trainspec[pulumi]=={VERSION}"
    (checkout / "pyproject.toml").write_text('[project]\nname = "trainspec"\n# edited\n')
    line, comments = scaffold.requirement(checkout)
    assert line == f"trainspec[pulumi] @ file://localhost{checkout}"
    assert "has uncommitted changes" in comments[0]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_commit_pin_installs_from_the_local_clone(tmp_path):
    """The pin of a clean checkout installs with pip without any index serving trainspec."""
    clone = tmp_path / "trainspec"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    line, _ = scaffold.requirement(clone)
    assert line.startswith("trainspec[pulumi] @ git+file://localhost")
    (tmp_path / "requirements.txt").write_text(line + "\n")
    target = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--no-build-isolation", "--target", str(target), "-r",
                           str(tmp_path / "requirements.txt")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert (target / "compiler" / "pulumi_program.py").is_file()
    assert (target / "compiler" / "_templates" / "Pulumi.yaml").is_file()
    assert (target / f"trainspec-{VERSION}.dist-info").is_dir()


def test_manifest_text_is_what_compile_out_writes(tmp_path):
    emit.write_tree(tmp_path, {"a.json": "{}\n"})
    assert (tmp_path / emit.MANIFEST).read_text() == emit.manifest_text({"a.json": "{}\n"})


def test_the_published_pre_commit_hook_runs_an_existing_command(monkeypatch):
    """.pre-commit-hooks.yaml: pre-commit installs this package and runs `entry args` in the
    specs repository; init's local hook of the same id checks the same files the same way."""
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "trainspec-validate"]
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    script, *words = hook["entry"].split()
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts[script] == "compiler.cli:main"
    monkeypatch.chdir(ROOT)  # pre-commit runs hooks from the repository root
    specs = sorted(p.as_posix() for p in Path("specs").rglob("*.y*ml"))
    assert specs and all(re.search(hook["files"], p) for p in specs)
    # A repo config changes every spec's result: the hook runs when one changes too.
    configs = ["trainspec.yaml", "pyproject.toml", "specs/team/trainspec.yaml", "a/pyproject.toml"]
    assert all(re.search(hook["files"], p) for p in configs)
    assert not any(re.search(hook["files"], p) for p in ["README.md", "src/trainspec.yaml.bak",
                                                         "src/app.py", "my-pyproject.toml"])
    assert run(*words, *hook["args"])[0] == 0
    local = yaml.safe_load((scaffold.TEMPLATES / "pre-commit-config.yaml").read_text())
    (mine,) = [h for repo in local["repos"] for h in repo["hooks"] if h["id"] == hook["id"]]
    assert (mine["files"], mine["pass_filenames"]) == (hook["files"], hook["pass_filenames"])
    assert mine["entry"] == "python -m compiler " + " ".join(words + hook["args"])
