"""`diff` compiles a spec alike on both sides once (tree.compile_contents' `shared`), and says
byte for byte what compiling both sides in full says."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from compiler import cli, pipeline, tree
from compiler.review import alike

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Every golden case's spec and the examples on `main`, a repo config; then in the working
    tree one spec changed, one moved, one deleted, one broken and one copied (two specs
    naming one job)."""
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    specs = tmp_path / "specs"
    (specs / "golden").mkdir(parents=True)
    for case in sorted((ROOT / "tests" / "golden").iterdir()):
        if (case / "spec.yaml").is_file():
            shutil.copy(case / "spec.yaml", specs / "golden" / f"{case.name}.yaml")
    shutil.copytree(ROOT / "specs", specs / "examples")
    (tmp_path / "trainspec.yaml").write_text("severity:\n  image-reference-grammar: error\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    bert = specs / "examples" / "nlp" / "bert-cpu-smoke.yaml"
    bert.write_text(bert.read_text().replace("timeout: 30m", "timeout: 45m"))
    (specs / "examples" / "vision" / "vit-tpu-v5e.yaml").rename(specs / "vit.yaml")
    (specs / "examples" / "legacy" / "census-hptuning.yaml").unlink()
    (specs / "examples" / "vision" / "resnet-hpt.yaml").write_text("kind: [\n")
    shutil.copy(specs / "examples" / "nlp" / "t5-parameter-servers.yaml", specs / "t5.yaml")
    return tmp_path


def run(repo: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["diff", "main", "--repo", str(repo), *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_a_spec_alike_on_both_sides_is_compiled_once_and_the_report_is_the_same(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real_text, real_contents = pipeline.compile_text, tree.compile_contents
    monkeypatch.setattr(pipeline, "compile_text",
                        lambda text, file, *a, **k: compiled.append(file) or real_text(
                            text, file, *a, **k))
    shared = {fmt: run(repo, "--format", fmt) for fmt in ("text", "json")}
    once = len(compiled) // 2
    compiled.clear()
    monkeypatch.setattr(tree, "compile_contents",
                        lambda *a, shared=None, **k: real_contents(*a, **k))
    monkeypatch.setattr(alike, "known", lambda *a: {})
    full = {fmt: run(repo, "--format", fmt) for fmt in ("text", "json")}
    assert shared == full
    assert full["text"][0] == 1 and "duplicate-job-name" in full["text"][1] + full["text"][2]
    base = len(list((repo / "specs").rglob("*.yaml")))  # as many as at main
    assert len(compiled) // 2 == 2 * base
    # A spec alike on both sides is compiled once; each side compiles its changed (bert),
    # moved (vit), deleted or broken, and new (t5) specs.
    assert once == base + 4
