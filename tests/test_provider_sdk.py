"""The typed Python SDK (compiler/provider/sdk.py) is the schema's: every resource of the schema
has a class whose keyword inputs are its input properties (snake_case) with their types and
whose annotated outputs are its properties with theirs. No type checker is in the lock, so the
signatures are compared with the schema itself."""

from __future__ import annotations

import inspect
import json
import re

import pytest

from compiler import provider
from compiler.provider import sdk

SCHEMA = json.loads(provider.schema_text())
CLASSES = {**sdk.JOBS, "trainspec:index:Specs": sdk.Specs}


def python_type(prop: dict) -> str:
    """The annotation a schema property has in the SDK."""
    kind = prop.get("type") or prop.get("$ref")
    if kind == "array":
        return f"list[{python_type(prop['items'])}]"
    if kind == "object" and prop.get("additionalProperties", {}).get("type") == "string":
        return "dict[str, str]"
    return {"string": "str", "boolean": "bool", "integer": "int", "object": "dict",
            "pulumi.json#/Any": "dict"}[kind]


def snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def outputs(cls: type) -> dict[str, str]:
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__ == sdk.__name__:
            found.update(getattr(klass, "__annotations__", {}))
    return {k: v for k, v in found.items() if v.startswith("pulumi.Output[")}


def test_every_schema_resource_has_an_sdk_class():
    assert set(CLASSES) == set(SCHEMA["resources"])


@pytest.mark.parametrize("token", sorted(SCHEMA["resources"]))
def test_the_inputs_are_the_schema_s(token):
    resource, cls = SCHEMA["resources"][token], CLASSES[token]
    params = dict(inspect.signature(cls.__init__).parameters)
    for name in ("self", "resource_name", "opts"):
        params.pop(name)
    required = set(resource.get("requiredInputs", ()))
    given = {k: v for k, v in resource["inputProperties"].items() if k not in sdk.FROM_OPTIONS}
    assert set(params) == {snake(k) for k in given}
    for key, prop in given.items():
        param = params[snake(key)]
        assert param.kind is inspect.Parameter.KEYWORD_ONLY, key
        typed = f"pulumi.Input[{python_type(prop)}]"
        if key in required:
            assert (param.annotation, param.default) == (typed, inspect.Parameter.empty), key
        else:
            assert (param.annotation, param.default) == (f"{typed} | None", None), key


@pytest.mark.parametrize("token", sorted(SCHEMA["resources"]))
def test_the_outputs_are_the_schema_s(token):
    resource = SCHEMA["resources"][token]
    assert outputs(CLASSES[token]) == {
        k: f"pulumi.Output[{python_type(p)}]" for k, p in resource["properties"].items()}
