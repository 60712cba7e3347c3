"""The registry of diagnostic codes: every problem trainspec reports has one stable code.

A code names one rule (one fact): users write it in `ignore:`, `severity:`, inline
`# trainspec: ignore[code]` and code-scanning tools key alerts on it, so a code is never
renamed or reused for another rule. `docs/rules.md` is generated from this table.

Codes are kebab-case nouns of the fact they check (`accelerator-count`, `unknown-machine`,
`region-accelerator`, `secret-namespace`), never of the message's wording.
"""

from __future__ import annotations

from dataclasses import dataclass

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Rule:
    code: str
    severity: str  # the default; a repo config's `severity:` may change it
    summary: str  # what the rule checks, one line (docs/rules.md)
    source: str  # where the fact comes from: facts §, discovery document, a URL, or "trainspec"


def _table(*sections: tuple[Rule, ...]) -> dict[str, Rule]:
    table: dict[str, Rule] = {}
    for section in sections:
        for rule in section:
            if rule.code in table:
                raise ValueError(f"rule code {rule.code!r} declared twice")
            table[rule.code] = rule
    return table


# Each part of the pipeline declares its rules in its own section below.

RULES: dict[str, Rule] = _table()
