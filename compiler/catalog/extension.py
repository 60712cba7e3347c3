"""Catalog extensions of the repo config: what Google launched after this trainspec release.

`extraRegions`, `extraMachineTypes` and `extraAccelerators: {REGION: [ENUM, ...]}` make the
targets accept a value the catalog does not know, sent as written: with no catalog row there
is nothing to check it against.

They are for Vertex AI, where Google launches hardware. AI Platform (ml v1) is deprecated: its
accelerator enum is closed, so an accelerator it does not have stays refused even if listed;
there a listed region, machine or (known) accelerator-in-region only silences the warnings of
its old, partial tables (◐, facts §B.5, §B.8). `explain` lists the values accepted this
way (explain.marks).
"""

from __future__ import annotations

from dataclasses import dataclass


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

    def hint(self, key: str, also: str | None = None) -> str:
        """`also` (a did-you-mean), then how to accept a newer value: `launched_later`."""
        later = launched_later(key, self.source)
        return f"{also} {later[0].upper()}{later[1:]}" if also else later


NONE = Extension()
CONFIG_FILE = "trainspec.yaml"  # how a message names the repo config when none was found


def launched_later(key: str, source: str = "", what: str = "it") -> str:
    """The hint for a value the catalog does not know: hardware launched after this release
    is accepted by the repo config's extension `key` (extraMachineTypes, ...)."""
    return (f"if {what} launched after this trainspec release, add it to {key} in the repo "
            f"config ({source or CONFIG_FILE})")

