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

# The repo config (compiler/config/): the config file itself, the codes it names, and the
# policy guardrails a platform team sets in it (compiler/policy.py).
_CONFIG = (
    Rule("repo-config", ERROR, "the repo config (trainspec.yaml, or [tool.trainspec] in "
         "pyproject.toml) is readable, is one file, and follows schemas/v1/config.schema.json",
         "trainspec"),
    Rule("unknown-code", ERROR, "a rule code named in the repo config or in an inline "
         "`# trainspec: ignore[...]` is one trainspec has", "trainspec"),
    Rule("policy-label", ERROR, "the job sets every label of the repo config's "
         "policy.requiredLabels", "trainspec"),
    Rule("policy-region", ERROR, "the job's region is one of policy.allowedRegions", "trainspec"),
    Rule("policy-registry", ERROR, "every container image and executor image comes from "
         "policy.allowedRegistries", "trainspec"),
    Rule("policy-accelerators", ERROR, "the job uses at most policy.maxAcceleratorsPerJob "
         "accelerators (every replica of every pool, every parallel trial)", "trainspec"),
    Rule("policy-timeout", ERROR, "the job sets scheduling.timeout, at most policy.maxTimeout",
         "trainspec"),
    Rule("policy-encryption-key", ERROR, "the job sets spec.encryptionKey (CMEK) when "
         "policy.requireEncryptionKey is true", "trainspec"),
    Rule("policy-spot", ERROR, "a job with worker pools runs on Spot VMs "
         "(scheduling.strategy SPOT) when policy.requireSpotWorkers is true", "trainspec"),
)

RULES: dict[str, Rule] = _table(_CONFIG)
