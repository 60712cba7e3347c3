"""A content-addressed cache of per-spec compile results (`--cache DIR`, TRAINSPEC_CACHE).

A pull request changes a few specs of thousands: every other spec's result is read back from
an entry whose key is a hash of everything the result depends on, so a cached result is the
one a cold run computes (tests/test_cache.py compares every format byte for byte):

- the spec's path as given and its content: git's blob id where git vouches that the working
  copy is that blob (compiler/gitstate.py: no read, no hash), else the SHA-256 of its bytes;
  the current folder (diagnostics name files relative to it);
- the repo config files that apply (trainspec.yaml, pyproject.toml of its folder and each one
  above, up to the repository's root), by content;
- trainspec's version and a hash of the package's own files (code, schemas, catalogs, rules),
  the versions of the libraries whose messages a result holds (PyYAML, jsonschema,
  detect-secrets) and of Python;
- the options (--platform, --project, --region, --staging-bucket, --strict) and today's date
  (images past their end of availability are refused from that day).

A spec with a python.source is never cached (its archive is built from other files), nor one a
discovery note is about (a link), nor a file that cannot be read as one. The cross-spec rules
(duplicate names) are not part of an entry: they run over every spec, cached or not.

One index per run key (code, folder, options, date: `index-KEY.jsonl`) holds a line per
(path, content, configs): the path as JSON, the content and configs ids, and the result as
JSON (identity, diagnostics, the git blob id of the body's canonical text), up to KEPT lines a
path. A warm run reads that one file; a body's text is in the body store
(`bodies/ab/cdef….json`, named by its blob id, checked when read) and read only when needed
(`compile --out` writing it, `--check` of an output git does not vouch for): `compile --check`
compares a committed output's blob id with the body's. Nothing is pickled (a restored CI
cache is data, not code); every file is written to a temporary file and renamed, so
concurrent writers (parallel CI jobs) never leave half an index (the last one's wins whole);
an index line or body that cannot be read or does not have the expected shape is a miss.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import hashlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from . import emit, gitstate
from .config.load import FILE_NAME, PYPROJECT, folders_up
from .diagnostics import Diagnostic, Position, TrainspecError
from .options import Options
from .version import VERSION

ENV = "TRAINSPEC_CACHE"
FORMAT = 3  # of the index: a change makes every older index a miss
KEPT = 4  # entries kept per path (a base branch's and some pull requests')
_LIBRARIES = ("PyYAML", "jsonschema", "jsonschema-rs", "detect-secrets")
_PACKAGE = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def code_hash() -> str:
    """A hash of trainspec's own files and of what else shapes a result but the inputs."""
    h = hashlib.sha256(f"{FORMAT}\0{VERSION}\0{sys.version_info[:2]}".encode())
    for name in _LIBRARIES:
        try:
            h.update(f"\0{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"\0{name}=-".encode())
    for folder, dirs, names in os.walk(_PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(names):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(folder, name)
            h.update(b"\0" + os.path.relpath(path, _PACKAGE).encode() + b"\0")
            with open(path, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


@dataclasses.dataclass
class Cache:
    """The cache folder, the part of every key a run shares, and that run's index: path →
    its latest entries (one line each, as read or made by this run)."""

    folder: str
    run_key: str
    _lines: dict[str, list[str]] = dataclasses.field(default_factory=dict, repr=False)
    _loaded: bool = dataclasses.field(default=False, repr=False)
    _dirty: bool = dataclasses.field(default=False, repr=False)
    _bodies: bool = dataclasses.field(default=False, repr=False)  # the body store is there
    # What gives a body the store lost (tree.py: the spec compiled again): file, blob → text.
    compile_again: Callable[[str, str], str] | None = dataclasses.field(default=None,
                                                                         repr=False)

    @classmethod
    def open(cls, folder: str | os.PathLike, options: Options,
             today: datetime.date | None = None) -> Cache:
        """The cache in `folder` for a run with `options`, today."""
        shared = json.dumps([code_hash(), os.getcwd(), dataclasses.asdict(options),
                             (today or datetime.date.today()).isoformat()],
                            sort_keys=True, default=str)
        return cls(os.fspath(folder), hashlib.sha256(shared.encode()).hexdigest())

    def _index(self) -> str:
        return os.path.join(self.folder, f"index-{self.run_key[:40]}.jsonl")

    def _load(self) -> None:
        self._loaded = True
        self._bodies = os.path.isdir(os.path.join(self.folder, "bodies"))
        try:
            text = _read_regular(self._index()).decode("utf-8")
        except (OSError, ValueError):
            return
        for line in text.split("\n"):
            path, tab, _ = line.partition("\t")
            if tab:
                self._lines.setdefault(path, []).append(line)

    def get(self, file: str, content: str, configs: str):  # noqa: ANN201 - a pipeline.Result
        """The result stored for `file` with content id `content` and configs `configs` (its
        body's text read from the cache only when asked for), or None (absent, unreadable,
        malformed)."""
        if not self._loaded:
            self._load()
        for line in self._lines.get(json.dumps(file), ()):
            try:
                _, stored, config, head = line.split("\t")
                if stored == content and config == configs:
                    found = json.loads(head)
                    if found[2] is not None and not self._bodies:
                        return None  # the body store is lost: compiled again, kept again
                    return _result(found, file, self)
            except (ValueError, TypeError, KeyError, AttributeError, IndexError):
                continue
        return None

    def put(self, file: str, content: str, configs: str, result) -> None:  # noqa: ANN001
        """Keep `result` (a pipeline.Result: its own diagnostics, before the cross-spec
        rules) for `file` with content id `content` and configs `configs`, its body's text
        in the body store; `save` writes the index."""
        if not self._loaded:
            self._load()
        body = None
        if result.body is not None:
            text = emit.dumps(result.body)
            body = gitstate.blob_id(text.encode("utf-8"))
            if not self._has_body(body):
                _write(self._body_path(body), text)
        key = json.dumps(file)
        line = "\t".join((key, content, configs, json.dumps(
            _head(result, body), ensure_ascii=False, allow_nan=False)))
        older = [old for old in self._lines.get(key, ())
                 if old.split("\t", 3)[1:3] != [content, configs]]
        self._lines[key] = [line, *older[:KEPT - 1]]
        self._dirty = True

    def save(self) -> None:
        """Write the index if this run added to it: whole, to a temporary file renamed into
        place (a concurrent run's additions are lost, never mixed in); a folder that cannot
        be written is no error (the results were computed anyway)."""
        if self._dirty:
            _write(self._index(), "".join(line + "\n" for lines in self._lines.values()
                                          for line in lines))
            self._dirty = False

    def _body_path(self, blob: str) -> str:
        return os.path.join(self.folder, "bodies", blob[:2], blob[2:] + ".json")

    def _has_body(self, blob: str) -> bool:
        try:
            return stat.S_ISREG(os.lstat(self._body_path(str(blob))).st_mode)
        except (OSError, ValueError):
            return False

    def _forget(self, file: str) -> None:
        """Drop `file`'s entries (one proved not to be what its spec compiles to): the next
        run compiles it again."""
        if self._lines.pop(json.dumps(file), None) is not None:
            self._dirty = True
            self.save()

    def body_text(self, file: str, blob: str) -> str:
        """The text of spec `file`'s body, whose git blob id is `blob`: from the store, else
        (absent, or not that text) from `compile_again`."""
        try:
            data = _read_regular(self._body_path(blob))
            if gitstate.blob_id(data) == blob:
                return data.decode("utf-8")
        except (OSError, ValueError):
            pass
        if self.compile_again is None:
            raise TrainspecError(f"the result cache lost the body of {file}")
        try:
            return self.compile_again(file, blob)
        except TrainspecError:  # the spec no longer gives that body: its entry is no answer
            self._forget(file)
            raise


def _read_regular(path: str) -> bytes:
    """The bytes of `path` if it is a regular file (a named pipe in its place would block
    the run, a device never end): opened without following a link or blocking, checked on
    the open descriptor; else OSError."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"not a regular file: {path}")
        return f.read()


def _write(path: str, text: str) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(temp, path)
        except BaseException:
            os.unlink(temp)
            raise
    except OSError:
        pass


def content_id(blob: bytes) -> str:
    """The content id of a spec's bytes that git does not vouch for (`gitstate`)."""
    return "s" + hashlib.sha256(blob).hexdigest()


def git_content_id(blob: str) -> str:
    """The content id of a spec git vouches for, from its blob id."""
    return "g" + blob


def configs_of(file: str, memo: dict[str, str]) -> str:
    """The contents of the repo config files that apply to spec `file`, as one string (what
    config.load.find reads: each folder up to the one holding .git). `memo`: folder → its
    part, and spec folder → the whole, shared by the specs of one run."""
    given = os.path.dirname(file)  # the current folder is the same for the whole run
    if (whole := memo.get("\2" + given)) is not None:
        return whole
    start = os.path.dirname(os.path.abspath(file))
    if (whole := memo.get("\0" + start)) is not None:
        memo["\2" + given] = whole
        return whole
    parts = []
    for folder in folders_up(start):
        if folder not in memo:
            part = []
            for name in (FILE_NAME, PYPROJECT):
                path = os.path.join(folder, name)
                if os.path.lexists(path):
                    try:
                        with open(path, "rb") as f:
                            digest = hashlib.sha256(f.read()).hexdigest()
                    except OSError as e:
                        digest = f"unreadable {e.errno}"
                    link = os.readlink(path) if os.path.islink(path) else ""
                    part.append(f"{name}:{digest}:{link}")
            stop = os.path.lexists(os.path.join(folder, ".git"))
            memo[folder] = ("|".join(part), stop)  # type: ignore[assignment]
        part, stop = memo[folder]  # type: ignore[misc]
        parts.append(f"{folder}={part}")
        if stop:
            break
    memo["\0" + start] = memo["\2" + given] = whole = "\n".join(parts)
    return whole


def configs_id(file: str, memo: dict[str, str]) -> str:
    """A hash of `configs_of(file)` (`memo` as there, shared by the specs of one run)."""
    whole = configs_of(file, memo)
    if (known := memo.get("\1" + whole)) is None:
        memo["\1" + whole] = known = hashlib.sha256(whole.encode()).hexdigest()[:32]
    return known


def _head(result, body: str | None) -> list:  # noqa: ANN001 - a pipeline.Result
    """An entry's result: identity, diagnostics, and the git blob id of the body's canonical
    text (`emit.dumps`), kept in the body store, or None."""
    return [_identity(result.identity),
            [[d.path, d.message, d.severity, d.file,
              [d.position.line, d.position.column] if d.position else None, d.hint, d.code]
             for d in result.diagnostics], body]


def _identity(identity: tuple | None) -> list | None:
    if identity is None:
        return None
    name, platform, project, at, run = identity
    return [name, platform, project, [at.line, at.column] if at else None, run]


def _result(head: list, file: str, cache: Cache):  # noqa: ANN202 - a pipeline.Result
    from .pipeline import Result

    identity, diagnostics, body = head
    if identity is not None:
        name, platform, project, at, run = identity
        identity = (name, platform, project, Position(*at) if at else None, run)
    found = [Diagnostic(path, message, severity, where, Position(*at) if at else None, hint, code)
             for path, message, severity, where, at, hint, code in diagnostics]
    if body is not None:
        if not isinstance(body, str) or len(body) != 40:
            raise ValueError(body)
        body = emit.stored(body, file, cache.body_text)
    return Result(file, found, body=body, identity=identity)
