"""Lower the neutral model to an AI Platform Training Job request body (ml v1).

The passes before lowering are data: RESOLVE (defaults, each noted) then CHECK (pure), in
targets/ml_resolve.py and ml_check.py; `lower` is then a pure mapping to the request body.
Field reference: ml.v1 discovery document, GoogleCloudMlV1__Job / __TrainingInput /
__ReplicaConfig.
"""

from __future__ import annotations

from .. import fields
from ..model import Container, Job, Pool, PythonPackage
from ..roles import CHIEF, ON_ML
from ..tuning.model import (
    ALGORITHMS,
    GOALS,
    ML_SCALE_NONE,
    ML_TYPES,
    RANGED,
    SCALES,
    SETTINGS,
    Parameter,
    Tuning,
)
from . import ml_check, ml_resolve
from .common import compact
from .ml_check import job_id

# The create request's discovery document and schema (ml v1 projects.jobs.create).
API, SCHEMA = "ml", "GoogleCloudMlV1__Job"
# The order of the TrainingInput keys after the pools and the task (those of new rows follow).
ORDER = ("region", "jobDir", "runtimeVersion", "pythonVersion", "scheduling", "network",
         "serviceAccount", "useChiefInTfConfig", "encryptionConfig", "enableWebAccess")
# The passes between normalize and lower, in order.
RESOLVE = (ml_resolve.resolve_chief, ml_resolve.resolve_machines)
CHECK = (ml_check.check_job, ml_check.check_task, ml_check.check_tuning, ml_check.check_pools)
__all__ = ["API", "CHECK", "RESOLVE", "SCHEMA", "job_id", "lower"]


# -- lowering ------------------------------------------------------------------------------

def lower(job: Job) -> tuple[dict, dict[str, str]]:
    """The ml v1 Job body (with jobId) and its origins (body path → spec JSON path)."""
    origins: dict[str, str] = {"jobId": "$.metadata.name"}
    tin: dict = {}
    tier = job.ai_platform.get("scaleTier")
    tin["scaleTier"] = "CUSTOM" if job.pools else (tier or "BASIC")
    chief = job.pools.get(CHIEF.name) or job.spec_chief
    chief_task = chief.task if chief else None
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
    for role in ON_ML:
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
