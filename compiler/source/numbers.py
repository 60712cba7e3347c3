"""Numbers YAML 1.1 reads otherwise than most readers see them, or that JSON cannot carry.

PyYAML resolves plain scalars by YAML 1.1: `0600` is the octal 384, `1:30` the base-60 90,
`0b1000` the binary 8, `.inf` and `.nan` are floats, and integers have no bound. The policy:
a number is read only where YAML 1.1 and YAML 1.2's core schema (what JSON-schema tools and
editors read) agree on it. `010` is 10 to YAML 1.2, `1:30` and `0b1000` are text to it: each
is refused. `0x10` is 16 to both and is read. A float whose text a double cannot hold
(`1.00000000000000001` is sent as 1.0, `1.0e-400` as 0.0) is refused too, except where the
text itself is read (durations: compiler/normalize/reader.py). Each such number is recorded
as a `Reading` where it is written (compose.py); callers refuse it wherever the number, not its
text, would be used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

# The 64-bit integer range the APIs take ([DD-AIP] IntegerValueSpec bounds, parentIntValues;
# int64 fields travel as JSON strings or numbers).
INT64 = (-(2**63), 2**63 - 1)
# YAML 1.2 / JSON numbers with an exponent that YAML 1.1 (PyYAML) reads as strings: 1e-05, 1E5.
EXPONENT_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)[eE][-+]?\d+$")
# YAML 1.2's core-schema float (an explicit `!!float 1` or `!!float 1e5`, which YAML 1.1's
# pattern, wanting a '.', does not take). https://yaml.org/spec/1.2.2/#1032-tag-resolution
YAML12_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
# Python converts at most this many decimal digits (sys.get_int_max_str_digits), and PyYAML's
# base-60 conversion costs time quadratic in the length: longer integers are not read.
MAX_DIGITS = 4300
_OCTAL = re.compile(r"^[-+]?0[0-7_]+$")
_BINARY = re.compile(r"^[-+]?0b")
# Kinds that are only a double's limits: where the text itself is read, the number is exact.
DOUBLE_ONLY = ("inexact", "underflow")


@dataclass(frozen=True)
class Reading:
    """A number YAML read differently from how it looks, or JSON cannot carry."""

    text: str  # as written
    value: int | float  # as YAML 1.1 (PyYAML) read it
    kind: str  # "octal" | "base-60" | "binary" | "non-finite" | "int64" | DOUBLE_ONLY

    @property
    def code(self) -> str:
        return "inexact-number" if self.kind in DOUBLE_ONLY else "misread-number"

    def problem(self, duration: bool = False) -> tuple[str, str]:
        """(message, hint) for refusing it; `duration` for fields that take 90s, 1h30m."""
        text, value = self.text, self.value
        if self.kind == "underflow":
            return (f"{text} is too small for a double: it would be sent as {value!r}",
                    "write 0 if you meant 0, or a number above about 2.2e-308")
        if self.kind == "inexact":
            return (f"{text} cannot be sent exactly: a double reads {text} as {value!r}",
                    f"write {value!r}: a double holds about 17 significant digits")
        if self.kind == "binary":
            message = (f"YAML 1.1 reads {text} as the binary number {value}; YAML 1.2 reads it "
                       "as text")
            if duration:
                return message, f"write {value}s if you meant {value} seconds"
            return message, f"write {value} if you meant {value}, or '{text}' for text"
        if self.kind == "non-finite":
            return (f"{text} is not a finite number: JSON has no infinity or NaN",
                    "write a finite number")
        if self.kind == "int64":
            return (f"{text} is outside the 64-bit integer range the APIs take",
                    f"at most {INT64[1]}")
        if self.kind == "octal":
            decimal = text.lstrip("+-").lstrip("0_") or "0"
            sign = "-" if text.startswith("-") else ""
            message = f"YAML 1.1 reads {text} as the octal number {value}: a leading 0 means base 8"
            if duration:
                return message, (f"write {sign}{decimal}s if you meant {sign}{decimal} seconds, "
                                 f"or {value}s if you meant octal")
            return message, (f"write {sign}{decimal} if you meant {sign}{decimal}, {value} if you "
                             f"meant octal, or '{text}' for text")
        if duration:
            return (f"YAML 1.1 reads {text} as the base-60 number {value} (seconds)",
                    "write the duration with units: 1m30s, 1h30m, or plain seconds (90)")
        return (f"YAML 1.1 reads {text} as the base-60 number {value}",
                f"write {value} if you meant {value}, or quote it for text")


def reading(text: str, value: Any) -> Reading | None:
    """How an int/float scalar's YAML 1.1 value differs from its look, if it does."""
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return Reading(text, value, "non-finite")
        if ":" in text:
            return Reading(text, value, "base-60")
        written = exact(text)
        if written is not None and written != Decimal(repr(value)):
            return Reading(text, value, "underflow" if value == 0 else "inexact")
        return None
    if ":" in text:
        return Reading(text, value, "base-60")
    if _BINARY.match(text):
        return Reading(text, value, "binary")
    if _OCTAL.match(text) and int(text.replace("_", ""), 10) != value:
        return Reading(text, value, "octal")
    if not INT64[0] <= value <= INT64[1]:
        return Reading(text, value, "int64")
    return None


def exact(text: str) -> Decimal | None:
    """The number a decimal YAML scalar's text means, exactly (1_000.5, .5, 1.0e-400); None
    for other forms (0x10, 1:30, .inf)."""
    try:
        number = Decimal(text.replace("_", ""))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None
