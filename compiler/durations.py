"""Durations as users write them (90s, 30m, 2h, 1d, 1h30m, 3600) → seconds → google-duration."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
# google.protobuf.Duration: at most 315,576,000,000 s (10,000 years), nanosecond resolution.
MAX_SECONDS = Decimal(315_576_000_000)
RESOLUTION = Decimal("0.000000001")
_PART = re.compile(r"(\d+(?:\.\d+)?)([dhms])")
_COMPOUND = re.compile(r"^(?:\d+(?:\.\d+)?d)?(?:\d+(?:\.\d+)?h)?(?:\d+(?:\.\d+)?m)?(?:\d+(?:\.\d+)?s)?\Z")


def problem(seconds: Decimal) -> str | None:
    """Why an API cannot take this duration, if it cannot."""
    if seconds > MAX_SECONDS:
        return f"longer than the APIs' maximum duration ({MAX_SECONDS}s, 10,000 years)"
    if 0 < seconds < RESOLUTION:
        return "shorter than a nanosecond, the APIs' resolution"
    if seconds % RESOLUTION:
        return ("more precise than a nanosecond, the APIs' resolution (at most 9 digits after "
                f"the point in seconds): {format(seconds.normalize(), 'f')}s cannot be sent "
                "exactly")
    return None


def parse(value: object) -> Decimal | None:
    """Seconds as a Decimal, or None if `value` is not a duration we accept."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Decimal):  # plain seconds read exactly from the text written
        return value if value.is_finite() and value >= 0 else None
    if isinstance(value, int):
        return Decimal(value) if value >= 0 else None
    if isinstance(value, float):
        if value != value or value < 0 or value == float("inf"):
            return None
        return Decimal(repr(value))
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return None
    try:
        return Decimal(text) if re.fullmatch(r"\d+(?:\.\d+)?", text) else _compound(text)
    except InvalidOperation:
        return None


def _compound(text: str) -> Decimal | None:
    if not _COMPOUND.match(text):
        return None
    return sum((Decimal(n) * _UNITS[u] for n, u in _PART.findall(text)), Decimal(0))


def to_google(seconds: Decimal) -> str:
    """google-duration JSON form: "5400s", "1.5s" (at most 9 fractional digits), exactly
    `seconds`: callers check problem() first, which refuses what a Duration cannot carry."""
    if problem(seconds):
        raise ValueError(f"{seconds}s: {problem(seconds)}")
    return f"{format(seconds.normalize(), 'f')}s"


def human(seconds: Decimal) -> str:
    """1h30m style, for explain output."""
    if seconds != int(seconds):
        return f"{format(seconds.normalize(), 'f')}s"
    total = int(seconds)
    parts = []
    for unit, size in _UNITS.items():
        if total >= size:
            parts.append(f"{total // size}{unit}")
            total %= size
    return "".join(parts) or "0s"
