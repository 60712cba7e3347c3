"""The quota check of the job resources' Check (compiler/quota.py): a preview refuses a job the
project's quota cannot hold, located at its spec, before anything is sent.

A provider process serves one deployment, so the `Ledger` keeps what each resource to be
created holds (by URN: a second Check of the same resource replaces its claim) and checks their
sum: the stack's jobs together, as `trainspec quota` does. Only a create or a replace submits
a job (compiler/plan.py `decide`, the plan `diff` shows): an unchanged resource or an update
(labels) claims nothing, its running job is in the usage already. A replace is delete-first:
the engine checks it twice, first with its old inputs (then its Diff says replace), again
without them; the first Check claims nothing, the Diff records the old job (`replacing`), and
the second Check claims the new job against the usage less the old job's share, unless the
API says that job has finished (then it holds nothing). What a resource's Checks say is said
once. Limits and usage are read once per project and process; when they cannot be read, one
line says so."""

from __future__ import annotations

import threading
from typing import Any

from .. import plan, quota
from ..catalog import quotas as table
from ..cloud.errors import ApiError, ConfigError
from ..cloud.jobs import is_final
from ..cloud.quotas import Quotas
from ..cloud.rest import Client
from ..diagnostics import Position

SUBMITS = (plan.CREATE, plan.REPLACE)  # the plan actions that submit a job


class Ledger:
    def __init__(self) -> None:
        self.claims: dict[str, list[quota.Need]] = {}
        self.freed: dict[str, list[quota.Need]] = {}  # by URN: a replaced running job's share
        self.replaced: dict[str, dict] = {}  # by URN: the old outputs of a resource replaced
        self.read: dict[str, quota.Quota] = {}
        self.said: set[tuple[str, str]] = set()
        # The sums of `claims` by (project, region, metric) and of `freed` by (project, metric,
        # region), kept as they change: a Check compares its own metrics' sums with the limits
        # and goes over every claim of the stack (`quota.check`, for the message) only when one
        # may be over, so a preview of N new jobs is linear in N, not quadratic.
        self._claimed: dict[tuple[str, str, str], int] = {}
        self._given_back: dict[tuple[str, str, str], int] = {}
        self._lock = threading.Lock()

    def action(self, urn: str, olds: dict, planned: str | None) -> str:
        """The plan action of a Check: `planned` (decide's, given the old inputs), else a
        replace's second Check when its Diff was seen, else a create."""
        if olds:
            return planned or plan.NONE
        return plan.REPLACE if urn in self.replaced else plan.CREATE

    def replacing(self, urn: str, outputs: dict) -> None:
        """The engine's Diff said replace: `outputs` (with the job's name and last state) are
        the old job's, which its second Check gives back."""
        with self._lock:
            self.replaced[urn] = outputs

    def first(self, urn: str, text: str) -> bool:
        """Whether `text` was not said of `urn` yet (its replace is checked twice)."""
        with self._lock:
            new = (urn, text) not in self.said
            self.said.add((urn, text))
            return new

    def check(self, urn: str, olds: dict, inputs: dict, action: str, endpoint: str | None,
              account: str | None) -> tuple[list[tuple[str, str]], list[str], list[str]]:
        """(failures as (property, reason), warnings, notes) of one resource's Check whose plan
        is `action` (`Ledger.action`)."""
        if inputs.get("platform") not in table.PLATFORMS:
            return [], [], []
        project, region = inputs.get("project") or "", inputs.get("region") or ""
        smap = inputs.get("sourceMap") or {}
        origins = {k: v.get("path", "") for k, v in smap.items() if isinstance(v, dict)}
        # A replace's first Check (old inputs): its second, after the Diff, claims for it.
        claims = action in SUBMITS and not (olds and action == plan.REPLACE)
        wanted = quota.needs(inputs["request"], project, region, inputs.get("specFile") or "",
                             origins) if claims else []
        old = self.replaced.get(urn) if claims and not olds else None
        with self._lock:
            self._set(self.claims, self._claimed, urn, wanted, _claim_key)
            self._set(self.freed, self._given_back, urn, [], _usage_key)
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
            self._set(self.freed, self._given_back, urn,
                      _held(old, endpoint, account) if old else [], _usage_key)
            usage = quota.Quota(known.limits, {k: max(0, v - self._given_back.get(k, 0))
                                               for k, v in known.usage.items()})
            # What `quota.check` says of a metric within its limit, or that the project does
            # not list, depends on this Check's needs alone: every claim is read only when one
            # of its metrics may be over (for the sum and the jobs the message names).
            everything = wanted if all(self._within(usage, n) for n in wanted) else [
                n for claim in self.claims.values() for n in claim]
        at = {v.get("path"): v.get("at", "") for v in smap.values() if isinstance(v, dict)}
        # The repo config's severity of the spec (docs/config.md), as `trainspec quota` reads it.
        found = quota.regrade(quota.check(everything, usage, lambda f, p: _position(at.get(p)),
                                          wanted))
        # A metric the project does not list is a guess of ours, not news about the job: a note.
        unlisted = [d.format() for d in found if d.code == quota.UNKNOWN_METRIC]
        return ([("specFile", d.format()) for d in found if d.is_error],
                [t for t in (d.format() for d in found if not d.is_error
                             and d.code != quota.UNKNOWN_METRIC) if self.first(urn, t)],
                [t for t in notes + unlisted if self.first(urn, t)])

    @staticmethod
    def _set(by_urn: dict[str, list[quota.Need]], sums: dict[tuple[str, str, str], int],
             urn: str, needs: list[quota.Need], key) -> None:
        """`by_urn[urn] = needs`, with `sums` (by `key` of a need) kept equal to their sum."""
        for n in by_urn.get(urn, ()):
            sums[key(n)] -= n.amount
        for n in needs:
            sums[key(n)] = sums.get(key(n), 0) + n.amount
        by_urn[urn] = needs

    def _within(self, usage: quota.Quota, need: quota.Need) -> bool:
        """Whether the stack's claims on `need`'s metric (with `usage`, what the project uses
        less what is given back) stay within its limit, or the project lists no such limit."""
        limit = usage.limit(need.project, need.metric, need.region)
        total = self._claimed.get(_claim_key(need), 0)
        return (limit is None or limit == table.UNLIMITED or total == 0
                or total + usage.used(need.project, need.metric, need.region) <= limit)


