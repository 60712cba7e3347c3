"""The published schema documents every field for editors, and its completions track the catalog."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from compiler import discovery, integers, pipeline
from compiler.catalog import accelerators, regions
from compiler.catalog import vertex_machines as vx
from compiler.options import Options
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


def _integer_nodes(schema: dict) -> dict[str, dict]:
    return {pointer: node for pointer, node in _nodes(schema)
            if "integer" in (node["type"] if isinstance(node.get("type"), list)
                             else [node.get("type")])}


# The formats' ranges (protobuf scalar types), written here as the oracle.
FORMAT_RANGES = {"int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1),
                 "int64": (-2**63, 2**63 - 1)}


def test_every_integer_has_the_range_of_its_api_format() -> None:
    """Every integer of the schema is in compiler/integers.py, and its bounds are the range of
    the API formats it is sent as (discovery documents), or tighter with a reason."""
    found = _integer_nodes(_published())
    assert sorted(found) == sorted(integers.FIELDS)
    for pointer, sent in integers.FIELDS.items():
        if not isinstance(sent, integers.Sent):
            assert sent, pointer  # why it is no API integer
            continue
        ranges = [FORMAT_RANGES[discovery.load(api)["schemas"][name]["properties"][field]
                                ["format"]] for api, name, field in sent.to]
        api_low, api_high = max(r[0] for r in ranges), min(r[1] for r in ranges)
        node = found[pointer]
        low, high = node.get("minimum"), node.get("maximum")
        assert low is not None and high is not None, pointer
        if (sent.minimum, sent.maximum) == (None, None):
            assert (low, high) == (api_low, api_high), pointer
        else:
            assert sent.why, f"{pointer}: a bound tighter than the API format needs its reason"
            assert api_low <= low <= high <= api_high, pointer
            assert low == (api_low if sent.minimum is None else sent.minimum), pointer
            assert high == (api_high if sent.maximum is None else sent.maximum), pointer


@pytest.mark.parametrize("where", [
    "  aiPlatform:\n    hyperparameters: {%s: 9223372036854775807}\n",
    "  tuning: {%s: 2147483648}\n"])
@pytest.mark.parametrize("key", ["maxTrials", "maxParallelTrials", "maxFailedTrials"])
def test_an_int32_field_refuses_a_value_beyond_int32(where: str, key: str) -> None:
    if "tuning" in where and key == "maxParallelTrials":
        key = "parallelTrials"
    text = ("apiVersion: trainspec/v1\nkind: TrainingJob\nmetadata: {name: job}\nspec:\n"
            "  platform: ai-platform\n  region: us-central1\n"
            "  container: {image: gcr.io/p/t:1}\n" + where % key)
    result = pipeline.compile_text(text, "s.yaml", Options())
    found = [d for d in result.errors if d.path.endswith("." + key)]
    line = (text.splitlines().index(where.splitlines()[-1] % key)) + 1
    assert found and found[0].position is not None and found[0].position.line == line, \
        [d.format() for d in result.errors]
    assert "2147483647" in found[0].message
