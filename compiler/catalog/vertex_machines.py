"""Vertex AI custom-training machine types and which accelerators each one takes.

Data tables plus pure checks, which return structured problems (rules.Problem): the caller
adds the JSON path and position. Also the Vertex mapping of the legacy ml machine names.
"""

from __future__ import annotations

from compiler import suggest
from compiler.catalog.accelerators import RETIRED, VERTEX_TYPES, is_tpu
from compiler.catalog.extension import launched_later
from compiler.rules import Problem

# Machine types accepted for custom training.
# Source: [CC] "Configure compute resources" machine-type list and TPU section (facts §A.5).
_CPU_FAMILIES: dict[str, tuple[int, ...]] = {
    "e2-standard": (4, 8, 16, 32),
    "e2-highmem": (2, 4, 8, 16),
    "e2-highcpu": (16, 32),
    "n4-standard": (2, 4, 8, 16, 32, 48, 64, 80),
    "n4-highmem": (2, 4, 8, 16, 32, 48, 64, 80),
    "n4-highcpu": (2, 4, 8, 16, 32, 48, 64, 80),
    "n2-standard": (4, 8, 16, 32, 48, 64, 80),
    "n2-highmem": (2, 4, 8, 16, 32, 48, 64, 80),
    "n2-highcpu": (16, 32, 48, 64, 80),
    "n1-standard": (4, 8, 16, 32, 64, 96),
    "n1-highmem": (2, 4, 8, 16, 32, 64, 96),
    "n1-highcpu": (16, 32, 64, 96),
    "c2-standard": (4, 8, 16, 30, 60),
    "m1-ultramem": (40, 80, 160),
    "m1-megamem": (96,),
}

# Accelerator-optimized machines: the GPU type and count are fixed by the machine.
# Source: [CC] GPU compatibility table (facts §A.6).
FIXED_GPU_MACHINES: dict[str, tuple[str, int]] = {
    "a4x-highgpu-4g": ("NVIDIA_GB200", 4),
    "a4-highgpu-8g": ("NVIDIA_B200", 8),
    "a3-ultragpu-8g": ("NVIDIA_H200_141GB", 8),
    "a3-megagpu-8g": ("NVIDIA_H100_MEGA_80GB", 8),
    "a3-highgpu-1g": ("NVIDIA_H100_80GB", 1),
    "a3-highgpu-2g": ("NVIDIA_H100_80GB", 2),
    "a3-highgpu-4g": ("NVIDIA_H100_80GB", 4),
    "a3-highgpu-8g": ("NVIDIA_H100_80GB", 8),
    "a2-ultragpu-1g": ("NVIDIA_A100_80GB", 1),
    "a2-ultragpu-2g": ("NVIDIA_A100_80GB", 2),
    "a2-ultragpu-4g": ("NVIDIA_A100_80GB", 4),
    "a2-ultragpu-8g": ("NVIDIA_A100_80GB", 8),
    "a2-highgpu-1g": ("NVIDIA_TESLA_A100", 1),
    "a2-highgpu-2g": ("NVIDIA_TESLA_A100", 2),
    "a2-highgpu-4g": ("NVIDIA_TESLA_A100", 4),
    "a2-highgpu-8g": ("NVIDIA_TESLA_A100", 8),
    "a2-megagpu-16g": ("NVIDIA_TESLA_A100", 16),
    "g2-standard-4": ("NVIDIA_L4", 1),
    "g2-standard-8": ("NVIDIA_L4", 1),
    "g2-standard-12": ("NVIDIA_L4", 1),
    "g2-standard-16": ("NVIDIA_L4", 1),
    "g2-standard-24": ("NVIDIA_L4", 2),
    "g2-standard-32": ("NVIDIA_L4", 1),
    "g2-standard-48": ("NVIDIA_L4", 4),
    "g2-standard-96": ("NVIDIA_L4", 8),
    "g4-standard-48": ("NVIDIA_RTX_PRO_6000", 1),
    "g4-standard-96": ("NVIDIA_RTX_PRO_6000", 2),
    "g4-standard-192": ("NVIDIA_RTX_PRO_6000", 4),
    "g4-standard-384": ("NVIDIA_RTX_PRO_6000", 8),
}

