"""gcloud ai custom-jobs create's flags merged into the CustomJob (ConstructCustomJobSpec):
--worker-pool-spec pools (a local package runs in every pool), --args and --command on every
pool, the simple fields' flags; and what gcloud refuses in --config pools."""

from __future__ import annotations

import argparse
from typing import Any

from .. import fields
from .flag_table import ROW_FLAGS, noted, set_rows
from .gcloud_checks import script_module
from .sources import Source


def merge_vertex(src: Source, ns: argparse.Namespace, v: dict[str, Any]) -> None:
    """ConstructCustomJobSpec, then the CustomJob around it (displayName, labels, CMEK)."""
    req = src.request
    spec = req.setdefault("jobSpec", {})
    if v.get("display_name") is not None:
        req["displayName"] = v["display_name"]
        src.note("$.displayName", noted("display_name"))
    # Switches: gcloud sends true when given, nothing otherwise.
    set_rows(src, fields.VERTEX, {k: (True if v.get(k) else None)
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
        src.note("$.jobSpec.workerPoolSpecs", noted("worker_pool_spec"))
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
                    src.note(f"$.jobSpec.workerPoolSpecs[{i}].{kind}.{task_key}", noted(dest))


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


def _pool(spec: dict, uris: list[str], local: dict | None = None) -> dict:
    """_ConstructSingleWorkerPoolSpec: one --worker-pool-spec as a WorkerPoolSpec. With a
    local package (`local`, the first pool), every pool runs it: the executor image and the
    module, packaged from python.source."""
    if not spec:
        return {}
    if local is not None:
        module = local.get("python-module") or script_module(local["script"])
        return {"machineSpec": _machine(spec), "replicaCount": int(spec.get("replica-count", 1)),
                "pythonPackageSpec": {"executorImageUri": local["executor-image-uri"],
                                      "pythonModule": module}}
    pool: dict = {"machineSpec": _machine(spec), "replicaCount": int(spec.get("replica-count", 1))}
    if spec.get("container-image-uri"):
        pool["containerSpec"] = {"imageUri": spec["container-image-uri"]}
    elif uris or spec.get("executor-image-uri") or spec.get("python-module"):
        pool["pythonPackageSpec"] = {k: val for k, val in (
            ("executorImageUri", spec.get("executor-image-uri")), ("packageUris", list(uris)),
            ("pythonModule", spec.get("python-module"))) if val not in (None, [])}
    return pool


def _machine(spec: dict) -> dict:
    """A --worker-pool-spec's MachineSpec (one accelerator when only its type is given)."""
    machine: dict = {"machineType": spec.get("machine-type")}
    if spec.get("accelerator-type"):
        machine["acceleratorType"] = spec["accelerator-type"]
        machine["acceleratorCount"] = int(spec.get("accelerator-count", 1))
    return machine
