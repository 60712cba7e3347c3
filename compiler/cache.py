"""A content-addressed cache of per-spec compile results (`--cache DIR`, TRAINSPEC_CACHE).

A pull request changes a few specs of thousands: every other spec's result is read back from
an entry whose key is a hash of everything the result depends on, so a cached result is the
one a cold run computes (tests/test_cache.py compares every format byte for byte):

- the spec's path as given and its bytes, the current folder (diagnostics name files relative
  to it);
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

Entries are a line of JSON and the body's JSON text (never pickle: a restored CI cache is data,
not code), written to a temporary file and renamed, so concurrent writers (worker processes,
parallel CI jobs) never leave half an entry; an entry that cannot be read or does not have the
expected shape is a miss.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import hashlib
import json
import os
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from . import emit
from .config.load import FILE_NAME, PYPROJECT, folders_up
from .diagnostics import Diagnostic, Position
from .options import Options
from .version import VERSION

ENV = "TRAINSPEC_CACHE"
FORMAT = 2  # of an entry: a change makes every older entry a miss
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


@dataclasses.dataclass(frozen=True)
class Cache:
    """The cache folder and the part of every key a run shares (picklable: worker processes
    store their own results)."""

    folder: str
    run_key: str

    @classmethod
    def open(cls, folder: str | os.PathLike, options: Options,
             today: datetime.date | None = None) -> Cache:
        """The cache in `folder` for a run with `options`, today."""
        shared = json.dumps([code_hash(), os.getcwd(), dataclasses.asdict(options),
                             (today or datetime.date.today()).isoformat()],
                            sort_keys=True, default=str)
        return cls(os.fspath(folder), hashlib.sha256(shared.encode()).hexdigest())

    def key(self, file: str, blob: bytes, configs: str) -> str:
        h = hashlib.sha256(self.run_key.encode())
        for part in (file.encode("utf-8", "surrogateescape"), configs.encode(), blob):
            h.update(len(part).to_bytes(8, "big") + part)
        return h.hexdigest()

    def _path(self, key: str) -> str:
        return os.path.join(self.folder, key[:2], key[2:] + ".json")

    def get(self, key: str, file: str):  # noqa: ANN201 - a pipeline.Result or None
        """The result stored under `key` for `file`, or None (absent, unreadable, malformed)."""
        try:
            with open(self._path(key), "rb") as f:
                head, _, body = f.read().decode("utf-8").partition("\n")
            return _result(json.loads(head), body, file)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None

    def put(self, key: str, result) -> None:  # noqa: ANN001 - a pipeline.Result
        """Store `result` (its own diagnostics, before the cross-spec rules) under `key`;
        a folder that cannot be written is no error (the result was computed anyway)."""
        text = _entry(result)
        path = self._path(key)
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


def configs_of(file: str, memo: dict[str, str]) -> str:
    """The contents of the repo config files that apply to spec `file`, as one string (what
    config.load.find reads: each folder up to the one holding .git). `memo`: folder → its
    part, and spec folder → the whole, shared by the specs of one run."""
    start = os.path.dirname(os.path.abspath(file))
    if (whole := memo.get("\0" + start)) is not None:
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
    memo["\0" + start] = whole = "\n".join(parts)
    return whole


def _entry(result) -> str:  # noqa: ANN001 - a pipeline.Result
    """An entry's text: one line of JSON (file, identity, diagnostics, whether there is a
    body), then the body's canonical text as `emit.dumps` writes it (not escaped again)."""
    head = {"format": FORMAT, "file": result.file, "body": result.body is not None,
            "identity": _identity(result.identity),
            "diagnostics": [[d.path, d.message, d.severity, d.file,
                             [d.position.line, d.position.column] if d.position else None,
                             d.hint, d.code] for d in result.diagnostics]}
    body = emit.dumps(result.body) if result.body is not None else ""
    return json.dumps(head, ensure_ascii=False, allow_nan=False) + "\n" + body


def _identity(identity: tuple | None) -> list | None:
    if identity is None:
        return None
    name, platform, project, at, run = identity
    return [name, platform, project, [at.line, at.column] if at else None, run]


def _result(entry: dict, text: str, file: str):  # noqa: ANN202 - a pipeline.Result
    from .pipeline import Result

    if entry["format"] != FORMAT or entry["file"] != file:
        return None
    body = emit.serialized_from(text) if entry["body"] is True else None
    identity = entry["identity"]
    if identity is not None:
        name, platform, project, at, run = identity
        identity = (name, platform, project, Position(*at) if at else None, run)
    diagnostics = [Diagnostic(path, message, severity, where, Position(*at) if at else None,
                              hint, code)
                   for path, message, severity, where, at, hint, code in entry["diagnostics"]]
    return Result(file, diagnostics, body=body, identity=identity)
