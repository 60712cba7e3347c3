"""`python.source`: the trainer's local code packaged reproducibly and named by its content
(compiler/packaging). Every bad input is a located error, exit 1, and nothing is written."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest
from files import write

from compiler import cli, pipeline
from compiler.config import load
from compiler.config.model import RepoConfig
from compiler.options import Options
from compiler.packaging import sdist
from compiler.source import repo as tree

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = '[project]\nname = "tiny-trainer"\nversion = "0.2.0"\n'
SPEC = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: tiny}
spec:
  stagingBucket: gs://acme-staging
  python:
    source: ../trainer
    module: trainer.task
    executorImage: us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest
"""
SERVICE_ACCOUNT = json.dumps({"type": "service_account", "project_id": "p",
                              "private_key_id": "0", "private_key": "-----BEGIN PRIVATE KEY-----"
                              "\nMII...\n-----END PRIVATE KEY-----\n",
                              "client_email": "x@p.iam.gserviceaccount.com"})


def specs_repo(tmp_path: Path, monkeypatch) -> Path:
    """A specs repository: Pulumi.yaml, trainer/ (a package), specs/job.yaml using it; the
    current folder, with the archive cache beside it."""
    root = tmp_path / "repo"
    write(root, {"Pulumi.yaml": "name: ml-jobs\nruntime: python\n",
                 "trainer/pyproject.toml": PYPROJECT,
                 "trainer/trainer/__init__.py": "",
                 "trainer/trainer/task.py": "print('training')\n",
                 "specs/job.yaml": SPEC})
    monkeypatch.chdir(root)
    monkeypatch.setenv("TRAINSPEC_CACHE_DIR", str(tmp_path / "cache"))
    return root


@pytest.fixture
def repo(tmp_path, monkeypatch):
    return specs_repo(tmp_path, monkeypatch)


def compile_spec(path: str = "specs/job.yaml", options: Options = Options()) -> pipeline.Result:
    return pipeline.compile_file(path, options)


def uri(result: pipeline.Result) -> str:
    assert result.ok, [d.format() for d in result.diagnostics]
    return result.body["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"][0]


def build(root: Path, out: Path | None = None) -> sdist.Package:
    located = tree.Files(root).locate("specs/job.yaml")
    assert located is not None
    return sdist.build(located[0], "trainer", RepoConfig(), "trainer.task", out)


def members(archive: str) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(archive) as tar:
        return {m.name: m for m in tar.getmembers()}


def errors(result: pipeline.Result) -> list[str]:
    return [d.format() for d in result.diagnostics if d.is_error]


# -- reproducibility ---------------------------------------------------------------------------

def test_two_builds_are_byte_identical_and_named_by_content(repo, tmp_path):
    first, second = build(repo, tmp_path / "a"), build(repo, tmp_path / "b")
    assert Path(first.archive).read_bytes() == Path(second.archive).read_bytes()
    assert first.file_name == second.file_name == \
        f"tiny_trainer-0.2.0-{first.sha256[:16]}.tar.gz"
    assert uri(compile_spec()) == f"gs://acme-staging/trainspec/packages/{first.file_name}"


def test_the_archive_is_a_normalised_sdist(repo, tmp_path):
    os.chmod(repo / "trainer" / "trainer" / "task.py", 0o750)
    package = build(repo, tmp_path / "out")
    found = members(package.archive)
    assert list(found) == sorted(found)  # sorted members, no folder entries
    assert set(found) == {f"tiny_trainer-0.2.0/{p}" for p in (
        "PKG-INFO", "pyproject.toml", "trainer/__init__.py", "trainer/task.py")}
    for m in found.values():
        assert (m.uid, m.gid, m.uname, m.gname) == (0, 0, "", "")
        assert m.mtime == sdist.archive.DEFAULT_MTIME
    assert found["tiny_trainer-0.2.0/trainer/task.py"].mode == 0o755  # executable kept
    assert found["tiny_trainer-0.2.0/pyproject.toml"].mode == 0o644
    raw = Path(package.archive).read_bytes()
    assert raw[4:8] == b"\0\0\0\0" and not raw[3] & 0x08  # gzip: no mtime, no file name
    with tarfile.open(package.archive) as tar:
        info = tar.extractfile("tiny_trainer-0.2.0/PKG-INFO").read().decode()
    assert info == "Metadata-Version: 2.1\nName: tiny-trainer\nVersion: 0.2.0\n"


