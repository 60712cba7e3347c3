"""The spec being written: nested data set by dotted path, plus the comments on each key."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Collector
from ..jsonpath import child
from ..roles import BY_NAME

# Key order of the written spec: the schema's order, so every import reads the same way.
ORDER = ["apiVersion", "kind", "metadata", "name", "labels", "description", "spec", "platform",
         "project", "region", "serviceAccount", "network", "outputDir", "stagingBucket", "encryptionKey",
         "enableWebAccess", "container", "python", "env", "pools", "chief", "worker",
         "parameterServer", "evaluator", "replicas", "machineType", "accelerator", "type",
         "count", "disk", "sizeGb", "tpuTopology", "reservation", "affinity", "key", "values",
         "gpuPartitionSize", "nfsMounts", "lustreMounts", "tpuTfVersion", "image", "command",
         "source", "packages", "module", "args", "executorImage", "runtimeVersion", "pythonVersion",
         "scheduling", "timeout", "maxWait", "restartOnWorkerRestart", "strategy",
         "disableRetries", "priority", "vertex", "displayName", "tensorboard",
         "persistentResourceId", "enableDashboardAccess", "reservedIpRanges", "experiment",
         "experimentRun", "pscInterfaceConfig", "protectedArtifactLocationId", "models",
         "aiPlatform", "scaleTier", "useChiefInTfConfig", "hyperparameters", "tuning",
         "metrics", "parameters", "algorithm", "maxTrials", "parallelTrials", "maxFailedTrials",
         "earlyStopping", "measurement", "resumeFrom"]
_RANK = {k: i for i, k in enumerate(ORDER)}
# Inside a pool: what it runs on first, then what it runs.
POOL_ORDER = ["replicas", "machineType", "accelerator", "disk", "tpuTopology", "reservation",
              "gpuPartitionSize", "nfsMounts", "lustreMounts", "tpuTfVersion", "container",
              "python", "env"]
_POOL_RANK = {k: i for i, k in enumerate(POOL_ORDER)}
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
        return [_ordered(v, "") for v in value]
    if not isinstance(value, dict) or key in _KEEP_ORDER:
        return value
    rank = _POOL_RANK if key in BY_NAME else _RANK
    items = sorted(value.items(), key=lambda kv: rank.get(kv[0], len(rank)))
    return {k: _ordered(v, k) for k, v in items}
