"""Read a repo config's text: trainspec.yaml, or [tool.trainspec] of a pyproject.toml, checked
against schemas/v1/config.schema.json, with located errors (code repo-config, or unknown-code
for a code the registry does not have)."""

from __future__ import annotations

import dataclasses
import functools
import json
from decimal import Decimal
from typing import Any

from .. import durations
from ..catalog.extension import Extension
from ..diagnostics import Collector, Diagnostic, Position
from ..rules import RULES
from ..schema.validate import SCHEMA_DIR, did_you_mean, problems_of, validator_for
from ..source import read as source
from ..source.jsonpath import child
from . import pyproject
from .model import DEFAULT_MAX_MIB, NONE, Config, Override, Policy, RepoConfig

UNKNOWN, NOT_TUNABLE = "unknown-code", "code-not-tunable"
# Why a rule that is not tunable (compiler/rules.yaml) cannot be ignored or made a warning.
UNTUNABLE = "silencing it would send a different job than the spec says, or none"
UNTUNABLE_HINT = "fix what it reports; docs/rules.md says which rules may be ignored"

SCHEMA = SCHEMA_DIR / "v1" / "config.schema.json"
CODE = "repo-config"

# Where the published schema's wording is less helpful than what the packaging settings
# always said: path → (message, hint); {value!r} is the value written.
_WORDING = {
    "$.packaging": ("packaging must be a mapping (allowSecretFiles, maxSizeMiB)", None),
    "$.packaging.allowSecretFiles": ("a list of .gitignore-style patterns (paths from the "
                                     "repository root)", "e.g. [tests/fixtures/*.pem]"),
    "$.packaging.maxSizeMiB": ("a whole number of MiB from 1 to 10240, not {value!r}", None),
}


def parse_yaml(blob: bytes | str, shown: str) -> tuple[Config, tuple[Diagnostic, ...]]:
    """A trainspec.yaml's config and problems. Empty or comments only: the defaults."""
    doc, found = source.parse(blob, shown)
    named = Config(file=shown)
    if doc.data is None:
        if all(d.code == "empty-document" for d in found):
            return named, ()
        return named, tuple(_coded(_reworded(d)) for d in found)
    return check(doc.data, doc.collector(), doc.suspect, "YAML")


def parse_pyproject(blob: bytes | str, shown: str) -> tuple[Config, tuple[Diagnostic, ...]] | None:
    """[tool.trainspec] of a pyproject.toml; None if it has none (it is not a config)."""
    raw = blob if isinstance(blob, bytes) else blob.encode()
    if b"trainspec" not in raw:
        return None
    try:
        text = raw.decode("utf-8")
        data = pyproject.load(text)
    except UnicodeDecodeError as e:
        if not pyproject.MENTIONS.search(raw):
            return None
        line = raw[: e.start].count(b"\n") + 1
        return Config(file=shown), (Diagnostic(
            "$", f"not UTF-8: invalid byte 0x{raw[e.start]:02x}", file=shown,
            position=Position(line, e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1),
            code=CODE),)
    except pyproject.TomlError as e:
        if not pyproject.MENTIONS.search(raw):
            return None  # another tool's broken file: trainspec has no config there
        return Config(file=shown), (Diagnostic("$", str(e), file=shown, position=e.position,
                                               code=CODE),)
    if data is None:
        return None
    return check(data, Collector(shown, pyproject.positions(text)), {}, "TOML")


def _reworded(d: Diagnostic) -> Diagnostic:
    if d.code == "top-level-mapping":
        kind = d.message.rsplit(" ", 1)[-1]
        return dataclasses.replace(d, message=f"the repo config must be a mapping (ignore, "
                                   f"severity, policy, ...), not a {kind}")
    return d


def _coded(d: Diagnostic) -> Diagnostic:
    return dataclasses.replace(d, code=d.code if d.code in (UNKNOWN, NOT_TUNABLE)
                               else CODE)


@functools.cache
def _validator() -> Any:
    with open(SCHEMA, encoding="utf-8") as f:
        return validator_for(json.load(f))


def check(data: Any, c: Collector, suspect: dict,
          language: str) -> tuple[Config, tuple[Diagnostic, ...]]:
    """The config `data` (read from `language`, YAML or TOML) says, and its problems: schema
    violations (schemas/v1/config.schema.json), numbers YAML misread, codes trainspec does not
    have, durations."""
    bad: set[str] = set()
    for path, _, message, hint, at_key in problems_of(_validator(), data, language):
        if path in _WORDING and not at_key:
            message, hint = _WORDING[path]
            message = message.format(value=_at(data, path))
        c.error(path, message, hint, key=at_key)
        bad.add(path)
    for path, reading in suspect.items():
        if path not in bad:
            c.error(path, *reading.problem())
            bad.add(path)
    config = _build(data, c, bad) if isinstance(data, dict) else NONE
    return dataclasses.replace(config, file=c.file), tuple(_coded(d) for d in c.items)


def _at(data: Any, path: str) -> Any:
    for part in path.split(".")[1:]:
        data = data.get(part) if isinstance(data, dict) else None
    return data


