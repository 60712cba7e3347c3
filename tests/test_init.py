"""`python -m compiler init DIR`: a ready specs repository, never overwriting anything.
(`pulumi preview`/`up` in such a repository: tests/engine/test_init.py.)"""

from __future__ import annotations

import functools
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from compiler import cli, emit, install, scaffold
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


VERIFIED = install.unverified


@pytest.fixture(autouse=True)
def an_origin_ci_can_reach(monkeypatch):
    """Whether this checkout has an http(s) remote is the machine's: the tests of init's files
    and messages run as from a release on the index (init's warning has its own test)."""
    monkeypatch.setattr(install, "unverified", lambda root=None: None)


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
    assert out.splitlines()[0] == (f"{target}: Pulumi project 'ml-jobs', trainspec {VERSION} "
                                   "(never overwriting a file):")
    assert out.splitlines()[1:len(EXPECTED) + 1] == [f"  created  {p}" for p in EXPECTED]
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
    for line in ("pip install --require-hashes -r requirements.lock",
                 "pip install --no-deps --no-build-isolation -r requirements.txt"):
        assert line in scaffold.INSTALL
        assert (target / ".github" / "workflows" / "trainspec.yml").read_text().count(line) == 2
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
    # Every command the CI workflow and the pre-commit hooks run exists; the hooks run the
    # project's venv, never whatever python is first on PATH.
    # CI validates and checks the compiled requests in one run (docs/speed.md).
    for name, python, commands in (
            ("github-workflow.yml", "python", ["compile specs --out compiled --check "
                                               "--format github --report sarif=trainspec.sarif"]),
            ("pre-commit-config.yaml", "venv/bin/python",
             ["validate specs", "compile specs --out compiled --check"])):
        text = (templates / name).read_text()
        for command in commands:
            assert f" {python} -m compiler {command}" in text
    hooks = yaml.safe_load((templates / "pre-commit-config.yaml").read_text())["repos"][0]["hooks"]
    assert [h["entry"].split()[0] for h in hooks] == ["venv/bin/python"] * 2
    # Every pull request: a python.source trainer may be any folder (a path filter of specs/
    # skipped a change that only touched the trainer, and compile --check failed later).
    workflow = yaml.safe_load((templates / "github-workflow.yml").read_text())
    assert workflow[True] == {"pull_request": None}  # YAML 1.1 reads the key `on` as true


def test_init_into_an_existing_repository_adds_and_never_overwrites(tmp_path):
    """A company repository: its .gitignore gets trainspec's lines once, its pre-commit config
    trainspec's hooks, its own requirements.txt and workflow are left (ours go beside them)."""
    target = tmp_path / "company"
    (target / ".github" / "workflows").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(target)], check=True)
    mine = {".gitignore": "node_modules/\n__pycache__/",  # no newline at the end
            ".pre-commit-config.yaml": "repos:\n- repo: https://github.com/psf/black\n"
                                       "  rev: 24.1.0\n  hooks:\n  - id: black\n",
            "requirements.txt": "numpy==2.1.0\n",
            ".github/workflows/trainspec.yml": "name: ours\non: push\n",
            "Pulumi.yaml": "name: theirs\n"}
    for rel, text in mine.items():
        (target / rel).write_text(text)
    (target / "scripts").mkdir()
    (target / "scripts" / "train.sh").write_text("gcloud ai custom-jobs create --region=x\n")
    code, out, err = run("init", str(target), "--dry-run")
    assert (code, err) == (0, "")
    assert {rel: (target / rel).read_text() for rel in mine} == mine  # nothing written
    assert "dry run: nothing written" in out.splitlines()[0]
    code, out2, err = run("init", str(target))
    assert (code, err) == (0, "")
    assert out2.splitlines()[1:] == out.splitlines()[1:]  # the dry run showed the plan
    report = out.splitlines()
    for line in ["  merged   .gitignore (added venv/, *.pyc)",
                 "  merged   .pre-commit-config.yaml (added trainspec-compiled, "
                 "trainspec-validate)",
                 "  created  requirements-trainspec.txt",
                 "  created  .github/workflows/trainspec-specs.yml",
                 "  left     Pulumi.yaml (another program's: no Pulumi project written)"]:
        assert line in report
    assert (target / ".gitignore").read_text() == (
        "node_modules/\n__pycache__/\n# trainspec (python -m compiler init)\nvenv/\n*.pyc\n")
    config = yaml.safe_load((target / ".pre-commit-config.yaml").read_text())
    assert [r["repo"] for r in config["repos"]] == ["https://github.com/psf/black", "local"]
    assert (target / ".pre-commit-config.yaml").read_text().startswith(mine[
        ".pre-commit-config.yaml"])
    for rel in ("requirements.txt", ".github/workflows/trainspec.yml", "Pulumi.yaml"):
        assert (target / rel).read_text() == mine[rel]
    workflow = (target / ".github" / "workflows" / "trainspec-specs.yml").read_text()
    assert "-r requirements-trainspec.txt" in workflow and "-r requirements.txt" not in workflow
    assert "-r requirements-trainspec.txt" in (target / "requirements.lock").read_text()
    # next: fits the repository found: no `git init` in a git repository; its gcloud scripts.
    nxt = out.split("next: ", 1)[1]
    assert "git init" not in nxt and "scripts/train.sh" in nxt
    assert "install --no-deps --no-build-isolation -r requirements-trainspec.txt" in nxt
    # Once is once: a second init merges nothing and leaves every file.
    code, again, _ = run("init", str(target))
    assert code == 0 and "merged" not in again and "created" not in again
    assert "  left     .pre-commit-config.yaml (has trainspec hooks)" in again.splitlines()


