"""Property values as the engine sends them (a `google.protobuf.Struct`) ↔ plain data.

The provider accepts secrets (the engine requires it of a provider that constructs components),
so a secret arrives wrapped in Pulumi's signature object. Job logic works on plain values: the
top-level keys that held a secret are remembered and wrapped again on the way back, so a secret
input (`secretEnv`) stays a secret output. Unknowns (a preview) stay the unknown string, which
`compiler.pulumi_resources.bodies.has_unknown` recognises; numbers are float64 on the wire, as for
the dynamic providers (`restore_ints` makes request bodies canonical again).
"""

from __future__ import annotations

import math
from typing import Any

from google.protobuf import struct_pb2

SIG = "4dabf18193072939515e22adb298388d"  # pulumi.runtime.rpc._special_sig_key
SECRET = "1b47061264138c4ac30d75fd1eb44270"
OUTPUT = "d0e6a833031e9bbcd3f4e8bde6ca49a4"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


def decode(struct: struct_pb2.Struct | None) -> tuple[dict, set[str]]:
    """(plain properties, the top-level keys that held a secret anywhere inside)."""
    secret: set[str] = set()
    plain = {}
    for key, value in (struct.fields.items() if struct is not None else ()):
        found: list[bool] = []
        plain[key] = _plain(_data(value), found)
        if found:
            secret.add(key)
    return plain, secret


def _data(value: struct_pb2.Value) -> Any:
    """`value` as `json_format.MessageToDict` gives it (a number is a float; an unset value is
    None), read directly: the generic printer was most of an unchanged job's decoding."""
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        return {k: _data(v) for k, v in value.struct_value.fields.items()}
    if kind == "list_value":
        return [_data(v) for v in value.list_value.values]
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    if kind == "number_value":
        number = value.number_value
        if not math.isfinite(number):  # as json_format: JSON has no such number
            raise ValueError(f"{number} is not a JSON number")
        return number
    return None


def _plain(value: Any, found: list[bool]) -> Any:
    if isinstance(value, dict):
        sig = value.get(SIG)
        if sig == SECRET:
            found.append(True)
            return _plain(value.get("value"), found)
        if sig == OUTPUT:  # an output value: its value, or unknown
            if value.get("secret"):
                found.append(True)
            return _plain(value["value"], found) if "value" in value else UNKNOWN
        return {k: _plain(v, found) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, found) for v in value]
    return value


def encode(props: dict, secret: set[str] | frozenset[str] = frozenset()) -> struct_pb2.Struct:
    """A Struct of `props`, the keys in `secret` wrapped as secrets; None values are dropped."""
    out = struct_pb2.Struct()
    out.update({k: ({SIG: SECRET, "value": v} if k in secret else v)
                for k, v in props.items() if v is not None})
    return out
