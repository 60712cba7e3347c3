"""Where a trainer's files are read from: the working tree, or a git revision (for `diff BASE`).

Both readers answer the same three questions about a repository, with paths relative to its
root (posix, "" for the root itself): what a folder holds (`children`), what one path is
(`entry`), and a file's bytes (`read`). The packager sees no other difference, so the same
source at BASE and in the working tree builds the same archive.

The repository of a spec is the nearest folder above it holding `Pulumi.yaml` or `.git` (for a
git revision: `Pulumi.yaml`, else the repository's root). Nothing outside it is read, listed or
looked at: no question about a path is answered through a symbolic link (on disk, each folder
on the way is opened with O_NOFOLLOW from the one before, so a link swapped in after a check
makes the read fail instead of being followed). `resolve` follows links one component at a
time, as the operating system would, and stops where one leaves the repository.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .files import shown

FILE, DIR, LINK, OTHER = "file", "dir", "link", "other"
MARKERS = ("Pulumi.yaml", "Pulumi.yml", ".git")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Calls relative to an open folder (POSIX *at functions): what makes "no link followed" hold
# even if the tree changes while it is read.
_AT = {os.open, os.stat, os.readlink} <= os.supports_dir_fd and os.scandir in os.supports_fd
MAX_LINK_HOPS = 40  # Linux's MAXSYMLINKS: a chain the OS follows is followed here too


class TreeError(Exception):
    """A repository cannot be read (git failed, a file vanished); the message says why."""


@dataclass(frozen=True)
class Entry:
    path: str  # relative to the repository root, posix
    kind: str  # FILE, DIR, LINK or OTHER (a pipe, a device, a git submodule)
    size: int = 0
    executable: bool = False
    links: int = 1  # a file's names (st_nlink): more than one is a hard link

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)


class Repo:
    """A repository's files; `shown(path)` is how a message names one."""

    root_shown = "."

    def children(self, folder: str) -> list[Entry]:
        raise NotImplementedError

    def entry(self, path: str) -> Entry | None:
        raise NotImplementedError

    def read(self, path: str) -> bytes:
        return self.read_file(path)[0]

    def read_file(self, path: str) -> tuple[bytes, int]:
        """A file's bytes and how many names it has (hard links), both from one open file."""
        raise NotImplementedError

    def link_target(self, path: str) -> str:
        raise NotImplementedError

    def prefetch(self, paths: list[str]) -> None:
        """A hint that `paths` will all be read (a git revision reads them in one go)."""

    def shown(self, path: str) -> str:
        return shown(posixpath.normpath(posixpath.join(self.root_shown, path)) if path
                     else self.root_shown)

    def resolve(self, path: str) -> Resolved:
        """Where `path` leads, following every link on the way as the operating system would
        (links of links, links to folders, `..` after a link is the parent of its target),
        asking only about paths that hold no link: never about anything outside."""
        todo = [(part, "the path") for part in path.split("/")]  # (component, whose it is)
        done: list[str] = []
        entry, hops = Entry("", DIR), 0
        while todo:
            part, origin = todo.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if not done:
                    return Resolved("", None, f"{origin}, above the repository root")
                done.pop()
                entry = Entry("/".join(done), DIR)
                continue
            here = "/".join([*done, part])
            found = self.entry(here)
            if found is None or (todo and found.kind not in (DIR, LINK)):
                return Resolved("/".join([here, *(p for p, _ in todo)]), None)
            if found.kind != LINK:
                done.append(part)
                entry = found
                continue
            hops += 1
            target = self.link_target(here)
            if hops > MAX_LINK_HOPS:
                return Resolved("", None, "too many levels of symbolic links")
            if target.startswith("/"):
                return Resolved("", None, f"{self.shown(here)} links to the absolute path "
                                f"{target!r}")
            if not target:
                return Resolved("/".join([here, *(p for p, _ in todo)]), None)
            origin = f"{self.shown(here)} links to {target!r}"
            todo[:0] = [(p, origin) for p in target.split("/")]
        return Resolved("/".join(done), entry)


