"""`explain`: a human-readable summary of a compiled spec and the defaults applied."""

from __future__ import annotations

from . import cost, fields
from .catalog import accelerators
from .catalog.extension import NONE as NO_EXTENSION
from .catalog.extension import Extension
from .config.plaintext import spec_secrets
from .diagnostics import printable
from .durations import human
from .model import Container, Job, Pool, PythonPackage
from .pipeline import Result
from .roles import BY_NAME
from .secrets.scan import redact_text
from .targets import PLATFORMS
from .tuning.model import KIND as TUNING_KIND
from .tuning.model import summary


def endpoint(job: Job) -> str:
    """The create request's method and URL, with placeholders for what is unknown."""
    return PLATFORMS[job.platform].endpoint[job.kind].format(
        project=job.project or "{project}", region=job.region or "{region}")


def render(result: Result) -> str:
    job = result.job
    assert job is not None and result.body is not None
    lines = [f"{job.name}  ({job.file})"]
    if job.description:
        lines.append(f"  {job.description}")
    platform = PLATFORMS[job.platform]
    lines.append(f"  platform   {job.platform}" + (
        f"  (jobId {platform.job_id(job.name, job.run)})" if platform.job_id else ""))
    if job.kind == TUNING_KIND:
        lines.append("  kind       HyperparameterTuningJob" + (
            f" ({platform.tuning_field})" if platform.tuning_field else ""))
    if job.run is not None:
        lines.append(f"  run        {job.run}  (metadata.run: change it to run this spec again)")
    lines.append(f"  project    {job.project or '(not set: --project or gcp:project)'}")
    lines.append(f"  region     {job.region or '(not set: region checks skipped)'}")
    lines.append(f"  request    {endpoint(job)}")
    if job.labels:
        lines.append("  labels     " + ", ".join(f"{k}={v}" for k, v in job.labels.items()))
    tier = result.body.get("trainingInput", {}).get("scaleTier")
    if tier and tier != "CUSTOM":
        lines.append(f"  scale tier {tier}")
    if job.pools:
        lines.append("  pools" + (" (of every trial)" if job.kind == TUNING_KIND else ""))
    for pool in job.pools.values():
        lines += _pool(job, pool)
    lines += _settings(job)
    lines += ["  " + line for line in cost.lines(cost.estimate(job, tier))]
    for item in result.uploads:
        p = item.package
        lines.append(f"  package    {p.source} → {item.uri}")
        lines.append(f"             {p.name} {p.version}, {p.files} files, {p.size} bytes; "
                     "pulumi up uploads it (its name is its content hash)")
    if job.tuning is not None:
        lines.append("  tuning")
        lines += [f"    {line}" for line in summary(job.tuning)]
    marked = marks(job)
    if marked:
        lines.append("  from the repo config (not in trainspec's catalog, sent as written)")
        lines += [f"    - {m}" for m in marked]
    if job.notes:
        lines.append("  defaults applied")
        lines += [f"    - {n}" for n in job.notes]
    warnings = [d for d in result.diagnostics if not d.is_error]
    if warnings:
        lines.append("  warnings")
        lines += [f"    - {d.path}: {d.message}" for d in warnings]
    # The spec's secrets (what plaintext-secret flags) and any token are never printed: a
    # description, a name, an image or an argument is the user's.
    data = result.document.data if result.document is not None else None
    literals = spec_secrets(data) if data is not None else ()
    return "".join(printable(redact_text(line, literals, pairs=False)) + "\n"
                   for line in lines)  # descriptions, keys: one line each


def _pool(job: Job, pool: Pool) -> list[str]:
    title = BY_NAME[pool.role].title(job.platform)
    machine = pool.machine_type or "?"
    hw = f"{pool.replicas} × {machine}"
    if pool.accelerator_type:
        hw += f" + {pool.accelerator_count} × {accelerators.short_name(pool.accelerator_type)}"
    if pool.tpu_topology:
        hw += f" (TPU topology {pool.tpu_topology})"
    platform = PLATFORMS[job.platform]
    default_disk = platform.boot_disk(machine)
    disk = (f"{pool.disk_type or default_disk + ' (default)'}, "
            f"{pool.disk_size_gb or '100 (default)'} GB")
    out = [f"    {title:<26} {hw}", f"    {'':<26} boot disk {disk}"]
    task = pool.task
    if isinstance(task, Container):
        run = f"container {task.image}"
        if task.command:
            run += "  command: " + " ".join(task.command)
        if task.args:
            run += f"  ({len(task.args)} args)"
        out.append(f"    {'':<26} {run}")
    elif isinstance(task, PythonPackage):
        out.append(f"    {'':<26} python -m {task.module}  ({len(task.packages)} package(s), "
                   f"{len(task.args)} args)")
        out.append(f"    {'':<26} {platform.python_runtime(task)}")
    if pool.env:
        shown = ", ".join(f"{e.name}=<secret>" if e.secret else e.name for e in pool.env)
        out.append(f"    {'':<26} env {shown}")
    return out


def _settings(job: Job) -> list[str]:
    """The simple fields explain shows (fields.ROWS with an explain label): the scheduling
    ones on one line, the others one per line."""
    parts, lines = [], []
    for row in fields.JOB_ROWS:
        value = job.get(row)
        if row is fields.TIMEOUT_ROW and value is None:
            parts.append("timeout 7d (API default)")
        if row.explain is None or value is None:
            continue
        shown = human(value) if row.codec.name == "duration" else value
        if row.spec.startswith("scheduling."):
            parts.append(f"{row.explain} {shown}")
        else:
            lines.append(f"  {row.explain:<10} {shown}")
    return ["  scheduling " + ", ".join(parts)] + lines


def marks(job: Job) -> list[str]:
    """`path: value (key in config)` for each value the catalog alone would refuse."""
    ext: Extension = job.extension
    if ext == NO_EXTENSION:
        return []
    platform = PLATFORMS[job.platform]
    found = []
    if ext.has_region(job.region) and job.region not in platform.regions:
        found.append(f"$.spec.region: {job.region} (extraRegions in {ext.source})")
    for pool in job.pools.values():
        machine, accel = pool.machine_type, pool.accelerator_type
        if ext.has_machine(machine) and not platform.known_machine(machine or ""):
            found.append(f"{pool.path}.machineType: {machine} (extraMachineTypes in "
                         f"{ext.source})")
        if accel and ext.has_accelerator(accel) and (
                (platform.accelerators is not None and accel not in platform.accelerators)
                or not platform.in_region(job.region or "", accel, pool.accelerator_count)):
            found.append(f"{pool.path}.accelerator.type: {accel} in {job.region} "
                         f"(extraAccelerators in {ext.source})")
    return found
