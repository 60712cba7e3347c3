"""An ml v1 Job request → a trainspec spec: the inverse of targets/ml.py `lower`."""

from __future__ import annotations

from typing import Any

from .. import fields
from ..roles import BY_NAME, CHIEF, ON_ML, Role
from . import study
from .sources import Source
from .spec import Draft, as_int, is_zero_accel, set_disk, unknown_fields

# TrainingInput fields code reads (the simple ones are fields.ROWS, read back by the table).
KNOWN = {"scaleTier", "packageUris", "pythonModule", "args", "hyperparameters", "region",
         "runtimeVersion", "pythonVersion"} \
    | {f for r in ON_ML for f in (r.ml_type, r.ml_count, r.ml_config) if f} \
    | fields.known(fields.ML, "trainingInput")
CONFIG_KNOWN = {"acceleratorConfig", "imageUri", "containerCommand", "containerArgs",
                "diskConfig"} | fields.known(fields.ML, "", fields.POOL_ROWS)
LEGACY_NOTE = ("legacy machine names kept: compile --platform vertex maps them to Compute "
               "Engine types (approximate)")


def to_spec(src: Source, d: Draft) -> None:
    """Fill `d` from the ml v1 Job in `src.request`."""
    job, c = src.request, src.collector
    tin = job.get("trainingInput")
    if not isinstance(tin, dict):
        c.error("$.trainingInput", "trainingInput must be a mapping", code="import-shape")
        return
    unknown_fields(c, tin, KNOWN, "$.trainingInput", "TrainingInput",
                   "ml v1 field names are camelCase")
    d.labels(job.get("labels"), "$.labels")
    if tin.get("region") is not None:
        d.set("spec.region", tin["region"], src.notes.get("$.trainingInput.region"))
    for row, value, at in fields.read(job, fields.ML):
        d.set(f"spec.{row.spec}", value, src.notes.get("$." + fields.origin(row, at)[0]))
    _task(src, tin, d)
    _pools(src, tin, d)
    tier = tin.get("scaleTier")
    if tier is None and not d.has("spec.pools"):
        d.set("spec.aiPlatform.scaleTier", "BASIC", ["no scaleTier in the source: the API "
                                                     "default BASIC, written out"])
    elif tier is not None and not (tier == "CUSTOM" and d.has("spec.pools")):
        d.set("spec.aiPlatform.scaleTier", tier, src.notes.get("$.trainingInput.scaleTier"))
    elif tier == "CUSTOM":
        d.comment("spec.pools", "scaleTier CUSTOM in the source: implied by pools")
    hp = tin.get("hyperparameters")
    if isinstance(hp, dict):
        study.from_ml(src, hp, d)  # a tuning job: kind HyperparameterTuningJob, spec.tuning
    elif hp is not None:
        c.error("$.trainingInput.hyperparameters", "hyperparameters must be a mapping", code="import-shape")


