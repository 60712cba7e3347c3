"""A compiled validator that says only "valid": the fast path of schema validation.

Most specs of a tree are valid; jsonschema (pure Python) took about a third of compiling one.
jsonschema-rs (a native JSON Schema validator) answers "valid" a hundred times faster, and only
when it says "not valid" does validate.py ask jsonschema for the problems, so every message and
path is jsonschema's, as before. The fast path must never accept what validate.py refuses:

- patterns are rewritten to what validate.py's `_ecma` reads them as, with ASCII classes
  spelled out (`\\d` is [0-9], `\\s` the six ASCII spaces, `.` no line terminator), so
  ECMA-262's Unicode `\\s` never widens them (its `$`, the end of the text, is `_ecma`'s);
- data it would read differently takes the slow path: an integral float (2.0 is an integer
  to JSON Schema, not to trainspec), an integer beyond 2**53 (JSON numbers are doubles), and
  anything it cannot take as JSON (a date, a non-text key, a lone surrogate).

tests/test_schema_fast.py holds the two to the same answer over the golden specs, mutations of
them and each pattern against text built to tell the engines apart.
"""

from __future__ import annotations

from typing import Any

_CLASS = {"d": "0-9", "w": "A-Za-z0-9_", "s": " \\t\\n\\r\\f\\v"}
_NEGATED = {"D": "0-9", "W": "A-Za-z0-9_", "S": " \\t\\n\\r\\f\\v"}
_LIMIT = 2 ** 53


def pattern(text: str) -> str:
    """`text` (an ECMA-262 pattern as validate.py reads it) for a Unicode-aware engine."""
    out, in_class, i = [], False, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt in _CLASS:
                out.append(_CLASS[nxt] if in_class else f"[{_CLASS[nxt]}]")
            elif nxt in _NEGATED:
                if in_class:  # [^\S] and the like: no spec pattern has one
                    raise ValueError(f"a negated class escape inside a class: {text!r}")
                out.append(f"[^{_NEGATED[nxt]}]")
            else:
                out.append(text[i:i + 2])
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
        elif ch == "]" and in_class:
            in_class = False
        elif ch == "." and not in_class:
            ch = "[^\\n\\r\\u2028\\u2029]"
        out.append(ch)
        i += 1
    return "".join(out)


def _rewritten(node: Any) -> Any:
    if isinstance(node, list):
        return [_rewritten(n) for n in node]
    if not isinstance(node, dict):
        return node
    return {k: pattern(v) if k == "pattern" and isinstance(v, str) else _rewritten(v)
            for k, v in node.items()}


_COMPILED: dict[int, tuple[dict, Any]] = {}  # id(schema) → (the schema, kept alive; validator)


def _validator(published: dict) -> Any:
    """The compiled validator, or None where jsonschema-rs is not installed (an environment
    made without the lock): it only speeds up what jsonschema decides anyway."""
    if id(published) not in _COMPILED:
        try:
            import jsonschema_rs
        except ImportError:
            compiled = None
        else:
            compiled = jsonschema_rs.validator_for(_rewritten(published))
        _COMPILED[id(published)] = (published, compiled)
    return _COMPILED[id(published)][1]


def _plain(data: Any) -> bool:
    """Whether `data` is JSON as both validators read it alike (see the module's doc)."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                return False
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, bool) or value is None or isinstance(value, str):
            continue
        elif isinstance(value, int):
            if abs(value) > _LIMIT:
                return False
        elif isinstance(value, float):
            if value.is_integer():
                return False
        else:
            return False
    return True


def valid(published: dict, data: Any) -> bool:
    """True only if `data` is valid against the schema `published` as validate.py checks it;
    False: not known (validate.py finds out, and says why)."""
    if not _plain(data):
        return False
    validator = _validator(published)
    if validator is None:
        return False
    try:
        return bool(validator.is_valid(data))
    except (ValueError, TypeError, OverflowError):  # a string jsonschema-rs cannot take
        return False
