"""Vertex's check passes: what Vertex refuses of a resolved job. Pure: they report, and never
change the job (tests/test_stages.py).

Field reference: aiplatform.v1 discovery document, GoogleCloudAiplatformV1CustomJob and
GoogleCloudAiplatformV1HyperparameterTuningJob.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

import yaml

from .. import fields
from ..catalog import accelerators, documented, images, machines, regions
from ..diagnostics import Collector
from ..durations import human
from ..model import Container, Job, Pool, PythonPackage
from ..roles import PARAMETER_SERVER, REDUCTION_SERVER, is_reduction_server_image
from ..rules import Problem
from ..schema.validate import did_you_mean
from ..tuning import rules as tuning_rules
from ..tuning.model import (
    DEFAULT_STOPPING_RULE,
    DISCRETE_GAP,
    KIND,
    SETTINGS,
    STOPPING_RULES,
    Tuning,
    to_spec,
)
from .vertex_resolve import python_path

SEVEN_DAYS = Decimal(7 * 86400)
# [DWS] GPUs that Dynamic Workload Scheduler (FLEX_START) can provision.
FLEX_START_GPUS = frozenset({"NVIDIA_L4", "NVIDIA_TESLA_A100", "NVIDIA_A100_80GB", "NVIDIA_H100_80GB",
                             "NVIDIA_H100_MEGA_80GB", "NVIDIA_H200_141GB", "NVIDIA_B200"})
# The legacy search (spec.aiPlatform.hyperparameters) has no place in a Vertex CustomJob.
_HYPERPARAMETERS = "hyperparameter tuning is a separate Vertex resource (HyperparameterTuningJob)"


def check_job(job: Job, c: Collector, today: datetime.date) -> None:
    """What Vertex refuses of the job as a whole: fields it has no place for, the region."""
    _check_ai_platform_keys(job, c)
    if job.vertex.get("tensorboard") and not job.get(fields.SERVICE_ACCOUNT):
        c.warning("$.spec.vertex.tensorboard", "Vertex TensorBoard needs a serviceAccount that "
                  "can write to it", "set spec.serviceAccount", code="tensorboard-service-account")
    for row, message in fields.refusals(fields.VERTEX, job.get):
        c.error(row.path, message, code=fields.REFUSAL_CODE[fields.VERTEX])
    if job.region and job.region not in regions.VERTEX_TRAINING_REGIONS \
            and not job.extension.has_region(job.region):
        hint = job.extension.hint("extraRegions", did_you_mean(
            job.region, sorted(regions.VERTEX_TRAINING_REGIONS)))
        c.error("$.spec.region", f"{job.region!r} is not a Vertex AI training region", hint,
                code="vertex-region")


def check_pools(job: Job, c: Collector, today: datetime.date) -> None:
    for pool in job.pools.values():
        _check_pool(job, pool, c, today)
        _check_documented(job, pool, c)
        _check_reduction_server(pool, c)


def _check_reduction_server(pool: Pool, c: Collector) -> None:
    """Pool 2 running the reduction-server image but written as a parameterServer; GPUs on the
    reduction server. No current page lists its machine types, and its "no GPUs" (facts §A.4)
    reads as guidance, not a refusal the API states: warnings only."""
    image = pool.task.image if isinstance(pool.task, Container) else None
    if pool.role == PARAMETER_SERVER.name and is_reduction_server_image(image):
        c.warning(f"{pool.path}.container.image" if "image" in pool.overrides else pool.path,
                  "this parameterServer pool runs the reduction-server image: it is a reduction "
                  "server", f"name the pool '{REDUCTION_SERVER.name}': the same Vertex pool "
                  f"{REDUCTION_SERVER.pool}, and local-run and explain treat it as one",
                  code="reduction-server-pool")
    if pool.role == REDUCTION_SERVER.name and pool.accelerator_type:
        implied = machines.implied_accelerator(pool.machine_type) if pool.machine_type else None
        by_machine = implied is not None and implied[0] == pool.accelerator_type
        c.warning(f"{pool.path}.machineType" if by_machine else f"{pool.path}.accelerator",
                  f"{pool.accelerator_type} on the reduction server, whose reducers use no GPUs",
                  "Google's examples use a CPU machine such as n1-highcpu-16",
                  code="reduction-server-accelerator")


def check_scheduling(job: Job, c: Collector, today: datetime.date) -> None:
    _check_scheduling(job, c)
    psc = job.vertex.get("pscInterfaceConfig")
    peers = psc.get("dnsPeeringConfigs") if isinstance(psc, dict) else None
    for i, peer in enumerate(peers if isinstance(peers, list) else ()):
        if isinstance(peer, dict):
            c.report(f"$.spec.vertex.pscInterfaceConfig.dnsPeeringConfigs[{i}].domain",
                     documented.check_dns_domain(peer.get("domain")))


def check_tuning(job: Job, c: Collector, today: datetime.date) -> None:
    if job.kind == KIND and job.tuning is not None:
        _check_tuning(job.tuning, c)


def _check_ai_platform_keys(job: Job, c: Collector) -> None:
    # A tuning job's search is spec.tuning: its aiPlatform.hyperparameters is refused as such
    # by normalize.
    if "hyperparameters" in job.ai_platform and job.kind != KIND:
        c.error("$.spec.aiPlatform.hyperparameters", f"cannot be expressed on vertex: "
                f"{_HYPERPARAMETERS}", _write_instead(job.tuning, c), code=fields.REFUSAL_CODE[fields.VERTEX])
    tier = job.ai_platform.get("scaleTier")
    if tier in (None, "CUSTOM"):
        return
    if job.spec_chief is None:
        c.error("$.spec.aiPlatform.scaleTier", f"scaleTier {tier} with pools: pools mean CUSTOM",
                code="scale-tier-pools")
    elif not machines.SCALE_TIER_TO_VERTEX.get(tier):
        c.error("$.spec.aiPlatform.scaleTier", f"scale tier {tier} cannot be expressed on vertex: "
                "its machines are not documented", "write spec.pools explicitly", code="scale-tier-vertex")


def _write_instead(t: Tuning | None, c: Collector) -> str | None:
    """The spec.tuning that says what an aiPlatform.hyperparameters block says, as one line;
    while the block itself has errors, only where to move it (its values are not all known)."""
    if t is None:
        return None
    if any(d.is_error and d.path.startswith(f"{t.path}.") for d in c.items):
        return "write kind: HyperparameterTuningJob and move the search to spec.tuning " \
            "(docs/migration.md, hyperparameter tuning jobs)"
    text = yaml.safe_dump(to_spec(t), default_flow_style=True, sort_keys=False, width=10**6,
                          allow_unicode=True).strip()
    return f"write kind: HyperparameterTuningJob and, instead of aiPlatform.hyperparameters, " \
        f"spec.tuning: {text}"


def _check_tuning(t: Tuning, c: Collector) -> None:
    """The search of a HyperparameterTuningJob: shared rules, then Vertex's own ([DD-AIP])."""
    tuning_rules.check(t, c)
    tuning_rules.inexpressible(t, "vertex", c)
    for setting in ("max_trials", "parallel_trials"):
        key, _, field = SETTINGS[setting]
        if getattr(t, setting) is None:
            c.error(t.path, f"missing required key {key!r}", f"Vertex requires {field}",
                    code="tuning-vertex-required")
    # "Must not contain whitespaces" (StudySpec.MetricSpec.metricId, ParameterSpec.parameterId).
    named = [("metric", m.id, m.path) for m in t.metrics] + \
        [("parameter", p.id, p.path) for p in t.all_parameters()]
    for what, name, path in named:
        if name and any(ch.isspace() for ch in name):
            c.error(path, f"{what} id {name!r} contains whitespace, which Vertex refuses",
                    "rename it here and in the trainer" + (
                        ", which reports it with hypertune" if what == "metric" else ""),
                    key=True, code="tuning-id-whitespace")
    for p in t.all_parameters():
        sendable = p.kind == "discrete" and not any(
            tuning_rules.number_problem(v, p.kind) for v in p.values)
        gaps = [b - a for a, b in zip(p.values, p.values[1:])] if sendable else []
        if any(0 < gap < DISCRETE_GAP for gap in gaps):
            c.error(f"{p.path}.discrete", "on vertex, discrete values must be at least 1e-10 "
                    "apart", code="tuning-discrete-gap")
    if t.early_stopping and t.stopping is None:
        c.warning(t.at("early_stopping"), f"earlyStopping: true is sent as the {DEFAULT_STOPPING_RULE}"
                  f" rule ({STOPPING_RULES[DEFAULT_STOPPING_RULE]}): Vertex asks for a rule, and AI "
                  "Platform's switch documents none", "to choose, write earlyStopping: "
                  "{decayCurve: {}}, {median: {}} or {convex: {...}}", code="tuning-default-stopping")
    if t.study_stopping:
        c.warning(t.at("study_stopping"), "sent as studySpec.studyStoppingConfig, whose "
                  "documentation is written for Vertex AI Vizier studies: it does not say that a "
                  "HyperparameterTuningJob honours it", "maxTrials and the timeout bound the "
                  "job in any case", code="tuning-study-stopping")