def test_content_changes_the_name_and_mtime_does_not(repo):
    before = uri(compile_spec())
    task = repo / "trainer" / "trainer" / "task.py"
    os.utime(task, (1, 1))  # only the modification time
    assert uri(compile_spec()) == before
    task.write_text("print('training harder')\n")
    changed = uri(compile_spec())
    assert changed != before and changed.startswith("gs://acme-staging/trainspec/packages/"
                                                    "tiny_trainer-0.2.0-")
    (repo / "trainer" / "NOTES.md").write_text("a new file is new content\n")
    assert uri(compile_spec()) not in (before, changed)


def test_source_date_epoch_sets_the_member_times(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    package = build(repo, tmp_path / "out")
    assert {m.mtime for m in members(package.archive).values()} == {1700000000}
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert build(repo).sha256 != package.sha256


def test_compile_writes_nothing(repo, tmp_path):
    assert compile_spec().ok
    assert not (tmp_path / "cache").exists()
    assert sorted(p.name for p in (repo / "trainer").iterdir()) == ["pyproject.toml", "trainer"]


def test_pip_installs_the_archive(repo, tmp_path):
    package = build(repo, tmp_path / "out")
    target = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--no-build-isolation", "--no-index", "--target", str(target),
                           package.archive], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (target / "trainer" / "task.py").read_text() == "print('training')\n"
    run = subprocess.run([sys.executable, "-m", "trainer.task"], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(target)}, capture_output=True,
                         text=True, timeout=60)
    assert run.stdout == "training\n"


# -- what goes in ------------------------------------------------------------------------------

def test_ignored_files_never_go_in(repo, tmp_path):
    write(repo, {
        ".gitignore": "*.log\n/trainer/data/\n",  # the repository's own, above the source
        "trainer/.gitignore": "outputs/\n*.ckpt\n!keep.ckpt\nignored-dir/\n",
        "trainer/trainer/__pycache__/task.cpython-311.pyc": b"\0",
        "trainer/trainer/stale.pyc": b"\0",
        "trainer/.git/HEAD": "ref: refs/heads/main\n",
        "trainer/.venv/pyvenv.cfg": "home = /usr/bin\n",
        "trainer/.venv/lib/site.py": "",
        "trainer/env2/pyvenv.cfg": "home = /usr/bin\n",
        "trainer/tiny_trainer.egg-info/PKG-INFO": "stale\n",
        "trainer/outputs/model.bin": b"\0" * 10,
        "trainer/run.log": "x\n",
        "trainer/data/train.csv": "1,2\n",
        "trainer/a.ckpt": b"\0",
        "trainer/keep.ckpt": b"\1",
        "trainer/ignored-dir/keep.ckpt": b"\2",  # inside an ignored folder: stays out
        "trainer/PKG-INFO": "stale\n",  # the archive gets its own
        "trainer/trainer/util.py": "",
    })
    found = members(build(repo, tmp_path / "out").archive)
    assert sorted(n.split("/", 1)[1] for n in found) == [
        ".gitignore", "PKG-INFO", "keep.ckpt", "pyproject.toml", "trainer/__init__.py",
        "trainer/task.py", "trainer/util.py"]


