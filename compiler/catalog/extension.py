"""Catalog extensions of the repo config: what Google launched after this trainspec release.

`extraRegions`, `extraMachineTypes` and `extraAccelerators: {REGION: [ENUM, ...]}` make the
targets accept a value the catalog does not know, sent as written: with no catalog row there
is nothing to check it against. `explain` lists each value accepted this way (`marks`).

They are for Vertex AI, where Google launches hardware. AI Platform (ml v1) is deprecated: its
accelerator enum is closed, so an accelerator it does not have stays refused even if listed;
there a listed region, machine or (known) accelerator-in-region only silences the warnings of
its old, partial tables (◐, facts §B.5, §B.8).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import accelerators, machines, regions

if TYPE_CHECKING:
    from ..model import Job


@dataclass(frozen=True)
class Extension:
    regions: frozenset[str] = frozenset()
    machine_types: frozenset[str] = frozenset()
    # (region, accelerator enums) pairs: a tuple, so that Options stays hashable.
    accelerators: tuple[tuple[str, frozenset[str]], ...] = ()
    source: str = ""  # the config file, as messages name it

    def has_region(self, region: str | None) -> bool:
        return region in self.regions

    def has_machine(self, machine: str | None) -> bool:
        return machine in self.machine_types

    def has_accelerator(self, accel: str | None, region: str | None = None) -> bool:
        """`accel` is listed for `region` (for any region when `region` is None)."""
        return any(accel in types for where, types in self.accelerators
                   if region is None or where == region)

    def unchecked(self, machine: str | None, accel: str | None, region: str | None) -> bool:
        """The pool's hardware is (partly) an extension in `region`: the catalog has no row
        to check it against."""
        return self.has_machine(machine) or self.has_accelerator(accel, region)


NONE = Extension()


def marks(job: Job) -> list[str]:
    """`path: value (key in config)` for each value the catalog alone would refuse."""
    ext: Extension = job.extension
    if ext == NONE:
        return []
    vertex = job.platform == "vertex"
    found = []
    known_regions = regions.VERTEX_TRAINING_REGIONS if vertex else regions.ML_TRAINING_REGIONS
    if ext.has_region(job.region) and job.region not in known_regions:
        found.append(f"$.spec.region: {job.region} (extraRegions in {ext.source})")
    for pool in job.pools.values():
        machine, accel = pool.machine_type, pool.accelerator_type
        if ext.has_machine(machine) and not _known_machine(vertex, machine or ""):
            found.append(f"{pool.path}.machineType: {machine} (extraMachineTypes in "
                         f"{ext.source})")
        if accel and ext.has_accelerator(accel) and (
                (vertex and accel not in accelerators.VERTEX_TYPES)  # ml v1's enum is closed
                or not _in_region(vertex, job.region or "", accel, pool.accelerator_count)):
            found.append(f"{pool.path}.accelerator.type: {accel} in {job.region} "
                         f"(extraAccelerators in {ext.source})")
    return found


def _known_machine(vertex: bool, machine: str) -> bool:
    if vertex:
        return machine in machines.VERTEX_MACHINES or machine in machines.LEGACY_TO_VERTEX
    return machine in machines.ML_CE_MACHINES or machine in machines.ML_LEGACY_MACHINES \
        or machine == machines.ML_CLOUD_TPU


def _in_region(vertex: bool, region: str, accel: str, count: int | None) -> bool:
    if vertex:
        return regions.vertex_accelerator_in_region(region, accel, count)
    return regions.ml_accelerator_in_region(region, accel)
