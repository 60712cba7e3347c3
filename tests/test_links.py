"""Symbolic links never carry anything from outside into what trainspec reads or uploads.

`python.source` (compiler/packaging): every path is resolved component by component (links of
links, links to folders, `..` after a link), the *target* must be a regular file inside the
source folder, the secret-file check looks at the target's name and at the bytes archived, and
the bytes archived are read without following any link (a link swapped in after the check
makes the read fail, it is never followed). Spec trees (compiler/tree.py): a spec file found in
a folder that links to a file outside it is a warning naming the target, an error under
--strict.
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path

import pytest
from files import write
from test_local_code import PYPROJECT, SPEC, specs_repo
from test_tree import GOOD

from compiler import cli, pipeline
from compiler import tree as tree_module
from compiler.config.model import RepoConfig
from compiler.options import Options
from compiler.packaging import sdist
from compiler.source import repo as tree

AT = "specs/job.yaml:7:13: error: $.spec.python.source: "
# A private key as `ssh-keygen` writes one (a throwaway: never a real key).
PRIVATE_KEY = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
               "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
               "QyNTUxOQAAACBhY21lYWNtZWFjbWVhY21lYWNtZWFjbWVhY21lYWNtZQAAAJgAAAAAAAAA\n"
               "-----END OPENSSH PRIVATE KEY-----\n")
SECRET_HINT = ("(add it to .gitignore, or allow it in trainspec.yaml packaging.allowSecretFiles) "
               "[source-secret-file]")


@pytest.fixture
def outside(tmp_path) -> Path:
    """A folder outside the repository holding what must never be uploaded."""
    folder = tmp_path / "outside"
    write(folder, {"passwd": "root:x:0:0:outside the repository\n", "id_rsa": PRIVATE_KEY,
                   "deep/task.py": "print('not the trainer')\n"})
    return folder


@pytest.fixture
def repo(tmp_path, monkeypatch) -> Path:
    return specs_repo(tmp_path, monkeypatch)


def errors() -> list[str]:
    result = pipeline.compile_file("specs/job.yaml")
    return [d.format() for d in result.diagnostics if d.is_error]


def build(root: Path, out: Path | None = None) -> sdist.Package:
    located = tree.Files(root).locate("specs/job.yaml")
    assert located is not None
    return sdist.build(located[0], "trainer", RepoConfig(), "trainer.task", out)


def archived(archive: str) -> dict[str, bytes]:
    with tarfile.open(archive) as tar:
        return {m.name.split("/", 1)[1]: tar.extractfile(m).read() for m in tar.getmembers()}


# -- the reproduction --------------------------------------------------------------------

def test_a_file_link_through_an_ignored_folder_link_out_of_the_repository_is_refused(
        repo, outside, tmp_path):
    (repo / "trainer" / "esc").symlink_to(outside)
    write(repo, {"trainer/.gitignore": "esc\n"})
    (repo / "trainer" / "data.txt").symlink_to("esc/passwd")
    assert errors() == [
        AT + "trainer/data.txt is a symbolic link to 'esc/passwd', which leaves the repository "
        f"(trainer/esc links to the absolute path {str(outside)!r}): nothing outside the source "
        "folder is packaged; copy the file in, or ignore the link in .gitignore [source-link]"]
    refused_everywhere(repo, tmp_path, "source-link")


def refused_everywhere(repo: Path, tmp_path: Path, code: str) -> None:
    """Nothing is built (no archive written) and `validate` exits 1 with `code`."""
    with pytest.raises(sdist.BuildError):
        build(repo, tmp_path / "out")
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["validate", "specs"], out, err) == 1
    assert f"[{code}]" in err.getvalue()


def test_the_same_through_a_relative_folder_link_at_the_repository_root(repo, outside):
    (repo / "esc").symlink_to(os.path.relpath(outside, repo))
    write(repo, {".gitignore": "/esc\n"})
    (repo / "trainer" / "data.txt").symlink_to("../esc/passwd")
    assert errors() == [
        AT + "trainer/data.txt is a symbolic link to '../esc/passwd', which leaves the "
        "repository (esc links to '../outside', above the repository root): nothing outside "
        "the source folder is packaged; copy the file in, or ignore the link in .gitignore "
        "[source-link]"]


def test_dot_dot_after_a_folder_link_is_the_parent_of_its_target(repo, outside):
    """`sub/../passwd` with `sub -> outside/deep` is outside/passwd (as the OS reads it), not
    trainer/passwd (as the link's text reads)."""
    (repo / "trainer" / "sub").symlink_to(os.path.relpath(outside / "deep", repo / "trainer"))
    write(repo, {"trainer/.gitignore": "sub\n", "trainer/passwd": "the trainer's own\n"})
    (repo / "trainer" / "data.txt").symlink_to("sub/../passwd")
    found = errors()
    assert len(found) == 1 and found[0].startswith(
        AT + "trainer/data.txt is a symbolic link to 'sub/../passwd', which leaves the "
        "repository (trainer/sub links to "), found


def test_nothing_is_looked_at_through_a_link(repo, outside, monkeypatch):
    """Every path the packager asks about is reached without following a link: it never reads,
    hashes or stats a file outside the repository, even to refuse it."""
    (repo / "trainer" / "esc").symlink_to(outside)
    write(repo, {"trainer/.gitignore": "esc\n"})
    (repo / "trainer" / "data.txt").symlink_to("esc/passwd")
    (repo / "trainer" / "key.txt").symlink_to("esc/id_rsa")
    asked: list[str] = []
    for name in ("entry", "read", "link_target", "children"):
        method = getattr(tree.FsRepo, name)
        monkeypatch.setattr(tree.FsRepo, name, lambda self, path, _m=method: (
            asked.append(path), _m(self, path))[1])
    assert errors()
    assert asked
    for path in asked:
        parts = path.split("/")
        for i in range(1, len(parts)):  # every folder on the way is a real folder
            assert not (repo / "/".join(parts[:i])).is_symlink(), path


def test_a_path_through_a_link_is_never_read(repo, outside):
    (repo / "trainer" / "esc").symlink_to(outside)
    found = tree.Files(repo).locate("specs/job.yaml")
    assert found is not None
    fs = found[0]
    assert fs.entry("trainer/esc/passwd") is None
    with pytest.raises(tree.TreeError):
        fs.read("trainer/esc/passwd")
    with pytest.raises(tree.TreeError):
        fs.children("trainer/esc")
    assert fs.entry("trainer/esc").kind == tree.LINK


def test_a_source_folder_reached_through_a_link_is_refused(repo, outside):
    write(outside, {"trainer/pyproject.toml": PYPROJECT, "trainer/trainer/task.py": ""})
    (repo / "lib").symlink_to(outside)
    (repo / "specs" / "job.yaml").write_text(SPEC.replace("../trainer", "../lib/trainer"))
    assert errors() == [
        AT + "lib/trainer is reached through a symbolic link (lib): name the folder itself "
        "(python.source is a folder holding pyproject.toml or setup.py, relative to the spec "
        "file) [source-folder]"]


# -- links inside the source ---------------------------------------------------------------------

def test_links_of_links_and_through_folder_links_inside_the_source_are_their_files(
        repo, tmp_path):
    (repo / "trainer" / "same").symlink_to("trainer")  # a folder link: ignored, used by others
    write(repo, {"trainer/.gitignore": "same\n"})
    (repo / "trainer" / "b.py").symlink_to("same/task.py")
    (repo / "trainer" / "a.py").symlink_to("b.py")  # a link of a link
    (repo / "trainer" / "c.py").symlink_to("same/../trainer/./task.py")
    files = archived(build(repo, tmp_path / "out").archive)
    assert files["a.py"] == files["b.py"] == files["c.py"] == b"print('training')\n"
    assert "same/task.py" not in files


def test_a_link_chain_leaving_the_repository_is_refused(repo, outside):
    (repo / "trainer" / "b.txt").symlink_to(os.path.relpath(outside / "passwd",
                                                            repo / "trainer"))
    (repo / "trainer" / "a.txt").symlink_to("b.txt")
    found = errors()
    assert len(found) == 2 and all("[source-link]" in e for e in found), found
    assert found[0].startswith(AT + "trainer/a.txt is a symbolic link to 'b.txt', which leaves "
                               "the repository (trainer/b.txt links to '../../outside/passwd', "
                               "above the repository root)"), found


def test_an_absolute_link_is_refused_even_to_a_file_of_the_source(repo, outside):
    """An absolute link names a place on this machine: the archive would differ on another."""
    (repo / "trainer" / "abs.py").symlink_to(repo / "trainer" / "trainer" / "task.py")
    (repo / "trainer" / "etc.txt").symlink_to(outside / "passwd")
    found = errors()
    assert found == [
        AT + f"trainer/abs.py is a symbolic link to {str(repo / 'trainer/trainer/task.py')!r}, "
        f"which leaves the repository (trainer/abs.py links to the absolute path "
        f"{str(repo / 'trainer/trainer/task.py')!r}): nothing outside the source folder is "
        "packaged; copy the file in, or ignore the link in .gitignore [source-link]",
        AT + f"trainer/etc.txt is a symbolic link to {str(outside / 'passwd')!r}, which leaves "
        f"the repository (trainer/etc.txt links to the absolute path "
        f"{str(outside / 'passwd')!r}): nothing outside the source folder is packaged; copy "
        "the file in, or ignore the link in .gitignore [source-link]"]


def test_a_link_to_another_folder_of_the_repository_is_refused(repo):
    write(repo, {"shared/util.py": "x = 1\n"})
    (repo / "trainer" / "util.py").symlink_to("../shared/util.py")
    assert errors() == [
        AT + "trainer/util.py is a symbolic link to '../shared/util.py', which is shared/util.py, "
        "outside the source folder trainer: copy the file in, or ignore the link in .gitignore "
        "[source-link]"]


def test_a_dangling_link_is_refused(repo):
    (repo / "trainer" / "gone.txt").symlink_to("nowhere/missing.txt")
    assert errors() == [
        AT + "trainer/gone.txt is a symbolic link to 'nowhere/missing.txt', which does not exist: "
        "remove it, or ignore it in .gitignore [source-link]"]


def test_a_link_to_a_pipe_or_a_device_is_refused_without_blocking(repo):
    write(repo, {"trainer/.gitignore": "run/\n"})
    (repo / "trainer" / "run").mkdir()
    os.mkfifo(repo / "trainer" / "run" / "fifo")
    (repo / "trainer" / "stream.txt").symlink_to("run/fifo")
    (repo / "trainer" / "zero.bin").symlink_to("/dev/zero")
    found = errors()
    assert found[0] == (AT + "trainer/stream.txt is a symbolic link to a special file "
                        "('run/fifo'): only links to files are packaged [source-link]")
    assert found[1].startswith(AT + "trainer/zero.bin is a symbolic link to '/dev/zero', which "
                               "leaves the repository"), found


def test_a_link_swapped_in_after_the_check_is_never_followed(repo, outside, monkeypatch):
    """The files are listed and checked, then a folder is replaced by a link to outside before
    the archive is written: the read fails, the outside bytes are never archived."""
    real = sdist.collect.collect

    def collect_then_swap(*args, **kwargs):
        found = real(*args, **kwargs)
        folder = repo / "trainer" / "trainer"
        (folder / "__init__.py").unlink()
        (folder / "task.py").unlink()
        folder.rmdir()
        folder.symlink_to(outside / "deep")
        (outside / "deep" / "__init__.py").write_text("")
        return found

    monkeypatch.setattr(sdist.collect, "collect", collect_then_swap)
    with pytest.raises(sdist.BuildError) as e:
        build(repo)
    assert [p.code for p in e.value.problems] == ["source-unreadable"]


# -- hard links: a regular file whose other names may be anywhere -------------------------------

HARD_LINK = ("trainer/trainer/data.txt has 2 names (a hard link): where the others are cannot "
             "be known, so it may be a file from outside the source folder; give it a copy of "
             "its own: cp --remove-destination ORIGINAL trainer/trainer/data.txt [source-hard-link]")


def test_a_hard_link_to_a_file_outside_is_refused(repo, outside, tmp_path):
    os.link(outside / "passwd", repo / "trainer" / "trainer" / "data.txt")
    assert errors() == [AT + HARD_LINK]
    refused_everywhere(repo, tmp_path, "source-hard-link")


def test_a_symbolic_link_to_a_hard_link_is_refused_too(repo, outside):
    """Both names in the source lead to the same file: one error, naming it."""
    os.link(outside / "passwd", repo / "trainer" / "trainer" / "data.txt")
    (repo / "trainer" / "alias.txt").symlink_to("trainer/data.txt")
    assert errors() == [AT + HARD_LINK]


def test_a_hard_link_made_after_the_check_is_refused_on_the_bytes_read(repo, outside,
                                                                        monkeypatch):
    """Checked again on the open descriptor of the bytes archived: a file replaced by a hard
    link after the listing is never archived."""
    real = sdist.collect.collect

    def collect_then_link(*args, **kwargs):
        found = real(*args, **kwargs)
        task = repo / "trainer" / "trainer" / "task.py"
        task.unlink()
        os.link(outside / "passwd", task)
        return found

    monkeypatch.setattr(sdist.collect, "collect", collect_then_link)
    with pytest.raises(sdist.BuildError) as e:
        build(repo)
    assert [p.code for p in e.value.problems] == ["source-hard-link"]
    assert "trainer/trainer/task.py has 2 names" in e.value.problems[0].message


def test_a_git_revision_has_no_hard_links(repo, outside):
    os.link(outside / "passwd", repo / "trainer" / "trainer" / "data.txt")
    located = committed(repo).locate("specs/job.yaml")
    assert located is not None
    package = sdist.build(located[0], "trainer", RepoConfig(), "trainer.task")
    assert package.files == 4


# -- secrets: the target's name and the bytes, not the link's name -----------------------------

def test_a_private_key_linked_under_an_innocent_name_is_refused(repo):
    write(repo, {"trainer/.gitignore": "keys/\n", "trainer/keys/id_rsa": PRIVATE_KEY})
    (repo / "trainer" / "notes.txt").symlink_to("keys/id_rsa")
    assert errors() == [
        AT + "trainer/notes.txt looks like a secret (a link to trainer/keys/id_rsa, a id_rsa "
        f"file): it would be uploaded with the trainer {SECRET_HINT}"]


def test_a_private_key_under_an_innocent_name_is_refused_by_its_content(repo):
    write(repo, {"trainer/notes.txt": "see below\n" + PRIVATE_KEY})
    assert errors() == [
        AT + "trainer/notes.txt looks like a secret (a private key): it would be uploaded with "
        f"the trainer {SECRET_HINT}"]


def test_a_link_named_like_a_secret_to_innocent_content_is_refused(repo):
    """Decided: the name is refused whatever it holds, as for a regular file (the archive
    holds a member named id_rsa; anything reading the archive takes it for a key)."""
    write(repo, {"trainer/readme.txt": "hello\n"})
    (repo / "trainer" / "id_rsa").symlink_to("readme.txt")
    assert errors() == [
        AT + "trainer/id_rsa looks like a secret (a id_rsa file): it would be uploaded with "
        f"the trainer {SECRET_HINT}"]


def test_code_that_mentions_a_key_header_is_not_a_key(repo, tmp_path):
    write(repo, {"trainer/trainer/keys.py":
                 'HEADER = "-----BEGIN PRIVATE KEY-----"\n'
                 'def is_key(text):\n    return text.startswith(HEADER)\n'})
    assert errors() == []
    assert "trainer/keys.py" in archived(build(repo, tmp_path / "out").archive)


def test_an_allowed_secret_link_is_packaged(repo, tmp_path):
    write(repo, {"trainer/.gitignore": "keys/\n", "trainer/keys/id_rsa": PRIVATE_KEY,
                 "trainspec.yaml": "packaging:\n  allowSecretFiles: [trainer/fixture.txt]\n"})
    (repo / "trainer" / "fixture.txt").symlink_to("keys/id_rsa")
    assert errors() == []


# -- spec files in a folder that link out of it --------------------------------------------------

@pytest.fixture
def linked_specs(tmp_path, monkeypatch) -> Path:
    write(tmp_path, {"specs/real.yaml": GOOD.replace("NAME", "real"),
                     "specs/.shared/kept.yaml": GOOD.replace("NAME", "kept"),
                     "elsewhere/job.yaml": GOOD.replace("NAME", "job")})
    (tmp_path / "specs" / "sub").mkdir()
    (tmp_path / "specs" / "sub" / "kept.yaml").symlink_to("../.shared/kept.yaml")  # inside
    (tmp_path / "specs" / "linked.yaml").symlink_to("../elsewhere/job.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def validate(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["validate", *argv], out, err)
    return code, err.getvalue()


def test_a_spec_file_linked_from_outside_the_folder_is_a_warning_naming_it(linked_specs):
    code, err = validate("specs")
    target = linked_specs / "elsewhere" / "job.yaml"
    assert code == 0, err
    assert err.splitlines() == [
        f"specs/linked.yaml:1:1: warning: $: a symbolic link to {target}, outside the folder "
        "searched (specs): the spec read is that file (copy it in, or name it on the command "
        "line) [spec-link]",
        "3 spec(s) checked, 0 with errors"]


def test_under_strict_it_is_an_error(linked_specs):
    code, err = validate("specs", "--strict")
    assert code == 1
    assert "specs/linked.yaml:1:1: error: $: a symbolic link to " in err
    assert "sub/kept.yaml" not in err


def test_a_folder_link_in_the_folder_searched_is_not_entered_and_says_so(linked_specs):
    (linked_specs / "outdir").mkdir()
    (linked_specs / "outdir" / "sd").mkdir()
    (linked_specs / "outdir" / "sd" / "other.yaml").write_text(GOOD.replace("NAME", "other"))
    (linked_specs / "specs" / "sub" / "linkdir").symlink_to(linked_specs / "outdir" / "sd")
    code, err = validate("specs")
    assert code == 0, err
    assert (f"specs/sub/linkdir:1:1: warning: $: a symbolic link to a folder "
            f"({linked_specs / 'outdir' / 'sd'}): folder links are not entered, so no spec "
            "in it is read (copy the specs in, or name the folder on the command line) "
            "[spec-link]") in err.splitlines()
    assert "other" not in err.replace("linkdir", "")
    code, err = validate("specs", "--strict")
    assert code == 1 and "specs/sub/linkdir:1:1: error: $: a symbolic link to a folder" in err


def test_a_linked_spec_named_on_the_command_line_is_read_as_asked(linked_specs):
    assert validate("specs/linked.yaml", "--strict") == (0, "1 spec(s) checked, 0 with errors\n")


def test_worker_processes_say_it_too(linked_specs, monkeypatch):
    monkeypatch.setattr(tree_module, "PARALLEL_THRESHOLD", 1)
    found = tree_module.compile_paths(["specs"], Options(strict=True), jobs=2)
    assert [(r.file, [d.code for d in r.errors]) for r in found.results] == [
        ("specs/linked.yaml", ["spec-link"]), ("specs/real.yaml", []),
        ("specs/sub/kept.yaml", [])]


def test_a_git_revision_resolves_links_the_same_way(repo, outside):
    """`diff BASE` packages what git stores at BASE: the same resolution, the same refusals."""
    (repo / "trainer" / "esc").symlink_to(outside)
    (repo / "trainer" / "data.txt").symlink_to("esc/passwd")
    (repo / "trainer" / "alias.py").symlink_to("trainer/task.py")
    located = committed(repo).locate("specs/job.yaml")
    assert located is not None
    with pytest.raises(sdist.BuildError) as e:
        sdist.build(located[0], "trainer", RepoConfig(), "trainer.task")
    assert [p.message for p in e.value.problems] == [
        "trainer/data.txt is a symbolic link to 'esc/passwd', which leaves the repository "
        f"(trainer/esc links to the absolute path {str(outside)!r}): nothing outside the source "
        "folder is packaged; copy the file in, or ignore the link in .gitignore",
        f"trainer/esc is a symbolic link to {str(outside)!r}, which leaves the repository "
        f"(trainer/esc links to the absolute path {str(outside)!r}): nothing outside the source "
        "folder is packaged; copy the file in, or ignore the link in .gitignore"]


def committed(repo: Path) -> tree.GitFiles:
    """The repository's files committed as branch main, read from git."""
    git = ["git", "-C", str(repo), "-c", "user.email=t@e", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    return tree.GitFiles(repo, "main")
