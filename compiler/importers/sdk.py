"""Python SDK and GAPIC arguments (snake_case dictionaries) → the REST request they send.

`aiplatform.CustomJob(worker_pool_specs=...)`, `CustomContainerTrainingJob(...).run(...)`,
`HyperparameterTuningJob(metric_spec=..., parameter_spec=...)`, GAPIC job dicts and the TFX
Trainer's `ai_platform_training_args`: names camelCased, the SDK's defaults and derived fields
replayed (google-cloud-aiplatform `jobs.py`, `training_jobs.py`, `hyperparameter_tuning.py`,
`utils/worker_spec_utils.py`), each choice noted.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .. import fields
from ..tuning.model import PARENT_VALUES, RANGED, VALUE_SPECS
from . import typed

if TYPE_CHECKING:
    from .loaded import Source

# Mappings whose keys are user data, never field names: not converted from snake_case.
_USER_KEYS = frozenset({"labels", "environment_variables"})
# Client-side SDK arguments that are not part of the request.
_CLIENT_ONLY = frozenset({"sync", "create_request_timeout", "project", "location", "staging_bucket",
                          "credentials", "model_serving_container_image_uri"})
# SDK run()/submit() keyword → CustomJobSpec field (after camelCase), or scheduling.<field>:
# the SDK column of compiler/fields.py. Durations may be given as seconds.
_RUN_KWARGS = {kwarg: path.removeprefix("jobSpec.")
               for kwarg, path in fields.sdk_kwargs().items() if path.startswith("jobSpec.")}
_SECONDS = frozenset(r.sdk for r in fields.JOB_ROWS if r.sdk and r.codec.name == "duration")
# CustomContainerTrainingJob.run() keywords that shape the worker pools.
_POOL_KWARGS = frozenset({"args", "replica_count", "machine_type", "accelerator_type",
                          "accelerator_count", "boot_disk_type", "boot_disk_size_gb",
                          "environment_variables", "tpu_topology"})
_HPT_SDK = frozenset({"metric_spec", "parameter_spec", "max_trial_count", "parallel_trial_count",
                      "search_algorithm", "max_failed_trial_count", "measurement_selection"})
# aiplatform.HyperparameterTuningJob(...) → the StudySpec it sends (google.cloud.aiplatform
# jobs.py and hyperparameter_tuning.py): hpt.*ParameterSpec classes written as dicts with
# their class name in "type", scale and algorithm names, measurement_selection (default "best").
_SDK_KINDS = {"DoubleParameterSpec": "double", "IntegerParameterSpec": "integer",
              "DiscreteParameterSpec": "discrete", "CategoricalParameterSpec": "categorical"}
_SDK_SCALES = {"linear": "UNIT_LINEAR_SCALE", "log": "UNIT_LOG_SCALE",
               "reverse_log": "UNIT_REVERSE_LOG_SCALE", "unspecified": None}
_SDK_ALGORITHMS = {None: None, "grid": "GRID_SEARCH", "random": "RANDOM_SEARCH"}
_SDK_MEASUREMENTS = {"best": "BEST_MEASUREMENT", "last": "LAST_MEASUREMENT"}
_SDK_MEASUREMENT_DEFAULT = "best"


def camel(name: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name)


def camelize(value: Any, key: str = "") -> Any:
    """snake_case field names → the REST API's camelCase, leaving user-keyed mappings alone."""
    if isinstance(value, dict):
        if key in _USER_KEYS:
            return dict(value)
        return {camel(k) if isinstance(k, str) else k: camelize(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [camelize(v, key) for v in value]
    return value


def _enum_names(src: Source) -> None:
    """proto-plus sends an enum given as a number (MachineSpec.accelerator_type=7) by name."""
    from ..catalog import accelerators

    spec = src.request.get("jobSpec")
    pools = spec.get("workerPoolSpecs") if isinstance(spec, dict) else None
    for i, pool in enumerate(pools if isinstance(pools, list) else ()):
        m = pool.get("machineSpec") if isinstance(pool, dict) else None
        kind = m.get("acceleratorType") if isinstance(m, dict) else None
        named = accelerators.from_enum_number(kind) if type(kind) is int else None
        if named:
            m["acceleratorType"] = accelerators.from_enum_number(kind)
            src.note(f"$.jobSpec.workerPoolSpecs[{i}].machineSpec.acceleratorType",
                     f"acceleratorType {kind} is the proto enum number of {m['acceleratorType']}")


def read(src: Source, data: dict) -> Source:
    """Fill `src` (an empty `vertex-sdk` source) with the request the SDK arguments `data` send."""
    _sdk_request(src, data)
    _enum_names(src)
    return src


def _sdk_request(src: Source, data: dict) -> None:
    if "ai_platform_training_args" in data:  # TFX Trainer custom_config wrapper
        inner = data["ai_platform_training_args"]
        data = dict(inner) if isinstance(inner, dict) else {}
        data.setdefault("_path", "$.ai_platform_training_args")
    base = data.pop("_path", "$")
    for key in ("project", "location"):
        if isinstance(data.get(key), str):
            setattr(src, "project" if key == "project" else "region", data[key])
    if "trial_job_spec" in data or _HPT_SDK & set(data):
        src.study = _sdk_study(src, data, base)
        src.kind = "vertex-hpt"
    if "job_spec" in data or "trial_job_spec" in data:  # GAPIC CustomJob / HPT job dict
        spec = data.get("job_spec", data.get("trial_job_spec"))
        src.request = {k: v for k, v in camelize({
            "display_name": data.get("display_name"), "labels": data.get("labels"),
            "encryption_spec": data.get("encryption_spec")}).items() if v is not None}
        src.request["jobSpec"] = camelize(spec)
        return
    c = src.collector
    ctor = dict(typed.mapping(c, data.get("constructor_kwargs"), f"{base}.constructor_kwargs",
                              "constructor_kwargs"))
    where = f"{base}.run_kwargs" if "run_kwargs" in data else f"{base}.submit_kwargs"
    run = dict(typed.mapping(c, data.get("run_kwargs", data.get("submit_kwargs")), where,
                             where.rsplit(".", 1)[1]))
    if "container_uri" in data:  # CustomContainerTrainingJob(container_uri, command).run(...)
        pools = _container_job_pools(data, run, src)
    else:
        pools = camelize(data.get("worker_pool_specs"))
    spec: dict = {"workerPoolSpecs": pools}
    for key in ("base_output_dir", "labels", "display_name", "encryption_spec_key_name",
                "persistent_resource_id"):
        if key in data and key not in ctor:
            ctor[key] = data[key]
    for kwargs, at in ((ctor, f"{base}.constructor_kwargs"), (run, where)):
        for key, value in kwargs.items():
            _sdk_kwarg(src, spec, key, value, f"{at}.{key}")
    bucket = ctor.get("staging_bucket", data.get("staging_bucket"))
    if isinstance(bucket, str) and "baseOutputDirectory" not in spec:
        _staging_output(src, spec, bucket, "aiplatform-custom-training" if "container_uri" in data
                        else "aiplatform-custom-job")
    src.request["jobSpec"] = spec


def _sdk_study(src: Source, data: dict, base: str) -> dict:
    """The HyperparameterTuningJob fields (beside trialJobSpec) of GAPIC `study_spec` or of
    the SDK's `metric_spec` / `parameter_spec` arguments."""
    study = camelize({k: v for k, v in data.items() if k in ("study_spec", "max_trial_count",
                                                             "parallel_trial_count",
                                                             "max_failed_trial_count")})
    if "metric_spec" not in data and "parameter_spec" not in data:
        return study
    metrics = data.get("metric_spec") if isinstance(data.get("metric_spec"), dict) else {}
    params = data.get("parameter_spec") if isinstance(data.get("parameter_spec"), dict) else {}
    spec: dict[str, Any] = {
        "metrics": [{"metricId": k, "goal": str(v).upper()} for k, v in metrics.items()],
        "parameters": [_sdk_parameter(src, k, v, f"{base}.parameter_spec") for k, v in
                       params.items()]}
    algorithm = typed.scalar(src.collector, data.get("search_algorithm"),
                             f"{base}.search_algorithm", "search_algorithm")
    if algorithm not in _SDK_ALGORITHMS:
        src.collector.error(f"{base}.search_algorithm", f"unknown search_algorithm "
                            f"{algorithm!r}", "None, 'grid' or 'random'",
                            code="import-enum-value")
    elif _SDK_ALGORITHMS[algorithm]:
        spec["algorithm"] = _SDK_ALGORITHMS[algorithm]
    measurement = data.get("measurement_selection", _SDK_MEASUREMENT_DEFAULT)
    if measurement not in _SDK_MEASUREMENTS:
        src.collector.error(f"{base}.measurement_selection", f"unknown measurement_selection "
                            f"{measurement!r}", "'best' or 'last'",
                            code="import-enum-value")
    else:
        spec["measurementSelectionType"] = _SDK_MEASUREMENTS[measurement]
        if "measurement_selection" not in data:
            src.note("$.studySpec", "measurement_selection not given: the SDK sends its "
                     "default, 'best'")
    study["studySpec"] = spec
    return study


def _sdk_parameter(src: Source, pid: str, value: Any, at: str) -> dict:
    """One hpt.*ParameterSpec, written as a dict ({"type": "DoubleParameterSpec", ...})."""
    where = f"{at}[{pid!r}]"
    c = src.collector
    kind = _SDK_KINDS.get(typed.scalar(c, value.get("type"), f"{where}.type", "type")) \
        if isinstance(value, dict) else None
    if kind is None:
        src.collector.error(where, "a parameter spec needs its class as \"type\": one of "
                            + ", ".join(_SDK_KINDS), code="import-required-field")
        return {"parameterId": pid}
    out: dict[str, Any] = {"parameterId": pid}
    if kind in RANGED:
        low, high = value.get("min"), value.get("max")
        out[VALUE_SPECS[kind]] = {"minValue": str(low) if kind == "integer" else low,
                                  "maxValue": str(high) if kind == "integer" else high}
    else:
        out[VALUE_SPECS[kind]] = {"values": typed.listing(c, value.get("values"),
                                                          f"{where}.values", "values")}
    scale = typed.scalar(c, value.get("scale"), f"{where}.scale", "scale")
    if scale is not None and scale not in _SDK_SCALES:
        src.collector.error(f"{where}.scale", f"unknown scale {scale!r}",
                            "'linear', 'log' or 'reverse_log'", code="import-enum-value")
    elif _SDK_SCALES.get(scale):
        out["scaleType"] = _SDK_SCALES[scale]
    children = value.get("conditional_parameter_spec") or {}
    if children and kind not in PARENT_VALUES:
        src.collector.error(f"{where}.conditional_parameter_spec", "only integer, discrete and "
                            "categorical parameters take conditional parameters",
                            code="tuning-conditional-parent")
    elif isinstance(children, dict) and children:
        out["conditionalParameterSpecs"] = [
            {"parameterSpec": _sdk_parameter(src, cid, child,
                                             f"{where}.conditional_parameter_spec"),
             PARENT_VALUES[kind]: {"values": [str(v) if kind == "integer" else v for v in (
                 child.get("parent_values") or () if isinstance(child, dict) else ())]}}
            for cid, child in children.items()]
    return out


def _staging_output(src: Source, spec: dict, bucket: str, prefix: str) -> None:
    """Without base_output_dir the SDK sends baseOutputDirectory
    `<staging_bucket>/<prefix>-<time of the run>` (aiplatform.utils._timestamped_gcs_dir):
    a new folder per run, which a spec cannot say; the import names one fixed folder and says so."""
    root = bucket.rstrip("/")
    root = root if root.startswith("gs://") else "gs://" + root
    spec["baseOutputDirectory"] = {"outputUriPrefix": f"{root}/{prefix}"}
    text = (f"staging_bucket {bucket}: the SDK sends baseOutputDirectory {root}/{prefix}-<time "
            f"of the run>, a new folder per run; the spec names the fixed folder {root}/{prefix}")
    src.note("$.jobSpec.baseOutputDirectory", text)
    src.collector.warning("$.jobSpec.baseOutputDirectory", text,
                          "set spec.outputDir to the folder the job should write to",
                          code="import-output-dir")


def _sdk_kwarg(src: Source, spec: dict, key: str, value: Any, at: str) -> None:
    if key in _CLIENT_ONLY or key in _POOL_KWARGS:
        if key == "project" and isinstance(value, str):
            src.project = value
        if key == "location" and isinstance(value, str):
            src.region = value
        return
    if key == "display_name":
        src.request["displayName"] = value
    elif key == "labels":
        src.request["labels"] = value
    elif key == "encryption_spec_key_name":
        src.request["encryptionSpec"] = {"kmsKeyName": value}
    elif key == "base_output_dir":
        spec["baseOutputDirectory"] = {"outputUriPrefix": value}
    elif key in _RUN_KWARGS:
        target = _RUN_KWARGS[key]
        if key in _SECONDS and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = f"{value}s"
        if target.startswith("scheduling."):
            spec.setdefault("scheduling", {})[target.split(".", 1)[1]] = value
        else:
            spec[target] = camelize(value)
    else:
        src.collector.error(at, f"SDK argument {key!r} has no CustomJob field trainspec can "
                            "import", "set it in the spec by hand if it has a trainspec key",
                            code="import-unknown-field")


def _container_job_pools(data: dict, run: dict, src: Source) -> list[dict]:
    """CustomContainerTrainingJob.run(): pool 0 with one replica, pool 1 with the rest
    (aiplatform.utils.worker_spec_utils._DistributedTrainingSpec), SDK defaults applied."""
    machine: dict = {"machineType": run.get("machine_type", "n1-standard-4")}
    accel = run.get("accelerator_type")
    if accel not in (None, "ACCELERATOR_TYPE_UNSPECIFIED") and run.get("accelerator_count", 0):
        machine["acceleratorType"] = accel
        machine["acceleratorCount"] = run["accelerator_count"]
    if run.get("tpu_topology"):
        machine["tpuTopology"] = run["tpu_topology"]
    container: dict = {"imageUri": data.get("container_uri")}
    if data.get("command"):
        container["command"] = data["command"]
    if run.get("args"):
        container["args"] = run["args"]
    env = run.get("environment_variables")
    if isinstance(env, dict) and env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    pool: dict = {"machineSpec": machine, "replicaCount": 1, "containerSpec": container}
    if "boot_disk_type" in run or "boot_disk_size_gb" in run:
        pool["diskSpec"] = {"bootDiskType": run.get("boot_disk_type", "pd-ssd"),
                            "bootDiskSizeGb": run.get("boot_disk_size_gb", 100)}
    replicas = run.get("replica_count", 1)
    pools = [pool]
    if isinstance(replicas, int) and replicas > 1:
        pools.append({**pool, "replicaCount": replicas - 1})
        src.note("$.jobSpec.workerPoolSpecs[1]", f"replica_count={replicas}: the SDK runs one "
                 f"chief and {replicas - 1} worker(s) with the same spec")
    return pools