@dataclass(frozen=True)
class Resolved:
    """What a path leads to: `path` (relative to the root, no link in it) and its `entry`
    (None: nothing is there); or `escape`, why it leaves the repository (its place then
    unknown: nothing outside is looked at)."""

    path: str
    entry: Entry | None
    escape: str | None = None


class FsRepo(Repo):
    """A repository in the working tree. Every path is reached from the root one folder at a
    time, each opened without following a link (a path through a link is not there)."""

    def __init__(self, root: Path, root_shown: str):
        self.root, self.root_shown = root, root_shown

    def _full(self, path: str) -> str:
        return os.path.join(self.root, *path.split("/")) if path else str(self.root)

    def _folder(self, folders: list[str]) -> int | None:
        """An open descriptor of folder `folders` (components below the root) reached without
        following a link; None where the platform has no descriptor-relative calls (then each
        folder on the way is checked by path, which a swap in between could still defeat)."""
        if any(part in ("", ".", "..") for part in folders):
            raise OSError(errno.EINVAL, "not a path inside the repository")
        if not _AT:
            for i in range(1, len(folders) + 1):
                if os.path.islink(self._full("/".join(folders[:i]))):
                    raise OSError(errno.ELOOP, "a symbolic link on the way")
            return None
        fd = os.open(self.root, os.O_RDONLY | _DIRECTORY)
        try:
            for part in folders:
                inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = inner
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _at(self, path: str, call):
        """`call(name, dir_fd)` on `path`'s last component in its folder, reached as above."""
        *folders, name = path.split("/")
        fd = self._folder(folders)
        try:
            return call(name, fd) if fd is not None else call(self._full(path), None)
        finally:
            if fd is not None:
                os.close(fd)

    def entry(self, path: str) -> Entry | None:
        if not path:
            return Entry("", DIR)
        try:
            info = self._at(path, lambda name, fd: os.stat(name, dir_fd=fd,
                                                           follow_symlinks=False))
        except OSError:
            return None
        return _fs_entry(path, info)

    def children(self, folder: str) -> list[Entry]:
        try:
            fd = self._folder(folder.split("/") if folder else [])
            try:
                with os.scandir(self._full(folder) if fd is None else fd) as it:
                    found = []
                    for item in it:
                        try:
                            info = item.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        found.append(_fs_entry(posixpath.join(folder, item.name) if folder
                                               else item.name, info))
            finally:
                if fd is not None:
                    os.close(fd)
        except OSError as e:
            raise TreeError(f"{self.shown(folder)}: cannot list: {e.strerror or e}") from e
        return sorted(found, key=lambda e: e.path)

    def read_file(self, path: str) -> tuple[bytes, int]:
        try:
            # Non-blocking and checked again on the descriptor: a file swapped for a pipe
            # between listing and reading is refused, never waited on; a link, never followed.
            fd = self._at(path, lambda name, at: os.open(name, os.O_RDONLY | _NOFOLLOW
                                                         | getattr(os, "O_NONBLOCK", 0)
                                                         | getattr(os, "O_NOCTTY", 0), dir_fd=at))
            with os.fdopen(fd, "rb") as f:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode):
                    raise TreeError(f"{self.shown(path)}: no longer a regular file")
                return f.read(), info.st_nlink
        except OSError as e:
            raise TreeError(f"{self.shown(path)}: cannot read: {e.strerror or e}") from e

    def link_target(self, path: str) -> str:
        try:
            return self._at(path, lambda name, fd: os.readlink(name, dir_fd=fd))
        except OSError as e:
            raise TreeError(f"{self.shown(path)}: cannot read the link: {e.strerror or e}") from e


def _fs_entry(path: str, info: os.stat_result) -> Entry:
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        return Entry(path, LINK)
    if stat.S_ISDIR(mode):
        return Entry(path, DIR)
    if stat.S_ISREG(mode):
        return Entry(path, FILE, info.st_size, bool(mode & 0o100), info.st_nlink)
    return Entry(path, OTHER)


