"""What applying a compiled request does to a job: the one rule the Pulumi provider's `diff`
and the pull-request `diff` command both use.

Neither API can update a job's definition: any change to the request is a new job (the old
one is cancelled). The only in-place change is AI Platform labels (`jobs.patch` with etag); a
Vertex job's labels cannot change, so a change of labels alone is recorded in state and sent
with the next run (never a re-run). An AI Platform job whose jobId stays the same cannot be
replaced (ml v1 never reuses a jobId): `decide` refuses it, for `pulumi up` and `diff` alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .cloud.jobs import is_final
from .diagnostics import Diagnostic, Position
from .targets import PLATFORMS

CREATE, REPLACE, UPDATE, DELETE, NONE = "create", "replace", "update", "delete", "none"

DESCRIPTIONS = {
    CREATE: "create: a new job is submitted",
    UPDATE: "update in place: labels are patched on the existing job",
    DELETE: "delete: the job is cancelled if still running",
    NONE: "no change",
}
# A label-only change of a job whose labels cannot change (Vertex): kept for the next run.
LABELS_RECORDED = ("update: labels recorded in state and sent with the next run; the job is "
                   "not re-run (a Vertex job's labels cannot change)")
# What a replace does to the job it replaces, by what is known of that job's state.
FINISHED, RUNNING, UNKNOWN = "finished", "running", "unknown"
REPLACE_COSTS = {
    FINISHED: "re-runs a finished job (its record is kept)",
    RUNNING: "cancels the running job, then submits",
    UNKNOWN: "cancels the job if it still runs, then submits",
}
RERUN_REASON = "re-run requested"
CODE_REASON = "trainer code changed (pulumi up uploads the new package)"
# An archive trainspec built from python.source (compiler/packaging): named by its content.
_BUILT_PACKAGE = re.compile(r"^gs://[^/]+/trainspec/packages/[^/]+-[0-9a-f]{16}\.tar\.gz\Z")


@dataclass(frozen=True)
class Change:
    path: str  # body path, e.g. jobSpec.workerPoolSpecs[0].machineSpec.machineType
    old: Any = None
    new: Any = None
    kind: str = "changed"  # added | removed | changed


@dataclass(frozen=True)
class Refusal:
    """A change `pulumi up` refuses: a located error of `code` at the spec path the request
    path `at` came from (the provider's check and `diff` locate it each their own way)."""

    code: str
    at: str  # request body path
    message: str
    hint: str

    def diagnostic(self, file: str, path: str, position: Position | None) -> Diagnostic:
        return Diagnostic(path or "$", self.message, file=file, position=position,
                          hint=self.hint, code=self.code)


@dataclass
class Plan:
    action: str
    changes: list[Change] = field(default_factory=list)
    refusal: Refusal | None = None
    recorded: bool = False  # an update with no API call: labels kept for the next run
    job: str = UNKNOWN  # FINISHED | RUNNING | UNKNOWN: the replaced job's state, if known
    caution: str | None = None  # what may be refused but cannot be told here (offline)

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
        if self.refusal is not None:
            return f"refused: {self.refusal.message}"
        if self.recorded:
            return LABELS_RECORDED
        if self.action != REPLACE:
            return DESCRIPTIONS[self.action]
        reason = RERUN_REASON if self.rerun else CODE_REASON if self.code_changed else ""
        caution = f"; warning: {self.caution}" if self.caution else ""
        return f"replace: {reason + ': ' if reason else ''}{REPLACE_COSTS[self.job]}{caution}"


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
    if _label_only(found):
        known = PLATFORMS.get(platform)
        return Plan(UPDATE, found, recorded=known is None or not known.labels_in_place)
    return Plan(REPLACE, found)


SECRET_CHANGE = "stack secret "  # a Change path: a secret config value the job reads changed
JOB_ID = "jobId"  # the ml v1 job's own name, in its body: never reused in a project
ML_IMMUTABLE = Refusal(
    "ml-job-immutable", JOB_ID, "AI Platform job {job!r} cannot be changed (only its labels "
    "can) and its jobId can never be reused",
    "set or bump metadata.run to submit the changed job as a new run, jobId <name>_run_<run>; "
    "the old one is cancelled first")
# A new jobId an earlier run of the job already used (metadata.run removed or lowered): told by
# the API (the provider's check reads the jobId), or only suspected offline (`diff`).
ID_TAKEN = ("the AI Platform jobId {job!r} is taken by {who} ({name}, state {state}) and ml v1 "
            "never reuses a jobId")
ID_TAKEN_HINT = ("bump metadata.run past every earlier run of this job (a new jobId "
                 "<name>_run_<run>); the old job is cancelled first")
ID_TAKEN_ELSEWHERE_HINT = "rename metadata.name (a new jobId)"
ID_MAY_BE_TAKEN = ("metadata.run {how}: jobId {job!r} may be an earlier run's, which ml v1 never "
                   "reuses (`pulumi preview` reads it and refuses then); " + ID_TAKEN_HINT)


def id_taken(job_id: str, name: str, state: str, earlier_run: bool) -> Refusal:
    """The refusal of a new jobId that a job already has: an earlier run of this one (same
    owner label), or another stack's, project's or a job trainspec did not start (`who`)."""
    who = "an earlier run of this job" if earlier_run else "another job"
    return Refusal(ML_IMMUTABLE.code, JOB_ID, ID_TAKEN.format(job=job_id, who=who, name=name,
                                                              state=state or "?"),
                   ID_TAKEN_HINT if earlier_run else ID_TAKEN_ELSEWHERE_HINT)


def _run_back(old_run: str | None, new_run: str | None) -> str | None:
    """How metadata.run went back (removed, or lowered as a number), None if it did not."""
    if old_run is not None and new_run is None:
        return "removed"
    try:
        return "lowered" if old_run is not None and int(new_run) < int(old_run) else None
    except (TypeError, ValueError):
        return None


def job_state(state: str | None) -> str:
    """FINISHED, RUNNING or UNKNOWN of a job state as the API spells it (None: not read)."""
    if not state:
        return UNKNOWN
    return FINISHED if is_final(state) else RUNNING


def decide(platform: str, old: dict | None, new: dict | None, old_platform: str | None = None,
           *, old_location: tuple | None = None, new_location: tuple | None = None,
           old_run: str | None = None, new_run: str | None = None,
           changed_secrets: list[str] = (), state: str | None = None,
           ids_checked: bool = False) -> Plan:
    """What `pulumi up` does to a job, or refuses: `classify`, then the changed secrets the
    new job reads (the job would run with the old value: a replace), the AI Platform refusal
    (a replace that keeps the jobId) and what the replace costs given the job's `state` (None:
    not known, as in an offline `diff`). The provider's check and diff and the `diff` command
    all call this one function. `ids_checked`: the caller reads whether a new jobId is taken
    (the provider's check); else a run removed or lowered is a caution (it may be)."""
    found = classify(platform, old, new, old_platform, old_location=old_location,
                     new_location=new_location, old_run=old_run, new_run=new_run)
    if old is not None and new is not None and changed_secrets:
        where = [c for c in found.changes if c.path in LOCATION_PATHS]
        found = Plan(REPLACE, where + [
            Change(SECRET_CHANGE + key, "<secret>", "<secret: its ciphertext changed>")
            for key in sorted(changed_secrets)] + [c for c in found.changes if c not in where])
    if found.action != REPLACE:
        return found
    found.job = job_state(state)
    # A job id the client chooses (ml v1) names one job forever: a replace needs a new one.
    chosen = PLATFORMS.get(platform) is not None and PLATFORMS[platform].job_id is not None
    same_id = (old or {}).get(JOB_ID) is not None and (old or {}).get(JOB_ID) == (new or {}).get(
        JOB_ID)
    same_project = old_location is None or new_location is None or old_location[0] == \
        new_location[0]
    if chosen and same_id and same_project:
        found.refusal = Refusal(ML_IMMUTABLE.code, JOB_ID, ML_IMMUTABLE.message.format(
            job=old[JOB_ID]), ML_IMMUTABLE.hint)
    elif chosen and same_project and not ids_checked and (new or {}).get(JOB_ID) is not None:
        how = _run_back(old_run, new_run)
        if how:
            found.caution = ID_MAY_BE_TAKEN.format(how=how, job=new[JOB_ID])
    return found
