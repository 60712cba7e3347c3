"""The repo config: `trainspec.yaml` at a repository's root, or `[tool.trainspec]` in its
pyproject.toml (docs/config.md, schemas/v1/config.schema.json).

load.py finds it for a spec file and check.py reads it; model.py is what it says; apply.py is the one
place its `ignore` / `severity`, a spec's inline `# trainspec: ignore[code]` and `--strict`
change a spec's diagnostics; extension.py is its catalog extensions (extraRegions...), which
the targets consult; policy.py checks its policy guardrails.

This package's __init__ imports nothing: model.py and source.py import its leaf modules.
"""
