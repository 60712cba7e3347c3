"""gcloud's flags, merged into the request the way gcloud merges them (flags override --config).

`gcloud ai-platform jobs submit training` flags land in trainingInput; `gcloud ai custom-jobs
create` flags land in the CustomJob; `gcloud ai hp-tuning-jobs create` flags land in the
HyperparameterTuningJob (its trialJobSpec takes the CustomJob ones: --service-account,
--network, --enable-web-access, as gcloud's --log-http bodies show). Names and value syntax are
gcloud's own.
"""

from __future__ import annotations

import argparse
from typing import Any

from .sources import ML, Source

# flag dest → trainingInput field (scalar flags of `ai-platform jobs submit training`).
ML_SCALARS = {
    "job_dir": "jobDir", "module_name": "pythonModule", "runtime_version": "runtimeVersion",
    "python_version": "pythonVersion", "master_machine_type": "masterType",
    "worker_machine_type": "workerType", "parameter_server_machine_type": "parameterServerType",
    "evaluator_machine_type": "evaluatorType", "service_account": "serviceAccount",
    "network": "network",
}
ML_COUNTS = {"worker_count": "workerCount", "parameter_server_count": "parameterServerCount",
             "evaluator_count": "evaluatorCount"}
ML_ROLES = {"master": "masterConfig", "worker": "workerConfig",
            "parameter_server": "parameterServerConfig", "evaluator": "evaluatorConfig"}
VERTEX_ONLY = ("display_name", "worker_pool_spec", "python_package_uris", "command",
               "enable_dashboard_access", "persistent_resource_id")
# `gcloud ai hp-tuning-jobs create` flag → HyperparameterTuningJob field.
TUNING_FLAGS = {"max_trial_count": "maxTrialCount", "parallel_trial_count": "parallelTrialCount",
                "algorithm": "studySpec.algorithm"}
ALGORITHM_FLAG = {"algorithm-unspecified": "ALGORITHM_UNSPECIFIED", "grid-search": "GRID_SEARCH",
                  "random-search": "RANDOM_SEARCH"}
BOTH = ("service_account", "network")  # flags of both gcloud commands
ML_ONLY = ("module_name", "packages", "package_path", "runtime_version", "python_version",
           "job_dir", "scale_tier", "use_chief_in_tf_config", "tpu_tf_version",
           *(k for k in ML_SCALARS if k not in BOTH), *ML_COUNTS, *(f"{r}_{k}" for r in ML_ROLES
                                      for k in ("accelerator", "image_uri")))


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
                 "--scale-tier", "--packages", "--package-path", "--tpu-tf-version"):
        m.add_argument(flag)
    m.add_argument("--use-chief-in-tf-config", action="store_true", default=None)
    for role in ("master", "worker", "parameter-server", "evaluator"):
        m.add_argument(f"--{role}-machine-type")
        m.add_argument(f"--{role}-accelerator", metavar="count=N,type=TYPE")
        m.add_argument(f"--{role}-image-uri")
        if role != "master":
            m.add_argument(f"--{role}-count", type=int)
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


def merge(src: Source, ns: argparse.Namespace) -> None:
    """Apply the flags in `ns` to `src.request`, noting each one; problems go to the collector."""
    used = {k for k in (*ML_ONLY, *VERTEX_ONLY) if getattr(ns, k, None) not in (None, False, [])}
    wrong = sorted(used & set(VERTEX_ONLY if src.api == ML else ML_ONLY))
    for name in wrong:
        this = "an AI Platform" if src.api == ML else "a Vertex AI"
        src.collector.error("$", f"--{name.replace('_', '-')} is a flag of the other API's gcloud "
                            f"command; this config is {this} one")
    tuning = sorted(k for k in TUNING_FLAGS if getattr(ns, k, None) is not None)
    if tuning and src.kind != "vertex-hpt":
        wrong += tuning
        src.collector.error("$", f"--{tuning[0].replace('_', '-')} is a flag of gcloud ai "
                            "hp-tuning-jobs create; this config is not a tuning job",
                            "a tuning job config has studySpec and trialJobSpec")
    if wrong:
        return
    (_merge_ml if src.api == ML else _merge_vertex)(src, ns)
    if tuning:
        _merge_tuning(src, ns, tuning)
    req = src.request
    if ns.labels is not None:
        req["labels"] = _pairs(src, ns.labels, "--labels")
        src.note("$.labels", "labels from --labels")
    if ns.kms_key:
        key = "encryptionConfig" if src.api == ML else "encryptionSpec"
        _target(src)[key] = {"kmsKeyName": ns.kms_key}
        src.note(f"$.{key}", "from --kms-key")


def _target(src: Source) -> dict:
    if src.api == ML:
        return src.request.setdefault("trainingInput", {})
    return src.request.setdefault("jobSpec", {}) if src.request is not None else {}