def _check_pool(job: Job, pool: Pool, c: Collector, today: datetime.date) -> None:
    p = f"$.spec.pools.{pool.role}"
    if pool.machine_type is None:  # resolve found no machine for the accelerator
        c.error(f"{p}.accelerator", f"no training machine takes {pool.accelerator_count} × "
                f"{pool.accelerator_type}", code="no-machine")
    # A machine or accelerator of the repo config's extension has no catalog row to check.
    if pool.machine_type and not job.extension.unchecked(
            pool.machine_type, pool.accelerator_type, job.region):
        c.report(p, machines.check_vertex(pool.machine_type, pool.accelerator_type,
                                          pool.accelerator_count, pool.tpu_topology,
                                          job.extension.source))
    for row, message in fields.refusals(fields.VERTEX, lambda r: getattr(pool, r.attr),
                                        fields.POOL_ROWS):
        c.error(f"{p}.{row.spec}", message, code=fields.REFUSAL_CODE[fields.VERTEX])
    if pool.disk_type and pool.disk_type not in machines.BOOT_DISK_TYPES_VERTEX:
        c.error(f"{p}.disk.type", f"{pool.disk_type!r} is not a Vertex boot disk type", code="disk-type")
    if pool.gpu_partition_size and not pool.accelerator_type:
        c.error(f"{p}.gpuPartitionSize", "a GPU partition needs an accelerator",
                code="gpu-partition-accelerator")
    if job.region in regions.VERTEX_TRAINING_REGIONS and \
            pool.accelerator_type not in accelerators.RETIRED:
        _check_region(job, pool, c)
    tpu = _is_tpu(pool)
    if tpu and (len(job.pools) > 1 or pool.replicas != 1):
        c.error(f"{p}", "a TPU job has exactly one pool with one replica", code="tpu-single-pool")
    if isinstance(pool.task, PythonPackage):
        _check_executor(job, pool, c, today)


