"""Redaction: what `diff` prints never holds a secret. Env values a spec marks as secret compile
to ``<secret:KEY>`` markers; what validate reports as a plaintext secret (compiler/secrets/scan.py,
detect-secrets' detectors: an env value by its variable's name, an argument by its flag, a
token format or a ``key=value`` anywhere) is shown as ``<redacted>``, in field values and in
diagnostics alike: review hides exactly what validate flags."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from ..diagnostics import Diagnostic
from ..secrets.check import ARG_KEYS, args, found
from ..secrets.scan import scan, secret_kind

REDACTED = "<redacted>"
_PLACEHOLDER = re.compile(r"^<secret:[^>]+>$")
_MIN_LITERAL = 4  # shorter secret literals are not scrubbed from free text (too many false hits)


def _placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.match(value))


def looks_secret(value: str) -> bool:
    """True for a string holding a credential (a token format, a ``key=value`` pair)."""
    return bool(scan(value))


def redact_text(text: str, literals: Iterable[str] = ()) -> str:
    """`text` with the secret parts replaced by ``<redacted>``: each secret the detector finds
    in it (compiler/secrets/scan.py) and any of `literals` (values of the spec validate flags)."""
    for value in sorted(set(literals), key=len, reverse=True):
        if len(value) >= _MIN_LITERAL and not _placeholder(value):
            text = text.replace(value, REDACTED)
    out, at = [], 0
    for f in scan(text):
        if f.end <= at:
            continue
        out += [text[at:max(at, f.start)], REDACTED]
        at = f.end
    return "".join(out) + text[at:]


def _redact_args(items: list) -> list:
    out = [item if not isinstance(item, str) or _placeholder(item) else redact_text(item)
           for item in items]
    for i, flag, _ in args(items):
        if flag.startswith("-"):
            out[i] = f"{flag}={REDACTED}"
        elif flag:
            out[i] = REDACTED
    return out


def _redact(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        if set(value) >= {"name", "value"} and isinstance(value.get("value"), str):
            env = dict(value)  # an env entry: its variable's name says what a secret is
            if not _placeholder(env["value"]) and secret_kind(env["value"], str(env["name"])):
                env["value"] = REDACTED
            else:
                env["value"] = _redact(env["value"])
            return env
        return {k: _redact(v, k) for k, v in value.items()}
    if isinstance(value, list):
        if key in ARG_KEYS:
            return _redact_args(value)
        return [_redact(v) for v in value]
    if isinstance(value, str) and not _placeholder(value):
        return redact_text(value)
    return value


def redact(body: dict | None) -> dict | None:
    """A copy of a request body with credential-like values replaced by ``<redacted>``."""
    return None if body is None else _redact(body)


def spec_secrets(data: Any) -> frozenset[str]:
    """The secrets validate flags in a parsed spec (an env value, the value after
    ``--password`` in args, ...), for scrubbing free text."""
    return frozenset(secret for *_, secrets in found(data) for secret in secrets
                     if not _placeholder(secret))


def redact_diagnostic(d: Diagnostic, literals: Iterable[str] = ()) -> Diagnostic:
    """A copy of `d` whose message and hint are redacted like field values."""
    literals = tuple(literals)
    return dataclasses.replace(
        d, message=redact_text(d.message, literals),
        hint=None if d.hint is None else redact_text(d.hint, literals))
