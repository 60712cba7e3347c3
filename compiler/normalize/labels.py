"""`metadata.labels`: GCP's label syntax, the `trainspec-` prefix trainspec keeps for the
labels it manages (compiler/identity.py), and the number left beside them."""

from __future__ import annotations

from ..diagnostics import Collector
from ..model import MANAGED_LABELS, MAX_LABELS
from ..source.jsonpath import child


def labels(c: Collector, labels: dict, path: str) -> dict[str, str]:
    """The labels with string values; every problem with a key, a value or the count goes to `c`."""
    out: dict[str, str] = {}
    for key, value in labels.items():
        p = child(path, key)
        if not _label_text(key, True):
            c.error(p, f"invalid label key {key!r}",
                    "keys start with a lower-case letter and hold only lower-case "
                    "letters, digits, '_' and '-', 1-63 characters", key=True, code="label-key")
        elif key.startswith("trainspec-"):
            c.error(p, f"label key {key!r} uses the prefix 'trainspec-', reserved for "
                    "labels trainspec manages", key=True, code="label-prefix")
        if isinstance(value, str):
            if not _label_text(value, False):
                c.error(p, f"invalid label value {value!r}", "values hold only lower-case "
                        "letters, digits, '_' and '-', at most 63 characters", code="label-value")
            out[key] = value
    limit = MAX_LABELS - len(MANAGED_LABELS)
    if len(labels) > limit:
        c.error(path, f"{len(labels)} labels: at most {limit} allowed (the API allows "
                f"{MAX_LABELS}; trainspec adds {', '.join(MANAGED_LABELS)} when it "
                "submits the job)", code="label-count")
    return out


def _label_text(text: str, is_key: bool) -> bool:
    if len(text) > 63 or (is_key and not text):
        return False
    if is_key and not _lower_letter(text[0]):
        return False
    return all(_lower_letter(ch) or ch.isdigit() or ch in "_-" for ch in text)


def _lower_letter(ch: str) -> bool:
    # GCP allows international characters; upper-case letters are refused.
    return ch.islower() or (ch.isalpha() and not ch.isascii() and not ch.isupper())