def _check_executor(job: Job, pool: Pool, c: Collector, today: datetime.date) -> None:
    task = pool.task
    assert isinstance(task, PythonPackage)
    base, image = python_path(pool), task.executor_image
    chosen = job.defaulted(f"{base}.executorImage")
    if image and not chosen and (task.runtime_version or task.python_version):
        c.warning(f"{base}.runtimeVersion" if task.runtime_version else f"{base}.pythonVersion",
                  "not sent on vertex, which runs python.executorImage instead "
                  "(runtimeVersion/pythonVersion are ai-platform only)", code="vertex-ignores-runtime")
    if not image and not task.runtime_version:
        c.error(base, "missing required key 'executorImage' (a prebuilt training container)",
                "e.g. us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest",
                code="missing-executor-image")
    elif not image:
        gpu = bool(pool.accelerator_type and accelerators.is_gpu(pool.accelerator_type))
        _, note = images.executor_for_runtime(task.runtime_version, gpu)
        c.error(f"{base}.runtimeVersion", f"no Vertex prebuilt container for runtime "
                f"{task.runtime_version}: {note}", "set python.executorImage", code="runtime-executor")
    else:
        problem = images.executor_image_problem(image, today=today)
        c.report(base, [problem] if problem else [])


def _check_documented(job: Job, pool: Pool, c: Collector) -> None:
    """The rules of catalog/documented.py for one pool: errors where the fact is verified,
    warnings otherwise (each rule says which)."""
    p = f"$.spec.pools.{pool.role}"
    persistent = bool(job.vertex.get("persistentResourceId"))
    affinity = (pool.reservation or {}).get("affinity")
    if pool.gpu_partition_size:
        c.report(f"{p}.gpuPartitionSize",
                 documented.check_gpu_partition(pool.accelerator_type, pool.gpu_partition_size))
    networked = bool(job.get(fields.NETWORK) or job.vertex.get("pscInterfaceConfig"))
    for i, mount in enumerate(pool.nfs_mounts):
        c.report(f"{p}.nfsMounts[{i}]", documented.check_nfs(mount, networked or i > 0))
    c.report(f"{p}.reservation", documented.check_reservation(
        affinity, job.get(fields.STRATEGY), persistent))
    c.report(f"{p}.machineType", documented.check_gb200(pool.accelerator_type, affinity,
                                                         persistent))
    c.report(f"{p}.disk.type", documented.check_disk(pool.machine_type, pool.disk_type))


