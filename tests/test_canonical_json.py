"""emit.dumps writes indented JSON with an encoder of its own (json's for indented text is
pure Python, the costliest step of writing a tree): it must be json.dumps's text, byte for
byte, for every value a body can hold, and fall back to json.dumps for any other."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from compiler import emit

GOLDEN = Path(__file__).resolve().parent / "golden"


def _json(value: object) -> str:
    from compiler.diagnostics import json_printable

    return json_printable(json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)) \
        + "\n"


_scalars = st.none() | st.booleans() | st.integers() | st.integers(-2**70, 2**70) \
    | st.floats(allow_nan=False, allow_infinity=False) | st.text()
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(), inner, max_size=4), max_leaves=30)


@settings(derandomize=True, database=None, deadline=None, max_examples=400)
@given(_values)
@example({"a": [1e-05, 1e16, -0.0, 2**53 + 1, "\u2028\x00\"\\", {}, []], "": {"b": None}})
def test_dumps_is_json_dumps_byte_for_byte(value: object) -> None:
    body = value if isinstance(value, dict) else {"value": value}
    assert emit.dumps(body) == _json(body)


@pytest.mark.parametrize("value", [{1: "a"}, {"t": (1, 2)}, {"b": True, "n": {None: 1}},
                                   {"i": 1 == 1}])
def test_what_it_does_not_write_itself_json_dumps_writes(value: dict) -> None:
    assert emit.dumps(value) == _json(value)


@pytest.mark.parametrize("value", [math.nan, math.inf])
def test_a_float_json_cannot_hold_is_still_refused(value: float) -> None:
    with pytest.raises(ValueError):
        emit.dumps({"x": value})


def test_every_golden_body_reads_back_as_written() -> None:
    files = sorted(GOLDEN.glob("*/*.json"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert emit.dumps(json.loads(text)) == text, path
