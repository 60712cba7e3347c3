"""gcloud's flags, merged into the request the way gcloud merges them (flags override --config).

`gcloud ai-platform jobs submit training` flags land in trainingInput; `gcloud ai custom-jobs
create` flags land in the CustomJob; `gcloud ai hp-tuning-jobs create` flags land in the
HyperparameterTuningJob (its trialJobSpec takes the CustomJob ones: --service-account,
--network, --enable-web-access, as gcloud's --log-http bodies show). Names, value syntax
(`gcloud_values.arg_list`, `gcloud_values.arg_dict`) and the merge order are gcloud's own
(`ConstructCustomJobSpec`, `BuildTrainingJob`); values come either from `import FILE --flag ...`
(text) or from a parsed gcloud command line (`gcloud.parse`).
"""

from __future__ import annotations

import argparse
from typing import Any

from .. import fields
from ..roles import BY_NAME, CHIEF, ROLES
from .gcloud_checks import check_package_path, check_pools, package_source, script_module
from .gcloud_values import GcloudError, set_flag
from .sources import ML, Source


def _dest(flag: str) -> str:
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
    (_merge_ml if src.api == ML else _merge_vertex)(src, ns, values)
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


def _merge_ml(src: Source, ns: argparse.Namespace, v: dict[str, Any]) -> None:
    """BuildTrainingJob: each flag given replaces the file's field."""
    tin = src.request.setdefault("trainingInput", {})
    at = "$.trainingInput"
    if not isinstance(tin, dict):
        return  # reported by ml.to_spec
    from_gcloud = getattr(ns, "gcloud", None) is not None
    if v.get("package_path") and not from_gcloud:  # a command line was checked by gcloud.parse
        try:
            check_package_path(v["package_path"], v.get("staging_bucket") or v.get("job_dir"))
        except GcloudError as e:
            src.collector.error("$", str(e), code="gcloud-refuses")
            return
    if v.get("package_path"):
        src.local_source = package_source(v["package_path"])
        src.local_notes = [f"from --package-path {v['package_path']}: gcloud builds an sdist of "
                           "the package's parent folder (its setup.py, or one gcloud writes); "
                           "trainspec builds it from the folder's pyproject.toml or setup.py",
                           "relative to where gcloud ran; python.source is relative to this "
                           "spec file: adjust it where you save the spec"]
        bucket = v.get("staging_bucket") or _bucket_of(v.get("job_dir"))
        if bucket:
            src.local_staging = (bucket, "from --staging-bucket" if v.get("staging_bucket")
                                 else "the bucket of --job-dir, where gcloud stages packages "
                                 "without --staging-bucket")
    setters: list[tuple[str, Any, str]] = []
    for dest, key in {**ML_SCALARS, **ML_COUNTS}.items():
        setters.append((key, v.get(dest), dest))
    setters.append(("scaleTier", v.get("scale_tier"), "scale_tier"))
    # gcloud always sends the uploaded package list ([] without --packages, which drops the
    # file's packageUris) and enableWebAccess (false without the flag).
    packages = v.get("packages")
    setters.append(("packageUris", packages if packages or not from_gcloud else None, "packages"))
    if from_gcloud and not packages:
        tin.pop("packageUris", None)
    setters.append(("args", v.get("args"), "args"))
    for key, value, dest in setters:
        if value is not None:
            tin[key] = value
            src.note(f"{at}.{key}", _from(dest))
    web = v.get("enable_web_access")
    _set_rows(src, fields.ML, {**v, "enable_web_access": bool(web) if from_gcloud else web or None},
              {} if web else {"enable_web_access": "gcloud sends enableWebAccess false without "
                                                   "--enable-web-access"})
    for role, config in ML_ROLES.items():
        accel, image = v.get(f"{role}_accelerator"), v.get(f"{role}_image_uri")
        if accel:
            cfg = tin.setdefault(config, {})
            cfg["acceleratorConfig"] = {"count": accel["count"], "type": accel["type"]}
            src.note(f"{at}.{config}.acceleratorConfig", _from(f"{role}_accelerator"))
        if image:
            tin.setdefault(config, {})["imageUri"] = image
            src.note(f"{at}.{config}.imageUri", _from(f"{role}_image_uri"))
    if v.get("tpu_tf_version"):
        # gcloud puts --tpu-tf-version on the workers (the TPU pool of a cloud_tpu job).
        config = BY_NAME["worker"].ml_config
        tin.setdefault(config, {})["tpuTfVersion"] = v["tpu_tf_version"]
        src.note(f"{at}.{config}.tpuTfVersion", _from("tpu_tf_version"))
    master = tin.get(CHIEF.ml_config)
    if from_gcloud and not tin.get("packageUris") and not src.local_source and not (
            isinstance(master, dict) and master.get("imageUri")):
        src.collector.error("$", "a job without a custom container needs packages: gcloud "
                            "refuses it (\"Non-custom jobs must have packages\")",
                            "pass --packages gs://BUCKET/trainer-0.1.tar.gz, or "
                            "--master-image-uri", code="gcloud-refuses")