def _merge_ml(src: Source, ns: argparse.Namespace) -> None:
    tin = src.request.setdefault("trainingInput", {})
    at = "$.trainingInput"
    if ns.package_path:
        src.collector.error("$", "--package-path builds and uploads a local package at submit "
                            "time", "upload it and pass --packages gs://BUCKET/trainer-0.1.tar.gz")
        return
    setters: list[tuple[str, Any, str]] = []
    for dest, key in ML_SCALARS.items():
        setters.append((key, getattr(ns, dest), dest))
    for dest, key in ML_COUNTS.items():
        setters.append((key, getattr(ns, dest), dest))
    if ns.scale_tier:
        setters.append(("scaleTier", ns.scale_tier.upper().replace("-", "_"), "scale_tier"))
    if ns.packages:
        setters.append(("packageUris", [p for p in ns.packages.split(",") if p], "packages"))
    if ns.use_chief_in_tf_config:
        setters.append(("useChiefInTfConfig", True, "use_chief_in_tf_config"))
    if ns.enable_web_access:
        setters.append(("enableWebAccess", True, "enable_web_access"))
    if ns.args is not None:
        setters.append(("args", [a for a in ns.args.split(",") if a], "args"))
    for key, value, dest in setters:
        if value is not None:
            tin[key] = value
            src.note(f"{at}.{key}", _from(dest))
    for role, config in ML_ROLES.items():
        accel, image = getattr(ns, f"{role}_accelerator"), getattr(ns, f"{role}_image_uri")
        if accel:
            pairs = _pairs(src, accel, f"--{role.replace('_', '-')}-accelerator")
            cfg = tin.setdefault(config, {})
            cfg["acceleratorConfig"] = {"count": _int(pairs.get("count", "1")),
                                        "type": pairs.get("type", "").upper().replace("-", "_")}
            src.note(f"{at}.{config}.acceleratorConfig", _from(f"{role}_accelerator"))
        if image:
            tin.setdefault(config, {})["imageUri"] = image
            src.note(f"{at}.{config}.imageUri", _from(f"{role}_image_uri"))
    if ns.tpu_tf_version:
        tin.setdefault("workerConfig", {})["tpuTfVersion"] = ns.tpu_tf_version
        src.note(f"{at}.workerConfig.tpuTfVersion", _from("tpu_tf_version"))


def _merge_vertex(src: Source, ns: argparse.Namespace) -> None:
    req = src.request
    spec = req.setdefault("jobSpec", {})
    if ns.display_name is not None:
        req["displayName"] = ns.display_name
        src.note("$.displayName", _from("display_name"))
    for dest, key in (("service_account", "serviceAccount"), ("network", "network"),
                      ("persistent_resource_id", "persistentResourceId")):
        if getattr(ns, dest):
            spec[key] = getattr(ns, dest)
            src.note(f"$.jobSpec.{key}", _from(dest))
    for dest, key in (("enable_web_access", "enableWebAccess"),
                      ("enable_dashboard_access", "enableDashboardAccess")):
        if getattr(ns, dest):
            spec[key] = True
            src.note(f"$.jobSpec.{key}", _from(dest))
    if ns.worker_pool_spec:
        spec["workerPoolSpecs"] = [_pool_flag(src, text) for text in ns.worker_pool_spec]
        src.note("$.jobSpec.workerPoolSpecs", _from("worker_pool_spec"))
    for dest, task_key, kinds in (("args", "args", ("containerSpec", "pythonPackageSpec")),
                                  ("command", "command", ("containerSpec",)),
                                  ("python_package_uris", "packageUris", ("pythonPackageSpec",))):
        value = getattr(ns, dest)
        if value is None:
            continue
        for i, pool in enumerate(spec.get("workerPoolSpecs") or ()):
            for kind in kinds:
                if isinstance(pool, dict) and isinstance(pool.get(kind), dict):
                    pool[kind][task_key] = [v for v in value.split(",") if v]
                    src.note(f"$.jobSpec.workerPoolSpecs[{i}].{kind}.{task_key}", _from(dest))


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
        src.note(f"$.{field}", _from(dest))
    src.study = study


_POOL_KEYS = {"machine-type": ("machineSpec", "machineType"),
              "accelerator-type": ("machineSpec", "acceleratorType"),
              "accelerator-count": ("machineSpec", "acceleratorCount"),
              "replica-count": (None, "replicaCount"),
              "container-image-uri": ("containerSpec", "imageUri"),
              "executor-image-uri": ("pythonPackageSpec", "executorImageUri"),
              "python-module": ("pythonPackageSpec", "pythonModule"),
              "disk-type": ("diskSpec", "bootDiskType"),
              "disk-size": ("diskSpec", "bootDiskSizeGb")}


def _pool_flag(src: Source, text: str) -> dict:
    pool: dict = {}
    for key, value in _pairs(src, text, "--worker-pool-spec").items():
        if key not in _POOL_KEYS:
            src.collector.error("$", f"--worker-pool-spec key {key!r} is not supported by import",
                                "local-package-path/script build an image at submit time: "
                                "build it and pass container-image-uri" if key in (
                                    "local-package-path", "script", "output-image-uri") else
                                "keys: " + ", ".join(_POOL_KEYS))
            continue
        part, field = _POOL_KEYS[key]
        number = key in ("accelerator-count", "replica-count", "disk-size")
        (pool.setdefault(part, {}) if part else pool)[field] = _int(value) if number else value
    return pool


def _pairs(src: Source, text: str, flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in text.split(","):
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep:
            src.collector.error("$", f"{flag}: {item!r} is not KEY=VALUE")
            continue
        out[key.strip()] = value.strip()
    return out


def _int(text: str) -> int | str:
    return int(text) if text.strip().isdigit() else text


def _from(dest: str) -> str:
    return "from " + (dest if dest.startswith("--") else "--" + dest.replace("_", "-"))