def _git_entry(path: str, meta: str) -> Entry:
    """The entry of `path` from its `git ls-tree -l` record (mode, type, id, size)."""
    mode, kind, _, size = meta.split()
    if kind == "tree":
        return Entry(path, DIR)
    if mode == "120000":
        return Entry(path, LINK)
    if kind == "blob":
        return Entry(path, FILE, int(size), mode == "100755")
    return Entry(path, OTHER)  # a submodule (commit): its files are not in this repository


class GitRepo(Repo):
    """A repository as stored at a git revision: `base` is its folder in the git tree."""

    def __init__(self, git_root: Path, ref: str, base: str):
        self.git_root, self.ref, self.base = git_root, ref, base
        self.root_shown = base or "."
        self._entries: dict[str, str] | None = None
        self._blobs: dict[str, bytes] = {}

    def _git(self, *args: str, stdin: bytes | None = None) -> bytes:
        try:
            proc = subprocess.run(["git", *args], cwd=self.git_root, input=stdin,
                                  capture_output=True, check=False)
        except OSError as e:
            raise TreeError(f"cannot run git: {e}") from e
        if proc.returncode != 0:
            raise TreeError(f"git {' '.join(args[:2])}: "
                            + proc.stderr.decode("utf-8", "replace").strip())
        return proc.stdout

    def _all(self) -> dict[str, str]:
        """Path → git's record of it (mode, type, id, size), made an Entry when asked for: a
        diff looks up the repo config files of a few hundred folders of a tree of thousands."""
        if self._entries is None:
            self.listed(self._git(*self.LISTING, self.ref, "--", self.base or "."))
        return self._entries  # type: ignore[return-value]

    LISTING = ("ls-tree", "-r", "-t", "-l", "-z", "--full-tree")  # then REF -- BASE

    def listed(self, output: bytes) -> dict[str, str]:
        """Take `output`, what `git LISTING REF -- BASE` printed (a caller that reads the
        revision's files too runs it once, with its own error handling), as this
        repository's listing: path → git's record of it."""
        entries: dict[str, str] = {}
        cut = len(self.base) + 1 if self.base else 0
        below = self.base + "/"
        for line in output.decode("utf-8", "surrogateescape").split("\0"):
            meta, _, full = line.partition("\t")
            if full and (not self.base or full.startswith(below)):
                entries[full[cut:]] = meta
        self._entries = entries
        return entries

    def entry(self, path: str) -> Entry | None:
        if path == "":
            return Entry("", DIR)
        meta = self._all().get(path)
        return None if meta is None else _git_entry(path, meta)

    def children(self, folder: str) -> list[Entry]:
        return sorted((_git_entry(p, m) for p, m in self._all().items()
                       if posixpath.dirname(p) == folder), key=lambda e: e.path)

    def _full(self, path: str) -> str:
        return posixpath.join(self.base, path) if self.base else path

    def read_file(self, path: str) -> tuple[bytes, int]:
        # A blob has one name: git stores no hard links.
        if path in self._blobs:
            return self._blobs[path], 1
        return self._git("cat-file", "blob", f"{self.ref}:{self._full(path)}"), 1

    def prefetch(self, paths: list[str]) -> None:
        # One `git cat-file --batch` for every file of an archive, not a process per file.
        wanted = [p for p in paths if p not in self._blobs]
        if wanted:
            blobs = cat_file_batch(self.git_root, self.ref, [self._full(p) for p in wanted])
            self._blobs.update(zip(wanted, blobs))

    def link_target(self, path: str) -> str:
        return self.read(path).decode("utf-8", "surrogateescape")