# N1 machines and the GPU counts each may carry, per attachable GPU type.
# Source: [CC] N1 compatibility table, cross-checked with caliban's 2020 copy (facts §A.6).
_C124 = (1, 2, 4)
_V100_LOW = (1, 2, 4, 8)
N1_GPU_COUNTS: dict[str, dict[str, tuple[int, ...]]] = {}
for _m in ("n1-standard-4", "n1-standard-8", "n1-highmem-2", "n1-highmem-4", "n1-highmem-8"):
    N1_GPU_COUNTS[_m] = {"NVIDIA_TESLA_P4": _C124, "NVIDIA_TESLA_P100": _C124,
                         "NVIDIA_TESLA_T4": _C124, "NVIDIA_TESLA_V100": _V100_LOW}
for _m in ("n1-standard-16", "n1-highmem-16", "n1-highcpu-16"):
    N1_GPU_COUNTS[_m] = {"NVIDIA_TESLA_P4": _C124, "NVIDIA_TESLA_P100": _C124,
                         "NVIDIA_TESLA_T4": _C124, "NVIDIA_TESLA_V100": (2, 4, 8)}
for _m in ("n1-standard-32", "n1-highmem-32", "n1-highcpu-32"):
    N1_GPU_COUNTS[_m] = {"NVIDIA_TESLA_P4": (2, 4), "NVIDIA_TESLA_P100": (2, 4),
                         "NVIDIA_TESLA_T4": (2, 4), "NVIDIA_TESLA_V100": (4, 8)}
for _m in ("n1-standard-64", "n1-standard-96", "n1-highmem-64", "n1-highmem-96",
           "n1-highcpu-96"):
    N1_GPU_COUNTS[_m] = {"NVIDIA_TESLA_P4": (4,), "NVIDIA_TESLA_T4": (4,),
                         "NVIDIA_TESLA_V100": (8,)}
N1_GPU_COUNTS["n1-highcpu-64"] = {"NVIDIA_TESLA_P4": (4,), "NVIDIA_TESLA_P100": (4,),
                                  "NVIDIA_TESLA_T4": (4,), "NVIDIA_TESLA_V100": (8,)}
del _m

# TPU machines with a topology (TPU VMs). Value: (TPU enum implied, or None where the API
# has no enum for that generation; allowed tpuTopology values; chips per host).
# Source: [CC] TPU section (facts §A.7). Users write these as machineType + tpuTopology with
# no acceleratorType/Count (corpus 055, 056, 073; the [CC] gcloud examples).
TPU_VM_MACHINES: dict[str, tuple[str | None, tuple[str, ...], int]] = {
    "ct5lp-hightpu-1t": ("TPU_V5_LITEPOD", ("1x1",), 1),
    "ct5lp-hightpu-4t": ("TPU_V5_LITEPOD",
                         ("2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"), 4),
    "ct5lp-hightpu-8t": ("TPU_V5_LITEPOD", ("2x4",), 8),
    "ct6e-standard-1t": (None, ("1x1",), 1),
    "ct6e-standard-4t": (None, ("2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"), 4),
    "ct6e-standard-8t": (None, ("2x4",), 8),
    "tpu7x-standard-4t": (None, ("2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8",
                                 "4x8x8", "8x8x8", "8x8x16"), 4),
}

# Legacy TPU-node machine: TPU_V2/TPU_V3 with 8 cores, or a pod slice of a multiple of 32.
# Source: [CC] TPU section (facts §A.7).
CLOUD_TPU = "cloud-tpu"
CLOUD_TPU_TYPES: tuple[str, ...] = ("TPU_V2", "TPU_V3")

VERTEX_MACHINES: frozenset[str] = frozenset(
    [f"{family}-{n}" for family, sizes in _CPU_FAMILIES.items() for n in sizes]
    + list(FIXED_GPU_MACHINES) + list(TPU_VM_MACHINES) + [CLOUD_TPU]
)

