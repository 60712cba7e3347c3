"""The tree entry point (compiler.tree): one definition of a spec file, one set of cross-spec
rules, whichever command reads the tree."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from compiler import cli, testing, tree

GOOD = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: NAME
spec:
  region: us-central1
  container: {image: gcr.io/acme/train:1.0}
  pools:
    chief: {machineType: n1-standard-8}
"""


@pytest.fixture()
def specs(tmp_path: Path) -> Path:
    root = tmp_path / "specs"
    for rel, name in (("b.yaml", "b"), ("a/x.yml", "x"), ("a.yaml", "a"), ("a-b/y.yaml", "y")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(GOOD.replace("NAME", name))
    # Not specs: hidden files and folders, other suffixes.
    (root / ".draft.yaml").write_text("not: [a spec")
    (root / ".wip").mkdir()
    (root / ".wip" / "job.yaml").write_text("not: [a spec")
    (root / "notes.txt").write_text("hello")
    (root / "a" / "job.json").write_text("{}")
    return root


def test_a_spec_file_is_a_visible_yaml_file_listed_in_path_order(specs: Path) -> None:
    assert tree.walk(specs) == ["a-b/y.yaml", "a.yaml", "a/x.yml", "b.yaml"]  # as git sorts
    files, missing = tree.discover([str(specs), str(specs / ".draft.yaml"), "nosuch.yaml"])
    assert files == [str(specs / p) for p in tree.walk(specs)] + [str(specs / ".draft.yaml")]
    assert [(d.file, d.message) for d in missing] == [("nosuch.yaml", "no such file or directory")]
    assert tree.is_spec("jobs/a.yml") and not tree.is_spec("jobs/.a.yaml")
    assert not tree.is_spec(".github/workflows/ci.yaml") and not tree.is_spec("a.json")
    assert not tree.is_spec(".a.yaml") and not tree.is_spec("a/.b/c.yaml")
    assert not tree.is_spec("trainspec.yaml") and not tree.is_spec("team/trainspec.yaml")
    assert tree.is_spec("team/my-trainspec.yaml") and tree.is_spec("a.b/c.yaml")


def test_the_repo_config_is_not_a_spec(tmp_path: Path) -> None:
    """`validate .` at the repository root reads trainspec.yaml as the repo config only."""
    (tmp_path / "trainspec.yaml").write_text("ignore: []\n")
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "a.yaml").write_text(GOOD.replace("NAME", "a"))
    assert tree.walk(tmp_path) == ["specs/a.yaml"]
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["validate", str(tmp_path)], out, err) == 0, err.getvalue()
    assert err.getvalue() == "1 spec(s) checked, 0 with errors\n"


def test_validate_compile_out_and_the_testing_kit_read_the_same_specs(specs: Path,
                                                                      tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["validate", str(specs)], out, err) == 0
    assert err.getvalue() == "4 spec(s) checked, 0 with errors\n"
    assert cli.main(["compile", str(specs), "--out", str(tmp_path / "out")], out, err) == 0
    written = sorted(p.relative_to(tmp_path / "out").as_posix()
                     for p in (tmp_path / "out").rglob("*.json"))
    assert written == ["a-b/y.json", "a.json", "a/x.json", "b.json"]
    results = testing.check_repo(specs)
    assert [r.file for r in results] == [str(specs / p) for p in tree.walk(specs)]


def test_the_cross_spec_rules_blame_the_later_spec_unless_one_keeps_its_name(specs) -> None:
    (specs / "c.yaml").write_text(GOOD.replace("NAME", "a"))
    found = tree.compile_paths([str(specs)])
    assert found.failed == 1
    assert [d.message for d in found.errors] == [
        f"job name 'a' is already used by {specs / 'a.yaml'}"]
    assert found.errors[0].file == str(specs / "c.yaml")
    contents = {p: (specs / p).read_bytes() for p in tree.walk(specs)}
    kept = tree.compile_contents(contents, keep={"a": "c.yaml"})
    assert [(d.file, d.message) for d in kept.errors] == [
        ("a.yaml", "job name 'a' is already used by c.yaml")]


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_spec_that_parses_takes_part_in_the_cross_spec_rules(specs, monkeypatch,
                                                                    jobs) -> None:
    """Issue 19: a duplicate name is reported in the same run as an unrelated error of either
    spec, whichever comes first (the README promises every problem in one run)."""
    monkeypatch.setattr(tree, "PARALLEL_THRESHOLD", 1)
    (specs / "a.yaml").write_text(GOOD.replace("NAME", "a").replace("n1-standard-8",
                                                                     "n1-standard-7"))
    (specs / "c.yaml").write_text(GOOD.replace("NAME", "a"))
    legacy = GOOD.replace("region:", "platform: ai-platform\n  region:")
    (specs / "d.yaml").write_text(legacy.replace("NAME", "d-1").replace("train:1.0}",
                                                                          "train:1.0, cmd: x}"))
    (specs / "e.yaml").write_text(legacy.replace("NAME", "d_1"))
    found = tree.compile_paths([str(specs)], jobs=jobs)
    codes = {(Path(d.file).name, d.code) for d in found.errors}
    assert ("c.yaml", "duplicate-job-name") in codes
    assert ("e.yaml", "duplicate-job-id") in codes
    assert {name for name, _ in codes} == {"a.yaml", "c.yaml", "d.yaml", "e.yaml"}
    assert found.failed == 4
