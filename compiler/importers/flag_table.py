"""Which `import` flag (gcloud's name, as an argparse dest) sets which request field: the
gcloud column of compiler/fields.py for simple fields, the role flags of
`ai-platform jobs submit training`, the tuning flags, and which API each belongs to."""

from __future__ import annotations

from typing import Any

from .. import fields
from ..roles import ROLES
from .sources import Source


def _dest(flag: str) -> str:
    """--flag-name → flag_name, its argparse dest."""
    return flag[2:].replace("-", "_")


# The flags of simple fields (the gcloud column of compiler/fields.py): flag dest → row.
ROW_FLAGS = {p: {_dest(f): row for f, row in fields.flags(p).items() if row.scope == fields.JOB}
             for p in (fields.VERTEX, fields.ML)}
# The roles gcloud ai-platform has flags for (--PREFIX-machine-type…): evaluators come from
# --config only.
FLAG_ROLES = tuple(r for r in ROLES if r.gcloud)
# flag dest → trainingInput field (other scalar flags of `ai-platform jobs submit training`).
ML_SCALARS = {
    "module_name": "pythonModule", "runtime_version": "runtimeVersion",
    "python_version": "pythonVersion",
    **{f"{_dest('--' + r.gcloud)}_machine_type": r.ml_type for r in FLAG_ROLES},
}
ML_COUNTS = {f"{_dest('--' + r.gcloud)}_count": r.ml_count for r in FLAG_ROLES if r.ml_count}
ML_ROLES = {_dest("--" + r.gcloud): r.ml_config for r in FLAG_ROLES}
VERTEX_ONLY = ("display_name", "worker_pool_spec", "python_package_uris", "command",
               *(k for k in ROW_FLAGS[fields.VERTEX] if k not in ROW_FLAGS[fields.ML]))
# `gcloud ai hp-tuning-jobs create` flag → HyperparameterTuningJob field.
TUNING_FLAGS = {"max_trial_count": "maxTrialCount", "parallel_trial_count": "parallelTrialCount",
                "algorithm": "studySpec.algorithm"}
ALGORITHM_FLAG = {"algorithm-unspecified": "ALGORITHM_UNSPECIFIED", "grid-search": "GRID_SEARCH",
                  "random-search": "RANDOM_SEARCH"}
ML_ONLY = ("packages", "package_path", "staging_bucket", "scale_tier", "tpu_tf_version",
           *(k for k in ROW_FLAGS[fields.ML] if k not in ROW_FLAGS[fields.VERTEX]),
           *ML_SCALARS, *ML_COUNTS,
           *(f"{r}_{k}" for r in ML_ROLES for k in ("accelerator", "image_uri")))


def set_rows(src: Source, platform: str, values: dict[str, Any],
             notes: dict[str, str] | None = None) -> None:
    """Each simple field's flag given replaces the file's field (its row's request path)."""
    for dest, row in ROW_FLAGS[platform].items():
        value = values.get(dest)
        if value is not None and value != "":
            at = row.target(platform)
            assert isinstance(at, str)
            fields.put(src.request, at, value)
            src.note("$." + fields.origin(row, at)[0], (notes or {}).get(dest) or noted(dest))


def noted(dest: str) -> str:
    """The note on a field a flag set: "from --flag"."""
    return "from " + (dest if dest.startswith("--") else "--" + dest.replace("_", "-"))