# Legacy name -> (Vertex machine, accelerator enum or None, count, note) for migration.
# The Compute Engine equivalents are unverified (facts §B.5: only standard_gpu ~ n1-standard-8
# + K80 has a secondary source), hence "approximate" in every note. K80/P100 mappings keep
# the original GPU so the Vertex validator refuses them as retired instead of silently
# changing the hardware.
_APPROX = "approximate: the legacy name has no documented Compute Engine equivalent"
LEGACY_TO_VERTEX: dict[str, tuple[str, str | None, int, str]] = {
    "standard": ("n1-standard-4", None, 0, _APPROX),
    "large_model": ("n1-highmem-8", None, 0, _APPROX),
    "complex_model_s": ("n1-highcpu-16", None, 0, _APPROX + "; commonly cited as n1-highcpu-8,"
                        " which Vertex training does not offer, so the next size up is used"),
    "complex_model_m": ("n1-highcpu-16", None, 0, _APPROX),
    "complex_model_l": ("n1-highcpu-32", None, 0, _APPROX),
    "standard_gpu": ("n1-standard-8", "NVIDIA_TESLA_K80", 1,
                     _APPROX + "; K80 is retired, choose another GPU"),
    "complex_model_m_gpu": ("n1-highcpu-16", "NVIDIA_TESLA_K80", 4,
                            _APPROX + "; K80 is retired, choose another GPU"),
    "complex_model_l_gpu": ("n1-highcpu-32", "NVIDIA_TESLA_K80", 8,
                            _APPROX + "; K80 is retired, choose another GPU"),
    "standard_p100": ("n1-standard-4", "NVIDIA_TESLA_P100", 1,
                      _APPROX + "; P100 is retired, choose another GPU"),
    "complex_model_m_p100": ("n1-highcpu-16", "NVIDIA_TESLA_P100", 4,
                             _APPROX + "; P100 is retired, choose another GPU"),
    "standard_v100": ("n1-standard-4", "NVIDIA_TESLA_V100", 1, _APPROX),
    "large_model_v100": ("n1-highmem-8", "NVIDIA_TESLA_V100", 1, _APPROX),
    "complex_model_m_v100": ("n1-highcpu-16", "NVIDIA_TESLA_V100", 4, _APPROX),
    "complex_model_l_v100": ("n1-highcpu-32", "NVIDIA_TESLA_V100", 8, _APPROX),
    "cloud_tpu": ("cloud-tpu", "TPU_V2", 8, "approximate: assumes the legacy default of one "
                  "TPU v2 (8 cores); if the job set acceleratorConfig, use its type instead"),
}

# vCPUs and memory (GB) of the machines that can carry GPUs, to pick the smallest one.
# Source: Compute Engine machine-family docs (general-purpose N1; accelerator-optimized
# A2/A3/A4/A4X/G2/G4): https://cloud.google.com/compute/docs/machine-resource and
# https://cloud.google.com/compute/docs/accelerator-optimized-machines
MACHINE_SHAPES: dict[str, tuple[int, float]] = {
    "n1-standard-4": (4, 15), "n1-standard-8": (8, 30), "n1-standard-16": (16, 60),
    "n1-standard-32": (32, 120), "n1-standard-64": (64, 240), "n1-standard-96": (96, 360),
    "n1-highmem-2": (2, 13), "n1-highmem-4": (4, 26), "n1-highmem-8": (8, 52),
    "n1-highmem-16": (16, 104), "n1-highmem-32": (32, 208), "n1-highmem-64": (64, 416),
    "n1-highmem-96": (96, 624),
    "n1-highcpu-16": (16, 14.4), "n1-highcpu-32": (32, 28.8), "n1-highcpu-64": (64, 57.6),
    "n1-highcpu-96": (96, 86.4),
    "a2-highgpu-1g": (12, 85), "a2-highgpu-2g": (24, 170), "a2-highgpu-4g": (48, 340),
    "a2-highgpu-8g": (96, 680), "a2-megagpu-16g": (96, 1360),
    "a2-ultragpu-1g": (12, 170), "a2-ultragpu-2g": (24, 340), "a2-ultragpu-4g": (48, 680),
    "a2-ultragpu-8g": (96, 1360),
    "a3-highgpu-1g": (26, 234), "a3-highgpu-2g": (52, 468), "a3-highgpu-4g": (104, 936),
    "a3-highgpu-8g": (208, 1872), "a3-megagpu-8g": (208, 1872),
    "a3-ultragpu-8g": (224, 2952), "a4-highgpu-8g": (224, 3968), "a4x-highgpu-4g": (140, 884),
    "g2-standard-4": (4, 16), "g2-standard-8": (8, 32), "g2-standard-12": (12, 48),
    "g2-standard-16": (16, 64), "g2-standard-24": (24, 96), "g2-standard-32": (32, 128),
    "g2-standard-48": (48, 192), "g2-standard-96": (96, 384),
    "g4-standard-48": (48, 180), "g4-standard-96": (96, 360), "g4-standard-192": (192, 720),
    "g4-standard-384": (384, 1440),
}

