"""Policy guardrails of the repo config (`policy:`): rules a platform team sets once.

Pure: a checked job and the config's Policy in, one coded error per broken rule out, located
where the spec says the offending value (or where it would say it). Runs after the target's
check, on the job as it will be sent (defaults applied: a runtimeVersion's executor image,
a machine's implied GPUs).
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import fields
from ..catalog import machines
from ..cost import API_DEFAULT_TIMEOUT, estimate, footnote, usd, why
from ..diagnostics import Collector
from ..durations import human
from ..model import Container, Job, Pool, PythonPackage
from ..roles import CHIEF
from .model import Policy

TIMEOUT = "$.spec.scheduling.timeout"
Layers = Sequence[tuple[Policy, str]]


def check(job: Job, layers: Layers, c: Collector) -> None:
    """Report into `c` each rule that `job` breaks, of the (policy, config file) `layers`
    (every config from the repository's root to the spec's folder, load.py): all of them
    apply, so a nested config adds rules or tightens them and never drops one. The lists
    allowed intersect, the maxima take the least, the requirements add up; each error names
    the config that set the rule broken."""
    labels: dict[str, str] = {}
    for policy, source in layers:
        for key in policy.required_labels:
            labels.setdefault(key, source)
    for key, source in labels.items():
        if key not in job.labels:
            c.error("$.metadata.labels", f"label {key!r} is required (policy.requiredLabels "
                    f"in {source})", "add it under metadata.labels", code="policy-label")
    _region(job, layers, c)
    _registries(job, layers, c)
    most = _least(layers, "max_accelerators")
    if most is not None:
        _accelerators(job, most[0].max_accelerators, f"in {most[1]}", c)  # type: ignore[arg-type]
    longest = _least(layers, "max_timeout")
    if longest is not None:
        _timeout(job, *longest, c)
    _cost(job, layers, c)
    key_by = next((source for policy, source in layers if policy.require_encryption_key), None)
    if key_by is not None and not job.get(fields.ENCRYPTION_KEY):
        c.error("$.spec.encryptionKey", f"no spec.encryptionKey: a customer-managed key (CMEK) "
                f"is required (policy.requireEncryptionKey in {key_by})",
                "set spec.encryptionKey: projects/P/locations/R/keyRings/K/cryptoKeys/C",
                code="policy-encryption-key")
    spot_by = next((source for policy, source in layers if policy.require_spot_workers), None)
    workers = [p for p in job.pools.values() if p.role != CHIEF.name]
    if spot_by is not None and workers and job.get(fields.STRATEGY) != "SPOT":
        c.error("$.spec.scheduling.strategy", f"a job with {workers[0].role} replicas must run "
                f"on Spot VMs (policy.requireSpotWorkers in {spot_by})",
                _spot_way_out(job, spot_by), code="policy-spot")


def _spot_way_out(job: Job, source: str) -> str:
    """How to satisfy requireSpotWorkers: the strategy where the platform has one, else the
    two real ways out (a strategy AI Platform refuses is no way out)."""
    how = fields.STRATEGY.target(job.platform)
    if not isinstance(how, fields.Refused) or "SPOT" in how.allowed:
        return "set spec.scheduling.strategy: SPOT"
    return (f"{job.platform} has no Spot VMs: move the job to Vertex (spec.platform: vertex, "
            f"spec.scheduling.strategy: SPOT), or exempt this spec from policy-spot with "
            f"overrides: [{{paths: [...], ignore: [policy-spot]}}] in {source}")


def _least(layers: Layers, name: str) -> tuple[Policy, str] | None:
    """The layer setting the least `name` (the outermost of equals), None if none sets it."""
    found = None
    for policy, source in layers:
        value = getattr(policy, name)
        if value is not None and (found is None or value < getattr(found[0], name)):
            found = (policy, source)
    return found


def _region(job: Job, layers: Layers, c: Collector) -> None:
    lists = [(policy.allowed_regions, source) for policy, source in layers
             if policy.allowed_regions is not None]
    refused_by = next((source for allowed, source in lists if job.region not in allowed), None)
    if not job.region or refused_by is None:
        return
    allowed = [r for r in lists[0][0] if all(r in other for other, _ in lists)]
    c.error("$.spec.region", f"region {job.region!r} is not allowed (policy.allowedRegions "
            f"in {refused_by})", "allowed: " + (", ".join(allowed) or "none (the configs' "
                                                "allowedRegions have no region in common)"),
            code="policy-region")


def _registries(job: Job, layers: Layers, c: Collector) -> None:
    lists = [(policy.allowed_registries, source) for policy, source in layers
             if policy.allowed_registries is not None]
    for path, image in _images(job):
        for allowed, source in lists:
            if not any(_from(image, prefix) for prefix in allowed):
                c.error(path, f"image {image!r} is not from an allowed registry "
                        f"(policy.allowedRegistries in {source})",
                        _registry_way_out(image, allowed, source), code="policy-registry")
                break  # one error per image: the outermost config refusing it


def _registry_way_out(image: str, allowed: Sequence[str], source: str) -> str:
    """The matching rule (`_from`) and the fix: a prefix cut inside a path segment is named,
    with the segment to list instead."""
    rule = "allowed: " + ", ".join(allowed) + " (a prefix matches whole path segments, at '/')"
    for prefix in allowed:
        if image.startswith(prefix) and not _from(image, prefix):
            end = image.find("/", len(prefix))
            segment = image[:end + 1] if end >= 0 else image
            return (f"{rule}: {prefix!r} does not allow {segment.rstrip('/') + '/…'!r}; add "
                    f"{segment!r} to policy.allowedRegistries in {source}, or push the image "
                    "to an allowed registry")
    return (f"{rule}; push the image to one of them, or add its registry to "
            f"policy.allowedRegistries in {source}")


def _timeout(job: Job, policy: Policy, source: str, c: Collector) -> None:
    """A timeout over the max; no timeout only when the API's default is over it. A timeout
    written but refused by another rule (`0s`, out of range) is that rule's error alone."""
    timeout = job.get(fields.TIMEOUT_ROW)
    limit = policy.max_timeout
    if timeout is None:
        if TIMEOUT not in c.positions and API_DEFAULT_TIMEOUT > limit:  # type: ignore[operator]
            c.error(TIMEOUT, f"no scheduling.timeout: the API's default, "
                    f"{human(API_DEFAULT_TIMEOUT)}, is over policy.maxTimeout "
                    f"{policy.max_timeout_text} in {source}", f"set spec.scheduling.timeout, "
                    f"at most {policy.max_timeout_text}", code="policy-timeout")
    elif timeout > limit:  # type: ignore[operator]
        c.error(TIMEOUT, f"timeout {human(timeout)} is over "
                f"policy.maxTimeout {policy.max_timeout_text} in {source}",
                code="policy-timeout")


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
    # A TPU VM machine holds its chips whatever the spec says (even with tpu-topology ignored).
    vm = machines.TPU_VM_MACHINES.get(pool.machine_type or "")
    return vm[2] if vm else 0


