"""The shape of a job config's values, checked once before anything reads them.

Every importer reads the request as the API's types (mappings, lists, scalars); a value of
another shape (`scheduling.strategy: [SPOT]`, `workerPoolSpecs: 7`, an env `name` that is a
list) is a located `import-shape` error here, never a crash deeper in. The types come from the
API's discovery documents (`compiler.discovery`), so every field the API has is covered.
A null field is unset (proto3 JSON), so it is dropped; a null list item or map value is an
error. `mapping` / `listing` / `scalar` do the same for SDK arguments, which have no
discovery schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .. import discovery
from ..diagnostics import Collector
from ..source.jsonpath import child

if TYPE_CHECKING:
    from .loaded import Source

# The discovery schema of the request of each API (sources.ML, sources.VERTEX), and of the
# tuning job fields beside it (`Source.request`, `Source.study`).
REQUEST_SCHEMA = {"ai-platform": ("ml", "GoogleCloudMlV1__Job"),
                  "vertex": ("aiplatform", "GoogleCloudAiplatformV1CustomJob")}
STUDY_SCHEMA = ("aiplatform", "GoogleCloudAiplatformV1HyperparameterTuningJob")
_WANT = {"object": "a mapping", "array": "a list", "scalar": "a single value"}


def check(src: Source) -> None:
    """Drop the request's null fields and report every value of the wrong shape, located in
    the source file."""
    api, schema = REQUEST_SCHEMA[src.api]
    schemas = discovery.load(api)["schemas"]
    found = list(_walk(schemas, {"$ref": schema}, src.request, "$"))
    if src.study is not None:
        api, schema = STUDY_SCHEMA
        found += _walk(discovery.load(api)["schemas"], {"$ref": schema}, src.study, "$")
    for path, message in found:
        src.collector.error(_source_path(src, path), message, code="import-shape")


def _shape(prop: dict) -> str:
    kind = "object" if "$ref" in prop else prop.get("type")
    return kind if kind in ("object", "array", "any") else "scalar"


def _shape_of(value: Any) -> str:
    return "object" if isinstance(value, dict) else "array" if isinstance(value, list) \
        else "scalar"


def _walk(schemas: dict, prop: dict, value: Any, path: str) -> Iterator[tuple[str, str]]:
    want = _shape(prop)
    if want == "any":
        return
    if want != _shape_of(value):
        yield path, f"expected {_WANT[want]}{_named(prop)}, got {_what(value)}"
        return
    if want == "array":
        for i, item in enumerate(value):
            if item is None:
                yield child(path, i), "null in a list: the API takes no null items"
            else:
                yield from _walk(schemas, prop.get("items", {}), item, child(path, i))
        return
    if want != "object":
        return
    node = schemas[prop["$ref"]] if "$ref" in prop else prop
    if "properties" in node:
        props = node["properties"]
        for key in [k for k, v in value.items() if v is None]:
            del value[key]  # proto3 JSON: null is the field unset
        for key, item in value.items():
            if key in props:  # unknown fields are the importers' to name
                yield from _walk(schemas, props[key], item, child(path, str(key)))
    elif "additionalProperties" in node:
        for key, item in value.items():
            if item is None:
                yield child(path, str(key)), "null as a map value: the API takes none"
            else:
                yield from _walk(schemas, node["additionalProperties"], item,
                                 child(path, str(key)))


def _named(prop: dict) -> str:
    """ (a TrainingInput) / (of WorkerPoolSpec): the API message a mapping or list holds."""
    ref = prop.get("$ref") or prop.get("items", {}).get("$ref")
    if not ref:
        return ""
    name = ref.removeprefix("GoogleCloudAiplatformV1").removeprefix("GoogleCloudMlV1__")
    return f" (a {name})" if "$ref" in prop else f" (of {name})"


def _what(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"a string {value!r}"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    return f"the number {value!r}"


def _source_path(src: Source, path: str) -> str:
    """Where request path `path` is in the source file: the request itself (REST), without
    its jobSpec (a gcloud CustomJobSpec file), a tuning job's trialJobSpec, or in snake_case
    (SDK arguments); the first whose top key the file has."""
    top = src.collector.positions
    rest = path[len("$.jobSpec"):] if path.startswith("$.jobSpec") else None
    candidates = [path]
    if rest is not None:
        candidates += ["$.trialJobSpec" + rest, "$" + rest]
    for candidate in list(candidates):
        candidates.append("$" + discovery.to_snake_path(candidate[1:]))
    for candidate in candidates:
        head = candidate.split(".")[1].split("[")[0] if "." in candidate else ""
        if f"$.{head}" in top:
            return candidate
    return path


def mapping(c: Collector, value: Any, at: str, what: str) -> dict:
    """An SDK argument that must be a mapping ({} when absent or refused)."""
    return _typed(c, value, at, what, dict, "a mapping") or {}


def listing(c: Collector, value: Any, at: str, what: str) -> list:
    """An SDK argument that must be a list ([] when absent or refused)."""
    return _typed(c, value, at, what, list, "a list") or []


def scalar(c: Collector, value: Any, at: str, what: str) -> Any:
    """An SDK argument that must be a single value (None when absent or refused)."""
    if isinstance(value, (dict, list)):
        c.error(at, f"{what} must be a single value, not {_what(value)}", code="import-shape")
        return None
    return value


def _typed(c: Collector, value: Any, at: str, what: str, kind: type, name: str) -> Any:
    if value is None or isinstance(value, kind):
        return value
    c.error(at, f"{what} must be {name}, not {_what(value)}", code="import-shape")
    return None
