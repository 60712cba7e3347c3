"""Listing jobs as the APIs do: the `filter` expressions they take, and pages."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from typing import Any

from .common import Refusal

VERTEX_FILTER_FIELDS = {"display_name": "displayName", "displayName": "displayName",
                         "state": "state"}
ML_FILTER_FIELDS = {"job_id": "jobId", "jobId": "jobId", "state": "state"}
_TERM = re.compile(r'\s*(?P<key>labels\.[^\s=!]+|[A-Za-z_]+)\s*(?P<op>!=|=)\s*'
                   r'(?P<value>"(?:[^"\\]|\\.)*"|[^\s"]+)\s*(?:AND\b|$)')


def _filter(expression: str, fields: dict[str, str]) -> tuple[Callable[[dict], bool], bool]:
    """A predicate for AIP-160 filters made of ``key=value`` terms joined by AND, and whether
    it reads the job's state (computed on rendering) rather than only what was submitted."""
    terms, pos = [], 0
    while pos < len(expression):
        match = _TERM.match(expression, pos)
        if not match or match.end() == pos:
            raise Refusal(400, "INVALID_ARGUMENT", f"Unsupported filter: {expression!r}.")
        key, value = match["key"], match["value"]
        value = json.loads(value) if value.startswith('"') else value
        if not key.startswith("labels.") and key not in fields:
            raise Refusal(400, "INVALID_ARGUMENT", f"Unsupported filter field {key!r}.")
        terms.append((key, match["op"], value))
        pos = match.end()
        if match[0].rstrip().endswith("AND") and pos >= len(expression):
            raise Refusal(400, "INVALID_ARGUMENT", f"Filter ends with AND: {expression!r}.")

    def get(job: dict, key: str) -> Any:
        if key.startswith("labels."):
            return (job.get("labels") or {}).get(key[len("labels."):])
        return job.get(fields[key])

    uses_state = any(fields.get(k) == "state" for k, _, _ in terms)
    return (lambda job: all((get(job, k) == v) == (op == "=") for k, op, v in terms)), uses_state


def page(names: list[str], render: Callable[[str], dict], submitted: Callable[[str], dict],
          key: str, query: dict, fields: dict, default: int, limit: int) -> dict:
    """One page of jobs. Only the page is rendered, and a filter on what was submitted
    (labels, names) reads the stored job: listing stays cheap as jobs accumulate."""
    expression = query.get("filter", [""])[0].strip()
    if expression:
        keep, uses_state = _filter(expression, fields)
        if uses_state:
            rendered = {n: render(n) for n in names}
            names, render = [n for n in names if keep(rendered[n])], rendered.__getitem__
        else:
            names = [n for n in names if keep(submitted(n))]
    return page_of(names, key, query.get("pageSize", [None])[0], query.get("pageToken", [""])[0],
                  default, limit, render)


def page_of(items: list, key: str, size_value: Any, token: Any, default: int, limit: int,
           render: Callable[[Any], dict] = lambda item: item) -> dict:
    """One page of `items`, each through `render`; pageToken is an opaque offset, pageSize is
    capped at `limit`."""
    try:
        size = int(size_value or default) or default
        start = int(base64.urlsafe_b64decode(str(token)).decode()) if token else 0
    except (ValueError, TypeError) as exc:
        raise Refusal(400, "INVALID_ARGUMENT", "Invalid pageSize or pageToken.") from exc
    if size < 0 or start < 0:
        raise Refusal(400, "INVALID_ARGUMENT", "Invalid pageSize or pageToken.")
    size = min(size, limit)
    out: dict[str, Any] = {}
    if items[start:start + size]:  # Google omits empty repeated fields
        out[key] = [render(i) for i in items[start:start + size]]
    if start + size < len(items):
        out["nextPageToken"] = base64.urlsafe_b64encode(str(start + size).encode()).decode()
    return out


