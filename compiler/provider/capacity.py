"""The quota check of the job resources' Check (compiler/quota.py): a preview refuses a job the
project's quota cannot hold, located at its spec, before anything is sent.

A provider process serves one deployment, so the `Ledger` keeps what each resource to be
created holds (by URN: a second Check of the same resource replaces its claim) and checks their
sum: the stack's jobs together, as `trainspec quota` does. A resource whose request is
unchanged submits nothing and claims nothing (its running job is in the usage already); a
changed one is replaced delete-first, so its old job's share is given back. Limits and usage
are read once per project and process; when they cannot be read, one line says so."""

from __future__ import annotations

import threading
from typing import Any

from .. import quota
from ..catalog import quotas as table
from ..cloud.errors import ConfigError
from ..cloud.quotas import Quotas
from ..diagnostics import Position


class Ledger:
    def __init__(self) -> None:
        self.claims: dict[str, list[quota.Need]] = {}
        self.read: dict[str, quota.Quota] = {}
        self._lock = threading.Lock()

    def check(self, urn: str, olds: dict, inputs: dict, endpoint: str | None,
              account: str | None) -> tuple[list[tuple[str, str]], list[str], list[str]]:
        """(failures as (property, reason), warnings, notes) of one resource's Check."""
        if inputs.get("platform") not in table.PLATFORMS:
            return [], [], []
        project, region = inputs.get("project") or "", inputs.get("region") or ""
        smap = inputs.get("sourceMap") or {}
        origins = {k: v.get("path", "") for k, v in smap.items() if isinstance(v, dict)}
        wanted = [] if not submits(olds, inputs) else quota.needs(inputs["request"], project, region,
                                             inputs.get("specFile") or "", origins)
        with self._lock:
            self.claims[urn] = wanted
            if not wanted:
                return [], [], []
            notes = []
            if project not in self.read:
                try:
                    client = Quotas(endpoint, impersonate_service_account=account)
                except ConfigError as exc:  # a bad endpoint: the jobs' own calls say so too
                    self.read[project] = quota.Quota(problem=str(exc))
                else:
                    self.read[project] = quota.read([project], client)
                if self.read[project].problem:
                    notes.append(quota.unchecked(self.read[project].problem))
            known = self.read[project]
            if known.problem:
                return [], [], notes
            freed = _freed(olds, known)
            everything = [n for claim in self.claims.values() for n in claim]
        at = {v.get("path"): v.get("at", "") for v in smap.values() if isinstance(v, dict)}
        found = quota.check(everything, freed, lambda f, p: _position(at.get(p)), wanted)
        # A metric the project does not list is a guess of ours, not news about the job: a note.
        unlisted = [d.format() for d in found if d.code == quota.UNKNOWN_METRIC]
        return ([("specFile", d.format()) for d in found if d.is_error],
                [d.format() for d in found if not d.is_error and d.code != quota.UNKNOWN_METRIC],
                notes + unlisted)


def submits(olds: dict, inputs: dict) -> bool:
    """Whether applying these inputs submits a job: a new resource, or a changed request, run
    or location (an unchanged one keeps its job)."""
    return any(olds.get(k) != inputs.get(k) for k in ("request", "run", "project", "region"))


def cost_note(olds: dict, inputs: dict, result: Any) -> str | None:
    """`cost: ...` of a job this update submits (compiler/cost.py), None for one it keeps."""
    from .. import cost  # noqa: PLC0415

    found = cost.of_result(result) if submits(olds, inputs) else None
    return f"cost: {cost.summary(found)}" if found is not None else None


def _freed(olds: dict, known: quota.Quota) -> quota.Quota:
    """The usage with a replaced job's share given back (it is cancelled before the new one is
    created); never below zero (the old job may have ended already)."""
    old = olds.get("request")
    if not isinstance(old, dict) or olds.get("platform") not in table.PLATFORMS:
        return known
    usage = dict(known.usage)
    for n in quota.needs(old, olds.get("project") or "", olds.get("region") or "", ""):
        key = (n.project, n.metric, n.region)
        if key in usage:
            usage[key] = max(0, usage[key] - n.amount)
    return quota.Quota(known.limits, usage)


def _position(at: Any) -> Position | None:
    """The line and column of a sourceMap `at` ("file:line:col")."""
    parts = str(at or "").rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return Position(int(parts[1]), int(parts[2]))
    return None
