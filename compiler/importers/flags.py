"""gcloud's flags, merged into the request the way gcloud merges them (flags override --config).

`gcloud ai-platform jobs submit training` flags land in trainingInput; `gcloud ai custom-jobs
create` flags land in the CustomJob; `gcloud ai hp-tuning-jobs create` flags land in the
HyperparameterTuningJob (its trialJobSpec takes the CustomJob ones: --service-account,
--network, --enable-web-access, as gcloud's --log-http bodies show). Names, value syntax
(`gcloud_values.arg_list`, `gcloud_values.arg_dict`) and the merge order are gcloud's own
(`ConstructCustomJobSpec`, `BuildTrainingJob`); values come either from `import FILE --flag ...`
(text) or from a parsed gcloud command line (`gcloud.parse`). Each API's merge is in
flags_ml.py and flags_vertex.py; which flag sets which field, in flag_table.py.
"""

from __future__ import annotations

import argparse
from typing import Any

from .flag_table import ALGORITHM_FLAG, FLAG_ROLES, ML_ONLY, TUNING_FLAGS, VERTEX_ONLY, noted
from .flags_ml import merge_ml
from .flags_vertex import merge_vertex
from .gcloud_checks import check_pools
from .gcloud_values import GcloudError, set_flag
from .sources import ML, Source


def add_arguments(p: argparse.ArgumentParser) -> None:
    """gcloud's flag names, for configs that leave them to the command line."""
    a = p.add_argument
    a("--name", help="metadata.name (gcloud ai-platform's JOB argument); default: jobId, "
      "displayName or the file name")
    a("--trial-job-only", action="store_true",
      help="for a Vertex hyperparameter tuning job: import only its trialJobSpec, as a "
      "TrainingJob (default: the whole HyperparameterTuningJob)")
    g = p.add_argument_group("gcloud flags, both APIs")
    g.add_argument("--labels", help="KEY=VALUE,... (replaces the config's labels)")
    g.add_argument("--service-account")
    g.add_argument("--network")
    g.add_argument("--kms-key", help="full Cloud KMS key resource name")
    g.add_argument("--enable-web-access", action="store_true", default=None)
    m = p.add_argument_group("gcloud ai-platform jobs submit training")
    for flag in ("--module-name", "--runtime-version", "--python-version", "--job-dir",
                 "--scale-tier", "--packages", "--package-path", "--staging-bucket",
                 "--tpu-tf-version"):
        m.add_argument(flag)
    m.add_argument("--use-chief-in-tf-config", metavar="true|false")
    for role in FLAG_ROLES:
        m.add_argument(f"--{role.gcloud}-machine-type")
        m.add_argument(f"--{role.gcloud}-accelerator", metavar="count=N,type=TYPE")
        m.add_argument(f"--{role.gcloud}-image-uri")
        if role.ml_count:
            m.add_argument(f"--{role.gcloud}-count", type=int)
    v = p.add_argument_group("gcloud ai custom-jobs create")
    v.add_argument("--display-name")
    v.add_argument("--worker-pool-spec", action="append", metavar="machine-type=M,...",
                   help="repeat once per pool (replaces the config's workerPoolSpecs)")
    g.add_argument("--args", help="ARG,...: trainer arguments (custom-jobs --args; for "
                   "ai-platform, what follows `--` on gcloud's command line)")
    v.add_argument("--command", help="ARG,... for every container pool")
    v.add_argument("--python-package-uris", help="URI,... for every Python pool")
    v.add_argument("--persistent-resource-id")
    v.add_argument("--enable-dashboard-access", action="store_true", default=None)
    t = p.add_argument_group("gcloud ai hp-tuning-jobs create (also --display-name, --labels, "
                             "--service-account, --network, --kms-key, --enable-web-access)")
    t.add_argument("--max-trial-count", type=int)
    t.add_argument("--parallel-trial-count", type=int)
    t.add_argument("--algorithm", choices=tuple(ALGORITHM_FLAG))


# Flags whose text `import FILE` parses with gcloud's own value syntax (lists, dicts, booleans).
_PARSED = ("labels", "worker_pool_spec", "args", "command", "packages", "python_package_uris",
           "master_accelerator", "worker_accelerator", "parameter_server_accelerator",
           "use_chief_in_tf_config", "scale_tier", "service_account")


def merge(src: Source, ns: argparse.Namespace) -> None:
    """Apply the flags in `ns` to `src.request`, noting each one; problems go to the collector."""
    used = {k for k in (*ML_ONLY, *VERTEX_ONLY) if getattr(ns, k, None) not in (None, False, [])}
    wrong = sorted(used & set(VERTEX_ONLY if src.api == ML else ML_ONLY))
    for name in wrong:
        this = "an AI Platform" if src.api == ML else "a Vertex AI"
        src.collector.error("$", f"--{name.replace('_', '-')} is a flag of the other API's gcloud "
                            f"command; this config is {this} one", code="gcloud-flag-api")
    tuning = sorted(k for k in TUNING_FLAGS if getattr(ns, k, None) is not None)
    if tuning and src.kind != "vertex-hpt":
        wrong += tuning
        src.collector.error("$", f"--{tuning[0].replace('_', '-')} is a flag of gcloud ai "
                            "hp-tuning-jobs create; this config is not a tuning job",
                            "a tuning job config has studySpec and trialJobSpec", code="gcloud-flag-api")
    if wrong:
        return
    try:
        values = _values(ns)
    except GcloudError as e:
        src.collector.error("$", str(e), code="gcloud-refuses")
        return
    (merge_ml if src.api == ML else merge_vertex)(src, ns, values)
    if tuning:
        _merge_tuning(src, ns, tuning)
    req = src.request
    if values.get("labels") is not None:
        req["labels"] = values["labels"]
        src.note("$.labels", "labels from --labels")


def _values(ns: argparse.Namespace) -> dict[str, Any]:
    """Every flag value as gcloud holds it after parsing: text from `import FILE` is parsed
    here with gcloud's syntax and checks; a parsed gcloud command line is already."""
    parsed: dict[str, object] = {}
    out = {k: v for k, v in vars(ns).items() if v is not None}
    for dest in _PARSED:
        value = out.get(dest)
        flag = "--" + dest.replace("_", "-")
        if isinstance(value, str):
            set_flag(parsed, flag, value)
            out[dest] = parsed[flag]
        elif dest == "worker_pool_spec" and value and isinstance(value[0], str):
            for text in value:
                set_flag(parsed, flag, text)
            out[dest] = parsed[flag]
            check_pools(out[dest])
    return out


def _merge_tuning(src: Source, ns: argparse.Namespace, given: list[str]) -> None:
    study = src.study if src.study is not None else {}
    for dest in given:
        value = getattr(ns, dest)
        field = TUNING_FLAGS[dest]
        if dest == "algorithm":
            spec = study.get("studySpec") if isinstance(study.get("studySpec"), dict) else {}
            study["studySpec"] = {**spec, "algorithm": ALGORITHM_FLAG[value]}
        else:
            study[field] = value
        src.note(f"$.{field}", noted(dest))
    src.study = study
