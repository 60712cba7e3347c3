"""Machine catalog for both targets: the one module the normalizer imports.

The Vertex tables live in ``vertex_machines`` and the legacy ml tables in ``ml_machines``;
this module re-exports both so callers need not know the split.
"""

from __future__ import annotations

from compiler.catalog.ml_machines import (
    BOOT_DISK_TYPES_ML,
    ML_CE_MACHINES,
    ML_CLOUD_TPU,
    ML_LEGACY_MACHINES,
    ML_N1_GPU_COUNTS,
    SCALE_TIER_REFUSALS,
    SCALE_TIER_TO_VERTEX,
    SCALE_TIERS,
    check_ml,
    is_ml_legacy_name,
    smallest_ml_machine,
)
from compiler.catalog.vertex_machines import (
    BOOT_DISK_TYPES_VERTEX,
    CLOUD_TPU,
    DEFAULT_VERTEX_MACHINE,
    DISK_SIZE_RANGE,
    FIXED_GPU_MACHINES,
    LEGACY_TO_VERTEX,
    MACHINE_SHAPES,
    N1_GPU_COUNTS,
    TPU_VM_MACHINES,
    VERTEX_MACHINES,
    check_vertex,
    default_boot_disk_type,
    default_tpu_topology,
    implied_accelerator,
    machine_suggestions,
    omits_accelerator,
    smallest_vertex_machine,
    topology_chips,
    tpu_topologies,
)

__all__ = [
    "BOOT_DISK_TYPES_ML", "BOOT_DISK_TYPES_VERTEX", "CLOUD_TPU", "DEFAULT_VERTEX_MACHINE",
    "DISK_SIZE_RANGE", "FIXED_GPU_MACHINES", "LEGACY_TO_VERTEX", "MACHINE_SHAPES",
    "ML_CE_MACHINES", "ML_CLOUD_TPU", "ML_LEGACY_MACHINES", "ML_N1_GPU_COUNTS",
    "N1_GPU_COUNTS", "SCALE_TIERS", "SCALE_TIER_REFUSALS", "SCALE_TIER_TO_VERTEX",
    "TPU_VM_MACHINES", "VERTEX_MACHINES", "check_ml", "check_vertex",
    "default_boot_disk_type",
    "default_tpu_topology", "implied_accelerator", "is_ml_legacy_name", "machine_suggestions",
    "omits_accelerator", "smallest_ml_machine", "smallest_vertex_machine", "topology_chips",
    "tpu_topologies",
]
