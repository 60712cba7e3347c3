"""Which files of a source folder go into its archive, and which may not.

Never packaged: `.git`, `__pycache__`, `*.pyc`/`*.pyo`, `*.egg-info` folders (build output),
virtualenvs (any folder holding `pyvenv.cfg`), a `PKG-INFO` at the top (the archive gets its
own) and whatever the repository's `.gitignore` files ignore, with git's rules: every
`.gitignore` from the repository root down to the file applies to paths relative to its folder,
a deeper file wins, the last matching pattern wins, `!` re-includes, and nothing inside an
ignored folder can be re-included (the folder is not entered at all). `.git/info/exclude` and
the user's global excludes are not read: they differ between machines, the archive must not.

A symbolic link is packaged as the file it leads to when that file is inside the source folder.
Every component is resolved as the operating system would (links of links, folder links,
`..` after a link: tree.Repo.resolve), without looking at anything outside the repository: a
link that leads out of it (an absolute link, `..` above its root), outside the source folder, to
a folder, a pipe or a device, or nowhere is an error (it would package what is not the source,
or differ between machines). So is a hard link (a regular file with more than one name): its
other names may be anywhere, outside the repository too, and nothing tells where; checked when
listed and again on the descriptor of the bytes archived (sdist.py). A git revision has none.

A secret-looking file (`.env`, `*.pem`, `*.key`, a private SSH key, a service-account or user
credentials JSON, any file holding a PEM/OpenSSH private key) is an error unless the
repository's trainspec.yaml allows its path (`packaging.allowSecretFiles`).
Names are checked here, the link's and its target's (a link named `id_rsa` is refused whatever
it holds, as a file would be); content is checked on the very bytes archived (sdist.py:
`secret_content`), so a file swapped after the check is never archived unchecked.
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
SECRET_NAMES = (".env", ".env.*", "*.pem", "*.key", "*.p12", "*.pfx", "id_rsa", "id_dsa",
                "id_ecdsa", "id_ed25519", ".netrc", ".pypirc")
# A Google service-account key or user (ADC) credentials file, recognised by content.
_CREDENTIAL_TYPE = re.compile(rb'"type"\s*:\s*"(service_account|authorized_user)"')
_CREDENTIAL_FIELD = {b"service_account": b'"private_key"', b"authorized_user": b'"refresh_token"'}
# A private key in PEM (RFC 7468: PKCS#1/#8, EC, encrypted), OpenSSH or PGP armour, also inside a
# JSON string: its BEGIN line and base64 soon after (code that only names the header is not a key).
_PRIVATE_KEY = re.compile(rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                          rb"(?s:.{0,400}?)[A-Za-z0-9+/]{40}")


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
    allowed = allowing(allow_secrets)
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
            shown_path = entry.path
            kind = _secret_name(entry.name)
            if entry.kind == LINK:
                entry = _follow(repo, entry, source, out)
                if entry is None:
                    continue
                if kind is None and (named := _secret_name(entry.name)):
                    kind = f"a link to {repo.shown(entry.path)}, {named}"
            elif entry.kind == OTHER:
                out.problems.append(("source-special-file", f"{repo.shown(entry.path)} is not a "
                                     "regular file (a pipe, a device or a git submodule): "
                                     "ignore it in .gitignore"))
                continue
            if entry.links > 1:
                out.problems.append(hard_link(repo.shown(entry.path), entry.links))
                continue
            if kind and not (allowed and allowed.match_file(shown_path)):
                out.problems.append(secret(repo.shown(shown_path), kind))
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


def allowing(patterns: tuple[str, ...]):
    """The matcher of `packaging.allowSecretFiles` (paths from the repository root), or None."""
    return _gitignore(patterns) if patterns else None


def _follow(repo: Repo, link: Entry, source: str, out: Collected) -> Entry | None:
    """The file a link inside the source leads to, if it is a regular file inside the source."""
    target = repo.link_target(link.path)
    where = repo.resolve(link.path)
    shown = f"{repo.shown(link.path)} is a symbolic link to {target!r}"
    found = where.entry
    if where.escape is not None:
        message = (f"{shown}, which leaves the repository ({where.escape}): nothing outside the "
                   "source folder is packaged; copy the file in, or ignore the link in .gitignore")
    elif found is None:
        message = f"{shown}, which does not exist: remove it, or ignore it in .gitignore"
    elif source and where.path != source and not where.path.startswith(source + "/"):
        message = (f"{shown}, which is {repo.shown(where.path)}, outside the source folder "
                   f"{repo.shown(source)}: copy the file in, or ignore the link in .gitignore")
    elif found.kind != FILE:
        message = (f"{repo.shown(link.path)} is a symbolic link to a "
                   f"{'folder' if found.kind == DIR else 'special file'} ({target!r}): only "
                   "links to files are packaged")
    else:
        return found
    out.problems.append(("source-link", message))
    return None


def hard_link(shown: str, links: int) -> tuple[str, str]:
    """The problem of a regular file with more than one name: the others may be anywhere on the
    file system (nothing tells where), so its bytes may not be the source's."""
    return ("source-hard-link", f"{shown} has {links} names (a hard link): where the others "
            "are cannot be known, so it may be a file from outside the source folder; give it "
            f"a copy of its own: cp --remove-destination ORIGINAL {shown}")


def _secret_name(name: str) -> str | None:
    for pattern in SECRET_NAMES:
        if fnmatch.fnmatchcase(name, pattern):
            return f"a {pattern} file" if "*" in pattern else f"a {name} file"
    return None


def secret_content(data: bytes) -> str | None:
    """What secret `data` holds (a private key, Google credentials), if any."""
    if _PRIVATE_KEY.search(data):
        return "a private key"
    m = _CREDENTIAL_TYPE.search(data)
    if m and _CREDENTIAL_FIELD[m.group(1)] in data:
        return ("a service-account key" if m.group(1) == b"service_account"
                else "user credentials with a refresh token")
    return None


def secret(shown: str, kind: str) -> tuple[str, str]:
    """The problem of a secret-looking file `shown` holding `kind`."""
    return ("source-secret-file", f"{shown} looks like a secret ({kind}): it would be uploaded "
            "with the trainer")


def largest(files: dict[str, Entry], count: int = 5) -> list[tuple[str, int]]:
    """The `count` biggest files: what to ignore when an archive is too big."""
    ranked = sorted(files.items(), key=lambda kv: (-kv[1].size, kv[0]))
    return [(path, e.size) for path, e in ranked[:count]]