def test_a_link_inside_the_source_is_its_file_and_one_outside_is_an_error(repo, tmp_path):
    (repo / "trainer" / "trainer" / "alias.py").symlink_to("task.py")
    found = members(build(repo, tmp_path / "out").archive)
    assert found["tiny_trainer-0.2.0/trainer/alias.py"].isfile()
    (repo / "outside.txt").write_text("not the trainer's\n")
    (repo / "trainer" / "leak.txt").symlink_to("../outside.txt")
    (repo / "trainer" / "folder").symlink_to("trainer")
    result = compile_spec()
    assert errors(result) == [
        "specs/job.yaml:7:13: error: $.spec.python.source: trainer/folder is a symbolic link "
        "to a folder ('trainer'): only links to files are packaged [source-link]",
        "specs/job.yaml:7:13: error: $.spec.python.source: trainer/leak.txt is a symbolic "
        "link to '../outside.txt', which is outside.txt, outside the source folder trainer: "
        "copy the file in, or ignore the link in .gitignore [source-link]"]


# -- secrets and size ------------------------------------------------------------------------

@pytest.mark.parametrize("name, content, kind", [
    (".env", "WANDB_API_KEY=abc\n", "a .env file"),
    (".env.local", "X=1\n", "a .env.* file"),
    ("certs/server.pem", "-----BEGIN CERTIFICATE-----\n", "a *.pem file"),
    ("tls.key", "k\n", "a *.key file"),
    ("id_ed25519", "k\n", "a id_ed25519 file"),
    ("config/creds.json", SERVICE_ACCOUNT, "a service-account key"),
    ("adc.json", json.dumps({"type": "authorized_user", "refresh_token": "1//x",
                             "client_id": "c"}), "user credentials with a refresh token"),
])
def test_a_secret_looking_file_is_refused(repo, name, content, kind):
    write(repo, {f"trainer/{name}": content})
    assert errors(compile_spec()) == [
        f"specs/job.yaml:7:13: error: $.spec.python.source: trainer/{name} looks like a "
        f"secret ({kind}): it would be uploaded with the trainer (add it to .gitignore, or "
        "allow it in trainspec.yaml packaging.allowSecretFiles) [source-secret-file]"]


def test_a_json_file_that_is_not_a_credential_is_packaged(repo):
    write(repo, {"trainer/config.json": json.dumps({"type": "service_account_settings",
                                                    "lr": 0.1})})
    assert compile_spec().ok


def test_an_ignored_or_allowed_secret_file_is_fine(repo):
    write(repo, {"trainer/.env": "X=1\n", "trainer/.gitignore": ".env\n"})
    assert compile_spec().ok
    write(repo, {"trainer/tests/fixtures/server.pem": "test certificate\n",
                 "trainspec.yaml": "packaging:\n  allowSecretFiles: [trainer/tests/fixtures/*.pem]\n"})
    result = compile_spec()
    assert result.ok
    assert result.uploads[0].package.files == 5  # the fixture is packaged, .env is not


def test_an_archive_over_the_limit_lists_the_largest_files(repo):
    write(repo, {"trainspec.yaml": "# limits\npackaging:\n  maxSizeMiB: 1\n",
                 "trainer/weights/big.bin": b"\0" * (900 * 1024),
                 "trainer/weights/medium.bin": b"\0" * (300 * 1024)})
    assert errors(compile_spec()) == [
        "specs/job.yaml:7:13: error: $.spec.python.source: the files to package total 1.2 MiB, "
        "over the 1 MiB limit; largest: trainer/weights/big.bin (900.0 KiB), "
        "trainer/weights/medium.bin (300.0 KiB), trainer/pyproject.toml (50 bytes), "
        "trainer/trainer/task.py (18 bytes), trainer/trainer/__init__.py (0 bytes) "
        "(ignore data and outputs in .gitignore, or raise packaging.maxSizeMiB in "
        "trainspec.yaml) [source-size]"]


def test_too_many_files_is_an_error(repo, monkeypatch):
    monkeypatch.setattr(sdist.collect, "MAX_FILES", 2)
    assert errors(compile_spec()) == [
        "specs/job.yaml:7:13: error: $.spec.python.source: trainer holds more than 2 files "
        "to package (ignore data, outputs and environments in .gitignore) [source-file-count]"]


