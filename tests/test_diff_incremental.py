"""`diff` compiles a spec alike on both sides once and leaves it out of the others' pairing and
cross-spec rules unless they involve it (review/alike.py, compare.py `_quiet`): its report
and exit code are byte for byte those of comparing both sides in full, over every change kind."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from compiler import diff, pipeline
from compiler.report import REPORTERS

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

SPEC = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: {name}
spec:
  region: us-central1
  container:
    image: gcr.io/acme/job:1.0
  pools:
    chief: {{machineType: n1-standard-8}}
"""
LEGACY = SPEC.replace("spec:\n", "spec:\n  platform: ai-platform\n")
SECRET = SPEC.replace("  pools:", "  env:\n    KEY: {{secret: apiKey}}\n  pools:")
SOURCED = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: sourced}
spec:
  region: us-central1
  stagingBucket: gs://acme-staging
  python:
    source: ../trainer
    module: trainer.task
    executorImage: us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest
"""
STACK = "config:\n  gcp:project: acme-prod\n  trainspec:apiKey:\n    secure: v1:AAAA\n"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """On `main`: a dozen specs (ml ones too), one broken, one reading a stack secret, one
    with a python.source trainer, a repo config and a stack config (beside it: `cache`)."""
    tmp_path = tmp_path / "repo"
    tmp_path.mkdir()
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    specs = tmp_path / "specs"
    for i in range(8):
        write(specs / f"team-{i % 2}" / f"job-{i}.yaml", SPEC.format(name=f"job-{i}"))
    write(specs / "legacy" / "census-a.yaml", LEGACY.format(name="census-a"))
    write(specs / "broken.yaml", SPEC.format(name="broken").replace("n1-standard-8", "n1-x"))
    write(specs / "secret.yaml", SECRET.format(name="secret"))
    write(specs / "sourced.yaml", SOURCED)
    write(tmp_path / "trainer" / "pyproject.toml", '[project]\nname = "trainer"\nversion = "1"\n')
    write(tmp_path / "trainer" / "trainer" / "__init__.py", "")
    write(tmp_path / "trainer" / "trainer" / "task.py", "print(1)\n")
    write(tmp_path / "Pulumi.yaml", "name: ml-jobs\nruntime: python\n")
    write(tmp_path / "Pulumi.dev.yaml", STACK)
    write(tmp_path / "trainspec.yaml", "severity:\n  image-reference-grammar: error\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    return tmp_path


def edit(repo: Path, path: str, old: str, new: str) -> None:
    text = (repo / path).read_text()
    assert old in text
    (repo / path).write_text(text.replace(old, new))


def move(repo: Path, old: str, new: str) -> None:
    (repo / new).parent.mkdir(parents=True, exist_ok=True)
    (repo / old).rename(repo / new)


CHANGES: dict[str, Callable[[Path], None]] = {
    "nothing": lambda repo: None,
    "one changed": lambda repo: edit(repo, "specs/team-0/job-0.yaml", "job:1.0", "job:1.1"),
    "broken fixed": lambda repo: edit(repo, "specs/broken.yaml", "n1-x", "n1-standard-4"),
    "one broken": lambda repo: edit(repo, "specs/team-1/job-1.yaml", "n1-standard-8", "n1-y"),
    "renamed": lambda repo: move(repo, "specs/team-0/job-2.yaml", "specs/team-1/job-2b.yaml"),
    "moved and changed": lambda repo: (
        move(repo, "specs/team-0/job-2.yaml", "specs/job-2.yaml"),
        edit(repo, "specs/job-2.yaml", "job:1.0", "job:2.0")),
    "deleted": lambda repo: (repo / "specs/team-1/job-3.yaml").unlink(),
    "untracked new": lambda repo: write(repo / "specs" / "new" / "fresh.yaml",
                                        SPEC.format(name="fresh")),
    "new names an unchanged job": lambda repo: write(repo / "specs" / "copy.yaml",
                                                     SPEC.format(name="job-5")),
    "changed takes an unchanged name": lambda repo: edit(
        repo, "specs/team-0/job-0.yaml", "name: job-0", "name: job-7"),
    "ml jobId collision": lambda repo: write(repo / "specs" / "census.yaml",
                                             LEGACY.format(name="census_a")),
    "swapped": lambda repo: (
        move(repo, "specs/team-0/job-0.yaml", "specs/tmp.yaml"),
        move(repo, "specs/team-0/job-4.yaml", "specs/team-0/job-0.yaml"),
        move(repo, "specs/tmp.yaml", "specs/team-0/job-4.yaml")),
    "not parsing": lambda repo: write(repo / "specs" / "team-0" / "job-6.yaml", "kind: [\n"),
    "repo config": lambda repo: write(repo / "trainspec.yaml", "defaults:\n  labels: {a: b}\n"),
    "folder config": lambda repo: write(repo / "specs" / "team-1" / "trainspec.yaml",
                                        "defaults:\n  labels: {team: one}\n"),
    "trainer changed": lambda repo: write(repo / "trainer" / "trainer" / "task.py",
                                          "print(2)\n"),
    "stack region": lambda repo: write(repo / "Pulumi.dev.yaml",
                                       STACK + "  gcp:region: europe-west4\n"),
    "stack secret": lambda repo: write(repo / "Pulumi.dev.yaml", STACK.replace("AAAA", "BB")),
    "stack secret unset": lambda repo: write(repo / "Pulumi.dev.yaml",
                                             "config:\n  gcp:project: acme-prod\n"),
}


def reports(repo: Path, incremental: bool, head: str | None, stack: str | None,
            cache: str | None = None) -> list[tuple[str, int]]:
    rv = diff.review(repo, "main", head, stack=stack, incremental=incremental, cache=cache)
    return [(REPORTERS[fmt].review(rv), rv.exit_code) for fmt in ("text", "markdown", "json")]


@pytest.mark.parametrize("stack", [None, "dev"])
@pytest.mark.parametrize("change", CHANGES)
def test_the_report_is_that_of_a_full_comparison(repo: Path, change: str, stack: str | None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    CHANGES[change](repo)
    full = reports(repo, False, None, stack)
    assert reports(repo, True, None, stack) == full
    # the result cache (`validate` fills it too): a cold run fills it, a warm one reads it
    cache = str(repo.parent / "cache")
    assert reports(repo, True, None, stack, cache) == full
    assert reports(repo, True, None, stack, cache) == full
    # committed: both sides read from git
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change", "--allow-empty")
    assert reports(repo, True, "HEAD", stack) == reports(repo, False, "HEAD", stack)


def test_a_spec_alike_on_both_sides_is_compiled_once_and_the_others_per_side(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = pipeline.compile_text
    monkeypatch.setattr(pipeline, "compile_text",
                        lambda text, file, *a, **k: compiled.append(file) or real(
                            text, file, *a, **k))
    edit(repo, "specs/team-0/job-0.yaml", "job:1.0", "job:1.1")
    rv = diff.review(repo, "main", None)
    assert rv.exit_code == 1  # broken.yaml does not compile, changed or not
    assert [e.file for e in rv.changed] == ["specs/broken.yaml", "specs/team-0/job-0.yaml"]
    # the changed spec on each side; the python.source one from each side's trainer folder
    assert sorted(compiled) == sorted(
        [str(p.relative_to(repo)) for p in (repo / "specs").rglob("*.yaml")]
        + ["specs/team-0/job-0.yaml", "specs/sourced.yaml"])


def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The spec files compiled from now on (in full or from a file), in turn."""
    compiled: list[str] = []
    text, file = pipeline.compile_text, pipeline.compile_file
    monkeypatch.setattr(pipeline, "compile_text", lambda content, path, *a, **k: compiled.append(
        path) or text(content, path, *a, **k))
    monkeypatch.setattr(pipeline, "compile_file", lambda path, *a, **k: compiled.append(
        path) or file(path, *a, **k))
    return compiled


