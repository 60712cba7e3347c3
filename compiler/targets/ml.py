"""Lower the neutral model to an AI Platform Training Job request body (ml v1).

Field reference: ml.v1 discovery document, GoogleCloudMlV1__Job / __TrainingInput /
__ReplicaConfig. What this API cannot express is a named error, never dropped.
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal

from .. import fields, tuning_rules
from ..catalog import accelerators, images, machines, regions
from ..diagnostics import Collector
from ..durations import to_google
from ..model import Container, Job, Pool, PythonPackage
from ..roles import CHIEF, ROLES
from ..schemas import did_you_mean
from ..tuning import ALGORITHMS, GOALS, ML_SCALE_NONE, ML_TYPES, RANGED, SCALES, SETTINGS, Parameter, Tuning
from . import compact

# The create request's discovery document and schema (ml v1 projects.jobs.create).
API, SCHEMA = "ml", "GoogleCloudMlV1__Job"
MIN_MAX_WAIT = Decimal(1800)  # [DD-ML] Scheduling.maxWaitTime: "minimum 1800s"
JOB_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,127}$")  # [MMJ] naming rules
# The order of the TrainingInput keys after the pools and the task (those of new rows follow).
ORDER = ("region", "jobDir", "runtimeVersion", "pythonVersion", "scheduling", "network",
         "serviceAccount", "useChiefInTfConfig", "encryptionConfig", "enableWebAccess")


RUN_SUFFIX = "_run_"


def job_id(name: str, run: str | None = None) -> str:
    """The ml v1 jobId of a spec: its name with '-' → '_' (stable for the same spec), and
    ``_run_<run>`` for a `metadata.run`: a jobId is never reused, so each run needs its own."""
    base = name.replace("-", "_")
    return base if run is None else f"{base}{RUN_SUFFIX}{run.replace('-', '_')}"


def check(job: Job, c: Collector, today: datetime.date) -> None:
    """Apply AI Platform defaults to `job` and report what the ml v1 API refuses."""
    del today  # runtime versions are checked against the table, not the date
    if not JOB_ID.match(job_id(job.name)):
        c.error("$.metadata.name", f"{job_id(job.name)!r} is not a valid AI Platform jobId",
                "letters, digits and '_', starting with a letter, at most 128")
    elif job.run is not None and not JOB_ID.match(job_id(job.name, job.run)):
        c.error("$.metadata.run", f"the jobId of this run, {job_id(job.name, job.run)!r}, is "
                "not a valid AI Platform jobId", "at most 128 characters in all: shorten "
                "metadata.name or metadata.run")
    if not job.region:
        c.error("$.spec.region", "ai-platform needs a region",
                "set spec.region, or pass --region / set gcp:region")
    elif job.region not in regions.ML_TRAINING_REGIONS:
        # The legacy region list is an old snapshot (◐, facts §B.8): a warning, never a refusal.
        hint = did_you_mean(job.region, sorted(regions.ML_TRAINING_REGIONS))
        c.warning("$.spec.region", f"{job.region!r} is not in the AI Platform Training region "
                  "list trainspec knows (an old, partial list)", hint)
    env_at = (["$.spec.env"] if job.env else []) + [
        f"{p.path}.env" for p in job.pools.values() if p.env_overridden]
    for path in env_at:
        c.error(path, "ai-platform has no environment variables",
                "env is vertex only; pass settings as args")
    for row, message in fields.refusals(fields.ML, job.get):
        c.error(row.path, message)
    max_wait = job.get(fields.MAX_WAIT)
    if max_wait is not None and max_wait < MIN_MAX_WAIT:
        c.error("$.spec.scheduling.maxWait", f"ai-platform needs maxWait of at least 30m (1800s), "
                f"not {to_google(max_wait)}")
    tier = job.ai_platform.get("scaleTier")
    if job.pools and tier not in (None, "CUSTOM"):
        c.error("$.spec.aiPlatform.scaleTier", f"scaleTier {tier} with pools: pools mean CUSTOM",
                "remove scaleTier or the pools")
    if not job.pools and tier is None:
        job.note("$.spec.aiPlatform.scaleTier", "BASIC (the API default when no pools are given)")
    if not job.pools and tier == "CUSTOM":
        job.pools[CHIEF.name] = job.implicit_pool("$.spec")
        job.note(f"$.spec.pools.{CHIEF.name}", f"one {CHIEF.ml_name} replica (scaleTier CUSTOM, "
                 "no pools given)")
    if not job.pools and tier == "BASIC_GPU":
        # BASIC_GPU = one K80 comes from older docs (◐, facts §B.3): a warning.
        c.warning("$.spec.aiPlatform.scaleTier", "scaleTier BASIC_GPU ran on a K80 GPU (older "
                  "docs), which is retired: the job will likely fail",
                  "write a chief pool with a T4 or V100 instead")
    _check_task(job, c)
    if job.tuning is not None:
        tuning_rules.check(job.tuning, c)
        tuning_rules.inexpressible(job.tuning, "ai-platform", c)
    legacy_names = {p.role for p in job.pools.values()
                    if machines.is_ml_legacy_name(p.machine_type or "") and p.machine_type != "cloud_tpu"}
    mixable = {p.role for p in job.pools.values() if p.machine_type == "cloud_tpu"}
    for pool in job.pools.values():
        _check_pool(job, pool, c, bool(legacy_names))
    if legacy_names and len(legacy_names) + len(mixable) != len(job.pools):
        c.error("$.spec.pools", "mixes AI Platform legacy machine names with Compute Engine types",
                "the ml v1 API needs every pool of one kind; only cloud_tpu workers may differ")


def _check_task(job: Job, c: Collector) -> None:
    kinds = {type(p.task) for p in job.pools.values() if p.task is not None}
    if len(kinds) > 1:
        c.error("$.spec.pools", "ai-platform runs one kind of task: all pools use a container, "
                "or all the Python package")
    for pool in job.pools.values():
        if isinstance(pool.task, PythonPackage) and pool.overrides:
            c.error(f"{pool.path}.python", "ai-platform runs one Python package for all replicas: "
                    "set it in spec.python")
    task = job.python if job.python else None
    if task is None:
        chief = job.pools.get(CHIEF.name)
        task = chief.task if chief and isinstance(chief.task, PythonPackage) else None
    if task is not None:
        if task.executor_image:
            c.warning("$.spec.python.executorImage", "not sent on ai-platform, which runs "
                      "python.runtimeVersion instead (executorImage is vertex only)")
        if not task.runtime_version:
            c.error("$.spec.python", "ai-platform needs python.runtimeVersion",
                    "e.g. runtimeVersion: \"2.11\", pythonVersion: \"3.7\"")
        elif not task.python_version:
            # [DD-ML] says "must specify", yet gcloud sends none without --python-version and
            # the service picks one: not certain enough to refuse.
            c.warning("$.spec.python", "no python.pythonVersion: the service picks the runtime's "
                      "default (gcloud sends none without --python-version)",
                      "set pythonVersion, e.g. \"3.7\" for runtime 1.15 and later")
        else:
            known, problems = images.check_runtime_python(task.runtime_version,
                                                          task.python_version)
            for message in problems:
                (c.error if known else c.warning)("$.spec.python.pythonVersion" if known
                                                  else "$.spec.python.runtimeVersion", message)


def _check_pool(job: Job, pool: Pool, c: Collector, legacy_kind: bool) -> None:
    p = f"$.spec.pools.{pool.role}"
    for row, message in fields.refusals(fields.ML, lambda r: getattr(pool, r.attr),
                                        fields.POOL_ROWS):
        c.error(f"{p}.{row.spec}", message)
    if pool.disk_type and pool.disk_type not in machines.BOOT_DISK_TYPES_ML:
        c.error(f"{p}.disk.type", f"{pool.disk_type!r} is not an AI Platform boot disk type",
                "pd-ssd or pd-standard")
    if pool.accelerator_type in accelerators.RETIRED_ML:
        c.error(f"{p}.accelerator.type", accelerators.RETIRED_ML[pool.accelerator_type])
        return
    # Legacy names such as standard_gpu name a service class, not hardware we can verify (their
    # K80 comes from old descriptions), so they compile as written; BASIC_GPU's K80 is refused
    # above because its failure is on record (fmltc issue #318, corpus 042).
    if pool.accelerator_type and pool.accelerator_type not in accelerators.ML_TYPES:
        c.error(f"{p}.accelerator.type", f"{pool.accelerator_type} is not available on ai-platform")
        return
    if pool.machine_type is None:
        if pool.accelerator_type:
            pick = machines.smallest_ml_machine(pool.accelerator_type, pool.accelerator_count or 1)
        else:
            pick = "standard" if legacy_kind else "n1-standard-4"
        if pick is None:
            c.error(f"{p}.accelerator", f"no AI Platform machine takes {pool.accelerator_count} × "
                    f"{pool.accelerator_type}")
            return
        pool.machine_type = pick
        job.note(f"{p}.machineType", f"{pick} (smallest machine for this pool)")
    verified = machines.check_ml_verified(pool.machine_type, pool.accelerator_type,
                                          pool.accelerator_count)
    for message in machines.check_ml(pool.machine_type, pool.accelerator_type,
                                     pool.accelerator_count):
        # The legacy machine and GPU tables are ◐/❌ (facts §B.5): warnings.
        (c.error if message in verified else c.warning)(f"{p}.machineType", message)
    if job.region and pool.accelerator_type and not regions.ml_accelerator_in_region(
            job.region, pool.accelerator_type):
        # Legacy accelerators by region: caliban's 2020 copy (◐, facts §B.8).
        c.warning(f"{p}.accelerator.type", f"{pool.accelerator_type} was not offered for AI "
                  f"Platform training in {job.region} (per an old, partial table)")


# -- lowering ------------------------------------------------------------------------------

def lower(job: Job) -> tuple[dict, dict[str, str]]:
    """The ml v1 Job body (with jobId) and its origins (body path → spec JSON path)."""
    origins: dict[str, str] = {"jobId": "$.metadata.name"}
    tin: dict = {}
    tier = job.ai_platform.get("scaleTier")
    tin["scaleTier"] = "CUSTOM" if job.pools else (tier or "BASIC")
    chief = job.pools.get(CHIEF.name)
    chief_task = chief.task if chief else (job.container or job.python)
    # containerCommand/containerArgs exclude TrainingInput.args ([DD-ML] ReplicaConfig): when a
    # command is set, or pools' args differ, every role carries its own containerArgs.
    pooled_args = any("args" in p.overrides for p in job.pools.values()) or any(
        isinstance(p.task, Container) and p.task.command for p in job.pools.values()) or (
        not job.pools and isinstance(chief_task, Container) and bool(chief_task.command))
    if not job.pools and isinstance(chief_task, Container):
        # A scale tier job running a custom container: the master's config carries the image.
        tin[CHIEF.ml_config] = compact({
            "imageUri": chief_task.image, "containerCommand": list(chief_task.command),
            "containerArgs": list(chief_task.args) if pooled_args else []})
        origins[f"trainingInput.{CHIEF.ml_config}"] = "$.spec.container"
    for role in ROLES:
        pool = job.pools.get(role.name)
        if pool is None:
            continue
        tin[role.ml_type] = pool.machine_type
        origins[f"trainingInput.{role.ml_type}"] = f"{pool.path}.machineType"
        if role.ml_count:
            tin[role.ml_count] = str(pool.replicas)
            origins[f"trainingInput.{role.ml_count}"] = f"{pool.path}.replicas"
        config = _config(pool, chief_task, pooled_args)
        if config:
            tin[role.ml_config] = config
            origins[f"trainingInput.{role.ml_config}"] = pool.path
    task = chief_task
    if isinstance(task, PythonPackage):
        tin.update(compact({"packageUris": list(task.packages), "pythonModule": task.module,
                             "args": list(task.args)}))
        origins["trainingInput.packageUris"] = "$.spec.python.packages"
    elif isinstance(task, Container) and not pooled_args and task.args:
        tin["args"] = list(task.args)
    if job.tuning is not None:
        tin["hyperparameters"] = hyperparameters(job.tuning)
        origins["trainingInput.hyperparameters"] = job.tuning.path
    head = len(tin)
    tin["region"] = job.region
    origins["trainingInput.region"] = "$.spec.region"
    if isinstance(task, PythonPackage):
        tin.update(compact({"runtimeVersion": task.runtime_version,
                             "pythonVersion": task.python_version}))
    body: dict = {"jobId": job_id(job.name, job.run)}
    if job.labels:
        body["labels"] = dict(job.labels)
        origins["labels"] = "$.metadata.labels"
    body["trainingInput"] = tin
    for row, at in fields.lower(fields.ML, job.get, body):
        key, spec_path = fields.origin(row, at)
        origins[key] = spec_path
    tail = sorted(list(tin.items())[head:], key=lambda kv: ORDER.index(kv[0])
                  if kv[0] in ORDER else len(ORDER))
    body["trainingInput"] = dict(list(tin.items())[:head] + tail)
    return body, origins


def _config(pool: Pool, chief_task, pooled_args: bool) -> dict:
    out: dict = {}
    if pool.accelerator_type:
        out["acceleratorConfig"] = {"count": str(pool.accelerator_count or 1),
                                    "type": pool.accelerator_type}
    task = pool.task
    if isinstance(task, Container):
        chief_image = chief_task.image if isinstance(chief_task, Container) else None
        # Other roles inherit masterConfig.imageUri ([DD-ML] ReplicaConfig.imageUri).
        if pool.role == CHIEF.name or task.image != chief_image:
            out["imageUri"] = task.image
        if task.command:
            out["containerCommand"] = list(task.command)
        if pooled_args and task.args:
            out["containerArgs"] = list(task.args)
    disk = compact({"bootDiskType": pool.disk_type, "bootDiskSizeGb": pool.disk_size_gb})
    if disk:
        out["diskConfig"] = disk
    fields.lower(fields.ML, lambda r: getattr(pool, r.attr), out, fields.POOL_ROWS)
    return out


def hyperparameters(t: Tuning) -> dict:
    """The ml v1 HyperparameterSpec of a search (one metric: checked by `check`)."""
    metric = t.metrics[0] if t.metrics else None
    out = compact({"goal": GOALS.get(metric.goal) if metric and metric.goal else None,
                   "hyperparameterMetricTag": metric.id if metric else None})
    values = {"algorithm": ALGORITHMS.get(t.algorithm) if t.algorithm else None,
              "early_stopping": t.early_stopping}
    for setting, (_, field, _) in SETTINGS.items():
        value = values[setting] if setting in values else getattr(t, setting)
        if field is not None and value is not None:
            out[field] = value
    out["params"] = [_parameter(p) for p in t.parameters]
    return out


def _parameter(p: Parameter) -> dict:
    out: dict = {"parameterName": p.id, "type": ML_TYPES.get(p.kind or "", "")}
    if p.kind in RANGED:
        whole = p.kind == "integer"
        out.update(compact({"minValue": _whole(p.low) if whole else p.low,
                            "maxValue": _whole(p.high) if whole else p.high}))
    elif p.kind == "categorical":
        out["categoricalValues"] = list(p.values)
    elif p.kind == "discrete":
        out["discreteValues"] = list(p.values)
    if p.scale is not None:
        out["scaleType"] = "NONE" if p.scale == ML_SCALE_NONE else SCALES[p.scale]
    return out


def _whole(value: object) -> object:
    """An integer parameter's bound as an integer (2.0 → 2: the same double on the wire)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value