@pytest.mark.parametrize("text, expected", [
    ("packaging:\n  maxSizeMB: 5\n", "trainspec.yaml:2:3: error: $.packaging.maxSizeMB: "
     "unknown key 'maxSizeMB' (did you mean 'maxSizeMiB'?)"),
    ("pakaging: {}\n", "trainspec.yaml:1:1: error: $.pakaging: unknown key 'pakaging' "
     "(did you mean 'packaging'?)"),
    ("packaging:\n  maxSizeMiB: 0\n", "trainspec.yaml:2:15: error: $.packaging.maxSizeMiB: a "
     "whole number of MiB from 1 to 10240, not 0"),
    ("packaging:\n  allowSecretFiles: .env\n", "trainspec.yaml:2:21: error: "
     "$.packaging.allowSecretFiles: a list of .gitignore-style patterns (paths from the "
     "repository root) (e.g. [tests/fixtures/*.pem])"),
    ("packaging: [a]\n", "trainspec.yaml:1:12: error: $.packaging: packaging must be a mapping "
     "(allowSecretFiles, maxSizeMiB)"),
])
def test_a_bad_repository_config_is_a_located_error(repo, text, expected):
    write(repo, {"trainspec.yaml": text})
    assert errors(compile_spec()) == [expected + " [repo-config]"]


def test_the_init_template_config_sets_nothing(repo):
    template = ROOT / "compiler" / "_templates" / "trainspec.yaml"
    write(repo, {"trainspec.yaml": template.read_text()})
    assert compile_spec().ok


# -- metadata -----------------------------------------------------------------------------------

@pytest.mark.parametrize("files, name", [
    ({"setup.py": "from setuptools import setup\nsetup(name='tiny', version='1.0', "
                  "packages=['trainer'])\n"}, "tiny-1.0-"),
    ({"setup.py": "import setuptools\nVERSION = '2.0'\nsetuptools.setup(name='tiny', "
                  "version=VERSION)\n"}, "tiny-2.0-"),
    ({"setup.cfg": "[metadata]\nname = Tiny.Trainer\nversion = 3.0\n",
      "setup.py": "import setuptools\nsetuptools.setup()\n"}, "tiny_trainer-3.0-"),
    ({"pyproject.toml": "[build-system]\nrequires = ['setuptools']\n",
      "setup.py": "from setuptools import setup\nsetup(name='old', version='0.9')\n"},
     "old-0.9-"),
])
def test_name_and_version_from_setup_files_without_running_them(repo, files, name):
    (repo / "trainer" / "pyproject.toml").unlink()
    write(repo, {f"trainer/{k}": v for k, v in files.items()})
    assert uri(compile_spec()).split("/")[-1].startswith(name)