# [CC] warns that GPUs on very small machines such as n1-highmem-2 may break logging, so
# they are never *chosen* for the user (they remain valid when written explicitly).
_NOT_CHOSEN = frozenset({"n1-highmem-2"})

DEFAULT_VERTEX_MACHINE = "n1-standard-4"

# Boot disks. Source: [CC], [DD-AIP] DiskSpec (facts §A.9).
BOOT_DISK_TYPES_VERTEX: tuple[str, ...] = ("pd-ssd", "pd-standard", "hyperdisk-balanced")
DISK_SIZE_RANGE: tuple[int, int] = (100, 64000)
_HYPERDISK_DEFAULT = frozenset({"a3-ultragpu-8g", "a4-highgpu-8g"})

_GPU_MACHINE_FAMILIES = "N1, A2, A3, A4, G2 and G4"


def _counts(counts: tuple[int, ...]) -> str:
    return ", ".join(str(c) for c in counts)


def machine_suggestions(machine: str) -> list[str]:
    """Close Vertex training machine names for a did-you-mean hint."""
    return suggest.close(machine, sorted(VERTEX_MACHINES), n=3)


def implied_accelerator(machine: str) -> tuple[str, int] | None:
    """(accelerator enum, count) fixed by an accelerator-optimized machine, else None."""
    return FIXED_GPU_MACHINES.get(machine)


def omits_accelerator(machine: str) -> bool:
    """True for TPU VM machines (v5e/v6e/7x): the machine implies the TPU, and the request
    carries ``tpuTopology`` instead of ``acceleratorType``/``acceleratorCount``."""
    return machine in TPU_VM_MACHINES


def tpu_topologies(machine: str) -> tuple[str, ...]:
    """Allowed ``tpuTopology`` values for a TPU VM machine (empty for other machines)."""
    entry = TPU_VM_MACHINES.get(machine)
    return entry[1] if entry else ()


def topology_chips(topology: str) -> int:
    """Number of chips in a topology string (``"4x4"`` -> 16, ``"2x2x1"`` -> 4)."""
    chips = 1
    for part in topology.split("x"):
        chips *= int(part)
    return chips


def default_boot_disk_type(machine: str) -> str:
    """The boot disk type Vertex uses when ``diskSpec.bootDiskType`` is unset ([CC])."""
    return "hyperdisk-balanced" if machine in _HYPERDISK_DEFAULT else "pd-ssd"


def _hint_for(accel: str, count: int | None) -> str:
    best = smallest_vertex_machine(accel, count) if count else None
    return f" (for example {best})" if best else ""


def _accel(message: str, hint: str | None = None) -> Problem:
    return Problem("machine-accelerator", "accelerator.type", message, hint)


def _count(message: str) -> Problem:
    return Problem("accelerator-count", "accelerator.count", message)


def _takers(accel: str, count: int) -> str:
    """"; A × N needs M": the machine(s) taking the count asked for, to end a count error."""
    fixed = sorted(m for m, row in FIXED_GPU_MACHINES.items() if row == (accel, count))
    if fixed:
        return f"; {accel} × {count} needs {' or '.join(fixed)}"
    smallest = smallest_vertex_machine(accel, count)
    return (f"; {accel} × {count} fits {smallest} (the smallest machine taking it)"
            if smallest else "")


