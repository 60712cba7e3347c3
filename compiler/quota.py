"""Whether a project's quota can hold the jobs: what each Vertex job holds while it runs (per
project × region × quota metric, compiler/catalog/quotas.py), their sum, against each metric's
limit less what is in use now; and the text of a create the API refused on a quota.

`needs` and `check` are pure; `read` asks the APIs (compiler/cloud/quotas.py) and says so when
it cannot ("not checked"), and `run` is `trainspec quota PATH`."""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from .catalog import quotas as table
from .catalog import vertex_machines as machines
from .diagnostics import ERROR, WARNING, Diagnostic

DESCRIPTION = """Whether the projects' Vertex AI allocation quotas (GPUs, TPU cores, vCPUs per
region, on-demand or preemptible) can hold every job of the specs at once: limits and usage
read from the APIs. A spec holds no quota this knows when it is an ai-platform job or has no
project or region: a line says which were skipped and why."""
EXIT_CODES = """exit codes:
  0  every metric fits, or the quotas could not be read (one line says so)
  1  a spec does not compile, or a metric is over on a verified metric name (an error; with
     --strict, or a repo config's `severity: {quota-unverified: error}`, any metric over)
  3  a metric is over, but only on a metric name not verified from Google's docs (a warning:
     the API may count the job against another quota)"""

UNKNOWN_METRIC = "quota-unknown-metric"
OVER_CODES = ("quota", "quota-unverified")  # a metric over its free quota
EXIT_OK, EXIT_OVER, EXIT_UNVERIFIED = 0, 1, 3
PREEMPTIBLE_STRATEGIES = frozenset({"SPOT", "FLEX_START"})
# Compute Engine's predefined machine names end in their vCPU count (n2-standard-8: 8 vCPUs).
_PREDEFINED = re.compile(r"^[a-z][a-z0-9]*-(?:standard|highmem|highcpu|megamem|ultramem)-"
                         r"(\d+)$")
_VERTEX_URL = re.compile(r"/projects/([^/]+)/locations/([^/]+)/")


@dataclass(frozen=True)
class Need:
    """What one job holds of one metric while it runs, and where the spec says so."""

    project: str
    region: str
    metric: str
    amount: int
    verified: bool
    file: str
    path: str
    job: str
    source: str = ""


@dataclass
class Quota:
    """A project's limits and usage, (metric, region) → amount; `problem` says why they are
    unknown (no credentials, no network): then nothing was checked."""

    limits: dict[tuple[str, str, str], int] = field(default_factory=dict)  # project, metric, region
    usage: dict[tuple[str, str, str], int] = field(default_factory=dict)
    problem: str | None = None

    def limit(self, project: str, metric: str, region: str) -> int | None:
        """The region's own limit, else the metric's default (a bucket without a region)."""
        return self.limits.get((project, metric, region), self.limits.get((project, metric, "")))

    def used(self, project: str, metric: str, region: str) -> int:
        return self.usage.get((project, metric, region), 0)


def vcpus(machine: str | None) -> int | None:
    """A machine type's vCPUs: the shape table, else the predefined name's count."""
    shape = machines.MACHINE_SHAPES.get(machine or "")
    if shape:
        return shape[0]
    match = _PREDEFINED.match(machine or "")
    return int(match[1]) if match else None


def add_arguments(p: Any) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders (a stack)")
    p.add_argument("--stack", metavar="NAME", help="the Pulumi stack the specs deploy to "
                   "(STACK, ORG/STACK or ORG/PROJECT/STACK): its gcp:project/gcp:region are "
                   "the defaults, as for `status`, and its running jobs are known: an unchanged "
                   "spec's job is kept (in use already), a changed one's is given back")
    p.add_argument("--org", metavar="ORG", help="with --stack: the Pulumi organization (as "
                   "`status`)")