@pytest.mark.parametrize("files, message", [
    ({}, "trainer: no package metadata: the folder has no pyproject.toml or setup.py"),
    ({"pyproject.toml": '[project]\nname = "t"\ndynamic = ["version"]\n'},
     "trainer: pyproject.toml: [project] version is dynamic: trainspec names the archive "
     "without running the build backend, so write version = \"...\" in [project]"),
    ({"pyproject.toml": '[project\n'}, "trainer: pyproject.toml is not valid TOML: "),
    ({"setup.py": "import setuptools, v\nsetuptools.setup(name='t', version=v.get())\n"},
     "trainer: setup.py: setup(version=...) is not a string literal: trainspec reads "
     "setup.py without running it"),
    ({"setup.py": "print('no setup call')\n"}, "trainer: no package name and version in "
     "setup.py"),
    ({"setup.cfg": "[metadata]\nname = t\nversion = attr: t.__version__\n"},
     "trainer: setup.cfg: version = attr: t.__version__ is computed"),
    ({"setup.py": "from setuptools import setup\nsetup(name='t', version='1', "
                  "package_dir={'': 1})\n"},
     "trainer: setup.py: setup(package_dir=...) is not a mapping of package names to folders "
     "(strings), e.g. {\"\": \"src\"}: got a mapping holding int 1"),
    ({"pyproject.toml": '[project]\nname = "t"\nversion = "1"\n'
                        '[tool.setuptools]\npackage-dir = 2024-01-01\n'},
     "trainer: pyproject.toml: [tool.setuptools] package-dir is not a mapping of package names "
     "to folders (strings), e.g. {\"\": \"src\"}: got date datetime.date(2024, 1, 1)"),
    ({"pyproject.toml": "[tool.x]\ny = " + "[" * 100 + "]" * 100 + "\n"},
     "trainer: pyproject.toml is not valid TOML: nested too deeply (more than 64 arrays or "
     "inline tables) (at line 2, column 69)"),
    ({"setup.py": "x = " + "-" * 1000 + "1\n"},
     "trainer: setup.py:1:505: too complex to read (more than 64 nested brackets or 500 "
     "operators in one statement)"),
    ({"pyproject.toml": '[project]\nname = "t t"\nversion = "1"\n'},
     "trainer: pyproject.toml: 't t' is not a valid distribution name"),
    ({"pyproject.toml": '[project]\nname = "t"\nversion = "1/2"\n'},
     "trainer: pyproject.toml: version '1/2' is not a version trainspec can name an archive"),
])
def test_bad_package_metadata_is_a_located_error(repo, files, message):
    (repo / "trainer" / "pyproject.toml").unlink()
    write(repo, {f"trainer/{k}": v for k, v in files.items()})
    found = errors(compile_spec())
    assert len(found) == 1 and found[0].startswith(
        "specs/job.yaml:7:13: error: $.spec.python.source: " + message), found


@pytest.mark.parametrize("module, layout", [
    ("trainer.task", {}),
    ("trainer", {"trainer/__main__.py": ""}),
    ("trainer.task", {"pyproject.toml": PYPROJECT, "src/trainer/task.py": ""}),
    ("trainer.task", {"pyproject.toml": PYPROJECT + '[tool.setuptools.package-dir]\n"" = "lib"\n',
                      "lib/trainer/task.py": ""}),
])
def test_the_module_is_found_in_the_usual_layouts(repo, module, layout):
    if layout:
        for path in (repo / "trainer" / "trainer").iterdir():
            path.unlink()
        (repo / "trainer" / "trainer").rmdir()
    write(repo, {f"trainer/{k}": v for k, v in layout.items()})
    (repo / "specs" / "job.yaml").write_text(SPEC.replace("trainer.task", module))
    assert compile_spec().ok


def test_a_module_not_in_the_package_is_a_located_error(repo):
    (repo / "specs" / "job.yaml").write_text(SPEC.replace("trainer.task", "trainer.train"))
    assert errors(compile_spec()) == [
        "specs/job.yaml:8:13: error: $.spec.python.module: module 'trainer.train' is not in the "
        "package built from trainer: none of trainer/train.py, trainer/train/__main__.py, ... "
        "is there (its top-level modules and packages: trainer) [source-module-missing]"]


# -- where the source is -------------------------------------------------------------------

def spec_with(**python) -> str:
    data = SPEC
    for key, value in python.items():
        data = data.replace(f"    {key}: ", f"    {key}: {value}  # was: ")
    return data


@pytest.mark.parametrize("source, message", [
    ("../missing", "missing does not exist (python.source is a folder holding pyproject.toml "
                   "or setup.py, relative to the spec file)"),
    ("../Pulumi.yaml", "Pulumi.yaml is not a folder"),
    ("../..", "'../..' is outside the repository (.) (python.source is a folder inside the "
              "spec's repository, relative to the spec file)"),
    ("/etc", "'/etc' is outside the repository (.)"),
])
def test_a_source_that_is_not_a_folder_of_the_repository_is_an_error(repo, source, message):
    (repo / "specs" / "job.yaml").write_text(spec_with(source=source))
    found = errors(compile_spec())
    assert len(found) == 1 and found[0].startswith(
        "specs/job.yaml:7:13: error: $.spec.python.source: " + message), found