def _merge_vertex(src: Source, ns: argparse.Namespace, v: dict[str, Any]) -> None:
    """ConstructCustomJobSpec, then the CustomJob around it (displayName, labels, CMEK)."""
    req = src.request
    spec = req.setdefault("jobSpec", {})
    if v.get("display_name") is not None:
        req["displayName"] = v["display_name"]
        src.note("$.displayName", _from("display_name"))
    # Switches: gcloud sends true when given, nothing otherwise.
    _set_rows(src, fields.VERTEX, {k: (True if v.get(k) else None)
                                   if ROW_FLAGS[fields.VERTEX][k].codec is fields.BOOL
                                   else v.get(k) for k in ROW_FLAGS[fields.VERTEX]})
    inv = getattr(ns, "gcloud", None)
    if not v.get("worker_pool_spec") and inv is not None and not inv.tuning:
        # custom-jobs only: hp-tuning-jobs create passes its config's pools on unchecked.
        _check_config_pools(src, spec.get("workerPoolSpecs"))
    if v.get("worker_pool_spec"):
        uris = v.get("python_package_uris") or []
        pools = v["worker_pool_spec"]
        local = pools[0] if pools and "local-package-path" in pools[0] else None
        spec["workerPoolSpecs"] = [_pool(p, uris, local) for p in pools]
        src.note("$.jobSpec.workerPoolSpecs", _from("worker_pool_spec"))
        if local is not None:
            src.local_source = local["local-package-path"]
            src.local_notes = [
                "from local-package-path: gcloud builds a container image from the folder on "
                f"{local['executor-image-uri']} for every pool; trainspec packages it as an "
                "sdist that the same executor image installs (pythonPackageSpec)",
                "relative to where gcloud ran; python.source is relative to this spec file: "
                "adjust it where you save the spec",
                "needs a staging bucket: spec.stagingBucket or stack config "
                "trainspec:stagingBucket"]
            if local.get("output-image-uri"):
                src.local_notes.append(f"output-image-uri {local['output-image-uri']} dropped: "
                                       "no image is built")
    elif v.get("python_package_uris"):
        src.collector.warning("$", "--python-package-uris applies only to pools given with "
                              "--worker-pool-spec: gcloud ignores it with --config pools",
                              code="gcloud-ignored-flag")
    for dest, task_key, kinds in (("args", "args", ("containerSpec", "pythonPackageSpec")),
                                  ("command", "command", ("containerSpec",))):
        value = v.get(dest)
        if not value:  # gcloud: `if args:`, an empty list changes nothing
            continue
        for i, pool in enumerate(spec.get("workerPoolSpecs") or ()):
            for kind in kinds:
                if isinstance(pool, dict) and isinstance(pool.get(kind), dict):
                    pool[kind][task_key] = list(value)
                    src.note(f"$.jobSpec.workerPoolSpecs[{i}].{kind}.{task_key}", _from(dest))


def _set_rows(src: Source, platform: str, values: dict[str, Any],
              notes: dict[str, str] | None = None) -> None:
    """Each simple field's flag given replaces the file's field (its row's request path)."""
    for dest, row in ROW_FLAGS[platform].items():
        value = values.get(dest)
        if value is not None and value != "":
            at = row.target(platform)
            assert isinstance(at, str)
            fields.put(src.request, at, value)
            src.note("$." + fields.origin(row, at)[0], (notes or {}).get(dest) or _from(dest))


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


def _check_config_pools(src: Source, pools: Any) -> None:
    """_ValidateWorkerPoolSpecsFromConfig: every --config pool, even an empty one, runs exactly
    one of a container (imageUri) or a Python package (executorImageUri or pythonModule)."""
    for i, pool in enumerate(pools if isinstance(pools, list) else ()):
        pool = pool if isinstance(pool, dict) else {}
        py, box = pool.get("pythonPackageSpec"), pool.get("containerSpec")
        python = isinstance(py, dict) and bool(py.get("executorImageUri") or py.get("pythonModule"))
        container = isinstance(box, dict) and bool(box.get("imageUri"))
        if python == container:
            src.collector.error(f"$.jobSpec.workerPoolSpecs[{i}]", "gcloud needs exactly one of "
                                "containerSpec and pythonPackageSpec in every pool of --config",
                                "an empty pool {} is accepted in a REST body, not by gcloud "
                                "--config; pass the pools with --worker-pool-spec (an empty "
                                "value skips a pool) or drop it", code="gcloud-refuses")
            return


def _bucket_of(uri: Any) -> str | None:
    return "gs://" + uri[5:].split("/")[0] if isinstance(uri, str) and uri.startswith("gs://") \
        else None


def _pool(spec: dict, uris: list[str], local: dict | None = None) -> dict:
    """_ConstructSingleWorkerPoolSpec: one --worker-pool-spec as a WorkerPoolSpec. With a
    local package (`local`, the first pool), every pool runs it: the executor image and the
    module, packaged from python.source."""
    if not spec:
        return {}
    if local is not None:
        module = local.get("python-module") or script_module(local["script"])
        machine: dict = {"machineType": spec.get("machine-type")}
        if spec.get("accelerator-type"):
            machine["acceleratorType"] = spec["accelerator-type"]
            machine["acceleratorCount"] = int(spec.get("accelerator-count", 1))
        return {"machineSpec": machine, "replicaCount": int(spec.get("replica-count", 1)),
                "pythonPackageSpec": {"executorImageUri": local["executor-image-uri"],
                                      "pythonModule": module}}
    machine: dict = {"machineType": spec.get("machine-type")}
    if spec.get("accelerator-type"):
        machine["acceleratorType"] = spec["accelerator-type"]
        machine["acceleratorCount"] = int(spec.get("accelerator-count", 1))
    pool: dict = {"machineSpec": machine, "replicaCount": int(spec.get("replica-count", 1))}
    if spec.get("container-image-uri"):
        pool["containerSpec"] = {"imageUri": spec["container-image-uri"]}
    elif uris or spec.get("executor-image-uri") or spec.get("python-module"):
        pool["pythonPackageSpec"] = {k: val for k, val in (
            ("executorImageUri", spec.get("executor-image-uri")), ("packageUris", list(uris)),
            ("pythonModule", spec.get("python-module"))) if val not in (None, [])}
    return pool


def _from(dest: str) -> str:
    return "from " + (dest if dest.startswith("--") else "--" + dest.replace("_", "-"))
