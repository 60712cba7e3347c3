"""Vertex's resolve passes: the defaults Vertex needs (the chief of a spec without pools,
machines, implied accelerators, TPU topologies, executor images, the stopping rule), each
with a note in `job.notes`. The only place they are chosen; check (vertex_check.py) reads them.
"""

from __future__ import annotations

import dataclasses

from ..catalog import accelerators, images, machines
from ..model import Job, Pool, PythonPackage
from ..roles import CHIEF
from ..tuning.model import DEFAULT_STOPPING_RULE, KIND


def resolve_chief(job: Job) -> None:
    """A spec without pools runs its chief (normalize built it) as pool 0: on a scale tier's
    documented machine (spec.aiPlatform.scaleTier), else one replica of the default machine."""
    if job.spec_chief is None:
        return
    tier = job.ai_platform.get("scaleTier")
    mapped = machines.SCALE_TIER_TO_VERTEX.get(tier) if tier not in (None, "CUSTOM") else None
    if mapped:
        machine, accel, count, note = mapped
        job.pools[CHIEF.name] = dataclasses.replace(
            job.spec_chief, path="$.spec.aiPlatform.scaleTier", machine_type=machine,
            accelerator_type=accel, accelerator_count=count if accel else None)
        job.note(f"$.spec.pools.{CHIEF.name}", f"scale tier {tier} → {machine}: {note}")
    else:
        job.pools[CHIEF.name] = job.spec_chief
        job.note(f"$.spec.pools.{CHIEF.name}", "one replica (no pools given)")


def resolve_machines(job: Job) -> None:
    """Each pool's machine: a legacy AI Platform name mapped, the smallest machine for the
    accelerator, or the CPU default; the accelerator a fixed-count machine implies."""
    for pool in job.pools.values():
        _resolve_machine(job, pool)


def _resolve_machine(job: Job, pool: Pool) -> None:
    p = f"$.spec.pools.{pool.role}"
    legacy = machines.LEGACY_TO_VERTEX.get(pool.machine_type or "")
    if legacy:
        machine, accel, count, note = legacy
        job.note(f"{p}.machineType", f"AI Platform {pool.machine_type!r} → {machine}: {note}")
        pool.machine_type = machine
        if accel and not pool.accelerator_type:
            pool.accelerator_type, pool.accelerator_count = accel, count
    if pool.machine_type is None:
        if pool.accelerator_type:
            pick = machines.smallest_vertex_machine(pool.accelerator_type,
                                                    pool.accelerator_count or 1)
            if pick is None:
                return  # check_pools: no machine takes it
            pool.machine_type = pick
            job.note(f"{p}.machineType", f"{pick}, the smallest machine that takes "
                     f"{pool.accelerator_count} × {pool.accelerator_type}")
            if machines.omits_accelerator(pick):
                # TPU v5e/v6e/7x VMs are requested by machine and topology, no accelerator.
                chips = pool.accelerator_count
                pool.accelerator_type = pool.accelerator_count = None
                if not pool.tpu_topology:
                    pool.tpu_topology = machines.default_tpu_topology(pick, chips)
                    job.note(f"{p}.tpuTopology", f"{pool.tpu_topology} for {chips} chip(s)")
        else:
            pool.machine_type = machines.DEFAULT_VERTEX_MACHINE
            job.note(f"{p}.machineType", f"{pool.machine_type} (default for a CPU pool)")
    if pool.accelerator_type is None and not pool.tpu_topology:
        implied = machines.implied_accelerator(pool.machine_type)
        if implied:
            pool.accelerator_type, pool.accelerator_count = implied
            job.note(f"{p}.accelerator", f"{implied[1]} × {implied[0]}, fixed by "
                     f"{pool.machine_type}")


def resolve_executors(job: Job) -> None:
    """A Python pool without python.executorImage runs the prebuilt container of its
    runtimeVersion (GPU or CPU, as its accelerator)."""
    for pool in job.pools.values():
        task = pool.task
        if not isinstance(task, PythonPackage) or task.executor_image or not task.runtime_version:
            continue
        gpu = bool(pool.accelerator_type and accelerators.is_gpu(pool.accelerator_type))
        image, note = images.executor_for_runtime(task.runtime_version, gpu)
        if image:
            pool.task = dataclasses.replace(task, executor_image=image)
            job.note(f"{python_path(pool)}.executorImage",
                     f"{image} for runtime {task.runtime_version}: {note}")


def resolve_stopping(job: Job) -> None:
    """earlyStopping: true names no rule; Vertex asks for one."""
    t = job.tuning
    if job.kind == KIND and t is not None and t.early_stopping and t.stopping is None:
        job.note(t.at("early_stopping"), f"{DEFAULT_STOPPING_RULE} rule for earlyStopping: true")


def python_path(pool: Pool) -> str:
    """Where a pool's Python task is written: its own python, or the spec's."""
    return f"$.spec.pools.{pool.role}.python" if pool.overrides else "$.spec.python"
