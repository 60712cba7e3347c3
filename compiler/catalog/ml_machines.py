"""Legacy AI Platform Training (ml v1) machine types, scale tiers, and their Vertex mapping.

The legacy service was shut down on 2025-01-31 ([DEPR]); these tables serve compiling to
the ml v1 shape and migrating old specs to Vertex (the Vertex mapping of the legacy names,
LEGACY_TO_VERTEX, lives with the Vertex tables, which read it).
"""

from __future__ import annotations

from compiler import suggest
from compiler.catalog.accelerators import ML_TYPES, is_tpu
from compiler.catalog.vertex_machines import MACHINE_SHAPES, N1_GPU_COUNTS, VERTEX_MACHINES
from compiler.rules import Problem

# Compute Engine machine types listed in the ml v1 masterType field docs (facts §B.5).
ML_CE_MACHINES: frozenset[str] = frozenset(
    [f"n1-standard-{n}" for n in (4, 8, 16, 32, 64, 96)]
    + [f"n1-highmem-{n}" for n in (2, 4, 8, 16, 32, 64, 96)]
    + [f"n1-highcpu-{n}" for n in (16, 32, 64, 96)]
)

# Legacy machine names: (description, implied accelerator enum or None, accelerator count).
# Source: old ml v1 discovery text (facts §B.5); the counts come from the descriptions.
ML_LEGACY_MACHINES: dict[str, tuple[str, str | None, int]] = {
    "standard": ("basic machine for small to moderate datasets", None, 0),
    "large_model": ("lots of memory, for parameter servers of large models", None, 0),
    "complex_model_s": ("more compute than standard", None, 0),
    "complex_model_m": ("about twice the cores and memory of complex_model_s", None, 0),
    "complex_model_l": ("about twice the cores and memory of complex_model_m", None, 0),
    "standard_gpu": ("standard with 1 K80 GPU", "NVIDIA_TESLA_K80", 1),
    "complex_model_m_gpu": ("complex_model_m with 4 K80 GPUs", "NVIDIA_TESLA_K80", 4),
    "complex_model_l_gpu": ("complex_model_l with 8 K80 GPUs", "NVIDIA_TESLA_K80", 8),
    "standard_p100": ("standard with 1 P100 GPU", "NVIDIA_TESLA_P100", 1),
    "complex_model_m_p100": ("complex_model_m with 4 P100 GPUs", "NVIDIA_TESLA_P100", 4),
    "standard_v100": ("standard with 1 V100 GPU", "NVIDIA_TESLA_V100", 1),
    "large_model_v100": ("large_model with 1 V100 GPU", "NVIDIA_TESLA_V100", 1),
    "complex_model_m_v100": ("complex_model_m with 4 V100 GPUs", "NVIDIA_TESLA_V100", 4),
    "complex_model_l_v100": ("complex_model_l with 8 V100 GPUs", "NVIDIA_TESLA_V100", 8),
    "cloud_tpu": ("a TPU VM with one Cloud TPU", "TPU_V2", 8),
}

# GPU counts on N1 for the legacy service: the Vertex N1 table plus K80 rows.
# Source: caliban types.py copy of the ml-engine "using GPUs" page, ~2020 (facts §B.5, ◐).
_K80_COUNTS: dict[str, tuple[int, ...]] = {
    "n1-standard-4": (1, 2, 4, 8), "n1-standard-8": (1, 2, 4, 8),
    "n1-standard-16": (2, 4, 8), "n1-standard-32": (4, 8),
    "n1-highmem-2": (1, 2, 4, 8), "n1-highmem-4": (1, 2, 4, 8), "n1-highmem-8": (1, 2, 4, 8),
    "n1-highmem-16": (2, 4, 8), "n1-highmem-32": (4, 8),
    "n1-highcpu-16": (2, 4, 8), "n1-highcpu-32": (4, 8), "n1-highcpu-64": (8,),
}
ML_N1_GPU_COUNTS: dict[str, dict[str, tuple[int, ...]]] = {
    machine: {**row, **({"NVIDIA_TESLA_K80": _K80_COUNTS[machine]}
                        if machine in _K80_COUNTS else {})}
    for machine, row in N1_GPU_COUNTS.items()
}

# A2 machines with their fixed A100 count: ml v1 lists NVIDIA_TESLA_A100 in its accelerator enum
# and public AI Platform jobs ran A100 x4 on a2-highgpu-4g (corpus 020); A2 is the only family
# that carries A100s ([CC] compatibility table).
ML_A2_MACHINES: dict[str, int] = {"a2-highgpu-1g": 1, "a2-highgpu-2g": 2, "a2-highgpu-4g": 4,
                                  "a2-highgpu-8g": 8, "a2-megagpu-16g": 16}

ML_CLOUD_TPU = "cloud_tpu"
ML_CLOUD_TPU_TYPES: tuple[str, ...] = ("TPU_V2", "TPU_V3")

# Boot disk types of ml v1 DiskConfig (facts §B.4).
BOOT_DISK_TYPES_ML: tuple[str, ...] = ("pd-ssd", "pd-standard")

# ml v1 TrainingInput.scaleTier enum (facts §B.3).
SCALE_TIERS: tuple[str, ...] = ("BASIC", "STANDARD_1", "PREMIUM_1", "BASIC_GPU", "BASIC_TPU",
                                "CUSTOM")

