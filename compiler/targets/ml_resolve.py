"""AI Platform's resolve passes: the defaults the ml v1 API needs (the master of a scaleTier
CUSTOM spec without pools, machines), each with a note in `job.notes`. The only place they are
chosen; check (ml_check.py) reads them.
"""

from __future__ import annotations

from ..catalog import accelerators, machines
from ..model import Job
from ..roles import CHIEF


def resolve_chief(job: Job) -> None:
    """A spec without pools runs on a scale tier (BASIC, the API's default), or with scaleTier
    CUSTOM on one master: its chief, which normalize built."""
    tier = job.ai_platform.get("scaleTier")
    if job.spec_chief is None:
        return
    if tier is None:
        job.note("$.spec.aiPlatform.scaleTier", "BASIC (the API default when no pools are given)")
    elif tier == "CUSTOM":
        job.pools[CHIEF.name] = job.spec_chief
        job.note(f"$.spec.pools.{CHIEF.name}", f"one {CHIEF.ml_name} replica (scaleTier CUSTOM, "
                 "no pools given)")


def resolve_machines(job: Job) -> None:
    """A pool without machineType: the smallest machine for its accelerator, else the default
    (a legacy name when the other pools use legacy names)."""
    legacy_kind = bool(legacy_names(job))
    for pool in job.pools.values():
        accel = pool.accelerator_type
        if pool.machine_type is not None or accel in accelerators.RETIRED_ML or (
                accel and accel not in accelerators.ML_TYPES):
            continue  # check_pools refuses the accelerator
        if accel:
            pick = machines.smallest_ml_machine(accel, pool.accelerator_count or 1)
        else:
            pick = "standard" if legacy_kind else "n1-standard-4"
        if pick is not None:
            pool.machine_type = pick
            job.note(f"$.spec.pools.{pool.role}.machineType",
                     f"{pick} (smallest machine for this pool)")


def legacy_names(job: Job) -> set[str]:
    """The pools on AI Platform legacy machine names (standard, complex_model_m…)."""
    return {p.role for p in job.pools.values() if machines.is_ml_legacy_name(p.machine_type or "")
            and p.machine_type != "cloud_tpu"}
