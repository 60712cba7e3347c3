"""What git vouches for (compiler/gitstate.py): only files whose working copy git itself
compared with their index blob, and whose blob is the bytes trainspec reads."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from compiler import gitstate


def git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com",
                           *args], cwd=repo, input=stdin, check=True, capture_output=True,
                          env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull,
                               "GIT_CONFIG_NOSYSTEM": "1"}).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    specs = tmp_path / "specs"
    (specs / "sub").mkdir(parents=True)
    for name in ("a.yaml", "b.yaml", "c.yaml", "d.yaml", "e.yaml", "sub/f.yaml", "g.json"):
        (specs / name).write_text(f"name: {name}\n")
    (specs / "link.yaml").symlink_to("a.yaml")
    for path in specs.rglob("*"):  # long before the index is written: not "racily clean"
        os.utime(path, (1_000_000_000, 1_000_000_000), follow_symlinks=False)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "specs")
    return tmp_path


def test_the_blob_id_is_gits(repo: Path) -> None:
    data = (repo / "specs" / "a.yaml").read_bytes()
    assert gitstate.blob_id(data) == git(repo, "hash-object", "--stdin", stdin=data).decode().strip()


def test_only_what_git_compared_is_vouched_for(repo: Path) -> None:
    specs = repo / "specs"
    every = gitstate.vouched(str(specs))
    assert sorted(every) == ["a.yaml", "b.yaml", "c.yaml", "d.yaml", "e.yaml", "g.json",
                             "sub/f.yaml"]  # not the link: its blob is "a.yaml", a name
    assert every["a.yaml"] == gitstate.blob_id((specs / "a.yaml").read_bytes())
    assert sorted(gitstate.vouched(str(specs / "sub"))) == ["f.yaml"]  # relative to the folder
    assert "g.json" not in gitstate.vouched(str(specs), lambda p: p.endswith(".yaml"))
    (specs / "b.yaml").write_text("name: changed\n")  # modified
    (specs / "c.yaml").write_text("name: staged\n")
    git(repo, "add", "specs/c.yaml")
    (specs / "c.yaml").write_text("name: after\n")  # modified after git add
    git(repo, "update-index", "--assume-unchanged", "specs/d.yaml")
    git(repo, "update-index", "--skip-worktree", "specs/e.yaml")
    (specs / "new.yaml").write_text("name: untracked\n")
    (repo / ".gitattributes").write_text("specs/sub/f.yaml text eol=crlf\n")
    assert sorted(gitstate.vouched(str(specs))) == ["a.yaml", "g.json"]


def test_a_conversion_of_every_file_vouches_for_none(repo: Path) -> None:
    git(repo, "config", "core.autocrlf", "true")
    assert gitstate.vouched(str(repo / "specs")) == {}


def test_outside_a_work_tree_nothing_is_vouched_for(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "a.yaml").write_text("name: a\n")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert gitstate.vouched(str(tmp_path)) == {}
    assert gitstate.vouched(str(tmp_path / "missing")) == {}


def test_the_older_crlf_attribute_converts_too(repo: Path) -> None:
    (repo / ".gitattributes").write_text("specs/a.yaml crlf\nspecs/b.yaml -crlf\n")
    every = gitstate.vouched(str(repo / "specs"))
    assert "a.yaml" not in every and "b.yaml" in every  # -crlf: unset, no conversion


def test_a_checkout_converted_under_a_configuration_since_changed(repo: Path) -> None:
    """Checked out with core.autocrlf=true, no longer set: git's stat data match the CRLF
    working copy, whose bytes are not the blob's."""
    a = repo / "specs" / "a.yaml"
    a.unlink()
    git(repo, "-c", "core.autocrlf=true", "checkout", "--", "specs/a.yaml")
    assert a.read_bytes() == b"name: a.yaml\r\n"
    os.utime(a, (1_000_000_000, 1_000_000_000))  # not racily clean: git does not re-read it
    git(repo, "-c", "core.autocrlf=true", "update-index", "--refresh")
    assert git(repo, "diff-files", "--name-only") == b""  # git says: unchanged
    every = gitstate.vouched(str(repo / "specs"))
    assert "a.yaml" not in every and "b.yaml" in every


def test_a_same_second_rewrite_git_cannot_see_is_not_vouched_for(repo: Path) -> None:
    """Git compares whole seconds: a same-size rewrite within the second git last looked at
    the file, its mtime put back, passes git's comparison; its ctime's nanoseconds differ."""
    a = repo / "specs" / "a.yaml"
    time.sleep(1 - time.time() % 1 + 0.02)  # the start of a second
    os.utime(a, (1_000_000_000, 1_000_000_000))
    git(repo, "update-index", "--refresh")
    a.write_text("name: A.yaml\n")  # same size, same inode
    os.utime(a, (1_000_000_000, 1_000_000_000))
    every = gitstate.vouched(str(repo / "specs"))
    assert "a.yaml" not in every and "b.yaml" in every



def test_a_smudging_filter_once_named_by_an_attribute_since_dropped(repo: Path) -> None:
    """Checked out through a same-size smudge filter whose attribute is gone: git calls the
    file unchanged (its stat data match), its size is the blob's, no attribute names a
    conversion, yet its bytes are not the blob's."""
    git(repo, "config", "filter.pin.clean", "sed s/1/0/")
    git(repo, "config", "filter.pin.smudge", "sed s/0/1/")
    a = repo / "specs" / "a.yaml"
    a.write_text("tag: 0\n")
    (repo / ".gitattributes").write_text("specs/a.yaml filter=pin\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "filtered")
    a.unlink()
    git(repo, "checkout", "--", "specs/a.yaml")
    assert a.read_bytes() == b"tag: 1\n"  # smudged; the blob says 0
    os.utime(a, (1_000_000_000, 1_000_000_000))  # not racily clean: git does not re-read it
    git(repo, "update-index", "--refresh")
    (repo / ".gitattributes").unlink()
    git(repo, "rm", "-q", "--cached", ".gitattributes")
    git(repo, "commit", "-qm", "no filter")
    assert git(repo, "diff-files", "--name-only") == b""  # git says: unchanged
    assert "a.yaml" not in gitstate.vouched(str(repo / "specs"))


def test_a_bare_autocrlf_is_true(repo: Path) -> None:
    with open(repo / ".git" / "config", "a") as config:
        config.write("[core]\n\tautocrlf\n")
    assert gitstate.vouched(str(repo / "specs")) == {}