# Non-CUSTOM tier -> the single Vertex pool it becomes, or None when the tier's composition is
# undocumented (facts §B.3, §D.9) and migration must be refused. CUSTOM has no entry: its
# machines are spelled out in the job.
SCALE_TIER_TO_VERTEX: dict[str, tuple[str, str | None, int, str] | None] = {
    "BASIC": ("n1-standard-4", None, 0, "approximate: BASIC is one worker of type standard"),
    "BASIC_GPU": ("n1-standard-8", "NVIDIA_TESLA_K80", 1,
                  "approximate: BASIC_GPU is one worker with a K80, which is retired"),
    "BASIC_TPU": ("cloud-tpu", "TPU_V2", 8,
                  "approximate: BASIC_TPU is one worker with a Cloud TPU (assumed v2-8)"),
    "STANDARD_1": None,
    "PREMIUM_1": None,
}

SCALE_TIER_REFUSALS: dict[str, str] = {
    "STANDARD_1": "scaleTier STANDARD_1 (many workers, a few parameter servers) has no "
                  "documented machine types or replica counts; write the pools explicitly",
    "PREMIUM_1": "scaleTier PREMIUM_1 (many workers, many parameter servers) has no "
                 "documented machine types or replica counts; write the pools explicitly",
}


def is_ml_legacy_name(machine: str) -> bool:
    """True for legacy ml machine names such as ``standard_gpu`` or ``cloud_tpu``."""
    return machine in ML_LEGACY_MACHINES


# Problems resting on a fact verified from a current primary source are errors; the legacy
# machine and GPU tables (facts §B.5, ◐/❌) give warnings, never refusals (rules.yaml says which).
def _check_legacy(machine: str, accel: str | None, count: int | None) -> list[Problem]:
    if accel is None:
        return []
    if machine != ML_CLOUD_TPU:
        # ✅ [DD-ML]: acceleratorConfig only with Compute Engine machine types.
        return [_ml("ml-legacy-accelerator", f"acceleratorConfig is only allowed with Compute "
                    f"Engine machine types; {machine} is a legacy name "
                    f"({ML_LEGACY_MACHINES[machine][0]})")]
    # cloud_tpu with TPU_V2/TPU_V3 x 8: caliban's copy of old docs (◐, facts §B.5).
    if accel not in ML_CLOUD_TPU_TYPES:
        return [_ml("ml-machine-accelerator", f"{accel} is not available on {ML_CLOUD_TPU}; it "
                    "takes TPU_V2 or TPU_V3")]
    if count != 8:
        return [_ml("ml-machine-accelerator", f"{accel} on {ML_CLOUD_TPU} needs count 8, not "
                    f"{count}")]
    return []


def _ml(code: str, message: str) -> Problem:
    # Reported at the replica's machine type, where the ml v1 replica config is written.
    return Problem(code, "machineType", message)


def check_ml(machine: str, accel: str | None, count: int | None) -> list[Problem]:
    """Problems with one legacy ml replica machine (``*Type`` + ``acceleratorConfig``).

    Encodes the ml v1 rules only; whether an accelerator is retired is a Vertex concern.
    """
    if accel is None and count == 0:
        count = None
    if (accel is None) != (count is None):
        return [_ml("accelerator-pair", "acceleratorConfig needs both type and count")]
    if count is not None and count < 1:
        return [_ml("accelerator-count", f"acceleratorConfig.count must be at least 1, not "
                    f"{count}")]
    if accel is not None and accel not in ML_TYPES:
        return [_ml("accelerator-type", f"{accel!r} is not an AI Platform Training accelerator "
                    "type")]
    if machine in ML_LEGACY_MACHINES:
        return _check_legacy(machine, accel, count)
    if machine in ML_A2_MACHINES:
        fixed = ML_A2_MACHINES[machine]
        if accel != "NVIDIA_TESLA_A100" or count != fixed:
            return [_ml("ml-machine-accelerator", f"{machine} takes exactly {fixed} x "
                        "NVIDIA_TESLA_A100")]
        return []
    if machine in VERTEX_MACHINES and machine not in ML_CE_MACHINES:
        return [_ml("ml-unknown-machine", f"{machine!r} is a Vertex AI machine type; AI "
                    "Platform Training documents only n1-standard/n1-highmem/n1-highcpu machine "
                    "types and legacy names such as standard_gpu")]
    if machine not in ML_CE_MACHINES:
        close = suggest.close(machine, sorted(ML_CE_MACHINES | set(ML_LEGACY_MACHINES)), n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        return [_ml("ml-unknown-machine", f"{machine!r} is not an AI Platform Training machine "
                    f"type{hint}")]
    if accel is None:
        return []
    if is_tpu(accel):
        return [_ml("ml-machine-accelerator", f"{accel} is only available with machine type "
                    f"{ML_CLOUD_TPU}")]
    allowed = ML_N1_GPU_COUNTS[machine].get(accel)
    if allowed is None:
        return [_ml("ml-machine-accelerator", f"{accel} cannot be attached to {machine}")]
    if count not in allowed:
        shown = ", ".join(str(c) for c in allowed)
        return [_ml("ml-machine-accelerator", f"{accel} on {machine} allows count {shown}, not "
                    f"{count}")]
    return []


def smallest_ml_machine(accel: str, count: int) -> str | None:
    """Smallest legacy machine (fewest vCPUs, then least memory) carrying ``count`` x
    ``accel``; ``cloud_tpu`` for TPU_V2/TPU_V3 x 8; None when nothing fits."""
    if accel in ML_CLOUD_TPU_TYPES:
        return ML_CLOUD_TPU if count == 8 else None
    if accel == "NVIDIA_TESLA_A100":
        return next((m for m, n in ML_A2_MACHINES.items() if n == count), None)
    # n1-highmem-2 is skipped for the same logging reason as on Vertex ([CC]).
    candidates = [m for m, row in ML_N1_GPU_COUNTS.items()
                  if count in row.get(accel, ()) and m != "n1-highmem-2"]
    ranked = sorted(candidates, key=lambda m: (*MACHINE_SHAPES[m], m))
    return ranked[0] if ranked else None
