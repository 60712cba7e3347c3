"""One compile per spec per operation in the provider process: `Specs` (Construct) compiles the
folder and each job's Check finds the same result here instead of compiling again.

A result is remembered by what decides it: the spec's path and bytes, the compile options,
the day (date-dependent rules), and the bytes of every repo config that can apply (trainspec.yaml
and pyproject.toml from the spec's folder up to the repository's root, config/load.py). The
catalog and the compiler are this process's own, fixed while it runs. A changed spec, option or
config is a new key, so it compiles again. A spec with python.source is never remembered: its
archive depends on a whole source tree.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import os
import threading
from collections import OrderedDict

from .. import pipeline
from ..config import load as config_load
from ..options import Options

LIMIT = 4096  # results kept (least recently used dropped): a few thousand specs per stack
_results: OrderedDict[tuple, pipeline.Result] = OrderedDict()
_lock = threading.Lock()  # Check runs on worker threads


def _digest(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).digest()
    except OSError:
        return None


def _configs(spec_file: str) -> tuple:
    """(path, digest) of every config file that can apply to `spec_file`."""
    found = []
    for folder in config_load.folders_up(os.path.dirname(os.path.abspath(spec_file))):
        for name in (config_load.FILE_NAME, config_load.PYPROJECT):
            candidate = os.path.join(folder, name)
            if os.path.lexists(candidate):
                found.append((candidate, _digest(candidate)))
        if os.path.lexists(os.path.join(folder, ".git")):
            break
    return tuple(found)


def key(spec_file: str, options: Options) -> tuple | None:
    """What decides the compile of `spec_file` with `options` (None if it cannot be read)."""
    spec = _digest(spec_file)
    if spec is None:
        return None
    return (spec_file, os.path.abspath(spec_file), spec, options, datetime.date.today(),
            _configs(spec_file))


def compile_file(spec_file: str, options: Options) -> pipeline.Result:
    """`pipeline.compile_file(spec_file, options)`, compiled once while its inputs stay the same.

    Each caller gets its own copy of the Result (callers reassign `diagnostics`: the tree adds
    its notes and cross-spec findings), so what is kept stays the compile's own.
    """
    k = key(spec_file, options)
    with _lock:
        kept = _results.get(k) if k is not None else None
        if kept is not None:
            _results.move_to_end(k)
            return dataclasses.replace(kept)
    result = pipeline.compile_file(spec_file, options)
    # Kept only if the inputs did not change while it compiled (the file is read twice).
    if k is not None and not result.uploads and key(spec_file, options) == k:
        with _lock:
            _results[k] = dataclasses.replace(result)
            while len(_results) > LIMIT:
                _results.popitem(last=False)
    return result


def clear() -> None:
    with _lock:
        _results.clear()
