"""A pool of the spec (`spec.pools.<role>`): replicas (the chief runs one), machine,
accelerator (by short name or API enum; a fixed-count machine implies its count), disk,
reservation, its task and env, and the simple fields of compiler/fields.py's POOL rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import fields
from ..catalog import accelerators, machines
from ..model import Job, Pool
from ..roles import BY_NAME, CHIEF
from ..source.reads import as_dict, as_str
from . import tasks

if TYPE_CHECKING:
    from .reader import Reader


def pool(n: Reader, job: Job, role: str, raw: dict, path: str) -> Pool:
    c = n.c
    pool = Pool(role=role, path=path)
    replicas = n.integer(raw, "replicas", path + ".replicas")
    chief = role == CHIEF.name
    if chief and replicas is not None and replicas != 1:
        c.error(path + ".replicas", f"the chief pool runs exactly 1 replica, not {replicas}",
                f"it is Vertex pool {CHIEF.pool} / the AI Platform {CHIEF.ml_name}; put more "
                "replicas in 'worker'", code="chief-replicas")
    pool.replicas = replicas if replicas is not None and not chief else 1
    pool.machine_type = as_str(raw.get("machineType"))
    accelerator(n, pool, as_dict(raw.get("accelerator")), path + ".accelerator")
    disk = as_dict(raw.get("disk"))
    pool.disk_type = as_str(disk.get("type"))
    pool.disk_size_gb = n.integer(disk, "sizeGb", path + ".disk.sizeGb")
    image = BY_NAME[role].image
    pool.task, pool.overrides = tasks.pool_task(n, job, raw, path, image)
    if image and "image" not in pool.overrides:
        job.note(path + ".container.image", f"{image} (the {BY_NAME[role].label}'s image)")
    # Google's image of a role runs none of the job's code: the spec's env is not its own.
    pool.env = tasks.env(n, as_dict(raw.get("env")), path + ".env", () if image else job.env)
    pool.env_overridden = "env" in raw
    for row in fields.POOL_ROWS:
        value = n.decode(row, raw, row.spec, f"{path}.{row.spec}")
        if value is not None:
            setattr(pool, row.attr, value)
    reservation(n, pool.reservation, path + ".reservation")
    if pool.gpu_partition_size and pool.accelerator_count not in (None, 1):
        c.error(path + ".gpuPartitionSize", "a GPU partition needs accelerator count 1",
                code="gpu-partition-count")
    tasks.task_rules(n, pool)
    return pool


def accelerator(n: Reader, pool: Pool, raw: dict, path: str) -> None:
    name = as_str(raw.get("type"))
    count = n.integer(raw, "count", path + ".count")
    if name is None:
        return
    enum = accelerators.canonical(name) or (
        name if n.options.extension.has_accelerator(name) else None)
    if enum is None:
        near = accelerators.suggestions(name)
        n.c.error(path + ".type", f"unknown accelerator {name!r}", n.options.extension.hint(
            "extraAccelerators", f"did you mean {near[0]!r}?" if near else
            "use the API enum (NVIDIA_TESLA_T4) or a short name (T4, A100, L4, TPU_V3)."),
                  code="unknown-accelerator")
        return
    pool.accelerator_type = enum
    if count is None:
        # A fixed-count machine (a2-highgpu-8g) implies its count; otherwise one device.
        implied = machines.implied_accelerator(pool.machine_type) if pool.machine_type else None
        count = implied[1] if implied and implied[0] == enum else 1
    pool.accelerator_count = count


def reservation(n: Reader, raw: dict | None, path: str) -> None:
    if not raw:
        return
    affinity = as_str(raw.get("affinity"))
    values = raw.get("values") if isinstance(raw.get("values"), list) else None
    if affinity == "SPECIFIC" and not values:
        n.c.error(path, "a SPECIFIC reservation needs values (the reservation name)",
                  code="reservation-values")
    if affinity in ("ANY", "NONE") and (values or "key" in raw):
        n.c.error(path, f"key and values apply only to SPECIFIC, not {affinity}",
                  code="reservation-keys")
