"""plaintext-secret: a credential written in a spec, found by compiler/secrets/scan.py (the
detectors review's redaction reads too). Pure: the spec as written in, one warning per value
out, located at the value, naming the variable or argument and never quoting the value.

Every string of the spec is read: env values by their variable's name, args and command
items by their flag (``--api-key=…`` or ``--api-key …``), every other value (hyperparameter
values, labels, URIs, a description) by the token formats and ``key=value`` pairs in it.
A warning, or an error where a config on the way sets policy.forbidPlaintextSecrets.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from typing import Any

from ..diagnostics import Collector, Diagnostic
from ..secrets.scan import any_token, named_secret, placeholder, redact_text, scan, secret_kind
from ..source.jsonpath import child
from .model import Policy

CODE = "plaintext-secret"
ARG_KEYS = ("args", "command", "containerArgs", "containerCommand")
_FLAG = re.compile(r"^(-{1,2}[A-Za-z0-9_.-]+)=(.*)$", re.DOTALL)


Finding = tuple[str, str, str, tuple[str, ...]]  # what `found` yields


def check(data: Any, layers: tuple[tuple[Policy, str], ...], c: Collector) -> list[Finding]:
    """Report into `c` each value of the spec `data` that holds a secret; returns what was
    found (`literals` of it is `spec_secrets(data)`, without reading the spec again)."""
    forbid_by = next((source for policy, source in layers if policy.forbid_plaintext_secrets),
                     None)
    findings = list(found(data))
    for path, what, fix, _ in findings:
        message = f"{what} holds a plaintext secret: it is committed, compiled and sent as written"
        if forbid_by is not None:
            c.error(path, f"{message} (policy.forbidPlaintextSecrets in {forbid_by})", fix,
                    code=CODE)
        else:
            c.warning(path, message, fix, code=CODE)
    return findings


def found(data: Any, path: str = "$", key: str = "") -> Iterator[Finding]:
    """(JSON path, what holds it, the fix, the secrets) of each value of `data` holding a
    secret, in order. The secrets are for scrubbing from other text (review), never for a
    message."""
    if isinstance(data, dict):
        for k, v in data.items():
            at = child(path, str(k))
            if isinstance(k, str) and scan(k):  # a key is printed in every path below it
                yield at, "a key", _ARG_FIX, _parts(k)
            if key == "env" and isinstance(v, (str, int, float)) and not isinstance(v, bool):
                if secret_kind(str(v), str(k)):
                    yield at, f"env {k}", _env_fix(str(k)), (str(v),)
            else:
                yield from found(v, at, str(k))
    elif isinstance(data, list):
        if key in ARG_KEYS:
            for i, flag, secret in args(data):
                what = f"{key}[{i}]" + (f" ({flag})" if flag else "")
                yield child(path, i), what, _ARG_FIX, secret
        else:
            for i, v in enumerate(data):
                yield from found(v, child(path, i))
    elif isinstance(data, str) and secret_kind(data):
        yield path, key or "the value", _ARG_FIX, _parts(data)


def _parts(text: str) -> tuple[str, ...]:
    return tuple(text[f.start:f.end] for f in scan(text))


_ARG_FIX = ("read it from an env variable that is a stack secret: "
            "env: {NAME: {secret: KEY}} and `pulumi config set --secret trainspec:KEY`")


def _env_fix(name: str) -> str:
    words = [w for w in re.split(r"[^A-Za-z0-9]+", name) if w]
    key = (words[0].lower() + "".join(w.capitalize() for w in words[1:])) if words else "key"
    if not key[0].isalpha():
        key = "k" + key
    return f"write {name}: {{secret: {key}}} and run `pulumi config set --secret trainspec:{key}`"


def args(items: list) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """(index, flag, secrets) of each item of an args or command list holding a secret: the
    value of a ``--flag=value`` (flag ``--flag``), an item after a dashed ``--flag`` (flag
    ``the value of --flag``), or secrets anywhere in an item (flag "")."""
    flag = ""  # the dashed flag before this item, whose value it may be
    for i, item in enumerate(items):
        if not isinstance(item, str):
            flag = ""
            continue
        m = _FLAG.match(item)
        if m and named_secret(m.group(2), m.group(1).lstrip("-")):
            yield i, m.group(1), (m.group(2),)
        elif not m and flag and not item.startswith("-") \
                and named_secret(item, flag.lstrip("-")):
            yield i, f"the value of {flag}", (item,)
        elif secret_kind(item):
            yield i, "", _parts(item)
        flag = item if item.startswith("-") and not m else ""


def spec_secrets(data: Any) -> frozenset[str]:
    """The secrets validate flags in a parsed spec (an env value, the value after
    ``--password`` in args, ...), for scrubbing from messages and free text."""
    return literals(found(data))


def literals(findings: Iterable[Finding]) -> frozenset[str]:
    """The secrets of `findings` (what `found` yields) for scrubbing: `spec_secrets`."""
    return frozenset(secret for *_, secrets in findings for secret in secrets
                     if not placeholder(secret))


def redact_diagnostic(d: Diagnostic, literals: Iterable[str] = (),
                      pairs: bool = True) -> Diagnostic:
    """A copy of `d` whose path (a key), message and hint show no secret: none the detector finds in them
    (token formats; ``name=value`` pairs unless `pairs` is False: a message of trainspec's
    own says ``--secret KEY``) and none of `literals` (spec_secrets), whole or cut short."""
    literals = tuple(literals)
    if not literals and not pairs and not any_token(f"{d.path}\n{d.message}\n{d.hint}"):
        return d  # most diagnostics: one search, not one per part and detector
    path, message = (redact_text(t, literals, pairs=pairs) for t in (d.path, d.message))
    hint = None if d.hint is None else redact_text(d.hint, literals, pairs=pairs)
    return d if (path, message, hint) == (d.path, d.message, d.hint) else \
        dataclasses.replace(d, path=path, message=message, hint=hint)
