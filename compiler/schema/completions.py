"""Editor completions in the published schema, generated from the catalog.

`python -m compiler.schema.completions` checks that schemas/v1/trainspec.schema.json carries the
catalog's regions, machine types and accelerators; `--write` rewrites it. Only the
`defaultSnippets` of the three fields below are generated; everything else in the schema is
written by hand.

Why `defaultSnippets` (the VS Code schema extension that yaml-language-server and VS Code's
JSON service both read) rather than `enum`: completion must never narrow what the schema
accepts, since a region or machine launched after this release is still valid (a repository
config can add it, and the semantic checks give did-you-mean errors). yaml-language-server
offers the same completions for `examples` and for `anyOf: [true, {enum}]`, but both list every
value in each hover (130 machine types), and `examples` carries no per-value documentation.
Validators ignore the keyword, so `validate`'s messages cannot change.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Callable
from pathlib import Path

from .. import integers
from ..catalog import accelerators, regions
from ..catalog import ml_machines as ml
from ..catalog import vertex_machines as vx
from .validate import CURRENT, VERSIONS

# Generations without an API enum, keyed as in the region tables.
_TPU_NAMES = {regions.TPU_V6E: "TPU v6e", regions.TPU_7X: "TPU 7x"}


def _name(key: str) -> str:
    return _TPU_NAMES.get(key) or accelerators.short_name(key)


def _names(keys) -> str:
    return ", ".join(sorted(_name(k) for k in keys))


def region_completions() -> list[tuple[str, str]]:
    """Every training region of either API, with the accelerators Vertex offers there."""
    rows = []
    for region in sorted(regions.VERTEX_TRAINING_REGIONS | regions.ML_TRAINING_REGIONS):
        parts = []
        if region in regions.VERTEX_TRAINING_REGIONS:
            offered = regions.VERTEX_REGION_ACCELERATORS.get(region, frozenset())
            parts.append("Vertex AI training region; accelerators for training: "
                         + (_names(offered) if offered else "none (CPU only)") + ".")
        if region in regions.ML_TRAINING_REGIONS:
            parts.append("AI Platform Training region.")
        rows.append((region, " ".join(parts)))
    return rows


def _shape(machine: str) -> str:
    if machine in vx.MACHINE_SHAPES:
        cpus, memory = vx.MACHINE_SHAPES[machine]
        return f"{cpus} vCPUs, {memory:g} GB"
    return f"{machine.rsplit('-', 1)[1]} vCPUs"


def _counts(counts: tuple[int, ...]) -> str:
    return "/".join(map(str, counts))


def _vertex_machine(machine: str) -> str:
    if machine in vx.FIXED_GPU_MACHINES:
        accel, count = vx.FIXED_GPU_MACHINES[machine]
        where = regions.regions_with_machine(machine)
        return (f"{_shape(machine)}; {count} × {_name(accel)} (fixed). Vertex regions: "
                + (", ".join(where) or "none listed") + ".")
    if machine in vx.TPU_VM_MACHINES:
        enum, topologies, chips = vx.TPU_VM_MACHINES[machine]
        generation = f"{_name(enum)}, " if enum else ""
        return (f"TPU VM, {generation}{chips} chip(s) per host; tpuTopology "
                f"{', '.join(topologies)}. Vertex regions: "
                + ", ".join(regions.regions_with_machine(machine)) + ".")
    if machine == vx.CLOUD_TPU:
        return ("TPU node with " + " or ".join(_name(t) for t in vx.CLOUD_TPU_TYPES)
                + ": 8 cores, or a pod slice of a multiple of 32.")
    text = _shape(machine)
    if machine in vx.N1_GPU_COUNTS:
        text += "; GPUs: " + ", ".join(f"{_name(a)} ×{_counts(c)}"
                                       for a, c in sorted(vx.N1_GPU_COUNTS[machine].items()))
    else:
        text += "; no GPUs"
    return text + "."


def machine_completions() -> list[tuple[str, str]]:
    """Vertex machine types (also AI Platform's Compute Engine ones), then ml legacy names."""
    on_ml = ml.ML_CE_MACHINES | set(ml.ML_A2_MACHINES)
    rows = [(m, _vertex_machine(m) + (" Vertex and AI Platform." if m in on_ml else " Vertex."))
            for m in sorted(vx.VERTEX_MACHINES)]
    for name, (text, _accel, _count) in sorted(ml.ML_LEGACY_MACHINES.items()):
        rows.append((name, f"AI Platform legacy machine ({text}); ai-platform only."))
    return rows


def accelerator_completions() -> list[tuple[str, str]]:
    """API enums of either API, except those retired on both (short names are accepted too)."""
    rows = []
    for enum in sorted(accelerators.ALL_TYPES):
        if enum in accelerators.RETIRED and enum in accelerators.RETIRED_ML:
            continue
        parts = [_name(enum) + "."]
        if enum in accelerators.RETIRED:
            parts.append("Vertex: retired.")
        elif enum in accelerators.VERTEX_TYPES:
            where = regions.regions_with(enum)
            parts.append("Vertex regions: " + (", ".join(where) or "none listed") + ".")
        if enum in accelerators.ML_TYPES:
            parts.append("AI Platform too." if enum in accelerators.VERTEX_TYPES
                         else "AI Platform only.")
        rows.append((enum, " ".join(parts)))
    return rows


# JSON pointer into the schema → the (value, documentation) rows completed there.
COMPLETED: dict[str, Callable[[], list[tuple[str, str]]]] = {
    "/properties/spec/properties/region": region_completions,
    "/$defs/pool/properties/machineType": machine_completions,
    "/$defs/accelerator/properties/type": accelerator_completions,
}


def _node(schema: dict, pointer: str) -> dict:
    node = schema
    for part in pointer.strip("/").split("/"):
        node = node[part]
    return node


def generate(schema: dict) -> dict:
    """`schema` with the catalog's completions written into the fields of COMPLETED, and each
    integer's bounds from its API formats (compiler/integers.py)."""
    result = copy.deepcopy(schema)
    for pointer, rows in COMPLETED.items():
        _node(result, pointer)["defaultSnippets"] = [
            {"label": value, "description": text, "body": value} for value, text in rows()]
    for pointer, sent in integers.FIELDS.items():
        if isinstance(sent, integers.Sent):
            node = _node(result, pointer)
            node["minimum"], node["maximum"] = sent.bounds()
    return result


def render(schema: dict) -> str:
    """The schema file's text: the formatting the committed file has."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m compiler.schema.completions", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--write", action="store_true", help="rewrite the schema file")
    args = p.parse_args(argv)
    path = Path(VERSIONS[CURRENT])
    text = path.read_text(encoding="utf-8")
    wanted = render(generate(json.loads(text)))
    if text == wanted:
        print(f"{path.name} is up to date with the catalog")
        return 0
    if args.write:
        path.write_text(wanted, encoding="utf-8")
        print(f"wrote {path.name}")
        return 0
    print(f"{path.name} is stale: run `python -m compiler.schema.completions --write`", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
