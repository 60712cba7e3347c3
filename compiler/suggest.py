"""Did-you-mean: the one way trainspec finds close names for a hint.

A choice that differs from the word only in case, '-' or '_' comes first (`machine_type` →
`machineType`), then difflib's closest by similarity ratio. Callers phrase the hint.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def _fold(word: object) -> str:
    return str(word).lower().replace("-", "").replace("_", "")


def close(word: object, choices: Iterable[object], n: int = 1, cutoff: float = 0.6) -> list[str]:
    """Up to `n` of `choices` close to `word`, best first."""
    names = [str(c) for c in choices]
    found = difflib.get_close_matches(str(word), names, n=n, cutoff=cutoff)
    same = {_fold(c): c for c in names}.get(_fold(word))
    if same is not None:
        found = [same, *(c for c in found if c != same)][:n]
    return found


def did_you_mean(word: object, choices: Iterable[object]) -> str | None:
    """The hint "did you mean 'x'?" for the closest choice, or None."""
    best = close(word, choices)
    return f"did you mean {best[0]!r}?" if best else None
