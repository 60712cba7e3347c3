"""What applying a compiled request does to a job: the one rule the Pulumi provider's `diff`
and the pull-request `diff` command both use.

Neither API can update a job's definition: any change to the request is a new job (the old
one is cancelled). The only in-place change is AI Platform labels (`jobs.patch` with etag).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .targets import PLATFORMS

CREATE, REPLACE, UPDATE, DELETE, NONE = "create", "replace", "update", "delete", "none"

DESCRIPTIONS = {
    CREATE: "create: a new job is submitted",
    REPLACE: "replace: a new job is submitted and the old one cancelled",
    UPDATE: "update in place: labels are patched on the existing job",
    DELETE: "delete: the job is cancelled if still running",
    NONE: "no change",
}
RERUN = "replace: re-run requested: a new job is submitted, the previous run cancelled if still running"
CODE_CHANGED = ("replace: trainer code changed: pulumi up uploads the new package and submits a new "
                "job, the old one cancelled")
# An archive trainspec built from python.source (compiler/packaging): named by its content.
_BUILT_PACKAGE = re.compile(r"^gs://[^/]+/trainspec/packages/[^/]+-[0-9a-f]{16}\.tar\.gz\Z")


@dataclass(frozen=True)
class Change:
    path: str  # body path, e.g. jobSpec.workerPoolSpecs[0].machineSpec.machineType
    old: Any = None
    new: Any = None
    kind: str = "changed"  # added | removed | changed


@dataclass
class Plan:
    action: str
    changes: list[Change] = field(default_factory=list)

    @property
    def rerun(self) -> bool:
        """A replace because `metadata.run` changed (whatever else changed with it)."""
        return self.action == REPLACE and any(c.path == RUN_PATH for c in self.changes)

    @property
    def code_changed(self) -> bool:
        """A replace whose only changes are python.source archives: new content, new name."""
        return self.action == REPLACE and bool(self.changes) and all(
            c.kind == "changed" and isinstance(c.old, str) and isinstance(c.new, str)
            and _BUILT_PACKAGE.match(c.old) and _BUILT_PACKAGE.match(c.new)
            for c in self.changes)

    @property
    def description(self) -> str:
        if self.rerun:
            return RERUN
        return CODE_CHANGED if self.code_changed else DESCRIPTIONS[self.action]


_MISSING = object()


def changes(old: Any, new: Any, path: str = "") -> list[Change]:
    """Leaf-level differences between two JSON values, in a stable order."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[Change] = []
        for key in list(old) + [k for k in new if k not in old]:
            sub = f"{path}.{key}" if path else str(key)
            out += changes(old.get(key, _MISSING), new.get(key, _MISSING), sub)
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [c for i, (a, b) in enumerate(zip(old, new)) for c in changes(a, b, f"{path}[{i}]")]
    if old is _MISSING and new is _MISSING:
        return []
    if old is _MISSING:
        return [Change(path, None, new, "added")]
    if new is _MISSING:
        return [Change(path, old, None, "removed")]
    if old == new and type(old) is type(new):
        return []
    return [Change(path, old, new, "changed")]


def _label_only(found: list[Change]) -> bool:
    return all(c.path == "labels" or c.path.startswith("labels.") for c in found)


LOCATION_KEYS = ("project", "region")  # where a job lives: in the request URL, not the body
LOCATION_PATHS = ("platform",) + LOCATION_KEYS
RUN_PATH = "metadata.run"  # a new run of the same spec: in the job's generation, not its body
NON_BODY_PATHS = LOCATION_PATHS + (RUN_PATH,)  # Change paths that are not body paths


def location_changes(old_location: tuple | None, new_location: tuple | None) -> list[Change]:
    """`project` / `region` changes between two (project, region) pairs (None: not known)."""
    if old_location is None or new_location is None:
        return []
    pairs = zip(LOCATION_KEYS, old_location, new_location, strict=True)
    return [Change(key, a, b) for key, a, b in pairs if a != b]


def run_changes(old_run: str | None, new_run: str | None) -> list[Change]:
    """The `metadata.run` change between two sides, if any."""
    if old_run == new_run:
        return []
    kind = "added" if old_run is None else "removed" if new_run is None else "changed"
    return [Change(RUN_PATH, old_run, new_run, kind)]


def classify(platform: str, old: dict | None, new: dict | None,
             old_platform: str | None = None, *, old_location: tuple | None = None,
             new_location: tuple | None = None, old_run: str | None = None,
             new_run: str | None = None) -> Plan:
    """The action that takes a job from request `old` to request `new` (None = no spec).

    `old_location` / `new_location` are the job's resolved (project, region) on each side;
    they are in the request URL, not the body, so a change of either is a new job in the new
    place (the old one cancelled): a replace, listed first as `project` / `region` changes.
    `old_run` / `new_run` are `metadata.run` on each side: a change is a new run of the spec,
    a replace even when the request is the same ("re-run requested").
    """
    if old is None and new is None:
        return Plan(NONE)
    if old is None:
        return Plan(CREATE, changes({}, new))
    if new is None:
        return Plan(DELETE, changes(old, {}))
    moved = location_changes(old_location, new_location) + run_changes(old_run, new_run)
    if old_platform and old_platform != platform:
        return Plan(REPLACE, [Change("platform", old_platform, platform)] + moved
                    + changes(old, new))
    found = changes(old, new)
    if moved:
        return Plan(REPLACE, moved + found)
    if not found:
        return Plan(NONE)
    known = PLATFORMS.get(platform)
    if known is not None and known.labels_in_place and _label_only(found):
        return Plan(UPDATE, found)
    return Plan(REPLACE, found)
