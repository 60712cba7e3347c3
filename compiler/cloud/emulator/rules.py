"""The create requests' rules: the discovery schema, and what a schema cannot express (the
server-side rules of each API, as the emulator's own oracle, not the compiler's tables)."""

from __future__ import annotations

import ipaddress
import json

from compiler import discovery
from compiler.cloud.emulator import tuning as emulated_tuning

from .common import ML_JOB_ID, TUNING_SCHEMA


def schema_violations(api: str, schema: str, body: dict) -> list[tuple[str, str]]:
    # Output-only fields are refused too, although Google may ignore them: trainspec must never
    # send them, and refusing makes such a bug visible.
    return [(discovery.to_snake_path(p), m) for p, m in discovery.violations(api, schema, body)]


def server_rules(api: str, body: dict, schema: str | None = None) -> list[tuple[str, str]]:
    """The create request's rules beyond its schema, as (snake_case field, description).
    `schema` tells a HyperparameterTuningJob from a CustomJob (the default) on aiplatform."""
    if api != "aiplatform":
        return ml_rules(body)
    if schema != TUNING_SCHEMA:
        return _vertex_rules(body)
    # The trial job is a CustomJobSpec: the CustomJob rules apply to it, under its own name.
    custom = {k: body[k] for k in ("displayName", "labels") if k in body}
    custom["jobSpec"] = body.get("trialJobSpec")
    return [(f.replace("job_spec", "trial_job_spec", 1) if f.startswith("job_spec") else f, d)
            for f, d in _vertex_rules(custom)] + emulated_tuning.rules(body)


def _vertex_rules(job: dict) -> list[tuple[str, str]]:
    """Rules the real API enforces that the discovery schema cannot express (facts A.1-A.4)."""
    out = []
    name = job.get("displayName")
    if not name:
        out.append(("display_name", "Required; must not be empty."))
    elif isinstance(name, str) and len(name) > 128:
        out.append(("display_name", "Must be at most 128 characters."))
    labels = job.get("labels")
    if isinstance(labels, dict) and len(labels) > 64:
        out.append(("labels", "A resource can have at most 64 labels."))
    for key, value in (labels.items() if isinstance(labels, dict) else ()):
        if not _label_ok(key, 1):
            out.append((f"labels[{json.dumps(key)}]", "Label keys must be 1-64 characters of "
                        "lowercase letters, digits, '_' or '-'."))
        if isinstance(value, str) and not _label_ok(value, 0):
            out.append((f"labels[{json.dumps(key)}]", "Label values must be at most 64 "
                        "characters of lowercase letters, digits, '_' or '-'."))
    if not isinstance(job.get("jobSpec"), dict):
        return out + [("job_spec", "Required.")]
    pools = job["jobSpec"].get("workerPoolSpecs")
    if not pools or not isinstance(pools, list):
        return out + [("job_spec.worker_pool_specs", "Required; at least one worker pool.")]
    if pools[0] == {}:
        out.append(("job_spec.worker_pool_specs[0]", "The first worker pool must not be empty."))
    for i, pool in enumerate(pools):
        if not isinstance(pool, dict) or pool == {}:
            continue
        where = f"job_spec.worker_pool_specs[{i}]"
        machine = pool.get("machineSpec")
        if not isinstance(machine, dict) or not machine.get("machineType"):
            out.append((f"{where}.machine_spec.machine_type", "Required in a non-empty pool."))
        if ("containerSpec" in pool) == ("pythonPackageSpec" in pool):
            out.append((where, "Exactly one of container_spec or python_package_spec is "
                        "required."))
        out += _vertex_pool_rules(job["jobSpec"], pool, where)
    return out


