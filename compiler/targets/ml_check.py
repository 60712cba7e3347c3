"""AI Platform's check passes: what the ml v1 API refuses of a resolved job. Pure: they report,
and never change the job (tests/test_stages.py).

Field reference: ml.v1 discovery document, GoogleCloudMlV1__Job / __TrainingInput /
__ReplicaConfig. What this API cannot express is a named error, never dropped.
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal

from .. import fields
from ..catalog import accelerators, images, machines, regions
from ..diagnostics import Collector
from ..durations import to_google
from ..model import Job, Pool, PythonPackage
from ..roles import BY_NAME, CHIEF
from ..schema.validate import did_you_mean
from ..tuning import rules as tuning_rules
from .ml_resolve import legacy_names

MIN_MAX_WAIT = Decimal(1800)  # [DD-ML] Scheduling.maxWaitTime: "minimum 1800s"
JOB_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,127}\Z")  # [MMJ] naming rules
RUN_SUFFIX = "_run_"


def job_id(name: str, run: str | None = None) -> str:
    """The ml v1 jobId of a spec: its name with '-' → '_' (stable for the same spec), and
    ``_run_<run>`` for a `metadata.run`: a jobId is never reused, so each run needs its own."""
    base = name.replace("-", "_")
    return base if run is None else f"{base}{RUN_SUFFIX}{run.replace('-', '_')}"


def check_job(job: Job, c: Collector, today: datetime.date) -> None:
    """What the ml v1 API refuses of the job as a whole: its jobId, region, env, the fields it
    has no place for, the scale tier."""
    del today  # runtime versions are checked against the table, not the date
    # metadata.name's schema pattern is JOB_ID with '-' (sent as '_'): a name whose jobId is
    # invalid is missing or refused by the schema, which reports it. Only a run's suffix can
    # make the jobId of a valid name too long.
    if job.run is not None and JOB_ID.match(job_id(job.name)) and \
            not JOB_ID.match(job_id(job.name, job.run)):
        c.error("$.metadata.run", f"the jobId of this run, {job_id(job.name, job.run)!r}, is "
                "not a valid AI Platform jobId", "at most 128 characters in all: shorten "
                "metadata.name or metadata.run", code="job-id")
    if not job.region:
        c.error("$.spec.region", "ai-platform needs a region",
                "set spec.region, or pass --region / set gcp:region", code="ml-region-required")
    elif job.region not in regions.ML_TRAINING_REGIONS and not job.extension.has_region(
            job.region):
        # The legacy region list is an old snapshot (◐, facts §B.8): a warning, never a refusal.
        hint = did_you_mean(job.region, sorted(regions.ML_TRAINING_REGIONS))
        c.warning("$.spec.region", f"{job.region!r} is not in the AI Platform Training region "
                  "list trainspec knows (an old, partial list)", hint, code="ml-region")
    env_at = (["$.spec.env"] if job.env else []) + [
        f"{p.path}.env" for p in job.pools.values() if p.env_overridden]
    for path in env_at:
        c.error(path, "ai-platform has no environment variables",
                "env is vertex only; pass settings as args", code=fields.REFUSAL_CODE[fields.ML])
    for row, message in fields.refusals(fields.ML, job.get):
        c.error(row.path, message, code=fields.REFUSAL_CODE[fields.ML])
    max_wait = job.get(fields.MAX_WAIT)
    if max_wait is not None and max_wait < MIN_MAX_WAIT:
        c.error("$.spec.scheduling.maxWait", f"ai-platform needs maxWait of at least 30m (1800s), "
                f"not {to_google(max_wait)}", code="ml-max-wait")
    tier = job.ai_platform.get("scaleTier")
    if job.spec_chief is None and tier not in (None, "CUSTOM"):
        c.error("$.spec.aiPlatform.scaleTier", f"scaleTier {tier} with pools: pools mean CUSTOM",
                "remove scaleTier or the pools", code="scale-tier-pools")
    if job.spec_chief is not None and tier == "BASIC_GPU":
        # BASIC_GPU = one K80 comes from older docs (◐, facts §B.3): a warning.
        c.warning("$.spec.aiPlatform.scaleTier", "scaleTier BASIC_GPU ran on a K80 GPU (older "
                  "docs), which is retired: the job will likely fail",
                  "write a chief pool with a T4 or V100 instead", code="scale-tier-k80")


def check_task(job: Job, c: Collector, today: datetime.date) -> None:
    _check_task(job, c)


def check_tuning(job: Job, c: Collector, today: datetime.date) -> None:
    if job.tuning is not None:
        tuning_rules.check(job.tuning, c)
        tuning_rules.inexpressible(job.tuning, "ai-platform", c)


def check_pools(job: Job, c: Collector, today: datetime.date) -> None:
    legacy = legacy_names(job)
    mixable = {p.role for p in job.pools.values() if p.machine_type == "cloud_tpu"}
    for pool in job.pools.values():
        _check_pool(job, pool, c)
    if legacy and len(legacy) + len(mixable) != len(job.pools):
        c.error("$.spec.pools", "mixes AI Platform legacy machine names with Compute Engine types",
                "the ml v1 API needs every pool of one kind; only cloud_tpu workers may differ",
                code="ml-machine-kinds")


def _check_task(job: Job, c: Collector) -> None:
    kinds = {type(p.task) for p in job.pools.values() if p.task is not None}
    if len(kinds) > 1:
        c.error("$.spec.pools", "ai-platform runs one kind of task: all pools use a container, "
                "or all the Python package", code="ml-task-kind")
    for pool in job.pools.values():
        if isinstance(pool.task, PythonPackage) and pool.overrides:
            c.error(f"{pool.path}.python", "ai-platform runs one Python package for all replicas: "
                    "set it in spec.python", code="ml-one-package")
    task = job.python if job.python else None
    if task is None:
        chief = job.pools.get(CHIEF.name)
        task = chief.task if chief and isinstance(chief.task, PythonPackage) else None
    if task is not None:
        if task.executor_image:
            c.warning("$.spec.python.executorImage", "not sent on ai-platform, which runs "
                      "python.runtimeVersion instead (executorImage is vertex only)",
                      code="ml-ignores-executor-image")
        if not task.runtime_version:
            c.error("$.spec.python", "ai-platform needs python.runtimeVersion",
                    "e.g. runtimeVersion: \"2.11\", pythonVersion: \"3.7\"", code="ml-runtime-version")
        elif not task.python_version:
            # [DD-ML] says "must specify", yet gcloud sends none without --python-version and
            # the service picks one: not certain enough to refuse.
            c.warning("$.spec.python", "no python.pythonVersion: the service picks the runtime's "
                      "default (gcloud sends none without --python-version)",
                      "set pythonVersion, e.g. \"3.7\" for runtime 1.15 and later", code="ml-python-version")
        else:
            c.report("$.spec.python", images.check_runtime_python(task.runtime_version,
                                                                   task.python_version))


def _check_pool(job: Job, pool: Pool, c: Collector) -> None:
    p = f"$.spec.pools.{pool.role}"
    if BY_NAME[pool.role].ml_type is None:
        c.error(p, f"cannot be expressed on ai-platform (vertex only): the "
                f"{BY_NAME[pool.role].label} is a Vertex pool", "use platform: vertex; the ml v1 API "
                "has parameterServer* fields only", key=True, code=fields.REFUSAL_CODE[fields.ML])
        return
    for row, message in fields.refusals(fields.ML, lambda r: getattr(pool, r.attr),
                                        fields.POOL_ROWS):
        c.error(f"{p}.{row.spec}", message, code=fields.REFUSAL_CODE[fields.ML])
    if pool.disk_type and pool.disk_type not in machines.BOOT_DISK_TYPES_ML:
        c.error(f"{p}.disk.type", f"{pool.disk_type!r} is not an AI Platform boot disk type",
                "pd-ssd or pd-standard", code="disk-type")
    if pool.machine_type is None and pool.accelerator_type in accelerators.RETIRED_ML:
        # resolve picks no machine for a retired GPU: whether or not the retirement is ignored,
        # there is no machine to send.
        c.error(f"{p}.accelerator", f"no AI Platform machine takes {pool.accelerator_count} × "
                f"{pool.accelerator_type}", code="no-machine")
    if pool.accelerator_type in accelerators.RETIRED_ML:
        c.error(f"{p}.accelerator.type", accelerators.RETIRED_ML[pool.accelerator_type],
                code="retired-accelerator")
        return
    # Legacy names such as standard_gpu name a service class, not hardware we can verify (their
    # K80 comes from old descriptions), so they compile as written; BASIC_GPU's K80 is refused
    # above because its failure is on record (fmltc issue #318, corpus 042).
    # The ml v1 enum is closed (a deprecated API gets no new accelerators): extraAccelerators
    # cannot add to it, only say where a known one is offered (config/extension.py).
    if pool.accelerator_type and pool.accelerator_type not in accelerators.ML_TYPES:
        c.error(f"{p}.accelerator.type", f"{pool.accelerator_type} is not available on ai-platform",
                code="accelerator-type")
        return
    if pool.machine_type is None:  # resolve found no machine for the accelerator
        c.error(f"{p}.accelerator", f"no AI Platform machine takes {pool.accelerator_count} × "
                f"{pool.accelerator_type}", code="no-machine")
        return
    if job.extension.unchecked(pool.machine_type, pool.accelerator_type, job.region):
        return  # the repo config's extension: no catalog row to check it against
    # The legacy machine and GPU tables are ◐/❌ (facts §B.5): warnings (compiler/rules.yaml).
    c.report(p, machines.check_ml(pool.machine_type, pool.accelerator_type,
                                  pool.accelerator_count))
    # A region of the repo config's extension has no row in the table to check against.
    if job.region and pool.accelerator_type and not job.extension.has_region(job.region) \
            and not regions.ml_accelerator_in_region(job.region, pool.accelerator_type):
        # Legacy accelerators by region: caliban's 2020 copy (◐, facts §B.8).
        c.warning(f"{p}.accelerator.type", f"{pool.accelerator_type} was not offered for AI "
                  f"Platform training in {job.region} (per an old, partial table)",
                  code="ml-region-accelerator")
