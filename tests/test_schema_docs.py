"""The published schema documents every field for editors, and its completions track the catalog."""

from __future__ import annotations

import json
from collections.abc import Iterator

from compiler.catalog import accelerators, regions
from compiler.catalog import vertex_machines as vx
from compiler.schema import completions as schemagen
from compiler.schema import validate as schemas


def _published() -> dict:
    return json.loads(schemas.VERSIONS[schemas.CURRENT].read_text(encoding="utf-8"))


def _nodes(node: object, pointer: str = "") -> Iterator[tuple[str, dict]]:
    if isinstance(node, dict):
        yield pointer, node
        for key, value in node.items():
            if key != "defaultSnippets":
                yield from _nodes(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _nodes(value, f"{pointer}/{i}")


def _resolved(schema: dict, node: dict) -> dict:
    ref = node.get("$ref", "")
    return {**schema["$defs"][ref.split("/")[-1]], **node} if ref else node


def test_every_property_has_a_description() -> None:
    schema = _published()
    missing = [f"{pointer}/properties/{name}"
               for pointer, node in _nodes(schema)
               for name, prop in node.get("properties", {}).items()
               if isinstance(prop, dict) and not _resolved(schema, prop).get("description")]
    assert missing == []


def test_every_enum_value_is_described() -> None:
    undescribed = [pointer for pointer, node in _nodes(_published())
                   if "enum" in node and len(node.get("enumDescriptions", [])) != len(node["enum"])]
    assert undescribed == []


def test_markdown_descriptions_link_to_https_pages() -> None:
    for pointer, node in _nodes(_published()):
        text = node.get("markdownDescription")
        if text is not None and "](" in text:
            assert "](http://" not in text, pointer


def test_committed_schema_has_the_catalogs_completions() -> None:
    text = schemas.VERSIONS[schemas.CURRENT].read_text(encoding="utf-8")
    assert text == schemagen.render(schemagen.generate(json.loads(text))), \
        "run `python -m compiler.schema.completions --write` and commit the schema"


def _completions(pointer: str) -> list[str]:
    node = _published()
    for part in pointer.strip("/").split("/"):
        node = node[part]
    return [s["body"] for s in node["defaultSnippets"]]


def test_completions_offer_the_catalog() -> None:
    assert set(_completions("/properties/spec/properties/region")) == (
        regions.VERTEX_TRAINING_REGIONS | regions.ML_TRAINING_REGIONS)
    machines = _completions("/$defs/pool/properties/machineType")
    assert set(vx.VERTEX_MACHINES) <= set(machines) and "complex_model_m" in machines
    types = _completions("/$defs/accelerator/properties/type")
    assert "NVIDIA_L4" in types and "TPU_V2_POD" in types
    # An editor never proposes what every target refuses.
    assert "NVIDIA_TESLA_K80" not in types
    assert all(accelerators.canonical(t) == t for t in types)


def test_completed_fields_accept_values_outside_the_catalog() -> None:
    # A region or machine launched after this release must still pass the schema: the catalog
    # checks (and a repository config) decide, with did-you-mean hints, not the schema.
    spec = {"apiVersion": "trainspec/v1", "kind": "TrainingJob", "metadata": {"name": "j"},
            "spec": {"region": "mars-north1", "container": {"image": "i"},
                     "pools": {"chief": {"machineType": "zz-future-8",
                                         "accelerator": {"type": "FUTURE_GPU"}}}}}
    assert list(schemas.iter_problems(spec)) == []
    for pointer in schemagen.COMPLETED:
        node = _published()
        for part in pointer.strip("/").split("/"):
            node = node[part]
        assert "enum" not in node and "anyOf" not in node, pointer


def test_no_description_replaces_a_pattern_hint() -> None:
    # validate prints a pattern's own description as the hint of its error (compiler/schema/validate.py);
    # a description beside a $ref to a def with a pattern would replace that hint.
    schema = _published()
    for pointer, node in _nodes(schema):
        ref = node.get("$ref", "")
        if ref and "pattern" in schema["$defs"][ref.split("/")[-1]]:
            assert "description" not in node, pointer