def _codes(values: Any, path: str, c: Collector, bad: set[str]) -> frozenset[str]:
    out = set()
    for i, code in enumerate(values if isinstance(values, list) else []):
        if isinstance(code, str) and f"{path}[{i}]" not in bad and _known(code, f"{path}[{i}]", c) \
                and _tunable(code, f"{path}[{i}]", c, "ignored"):
            out.add(code)
    return frozenset(out)


def _severity(values: Any, path: str, c: Collector, bad: set[str]) -> tuple[tuple[str, str], ...]:
    out = []
    for code, level in (values.items() if isinstance(values, dict) else ()):
        at = child(path, code)
        if at not in bad and (at + "#key") not in bad and _known(code, at, c, key=True) and (
                level != "warning" or _tunable(code, at, c, "made a warning", key=True)):
            out.append((code, level))
    return tuple(out)


# A suggestion costs a fuzzy match against every code: a config with thousands of problems
# gets them for its first few only.
MAX_SUGGESTIONS = 20


def _known(code: str, path: str, c: Collector, key: bool = False) -> bool:
    if code in RULES:
        return True
    suggest = len(c.items) < MAX_SUGGESTIONS
    c.error(path, f"unknown rule code {code!r}", (did_you_mean(code, RULES) if suggest else None)
            or "docs/rules.md lists the codes", key=key, code=UNKNOWN)
    return False


def _tunable(code: str, path: str, c: Collector, what: str, key: bool = False) -> bool:
    if RULES[code].can_tune:
        return True
    c.error(path, f"{code} cannot be {what}: {UNTUNABLE}", UNTUNABLE_HINT, key=key,
            code=NOT_TUNABLE)
    return False


def _build(data: dict, c: Collector, bad: set[str]) -> Config:
    def ok(path: str) -> bool:
        return not any(b == path or b.startswith((path + ".", path + "[")) for b in bad)

    def strings(path: str, value: Any) -> tuple[str, ...]:
        return tuple(value) if ok(path) and isinstance(value, list) else ()

    overrides = []
    for i, raw in enumerate(data.get("overrides") or []):
        at = f"$.overrides[{i}]"
        if isinstance(raw, dict) and ok(f"{at}.paths"):
            overrides.append(Override(strings(f"{at}.paths", raw.get("paths")),
                                      _codes(raw.get("ignore"), f"{at}.ignore", c, bad),
                                      _severity(raw.get("severity"), f"{at}.severity", c, bad)))
    policy = data.get("policy") if isinstance(data.get("policy"), dict) else {}
    timeout_text = policy.get("maxTimeout") if ok("$.policy.maxTimeout") else None
    timeout = durations.parse(timeout_text) if isinstance(timeout_text, str) else None
    if isinstance(timeout_text, str) and not timeout:
        c.error("$.policy.maxTimeout", f"{timeout_text!r} is not a positive duration",
                "e.g. 6h, 3d, 1h30m or plain seconds")
    packaging = data.get("packaging") if isinstance(data.get("packaging"), dict) else {}
    accel = data.get("extraAccelerators") if ok("$.extraAccelerators") else None
    return Config(
        ignore=_codes(data.get("ignore"), "$.ignore", c, bad),
        severity=_severity(data.get("severity"), "$.severity", c, bad),
        overrides=tuple(overrides),
        extension=Extension(
            frozenset(strings("$.extraRegions", data.get("extraRegions"))),
            frozenset(strings("$.extraMachineTypes", data.get("extraMachineTypes"))),
            tuple(sorted((r, frozenset(t)) for r, t in (accel or {}).items())), c.file),
        policy=Policy(
            required_labels=strings("$.policy.requiredLabels", policy.get("requiredLabels")),
            allowed_regions=strings("$.policy.allowedRegions", policy.get("allowedRegions"))
            or None,
            allowed_registries=strings("$.policy.allowedRegistries",
                                       policy.get("allowedRegistries")) or None,
            max_accelerators=_integer(policy.get("maxAcceleratorsPerJob"))
            if ok("$.policy.maxAcceleratorsPerJob") else None,
            max_timeout=timeout or None, max_timeout_text=timeout_text or "",
            max_cost=_usd(policy.get("maxCostPerJob")) if ok("$.policy.maxCostPerJob") else None,
            max_hourly_rate=_usd(policy.get("maxHourlyRate"))
            if ok("$.policy.maxHourlyRate") else None,
            require_encryption_key=policy.get("requireEncryptionKey") is True,
            require_spot_workers=policy.get("requireSpotWorkers") is True,
            forbid_plaintext_secrets=policy.get("forbidPlaintextSecrets") is True),
        packaging=RepoConfig(
            strings("$.packaging.allowSecretFiles", packaging.get("allowSecretFiles")),
            packaging.get("maxSizeMiB", DEFAULT_MAX_MIB) if ok("$.packaging.maxSizeMiB")
            else DEFAULT_MAX_MIB))


def _usd(value: Any) -> Decimal | None:
    """A dollar amount as written (0.1 stays 0.1, not its binary float)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return Decimal(str(value))


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