def test_a_spec_outside_any_repository_is_an_error(tmp_path, monkeypatch):
    write(tmp_path / "loose", {"trainer/pyproject.toml": PYPROJECT, "trainer/trainer/task.py": "",
                               "specs/job.yaml": SPEC})
    monkeypatch.chdir(tmp_path / "loose")
    assert errors(compile_spec()) == [
        "specs/job.yaml:7:13: error: $.spec.python.source: the spec is in no repository (no "
        "Pulumi.yaml or .git in its folder or above it): python.source is read only inside the "
        "spec's repository [source-no-repository]"]


def test_every_independent_source_problem_is_reported_in_one_run(tmp_path, monkeypatch):
    """No staging bucket, no repository and a folder trainspec cannot package: all three at
    once (each was reported only after the one before it was fixed)."""
    write(tmp_path / "loose", {"trainer/trainer/task.py": "", "specs/job.yaml": SPEC.replace(
        "  stagingBucket: gs://acme-staging\n", "")})
    monkeypatch.chdir(tmp_path / "loose")
    where = "specs/job.yaml:6:13: error: $.spec.python.source: "
    assert errors(compile_spec()) == [
        where + "no staging bucket to upload the package to (set spec.stagingBucket, pass "
        "--staging-bucket, or `pulumi config set trainspec:stagingBucket gs://BUCKET`) "
        "[source-staging-bucket]",
        where + "the spec is in no repository (no Pulumi.yaml or .git in its folder or above "
        "it): python.source is read only inside the spec's repository [source-no-repository]",
        where + "trainer: no package metadata: the folder has no pyproject.toml or setup.py (add "
        "trainer/pyproject.toml beside the package, with [project] name and version and "
        "[tool.setuptools] packages = [\"trainer\"], the code in trainer/trainer/task.py: the "
        "executor image pip-installs the sdist trainspec builds from the folder) "
        "[source-metadata]"]
    # In a repository with a bucket, the folder's problem alone.
    (tmp_path / "loose" / "Pulumi.yaml").write_text("name: x\n")
    found = errors(compile_spec(options=Options(staging_bucket="gs://acme-b",
                                                package_dir=str(tmp_path / "cache"))))
    assert [e.rsplit(" ", 1)[1] for e in found] == ["[source-metadata]"]
    # A source above the spec's folder, outside any repository, is not walked.
    (tmp_path / "loose" / "Pulumi.yaml").unlink()
    (tmp_path / "loose" / "specs" / "job.yaml").write_text(spec_with(source=".."))
    assert [e.rsplit(" ", 1)[1] for e in errors(compile_spec())] == ["[source-no-repository]"]


def test_a_spec_from_stdin_cannot_use_a_source(repo):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["compile", "-"], out, err, stdin=io.BytesIO(SPEC.encode()))
    assert code == 1 and out.getvalue() == ""
    assert "<stdin>:7:13: error: $.spec.python.source: a spec read from standard input has no " \
           "folder for python.source to be relative to" in err.getvalue()


def test_without_a_staging_bucket_nothing_compiles(repo):
    (repo / "specs" / "job.yaml").write_text(SPEC.replace("  stagingBucket: gs://acme-staging\n",
                                                          ""))
    assert errors(compile_spec()) == [
        "specs/job.yaml:6:13: error: $.spec.python.source: no staging bucket to upload the "
        "package to (set spec.stagingBucket, pass --staging-bucket, or `pulumi config set "
        "trainspec:stagingBucket gs://BUCKET`) [source-staging-bucket]"]
    assert uri(compile_spec(options=Options(staging_bucket="gs://from-flag"))).startswith(
        "gs://from-flag/trainspec/packages/")
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["compile", "specs/job.yaml", "--staging-bucket", "other"], out, err) == 0
    assert "gs://other/trainspec/packages/tiny_trainer-0.2.0-" in out.getvalue()