def needs(body: dict, project: str, region: str, file: str,
          origins: dict[str, str] | None = None) -> list[Need]:
    """What a Vertex request (CustomJob or HyperparameterTuningJob body) holds while it runs:
    every replica of every pool (times a tuning job's parallel trials), per metric, each at the
    spec path `origins` (body path → spec path) gives its first pool."""
    origins = origins or {}
    key = "trialJobSpec" if "trialJobSpec" in body else "jobSpec"
    spec = body.get(key) or {}
    parallel = int(body.get("parallelTrialCount") or 1) if key == "trialJobSpec" else 1
    preemptible = (spec.get("scheduling") or {}).get("strategy") in PREEMPTIBLE_STRATEGIES
    name = str(body.get("displayName") or "")
    found: dict[str, Need] = {}

    def add(row: table.Row, amount: int, path: str) -> None:
        metric = table.metric(row, preemptible)
        old = found.get(metric)
        found[metric] = Need(project, region, metric, amount + (old.amount if old else 0),
                             table.status(row, preemptible) == table.VERIFIED, file,
                             old.path if old else path, name, row.source)

    for i, pool in enumerate(spec.get("workerPoolSpecs") or []):
        machine = pool.get("machineSpec") or {}
        replicas = int(pool.get("replicaCount") or 0) * parallel
        path = origins.get(f"{key}.workerPoolSpecs[{i}]", "$.spec")
        accelerator, count = machine.get("acceleratorType"), int(machine.get("acceleratorCount")
                                                                 or 0)
        implied = machines.implied_accelerator(machine.get("machineType") or "")
        if implied and not accelerator:
            accelerator, count = implied
        row = table.ACCELERATORS.get(accelerator or "")
        if row and count and replicas:
            add(row, replicas * count, path)
        cpus = vcpus(machine.get("machineType"))
        if cpus and replicas:
            add(table.CPU_ROW, replicas * cpus, path)
    return list(found.values())


def of_result(result: Any) -> list[Need]:
    """The needs of a compiled spec (a pipeline.Result): none for an ai-platform job, or one
    that did not compile or has no project or region."""
    job = result.job
    if not result.ok or job is None or job.platform not in table.PLATFORMS \
            or not job.project or not job.region:
        return []
    return needs(result.body, job.project, job.region, result.file, result.origins)


def check(all_needs: Iterable[Need], quota: Quota, locate: Any = lambda file, path: None,
          only: list[Need] | None = None) -> list[Diagnostic]:
    """Every (project, region, metric) whose jobs together need more than its limit less its
    usage: an error on a verified metric, else a warning; a metric the project does not list
    is a warning that it was not checked. `locate(file, path)` gives a Position. `only`: report
    just the metrics these needs hold, at the first of them (one resource of a stack)."""
    groups: dict[tuple[str, str, str], list[Need]] = {}
    for need in all_needs:
        groups.setdefault((need.project, need.region, need.metric), []).append(need)
    found = []
    for (project, region, name), group in sorted(groups.items()):
        mine = [n for n in (group if only is None else only) if (n.project, n.region, n.metric) ==
                (project, region, name)]
        if not mine:
            continue
        first = mine[0]
        total = sum(n.amount for n in group)
        limit = quota.limit(project, name, region)
        at = locate(first.file, first.path)
        if limit is None:
            found.append(Diagnostic(first.path, f"{name} in {region}: project {project} lists "
                                    "no such quota, so it was not checked", WARNING, first.file,
                                    at, "the metric's name is not verified; see the console's "
                                    "Quotas page", UNKNOWN_METRIC))
            continue
        used = quota.used(project, name, region)
        if limit == table.UNLIMITED or total == 0 or total + used <= limit:
            continue
        jobs = ", ".join(dict.fromkeys(n.job for n in group))
        verified = all(n.verified for n in group)
        note = "" if verified else (f"; the metric and what it counts are not verified "
                                    f"({first.source}, compiler/catalog/quotas.py)")
        found.append(Diagnostic(
            first.path, f"{name} in {region}: the jobs need {total} at once ({jobs}) but "
            f"project {project}'s limit is {limit} with {used} in use now, so {limit - used} "
            f"free{note}", ERROR if verified else WARNING, first.file, at,
            how_to_request(project, name), "quota" + ("" if verified else "-unverified")))
    return found


