"""JSON paths as diagnostics print them (`$.spec.pools.chief`, `$.metadata.labels['a.b']`)."""

from __future__ import annotations

import re

_SIMPLE_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


def child(path: str, key: str | int) -> str:
    """The JSON path of `key` (a mapping key or list index) under `path`."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _SIMPLE_KEY.match(key):
        return f"{path}.{key}"
    escaped = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"{path}['{escaped}']"