def test_a_bad_staging_bucket_is_refused(repo):
    (repo / "specs" / "job.yaml").write_text(SPEC.replace("gs://acme-staging", "gs://Acme/x"))
    assert errors(compile_spec()) == [
        "specs/job.yaml:5:18: error: $.spec.stagingBucket: 'gs://Acme/x' is not valid here (The "
        "Cloud Storage bucket (gs://NAME) that python.source archives are uploaded to, as "
        "gs://NAME/trainspec/packages/<dist>-<version>-<sha256[:16]>.tar.gz. Default: "
        "--staging-bucket or stack config trainspec:stagingBucket.) [value-format]"]
    (repo / "specs" / "job.yaml").write_text(SPEC.replace("  stagingBucket: gs://acme-staging\n",
                                                          ""))
    assert errors(compile_spec(options=Options(staging_bucket="no/such"))) == [
        "specs/job.yaml:4:1: error: $.spec.stagingBucket: --staging-bucket / "
        "trainspec:stagingBucket 'no/such' is not a bucket name (gs://BUCKET or BUCKET) "
        "[staging-bucket-name]"]


def test_the_cli_exits_1_with_located_errors_and_writes_nothing(repo, tmp_path):
    (repo / "specs" / "job.yaml").write_text(spec_with(source="../missing"))
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["compile", "specs", "--out", "compiled"], out, err) == 1
    assert "specs/job.yaml:7:13: error: $.spec.python.source: missing does not exist" \
        in err.getvalue()
    assert not (repo / "compiled").exists() and not (tmp_path / "cache").exists()


# -- with packages, per pool, both platforms --------------------------------------------------

def test_extra_packages_follow_the_built_one(repo):
    (repo / "specs" / "job.yaml").write_text(SPEC + "    packages: [gs://acme-libs/x-1.tar.gz]\n")
    result = compile_spec()
    uris = result.body["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"]
    assert uris[1:] == ["gs://acme-libs/x-1.tar.gz"] and uris[0].startswith(
        "gs://acme-staging/trainspec/packages/tiny_trainer-0.2.0-")


def test_pools_may_run_different_sources(repo):
    write(repo, {"evaluator/pyproject.toml": '[project]\nname = "evaluator"\nversion = "1"\n',
                 "evaluator/evaluator/run.py": ""})
    (repo / "specs" / "job.yaml").write_text(SPEC + textwrap.indent(textwrap.dedent("""\
        pools:
          chief: {}
          worker: {replicas: 2, python: {args: [--role, worker]}}
          evaluator:
            python: {source: ../evaluator, module: evaluator.run}
        """), "  "))
    result = compile_spec()
    assert result.ok, errors(result)
    pools = result.body["jobSpec"]["workerPoolSpecs"]
    chief, worker, _, evaluator = (p.get("pythonPackageSpec", {}) for p in pools)
    assert chief["packageUris"] == worker["packageUris"]
    assert evaluator["packageUris"][0].startswith("gs://acme-staging/trainspec/packages/"
                                                  "evaluator-1-")
    assert sorted(u.package.name for u in result.uploads) == ["evaluator", "tiny-trainer"]
    (repo / "specs" / "job.yaml").write_text(
        (repo / "specs" / "job.yaml").read_text().replace("evaluator.run", "evaluator.main"))
    assert errors(compile_spec())[0].startswith(
        "specs/job.yaml:14:46: error: $.spec.pools.evaluator.python.module: module "
        "'evaluator.main' is not in the package built from evaluator")


def test_ai_platform_packages(repo):
    (repo / "specs" / "job.yaml").write_text(SPEC.replace(
        "    executorImage: us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest\n",
        "    runtimeVersion: '2.11'\n    pythonVersion: '3.7'\n").replace(
        "spec:\n", "spec:\n  platform: ai-platform\n  region: us-central1\n"))
    result = compile_spec()
    assert result.ok, errors(result)
    assert result.body["trainingInput"]["packageUris"][0] == result.uploads[0].uri


# -- diff: a code change is a reviewable job change ----------------------------------------

def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout


def diff(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["diff", *argv], out, err)
    return code, out.getvalue() + err.getvalue()


