"""`import`: existing job configs (gcloud, REST, SDK) → trainspec specs.

Stages, each a pure function over plain data: `sources` (load, detect the kind, turn SDK
arguments and gcloud flags into the API request they stand for), `ml` / `vertex` (request →
spec, the inverse of targets/ml.py and targets/vertex.py), `render` (spec → YAML text
with comments). `compiler.decompile` is the orchestrator and the CLI command.
"""