def test_with_a_warm_result_cache_only_the_changed_specs_and_those_it_cannot_answer_compile(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    edit(repo, "specs/team-0/job-0.yaml", "job:1.0", "job:1.1")
    cache = str(repo.parent / "cache")
    cold = reports(repo, True, None, "dev", cache)
    compiled = compiles(monkeypatch)
    assert reports(repo, True, None, "dev", cache) == cold
    # changed (each side), python.source (never cached; each side), broken (its cached result
    # has no document to report from); not secret.yaml: the stack sets the secret it reads
    assert sorted(set(compiled)) == ["specs/broken.yaml", "specs/sourced.yaml",
                                     "specs/team-0/job-0.yaml"]


def test_the_cli_reads_the_cache_named_by_the_environment_from_the_repository_root(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from compiler import cli

    def run(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        return cli.main(["diff", "main", *argv], out, io.StringIO()), out.getvalue()

    edit(repo, "specs/team-0/job-0.yaml", "job:1.0", "job:1.1")
    cache = repo.parent / "cache"
    monkeypatch.chdir(repo.parent)  # spec paths are not relative to here: no cache
    plain = run("--repo", str(repo))
    monkeypatch.setenv("TRAINSPEC_CACHE", str(cache))
    assert run("--repo", str(repo)) == plain
    assert plain[0] == 1 and not cache.exists()
    monkeypatch.chdir(repo)
    assert run() == plain
    assert list(cache.iterdir())


def test_with_the_cache_a_spec_git_vouches_is_base_s_is_not_read(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A working-tree spec git vouches is its BASE blob (compiler/gitstate.py, the rules
    `compile --cache` trusts) is named by its blob id, not read; any other is read: edited
    behind git's back with the same size and its mtime put back (under a repo config telling
    git to trust mtime and size), modified, untracked, or whose result is needed in full."""
    from compiler.review import sides

    monkeypatch.chdir(repo)
    specs = sorted(repo.glob("specs/**/*.yaml"))
    for spec in specs:  # an old mtime: not "racily clean"
        os.utime(spec, (1_000_000_000, 1_000_000_000))
    git(repo, "add", "-A")
    cache = str(repo.parent / "cache")
    reports(repo, True, None, None, cache)  # fills it
    behind = repo / "specs/team-1/job-3.yaml"
    text = behind.read_text()
    behind.write_text(text.replace("job:1.0", "job:1.7"))
    os.utime(behind, (1_000_000_000, 1_000_000_000))
    edit(repo, "specs/team-0/job-0.yaml", "job:1.0", "job:1.1")
    write(repo / "specs" / "new" / "fresh.yaml", SPEC.format(name="fresh"))
    git(repo, "config", "core.checkStat", "minimal")
    git(repo, "config", "core.trustctime", "false")
    full = reports(repo, False, None, None)
    read: list[str] = []
    real = sides.read_bytes
    monkeypatch.setattr(sides, "read_bytes", lambda f: read.append(f) or real(f))
    assert reports(repo, True, None, None, cache) == full
    assert "specs/team-1/job-3.yaml" in full[0][0]  # the edit git could not see is reported
    # not vouched: the edit behind git's back, the modified and the untracked spec; vouched
    # but read: broken.yaml (reported from a full compile) and sourced.yaml (compiled on each
    # side); no other spec is read
    assert sorted(Path(f).relative_to(repo).as_posix() for f in read) == [
        "specs/broken.yaml", "specs/new/fresh.yaml", "specs/sourced.yaml",
        "specs/team-0/job-0.yaml", "specs/team-1/job-3.yaml"]


def test_a_vouched_spec_that_changed_before_it_was_read_stops_the_comparison(
        repo: Path) -> None:
    from compiler.review import sides

    spec = repo / "specs/team-0/job-0.yaml"
    vouched = sides.Vouched("specs/team-0/job-0.yaml", str(spec),
                            sides.blob_id(spec.read_bytes()))
    assert vouched.data == spec.read_bytes()
    edited = dataclasses.replace(vouched)
    spec.write_text(spec.read_text().replace("job:1.0", "job:1.1"))
    with pytest.raises(sides.ReviewError, match="changed while trainspec read it"):
        edited.data  # noqa: B018


def test_with_stack_a_cached_spec_reading_a_set_secret_is_not_compiled_and_an_unset_one_is(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`diff --stack` reports a job reading a secret the stack does not set; one whose secrets
    are all set has nothing to do and is answered by the result cache (its request's secret
    markers say which secrets it reads), on both sides alike."""
    monkeypatch.chdir(repo)
    write(repo / "specs" / "unset.yaml", SECRET.format(name="unset").replace("apiKey", "other"))
    write(repo / "specs" / "set-too.yaml", SECRET.format(name="set-too"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two more secret readers")
    edit(repo, "specs/team-0/job-0.yaml", "job:1.0", "job:1.1")
    full = reports(repo, False, None, "dev")
    assert "secret config 'trainspec:other' is not set" in full[0][0] and full[0][1] == 1
    cache = str(repo.parent / "cache")
    assert reports(repo, True, None, "dev", cache) == full  # fills it
    compiled = compiles(monkeypatch)
    assert reports(repo, True, None, "dev", cache) == full
    # the changed spec, python.source, broken, and the job reading an unset secret: not the
    # two reading the set secret
    assert sorted(set(compiled)) == ["specs/broken.yaml", "specs/sourced.yaml",
                                     "specs/team-0/job-0.yaml", "specs/unset.yaml"]
