"""Redaction: what `diff` prints never holds a secret. Env values a spec marks as secret compile
to ``<secret:KEY>`` markers; what validate reports as a plaintext secret (compiler/secrets/scan.py,
detect-secrets' detectors: an env value by its variable's name, an argument by its flag, a
token format or a ``key=value`` anywhere) is shown as ``<redacted>``, in field values and in
diagnostics alike: review hides exactly what validate flags."""

from __future__ import annotations

from typing import Any

from ..config.plaintext import ARG_KEYS, args, redact_diagnostic, spec_secrets
from ..secrets.scan import REDACTED, redact_text, scan, secret_kind
from ..secrets.scan import placeholder as _placeholder

__all__ = ["REDACTED", "looks_secret", "redact", "redact_diagnostic", "redact_text",
           "spec_secrets"]


def looks_secret(value: str) -> bool:
    """True for a string holding a credential (a token format, a ``key=value`` pair)."""
    return bool(scan(value))


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