def _check_gpu_on_machine(machine: str, accel: str, count: int) -> list[Problem]:
    fixed = FIXED_GPU_MACHINES.get(machine)
    if fixed is not None:
        want, want_count = fixed
        if accel != want:
            return [_accel(f"{accel} is not available on {machine}; {machine} comes with "
                           f"{want_count} x {want}{_hint_for(accel, count)}")]
        if count != want_count:
            return [_count(f"{accel} on {machine} needs acceleratorCount {want_count}"
                           f"{_takers(accel, count)}")]
        return []
    n1 = N1_GPU_COUNTS.get(machine)
    if n1 is not None:
        allowed = n1.get(accel)
        if allowed is None:
            if any(accel in row for row in N1_GPU_COUNTS.values()):
                return [_accel(f"{accel} cannot be attached to {machine}"
                               f"{_hint_for(accel, count)}")]
            return [_accel(f"{accel} cannot be attached to N1 machines such as {machine}"
                           f"{_hint_for(accel, count)}")]
        if count not in allowed:
            return [_count(f"{accel} on {machine} allows acceleratorCount {_counts(allowed)}, "
                           f"not {count}{_takers(accel, count)}")]
        return []
    return [Problem("machine-accelerator", "machineType", f"{machine} cannot take GPUs; GPUs "
                    f"are only available on {_GPU_MACHINE_FAMILIES} machines"
                    f"{_hint_for(accel, count)}")]


def _check_tpu_node(accel: str | None, count: int | None) -> list[Problem]:
    if accel is None:
        return [Problem("machine-accelerator", "machineType", f"{CLOUD_TPU} needs "
                        "acceleratorType TPU_V2 or TPU_V3 and acceleratorCount 8 (or a multiple "
                        "of 32 for a pod slice)")]
    if accel not in CLOUD_TPU_TYPES:
        return [_accel(f"{accel} is not available on {CLOUD_TPU}; it takes TPU_V2 or TPU_V3")]
    if count != 8 and (count is None or count % 32 != 0):
        return [_count(f"{accel} on {CLOUD_TPU} needs acceleratorCount 8, or a multiple of 32 "
                       f"for a pod slice, not {count}")]
    return []


def _check_tpu_vm(machine: str, accel: str | None, topology: str | None) -> list[Problem]:
    implied, allowed, _ = TPU_VM_MACHINES[machine]
    problems = []
    if accel is not None:
        problems.append(Problem(
            "machine-accelerator", "accelerator.count",
            f"{machine} implies its TPU{f' ({implied})' if implied else ''}; leave "
            "acceleratorType and acceleratorCount unset and give tpuTopology"))
    if topology is None:
        problems.append(Problem("tpu-topology", "machineType", f"{machine} needs tpuTopology, "
                                f"one of {', '.join(allowed)}"))
    elif topology not in allowed:
        problems.append(Problem("tpu-topology", "tpuTopology", f"tpuTopology {topology!r} is "
                                f"not valid for {machine}; use one of {', '.join(allowed)}"))
    return problems