def test_a_pre_commit_config_init_cannot_append_to_is_left_and_the_snippet_printed(tmp_path):
    target = tmp_path / "repo"
    target.mkdir()
    odd = "repos: [{repo: local, hooks: [{id: x, name: x, entry: x, language: system}]}]\n"
    (target / ".pre-commit-config.yaml").write_text(odd)
    code, out, _ = run("init", str(target))
    assert code == 0 and (target / ".pre-commit-config.yaml").read_text() == odd
    assert "  left     .pre-commit-config.yaml (not a list of repos trainspec can append to; " \
           "add the hooks below)" in out
    snippet = out.split(".pre-commit-config.yaml: add trainspec's hooks to your repos:\n")[1]
    assert "id: trainspec-validate" in snippet and "git init" in out.split("next: ")[1]


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


def _commit(folder: Path, message: str) -> None:
    _git(folder, "-c", "user.email=t@e", "-c", "user.name=t", "commit", "-qm", message)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_requirement_is_the_index_version_or_the_git_remote_at_the_tag_never_a_path(
        tmp_path, monkeypatch):
    pinned = f"trainspec[pulumi]=={VERSION}"
    index = (pinned, install.index_line()[1])
    assert "(init --from git;" in index[1][-2] and "before the release is tagged" in index[1][-1]
    installed = tmp_path / "site-packages"
    installed.mkdir()
    assert install.requirement("auto", installed) == index  # an index install
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text('[project]\nname = "trainspec"\n')
    assert install.requirement("auto", checkout) == index  # not git
    _git(checkout, "init", "-q")
    _git(checkout, "add", "pyproject.toml")
    _commit(checkout, "x")
    commit = _git(checkout, "rev-parse", "HEAD")
    # A remote on this machine only (a path) is no URL a CI runner can install from.
    _git(checkout, "remote", "add", "origin", str(tmp_path / "elsewhere"))
    assert install.requirement("auto", checkout) == index
    with pytest.raises(install.NoInstallableSource, match="pass --from index"):
        install.requirement("git", checkout)
    _git(checkout, "remote", "set-url", "origin", "git@github.com:acme/trainspec.git")
    line, comments = install.requirement("auto", checkout)
    assert line == f"trainspec[pulumi] @ git+ssh://git@github.com/acme/trainspec.git@{commit}"
    assert f"no tag v{VERSION}" in comments[0] and comments[-1] == f"#   {pinned}"
    _git(checkout, "tag", "-a", f"v{VERSION}", "-m", "release")
    (checkout / "later").write_text("a commit after the tag")
    _git(checkout, "add", "later")
    _commit(checkout, "later")
    _git(checkout, "remote", "set-url", "origin", "https://github.com/acme/trainspec")
    line, _ = install.requirement("auto", checkout)
    assert line == f"trainspec[pulumi] @ git+https://github.com/acme/trainspec@v{VERSION}"
    assert install.requirement("index", checkout) == index
    # init: --from git without a reachable remote is refused before anything is written.
    monkeypatch.setattr(install, "_git_origin", lambda root: None)
    code, out, err = run("init", str(tmp_path / "new"), "--from", "git")
    assert code == 1 and out == "" and "pass --from index" in err and "nothing written" in err
    assert not (tmp_path / "new").exists()