def test_diff_says_trainer_code_changed_when_only_the_hash_moved(repo):
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "base")
    write(repo, {"trainer/.gitignore": "outputs/\n", "trainer/outputs/model.bin": b"\0"})
    git(repo, "add", "trainer/.gitignore")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "ignore")
    before = uri(compile_spec())
    # An ignored file in the working tree is not in the archive: BASE (git) and HEAD agree.
    assert diff("HEAD") == (0, "trainspec diff HEAD → working tree (specs)\nno changes: 1 spec "
                               "file(s) compile to the same requests\n")
    (repo / "trainer" / "trainer" / "task.py").write_text("print('training harder')\n")
    code, text = diff("HEAD")
    after = uri(compile_spec())
    assert code == 2, text
    assert text == (
        "trainspec diff HEAD → working tree (specs)\n\n"
        "specs/job.yaml (job tiny, vertex)\n"
        "  replace: trainer code changed (pulumi up uploads the new package): cancels the job "
        "if it still runs, then submits\n"
        "  cost: price unknown (no region)\n"
        f'    - jobSpec.workerPoolSpecs[0].pythonPackageSpec.packageUris[0]: "{before}"\n'
        f'    + jobSpec.workerPoolSpecs[0].pythonPackageSpec.packageUris[0]: "{after}"\n\n'
        "1 of 1 spec file(s) changed: 1 replace\n"
        "cost: +$0.00/run at most; price unknown for tiny, not counted\n")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qam", "code")
    code, text = diff("HEAD~1", "HEAD")  # both sides read from git
    assert code == 2 and "replace: trainer code changed" in text and after in text
    # A code change with another change is an ordinary replace.
    edit = (repo / "specs" / "job.yaml").read_text().replace("module: trainer.task",
                                                            "module: trainer.task\n    args: [-v]")
    (repo / "specs" / "job.yaml").write_text(edit)
    (repo / "trainer" / "trainer" / "task.py").write_text("print('again')\n")
    code, text = diff("HEAD")
    assert code == 2 and "replace: cancels the job if it still runs, then submits" in text


def test_explain_shows_the_package_and_where_it_goes(repo):
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["explain", "specs/job.yaml"], out, err) == 0
    built = uri(compile_spec())
    assert f"  package    trainer → {built}\n" in out.getvalue()
    assert "             tiny-trainer 0.2.0, 3 files, 68 bytes; pulumi up uploads it (its name " \
           "is its content hash)\n" in out.getvalue()


def test_the_init_template_documents_valid_packaging_settings(repo):
    template = (ROOT / "compiler" / "_templates" / "trainspec.yaml").read_text()
    block = template[template.index("# packaging:"):]
    uncommented = "\n".join(line[2:] for line in block.splitlines()) + "\n"
    write(repo, {"trainspec.yaml": uncommented})
    found = load.find("specs/job.yaml", tree.Files(repo))
    assert found.problems == () and found.config.packaging == RepoConfig((), 100)


def test_a_huge_metadata_file_is_refused_unread(repo):
    write(repo, {"trainer/pyproject.toml": PYPROJECT + "#" * (256 * 1024)})
    assert errors(compile_spec()) == [
        "specs/job.yaml:7:13: error: $.spec.python.source: trainer/pyproject.toml is larger than "
        "256 KiB [source-metadata]"]


def test_diff_with_a_stack_reads_its_staging_bucket(repo):
    (repo / "specs" / "job.yaml").write_text(SPEC.replace("  stagingBucket: gs://acme-staging\n",
                                                          ""))
    (repo / "Pulumi.dev.yaml").write_text("config:\n  trainspec:stagingBucket: gs://from-stack\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "base")
    (repo / "trainer" / "trainer" / "task.py").write_text("print('v2')\n")
    code, text = diff("HEAD", "--stack", "dev")
    assert code == 2, text
    assert '+ jobSpec.workerPoolSpecs[0].pythonPackageSpec.packageUris[0]: "gs://from-stack/' \
        "trainspec/packages/tiny_trainer-0.2.0-" in text
