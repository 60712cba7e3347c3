"""Lower the neutral model to a Vertex AI CustomJob request body (aiplatform v1), or for a
tuning job a HyperparameterTuningJob whose trialJobSpec is that CustomJob's jobSpec.

The passes before lowering are data: RESOLVE (defaults, each noted) then CHECK (pure), in
targets/vertex_resolve.py and vertex_check.py; `lower` is then a pure mapping to the request body.
Field reference: aiplatform.v1 discovery document, GoogleCloudAiplatformV1CustomJob and
GoogleCloudAiplatformV1HyperparameterTuningJob.
"""

from __future__ import annotations

from .. import durations, fields
from ..model import Container, Job, Pool, PythonPackage
from ..roles import BY_NAME, ROLES
from ..tuning.model import (
    ALGORITHMS,
    CONVEX_INT64,
    DEFAULT_STOPPING_RULE,
    GOALS,
    KIND,
    MEASUREMENTS,
    PARENT_VALUES,
    SCALES,
    SETTINGS,
    STOPPING_RULES,
    STUDY_STOPPING,
    VALUE_SPECS,
    Parameter,
    Tuning,
)
from . import vertex_check, vertex_resolve
from .common import compact
from .vertex_check import FLEX_START_GPUS as FLEX_START_GPUS  # the testing kit's import

# The create requests' discovery document and schemas (aiplatform v1 customJobs.create,
# hyperparameterTuningJobs.create).
API, SCHEMA = "aiplatform", "GoogleCloudAiplatformV1CustomJob"
TUNING_SCHEMA = "GoogleCloudAiplatformV1HyperparameterTuningJob"

# The passes between normalize and lower, in order.
RESOLVE = (vertex_resolve.resolve_chief, vertex_resolve.resolve_machines,
           vertex_resolve.resolve_executors, vertex_resolve.resolve_stopping)
CHECK = (vertex_check.check_job, vertex_check.check_pools, vertex_check.check_scheduling,
         vertex_check.check_tuning)


# -- lowering ------------------------------------------------------------------------------

def lower(job: Job) -> tuple[dict, dict[str, str]]:
    """The CustomJob (or HyperparameterTuningJob) body and its origins (body path → spec path)."""
    body, origins = _custom_job(job)
    if job.kind == KIND and job.tuning is not None:
        return _tuning_job(job.tuning, body, origins)
    return body, origins


def _tuning_job(t: Tuning, custom: dict, custom_origins: dict[str, str]) \
        -> tuple[dict, dict[str, str]]:
    """The HyperparameterTuningJob running the CustomJob `custom`'s jobSpec in every trial."""
    body: dict = {"displayName": custom["displayName"]}
    if "labels" in custom:
        body["labels"] = custom["labels"]
    body["studySpec"] = study_spec(t)
    body.update(compact({SETTINGS[s][2]: getattr(t, s)
                         for s in ("max_trials", "parallel_trials", "max_failed_trials")}))
    body["trialJobSpec"] = custom["jobSpec"]
    if "encryptionSpec" in custom:
        body["encryptionSpec"] = custom["encryptionSpec"]
    origins = {"trialJobSpec" + k[len("jobSpec"):] if k.startswith("jobSpec") else k: v
               for k, v in custom_origins.items()}
    if t.study_stopping:
        origins["studySpec.studyStoppingConfig"] = t.at("study_stopping")
    origins.update({"studySpec": t.path, "studySpec.metrics": f"{t.path}.metrics",
                    **{f"studySpec.parameters[{i}]": p.path for i, p in enumerate(t.parameters)},
                    **{SETTINGS[s][2]: t.at(s) for s in ("max_trials", "parallel_trials",
                                                          "max_failed_trials")}})
    return body, origins


def study_spec(t: Tuning) -> dict:
    """The StudySpec of a search: metrics, parameters, then the optional settings."""
    spec: dict = {"metrics": [{"metricId": m.id, "goal": GOALS.get(m.goal or "maximize")}
                              for m in t.metrics],
                  "parameters": [_parameter_spec(p) for p in t.parameters]}
    if ALGORITHMS.get(t.algorithm or "bayesian"):
        spec["algorithm"] = ALGORITHMS[t.algorithm or "bayesian"]
    if t.measurement:
        spec["measurementSelectionType"] = MEASUREMENTS[t.measurement]
    rule = t.stopping or ((DEFAULT_STOPPING_RULE, {}) if t.early_stopping else None)
    if rule is not None:
        spec[STOPPING_RULES[rule[0]]] = {k: str(v) if k in CONVEX_INT64 else v
                                         for k, v in rule[1].items()}
    if t.study_stopping:
        spec["studyStoppingConfig"] = study_stopping_config(t.study_stopping)
    return spec


