"""The result cache (compiler/cache.py): a warm run says byte for byte what a cold run says."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from compiler import cli, tree

ROOT = Path(__file__).resolve().parent.parent
CONFIG = "severity:\n  image-reference-grammar: error\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every golden case's spec (errors, warnings, both platforms), the examples, two specs
    naming one job (a cross-spec error) and a repo config, in a git-less folder."""
    specs = tmp_path / "specs"
    for case in sorted((ROOT / "tests" / "golden").iterdir()):
        if (case / "spec.yaml").is_file():
            (specs / "golden").mkdir(parents=True, exist_ok=True)
            shutil.copy(case / "spec.yaml", specs / "golden" / f"{case.name}.yaml")
    shutil.copytree(ROOT / "specs", specs / "examples")
    shutil.copy(ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml", specs / "again.yaml")
    (specs / "broken.yaml").write_text("apiVersion: trainspec/v1\nkind: [\n")
    (tmp_path / "trainspec.yaml").write_text(CONFIG)
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def everything(*flags: str) -> dict[str, object]:
    """What each command the CI workflow runs says, in every format, and what it writes."""
    said: dict[str, object] = {}
    for fmt in ("text", "json", "sarif", "github"):
        said[fmt] = run("validate", "specs", "--format", fmt, *flags)
    said["report"] = run("validate", "specs", "--format", "github", "--report",
                         "sarif=both.sarif", "--report", "json=both.json", *flags)
    said["report files"] = Path("both.sarif").read_text(), Path("both.json").read_text()
    said["strict"] = run("validate", "specs", "--strict", "--format", "json", *flags)
    said["compile"] = run("compile", "specs/examples", "--out", "out", *flags)
    said["written"] = {p.as_posix(): p.read_bytes() for p in sorted(Path("out").rglob("*"))
                       if p.is_file()}
    said["check"] = run("compile", "specs/examples", "--out", "out", "--check", *flags)
    shutil.rmtree("out")
    return said


def index_lines(repo: Path) -> list[str]:
    """The lines of the cache's index (one per spec result kept)."""
    return [line for index in (repo / "c").glob("index-*.jsonl")
            for line in index.read_text().splitlines()]


def git(repo: Path, *args: str) -> str:
    """Run git in `repo`, free of the user's own configuration."""
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
                           *args], cwd=repo, check=True, capture_output=True, text=True,
                          env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull,
                               "GIT_CONFIG_NOSYSTEM": "1"}).stdout


def make_git(repo: Path) -> Path:
    """`repo` made a git repository, every file committed."""
    (repo / ".git").rmdir()
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "specs")
    return repo


@pytest.fixture
def git_repo(repo: Path) -> Path:
    return make_git(repo)


@pytest.mark.parametrize("kind", ["plain", "git"])
def test_a_warm_run_says_what_a_cold_run_says(repo: Path, kind: str) -> None:
    if kind == "git":
        make_git(repo)
    cold = everything()
    assert cold["text"][0] == 1 and "duplicate-job-name" in cold["text"][2]
    assert cold["report files"] == (cold["sarif"][1], cold["json"][1])  # one run, three formats
    filling = everything("--cache", "c")
    lines = index_lines(repo)
    assert len(lines) > 80 and not list((repo / "c").rglob("*.tmp"))
    warm = everything("--cache", "c")
    assert filling == cold and warm == cold
    assert index_lines(repo) == lines  # every spec a hit: nothing added


def test_a_warm_run_reads_the_cache_not_the_pipeline(repo: Path, monkeypatch) -> None:
    run("validate", "specs", "--cache", "c")
    compiled: list[str] = []
    real = tree.pipeline.compile_file
    monkeypatch.setattr(tree.pipeline, "compile_file",
                        lambda f, *a, **k: compiled.append(f) or real(f, *a, **k))
    Path("specs/examples/nlp/bert-cpu-smoke.yaml").write_text(
        Path("specs/examples/nlp/bert-cpu-smoke.yaml").read_text() + "# changed\n")
    monkeypatch.setenv("TRAINSPEC_CACHE", "c")
    run("validate", "specs")
    assert compiled == ["specs/examples/nlp/bert-cpu-smoke.yaml"]