def _task(src: Source, tin: dict, d: Draft) -> None:
    configs = {r.name: tin.get(r.ml_config) if isinstance(tin.get(r.ml_config), dict) else {}
               for r in ON_ML}
    image = configs[CHIEF.name].get("imageUri")
    container = image is not None or any(
        k in cfg for cfg in configs.values()
        for k in ("imageUri", "containerCommand", "containerArgs"))
    python = any(k in tin for k in ("packageUris", "pythonModule"))
    note = lambda key: src.notes.get(f"$.trainingInput.{key}")  # noqa: E731
    if container and python:
        src.collector.error("$.trainingInput", "both a custom container (imageUri) and a Python "
                            "package (packageUris/pythonModule): ml v1 runs one or the other",
                            code="import-task-kind")
        return
    if not container and not python:
        src.collector.error("$.trainingInput", f"nothing to run: no {CHIEF.ml_config}.imageUri and no "
                            "packageUris/pythonModule", "gcloud takes them from flags: pass "
                            "--module-name and --packages, or --master-image-uri", code="import-no-task")
        return
    if python:
        for key, spec_key in (("packageUris", "packages"), ("pythonModule", "module"),
                              ("args", "args"), ("runtimeVersion", "runtimeVersion"),
                              ("pythonVersion", "pythonVersion")):
            if key in tin:
                d.set(f"spec.python.{spec_key}", tin[key], note(key))
        return
    for key in ("runtimeVersion", "pythonVersion"):
        if key in tin:
            src.collector.error(f"$.trainingInput.{key}", f"{key} with a custom container: "
                                "trainspec sets it only for Python packages", code="import-runtime-container")
    d.set("spec.container.image", image, note(f"{CHIEF.ml_config}.imageUri"))
    present = [r.name for r in ON_ML if _has_pool(tin, r)] or [CHIEF.name]
    commands = [configs[r].get("containerCommand") for r in present]
    if commands[0] is not None and all(cmd == commands[0] for cmd in commands):
        d.set("spec.container.command", commands[0])
    pooled = any("containerArgs" in configs[r] for r in present)
    if pooled and not any(_has_pool(tin, r) for r in ON_ML) and tin.get("args") is None:
        # A scale tier job: masterConfig.containerArgs are the spec's container args.
        d.set("spec.container.args", configs[CHIEF.name]["containerArgs"])
        pooled = False
    if pooled and tin.get("args"):
        src.collector.error("$.trainingInput.args", "args for every replica and containerArgs "
                            "per replica: trainspec expresses one or the other", code="import-args")
    elif tin.get("args") is not None:
        d.set("spec.container.args", tin["args"], note("args"))
    # A job without pools (a scale tier) runs the spec-level container: its master's
    # containerArgs are the spec's args, not a chief pool's (which a tier cannot have).
    pool_less = not any(_has_pool(tin, r) for r in ON_ML)
    for role in present:
        cfg, config_key = configs[role], BY_NAME[role].ml_config
        p = "spec.container" if pool_less else f"spec.pools.{role}.container"
        if role != CHIEF.name and cfg.get("imageUri") not in (None, image):
            d.set(f"{p}.image", cfg["imageUri"], note(f"{config_key}.imageUri"))
        elif role != CHIEF.name and cfg.get("imageUri") is not None:
            d.comment(f"spec.pools.{role}", f"{config_key}.imageUri equals "
                      f"{CHIEF.ml_config}.imageUri: inherited from spec.container")
        if not d.has("spec.container.command") and cfg.get("containerCommand") is not None:
            d.set(f"{p}.command", cfg["containerCommand"])
        if pooled and cfg.get("containerArgs") is not None:
            d.set(f"{p}.args", cfg["containerArgs"])


def _has_pool(tin: dict, role: Role) -> bool:
    if role is CHIEF:
        return tin.get(role.ml_type) is not None or tin.get("scaleTier") == "CUSTOM"
    count = as_int(tin.get(role.ml_count)) if role.ml_count else None
    return count not in (None, 0) or (tin.get(role.ml_type) is not None and count is None)


def _pools(src: Source, tin: dict, d: Draft) -> None:
    legacy = False
    for r in ON_ML:
        role, type_key, count_key, cfg_key = r.name, r.ml_type, r.ml_count, r.ml_config
        at = "$.trainingInput"
        cfg = tin.get(cfg_key) if isinstance(tin.get(cfg_key), dict) else {}
        unknown_fields(src.collector, cfg, CONFIG_KNOWN, f"{at}.{cfg_key}", "ReplicaConfig")
        count = as_int(tin.get(count_key)) if count_key else None
        if count_key and count == 0:
            if tin.get(type_key) or cfg:
                d.comment("spec.pools", f"{count_key} 0 in the source: no {role} pool")
            continue
        if not _has_pool(tin, r):
            continue
        p = f"spec.pools.{role}"
        if count is not None:
            d.set(f"{p}.replicas", count, src.notes.get(f"{at}.{count_key}"))
        machine = tin.get(type_key)
        if machine is not None:
            d.set(f"{p}.machineType", machine, src.notes.get(f"{at}.{type_key}"))
            legacy = legacy or (isinstance(machine, str) and "-" not in machine)
        accel = cfg.get("acceleratorConfig")
        if isinstance(accel, dict) and not is_zero_accel(accel.get("type"), accel.get("count")):
            d.set(f"{p}.accelerator.type", accel.get("type"),
                  src.notes.get(f"{at}.{cfg_key}.acceleratorConfig"))
            if "count" in accel:
                d.set(f"{p}.accelerator.count", as_int(accel["count"]))
        elif isinstance(accel, dict):
            d.comment(p, f"{cfg_key}.acceleratorConfig {_show(accel)} means no accelerator")
        set_disk(d, p, cfg.get("diskConfig"))
        for row, value, key in fields.read(cfg, fields.ML, fields.POOL_ROWS):
            d.set(f"{p}.{row.spec}", value, src.notes.get(f"{at}.{cfg_key}.{key}"))
        if not d.has(p):
            d.set(p, {})
    if legacy:
        d.comment("spec.pools", LEGACY_NOTE)


def _show(value: Any) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in value.items()) + "}"
