"""The registry of diagnostic codes: every problem trainspec reports has one stable code.

The rules are data, `compiler/rules.yaml` (one section per part of the pipeline, each rule
with its code, severity, summary and source), read once at import and refused if malformed:
a registry with a wrong severity or a code twice would mislabel every report.
`docs/rules.md` is generated from it (compiler/ruledoc.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

ERROR, WARNING = "error", "warning"
FILE = Path(__file__).with_name("rules.yaml")
_KEYS = ("code", "severity", "summary", "source")
_OPTIONAL = ("tunable",)
_CODE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class RegistryError(ValueError):
    """compiler/rules.yaml is malformed: a bug in trainspec itself, found at import."""


@dataclass(frozen=True)
class Rule:
    code: str
    severity: str  # the default; a repo config's `severity:` may change it
    summary: str  # what the rule checks, one line (docs/rules.md)
    source: str  # where the fact comes from: facts §, discovery document, a URL, or "trainspec"
    # An error a repo config or an inline comment may ignore or make a warning: only where the
    # request then still says what the spec says (the value is sent as written, the API is the
    # judge). Every other error would send a different job, or none, if silenced.
    tunable: bool = False

    @property
    def can_tune(self) -> bool:
        """Whether `ignore`, `severity: warning` and inline ignores may silence this rule."""
        return self.severity == WARNING or self.tunable


@dataclass(frozen=True)
class Problem:
    """What a pure check (the catalog's) found: the caller adds the JSON path and position.

    `key` is the spec key the problem is about, relative to the object the caller checked
    (`accelerator.count` of a pool; "" for the object itself), so the caller locates it
    without reading the message."""

    code: str
    key: str
    message: str
    hint: str | None = None

    @property
    def severity(self) -> str:
        return RULES[self.code].severity


_SAFE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's when PyYAML was built with it


class _Loader(_SAFE):
    """The safe loader, refusing a key written twice in a mapping (which YAML loaders keep
    one of, silently)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key, _ in node.value:
            if key.value in seen:
                raise RegistryError(f"{FILE.name}:{key.start_mark.line + 1}: key {key.value!r} "
                                    "written twice in one mapping")
            seen.add(key.value)
        return super().construct_mapping(node, deep)


def _rule(row: object, where: str) -> Rule:
    if not isinstance(row, dict) or not set(_KEYS) <= set(row) <= set(_KEYS + _OPTIONAL):
        got = f"keys {', '.join(map(str, row))}" if isinstance(row, dict) else repr(row)
        raise RegistryError(f"{where}: a rule is a mapping with exactly the keys code, "
                            f"severity, summary and source (and optionally tunable), not {got}")
    empty = [k for k in _KEYS if not isinstance(row[k], str) or not row[k].strip()]
    if empty:
        raise RegistryError(f"{where}: {empty[0]} is not a non-empty string: {row[empty[0]]!r}")
    if not _CODE.fullmatch(row["code"]):
        raise RegistryError(f"{where}: code {row['code']!r} is not kebab-case "
                            "(lower-case letters and digits, words joined by '-')")
    if row["severity"] not in (ERROR, WARNING):
        raise RegistryError(f"{where}: severity {row['severity']!r} of {row['code']} is "
                            f"neither {ERROR!r} nor {WARNING!r}")
    if "tunable" in row and (row["tunable"] is not True or row["severity"] != ERROR):
        raise RegistryError(f"{where}: tunable is written only as `tunable: true`, on an error "
                            f"rule (a warning can always be tuned), not on {row['code']}")
    return Rule(**row)


def load(text: str) -> dict[str, tuple[Rule, ...]]:
    """The sections of a registry file: section name → its rules, in file order."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except RegistryError:
        raise
    except (yaml.YAMLError, ValueError, LookupError) as e:  # PyYAML's converters: `0x_`
        raise RegistryError(f"{FILE.name}: not valid YAML: {e}") from e
    finally:
        loader.dispose()
    # Section names are strings, so the nodes, read beside the data, give each rule's line.
    if not isinstance(data, dict) or not data or list(data) != [k.value for k, _ in node.value]:
        raise RegistryError(f"{FILE.name}: the registry is a mapping of named sections, each "
                            "a list of rules")
    sections: dict[str, tuple[Rule, ...]] = {}
    for key, value in node.value:
        rows = data[key.value]
        if not isinstance(rows, list) or not rows:
            raise RegistryError(f"{FILE.name}:{key.start_mark.line + 1}: section {key.value!r} "
                                "is not a non-empty list of rules")
        sections[key.value] = tuple(
            _rule(row, f"{FILE.name}:{item.start_mark.line + 1}: section {key.value!r}")
            for row, item in zip(rows, value.value))
    return sections


def table(sections: dict[str, tuple[Rule, ...]]) -> dict[str, Rule]:
    """Code → rule; a code declared twice is refused (one code, one rule)."""
    rules: dict[str, Rule] = {}
    for name, section in sections.items():
        for rule in section:
            if rule.code in rules:
                raise RegistryError(f"{FILE.name}: rule code {rule.code!r} declared twice "
                                    f"(again in section {name!r})")
            rules[rule.code] = rule
    return rules


SECTIONS: dict[str, tuple[Rule, ...]] = load(FILE.read_text(encoding="utf-8"))
RULES: dict[str, Rule] = table(SECTIONS)
