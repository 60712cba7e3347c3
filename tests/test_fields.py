"""The field table (compiler/fields.py) against what states the same facts elsewhere: the
schema's keys, types and enums, the README's spec reference, the gcloud flags import takes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from compiler import discovery, fields, roles, specdoc
from compiler.importers import flags, gcloud

ROOT = Path(__file__).parent.parent
SCHEMA = json.loads((ROOT / "schemas/v1/trainspec.schema.json").read_text(encoding="utf-8"))


def _resolve(node: dict) -> dict:
    ref = node.get("$ref", "")
    return SCHEMA["$defs"][ref.rsplit("/", 1)[1]] if ref.startswith("#/$defs/") and \
        "properties" not in node else node


def _schema_of(row: fields.Row) -> dict:
    node = SCHEMA["properties"]["spec"] if row.scope == fields.JOB else SCHEMA["$defs"]["pool"]
    for key in row.spec.split("."):
        node = _resolve(node)["properties"][key]
    return node


@pytest.mark.parametrize("row", fields.ROWS, ids=lambda r: r.spec)
def test_every_row_is_a_schema_key_of_its_type_and_enum(row: fields.Row) -> None:
    node = _schema_of(row)
    for key, value in row.codec.schema.items():
        assert node.get(key) == value, f"{row.spec}: schema {node} is not {row.codec.schema}"
    assert tuple(node.get("enum", ())) == row.values


@pytest.mark.parametrize("group", ["scheduling", "vertex"])
def test_every_schema_key_of_a_simple_group_has_a_row(group: str) -> None:
    """A key added to spec.scheduling or spec.vertex without its row would be accepted by the
    schema and then silently dropped."""
    keys = SCHEMA["properties"]["spec"]["properties"][group]["properties"]
    assert {f"{group}.{k}" for k in keys} == {r.spec for r in fields.JOB_ROWS
                                             if r.spec.startswith(f"{group}.")}


def _readme_rows() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("## Spec reference", 1)[1].split("\n\n", 2)[2].split("\n\n", 1)[0]
    return [re.split(r"(?<!\\)\|", line.strip())[1:-1] for line in table.splitlines()
            if line.startswith("| `") or line.startswith("| pool")]


def test_the_readme_spec_reference_is_generated_from_the_rows() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text == specdoc.spliced(text), "run: python -m compiler.specdoc --write README.md"


def _names(cell: str, word: str) -> bool:
    return any(re.search(rf"(^|[.\s{{]){re.escape(word)}($|[.\s:}}])", code)
               for code in re.findall(r"`([^`]*)`", cell))


def _says(cell: str, how: str | fields.Refused) -> bool:
    if isinstance(how, fields.Refused):
        return "refused" in cell
    last = how.rsplit(".", 1)[-1]
    wildcard = how.split(".")[0] + ".*"
    return _names(cell, last) or f"`{wildcard}`" in cell \
        or (how.startswith("trainingInput.") and "`trainingInput.*`" in cell)


@pytest.mark.parametrize("row", fields.ROWS, ids=lambda r: r.spec)
def test_the_readme_spec_reference_says_where_each_row_goes(row: fields.Row) -> None:
    key = row.spec.rsplit(".", 1)[-1]
    lines = [cells for cells in _readme_rows() if _names(cells[0] + cells[1], key)]
    assert lines, f"README's spec reference has no line for {row.spec}"
    assert any(_says(cells[2], row.vertex) and _says(cells[3], row.ml) for cells in lines), \
        f"README's spec reference: {row.spec} goes to {row.vertex} / {row.ml}"


def test_every_gcloud_flag_of_a_row_is_an_import_flag() -> None:
    parser = __import__("argparse").ArgumentParser()
    flags.add_arguments(parser)
    known = {opt for action in parser._actions for opt in action.option_strings}
    assert {f for r in fields.ROWS for f in r.gcloud.values()} <= known


def test_rows_name_one_spec_key_and_one_model_attribute_each() -> None:
    for scope in (fields.JOB, fields.POOL):
        rows = [r for r in fields.ROWS if r.scope == scope]
        assert len({r.spec for r in rows}) == len({r.attr for r in rows}) == len(rows)


def _field(api: str, schema: str, path: str) -> dict | None:
    """The discovery document's property at dotted `path` under `schema` (None: no such field)."""
    schemas = discovery.load(api)["schemas"]
    node: dict = {"$ref": schema}
    for key in path.split("."):
        node = schemas[node["$ref"]] if "$ref" in node else node.get("items", node)
        node = node.get("properties", {}).get(key)
        if node is None:
            return None
        node = node.get("items", node) if "$ref" in node.get("items", {}) else node
    return node


@pytest.mark.parametrize("row", fields.ROWS, ids=lambda r: r.spec)
def test_every_row_path_is_a_request_field(row: fields.Row) -> None:
    """Checked against the discovery documents: a typo in a path would send a field the API
    refuses, or (on import) never read one it sends."""
    if isinstance(row.vertex, str):
        root = "GoogleCloudAiplatformV1CustomJob" if row.scope == fields.JOB \
            else "GoogleCloudAiplatformV1WorkerPoolSpec"
        assert _field("aiplatform", root, row.vertex) is not None, row.vertex
    if isinstance(row.ml, str):
        root = "GoogleCloudMlV1__Job" if row.scope == fields.JOB else "GoogleCloudMlV1__ReplicaConfig"
        assert _field("ml", root, row.ml) is not None, row.ml


def test_roles_are_the_schema_pools_and_ml_fields() -> None:
    pools = SCHEMA["properties"]["spec"]["properties"]["pools"]["properties"]
    assert tuple(pools) == roles.NAMES
    # One role per Vertex pool index, but pool 2's second (the reduction server, by its image).
    assert sorted(roles.BY_POOL) == list(range(len(roles.BY_POOL)))
    assert [r.pool for r in roles.ROLES] == sorted(r.pool for r in roles.ROLES)
    assert [r.name for r in roles.ROLES if r.image] == ["reductionServer"]
    for r in roles.ROLES:
        for name in (r.ml_type, r.ml_count, r.ml_config):
            assert name is None or _field("ml", "GoogleCloudMlV1__TrainingInput", name), name
    assert roles.CHIEF.ml_count is None and roles.CHIEF.pool == 0


def test_every_gcloud_flag_of_a_row_is_a_flag_of_its_gcloud_command() -> None:
    commands = {fields.VERTEX: gcloud.VERTEX_VALUE | gcloud.VERTEX_BOOL,
                fields.ML: gcloud.ML_VALUE | gcloud.ML_VALUE_PRE_GA | gcloud.ML_BOOL}
    for row in fields.ROWS:
        for platform, flag in row.gcloud.items():
            assert flag in commands[platform], (row.spec, platform, flag)
    role_flags = {f"--{r.gcloud}-machine-type" for r in roles.ROLES if r.gcloud}
    assert role_flags == {"--master-machine-type", "--worker-machine-type",
                          "--parameter-server-machine-type"} <= gcloud.ML_VALUE
