"""Redaction: what `diff` prints never holds a secret. Env values a spec marks as secret compile
to ``<secret:KEY>`` markers; values that look like credentials (by env name, flag or key name,
or shape) are shown as ``<redacted>``, in field values and in diagnostics alike."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from ..diagnostics import Diagnostic

REDACTED = "<redacted>"
_SECRET_WORDS = (r"secret|token|passw(?:or)?d|passwd|pwd|api[_-]?key|access[_-]?key|"
                 r"private[_-]?key|credential|auth|webhook|"
                 # "pass" and "dsn" as words: DB_PASS, --db-pass, SENTRY_DSN; not bypass, passes
                 r"(?<![a-z])pass(?![a-z])|(?<![a-z])dsn(?![a-z])|"
                 # "key" as a word of the name: api_key, --key, sshKey, SSH_KEY; not monkey
                 r"(?-i:(?<![A-Za-z])(?:key|Key|KEY)|(?<=[a-z])Key|(?<=[A-Z])KEY)(?![a-z])")
_SECRET_NAME = re.compile(f"({_SECRET_WORDS})", re.IGNORECASE)
_SECRET_SHAPES = [re.compile(p) for p in (
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key id
    r"\bAIza[0-9A-Za-z_-]{35}\b",  # Google API key
    r"\bgh[pousr]_[A-Za-z0-9]{30,}\b",  # GitHub token
    r"\bgithub_pat_[A-Za-z0-9_]{30,}\b",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b",  # Slack token
    r"\bsk-[A-Za-z0-9_-]{20,}\b",  # OpenAI-style secret key
    r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.",  # JWT
    r"\bya29\.[A-Za-z0-9_-]{20,}",  # Google OAuth access token
    r"\bhttps://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+",  # webhook
    r"://[^/\s:@]+:[^/\s@]+@",  # URL with a password
)]
# The same shapes, for hiding only the secret part of a longer text (a diagnostic, a command).
_SECRET_SPANS = [re.compile(p, re.DOTALL) for p in (
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
    *(p.pattern for p in _SECRET_SHAPES[1:-1]),
)]
_URL_PASSWORD = re.compile(r"(://[^/\s:@'\"]+:)[^/\s@'\"]+@")
# Secrets after a visible prefix, kept so a reader sees what was hidden: an HTTP credential
# (Authorization: Bearer …), a token as a URL's user (a Sentry DSN, https://TOKEN@host) and a
# `-p VALUE` (mysql, psql and friends take the password so).
_SECRET_AFTER = [re.compile(p, re.IGNORECASE) for p in (
    r"\b((?:proxy-)?authorization\s*[:=]\s*(?:(?:bearer|basic|token|digest|negotiate)\s+)?)"
    r"(?!<redacted>)[^\s\"',;]+",
    r"\b(bearer\s+)(?!<redacted>)[A-Za-z0-9._~+/=-]{8,}",
    r"(://)(?!<redacted>)[A-Za-z0-9_-]{16,}(?=@)",
    r"(?<!\S)(-p(?:=|\s+))(?!<redacted>)(?=[^\s-])\S+",
)]
# key=value and --flag=value (or --flag VALUE) inside a text, the key naming a secret:
# api_key=XYZ, --token=abc, password=..., ?access_token=...&
_SECRET_PAIR = re.compile(
    r"(?<![\w.-])(-{0,2}[A-Za-z0-9_.-]*(?:" + _SECRET_WORDS + r")[A-Za-z0-9_.-]*)"
    r"(=|(?<=[A-Za-z0-9_])\s+(?=[^\s-]))(?:(?!<redacted>)[^\s\"'&;,)\]}]+)", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"^<secret:[^>]+>$")
_FLAG = re.compile(r"^(-{1,2}[A-Za-z0-9_.-]+)(=)(.*)$", re.DOTALL)
_MIN_LITERAL = 4  # shorter secret literals are not scrubbed from free text (too many false hits)


def looks_secret(value: str) -> bool:
    """True for strings shaped like a credential (keys, tokens, URLs with passwords)."""
    return any(p.search(value) for p in _SECRET_SHAPES)


def redact_text(text: str, literals: Iterable[str] = ()) -> str:
    """`text` with the secret parts replaced by ``<redacted>``: credential shapes, URL
    passwords, ``key=value`` / ``--flag=value`` / ``--flag VALUE`` pairs whose key names a
    secret, and any of `literals` (values a spec marks as secret by name)."""
    for value in sorted(set(literals), key=len, reverse=True):
        if len(value) >= _MIN_LITERAL and not _PLACEHOLDER.match(value):
            text = text.replace(value, REDACTED)
    for pattern in _SECRET_SPANS:
        text = pattern.sub(REDACTED, text)
    text = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    for pattern in _SECRET_AFTER:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)

    def pair(m: re.Match) -> str:
        # `--flag VALUE` only for dashed flags: "the token expired" is prose, not a pair.
        if m.group(2) != "=" and not m.group(1).startswith("-"):
            return m.group(0)
        return f"{m.group(1)}{'=' if m.group(2) == '=' else ' '}{REDACTED}"
    return _SECRET_PAIR.sub(pair, text)


def _redact_args(items: list) -> list:
    out, hide_next = [], False
    for item in items:
        if not isinstance(item, str):
            out.append(item)
            hide_next = False
            continue
        m = _FLAG.match(item)
        if hide_next and not item.startswith("-"):
            out.append(REDACTED)
        elif m and _secret_flag(m.group(1)) and m.group(3):
            out.append(f"{m.group(1)}={REDACTED}")
        else:
            out.append(_redact(item))
        hide_next = bool(item.startswith("-") and not m and _secret_flag(item))
    return out


def _secret_flag(flag: str) -> bool:
    """A flag whose value is a secret: its name says so (--db-password, --api-key), or -p."""
    return flag == "-p" or bool(_SECRET_NAME.search(flag))


def _redact(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        if set(value) >= {"name", "value"} and isinstance(value.get("value"), str):
            env = dict(value)  # an env entry: hide the value when the name says it is secret
            if not _PLACEHOLDER.match(env["value"]) and (
                    _SECRET_NAME.search(str(env["name"])) or looks_secret(env["value"])):
                env["value"] = REDACTED
            else:
                env["value"] = _redact(env["value"])
            return env
        return {k: _redact(v, k) for k, v in value.items()}
    if isinstance(value, list):
        if key in _ARG_KEYS:
            return _redact_args(value)
        return [_redact(v) for v in value]
    if isinstance(value, str) and not _PLACEHOLDER.match(value):
        return REDACTED if looks_secret(value) else redact_text(value)
    return value


_ARG_KEYS = ("args", "command", "containerArgs", "containerCommand")


def redact(body: dict | None) -> dict | None:
    """A copy of a request body with credential-like values replaced by ``<redacted>``."""
    return None if body is None else _redact(body)


def spec_secrets(data: Any) -> frozenset[str]:
    """The string values of a parsed spec that redaction hides by name (an env variable naming
    a secret, the value after ``--password`` in args), for scrubbing free text."""
    found: set[str] = set()

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if key == "env" and isinstance(v, str) and _SECRET_NAME.search(str(k)):
                    found.add(v)
                walk(v, str(k))
        elif isinstance(value, list):
            if key in _ARG_KEYS:
                hidden = _redact_args([v if isinstance(v, str) else str(v) for v in value])
                found.update(str(v) for v, h in zip(value, hidden, strict=True) if h == REDACTED)
            for v in value:
                walk(v)
    walk(data)
    return frozenset(v for v in found if not _PLACEHOLDER.match(v))


def redact_diagnostic(d: Diagnostic, literals: Iterable[str] = ()) -> Diagnostic:
    """A copy of `d` whose message and hint are redacted like field values."""
    literals = tuple(literals)
    return dataclasses.replace(
        d, message=redact_text(d.message, literals),
        hint=None if d.hint is None else redact_text(d.hint, literals))
