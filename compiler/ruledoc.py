"""`trainspec rules`: the rule codes of compiler/rules.yaml, for a terminal or as docs/rules.md.

docs/rules.md is this module's output (`python -m compiler rules --markdown`); a test keeps
the committed file equal to it, so the registry is the one place a rule is written.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from .rules import RULES, Rule
from .suggest import did_you_mean

# A real diagnostic (tests/golden/err-accelerators), to show where the code is printed.
_EXAMPLE = ("specs/train.yaml:9:73: error: $.spec.pools.worker.accelerator.count: "
            "NVIDIA_TESLA_T4 on n1-standard-8 allows acceleratorCount 1, 2, 4, not 3 "
            "[accelerator-count]")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """docs/rules.md: every rule, by code."""
    rows = "\n".join(f"| `{r.code}` | {r.severity} | {'yes' if r.can_tune else 'no'} | "
                     f"{_cell(r.summary)} | {_cell(r.source)} |"
                     for r in sorted(RULES.values(), key=lambda r: r.code))
    return f"""# Rule codes

<!-- Generated from compiler/rules.yaml (loaded by compiler/rules.py) by
`python -m compiler rules --markdown > docs/rules.md`; tests/test_codes.py keeps this file
equal to it. -->

Every diagnostic trainspec reports ends with the code of its rule in brackets, and
`validate --format json` gives it as `"code"`:

```
{_EXAMPLE}
```

A code names one rule (one fact) and keeps its meaning: it is never renamed or reused. The
severity is the rule's default. The source says where the fact comes from: a section of the
facts reference ("facts §A.6": `shared/reference/gcp-training-facts.md`, with the fact's
status: ✅ verified, ◐ partly verified, ❌ not verified), a field of an API's discovery
document (`aiplatform v1`, `ml v1`), a page of Google's documentation, or `trainspec` for the
tool's own rules.

"May be silenced" says whether a repo config's `ignore` or `severity: warning`, or an inline
`# trainspec: ignore[CODE]`, may silence the rule ([config.md](config.md)). Every warning may
be. An error may only where the request then still sends what the spec says, as written, and
the API is the judge: a region, machine or accelerator trainspec's tables do not list, a
documented rule, a policy guardrail. An error whose value would be dropped or changed if
silenced (a platform refusal, a structural rule, what the schema refuses) never may: naming
it is itself an error (`code-not-tunable`).

`python -m compiler rules` lists the codes in a terminal, and `python -m compiler rules CODE`
shows one with its source.

| code | severity | may be silenced | what it checks | source |
|---|---|---|---|---|
{rows}
"""


def _listing() -> str:
    width = max(map(len, RULES))
    return "".join(f"{r.code:<{width}}  {r.severity:<7}  {r.summary}\n"
                   for r in sorted(RULES.values(), key=lambda r: r.code))


def _detail(rule: Rule) -> str:
    tune = "may be silenced" if rule.can_tune else "may not be silenced"
    return f"{rule.code} ({rule.severity}, {tune})\n  {rule.summary}\n  source: {rule.source}\n"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("codes", nargs="*", metavar="CODE", help="show these rules with their source")
    p.add_argument("--markdown", action="store_true", help="print docs/rules.md")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.markdown:
        out.write(markdown())
        return 0
    unknown = [c for c in args.codes if c not in RULES]
    for code in unknown:
        hint = did_you_mean(code, RULES)
        err.write(f"error: unknown rule code {code!r}" + (f" ({hint})" if hint else "") + "\n")
    if unknown:
        return 1
    out.write("".join(_detail(RULES[c]) for c in args.codes) if args.codes else _listing())
    return 0