def less(known: Quota, held: Iterable[Need]) -> Quota:
    """`known` with what `held` holds given back to its usage (jobs cancelled before the new
    ones are created, or kept as they are); never below zero."""
    usage = dict(known.usage)
    for n in held:
        key = (n.project, n.metric, n.region)
        if key in usage:
            usage[key] = max(0, usage[key] - n.amount)
    return Quota(known.limits, usage, known.problem)


def how_to_request(project: str | None, name: str) -> str:
    return (f"wait for running jobs to end, or request more: {table.console_url(project)} "
            f"filtered to {name} ({table.HOW_TO_REQUEST})")


def refusal_text(exc: Any, what: str, at: str) -> str:
    """A create the API refused on an allocation quota: final, never retried."""
    match = _VERTEX_URL.search(exc.url or "")
    project, region = (match[1], match[2]) if match else (None, None)
    names = exc.quota_metrics or ["(the API names none)"]
    where = f" in {region}" if region else ""
    detail = "; ".join(exc.quota_violations) or exc.message
    return (f"{at + ': ' if at else ''}{what}: quota exceeded{where}, not retried: "
            f"{', '.join(names)} (HTTP 429 RESOURCE_EXHAUSTED: {detail}); "
            + how_to_request(project, names[0]))


def read(projects: Iterable[str], client: Any = None,
         now: datetime.datetime | None = None) -> Quota:
    """The limits and usage of each project, read from the APIs; a Quota with `problem` set
    when they cannot be read (no credentials, no network, a refusal)."""
    from .cloud.errors import ApiError, ConfigError  # noqa: PLC0415 - keep start-up fast
    from .cloud.quotas import Quotas  # noqa: PLC0415

    quota = Quota()
    try:
        client = client or Quotas()
        when = now or datetime.datetime.now(datetime.timezone.utc)
        for project in sorted(set(projects)):
            limits = client.limits(project, table.SERVICE)
            if not limits:  # every real project lists them: the answer is not a project's
                quota.problem = (f"project {project} lists no {table.SERVICE} quotas by region "
                                 "(Service Usage consumerQuotaMetrics)")
                return quota
            quota.limits.update({(project, *k): v for k, v in limits.items()})
            quota.usage.update({(project, *k): v for k, v in
                                client.usage(project, table.SERVICE, when).items()})
    except (ApiError, ConfigError) as exc:
        quota.problem = " ".join(str(exc).split())
    return quota


def unchecked(problem: str) -> str:
    return f"quota not checked: {problem}"


@dataclass
class Deployed:
    """What a stack's jobs hold already: the needs of specs whose running job is the spec as
    written (`pulumi up` keeps it: its share is in the usage), and the running jobs a changed
    spec replaces (cancelled before the new one is created: their share is given back)."""

    kept: list[Need] = field(default_factory=list)
    freed: list[Need] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def deployed(found: Iterable[Any]) -> Deployed:
    """`Deployed` of each spec's jobs in its stack (compiler/jobs/track.py `Found`s)."""
    from .cloud.jobs import is_final  # noqa: PLC0415

    out = Deployed()
    for f in found:
        running = [j for j in f.jobs if not is_final(j.get("state", ""))]
        mine = of_result(f.result)
        if not running or not mine:
            continue
        if f.current:
            out.kept += mine
            out.lines.append(f"kept: {f.name}'s running job {running[0].get('name')} is the "
                             "spec as written: its share is in use already, nothing new")
            continue
        for job in running:
            out.freed += needs(job, f.project, f.result.job.region or "", f.result.file)
        out.lines.append(f"replaced: {f.name}'s running job is cancelled before its new one "
                         "is created: its share is given back")
    return out