def _check_region(job: Job, pool: Pool, c: Collector) -> None:
    p, region, machine = f"$.spec.pools.{pool.role}", job.region or "", pool.machine_type or ""
    accel, count = pool.accelerator_type, pool.accelerator_count
    if accel and not regions.vertex_accelerator_in_region(region, accel, count) \
            and not job.extension.has_accelerator(accel, region):
        where = ", ".join(regions.regions_with(accel, count)[:8]) or "no region"
        what = f"{accel} Pod slices ({count} cores)" if accel in ("TPU_V2", "TPU_V3") and \
            (count or 0) >= 32 else accel
        c.error(f"{p}.accelerator.type", f"{what} are not available for training in {region}"
                if what != accel else f"{accel} is not available for training in {region}",
                f"available in: {where}", code="region-accelerator")
    elif not accel and not regions.vertex_machine_in_region(region, machine):
        where = ", ".join(regions.regions_with_machine(machine)[:8]) or "no region"
        c.error(f"{p}.machineType", f"{machine} is not available for training in {region}",
                f"available in: {where}", code="region-machine")


def _is_tpu(pool: Pool) -> bool:
    return bool(pool.tpu_topology) or bool(pool.accelerator_type and
                                           accelerators.is_tpu(pool.accelerator_type))


def _check_scheduling(job: Job, c: Collector) -> None:
    strategy, timeout = job.get(fields.STRATEGY), job.get(fields.TIMEOUT_ROW)
    if job.get(fields.MAX_WAIT) is not None and strategy != "FLEX_START":
        c.error("$.spec.scheduling.maxWait", "maxWait applies only with strategy FLEX_START on "
                "vertex (Dynamic Workload Scheduler)", code="max-wait-flex-start")
    pools = list(job.pools.values())
    if strategy == "SPOT" and any(_is_tpu(p) and (p.accelerator_count or 0) >= 32 or
                                    (p.accelerator_type == "TPU_V4_POD") for p in pools):
        c.report("$.spec.scheduling.strategy", [
            Problem("spot-tpu-pod", "", "Spot VMs are not available for TPU Pods")])
    elif strategy == "SPOT":
        for p in pools:
            if documented.multi_host_tpu(p.machine_type, p.tpu_topology):
                c.report("$.spec.scheduling.strategy", [Problem(
                    "spot-multi-host-tpu", "", f"Spot VMs are not available for TPU Pods, and "
                    f"{p.machine_type} with topology {p.tpu_topology} spans several VMs (a Pod "
                    "slice)", "use strategy STANDARD, or a single-host topology")])
    if strategy != "FLEX_START":
        return
    for pool in pools:
        if pool.accelerator_type not in FLEX_START_GPUS:
            c.error(f"$.spec.pools.{pool.role}", "FLEX_START needs an L4, A100, H100, H200 or "
                    f"B200 GPU in every pool, not {pool.accelerator_type or 'none'}", code="flex-start-gpu")
    if timeout is not None and timeout > SEVEN_DAYS:
        c.error("$.spec.scheduling.timeout", f"FLEX_START jobs run at most 7 days, not "
                f"{human(timeout)}", code="flex-start-timeout")
    shapes = {(p.machine_type, p.accelerator_type, p.accelerator_count) for p in pools}
    if len(shapes) > 1:
        c.error("$.spec.pools", "FLEX_START needs the same machine, accelerator and count in "
                "every pool", code="flex-start-shape")
