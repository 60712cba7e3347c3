"""Policy guardrails of the repo config (`policy:`): rules a platform team sets once.

Pure: a checked job and the config's Policy in, one coded error per broken rule out, located
where the spec says the offending value (or where it would say it). Runs after the target's
check, on the job as it will be sent (defaults applied: a runtimeVersion's executor image,
a machine's implied GPUs).
"""

from __future__ import annotations

from decimal import Decimal

from . import fields
from .catalog import machines
from .config.model import Policy
from .diagnostics import Collector
from .durations import human
from .model import Container, Job, Pool, PythonPackage
from .roles import CHIEF

API_DEFAULT_TIMEOUT = Decimal(7 * 24 * 3600)  # both APIs stop a job after 7 days by default


def check(job: Job, policy: Policy, source: str, c: Collector) -> None:
    """Report into `c` each rule of `policy` (from config file `source`) that `job` breaks."""
    where = f"in {source}"
    missing = [key for key in policy.required_labels if key not in job.labels]
    for key in missing:
        c.error("$.metadata.labels", f"label {key!r} is required (policy.requiredLabels {where})",
                "add it under metadata.labels", code="policy-label")
    if policy.allowed_regions is not None and job.region \
            and job.region not in policy.allowed_regions:
        c.error("$.spec.region", f"region {job.region!r} is not allowed (policy.allowedRegions "
                f"{where})", "allowed: " + ", ".join(policy.allowed_regions),
                code="policy-region")
    if policy.allowed_registries is not None:
        for path, image in _images(job):
            if not any(_from(image, prefix) for prefix in policy.allowed_registries):
                c.error(path, f"image {image!r} is not from an allowed registry "
                        f"(policy.allowedRegistries {where})",
                        "allowed: " + ", ".join(policy.allowed_registries), code="policy-registry")
    if policy.max_accelerators is not None:
        _accelerators(job, policy.max_accelerators, where, c)
    if policy.max_timeout is not None:
        timeout = job.get(fields.TIMEOUT_ROW)
        if timeout is None:
            c.error("$.spec.scheduling.timeout", f"no scheduling.timeout: the API's default, "
                    f"{human(API_DEFAULT_TIMEOUT)}, is over policy.maxTimeout "
                    f"{policy.max_timeout_text} {where}", f"set spec.scheduling.timeout, at "
                    f"most {policy.max_timeout_text}", code="policy-timeout")
        elif timeout > policy.max_timeout:
            c.error("$.spec.scheduling.timeout", f"timeout {human(timeout)} is over "
                    f"policy.maxTimeout {policy.max_timeout_text} {where}",
                    code="policy-timeout")
    if policy.require_encryption_key and not job.get(fields.ENCRYPTION_KEY):
        c.error("$.spec.encryptionKey", f"no spec.encryptionKey: a customer-managed key (CMEK) "
                f"is required (policy.requireEncryptionKey {where})",
                "set spec.encryptionKey: projects/P/locations/R/keyRings/K/cryptoKeys/C",
                code="policy-encryption-key")
    workers = [p for p in job.pools.values() if p.role != CHIEF.name]
    if policy.require_spot_workers and workers and job.get(fields.STRATEGY) != "SPOT":
        c.error("$.spec.scheduling.strategy", f"a job with {workers[0].role} replicas must run "
                f"on Spot VMs (policy.requireSpotWorkers {where})",
                "set spec.scheduling.strategy: SPOT", code="policy-spot")


def _from(image: str, prefix: str) -> bool:
    """`image` is under `prefix`: a prefix ending in '/' matches as written, any other at a
    boundary ('/', ':' or '@'), so that `gcr.io/team` does not allow `gcr.io/team-b/x`."""
    if prefix.endswith("/"):
        return image.startswith(prefix)
    return image == prefix or (image.startswith(prefix) and image[len(prefix)] in "/:@")


def _task_path(pool: Pool, block: str, key: str) -> str:
    return f"{pool.path}.{block}.{key}" if key in pool.overrides else f"$.spec.{block}.{key}"


def _images(job: Job) -> list[tuple[str, str]]:
    """(where it is set, image) of every pool's container or executor image."""
    found = []
    for pool in job.pools.values():
        task = pool.task
        if isinstance(task, Container) and task.image:
            found.append((_task_path(pool, "container", "image"), task.image))
        elif isinstance(task, PythonPackage) and task.executor_image:
            found.append((_task_path(pool, "python", "executorImage"), task.executor_image))
    return found


def _accelerators(job: Job, limit: int, where: str, c: Collector) -> None:
    each = {p.role: _devices(p) for p in job.pools.values()}
    trials = (job.tuning.parallel_trials or 1) if job.tuning is not None else 1
    total = sum(job.pools[role].replicas * n for role, n in each.items()) * trials
    if total <= limit:
        return
    biggest = max(job.pools.values(), key=lambda p: p.replicas * each[p.role])
    parts = ", ".join(f"{role} {job.pools[role].replicas} × {n}" for role, n in each.items() if n)
    if trials > 1:
        parts += f"; {trials} parallel trials"
    c.error(f"{biggest.path}.accelerator", f"the job holds {total} accelerators at once "
            f"({parts}), over policy.maxAcceleratorsPerJob {limit} {where}",
            code="policy-accelerators")


def _devices(pool: Pool) -> int:
    """Accelerators of one replica: GPUs or TPU cores/chips as counted, or a TPU VM's chips."""
    if pool.accelerator_count:
        return pool.accelerator_count
    if pool.tpu_topology:
        return machines.topology_chips(pool.tpu_topology)
    return 0