def test_a_pip_install_from_git_keeps_its_url_and_revision(monkeypatch):
    """Installed with `pip install "trainspec[pulumi] @ git+URL@REV"` (PEP 610 records it)."""
    class Dist:
        def read_text(self, name):
            assert name == "direct_url.json"
            return json.dumps({"url": "https://github.com/acme/trainspec", "vcs_info": {
                "vcs": "git", "requested_revision": "v0.2.0", "commit_id": "ab" * 20}})
    monkeypatch.setattr(install.metadata, "distribution", lambda name: Dist())
    line, comments = install.requirement("auto", Path("/nonexistent"))
    assert line == "trainspec[pulumi] @ git+https://github.com/acme/trainspec@v0.2.0"
    for url in ("file:///tmp/trainspec", "/tmp/trainspec"):
        Dist.read_text = lambda self, name, url=url: json.dumps(
            {"url": url, "vcs_info": {"vcs": "git", "commit_id": "ab" * 20}})
        assert install.requirement("auto", Path("/nonexistent"))[0] == \
            f"trainspec[pulumi]=={VERSION}"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_an_index_pin_from_a_wheel_or_a_local_checkout_is_called_unverified(tmp_path,
                                                                             monkeypatch):
    """`pip install trainspec-X.whl` or a checkout whose origin is a path: `init` still pins
    the index version, and says plainly that the index may not have it, and what to pass."""
    pinned = f"trainspec[pulumi]=={VERSION}"
    wheel = f"file:///tmp/dist/trainspec-{VERSION}-py3-none-any.whl"

    class Dist:
        direct: dict | None = {"url": wheel, "archive_info": {}}

        def read_text(self, name):
            return None if self.direct is None else json.dumps(self.direct)
    monkeypatch.setattr(install, "unverified", VERIFIED)
    monkeypatch.setattr(install.metadata, "distribution", lambda name: Dist())
    monkeypatch.setattr(install, "PACKAGE_ROOT", tmp_path / "site-packages")
    code, out, err = run("init", str(tmp_path / "a"), "--dry-run")
    assert code == 0 and f"requirements.txt: {pinned}" in out
    assert err.startswith(f"warning: {pinned} is unverified: trainspec {VERSION} may not be on "
                          f"your package index (this trainspec was installed from {wheel})")
    assert "--requirement LINE" in err and "--from git" in err
    code, out, err = run("init", str(tmp_path / "b"), "--dry-run", "--from", "index")
    assert code == 0 and err == ""  # asked for by name
    Dist.direct = None  # from an index: its pin is what was installed
    assert run("init", str(tmp_path / "c"), "--dry-run")[2] == ""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text('[project]\nname = "trainspec"\n')
    _git(checkout, "init", "-q")
    _git(checkout, "remote", "add", "origin", str(tmp_path / "elsewhere"))
    assert install.requirement("auto", checkout)[0] == pinned
    assert install.unverified(checkout) == (f"this trainspec is the checkout {checkout}, "
                                            "which has no http(s) or ssh remote")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_git_requirement_installs_from_the_served_repository(tmp_path):
    """What init writes from a checkout whose remote is a git server installs with pip from
    that server at the tag (git daemon on localhost stands in for GitHub)."""
    served = tmp_path / "served"
    served.mkdir()
    subprocess.run(["git", "clone", "-q", "--bare", str(ROOT), str(served / "trainspec.git")],
                   check=True, timeout=120)
    bare = served / "trainspec.git"
    # At HEAD, also where the checkout holds the release's tag on an earlier commit already.
    _git(bare, "-c", "user.email=t@e", "-c", "user.name=t", "tag", "-a", "-f", f"v{VERSION}",
         "-m", "release", "HEAD")
    (bare / "git-daemon-export-ok").write_text("")
    port = _free_port()
    daemon = subprocess.Popen(["git", "daemon", "--reuseaddr", "--listen=127.0.0.1",
                               f"--port={port}", f"--base-path={served}", "--export-all",
                               str(served)], stderr=subprocess.PIPE)
    try:
        _wait_listening(port, daemon)
        clone = tmp_path / "trainspec"
        url = f"git://127.0.0.1:{port}/trainspec.git"
        subprocess.run(["git", "clone", "-q", url, str(clone)], check=True, timeout=120)
        line, _ = install.requirement("auto", clone)
        assert line == f"trainspec[pulumi] @ git+{url}@v{VERSION}"
        (tmp_path / "requirements.txt").write_text(line + "\n")
        target = tmp_path / "site"
        proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                               "--no-build-isolation", "--no-index", "--target", str(target),
                               "-r", str(tmp_path / "requirements.txt")],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
    finally:
        daemon.terminate()
        daemon.wait(10)
    assert (target / "compiler" / "pulumi_program.py").is_file()
    assert (target / f"trainspec-{VERSION}.dist-info").is_dir()


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_listening(port: int, daemon: subprocess.Popen) -> None:
    import socket
    import time
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert daemon.poll() is None, daemon.stderr.read().decode()
            time.sleep(0.1)
    raise AssertionError("git daemon did not listen")


