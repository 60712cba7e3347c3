"""A spec's job, found from the spec alone, and what it says: for `status`, `logs` and `wait`.

The spec is compiled as the Pulumi program compiles it (the stack's gcp:project/gcp:region as
defaults), its identity computed as the provider computes it (`compiler.identity`), and the API
asked for the jobs labelled with that identity: every run of this spec in this stack, never a
job of another stack or project (the label is checked again on each job the API returns).
The newest is the spec's job; it is `current` if its spec-hash label is the spec's generation
as written now (else the spec changed and `pulumi up` has not run since).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from .. import pipeline
from ..cloud import jobs as api
from ..cloud.rest import CUSTOM_JOBS, TUNING_JOBS, ApiError, Client
from ..durations import human
from ..options import Options
from ..roles import BY_NAME, ON_ML, ROLES, of_pool
from ..targets import PLATFORMS
from ..tuning.model import KIND as TUNING_KIND
from .identity import IDENTITY_LABEL, SPEC_HASH_LABEL, former_stacks, identity, spec_hash
from .workspace import RENAMED_FROM, Stack

# trainspec's pool roles → each API's task-name prefix (the replica index follows), see
# compiler/cloud/emulator/logs.py for where the names come from.
TASK_PREFIXES = {
    "vertex": {r.name: f"workerpool{r.pool}-" for r in ROLES},
    "ai-platform": {r.name: f"{r.ml_task}-replica-" for r in ON_ML},
}
ROLE_ALIASES = {"master": "chief", "ps": "parameterServer", "parameter-server": "parameterServer"}
SERVICE = "service"


@dataclass
class Found:
    """One spec and the jobs of its resource in one stack, newest first."""

    result: pipeline.Result
    stack: Stack
    owner: str = ""
    generation: str = ""
    jobs: list[dict] = field(default_factory=list)
    generations: set[str] = field(default_factory=set)  # also under a former name's owner

    @property
    def name(self) -> str:
        return self.result.job.name if self.result.job else ""

    @property
    def platform(self) -> str:
        return self.result.job.platform if self.result.job else ""

    @property
    def project(self) -> str:
        return (self.result.job.project or "") if self.result.job else ""

    @property
    def job(self) -> dict | None:
        return self.jobs[0] if self.jobs else None

    @property
    def current(self) -> bool:
        """The job runs the spec as written now: its generation, or one that differs only in
        labels (a Vertex job's labels cannot change: `pulumi up` keeps new ones for its next
        run, compiler.plan), told by the labels the job carries."""
        job = self.job
        if job is None:
            return False
        labels = job.get("labels") or {}
        if labels.get(SPEC_HASH_LABEL) in (self.generations or {self.generation}):
            return True
        body, spec = self.result.body, self.result.job
        if body is None or spec is None:
            return False
        own = {k: v for k, v in labels.items() if k not in (IDENTITY_LABEL, SPEC_HASH_LABEL)}
        as_sent = {k: v for k, v in body.items() if k != "labels"}
        if own:
            as_sent["labels"] = own
        # The job's own owner: this stack's, or a former name's (`locate` keeps only those).
        owner = labels.get(IDENTITY_LABEL) or self.owner
        return labels.get(SPEC_HASH_LABEL) == spec_hash(owner, as_sent, spec.run)


def compile_for(path: str, stack: Stack, project: str | None = None,
                region: str | None = None) -> pipeline.Result:
    """The spec compiled as the stack's program compiles it."""
    options = Options(project=project or stack.config.get("gcp:project"),
                      region=region or stack.config.get("gcp:region"),
                      staging_bucket=stack.config.get("trainspec:stagingBucket"))
    return pipeline.compile_file(path, options)


def locate(result: pipeline.Result, stack: Stack, client: Client) -> Found:
    """The jobs of `result`'s resource in `stack` (the spec must have compiled)."""
    job = result.job
    assert job is not None and result.body is not None
    owner = identity(stack.organization, stack.project, stack.name, job.name)
    found = Found(result, stack, owner, spec_hash(owner, result.body, job.run))
    # A renamed stack's jobs may carry the owner label of a former name (trainspec:renamedFrom).
    owners = [owner] + [identity(*f, job.name) for f in former_stacks(
        stack.config.get(RENAMED_FROM), stack.organization, stack.project, stack.name)]
    found.generations = {spec_hash(o, result.body, job.run) for o in owners}
    listed: list[dict] = []
    for one in dict.fromkeys(owners):
        wanted = f'labels.{IDENTITY_LABEL}="{one}"'
        if job.platform == "vertex":
            collection = TUNING_JOBS if job.kind == TUNING_KIND else CUSTOM_JOBS
            listed += client.vertex_list(job.project or "", job.region or "", wanted,
                                         collection)[collection]
        else:
            listed += _ml_jobs(client, job.project or "", result.body["jobId"], wanted)
    # Whatever the server's filter did, only this resource's jobs are this spec's.
    mine = list({j.get("name"): j for j in listed
                 if (j.get("labels") or {}).get(IDENTITY_LABEL) in owners}.values())
    found.jobs = sorted(mine, key=lambda j: (j.get("createTime", ""), j.get("name", "")),
                        reverse=True)
    return found


