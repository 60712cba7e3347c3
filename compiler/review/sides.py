"""Reading both sides of a `diff`: the spec files of a git revision or of the working tree, and
the Pulumi stack config file `--stack` names. Which files are specs is `compiler.tree.is_spec`;
how each is read is this module's: both sides the same way (what git stores: a link is not
followed, a huge file or a control character in a name is a located error)."""

from __future__ import annotations

import dataclasses
import functools
import os
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import gitstate, tree
from ..diagnostics import Diagnostic, Position
from ..options import Options
from ..source import read as source
from ..source.files import MAX_BYTES, read_bytes, shown
from ..source.repo import GitRepo, TreeError, cat_file_batch
from ..tree import Content


class ReviewError(Exception):
    """The comparison cannot be made; the message says why."""


class GitError(ReviewError):
    """A git command failed; the message is git's own."""


class NoSpecsError(ReviewError):
    """The spec folder holds no spec file on either side."""


class StackError(ReviewError):
    """The stack config file cannot be read: why, or the located `problems` of its YAML (the
    command reports them)."""

    def __init__(self, message: str = "", problems: Sequence[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


blob_id = gitstate.blob_id  # the id git gives a blob of some bytes


@dataclasses.dataclass(frozen=True)
class Vouched:
    """A working-tree spec that git vouches is the blob `blob` (compiler/gitstate.py: the
    rules `compile --cache` trusts), which BASE holds at the same path: named by that id, it
    is read only when its bytes are needed (`read`)."""

    path: str  # as the report names it (relative to the repository root)
    file: str  # where it is read
    blob: str

    @functools.cached_property
    def data(self) -> bytes:
        """Its bytes (read once for both sides), which must be the blob's: a spec changed
        since git vouched for it is no answer for either side (ReviewError)."""
        data, problem = read_bytes(self.file)
        if problem is not None or data is None or blob_id(data) != self.blob:
            raise ReviewError(f"{self.path} changed while trainspec read it; run again")
        return data


def readable(content: Content | Vouched) -> Content:
    """A spec file's content, its bytes read if only its blob id was known."""
    return content.data if isinstance(content, Vouched) else content


def git(repo: Path, *args: str) -> bytes:
    """git's output; GitError with git's own message if it fails."""
    try:
        proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, check=False)
    except OSError as e:
        raise GitError(f"cannot run git: {e}") from e
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip() or f"exit {proc.returncode}"
        raise GitError(f"git {' '.join(args[:3])}: {message}")
    return proc.stdout


def _unreadable(path: str, message: str, code: str | None) -> Diagnostic:
    return Diagnostic("$", message, file=shown(path), position=Position(1, 1), code=code)


def read_revision(repo: Path, ref: str, prefix: str) -> dict[str, Content]:
    """Spec files under `prefix` (a repo-relative folder) at `ref`: path → content, or why it
    is not readable as a spec (a symbolic link, a file over the size limit, a control character
    in its name)."""
    start = len(prefix) + 1 if prefix else 0
    return _read_git(repo, ref, prefix, lambda path: tree.is_spec(path[start:]))


def list_revision(repo: Path, ref: str, prefix: str, whole: GitRepo
                  ) -> tuple[dict[str, Content], dict[str, str]]:
    """The spec files under `prefix` at `ref`: those not readable as a spec (path → why), and
    the others' git blob ids (path → id), from one `git ls-tree`. `whole`: the revision's
    tree from the repository root (packaging.GitFiles.whole), given that listing too: its
    repo config files are looked up in it (one listing of the revision, not two)."""
    start = len(prefix) + 1 if prefix else 0
    wanted: Callable[[str], bool] = lambda path: tree.is_spec(path[start:])  # noqa: E731
    below = prefix + "/" if prefix else ""
    records = whole.listed(git(repo, *GitRepo.LISTING, ref, "--", "."))
    return _listed(((path, meta) for path, meta in records.items()
                    if path.startswith(below)), wanted)


def read_blobs(repo: Path, ref: str, paths: list[str]) -> dict[str, Content]:
    """The bytes of `paths` at `ref`, read by one `git cat-file --batch`."""
    if not paths:
        return {}
    try:
        return dict(zip(paths, cat_file_batch(repo, ref, paths)))
    except TreeError as e:
        raise GitError(str(e)) from e


def _read_git(repo: Path, ref: str, prefix: str, wanted: Callable[[str], bool]) -> dict[str, Content]:
    out, ids = _list_git(repo, ref, prefix, wanted)
    out.update(read_blobs(repo, ref, list(ids)))
    return dict(sorted(out.items()))


def _list_git(repo: Path, ref: str, prefix: str, wanted: Callable[[str], bool]
              ) -> tuple[dict[str, Content], dict[str, str]]:
    listed = git(repo, "ls-tree", "-r", "-z", "-l", "--full-tree", ref, "--", prefix or ".")
    return _listed((line.partition("\t")[::-2] for line in
                    listed.decode("utf-8", "surrogateescape").split("\0")), wanted)


def _listed(records: Iterable[tuple[str, str]], wanted: Callable[[str], bool]
            ) -> tuple[dict[str, Content], dict[str, str]]:
    """`_list_git` of (path, git's record of it) pairs of `git ls-tree -l`."""
    out: dict[str, Content] = {}
    blobs: dict[str, str] = {}
    for path, meta in records:
        if not path or not wanted(path):
            continue
        mode, kind, blob, size = meta.split()
        if kind != "blob":
            continue
        if not path.isprintable():  # keyed as shown: a report never holds a raw line break
            out[shown(path)] = _unreadable(path, "the file name holds a control character (a "
                                           "line break?): rename it", "file-name")
        elif mode == "120000":
            out[path] = _unreadable(path, "a symbolic link: diff reads the spec files git stores, "
                                    "not what links point to", "file-type")
        elif int(size) > MAX_BYTES:
            out[path] = _unreadable(path, f"file is larger than {MAX_BYTES // 1048576} MiB "
                                    f"({size} bytes)", "file-size")
        else:
            blobs[path] = blob
    return out, blobs


def read_worktree(root: Path, prefix: str, base_ids: Mapping[str, str] | None = None
                  ) -> dict[str, Content | Vouched]:
    """Spec files under `prefix` in the working tree, tracked or not: path → content, or why
    it cannot be read as a spec (a named pipe, a device, a link, a huge file: never opened in
    a way that blocks or reads without end). `base_ids`: path → its blob id at BASE; a spec
    git vouches is that blob is not read (a `Vouched`)."""
    base = root / prefix if prefix else root
    out: dict[str, Content | Vouched] = {}
    if not base.is_dir():
        return out
    base_ids = base_ids or {}
    vouched = gitstate.vouched(str(base), tree.is_spec) if base_ids else {}
    for spec in tree.walk(base):
        rel = f"{prefix}/{spec}" if prefix else spec
        full = os.path.join(root, rel)  # not a Path: 10,000 of them cost 0.1 s
        if not rel.isprintable():
            out[shown(rel)] = _unreadable(rel, "the file name holds a control character "
                                          "(a line break?): rename it", "file-name")
            continue
        if (blob := vouched.get(spec)) is not None and base_ids.get(rel) == blob:
            out[rel] = Vouched(rel, full, blob)
            continue
        if os.path.islink(full):
            out[rel] = _unreadable(rel, "a symbolic link: diff reads the spec files git "
                                   "stores, not what links point to", "file-type")
            continue
        blob, problem = read_bytes(full)
        out[rel] = blob if problem is None else _unreadable(rel, problem.message,
                                                                problem.code)
    return dict(sorted(out.items()))


def locate(repo: Path, specs: str) -> tuple[Path, str]:
    """The repository root and `specs` as a path relative to it."""
    root = Path(git(repo, "rev-parse", "--show-toplevel").decode().strip())
    folder = (repo / specs).resolve()
    try:
        prefix = folder.relative_to(root.resolve()).as_posix()
    except ValueError as e:
        raise GitError(f"{specs} is not inside the git repository {root}") from e
    return root, "" if prefix == "." else prefix


def _read_file(root: Path, ref: str | None, path: str) -> Content | None:
    """One file at `ref` (None: the working tree), None if it is not there."""
    if ref is None:
        full = root / path
        if not os.path.lexists(full):
            return None
        blob, problem = read_bytes(str(full))
        return blob if problem is None else _unreadable(path, problem.message, problem.code)
    return _read_git(root, ref, path, lambda listed: listed == path).get(path)


def stack_side(root: Path, ref: str | None, path: str,
               options: Options) -> tuple[Options, dict[str, Any]] | None:
    """What stack config file `path` (Pulumi.NAME.yaml) at `ref` adds to the specs, as the
    Pulumi program reads it: `gcp:project` / `gcp:region` are defaults for specs without their
    own (`options` given on the command line win), and its secret entries (`{secure: ...}`),
    compared between the sides. None if the file is not there.

    Every entry is returned, not only `{secure: ...}` ones: the program reads a job's secret
    from ``trainspec:KEY`` whether or not it was set with --secret, and `compare` refuses a
    secret set only elsewhere (the project's namespace) as the program does."""
    content = _read_file(root, ref, path)
    if content is None:
        return None
    if isinstance(content, Diagnostic):
        raise StackError(content.format())
    doc, found = source.parse(content, path)
    errors = [d for d in found if d.is_error]
    config = doc.data.get("config") if isinstance(doc.data, dict) else None
    if errors or not isinstance(config if config is not None else {}, dict):
        raise StackError(f"{path}: 'config' is not a mapping", errors)
    config = config or {}

    def text(key: str) -> str | None:
        value = config.get(key)
        return value if isinstance(value, str) and value else None

    chosen = dataclasses.replace(options, project=options.project or text("gcp:project"),
                                 region=options.region or text("gcp:region"),
                                 staging_bucket=options.staging_bucket
                                 or text("trainspec:stagingBucket"))
    return chosen, dict(config)