def test_manifest_text_is_what_compile_out_writes(tmp_path):
    with emit.Staging(tmp_path) as staging:
        staging.add("a.json", "{}\n")
        staging.commit()
    assert (tmp_path / emit.MANIFEST).read_text() == emit.manifest_text({"a.json": "{}\n"})


def test_the_published_pre_commit_hooks_run_existing_commands_on_every_commit(monkeypatch):
    """.pre-commit-hooks.yaml: pre-commit installs this package in an environment of its own
    (language: python) and runs `entry args` in the specs repository on every commit (a spec's
    python.source trainer may be any folder); init's local hooks of the same ids do the same
    from the project's venv."""
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    local = yaml.safe_load((scaffold.TEMPLATES / "pre-commit-config.yaml").read_text())
    mine = {h["id"]: h for repo in local["repos"] for h in repo["hooks"]}
    assert set(hooks) == set(mine) == {"trainspec-validate", "trainspec-compiled"}
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    monkeypatch.chdir(ROOT)  # pre-commit runs hooks from the repository root
    for hook_id, hook in hooks.items():
        assert hook["language"] == "python" and hook["pass_filenames"] is False
        assert hook["always_run"] is True and "files" not in hook
        script, *words = hook["entry"].split()
        assert scripts[script] == "compiler.cli:main"
        assert run(*words, *hook["args"])[0] == 0, hook_id
        assert (mine[hook_id]["always_run"], mine[hook_id]["pass_filenames"]) == (True, False)
        assert mine[hook_id]["entry"] == "venv/bin/python -m compiler " + " ".join(
            words + hook["args"])


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_credentials_in_the_remote_url_are_never_written_or_printed(tmp_path, monkeypatch):
    """A remote set with a token (CI checkouts do this) gives the URL without it, and says so."""
    secret = "ghp_SECRET0123456789"
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text('[project]\nname = "trainspec"\n')
    _git(checkout, "init", "-q")
    _git(checkout, "add", "pyproject.toml")
    _commit(checkout, "x")
    commit = _git(checkout, "rev-parse", "HEAD")
    _git(checkout, "remote", "add", "origin",
         f"https://x-access-token:{secret}@github.com/acme/trainspec.git")
    for source in ("auto", "git"):
        line, comments = install.requirement(source, checkout)
        assert line == f"trainspec[pulumi] @ git+https://github.com/acme/trainspec.git@{commit}"
        assert install.DROPPED in comments and secret not in "".join(comments)
    _git(checkout, "remote", "set-url", "origin", f"https://{secret}@github.com:8443/a/t")
    assert install.requirement("git", checkout)[0] == \
        f"trainspec[pulumi] @ git+https://github.com:8443/a/t@{commit}"
    _git(checkout, "remote", "set-url", "origin", "ssh://git@github.com/acme/trainspec.git")
    line, comments = install.requirement("git", checkout)  # ssh's user name is no secret
    assert line.startswith("trainspec[pulumi] @ git+ssh://git@github.com/acme/trainspec.git@")
    assert install.DROPPED not in comments
    # init writes and prints neither, from a checkout or from a pip install (direct_url.json).

    class Dist:
        def read_text(self, name):
            return json.dumps({"url": f"https://oauth2:{secret}@gitlab.com/acme/trainspec",
                               "vcs_info": {"vcs": "git", "requested_revision": "v0.2.0"}})
    monkeypatch.setattr(install.metadata, "distribution", lambda name: Dist())
    monkeypatch.setattr(install, "requirement", functools.partial(  # as pip installed it
        install.requirement, root=Path("/nonexistent")))
    code, out, err = run("init", str(tmp_path / "repo"), "--from", "git")
    assert (code, err) == (0, "")
    written = (tmp_path / "repo" / "requirements.txt").read_text()
    assert secret not in out + written
    assert "trainspec[pulumi] @ git+https://gitlab.com/acme/trainspec@v0.2.0" in written
    assert install.DROPPED in written
    assert "note: the credentials in the git remote's URL were dropped (never written)" in out



