"""Where training runs, and which accelerators each region offers for training."""

from __future__ import annotations

from compiler.catalog.vertex_machines import FIXED_GPU_MACHINES, TPU_VM_MACHINES

# Vertex AI custom-training regions: every row of the [LOC] feature table, plus asia-south2
# from gcloud's SUPPORTED_TRAINING_REGIONS (facts §A.8).
VERTEX_TRAINING_REGIONS: frozenset[str] = frozenset({
    "africa-south1", "asia-east1", "asia-east2", "asia-northeast1", "asia-northeast2",
    "asia-northeast3", "asia-south1", "asia-south2", "asia-southeast1", "asia-southeast2",
    "australia-southeast1", "australia-southeast2", "europe-central2", "europe-north1",
    "europe-southwest1", "europe-west1", "europe-west2", "europe-west3", "europe-west4",
    "europe-west6", "europe-west8", "europe-west9", "europe-west12", "me-central1",
    "me-central2", "me-west1", "northamerica-northeast1", "northamerica-northeast2",
    "southamerica-east1", "southamerica-west1", "us-central1", "us-east1", "us-east4",
    "us-east5", "us-south1", "us-west1", "us-west2", "us-west3", "us-west4",
})

# Short names used in the region tables below -> the key they stand for. Keys are API enums,
# except pods of TPU v2/v3 and generations with no enum (v6e, 7x), which get their own key.
_SHORT: dict[str, str] = {
    "A100": "NVIDIA_TESLA_A100", "A100-80": "NVIDIA_A100_80GB", "B200": "NVIDIA_B200",
    "GB200": "NVIDIA_GB200", "H100": "NVIDIA_H100_80GB", "H100-MEGA": "NVIDIA_H100_MEGA_80GB",
    "H200": "NVIDIA_H200_141GB", "L4": "NVIDIA_L4", "P4": "NVIDIA_TESLA_P4",
    "P100": "NVIDIA_TESLA_P100", "T4": "NVIDIA_TESLA_T4", "V100": "NVIDIA_TESLA_V100",
    "K80": "NVIDIA_TESLA_K80", "RTX-PRO": "NVIDIA_RTX_PRO_6000",
    "TPU-V2": "TPU_V2", "TPU-V2-POD": "TPU_V2_POD", "TPU-V3": "TPU_V3",
    "TPU-V3-POD": "TPU_V3_POD", "TPU-V5E": "TPU_V5_LITEPOD", "TPU-V6E": "TPU_V6E",
    "TPU-7X": "TPU_7X",
}
TPU_V6E = "TPU_V6E"
TPU_7X = "TPU_7X"

# Accelerators available for *training* per region. Entries marked † in [LOC] ("not
# available for training") are left out here and listed in _INFERENCE_ONLY below.
# Source: [LOC] "Using accelerators" table (facts §A.8).
_VERTEX_TABLE: dict[str, str] = {
    "asia-east1": "P100 T4 TPU-V2 V100 H100-MEGA",
    "asia-east2": "T4",
    "asia-northeast1": "H100 H100-MEGA B200 T4 TPU-V6E",
    "asia-northeast3": "A100 H100 L4 T4",
    "asia-south1": "H100 L4 T4 H200",
    "asia-south2": "H200 RTX-PRO",
    "asia-southeast1": "A100 A100-80 B200 H100 H100-MEGA L4 P4 T4 RTX-PRO",
    "asia-southeast2": "T4",
    "australia-southeast1": "H100-MEGA P4 T4",
    "europe-central2": "T4",
    "europe-north1": "H100-MEGA",
    "europe-west1": "H100 H100-MEGA H200 P100 T4",
    "europe-west2": "H100 L4 T4",
    "europe-west3": "H100 H100-MEGA T4",
    "europe-west4": "A100 A100-80 H100 H100-MEGA H200 B200 L4 P4 T4 V100 P100 RTX-PRO "
                    "TPU-V2 TPU-V2-POD TPU-V3 TPU-V3-POD TPU-V6E",
    "me-central2": "L4",
    "me-west1": "A100",
    "northamerica-northeast1": "P4 T4",
    "northamerica-northeast2": "H100 L4",
    "southamerica-east1": "T4",
    "southamerica-west1": "TPU-V6E",
    "us-central1": "A100 A100-80 B200 H100 H100-MEGA GB200 H200 L4 P4 P100 T4 RTX-PRO "
                   "TPU-V2 TPU-V2-POD TPU-V3 TPU-V5E TPU-V6E TPU-7X V100",
    "us-east1": "A100 B200 L4 P100 T4 RTX-PRO TPU-V5E TPU-V6E V100",
    "us-east4": "A100-80 H100 H100-MEGA H200 B200 GB200 L4 P4 T4 RTX-PRO",
    "us-east5": "A100-80 H100 H100-MEGA H200 TPU-V6E",
    "us-south1": "TPU-V6E B200 H200",
    "us-west1": "H100-MEGA H200 L4 P100 T4 H100 TPU-V5E V100",
    "us-west2": "P4 T4 B200",
    "us-west3": "A100 B200",
    "us-west4": "A100 H100 H100-MEGA T4 TPU-V5E",
}