def test_what_a_result_depends_on_is_in_its_key(repo: Path) -> None:
    warm = run("validate", "specs", "--format", "json", "--cache", "c")
    for change in ("config", "option"):
        if change == "config":
            (repo / "trainspec.yaml").write_text("ignore: [label-value]\n")
            flags: tuple[str, ...] = ()
        else:
            flags = ("--region", "europe-west4")
        cold = run("validate", "specs", "--format", "json", *flags)
        assert run("validate", "specs", "--format", "json", "--cache", "c", *flags) == cold
        assert run("validate", "specs", "--format", "json", "--cache", "c", *flags) == cold
        assert cold != warm, change


def test_a_spec_with_python_source_is_never_cached(repo: Path) -> None:
    """Its archive is built from the trainer's files, which are in no key."""
    shutil.rmtree("specs")
    Path("Pulumi.yaml").write_text("name: ml-jobs\nruntime: python\n")
    Path("trainer/trainer").mkdir(parents=True)
    Path("trainer/pyproject.toml").write_text('[project]\nname = "trainer"\nversion = "1"\n')
    Path("trainer/trainer/__init__.py").write_text("")
    Path("trainer/trainer/task.py").write_text("print(1)\n")
    Path("specs").mkdir()
    Path("specs/job.yaml").write_text(
        "apiVersion: trainspec/v1\nkind: TrainingJob\nmetadata: {name: tiny}\nspec:\n"
        "  stagingBucket: gs://acme-staging\n  python:\n    source: ../trainer\n"
        "    module: trainer.task\n"
        "    executorImage: us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest\n")
    code, _, err = run("validate", "specs", "--cache", "c")
    assert code == 0, err
    assert not index_lines(repo)
    shutil.copy(ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml", "specs/other.yaml")
    assert run("validate", "specs", "--cache", "c")[0] == 0
    assert [line.split("\t")[0] for line in index_lines(repo)] == ['"specs/other.yaml"']


def test_a_cache_folder_that_cannot_be_written_is_no_error(repo: Path) -> None:
    Path("c").write_text("a file, not a folder")
    cold = run("validate", "specs", "--format", "json")
    assert run("validate", "specs", "--format", "json", "--cache", "c") == cold


def test_git_vouches_only_for_what_it_compared(git_repo: Path, monkeypatch) -> None:
    """A spec git reports unchanged is not read (its blob id is its content); every other one
    is read, hashed and, if it changed, compiled: edited behind git's back with only its
    ctime to tell (even under a repo config that tells git not to look), modified after
    `git add`, untracked, marked assume-unchanged, or a symbolic link (its blob is a name)."""
    examples = Path("specs/examples")
    specs = sorted(p for p in examples.rglob("*.yaml") if p.is_file())
    behind, staged, assumed, target = specs[:4]
    link = Path("specs/golden/link.yaml")
    link.symlink_to(os.path.relpath(target, link.parent))
    for spec in (behind, staged, assumed, target):  # an old mtime: not "racily clean"
        os.utime(spec, (1_000_000_000, 1_000_000_000))
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "link")
    run("validate", "specs", "--cache", "c")
    # Git compares whole seconds of ctime (sub-second parts only if built with USE_NSEC): an
    # edit in the second git last looked, same size and mtime put back, is invisible to git
    # itself (`git status` too). docs/speed.md says so.
    time.sleep(1.1)

    def edit(spec: Path) -> None:  # same size, same mtime: only its ctime changes
        text = spec.read_text()
        spec.write_text(text.replace("team: ", "team= ", 1) if "team: " in text
                        else text.replace("name: ", "name= ", 1))
        assert len(spec.read_text()) == len(text)
        os.utime(spec, (1_000_000_000, 1_000_000_000))

    edit(behind)
    edit(staged)
    git(git_repo, "add", str(staged))
    staged.write_text(staged.read_text() + "# after git add\n")
    git(git_repo, "update-index", "--assume-unchanged", str(assumed))
    edit(assumed)
    edit(target)
    git(git_repo, "add", str(target))
    shutil.copy(ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml", "specs/untracked.yaml")
    git(git_repo, "config", "core.checkStat", "minimal")  # git alone would trust mtime + size
    git(git_repo, "config", "core.trustctime", "false")
    cold = run("validate", "specs", "--format", "json")

    read: list[str] = []
    real_read = tree.read_bytes
    monkeypatch.setattr(tree, "read_bytes", lambda f: read.append(f) or real_read(f))
    compiled: list[str] = []
    real = tree.pipeline.compile_file
    monkeypatch.setattr(tree.pipeline, "compile_file",
                        lambda f, *a, **k: compiled.append(f) or real(f, *a, **k))
    assert run("validate", "specs", "--format", "json", "--cache", "c") == cold
    unvouched = sorted(map(str, (behind, staged, assumed, link, Path("specs/untracked.yaml"))))
    # Read to find its entry if git does not vouch for it; read again if compiled (its entry
    # is stored under the id of the bytes compiled).
    assert sorted(compiled) == sorted([*unvouched, str(target)])
    assert sorted(read) == sorted([*unvouched, *compiled])
    read.clear()
    compiled.clear()
    assert run("validate", "specs", "--format", "json", "--cache", "c") == cold
    assert compiled == [] and sorted(read) == unvouched


def test_an_index_or_body_store_that_cannot_be_read_is_a_miss(git_repo: Path) -> None:
    """Truncated, foreign or garbage index lines and lost or altered bodies: the same answer
    as a cold run, and `compile --out` writes the same files (a lost body is compiled
    again)."""
    cold = run("validate", "specs", "--format", "json")
    assert run("compile", "specs/examples", "--out", "cold")[0] == 0
    assert run("validate", "specs", "--format", "json", "--cache", "c") == cold
    bodies = sorted((git_repo / "c" / "bodies").rglob("*.json"))
    assert len(bodies) > 20
    for i, body in enumerate(bodies):
        if i % 3 == 0:
            body.unlink()
        elif i % 3 == 1:
            body.write_text(body.read_text().replace("{", "[", 1))
    [index] = (git_repo / "c").glob("index-*.jsonl")
    lines = index.read_text().splitlines()
    broken = []
    for i, line in enumerate(lines):
        path, content, configs, head = line.split("\t")
        broken.append([line[: len(line) // 2], "\0garbage", f"{path}\t{content}\t{configs}\t[1]",
                       f"{path}\t{content}\t{configs}\t[null, [], \"short\"]",
                       f"{path}\t{content}\t{configs}\t" + json.dumps({"format": 1}),
                       line][i % 6])
    index.write_text("\n".join(broken))
    assert run("validate", "specs", "--format", "json", "--cache", "c") == cold
    assert run("compile", "specs/examples", "--out", "warm", "--cache", "c")[0] == 0
    written = {p.relative_to("warm"): p.read_bytes() for p in Path("warm").rglob("*.json")}
    assert written == {p.relative_to("cold"): p.read_bytes() for p in Path("cold").rglob("*.json")}


def test_compile_check_compares_committed_outputs_by_blob_id(git_repo: Path,
                                                             monkeypatch) -> None:
    """An output git vouches for is compared by its blob id, never read; one that differs or
    git does not vouch for is read as before (a CRLF copy is up to date, as it always was)."""
    from compiler import emit

    assert run("compile", "specs/examples", "--out", "out")[0] == 0
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "compiled")
    run("validate", "specs/examples", "--cache", "c")
    opened: list[str] = []
    real = emit._regular_text
    monkeypatch.setattr(emit, "_regular_text", lambda p: opened.append(str(p)) or real(p))
    code, _, err = run("compile", "specs/examples", "--out", "out", "--check", "--cache", "c")
    assert code == 0 and "up to date" in err and opened == []
    outputs = sorted(p for p in Path("out").rglob("*.json"))
    edited, staged, crlf = outputs[:3]
    edited.write_text(edited.read_text().replace('"', "'", 1))
    staged.write_text(staged.read_text() + " ")
    git(git_repo, "add", str(staged))
    crlf.write_bytes(crlf.read_bytes().replace(b"\n", b"\r\n"))
    git(git_repo, "add", str(crlf))
    cold = run("compile", "specs/examples", "--out", "out", "--check")
    assert cold[0] == 1 and f"{edited}: stale" in cold[2] and f"{staged}: stale" in cold[2]
    assert f"{crlf}: stale" not in cold[2]
    opened.clear()
    assert run("compile", "specs/examples", "--out", "out", "--check", "--cache", "c") == cold
    assert sorted(opened) == sorted(map(str, (edited, staged, crlf)))


def test_one_run_validates_and_checks(repo: Path) -> None:
    """`compile --out --check --format F --report F=FILE` (the CI workflow's one step) says
    what `validate --format F --report F=FILE` says, then checks the outputs."""
    for path in ("specs/examples", "specs"):
        said = run("validate", path, "--format", "github", "--report", "sarif=v.sarif")
        assert run("compile", path, "--out", "out")[0] == (0 if path == "specs/examples" else 1)
        code, out, err = run("compile", path, "--out", "out", "--check", "--format", "github",
                             "--report", "sarif=c.sarif")
        assert (code, out) == said[:2] and Path("c.sarif").read_text() == Path(
            "v.sarif").read_text()
        assert ("up to date" in err) == (code == 0)
    code, _, err = run("compile", "specs/again.yaml", "--format", "github")
    assert code == 64 and "--format and --report are for a tree" in err


def test_a_spec_saved_during_a_run_is_kept_under_the_bytes_compiled(
        git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Git vouched for the committed blob, then the spec was saved before it was compiled: its
    result is the new bytes', so it is no entry for the committed blob."""
    spec = Path("specs/examples/nlp/bert-cpu-smoke.yaml")
    committed = spec.read_text()
    real = tree.pipeline.compile_file

    def saved_first(f: str, *a, **k):  # noqa: ANN202 - an editor saves it just now
        if f == str(spec):
            spec.write_text(committed.replace("name: ", "name: x", 1))
        return real(f, *a, **k)

    monkeypatch.setattr(tree.pipeline, "compile_file", saved_first)
    run("validate", "specs", "--format", "json", "--cache", "c")
    monkeypatch.setattr(tree.pipeline, "compile_file", real)
    spec.write_text(committed)
    os.utime(spec, (1_000_000_000, 1_000_000_000))
    git(git_repo, "update-index", "--refresh")  # git vouches for the committed blob again
    cold = run("validate", "specs", "--format", "json")
    assert run("validate", "specs", "--format", "json", "--cache", "c") == cold


def test_a_named_pipe_in_the_cache_is_a_miss_not_a_hang(repo: Path) -> None:
    import signal

    class Hung(Exception):  # not an OSError: no reader of the cache takes it for a miss
        pass

    def hung(*_: object) -> None:
        raise Hung("the run blocked on a named pipe")

    cold = run("compile", "specs/examples", "--out", "cold")
    run("compile", "specs/examples", "--out", "warm", "--cache", "c")
    shutil.rmtree("warm")
    body = sorted((repo / "c" / "bodies").rglob("*.json"))[0]
    body.unlink()
    os.mkfifo(body)
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        assert run("compile", "specs/examples", "--out", "warm", "--cache", "c") == \
            (cold[0], cold[1], cold[2].replace("cold", "warm"))
        [index] = (repo / "c").glob("index-*.jsonl")
        index.unlink()
        os.mkfifo(index)
        shutil.rmtree("warm")
        assert run("compile", "specs/examples", "--out", "warm", "--cache", "c")[0] == 0
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    written = {p.relative_to("warm"): p.read_bytes() for p in Path("warm").rglob("*.json")}
    assert written == {p.relative_to("cold"): p.read_bytes() for p in Path("cold").rglob("*.json")}


def test_an_entry_whose_body_is_lost_is_a_miss(repo: Path) -> None:
    """An entry that is not what its spec compiles to, its body store gone: the spec is
    compiled again (its entry replaced), never "changed while trainspec read it" for ever."""
    assert run("compile", "specs/examples", "--out", "cold")[0] == 0
    run("validate", "specs/examples", "--cache", "c")
    [index] = (repo / "c").glob("index-*.jsonl")
    lines = index.read_text().splitlines()
    heads = [line.rsplit("\t", 1) for line in lines]
    # Each spec's entry holds the next one's result: an entry not its spec's.
    index.write_text("".join(f"{key}\t{heads[(i + 1) % len(heads)][1]}\n"
                             for i, (key, _) in enumerate(heads)))
    shutil.rmtree(repo / "c" / "bodies")
    for _ in range(2):
        code, _, err = run("compile", "specs/examples", "--out", "warm", "--cache", "c")
        assert code == 0, err
        written = {p.relative_to("warm"): p.read_bytes() for p in Path("warm").rglob("*.json")}
        assert written == {p.relative_to("cold"): p.read_bytes()
                           for p in Path("cold").rglob("*.json")}
