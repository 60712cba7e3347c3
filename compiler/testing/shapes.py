"""The catalog as hardware shapes: each pool's machine × accelerator × count that exists, and
where (the strategies draw valid specs from these)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ..catalog import accelerators, images, machines, regions


@dataclass(frozen=True)
class Shape:
    """One pool's hardware as a spec writes it, valid in the regions listed."""

    machine: str | None
    accel: str | None = None  # written type (API enum or short name)
    count: int | None = None  # written count (None: implied)
    topology: str | None = None
    tpu: bool = False
    flex: bool = False  # usable with FLEX_START (every pool the same FLEX GPU)

    def pool(self) -> dict:
        out: dict[str, Any] = {}
        if self.machine:
            out["machineType"] = self.machine
        if self.accel:
            out["accelerator"] = {"type": self.accel}
            if self.count is not None:
                out["accelerator"]["count"] = self.count
        if self.topology:
            out["tpuTopology"] = self.topology
        return out


def _short(enum: str) -> str:
    # Alternate the API enum and a short name, so both spellings are exercised.
    spellings = [s for s in accelerators._NAMES.get(enum, ("", ()))[1] if "_" not in s]
    return spellings[0] if spellings and len(enum) % 2 else enum


@functools.cache
def vertex_shapes() -> dict[str, tuple[Shape, ...]]:
    """Region → the pool shapes Vertex accepts there, from the catalog tables."""
    from ..targets.vertex import FLEX_START_GPUS

    out: dict[str, list[Shape]] = {r: [] for r in sorted(regions.VERTEX_TRAINING_REGIONS)}

    def add(shape: Shape, accel: str | None, count: int | None, machine: str) -> None:
        for r in out:
            ok = (regions.vertex_accelerator_in_region(r, accel, count) if accel
                  else regions.vertex_machine_in_region(r, machine))
            if ok:
                out[r].append(shape)

    for m in sorted(machines.VERTEX_MACHINES):
        if m in machines.TPU_VM_MACHINES:
            for topo in machines.tpu_topologies(m):
                if not machines.check_vertex(m, None, None, topo):
                    add(Shape(m, topology=topo, tpu=True), None, None, m)
        elif m in machines.FIXED_GPU_MACHINES:
            accel, count = machines.FIXED_GPU_MACHINES[m]
            if not machines.check_vertex(m, accel, count):
                flex = accel in FLEX_START_GPUS
                add(Shape(m, flex=flex), accel, count, m)  # accelerator implied
                add(Shape(m, _short(accel), count, flex=flex), accel, count, m)
                add(Shape(m, accel, flex=flex), accel, count, m)  # count implied
        elif m == machines.CLOUD_TPU:
            for accel in ("TPU_V2", "TPU_V3"):
                add(Shape(m, accel, 8, tpu=True), accel, 8, m)
        elif not machines.check_vertex(m, None, None):
            add(Shape(m), None, None, m)
    for m, row in sorted(machines.N1_GPU_COUNTS.items()):
        for accel, counts in sorted(row.items()):
            for n in counts:
                if not machines.check_vertex(m, accel, n):
                    add(Shape(m, _short(accel), n), accel, n, m)
    for accel in sorted(accelerators.VERTEX_TYPES):  # accelerator only: the compiler picks
        for n in (1, 2, 4, 8):
            pick = machines.smallest_vertex_machine(accel, n)
            if pick and not accelerators.is_tpu(accel) and not machines.check_vertex(pick, accel, n):
                add(Shape(None, _short(accel), n, flex=accel in FLEX_START_GPUS), accel, n, pick)
    return {r: tuple(s) for r, s in out.items() if s}


@functools.cache
def ml_shapes() -> dict[str, tuple[tuple[Shape, ...], tuple[Shape, ...]]]:
    """Region → (Compute Engine shapes, legacy-name shapes) AI Platform accepts there."""
    out = {}
    for r in sorted(regions.ML_TRAINING_REGIONS):
        ce = [Shape(m) for m in sorted(machines.ML_CE_MACHINES) if not machines.check_ml(m, None, None)]
        for m, row in sorted(machines.ML_N1_GPU_COUNTS.items()):
            for accel, counts in sorted(row.items()):
                if accel in accelerators.RETIRED or not regions.ml_accelerator_in_region(r, accel):
                    continue
                ce += [Shape(m, _short(accel), n) for n in counts
                       if not machines.check_ml(m, accel, n)]
        legacy = [Shape(m) for m, (_, accel, _) in sorted(machines.ML_LEGACY_MACHINES.items())
                  if accel is None or (accel not in accelerators.RETIRED and accel != "TPU_V2")]
        if {"TPU_V2", "TPU_V3"} & {a for a in regions.ML_REGION_ACCELERATORS.get(r, ())}:
            legacy += [Shape(machines.ML_CLOUD_TPU, a, 8, tpu=True) for a in ("TPU_V2", "TPU_V3")
                       if regions.ml_accelerator_in_region(r, a)]
        out[r] = (tuple(ce), tuple(legacy))
    return out


PREBUILT = tuple(images.prebuilt_uri(i) for i in ("tf-cpu.2-17.py310", "tf-gpu.2-17.py310",
                                                  "pytorch-gpu.2-4.py310", "ray-cpu.2-47.py311",
                                                  "sklearn-cpu.1-6", "xgboost-cpu.2-1"))
ML_RUNTIMES = tuple(sorted((rt, py) for rt, pys in images.ML_RUNTIME_VERSIONS.items()
                           for py in sorted(pys)))