def _claim_key(n: quota.Need) -> tuple[str, str, str]:
    return (n.project, n.region, n.metric)


def _usage_key(n: quota.Need) -> tuple[str, str, str]:
    return (n.project, n.metric, n.region)


def cost_note(action: str, result: Any) -> str | None:
    """`cost: ...` of a job this update submits (a create or replace, compiler/cost.py),
    None for one it keeps or only relabels."""
    from .. import cost  # noqa: PLC0415

    found = cost.of_result(result) if action in SUBMITS else None
    return f"cost: {cost.summary(found)}" if found is not None else None


def _held(old: dict, endpoint: str | None, account: str | None) -> list[quota.Need]:
    """What a replaced job holds now: its request's needs while it runs (it is cancelled
    before the new one is created), nothing once it has finished, as the API says now (else
    its last known state)."""
    request = old.get("request")
    if not isinstance(request, dict) or old.get("platform") not in table.PLATFORMS:
        return []
    state = old.get("state") or ""
    if old.get("name"):
        try:
            state = Client(endpoint, impersonate_service_account=account,
                           max_attempts=1).vertex_get(
                old["name"]).get("state", state)
        except (ApiError, ConfigError):
            pass  # not readable now: its last known state
    if state and is_final(state):
        return []
    return quota.needs(request, old.get("project") or "", old.get("region") or "", "")


def _position(at: Any) -> Position | None:
    """The line and column of a sourceMap `at` ("file:line:col")."""
    parts = str(at or "").rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return Position(int(parts[1]), int(parts[2]))
    return None
