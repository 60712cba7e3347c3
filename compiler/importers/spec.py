"""The spec being written: nested data set by dotted path, plus the comments on each key."""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Collector
from ..schema.validate import inline_refs, schema
from ..source.jsonpath import child


def _key_orders(node: Any, name: str, orders: dict[str, dict[str, int]]) -> None:
    """For each object of the schema (references inlined), by the key that holds it ("" for
    the document), its keys ranked in the order the schema declares them."""
    if isinstance(node, list):
        for item in node:
            _key_orders(item, name, orders)
        return
    if not isinstance(node, dict):
        return
    props = node.get("properties", {})
    if props and name not in orders:
        orders[name] = {key: i for i, key in enumerate(props)}
    for key, value in props.items():
        _key_orders(value, key, orders)
    for key in ("allOf", "anyOf", "oneOf", "items", "additionalProperties", "then", "else"):
        _key_orders(node.get(key), name, orders)


@functools.cache
def _orders() -> dict[str, dict[str, int]]:
    """Key order of the written spec: each object's keys in the schema's order, so every
    import reads the same way and a key the schema gains takes its place without an edit."""
    published = schema()
    orders: dict[str, dict[str, int]] = {}
    _key_orders(inline_refs(published, published.get("$defs", {})), "", orders)
    return orders


# Mappings whose key order is the user's (labels, env, tuning metrics and parameters) or the
# API's (hyperparameters), or as compiler.tuning.to_spec wrote it (earlyStopping).
_KEEP_ORDER = ("labels", "env", "hyperparameters", "pscInterfaceConfig", "metrics", "parameters",
               "earlyStopping")


def unknown_fields(c: Collector, value: dict, known: Collection[str], at: str, what: str,
                   hint: str | None = None) -> None:
    """An error for each key of the request mapping `value` (a `what`, at `at`) that the
    importer does not read."""
    for key in value:
        if key not in known:
            c.error(f"{at}.{key}", f"unknown {what} field {key!r}",
                    hint if hint and "_" in str(key) else None, code="import-unknown-field")


def as_int(value: Any) -> Any:
    """int64 fields arrive as numbers or strings ("1"); write numbers."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return value


def set_disk(d: Draft, pool_path: str, disk: Any) -> None:
    """A pool's `disk` from ml DiskConfig or Vertex DiskSpec (the two share their fields)."""
    if not isinstance(disk, dict):
        return
    for key, spec_key in (("bootDiskType", "type"), ("bootDiskSizeGb", "sizeGb")):
        if key in disk:
            value = as_int(disk[key]) if spec_key == "sizeGb" else disk[key]
            d.set(f"{pool_path}.disk.{spec_key}", value)


def is_zero_accel(kind: Any, count: Any) -> bool:
    """An accelerator block that means none: unspecified type or count 0."""
    return kind in (None, "", "ACCELERATOR_TYPE_UNSPECIFIED", 0) or as_int(count) == 0


@dataclass
class Draft:
    data: dict = field(default_factory=dict)
    comments: dict[str, list[str]] = field(default_factory=dict)  # JSON path → lines

    def set(self, path: str, value: Any, notes: list[str] | None = None) -> None:
        *parents, last = path.split(".")
        node = self.data
        for key in parents:
            node = node.setdefault(key, {})
        node[last] = value
        for text in notes or ():
            self.comment(path, text)

    def get(self, path: str) -> Any:
        node: Any = self.data
        for key in path.split("."):
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return node

    def has(self, path: str) -> bool:
        return self.get(path) is not None

    def comment(self, path: str, text: str) -> None:
        lines = self.comments.setdefault(_json_path(path), [])
        if text not in lines:
            lines.append(text)

    def labels(self, value: Any, where: str) -> None:
        if value is not None:
            self.set("metadata.labels", value)

    def finish(self) -> tuple[dict, dict[str, list[str]]]:
        return _ordered(self.data, ""), self.comments


def _json_path(dotted: str) -> str:
    path = "$"
    for key in dotted.split("."):
        path = child(path, key)
    return path


def _ordered(value: Any, key: str) -> Any:
    if isinstance(value, list):
        return [_ordered(v, key) for v in value]  # each item: the list's item schema
    if not isinstance(value, dict) or key in _KEEP_ORDER:
        return value
    rank = _orders().get(key, {})
    items = sorted(value.items(), key=lambda kv: rank.get(kv[0], len(rank)))
    return {k: _ordered(v, k) for k, v in items}
