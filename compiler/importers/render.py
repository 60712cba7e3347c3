"""Spec data → YAML text, deterministic, with comments where the importer made a choice.

Emits data, not templates: every scalar is written in a form that PyYAML (the loader
`compiler.source` uses) reads back as the same value, checked by round-tripping it.
"""

from __future__ import annotations

import json
import math
from typing import Any

import yaml

from ..source.jsonpath import child

FLOW_WIDTH = 72  # short scalar lists and mappings are written inline: [a, b], {type: T4, count: 1}
_FLOW_UNSAFE = set(",[]{}")


def render(data: dict, comments: dict[str, list[str]], header: list[str]) -> str:
    """YAML text for `data`; `comments[json_path]` lines go above that key."""
    lines = [f"# {h}" if h else "#" for h in header]
    _mapping(data, "$", 0, comments, lines)
    return "\n".join(lines) + "\n"


def _mapping(data: dict, path: str, indent: int, comments: dict, out: list[str]) -> None:
    pad = " " * indent
    for key, value in data.items():
        p = child(path, key)
        out.extend(f"{pad}# {c}" for c in comments.get(p, ()))
        head = f"{pad}{scalar(key)}:"
        inline = _inline(value, p, comments)
        if inline is not None:
            out.append(f"{head} {inline}")
        elif isinstance(value, dict):
            out.append(head)
            _mapping(value, p, indent + 2, comments, out)
        else:
            out.append(head)
            _sequence(value, p, indent + 2, comments, out)


def _sequence(items: list, path: str, indent: int, comments: dict, out: list[str]) -> None:
    pad = " " * indent
    for i, item in enumerate(items):
        p = child(path, i)
        out.extend(f"{pad}# {c}" for c in comments.get(p, ()))
        inline = _inline(item, p, comments)
        if inline is not None:
            out.append(f"{pad}- {inline}")
            continue
        sub: list[str] = []
        if isinstance(item, dict):
            _mapping(item, p, indent + 2, comments, sub)
        else:
            _sequence(item, p, indent + 2, comments, sub)
        first = next(i for i, line in enumerate(sub) if not line.lstrip().startswith("#"))
        sub[first] = f"{pad}- {sub[first][indent + 2:]}"
        out.extend(sub)


def _inline(value: Any, path: str, comments: dict) -> str | None:
    """The one-line form of `value`, or None when it goes in block style."""
    if not isinstance(value, (dict, list)):
        return scalar(value)
    if not value:
        return "{}" if isinstance(value, dict) else "[]"
    if any(k.startswith(path) and k != path for k in comments):
        return None
    if isinstance(value, dict):
        if any(isinstance(v, (dict, list)) for v in value.values()):
            return None
        parts = [f"{scalar(k, flow=True)}: {scalar(v, flow=True)}" for k, v in value.items()]
        text = "{" + ", ".join(parts) + "}"
    else:
        if any(isinstance(v, (dict, list)) for v in value):
            return None
        text = "[" + ", ".join(scalar(v, flow=True) for v in value) + "]"
    return text if len(text) <= FLOW_WIDTH else None


def scalar(value: Any, flow: bool = False) -> str:
    """A YAML scalar that loads back as exactly `value`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    text = str(value)
    if _plain_ok(text, flow):
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted if _loads(quoted) == text else json.dumps(text)


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    if "e" in text:  # YAML 1.1 floats need a '.' in the mantissa and a signed exponent
        mantissa, exp = text.split("e")
        if "." not in mantissa:
            mantissa += ".0"
        if exp[0] not in "+-":
            exp = "+" + exp
        text = f"{mantissa}e{exp}"
    return text


def _plain_ok(text: str, flow: bool) -> bool:
    if not text or text != text.strip() or "\n" in text or "#" in text or ": " in text:
        return False
    if text.endswith(":") or text[0] in "!&*?|>'\"%@`-[]{},":
        return text[0] == "-" and len(text) > 1 and text[1] not in " " and \
            _plain_ok_rest(text, flow)
    return _plain_ok_rest(text, flow)


def _plain_ok_rest(text: str, flow: bool) -> bool:
    if flow and _FLOW_UNSAFE & set(text):
        return False
    if flow and _loads_flow(text) != [text]:  # ':/' is plain in a block, not inside [...]
        return False
    return _loads(text) == text


# PyYAML's converters raise on text its resolver takes for a number but that has none
# (`0x_`, `-0b_`) or is longer than Python converts: such text is not written plain either.
_UNREADABLE = (yaml.YAMLError, ValueError, LookupError, TypeError)


def _loads_flow(text: str) -> Any:
    try:
        return yaml.safe_load("[" + text + "]")
    except _UNREADABLE:
        return None


def _loads(text: str) -> Any:
    try:
        return yaml.safe_load("v: " + text)["v"]
    except _UNREADABLE:
        return None