# [LOC] † entries: listed for the region but not available for training.
_INFERENCE_ONLY: dict[str, str] = {
    "asia-east1": "L4", "asia-northeast1": "A100 L4", "europe-west1": "L4",
    "europe-west3": "L4", "europe-west4": "TPU-V5E", "europe-west6": "L4",
    "me-west1": "A100-80 T4", "southamerica-west1": "T4", "us-south1": "TPU-V5E",
    "us-west4": "L4",
}


def _parse(table: dict[str, str]) -> dict[str, frozenset[str]]:
    return {region: frozenset(_SHORT[s] for s in names.split()) for region, names in table.items()}


VERTEX_REGION_ACCELERATORS: dict[str, frozenset[str]] = _parse(_VERTEX_TABLE)
VERTEX_INFERENCE_ONLY: dict[str, frozenset[str]] = _parse(_INFERENCE_ONLY)

# Legacy AI Platform Training regions (old ml-engine regions page, ◐; facts §B.8).
ML_TRAINING_REGIONS: frozenset[str] = frozenset({
    "us-west1", "us-central1", "us-east1", "us-east4", "europe-west1", "europe-west4",
    "asia-southeast1", "asia-east1", "asia-northeast1",
})

# Legacy GPU/TPU availability by region (~2020), from caliban's copy of the ml-engine docs
# (◐; facts §B.8). Some regions here are not in ML_TRAINING_REGIONS; the sources disagree.
_ML_TABLE: dict[str, str] = {
    "us-west1": "K80 P100 T4 V100",
    "us-west2": "P4",
    "us-central1": "TPU-V2 TPU-V3 K80 P4 P100 T4 V100",
    "us-east1": "K80 P100 T4",
    "us-east4": "P4",
    "northamerica-northeast1": "P4",
    "southamerica-east1": "P100 T4",
    "europe-west1": "K80 P100",
    "europe-west2": "T4",
    "europe-west4": "TPU-V2 TPU-V3 P4 T4 V100",
    "asia-south1": "T4",
    "asia-southeast1": "P4 T4",
    "asia-east1": "K80 P100 V100",
    "asia-northeast1": "T4",
    "asia-northeast3": "T4",
    "australia-southeast1": "P4 P100",
}
ML_REGION_ACCELERATORS: dict[str, frozenset[str]] = _parse(_ML_TABLE)

# TPU VM machine prefix -> region-table key, for generations without an API enum.
_TPU_GENERATION_KEYS = {"ct6e": TPU_V6E, "tpu7x": TPU_7X}

_POD_KEYS = {"TPU_V2": "TPU_V2_POD", "TPU_V3": "TPU_V3_POD"}


def _vertex_key(accel: str, count: int | None) -> str:
    # cloud-tpu with 32 or more cores is a pod slice, which [LOC] lists separately.
    if accel in _POD_KEYS and count is not None and count >= 32:
        return _POD_KEYS[accel]
    return accel


def vertex_accelerator_in_region(region: str, accel: str, count: int | None = None) -> bool:
    """True if Vertex offers ``accel`` for training in ``region``.

    Pass ``count`` for TPU_V2/TPU_V3 so that 32+ cores are checked as a pod slice.
    """
    if region not in VERTEX_TRAINING_REGIONS:
        return False
    return _vertex_key(accel, count) in VERTEX_REGION_ACCELERATORS.get(region, frozenset())


def _machine_key(machine: str) -> str | None:
    if machine in FIXED_GPU_MACHINES:
        return FIXED_GPU_MACHINES[machine][0]
    if machine in TPU_VM_MACHINES:
        return TPU_VM_MACHINES[machine][0] or _TPU_GENERATION_KEYS[machine.split("-")[0]]
    return None


def vertex_machine_in_region(region: str, machine: str) -> bool:
    """True if the accelerator a machine implies (A2/A3/A4/G2/G4 GPUs, TPU v5e/v6e/7x) is
    offered for training in ``region``; other machines only need a training region."""
    if region not in VERTEX_TRAINING_REGIONS:
        return False
    key = _machine_key(machine)
    return key is None or key in VERTEX_REGION_ACCELERATORS.get(region, frozenset())


def regions_with(accel: str, count: int | None = None) -> list[str]:
    """Sorted Vertex training regions offering ``accel`` (an enum, or TPU_V6E / TPU_7X)."""
    key = _vertex_key(accel, count)
    return sorted(r for r, keys in VERTEX_REGION_ACCELERATORS.items()
                  if key in keys and r in VERTEX_TRAINING_REGIONS)


def regions_with_machine(machine: str) -> list[str]:
    """Sorted Vertex training regions where ``machine`` can run (see vertex_machine_in_region)."""
    return sorted(r for r in VERTEX_TRAINING_REGIONS if vertex_machine_in_region(r, machine))


def ml_accelerator_in_region(region: str, accel: str) -> bool:
    """True if the legacy service offered ``accel`` in ``region`` (2020 table, ◐).

    An accelerator the table never mentions (A100, added to ml v1 after it) is not refused:
    there is no source to refuse it with.
    """
    if not any(accel in row for row in ML_REGION_ACCELERATORS.values()):
        return True
    return accel in ML_REGION_ACCELERATORS.get(region, frozenset())