def skipped(results: list) -> list[str]:
    """Why each spec holds no quota this check knows (an ai-platform job, no project or
    region)."""
    lines = []
    for r in results:
        job = r.job
        if job is None or not r.ok:
            continue
        if job.platform not in table.PLATFORMS:
            lines.append(f"skipped {r.file}: a {job.platform} job (its quotas are not checked)")
            continue
        missing = [k for k in ("project", "region") if not getattr(job, k)]
        if missing:
            lines.append(f"skipped {r.file}: no {' and no '.join(missing)} (set them in the "
                         "spec, pass --project/--region, or --stack NAME whose "
                         "Pulumi.NAME.yaml sets gcp:project/gcp:region)")
    return lines


def regrade(found: list[Diagnostic], strict: bool = False) -> list[Diagnostic]:
    """The repo config's ignore/severity of each diagnostic's spec and --strict applied, as
    to the spec's own diagnostics (compiler/config/apply.py)."""
    from .config import apply, load  # noqa: PLC0415

    groups: dict[str, list[Diagnostic]] = {}
    for d in found:
        groups.setdefault(d.file or "", []).append(d)
    out = []
    for file, group in groups.items():
        repo = load.find(file) if file else load.Found()
        out += [d for d in apply.apply(group, repo, {}, file, strict) if d not in repo.problems]
    return out


def run(results: list, out: TextIO, err: TextIO, *, strict: bool = False,
        stack: Deployed | None = None) -> int:
    """`trainspec quota PATH...` on compiled specs (pipeline.Results, none failed): the sum of
    what their jobs hold at once against each project's limits and usage; with the `stack`'s
    jobs, a kept job needs nothing new and a replaced one gives its share back. EXIT_CODES."""
    for line in skipped(results) + (stack.lines if stack else []):
        out.write(line + "\n")
    kept = stack.kept if stack else []
    wanted = [n for r in results for n in of_result(r) if n not in kept]
    wanted += [dataclasses.replace(n, amount=0) for n in kept]
    if not wanted:
        out.write("no Vertex job holds a quota trainspec knows: nothing to check\n")
        return EXIT_OK
    quota = read(n.project for n in wanted)
    if quota.problem:
        out.write(unchecked(quota.problem) + "\n")
        return EXIT_OK
    quota = less(quota, stack.freed) if stack else quota
    collectors = {r.file: r.document.collector() for r in results if r.document}
    problems = regrade(check(wanted, quota, lambda f, p: collectors[f].locate(p)
                             if f in collectors else None), strict)
    for d in problems:
        err.write(d.format() + "\n")
    for (project, region, name), total in sorted(_totals(wanted).items()):
        limit = quota.limit(project, name, region)
        used = quota.used(project, name, region)
        shown = "unlimited" if limit == table.UNLIMITED else "not listed" if limit is None \
            else f"{limit}"
        verdict = "" if limit is None else ": fits" if limit == table.UNLIMITED or \
            total + used <= limit or total == 0 else f": over by {total + used - limit}"
        out.write(f"{project} {region} {name}: need {total}, in use {used}, limit {shown}"
                  f"{verdict}\n")
    if not stack and any(d.code in OVER_CODES for d in problems):
        out.write("in use counts this stack's own running jobs too: pass --stack NAME to "
                  "count a deployed, unchanged spec's job as kept\n")
    if any(d.is_error for d in problems):
        return EXIT_OVER
    return EXIT_UNVERIFIED if any(d.code in OVER_CODES for d in problems) else EXIT_OK


def _totals(wanted: list[Need]) -> dict[tuple[str, str, str], int]:
    totals: dict[tuple[str, str, str], int] = {}
    for n in wanted:
        key = (n.project, n.region, n.metric)
        totals[key] = totals.get(key, 0) + n.amount
    return totals