def cat_file_batch(git_root: Path, ref: str, paths: list[str]) -> list[bytes]:
    """The blobs `ref:path` of `paths` (relative to the git root), in order, read by one
    `git cat-file --batch` (a process per file takes minutes for thousands of files)."""
    request = "".join(f"{ref}:{p}\n" for p in paths).encode("utf-8", "surrogateescape")
    try:
        proc = subprocess.run(["git", "cat-file", "--batch"], cwd=git_root, input=request,
                              capture_output=True, check=False)
    except OSError as e:
        raise TreeError(f"cannot run git: {e}") from e
    if proc.returncode != 0:
        raise TreeError("git cat-file: " + proc.stderr.decode("utf-8", "replace").strip())
    blob, at, out = proc.stdout, 0, []
    for path in paths:
        end = blob.index(b"\n", at)
        header = blob[at:end].split()
        if len(header) != 3:
            raise TreeError(f"git cat-file: cannot read {ref}:{path}")
        size = int(header[2])
        out.append(blob[end + 1:end + 1 + size])
        at = end + 1 + size + 1
    return out


class Files:
    """Finds a spec's repository. The working tree: `base` is the folder spec paths are
    relative to (None: the current folder)."""

    def __init__(self, base: Path | None = None):
        self.base = base

    def locate(self, spec_file: str) -> tuple[Repo, str] | None:
        """(the spec's repository, the spec's folder relative to it), or None if the spec is
        in no repository, or is no file (<stdin>)."""
        start = self.spec_folder(spec_file)
        if start is None:
            return None
        for candidate in (start, *start.parents):
            if any(os.path.lexists(candidate / m) for m in MARKERS):
                rel = os.path.relpath(start, candidate)
                root = os.path.relpath(candidate, os.path.abspath(self.base or "."))
                return FsRepo(candidate, root.replace(os.sep, "/")), \
                    "" if rel == "." else rel.replace(os.sep, "/")
        return None


    def spec_folder(self, spec_file: str) -> Path | None:
        """The absolute folder of the spec file; None for one that is no file (<stdin>)."""
        if spec_file.startswith("<"):
            return None
        return Path(os.path.abspath(Path(self.base or ".", spec_file).parent))

    def loose_folder(self, spec_file: str, source: str) -> tuple[Repo, str] | None:
        """For a spec in no repository, whose python.source is still checked (never uploaded):
        the folder holding both the spec and `source` (relative to it) as if it were the
        repository, and the spec's folder in it. None for <stdin>, an absolute source or one
        above the spec's folder (whose files may be anything)."""
        start = self.spec_folder(spec_file)
        if start is None or posixpath.isabs(source):
            return None
        target = Path(os.path.normpath(start / source))
        if target != start and target in start.parents:
            return None
        root = Path(os.path.commonpath([start, target]))
        shown = os.path.relpath(root, os.path.abspath(self.base or "."))
        rel = os.path.relpath(start, root)
        return FsRepo(root, shown.replace(os.sep, "/")), "" if rel == "." else \
            rel.replace(os.sep, "/")


class CurrentFolder(Files):
    """For a spec that is not a file yet (what `import` prints): as if saved in the current
    folder."""

    def spec_folder(self, spec_file: str) -> Path | None:
        return super().spec_folder("spec.yaml")


class GitFiles(Files):
    """Spec files and sources as stored at git revision `ref` (spec paths relative to the git
    root)."""

    def __init__(self, git_root: Path, ref: str):
        super().__init__(git_root)
        self.ref = ref
        self._repos: dict[str, GitRepo] = {}
        self.whole = GitRepo(git_root, ref, "")  # the git tree from its root (config/load.py)

    def locate(self, spec_file: str) -> tuple[Repo, str] | None:
        folder = posixpath.normpath(posixpath.dirname(spec_file) or ".")
        folder = "" if folder == "." else folder
        if folder.startswith(".."):
            return None
        candidate = folder
        while True:
            if any(self.whole.entry(posixpath.join(candidate, m) if candidate else m)
                   for m in MARKERS[:2]) or candidate == "":
                break
            candidate = posixpath.dirname(candidate)
        repo = self._repos.setdefault(candidate, GitRepo(self.base, self.ref, candidate))
        rel = posixpath.relpath(folder or ".", candidate or ".")
        return repo, "" if rel == "." else rel
