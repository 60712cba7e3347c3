"""The one place a spec's diagnostics are tuned: the repo config's `ignore` and `severity`
(with the `overrides` whose paths match the spec), the spec's inline
`# trainspec: ignore[code]`, and `--strict`. The pipeline calls it for every spec, so every
command and the Pulumi program report the same thing."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection
from typing import Any

from ..diagnostics import ERROR, WARNING, Diagnostic, Position
from ..rules import RULES
from ..schema.validate import did_you_mean
from ..source.inline import Ignores
from .check import NOT_TUNABLE, UNKNOWN, UNTUNABLE, UNTUNABLE_HINT
from .load import Found


@functools.lru_cache(maxsize=256)
def _matcher(patterns: tuple[str, ...]) -> Any:
    # Imported only for a config with overrides: most runs never need it.
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def settings(found: Found) -> tuple[frozenset[str], dict[str, str]]:
    """The codes ignored and the severities set for the spec of `found`: the top level, then
    each override whose paths match it (in order; a later one wins)."""
    config = found.config
    ignore, severity = set(config.ignore), dict(config.severity)
    for override in config.overrides:
        if found.spec and _matcher(override.paths).match_file(found.spec):
            ignore |= override.ignore
            severity.update(override.severity)
    return frozenset(ignore), severity


def inline_problems(ignores: Ignores, file: str) -> list[Diagnostic]:
    """An inline ignore naming a code trainspec does not have: an error, since a mistyped
    code would silently suppress nothing."""
    found = []
    for line, marks in ignores.items():
        for code, column in marks:
            if code not in RULES:
                found.append(Diagnostic(
                    "$", f"unknown rule code {code!r} in `# trainspec: ignore[...]`" if code
                    else "`# trainspec: ignore[]` names no rule code", file=file,
                    position=Position(line, column), code=UNKNOWN,
                    hint=did_you_mean(code, RULES) or "docs/rules.md lists the codes"))
            elif not RULES[code].can_tune:
                found.append(Diagnostic(
                    "$", f"{code} cannot be ignored: {UNTUNABLE}", file=file,
                    position=Position(line, column), code=NOT_TUNABLE,
                    hint=UNTUNABLE_HINT))
    return found


def apply(diagnostics: list[Diagnostic], found: Found, ignores: Ignores, file: str,
          strict: bool, fixed: Collection[Diagnostic] = ()) -> list[Diagnostic]:
    """`diagnostics` of spec `file` as the repo config, inline ignores and --strict make them.
    Never ignored nor softened: `fixed` (the problems that leave a spec without a meaning to
    send: unreadable YAML, an unknown apiVersion, what the schema refuses) and every error
    whose rule is not tunable (compiler/rules.yaml): ignoring those would send something the
    spec does not say, or nothing at all. The config refuses to name them (check.py)."""
    ignore, severity = settings(found)
    silenced = {(line, code) for line, marks in ignores.items() for code, _ in marks}
    hard = set(fixed)
    out = []
    for d in [*diagnostics, *found.problems, *inline_problems(ignores, file)]:
        if d.code and d not in hard and (d.severity == WARNING or RULES[d.code].can_tune):
            if d.code in ignore:
                continue
            if d.file == file and d.position is not None \
                    and (d.position.line, d.code) in silenced:
                continue
            level = severity.get(d.code, d.severity)
            if level != d.severity:
                d = dataclasses.replace(d, severity=level)
        if strict and d.severity == WARNING:
            d = dataclasses.replace(d, severity=ERROR)
        out.append(d)
    return out
