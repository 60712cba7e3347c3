"""Conformance of a request body to Google's published discovery documents.

The discovery documents ship inside ``google-api-python-client``
(``googleapiclient/discovery_cache/documents/{aiplatform,ml}.v1.json``), so checking needs no
network. Schema names are the discovery names, e.g. ``GoogleCloudAiplatformV1CustomJob`` and
``GoogleCloudMlV1__Job``.

Paths are camelCase JSON paths into the body: ``jobSpec.workerPoolSpecs[0].machineSpec``; map
entries are written ``labels["team"]``; the body itself is ``""``.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import math
import os
import re
from collections.abc import Iterator
from typing import Any

from . import suggest

APIS = {"aiplatform": "aiplatform.v1.json", "ml": "ml.v1.json"}

_INT_RANGES = {
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint64": (0, 2**64 - 1),
}
_DECIMAL = re.compile(r"^-?\d+\Z")
# google-duration: seconds with at most nanosecond precision and an "s" suffix (proto3 JSON).
_DURATION = re.compile(r"^-?\d+(\.\d{1,9})?s\Z")
_DATETIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)\Z")
_SPECIAL_FLOATS = ("NaN", "Infinity", "-Infinity")
_SEGMENT = re.compile(r'\["(?:[^"\\]|\\.)*"\]|\[\d+\]|\.|[^.\[]+')


@functools.cache
def load(api: str) -> dict:
    """The discovery document of `api` ("aiplatform" or "ml"), read from the installed package."""
    if api not in APIS:
        raise ValueError(f"unknown API {api!r}; expected one of {sorted(APIS)}")
    import googleapiclient  # noqa: PLC0415 - only the package location is needed

    path = os.path.join(os.path.dirname(googleapiclient.__file__), "discovery_cache",
                        "documents", APIS[api])
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def violations(api: str, schema: str, body: Any) -> list[tuple[str, str]]:
    """Every way `body` breaks the discovery schema `schema` of `api`, as (path, message).

    Checks unknown and output-only fields, JSON types, integer formats and ranges, enum values,
    durations, timestamps, bytes, maps and arrays. Deprecated enum values are not violations
    (the API still accepts them); see `deprecations`.
    """
    return [(p, m) for p, m, kind in _walk_root(api, schema, body) if kind == "error"]


def integer_range(api: str, schema: str, field: str) -> tuple[int, int]:
    """The range of integer field `field` of discovery schema `schema`, from its format
    (int32, uint32, int64, uint64); KeyError when the field is no integer."""
    return _INT_RANGES[load(api)["schemas"][schema]["properties"][field]["format"]]


def deprecations(api: str, schema: str, body: Any) -> list[tuple[str, str]]:
    """Deprecated fields and enum values used in `body`, as (path, message); warnings only."""
    return [(p, m) for p, m, kind in _walk_root(api, schema, body) if kind == "deprecated"]


def is_output_only(prop: dict) -> bool:
    """True for fields the server sets; ml v1 marks most of them only in the description."""
    desc = prop.get("description", "").lstrip().lower()
    return bool(prop.get("readOnly")) or desc.startswith(("output only", "[output only]"))


def to_snake_path(path: str) -> str:
    """``jobSpec.workerPoolSpecs[0]`` → ``job_spec.worker_pool_specs[0]`` (map keys untouched)."""
    return "".join(_map_names(path, lambda s: re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", s).lower()))


def to_camel_path(path: str) -> str:
    """``job_spec.worker_pool_specs[0]`` → ``jobSpec.workerPoolSpecs[0]`` (map keys untouched)."""
    return "".join(_map_names(path, lambda s: re.sub(r"_([a-z0-9])", lambda m: m[1].upper(), s)))


def server_field_to_body_path(field: str) -> str:
    """Map a google.rpc.BadRequest field path back to a camelCase body path.

    Google names fields from the request message, so a CustomJob field may come back as
    ``custom_job.job_spec…`` and an ml Job field as ``job.training_input…``; neither body has a
    top-level field of that name, so the prefix is dropped.
    """
    for prefix in ("custom_job.", "customJob.", "job."):
        if field.startswith(prefix):
            field = field[len(prefix):]
            break
    return to_camel_path(field)


def _map_names(path: str, convert) -> Iterator[str]:
    for seg in _SEGMENT.findall(path):
        yield seg if seg == "." or seg.startswith("[") else convert(seg)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _walk_root(api: str, schema: str, body: Any) -> list[tuple[str, str, str]]:
    schemas = load(api)["schemas"]
    if schema not in schemas:
        raise KeyError(f"{api} has no schema {schema!r}")
    return list(_check(schemas, {"$ref": schema}, body, ""))


def _check(schemas: dict, prop: dict, value: Any, path: str) -> Iterator[tuple[str, str, str]]:
    if value is None:
        # proto3 JSON reads null as "unset"; a compiler should omit the field instead.
        yield path, "null is not allowed; omit the field", "error"
        return
    if "$ref" in prop:
        yield from _check_object(schemas, schemas[prop["$ref"]], value, path)
        return
    kind = prop.get("type")
    if kind == "any":
        return
    if kind == "object":
        if "properties" in prop:
            yield from _check_object(schemas, prop, value, path)
        elif not isinstance(value, dict):
            yield path, f"expected an object, got {_json_type(value)}", "error"
        elif "additionalProperties" in prop:
            for key, item in value.items():
                yield from _check(schemas, prop["additionalProperties"], item,
                                  f"{path}[{json.dumps(key, ensure_ascii=False)}]")
        return
    if kind == "array":
        if not isinstance(value, list):
            yield path, f"expected an array, got {_json_type(value)}", "error"
            return
        for i, item in enumerate(value):
            yield from _check(schemas, prop.get("items", {}), item, f"{path}[{i}]")
        return
    yield from _check_scalar(prop, value, path)


def _check_object(schemas: dict, schema: dict, value: Any, path: str):
    if not isinstance(value, dict):
        yield path, f"expected an object, got {_json_type(value)}", "error"
        return
    props = schema.get("properties", {})
    for name, item in value.items():
        where = _join(path, name)
        if name not in props:
            close = suggest.close(name, props)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            yield where, f"unknown field {name!r}{hint}", "error"
        elif is_output_only(props[name]):
            yield where, f"{name!r} is output only; the server sets it", "error"
        else:
            if props[name].get("deprecated"):
                yield where, f"{name!r} is deprecated", "deprecated"
            yield from _check(schemas, props[name], item, where)


def _check_scalar(prop: dict, value: Any, path: str) -> Iterator[tuple[str, str, str]]:
    kind, fmt = prop.get("type"), prop.get("format")
    if fmt in _INT_RANGES:
        yield from _check_int(fmt, value, path)
    elif kind == "number":
        if isinstance(value, bool) or not (isinstance(value, (int, float))
                                           or value in _SPECIAL_FLOATS):
            yield path, f"expected a number, got {_json_type(value)}", "error"
        elif isinstance(value, float) and not math.isfinite(value):
            # JSON has no NaN/Infinity literal: a body holding one cannot be sent as JSON.
            yield path, f"{value!r} is not a finite number; JSON cannot carry it", "error"
    elif kind == "boolean":
        if not isinstance(value, bool):
            yield path, f"expected true or false, got {_json_type(value)}", "error"
    elif kind == "string":
        if not isinstance(value, str):
            yield path, f"expected a string, got {_json_type(value)}", "error"
        elif "enum" in prop:
            yield from _check_enum(prop, value, path)
        else:
            message = _string_format_error(fmt, value)
            if message:
                yield path, message, "error"


def _check_int(fmt: str, value: Any, path: str) -> Iterator[tuple[str, str, str]]:
    # proto3 JSON accepts an integer either as a JSON number or as a decimal string; Google
    # emits 64-bit integers as strings. Floats are refused so emitted payloads stay canonical.
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        yield path, f"expected an integer ({fmt}), got {_json_type(value)}", "error"
        return
    if isinstance(value, str) and not _DECIMAL.match(value):
        yield path, f"expected a decimal integer string ({fmt}), got {value!r}", "error"
        return
    low, high = _INT_RANGES[fmt]
    if not low <= int(value) <= high:
        yield path, f"{value!r} is out of range for {fmt} [{low}, {high}]", "error"


def _check_enum(prop: dict, value: str, path: str) -> Iterator[tuple[str, str, str]]:
    allowed = prop["enum"]
    if value not in allowed:
        close = suggest.close(value, allowed, n=3)
        if close:
            hint = "did you mean " + " or ".join(repr(c) for c in close) + "?"
        else:
            hint = "allowed: " + ", ".join(allowed[:12]) + (", …" if len(allowed) > 12 else "")
        yield path, f"invalid value {value!r} ({hint})", "error"
        return
    flags = prop.get("enumDeprecated") or [False] * len(allowed)
    if flags[allowed.index(value)]:
        yield path, f"{value!r} is deprecated", "deprecated"


def _string_format_error(fmt: str | None, value: str) -> str | None:
    if fmt == "google-duration" and not _DURATION.match(value):
        return f"invalid duration {value!r} (expected seconds with an 's' suffix, e.g. '3600s')"
    if fmt == "google-datetime" and not _DATETIME.match(value):
        return f"invalid timestamp {value!r} (expected RFC 3339, e.g. '2024-01-01T00:00:00Z')"
    if fmt == "byte" and not _is_base64(value):
        return f"invalid bytes {value!r} (expected base64)"
    return None


def _is_base64(value: str) -> bool:
    # Google accepts the standard and the URL-safe alphabet, padded or not.
    try:
        text = value.replace("-", "+").replace("_", "/").rstrip("=")
        base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