def check_vertex(machine: str, accel: str | None, count: int | None,
                 tpu_topology: str | None = None, config: str = "") -> list[Problem]:
    """Problems with one Vertex ``machineSpec``; an empty list means it is valid. Each names
    the pool key it is about (machineType, accelerator.type, accelerator.count, tpuTopology).

    ``accel`` is an API enum (run names through ``accelerators.canonical`` first) or None.
    Checks: training machine type, accelerator enum and retirement, type/count pairing,
    allowed counts per machine, machines that need an accelerator, and ``tpuTopology``.
    ``config`` names the repo config in the hint for a machine newer than the tables.
    """
    if machine not in VERTEX_MACHINES:
        if machine in LEGACY_TO_VERTEX:
            target, gpu, n, _ = LEGACY_TO_VERTEX[machine]
            with_gpu = f" with {n} x {gpu}" if gpu else ""
            return [Problem("legacy-machine", "machineType", f"{machine!r} is a legacy AI "
                            "Platform machine name, not a Vertex AI machine type; the closest "
                            f"Vertex machine is {target}{with_gpu}")]
        close = machine_suggestions(machine)
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        # The enum is checked whatever the machine: ignoring unknown-machine (a machine newer
        # than the tables) must not let an accelerator the API has no name for through.
        return [Problem("unknown-machine", "machineType",
                        f"{machine!r} is not a Vertex AI training machine type{hint}",
                        launched_later("extraMachineTypes", config))] + (
            [Problem("accelerator-type", "accelerator.type",
                     f"{accel!r} is not a Vertex AI accelerator type",
                     launched_later("extraAccelerators", config))]
            if accel is not None and accel not in VERTEX_TYPES else [])
    if machine in TPU_VM_MACHINES:
        return _check_tpu_vm(machine, accel, tpu_topology)
    if accel is None and count == 0:
        count = None  # the SDKs send acceleratorCount 0 for CPU-only pools
    problems: list[Problem] = []
    if tpu_topology is not None:
        problems.append(Problem("tpu-topology", "tpuTopology", "tpuTopology is only valid on "
                                f"TPU VM machines ({', '.join(TPU_VM_MACHINES)}), not on "
                                f"{machine}"))
    if (accel is None) != (count is None):
        # Server message: "Both `accelerator_type` and `accelerator_count` should be
        # specified or none." (prefect-gcp issue #175).
        problems.append(Problem("accelerator-pair", "accelerator.count" if accel else
                                "machineType", "acceleratorType and acceleratorCount must be "
                                "given together"))
        return problems
    if count is not None and count < 1:
        return problems + [_count(f"acceleratorCount must be at least 1, not {count}")]
    if accel is not None and accel not in VERTEX_TYPES:
        return problems + [Problem("accelerator-type", "accelerator.type",
                                   f"{accel!r} is not a Vertex AI accelerator type",
                                   launched_later("extraAccelerators", config))]
    if accel in RETIRED:
        return problems + [Problem("retired-accelerator", "accelerator.type", RETIRED[accel])]
    if machine == CLOUD_TPU:
        return problems + _check_tpu_node(accel, count)
    if accel is None:
        fixed = FIXED_GPU_MACHINES.get(machine)
        if fixed is not None:
            # The [CC] examples always spell the GPU out, and the server pairs type and count.
            problems.append(Problem("machine-accelerator", "machineType", f"{machine} needs "
                                    f"acceleratorType {fixed[0]} and acceleratorCount {fixed[1]}"))
        return problems
    assert count is not None  # paired with accel above
    if is_tpu(accel):
        return problems + [_accel(f"{accel} is not available on {machine}"
                                  f"{_hint_for(accel, count)}")]
    return problems + _check_gpu_on_machine(machine, accel, count)


def _smallest(candidates: list[str]) -> str | None:
    ranked = sorted(candidates, key=lambda m: (*MACHINE_SHAPES[m], m))
    return ranked[0] if ranked else None


def smallest_vertex_machine(accel: str, count: int) -> str | None:
    """The smallest valid Vertex training machine (fewest vCPUs, then least memory) that
    carries ``count`` x ``accel``; None if no machine does or the accelerator is retired."""
    if accel in RETIRED or accel not in VERTEX_TYPES:
        return None
    if accel in CLOUD_TPU_TYPES:
        return CLOUD_TPU if count == 8 or (count > 0 and count % 32 == 0) else None
    if is_tpu(accel):
        exact = [m for m, (t, _, per_host) in TPU_VM_MACHINES.items()
                 if t == accel and per_host == count]
        if exact:
            return exact[0]
        multi = [m for m, (t, topos, _) in TPU_VM_MACHINES.items()
                 if t == accel and any(topology_chips(x) == count for x in topos)]
        return multi[0] if multi else None
    candidates = [m for m, fixed in FIXED_GPU_MACHINES.items() if fixed == (accel, count)]
    candidates += [m for m, row in N1_GPU_COUNTS.items()
                   if count in row.get(accel, ()) and m not in _NOT_CHOSEN]
    return _smallest(candidates)


def default_tpu_topology(machine: str, chips: int | None = None) -> str | None:
    """The topology to use for a TPU VM machine: the only one allowed, or the one with
    ``chips`` chips; None when that is ambiguous or impossible."""
    allowed = tpu_topologies(machine)
    if chips is None:
        return allowed[0] if len(allowed) == 1 else None
    matching = [t for t in allowed if topology_chips(t) == chips]
    return matching[0] if len(matching) == 1 else None
