"""`import`: existing job configs (gcloud, REST, SDK) → trainspec specs.

Stages, each a pure function over plain data: `sources` (load, detect the kind), `sdk` (SDK
arguments) and `gcloud` (a gcloud command line: `gcloud_tables`, `gcloud_values`,
`gcloud_checks`) with `flags` (gcloud's flags merged in) → the API request they stand for;
`ml` / `vertex` / `study` (request → spec, the inverse of targets/ml.py, targets/vertex.py and
the tuning lowering), `spec` (the spec being written), `render` (spec → YAML text with
comments). `compiler.decompile` is the orchestrator and the CLI command.
"""