@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_named_pipes_and_links_in_the_repository_are_never_opened(tmp_path):
    """Looking for gcloud scripts reads regular files only: a named pipe (or a link to one, or
    to a file outside) would block `init` forever, or read what is not the repository's."""
    target = tmp_path / "repo"
    (target / "tools").mkdir(parents=True)
    os.mkfifo(target / "pipe")
    os.mkfifo(target / "tools" / "ctl.sh")
    (target / "tools" / "link.sh").symlink_to(target / "pipe")
    (tmp_path / "outside.sh").write_text("gcloud ai custom-jobs create --region=x\n")
    (target / "tools" / "outside.sh").symlink_to(tmp_path / "outside.sh")
    (target / "tools" / "train.sh").write_text("gcloud ai custom-jobs create --region=x\n")
    for extra in (["--dry-run"], []):
        done = subprocess.run([sys.executable, "-m", "compiler", "init", str(target), *extra,
                               "--from", "index"],  # no warning whatever this checkout's remote
                              capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert (done.returncode, done.stderr) == (0, "")
        nxt = done.stdout.split("next: ", 1)[1]
        assert "# your gcloud jobs (tools/train.sh), one spec each:" in nxt


def test_init_never_writes_through_a_symbolic_link(tmp_path):
    """A file or folder that is a link (here: to outside the repository) is left, with a note;
    nothing outside the repository changes."""
    outside = tmp_path / "outside"
    (outside / "github").mkdir(parents=True)
    (outside / "specs").mkdir()
    (outside / "global-gitignore").write_text("*.log\n")
    (outside / "pre-commit.yaml").write_text("repos:\n- repo: local\n  hooks: []\n")
    target = tmp_path / "repo"
    target.mkdir()
    (target / ".gitignore").symlink_to("../outside/global-gitignore")
    (target / ".pre-commit-config.yaml").symlink_to(outside / "pre-commit.yaml")
    (target / ".github").symlink_to(outside / "github")
    (target / "specs").symlink_to(outside / "specs")
    before = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    for extra in (["--dry-run"], []):
        code, out, err = run("init", str(target), *extra)
        assert (code, err) == (0, "")
        for line in ["  left     .gitignore (.gitignore is a symbolic link: init never writes "
                     "through one)",
                     "  left     .pre-commit-config.yaml (.pre-commit-config.yaml is a symbolic "
                     "link: init never writes through one)",
                     "  left     .github/workflows/trainspec.yml (.github is a symbolic link: "
                     "init never writes through one)",
                     "  left     specs/example.yaml (specs is a symbolic link: init never writes "
                     "through one)"]:
            assert line in out.splitlines()
    assert {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in outside.rglob("*")) == sorted(
        ["github", "specs", "global-gitignore", "pre-commit.yaml"])
    assert (target / "trainspec.yaml").is_file()  # the rest was written


def test_a_refused_write_is_predicted_by_the_dry_run_and_writes_nothing(tmp_path):
    """A file where a folder must go: the dry run refuses as the run does (one plan), and
    nothing is touched, not even a byte of a file that is not UTF-8."""
    target = tmp_path / "repo"
    target.mkdir()
    config = b"# caf\xe9\nrepos:\n- repo: local\n  hooks: []\n"
    (target / ".pre-commit-config.yaml").write_bytes(config)
    (target / ".gitignore").write_bytes(b"caf\xe9.log\n")
    (target / ".vscode").write_text("a file where a folder must go")
    for extra in (["--dry-run"], []):
        code, out, err = run("init", str(target), *extra)
        assert (code, out) == (1, "")
        assert err == ("error: cannot write .vscode/settings.json: .vscode exists and is not a "
                       "folder; nothing written\n")
        assert tree(target) == [".gitignore", ".pre-commit-config.yaml", ".vscode"]
        assert (target / ".pre-commit-config.yaml").read_bytes() == config
        assert (target / ".gitignore").read_bytes() == b"caf\xe9.log\n"


def test_a_write_that_fails_late_is_undone_to_the_byte(tmp_path, monkeypatch):
    """A failure the plan cannot foresee (a full disk): merged files get their bytes back,
    created files and every folder init made go."""
    target = tmp_path / "repo"
    target.mkdir()
    (target / ".gitignore").write_bytes(b"caf\xe9.log")  # Latin-1, no newline at the end
    real = os.open

    def full(path, flags, *mode):
        if str(path).endswith("extensions.json"):
            raise OSError(28, "No space left on device", str(path))
        return real(path, flags, *mode)
    monkeypatch.setattr(os, "open", full)
    code, out, err = run("init", str(target))
    assert (code, out) == (1, "")
    assert err == ("error: cannot write .vscode/extensions.json: No space left on device; "
                   "nothing written\n")
    assert sorted(p.name for p in target.rglob("*")) == [".gitignore"]
    assert (target / ".gitignore").read_bytes() == b"caf\xe9.log"
    # A non-UTF-8 pre-commit config is left (pre-commit reads UTF-8), its hooks printed.
    monkeypatch.setattr(os, "open", real)
    (target / ".pre-commit-config.yaml").write_bytes(b"# caf\xe9\nrepos: []\n")
    code, out, _ = run("init", str(target))
    assert code == 0 and (target / ".pre-commit-config.yaml").read_bytes() == \
        b"# caf\xe9\nrepos: []\n"
    assert "  left     .pre-commit-config.yaml (not UTF-8 text, or unreadable; add the hooks " \
           "below)" in out.splitlines()
    assert (target / ".gitignore").read_bytes().startswith(b"caf\xe9.log\n# trainspec")


def test_only_a_trainspec_requirement_makes_requirements_txt_ours(tmp_path):
    """A requirements.txt that names trainspec in a comment does not install it: ours goes
    beside it, and the workflow and next steps install from ours."""
    target = tmp_path / "repo"
    target.mkdir()
    theirs = "# shared deps; trainspec specs live in specs/\nnumpy==2.1.0  # not trainspec\n"
    (target / "requirements.txt").write_text(theirs)
    code, out, err = run("init", str(target), "--requirement", "trainspec[pulumi]==0.2.0")
    assert (code, err) == (0, "")
    assert "  created  requirements-trainspec.txt" in out.splitlines()
    assert "requirements-trainspec.txt: trainspec[pulumi]==0.2.0" in out.splitlines()
    assert (target / "requirements.txt").read_text() == theirs
    workflow = (target / ".github/workflows/trainspec.yml").read_text()
    assert "-r requirements-trainspec.txt" in workflow and "-r requirements.txt" not in workflow
    assert "-r requirements-trainspec.txt" in out.split("next: ", 1)[1]
    for line in ("trainspec[pulumi]==0.2.0", "Trainspec>=0.2 ; python_version >= '3.10'",
                 "trainspec[pulumi] @ git+https://github.com/acme/trainspec@v0.2.0",
                 "trainspec==0.2.0 \\\n    --hash=sha256:" + "0" * 64, "trainspec  # ours"):
        other = tmp_path / "other"
        other.mkdir(exist_ok=True)
        (other / "requirements.txt").write_text(f"numpy\n{line}\n")
        code, out, _ = run("init", str(other), "--dry-run")
        assert code == 0 and "  left     requirements.txt (exists)" in out.splitlines(), line


def test_a_pulumi_project_of_another_program_is_left_and_never_run(tmp_path):
    """Beside another team's Pulumi project, init writes no Pulumi project: the workflow and
    the next steps run no `pulumi` (the other program)."""
    target = tmp_path / "o7"
    target.mkdir()
    theirs = "name: acme-infra\nruntime: nodejs\n"
    (target / "Pulumi.yaml").write_text(theirs)
    code, out, err = run("init", str(target))
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (f"{target}: no Pulumi project (Pulumi.yaml is project "
                                   f"'acme-infra' (nodejs)), trainspec {VERSION} (never "
                                   "overwriting a file):")
    assert out.splitlines()[1:3] == [
        "  left     Pulumi.yaml (another program's: no Pulumi project written)",
        "  left     __main__.py (not written: no Pulumi project here)"]
    assert (target / "Pulumi.yaml").read_text() == theirs
    assert not (target / "__main__.py").exists()
    workflow = (target / ".github/workflows/trainspec.yml").read_text()
    assert "pulumi" not in workflow.split("jobs:", 1)[1]
    assert list(yaml.safe_load(workflow)["jobs"]) == ["review"]
    nxt = out.split("next: ", 1)[1]
    assert "pulumi preview" not in nxt and "pulumi stack" not in nxt
    assert f"python -m compiler init {target / 'infra' / 'trainspec'}" in nxt
    # A __main__.py of another program (a python Pulumi.yaml would run it) is foreign too.
    other = tmp_path / "pkg"
    other.mkdir()
    (other / "__main__.py").write_text("print('hello')\n")
    code, out, _ = run("init", str(other), "--dry-run")
    assert code == 0 and "no Pulumi project (__main__.py is another program's)" in out
    # A repository init made before keeps its project.
    assert run("init", str(tmp_path / "mine"))[0] == 0
    code, out, _ = run("init", str(tmp_path / "mine"))
    assert code == 0 and "  left     Pulumi.yaml (exists)" in out.splitlines()
    assert "pulumi preview" in out


def test_a_folder_init_may_not_write_is_refused_before_anything_is_written(tmp_path,
                                                                           monkeypatch):
    """(Permissions as os.access and mkdir see them: tests may run as root, who writes all.)"""
    locked = tmp_path / "locked"
    locked.mkdir()
    access, mkdir = os.access, os.mkdir
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: Path(p) != locked and access(
        p, mode, **kw))

    def refuse(path, *args, **kwargs):
        if Path(path).parent == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return mkdir(path, *args, **kwargs)
    monkeypatch.setattr(os, "mkdir", refuse)
    code, out, err = run("init", str(locked / "new"))
    assert (code, out) == (1, "")
    assert err == f"error: cannot write {locked / 'new'}: Permission denied; nothing written\n"
    for extra in (["--dry-run"], []):
        code, out, err = run("init", str(locked), *extra)
        assert (code, out) == (1, "")
        assert err == (f"error: cannot write Pulumi.yaml: {locked} is not writable; nothing "
                       "written\n")
    assert list(locked.iterdir()) == []


