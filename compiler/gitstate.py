"""Which files of a folder git vouches for: their working copy is their index blob, whose id
git already holds, so the result cache (compiler/cache.py) and `compile --check` need not read
or hash them.

Git compares each file's stat data with the index (`git diff-files`, which also re-reads a file
whose stat data cannot tell: "racy git"); a file it reports unchanged holds the bytes of its
index blob. Only a plain tracked file is vouched for: stage 0 (not a conflict), a regular file's
mode (a symbolic link's blob is its target's name, not what trainspec reads), neither
assume-unchanged nor skip-worktree (git then stops comparing it), not reported by
`git diff-files`, and with no attribute that makes the working copy differ from the blob
(`filter`, `text`, `crlf` (the older name git still honours), `eol`, `ident`,
`working-tree-encoding`; `core.autocrlf` set, or any filter driver with a smudge or process
command configured, git-lfs's included: none is vouched for). Untracked and ignored files
are not in the index, so they are read as before.
Git's fsmonitor is not asked and every stat field is compared (`-c` below), but git (most
builds) compares whole seconds of ctime and mtime, and what git checked out is compared with
what git wrote, not with the blob: so trainspec also compares each file's own `lstat` with the
index's record, to the nanosecond (`git ls-files --debug`: ctime, mtime, inode, device, size),
and the file's size with its blob's (`git cat-file --batch-check`: a checkout converted under a
configuration or attributes changed since). Any difference: not vouched for (read). Outside a
work tree, or if git fails: nothing is vouched for (the caller reads every file).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Callable

_STRICT = ("-c", "core.fsmonitor=false", "-c", "core.checkStat=default",
           "-c", "core.trustctime=true")
_CONVERTING = ("filter", "text", "crlf", "eol", "ident", "working-tree-encoding")
_REGULAR = ("100644", "100755")  # not a symbolic link (120000) nor a submodule (160000)
_WORD = 1 << 32  # the index keeps 32 bits of each stat field
# `git ls-files --stage -v --debug -z`: an entry (tag, mode, blob, stage, path) and git's stat
# record of its file (a device or inode git left 0 is not recorded: not compared).
_ENTRY = re.compile(r"(.) (\d{6}) ([0-9a-f]+) (\d)\t([^\0]*)\0"
                    r"  ctime: (\d+:\d+)\n  mtime: (\d+:\d+)\n  dev: (\d+)\tino: (\d+)\n"
                    r"  uid: \d+\tgid: \d+\n  size: (\d+)\tflags: [0-9a-f]+\n", re.S)


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
    listed = _git(folder, "ls-files", "--stage", "-v", "--debug", "-z")
    changed = _git(folder, "diff-files", "--name-only", "--relative", "-z", "--", ".")
    if listed is None or changed is None:
        return {}
    if _converts_at_checkout(folder):
        return {}
    modified = set(changed.decode("utf-8", "surrogateescape").split("\0"))
    found: dict[str, str] = {}
    sizes: dict[str, int] = {}
    text, at = listed.decode("utf-8", "surrogateescape"), 0
    prefix, lstat, billion = os.path.join(folder, ""), os.lstat, 1_000_000_000
    while m := _ENTRY.match(text, at):  # each entry in turn: a path cannot start a record
        at = m.end()
        tag, mode, blob, stage, path, ctime, mtime, dev, ino, size = m.groups()
        # `H`: cached, compared by git (`h`: assume-unchanged, `S`: skip-worktree, ...).
        if tag != "H" or mode not in _REGULAR or stage != "0" or path in modified \
                or not wanted(path):
            continue
        try:
            st = lstat(prefix + path)
        except OSError:
            continue
        c, n = st.st_ctime_ns, st.st_mtime_ns
        if ctime == f"{c // billion % _WORD}:{c % billion}" \
                and mtime == f"{n // billion % _WORD}:{n % billion}" \
                and int(size) == st.st_size % _WORD and stat.S_ISREG(st.st_mode) \
                and int(ino) in (0, st.st_ino % _WORD) and int(dev) in (0, st.st_dev % _WORD):
            found[path], sizes[path] = blob, st.st_size
    if at != len(text):  # not read to its end: a format not understood
        return {}
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
    return _blob_sizes_match(folder, found, sizes)


def _converts_at_checkout(folder: str) -> bool:
    """Whether the configuration may convert files between blob and working copy whatever the
    attributes now say: `core.autocrlf` set, or a filter driver that smudges at checkout (a
    file checked out through it keeps its smudged bytes, and git calls it unchanged, after the
    attribute naming the driver is gone: a same-size smudge passes every check below)."""
    said = _git(folder, "config", "-z", "--get-regexp",
                r"^(core\.autocrlf|filter\..*\.(smudge|process))$")
    for item in (said or b"").split(b"\0"):
        key, given, value = item.partition(b"\n")
        if key.lower() == b"core.autocrlf":  # a bare `autocrlf` (no value) is true
            if not given or value.strip().lower() not in (b"false", b"no", b"off", b"0", b""):
                return True
        elif key and value.strip():
            return True
    return False


def _blob_sizes_match(folder: str, found: dict[str, str],
                      sizes: dict[str, int]) -> dict[str, str]:
    """`found` less each file whose size (`sizes`, from lstat) is not its blob's (a
    conversion at checkout that the configuration or attributes no longer say); nothing if
    git cannot tell."""
    if not found:
        return found
    said = _git(folder, "cat-file", "--buffer", "--batch-check=%(objectname) %(objectsize)",
                 stdin="".join(blob + "\n" for blob in set(found.values())).encode())
    if said is None:
        return {}
    size_of = {}
    for line in said.decode("ascii", "replace").splitlines():
        blob, _, size = line.partition(" ")
        if size.isdigit():
            size_of[blob] = int(size)
    return {path: blob for path, blob in found.items() if sizes.get(path) == size_of.get(blob)}
