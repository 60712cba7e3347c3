"""Which files of a folder git vouches for: their working copy is their index blob, whose id
git already holds, so the result cache (compiler/cache.py) and `compile --check` need not read
or hash them.

Git compares each file's stat data with the index (`git diff-files`, which also re-reads a file
whose stat data cannot tell: "racy git"); a file it reports unchanged holds the bytes of its
index blob. Only a plain tracked file is vouched for: stage 0 (not a conflict), a regular file's
mode (a symbolic link's blob is its target's name, not what trainspec reads), neither
assume-unchanged nor skip-worktree (git then stops comparing it), not reported by
`git diff-files`, and with no attribute that makes the working copy differ from the blob
(`filter`, `text`, `eol`, `ident`, `working-tree-encoding`; `core.autocrlf` set: none is
vouched for). Untracked and ignored files are not in the index, so they are read as before.
Git's fsmonitor is not asked and every stat field is compared (`-c` below): only git's own
comparison of the file itself vouches. Outside a work tree, or if git fails: nothing is
vouched for (the caller reads every file).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable

_STRICT = ("-c", "core.fsmonitor=false", "-c", "core.checkStat=default",
           "-c", "core.trustctime=true")
_CONVERTING = ("filter", "text", "eol", "ident", "working-tree-encoding")


def blob_id(data: bytes) -> str:
    """Git's id of a blob holding `data` (what `git hash-object` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _git(folder: str, *args: str, stdin: bytes | None = None) -> bytes | None:
    import subprocess  # noqa: PLC0415 - only a cached run asks git
    import tempfile  # noqa: PLC0415

    try:
        with tempfile.TemporaryFile() as given:
            if stdin is not None:  # a file, not a pipe: one pipe is read without polling
                given.write(stdin)
                given.seek(0)
            done = subprocess.run(["git", *_STRICT, "-C", folder, *args],
                                  stdin=given if stdin is not None else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  check=False)
    except OSError:  # no git
        return None
    return done.stdout if done.returncode == 0 else None


def vouched(folder: str, wanted: Callable[[str], bool] = lambda _: True) -> dict[str, str]:
    """The blob id of each `wanted` file below `folder` (a POSIX path relative to it) whose
    working copy git vouches is its index blob; empty outside a work tree or if git fails."""
    if not os.path.isdir(folder):
        return {}
    listed = _git(folder, "ls-files", "--stage", "-v", "-z")
    changed = _git(folder, "diff-files", "--name-only", "--relative", "-z", "--", ".")
    if listed is None or changed is None:
        return {}
    autocrlf = _git(folder, "config", "--get", "core.autocrlf")
    if autocrlf is not None and autocrlf.strip().lower() not in (b"false", b""):
        return {}
    modified = set(changed.decode("utf-8", "surrogateescape").split("\0"))
    found: dict[str, str] = {}
    for entry in listed.decode("utf-8", "surrogateescape").split("\0"):
        # `H`: cached, compared by git (`h`: assume-unchanged, `S`: skip-worktree, ...).
        if not entry.startswith(("H 100644 ", "H 100755 ")):
            continue
        head, tab, path = entry.partition("\t")
        fields = head.split(" ")
        if tab and len(fields) == 4 and fields[3] == "0" and path not in modified \
                and wanted(path):
            found[path] = fields[2]
    if not found:
        return found
    # --all: only the attributes set on each path (none: nothing said).
    attributes = _git(folder, "check-attr", "--stdin", "-z", "--all",
                      stdin="\0".join(found).encode("utf-8", "surrogateescape") + b"\0")
    if attributes is None:
        return {}
    said = attributes.decode("utf-8", "surrogateescape").split("\0")
    for i in range(0, len(said) - 2, 3):  # path, attribute, value
        if said[i + 1] in _CONVERTING and said[i + 2] not in ("unspecified", "unset"):
            found.pop(said[i], None)
    return found