def test_the_workflow_diffs_the_stack_its_preview_previews():
    """The PR comment's plan reads the stack config the preview uses (a changed gcp:region or
    secret replaces jobs in both), and only when that stack's file is committed."""
    workflow = yaml.safe_load((scaffold.TEMPLATES / "github-workflow.yml").read_text())
    steps = {job: workflow["jobs"][job]["steps"] for job in ("review", "preview")}
    preview = next(s for s in steps["preview"] if s.get("with", {}).get("command") == "preview")
    diff = next(s for s in steps["review"] if s.get("id") == "diff")
    assert diff["env"]["PULUMI_STACK"] == preview["with"]["stack-name"]
    assert 'if [ -f "Pulumi.$PULUMI_STACK.yaml" ]; then stack=(--stack "$PULUMI_STACK"); fi' \
        in diff["run"]
    assert ' --merge-base "${stack[@]}" --format markdown' in diff["run"]


def test_the_readme_shows_the_pre_commit_hooks_init_writes_first(tmp_path):
    """The README's pre-commit section starts with init's own `repo: local` hooks, as written."""
    assert run("init", str(tmp_path / "r"))[0] == 0
    written = (tmp_path / "r" / ".pre-commit-config.yaml").read_text()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Checking specs on every commit\n", 1)[1].split("\n## ", 1)[0]
    snippets = section.split("```yaml\n")[1:]
    local = written[written.index("  - repo: local\n"):]
    assert snippets[0].split("```", 1)[0] == "repos:\n" + local
    assert "rev: v" in snippets[1] and "a release tag, or a commit" in snippets[1]
