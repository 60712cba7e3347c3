"""The request body as the Pulumi engine carries it: integers restored, secrets spliced in,
unknown values (a preview) detected, and a body path mapped back to where the spec wrote it."""

from __future__ import annotations

from typing import Any

from pulumi.output import Unknown

from .. import discovery
from ..cloud.rest import ApiError
from ..model import secret_placeholder

ROOT_KEY = "*"  # sourceMap entry for the body as a whole (an empty property key is avoided)
_UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # pulumi.runtime.rpc.UNKNOWN


def source_map(result: Any) -> dict[str, dict[str, str]]:
    """Body path → where it was written ({"at": "file:line:col", "path": spec JSON path})."""
    collector = result.document.collector() if result.document is not None else None
    out: dict[str, dict[str, str]] = {}
    for body_path, spec_path in sorted({ROOT_KEY: "$.spec", **result.origins}.items()):
        pos = collector.locate(spec_path) if collector else None
        at = f"{result.file}:{pos.line}:{pos.column}" if pos else result.file
        out[body_path] = {"at": at, "path": spec_path}
    return out


def secret_keys(request: Any) -> list[str]:
    """Config keys whose placeholders occur in `request`."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value.startswith("<secret:") and value.endswith(">"):
            found.add(value[len("<secret:"):-1])

    walk(request)
    return sorted(found)


def has_unknown(value: Any) -> bool:
    if isinstance(value, Unknown) or value == _UNKNOWN_STRING:
        return True
    if isinstance(value, dict):
        return any(has_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(has_unknown(v) for v in value)
    return False


def restore_ints(api: str, schema: str, body: Any) -> Any:
    """A copy of `body` with integer fields back to ints.

    The engine carries every number as a float64 (`8` arrives as `8.0`); int64 fields are
    already strings in compiled bodies, int32 ones (acceleratorCount, bootDiskSizeGb, priority,
    maxTrials) are restored here, guided by the discovery schema, so POSTed bodies stay canonical.
    Doubles stay as they are.
    """
    schemas = discovery.load(api)["schemas"]

    def walk(prop: dict, value: Any) -> Any:
        if "$ref" in prop:
            prop = schemas.get(prop["$ref"], {})
        if isinstance(value, dict):
            if "properties" in prop:
                props = prop["properties"]
                return {k: walk(props.get(k, {}), v) for k, v in value.items()}
            extra = prop.get("additionalProperties", {})
            return {k: walk(extra, v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(prop.get("items", {}), v) for v in value]
        if (isinstance(value, float) and value.is_integer()
                and prop.get("format") in ("int32", "uint32", "int64", "uint64")):
            return int(value)
        return value

    return walk({"$ref": schema}, body)


def splice_secrets(body: Any, secrets: dict[str, Any]) -> Any:
    """A copy of `body` with each ``<secret:KEY>`` placeholder replaced by ``secrets[KEY]``."""
    wanted = {secret_placeholder(k): v for k, v in (secrets or {}).items()}

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str) and value in wanted:
            return str(wanted[value])
        return value

    return walk(body)


def locate(field: str, smap: dict | None) -> tuple[str, str]:
    """(where, spec path) of a body path, walking up to the nearest mapped ancestor."""
    smap = smap or {}
    path = field
    while True:
        entry = smap.get(path or ROOT_KEY)
        if isinstance(entry, dict):
            return entry.get("at", ""), entry.get("path", "")
        if not path:
            return "", ""
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""


def describe(exc: ApiError, what: str, smap: dict | None = None) -> str:
    """One line: what failed, the API's status and message, violations at file:line:col.
    An allocation quota's 429 (final, never retried) starts at the spec and says which quota,
    where, and how to get more."""
    if exc.quota_exceeded:
        from ..quota import refusal_text  # noqa: PLC0415 - only on this failure

        at, _ = locate("", smap)
        return " ".join(refusal_text(exc, what, at).split())
    code = f"HTTP {exc.status}" if exc.status is not None else "no response"
    text = f"{what}: {code} {exc.status_name or ''}".rstrip() + f": {exc.message}"
    for field, message in exc.field_violations:
        body_path = discovery.server_field_to_body_path(field)
        at, spec_path = locate(body_path, smap)
        where = f"{at}: {spec_path} " if at else ""
        text += f"; {where}({field}): {message}"
    return " ".join(text.split())