def _ml_jobs(client: Client, project: str, job_id: str, wanted: str) -> list[dict]:
    """This resource's ml jobs: the listed ones (every run, but only of the last 90 days, [MMJ])
    and the current run's jobId read directly (jobIds are deterministic). A list filter the API
    refuses (400: labels filters on ml v1 are unverified) leaves the direct read."""
    def named(j: dict) -> dict:  # ml jobs carry no `name`: projects/P/jobs/JOB_ID
        return {**j, "name": f"projects/{project}/jobs/{j.get('jobId', '')}"}

    try:
        found = {j["name"]: j for j in map(named, client.ml_list(project, wanted)["jobs"])}
    except ApiError as exc:
        if exc.status != 400:
            raise
        found = {}
    try:
        current = named(client.ml_get(f"projects/{project}/jobs/{job_id}"))
    except ApiError as exc:
        if not exc.not_found:
            raise
    else:
        found[current["name"]] = current
    return list(found.values())


def refresh(found: Found, client: Client) -> dict:
    """The spec's job as the API shows it now (also stored in `found`)."""
    job = found.job
    assert job is not None
    if found.platform == "vertex":
        fresh = client.vertex_get(job["name"])
    else:
        fresh = {**client.ml_get(job["name"]), "name": job["name"]}
    found.jobs[0] = fresh
    return fresh


# --- what a job says ---------------------------------------------------------------------------

def parse_time(text: str | None) -> datetime.datetime | None:
    if not text:
        return None
    try:
        moment = datetime.datetime.fromisoformat(_trim_nanos(text).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.timezone.utc)


def _trim_nanos(text: str) -> str:
    # RFC 3339 from Google may carry 9 fractional digits; Python takes at most 6.
    if "." not in text:
        return text
    head, _, tail = text.partition(".")
    digits = len(tail) - len(tail.lstrip("0123456789"))
    return f"{head}.{tail[:min(digits, 6)]}{tail[digits:]}"


def duration(job: dict, now: datetime.datetime) -> float | None:
    """Seconds the job has run: start to end, or to `now` while it runs; None before it starts."""
    start = parse_time(job.get("startTime"))
    if start is None:
        return None
    end = parse_time(job.get("endTime")) or now
    return max(0.0, (end - start).total_seconds())


def human_seconds(seconds: float | None) -> str:
    return "-" if seconds is None else human(Decimal(int(seconds)))


def view(found: Found, now: datetime.datetime) -> dict[str, Any]:
    """Every field `status` shows for one spec (the JSON of `status --format json`)."""
    out: dict[str, Any] = {
        "spec": found.result.file, "name": found.name, "platform": found.platform,
        "project": found.project or None, "stack": found.stack.qualified,
        "identity": found.owner, "generation": found.generation,
        "run": found.result.job.run if found.result.job else None,
        "exists": found.job is not None,
    }
    job = found.job
    if job is None:
        return out
    name, project = job["name"], found.project
    seconds = duration(job, now)
    out.update({
        "job": name, "jobId": api.job_id(name), "state": api.short_state(job.get("state", "")),
        "apiState": job.get("state", ""), "final": api.is_final(job.get("state", "")),
        "current": found.current, "previousRuns": len(found.jobs) - 1,
        "createTime": job.get("createTime"), "startTime": job.get("startTime"),
        "endTime": job.get("endTime"), "durationSeconds": seconds,
        "duration": human_seconds(seconds), "error": api.message(job) or None,
        "consoleUrl": console_url(found, name, project),
        "logsUrl": api.logs_url(name, project),
        "webAccessUris": web_access(job), "tensorboardUrl": tensorboard(job),
        "trials": trials(job),
    })
    return out


def console_url(found: Found, name: str, project: str) -> str:
    """The page in the Cloud console of job `name`, found for `found`'s spec."""
    job = found.result.job
    assert job is not None
    return PLATFORMS[job.platform].console[job.kind](name, project)


def web_access(job: dict) -> dict[str, str]:
    """Interactive-shell / dashboard URIs per replica, when the job enabled them."""
    uris = job.get("webAccessUris") or (job.get("trainingOutput") or {}).get("webAccessUris")
    return dict(sorted(uris.items())) if isinstance(uris, dict) else {}


