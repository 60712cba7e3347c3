"""JSON paths as diagnostics print them (`$.spec.pools.chief`, `$.metadata.labels['a.b']`)."""

from __future__ import annotations

import re

_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
# What a key adds to a path, for the keys met most (every spec writes the same few dozen):
# a path is built for each value of every spec, several times over.
_STEPS: dict[str, str] = {}
_MAX_STEPS, _MAX_KEY = 4096, 64  # bounded: memory does not grow with the tree


def child(path: str, key: str | int) -> str:
    """The JSON path of `key` (a mapping key or list index) under `path`."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    step = _STEPS.get(key)
    if step is None:
        step = _step(key)
        if len(key) <= _MAX_KEY and len(_STEPS) < _MAX_STEPS:
            _STEPS[key] = step
    return path + step


def _step(key: str) -> str:
    if _SIMPLE_KEY.match(key):
        return f".{key}"
    escaped = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"['{escaped}']"