def _cost(job: Job, layers: Layers, c: Collector) -> None:
    """maxCostPerJob and maxHourlyRate, at the price catalog's rates; a price unknown is a
    warning that the rule could not be checked, never a pass nor a refusal."""
    cost, rate = _least(layers, "max_cost"), _least(layers, "max_hourly_rate")
    if cost is None and rate is None:
        return
    found = estimate(job)
    where = max(found.pools, key=lambda p: p.rate or 0).path if found.pools else "$.spec"
    if found.rate is None:
        keys = " and ".join(f"policy.{k} in {layer[1]}" for k, layer in
                            (("maxCostPerJob", cost), ("maxHourlyRate", rate)) if layer)
        c.warning(where, f"{keys} could not be checked: {why(found)} in "
                  "compiler/catalog/prices.csv",
                  "`trainspec prices refresh` reads the Cloud Billing Catalog",
                  code="cost-unchecked")
        return
    # A refusal must be certain: at a price not read from a current primary source, the
    # same finding is a warning (its own code) naming that source.
    note = footnote(found)
    report = c.warning if note else c.error
    unverified = "-unverified" if note else ""
    said = f"; {note}" if note else ""
    if cost is not None and found.at_most > cost[0].max_cost:  # type: ignore[operator]
        trials = f"{found.trials} trials × " if found.trials > 1 else ""
        report(TIMEOUT if found.timeout_written else where,
               f"the job costs at most {usd(found.at_most)} ({trials}{usd(found.rate)}/h for "
               f"the {found.timeout_text()} timeout), over policy.maxCostPerJob "
               f"{usd(cost[0].max_cost)} in {cost[1]}{said}",
               "a shorter scheduling.timeout, fewer replicas or trials, or cheaper machines",
               code="policy-cost" + unverified)
    if rate is not None and found.rate_at_once > rate[0].max_hourly_rate:  # type: ignore[operator]
        trials = f" ({found.parallel} parallel trials)" if found.parallel > 1 else ""
        report(where, f"the job costs {usd(found.rate_at_once)}/h at once{trials}, over "
               f"policy.maxHourlyRate {usd(rate[0].max_hourly_rate)}/h in {rate[1]}{said}",
               "fewer replicas or parallel trials, cheaper machines, or scheduling.strategy "
               "SPOT", code="policy-hourly-rate" + unverified)