def tensorboard(job: dict) -> str | None:
    board = (job.get("jobSpec") or {}).get("tensorboard")
    if isinstance(board, str) and board.count("/") == 5 and "name" in job:
        return api.tensorboard_url(board, job["name"])
    return None


def trials(job: dict) -> dict[str, Any] | None:
    """A tuning job's progress: trials completed of its maximum, and the best one so far."""
    if isinstance(job.get("studySpec"), dict):
        return _vertex_trials(job)
    spec = (job.get("trainingInput") or {}).get("hyperparameters")
    if not isinstance(spec, dict):
        return None
    output = job.get("trainingOutput") or {}
    done = [t for t in output.get("trials") or [] if isinstance(t, dict)]
    scored = [t for t in done if isinstance((t.get("finalMetric") or {}).get("objectiveValue"),
                                            (int, float))]
    goal = spec.get("goal") or "MAXIMIZE"
    best = None
    if scored:
        pick = max if goal == "MAXIMIZE" else min
        top = pick(scored, key=lambda t: t["finalMetric"]["objectiveValue"])
        best = {"trialId": top.get("trialId"), "objectiveValue": top["finalMetric"]["objectiveValue"],
                "hyperparameters": top.get("hyperparameters") or {}}
    return {"completed": _int(output.get("completedTrialCount"), len(done)),
            "max": _int(spec.get("maxTrials"), None), "goal": goal,
            "metric": spec.get("hyperparameterMetricTag") or output.get("hyperparameterMetricTag"),
            "best": best}


def _vertex_trials(job: dict) -> dict[str, Any]:
    """A Vertex HyperparameterTuningJob's trials (SUCCEEDED and INFEASIBLE ones are complete);
    the best is judged on the study's first metric, as the provider's bestTrial output."""
    metric = (job["studySpec"].get("metrics") or [{}])[0]
    metric = metric if isinstance(metric, dict) else {}
    done = [t for t in job.get("trials") or [] if isinstance(t, dict)
            and t.get("state") in ("SUCCEEDED", "INFEASIBLE")]
    top = api.best_trial(job)
    best = None if top is None else {
        "trialId": top["id"], "objectiveValue": top["metrics"].get(metric.get("metricId")),
        "hyperparameters": top["parameters"]}
    return {"completed": len(done), "max": _int(job.get("maxTrialCount"), None),
            "goal": metric.get("goal"), "metric": metric.get("metricId"), "best": best}


def _int(value: Any, default: int | None) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


# --- replicas ----------------------------------------------------------------------------------

def replica_name(platform: str, task: str, job: dict | None = None) -> str:
    """A task name as trainspec calls the replica: ``chief-0``, ``worker-1``… (else as is).
    Vertex's pool 2 is the reductionServer when the job (the API's) runs its image there."""
    for role, prefix in TASK_PREFIXES.get(platform, {}).items():
        if task.startswith(prefix) and task[len(prefix):].isdigit():
            index = BY_NAME[role].pool  # an ml job has no workerPoolSpecs: its role stands
            role = of_pool(index, _pool_image(job, index)).name
            return f"{role}-{task[len(prefix):]}"
    return task or SERVICE


def _pool_image(job: dict | None, index: int) -> str | None:
    pools = ((job or {}).get("jobSpec") or {}).get("workerPoolSpecs") or []
    pool = pools[index] if isinstance(pools, list) and index < len(pools) else None
    spec = (pool or {}).get("containerSpec") if isinstance(pool, dict) else None
    return spec.get("imageUri") if isinstance(spec, dict) else None


def replica_filter(platform: str, replica: str) -> str | None:
    """The Cloud Logging filter term for `--replica` (a role, ROLE-INDEX, a task name or
    ``service``); None if `replica` names none of them."""
    prefixes = TASK_PREFIXES[platform]
    role, _, index = replica.rpartition("-") if replica[-1:].isdigit() else (replica, "", "")
    role = ROLE_ALIASES.get(role, role)
    if role in prefixes and not index:
        return f'resource.labels.task_name=~"^{prefixes[role]}[0-9]+$"'
    if role in prefixes and index.isdigit():
        return f'resource.labels.task_name="{prefixes[role]}{index}"'
    if replica == SERVICE or any(replica.startswith(p) and replica[len(p):].isdigit()
                                 for p in prefixes.values()):
        return f'resource.labels.task_name="{replica}"'
    return None


def replica_choices(platform: str) -> list[str]:
    return [*TASK_PREFIXES[platform], "ROLE-INDEX (worker-1)", SERVICE]
