"""Which files of a source folder go into its archive, and which may not.

Never packaged: `.git`, `__pycache__`, `*.pyc`/`*.pyo`, `*.egg-info` folders (build output),
virtualenvs (any folder holding `pyvenv.cfg`), a `PKG-INFO` at the top (the archive gets its
own) and whatever the repository's `.gitignore` files ignore, with git's rules: every
`.gitignore` from the repository root down to the file applies to paths relative to its folder,
a deeper file wins, the last matching pattern wins, `!` re-includes, and nothing inside an
ignored folder can be re-included (the folder is not entered at all). `.git/info/exclude` and
the user's global excludes are not read: they differ between machines, the archive must not.

A symbolic link is packaged as the file it points to when that file is inside the source
folder (a link to a folder, or out of the source, is an error: it would package what is not the
source, or differ between machines). A secret-looking file (`.env`, `*.pem`, `*.key`, a private
SSH key, a service-account or user credentials JSON) is an error unless the repository's
trainspec.yaml allows it (`packaging.allowSecretFiles`).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from ..source.repo import DIR, FILE, LINK, OTHER, Entry, Repo

MAX_FILES = 20_000  # a trainer is tens or hundreds of files; more is a folder that was not ignored
MAX_GITIGNORE = 1024 * 1024
MAX_LINK_HOPS = 8
SECRET_NAMES = (".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "id_rsa", "id_dsa",
                "id_ecdsa", "id_ed25519", ".netrc", ".pypirc")
SECRET_JSON_MAX = 256 * 1024  # credential files are a few KiB
# A Google service-account key or user (ADC) credentials file, recognised by content.
_CREDENTIAL_TYPE = re.compile(rb'"type"\s*:\s*"(service_account|authorized_user)"')
_CREDENTIAL_FIELD = {b"service_account": b'"private_key"', b"authorized_user": b'"refresh_token"'}


@dataclass
class Collected:
    """The files to archive (path relative to the source folder → the repository entry read
    for it: a link's target), and what is wrong: (rule code, message)."""

    files: dict[str, Entry] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)
    too_many: bool = False


class Ignore:
    """The ignore rules of one repository, with each folder's .gitignore read once."""

    def __init__(self, repo: Repo):
        self.repo = repo
        self._specs: dict[str, Any] = {}

    def _spec(self, folder: str) -> Any:
        if folder not in self._specs:
            path = posixpath.join(folder, ".gitignore") if folder else ".gitignore"
            entry = self.repo.entry(path)
            spec = None
            if entry is not None and entry.kind == FILE and entry.size <= MAX_GITIGNORE:
                text = self.repo.read(path).decode("utf-8", "replace")
                spec = _gitignore(text.splitlines())
            self._specs[folder] = spec
        return self._specs[folder]

    def ignored(self, entry: Entry) -> bool:
        name, is_dir = entry.name, entry.kind == DIR
        if name == ".git" or (is_dir and (name == "__pycache__" or name.endswith(".egg-info"))):
            return True
        if not is_dir and name.endswith((".pyc", ".pyo")):
            return True
        if is_dir and self.repo.entry(posixpath.join(entry.path, "pyvenv.cfg")) is not None:
            return True
        folder = posixpath.dirname(entry.path)
        while True:  # the deepest .gitignore with a matching pattern decides
            spec = self._spec(folder)
            if spec is not None:
                rel = posixpath.relpath(entry.path, folder) if folder else entry.path
                verdict = spec.check_file(rel + "/" if is_dir else rel).include
                if verdict is not None:
                    return verdict
            if not folder:
                return False
            folder = posixpath.dirname(folder)


def collect(repo: Repo, source: str, allow_secrets: tuple[str, ...] = ()) -> Collected:
    """The files under `source` (a folder relative to the repository root) to archive."""
    out = Collected()
    ignore = Ignore(repo)
    allowed = _gitignore(allow_secrets) if allow_secrets else None
    pending = [source]
    while pending:
        folder = pending.pop()
        for entry in repo.children(folder):
            rel = posixpath.relpath(entry.path, source) if source else entry.path
            if ignore.ignored(entry) or (rel == "PKG-INFO" and entry.kind == FILE):
                continue
            if entry.kind == DIR:
                if repo.entry(posixpath.join(entry.path, ".git")) is not None:
                    out.problems.append(("source-nested-repository", f"{repo.shown(entry.path)} is "
                                         "another git repository (a submodule?): its files are "
                                         "not this repository's; ignore it in .gitignore"))
                else:
                    pending.append(entry.path)
                continue
            name, shown_path = entry.name, entry.path
            if entry.kind == LINK:
                entry = _follow(repo, entry, source, out)
                if entry is None:
                    continue
            elif entry.kind == OTHER:
                out.problems.append(("source-special-file", f"{repo.shown(entry.path)} is not a "
                                     "regular file (a pipe, a device or a git submodule): "
                                     "ignore it in .gitignore"))
                continue
            kind = _secret_kind(repo, name, entry)
            if kind and not (allowed and allowed.match_file(shown_path)):
                out.problems.append(("source-secret-file", f"{repo.shown(shown_path)} looks like a "
                                     f"secret ({kind}): it would be uploaded with the trainer"))
            out.files[rel] = entry
            if len(out.files) > MAX_FILES:
                out.too_many = True
                return out
    out.files = dict(sorted(out.files.items()))
    return out


def _gitignore(lines):
    # Imported only when a spec has python.source: most commands never need it.
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


def _follow(repo: Repo, link: Entry, source: str, out: Collected) -> Entry | None:
    """The file a link inside the source points to, if it is a file inside the source."""
    path = link.path
    for _ in range(MAX_LINK_HOPS):
        target = repo.link_target(path)
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        inside = not target.startswith("/") and not resolved.startswith("..") and (
            not source or resolved == source or resolved.startswith(source + "/"))
        found = repo.entry(resolved) if inside else None
        if found is None:
            out.problems.append(("source-link", f"{repo.shown(link.path)} is a symbolic link to "
                                 f"{target!r}, outside the source folder or missing: copy the "
                                 "file in, or ignore the link in .gitignore"))
            return None
        if found.kind == FILE:
            return found
        if found.kind != LINK:
            out.problems.append(("source-link", f"{repo.shown(link.path)} is a symbolic link to "
                                 f"a {'folder' if found.kind == DIR else 'special file'} "
                                 f"({target!r}): only links to files are packaged"))
            return None
        path = resolved
    out.problems.append(("source-link", f"{repo.shown(link.path)}: too many levels of "
                         "symbolic links"))
    return None


def _secret_kind(repo: Repo, name: str, entry: Entry) -> str | None:
    for pattern in SECRET_NAMES:
        if fnmatch.fnmatchcase(name, pattern):
            return f"a {pattern} file" if "*" in pattern else f"a {name} file"
    if name.endswith(".json") and entry.size <= SECRET_JSON_MAX:
        text = repo.read(entry.path)
        m = _CREDENTIAL_TYPE.search(text)
        if m and _CREDENTIAL_FIELD[m.group(1)] in text:
            return ("a service-account key" if m.group(1) == b"service_account"
                    else "user credentials with a refresh token")
    return None


def largest(files: dict[str, Entry], count: int = 5) -> list[tuple[str, int]]:
    """The `count` biggest files: what to ignore when an archive is too big."""
    ranked = sorted(files.items(), key=lambda kv: (-kv[1].size, kv[0]))
    return [(path, e.size) for path, e in ranked[:count]]