def _vertex_pool_rules(spec: dict, pool: dict, where: str) -> list[tuple[str, str]]:
    """Documented refusals inside one pool: NfsMount.server is an IP address, a GPU partition
    takes acceleratorCount 1 (MachineSpec.gpuPartitionSize), GB200 needs a reservation ([CC])."""
    out = []
    machine = pool.get("machineSpec") if isinstance(pool.get("machineSpec"), dict) else {}
    for i, mount in enumerate(pool.get("nfsMounts") or ()):
        server = mount.get("server") if isinstance(mount, dict) else None
        try:
            ipaddress.ip_address(server or "")
        except ValueError:
            out.append((f"{where}.nfs_mounts[{i}].server", "Must be the IP address of the NFS "
                        "server."))
    if machine.get("gpuPartitionSize") and str(machine.get("acceleratorCount")) != "1":
        out.append((f"{where}.machine_spec.gpu_partition_size", "Requires accelerator_count 1."))
    affinity = machine.get("reservationAffinity")
    kind = affinity.get("reservationAffinityType") if isinstance(affinity, dict) else None
    if machine.get("acceleratorType") == "NVIDIA_GB200" and not spec.get("persistentResourceId") \
            and kind not in ("ANY_RESERVATION", "SPECIFIC_RESERVATION"):
        out.append((f"{where}.machine_spec.reservation_affinity", "NVIDIA_GB200 is only "
                    "available through a reservation."))
    return out


def _label_ok(text: str, min_len: int) -> bool:
    # CustomJob.labels: ≤64 code points of lowercase letters, digits, '_' and '-'; international
    # characters allowed.
    return min_len <= len(text) <= 64 and all(
        c in "_-" or c.isdigit() or c.islower() or (ord(c) > 127 and c.isalpha()) for c in text)


def ml_rules(job: dict) -> list[tuple[str, str]]:
    """Rules of the legacy API beyond its schema (facts B.2-B.4 and C)."""
    out = []
    job_id = job.get("jobId")
    if not job_id:
        out.append(("job_id", "Required."))
    elif isinstance(job_id, str) and not ML_JOB_ID.match(job_id):
        out.append(("job_id", "Must start with a letter and contain only letters, digits and "
                    "underscores (at most 128 characters)."))
    if isinstance(job.get("labels"), dict) and len(job["labels"]) > 64:
        out.append(("labels", "A job can have at most 64 labels."))
    ti = job.get("trainingInput")
    if not isinstance(ti, dict):
        return out + [("training_input", "Required; only training jobs are emulated.")]
    for field in ("region", "scaleTier"):
        if not ti.get(field):
            out.append((f"training_input.{discovery.to_snake_path(field)}", "Required."))
    custom = ti.get("scaleTier") == "CUSTOM"
    if custom and not ti.get("masterType"):
        out.append(("training_input.master_type", "Required when scale_tier is CUSTOM."))
    for role in ("worker", "parameterServer", "evaluator"):
        count = ti.get(f"{role}Count")
        if isinstance(count, (int, str)) and str(count).lstrip("-").isdigit() and int(count) > 0:
            where = f"training_input.{discovery.to_snake_path(role)}"
            if not custom:
                out.append((f"{where}_count", "Only allowed when scale_tier is CUSTOM."))
            if not ti.get(f"{role}Type"):
                out.append((f"{where}_type", f"Required when {where}_count is set."))
    container = ((ti.get("masterConfig") or {}).get("imageUri")
                 if isinstance(ti.get("masterConfig"), dict) else None)
    if not container:
        # pythonVersion is not among them: gcloud submits without it (no --python-version) and
        # the service picks the runtime's default.
        for field in ("runtimeVersion", "packageUris", "pythonModule"):
            if not ti.get(field):
                out.append((f"training_input.{discovery.to_snake_path(field)}",
                            "Required unless master_config.image_uri is set."))
    if ti.get("args"):
        # [DD-ML] ReplicaConfig.containerCommand/containerArgs: "mutually exclusive with
        # TrainingInput.args, i.e., both cannot be set at the same time".
        for role in ("master", "worker", "parameterServer", "evaluator"):
            config = ti.get(f"{role}Config")
            for field in ("containerCommand", "containerArgs"):
                if isinstance(config, dict) and config.get(field):
                    out.append((f"training_input.{discovery.to_snake_path(role)}_config."
                                f"{discovery.to_snake_path(field)}",
                                "Cannot be set together with training_input.args."))
    return out


