"""The result cache (compiler/cache.py): a warm run says byte for byte what a cold run says."""

from __future__ import annotations

import io
import json
import shutil
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


def test_a_warm_run_says_what_a_cold_run_says(repo: Path) -> None:
    cold = everything()
    assert cold["text"][0] == 1 and "duplicate-job-name" in cold["text"][2]
    assert cold["report files"] == (cold["sarif"][1], cold["json"][1])  # one run, three formats
    filling = everything("--cache", "c")
    entries = list((repo / "c").rglob("*.json"))
    assert len(entries) > 80 and not list((repo / "c").rglob("*.tmp"))
    warm = everything("--cache", "c")
    assert filling == cold and warm == cold
    assert sorted((repo / "c").rglob("*.json")) == sorted(entries)  # every spec a hit


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
    for change in ("config", "option", "corrupt"):
        if change == "config":
            (repo / "trainspec.yaml").write_text("ignore: [label-value]\n")
            flags: tuple[str, ...] = ()
        elif change == "option":
            flags = ("--region", "europe-west4")
        else:
            for entry in (repo / "c").rglob("*.json"):  # truncated, foreign or garbage
                text = entry.read_text()
                entry.write_text(text[: len(text) // 2] if len(text) % 3 == 0 else
                                 json.dumps({"format": 1}) if len(text) % 3 == 1 else "\0")
            flags = ()
        cold = run("validate", "specs", "--format", "json", *flags)
        assert run("validate", "specs", "--format", "json", "--cache", "c", *flags) == cold
        assert run("validate", "specs", "--format", "json", "--cache", "c", *flags) == cold
        if change != "corrupt":
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
    assert not list(Path("c").rglob("*.json"))
    shutil.copy(ROOT / "specs" / "nlp" / "bert-cpu-smoke.yaml", "specs/other.yaml")
    assert run("validate", "specs", "--cache", "c")[0] == 0
    assert len(list(Path("c").rglob("*.json"))) == 1


def test_a_cache_folder_that_cannot_be_written_is_no_error(repo: Path) -> None:
    Path("c").write_text("a file, not a folder")
    cold = run("validate", "specs", "--format", "json")
    assert run("validate", "specs", "--format", "json", "--cache", "c") == cold