def study_stopping_config(settings: dict) -> dict:
    """studySpec.studyStoppingConfig of spec.tuning.studyStopping (STUDY_STOPPING's rows)."""
    out: dict = {}
    for key, value in settings.items():
        field, kind = STUDY_STOPPING[key]
        parent, _, leaf = field.rpartition(".")
        into = out.setdefault(parent, {}) if parent else out
        into[leaf] = durations.to_google(value) if kind == "duration" else value
    return out


def _parameter_spec(p: Parameter) -> dict:
    out: dict = {"parameterId": p.id}
    if p.kind == "double":
        out[VALUE_SPECS["double"]] = {"minValue": p.low, "maxValue": p.high}
    elif p.kind == "integer":  # int64: a decimal string
        out[VALUE_SPECS["integer"]] = {"minValue": str(int(p.low)), "maxValue": str(int(p.high))}
    elif p.kind in VALUE_SPECS:
        out[VALUE_SPECS[p.kind]] = {"values": list(p.values)}
    if p.scale in SCALES:
        out["scaleType"] = SCALES[p.scale]
    if p.conditions and p.kind in PARENT_VALUES:
        out["conditionalParameterSpecs"] = [
            {"parameterSpec": _parameter_spec(q), PARENT_VALUES[p.kind]: {
                "values": [str(v) for v in cond.values] if p.kind == "integer"
                else list(cond.values)}}
            for cond in p.conditions for q in cond.parameters]
    return out


def _custom_job(job: Job) -> tuple[dict, dict[str, str]]:
    """The CustomJob body and its origins (body path → spec JSON path)."""
    origins: dict[str, str] = {}
    pools = []
    for role in ROLES:
        if role.name in job.pools:
            while len(pools) < role.pool:
                pools.append({})
            pools.append(_pool(job.pools[role.name], f"jobSpec.workerPoolSpecs[{role.pool}]",
                               origins))
    body: dict = {"displayName": job.name}
    origins["displayName"] = "$.metadata.name"
    if job.labels:
        body["labels"] = dict(job.labels)
        origins["labels"] = "$.metadata.labels"
    body["jobSpec"] = {"workerPoolSpecs": pools}
    for row, at in fields.lower(fields.VERTEX, job.get, body):
        key, spec_path = fields.origin(row, at)
        origins[key] = spec_path
    return body, origins


def _pool(pool: Pool, at: str, origins: dict[str, str]) -> dict:
    machine = compact({
        "machineType": pool.machine_type,
        "acceleratorType": pool.accelerator_type,
        "acceleratorCount": pool.accelerator_count if pool.accelerator_type else None,
    })
    out: dict = {"machineSpec": machine, "replicaCount": str(pool.replicas)}
    disk = compact({"bootDiskType": pool.disk_type, "bootDiskSizeGb": pool.disk_size_gb})
    if disk:
        out["diskSpec"] = disk
    task = pool.task
    env = [{"name": e.name, "value": e.payload_value} for e in pool.env]
    if isinstance(task, Container):
        out["containerSpec"] = compact({"imageUri": task.image, "command": list(task.command),
                                         "args": list(task.args), "env": env})
    elif isinstance(task, PythonPackage):
        out["pythonPackageSpec"] = compact({
            "executorImageUri": task.executor_image, "packageUris": list(task.packages),
            "pythonModule": task.module, "args": list(task.args), "env": env})
    fields.lower(fields.VERTEX, lambda r: getattr(pool, r.attr), out, fields.POOL_ROWS)
    p = pool.path
    origins.update({at: p, f"{at}.machineSpec": p, f"{at}.machineSpec.machineType": f"{p}.machineType",
                    f"{at}.machineSpec.acceleratorType": f"{p}.accelerator.type",
                    f"{at}.machineSpec.acceleratorCount": f"{p}.accelerator.count",
                    f"{at}.replicaCount": f"{p}.replicas", f"{at}.diskSpec": f"{p}.disk",
                    f"{at}.containerSpec": f"{p}.container" if pool.overrides else
                    p if BY_NAME[pool.role].image else "$.spec.container",
                    f"{at}.pythonPackageSpec": f"{p}.python" if pool.overrides else "$.spec.python"})
    return out
