"""Type-checked reads of spec data. Stages after the schema run even on data it refused (so
every problem is reported in one run): each read checks the type and gives an empty or None
value for anything else, never a traceback."""

from __future__ import annotations

from typing import Any


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_int(value: Any) -> int | None:
    """An integer; booleans (an int subclass) are not."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None
