"""What gcloud refuses in a whole command, after reading each flag: missing or conflicting
flags, worker pool specs, local code trainspec cannot build, the region and the job id.

Source: gcloud 528, `command_lib/ai/custom_jobs/validation.py`,
`command_lib/ml_engine/jobs_util.py`, `surface/ai_platform/jobs/submit/training.py`.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from .gcloud_tables import KMS, LOCAL_ONLY_KEYS, LOCAL_POOL_KEYS, VERTEX_ACCELERATORS, VERTEX_REGIONS
from .gcloud_values import GcloudError

if TYPE_CHECKING:
    from .invocation import Invocation

_JOB_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,127}\Z")  # [MMJ] job naming rules


def _kms(inv: Invocation) -> None:
    """--kms-key with --kms-keyring/--kms-location/--kms-project: the key's full name."""
    v = inv.values
    key = v.get("--kms-key")
    parts = [v.get(f) for f in KMS[1:]]
    if key is None:
        if any(parts):
            raise GcloudError("--kms-key: encryption key not fully specified")
        return
    if str(key).startswith("projects/"):
        return
    ring, location, project = parts
    if not (ring and location and project):
        # gcloud falls back to no property for these: the key must be fully specified.
        raise GcloudError("--kms-key: encryption key not fully specified (give the full "
                          "projects/.../cryptoKeys/KEY name, or --kms-keyring, --kms-location "
                          "and --kms-project)")
    v["--kms-key"] = f"projects/{project}/locations/{location}/keyRings/{ring}/cryptoKeys/{key}"


def _region(inv: Invocation) -> None:
    if "--region" not in inv.values:
        raise GcloudError("no --region: gcloud would take it from your configuration (the "
                          "ai/region or compute/region property, or a prompt); pass --region so "
                          "the spec says where the job runs")


def check_vertex(inv: Invocation) -> None:
    v = inv.values
    _vertex_common(inv, "custom-job", ("--display-name",))
    pools = v.get("--worker-pool-spec")
    if not pools and "--config" not in v:
        raise GcloudError("one of --config and --worker-pool-spec must be specified")
    _kms(inv)
    if pools:
        check_pools(pools)  # type: ignore[arg-type]


def check_tuning(inv: Invocation) -> None:
    """hp-tuning-jobs create: the region as for custom jobs, --config and --display-name."""
    _vertex_common(inv, "tuning-job", ("--config", "--display-name"))
    _kms(inv)


def _vertex_common(inv: Invocation, what: str, required: tuple[str, ...]) -> None:
    """Both Vertex commands: a region of gcloud's training list, the required flags, and a
    display name that is not empty."""
    v = inv.values
    _region(inv)
    if v["--region"] not in VERTEX_REGIONS:
        raise GcloudError(f"invalid value for [region]: {v['--region']!r} is not one of gcloud's "
                          f"{what} training regions")
    for flag in required:
        if flag not in v:
            raise GcloudError(f"argument {flag}: must be specified")
    if not v["--display-name"]:
        raise GcloudError("argument --display-name: must not be empty")


def check_pools(pools: list[dict]) -> None:
    """custom_jobs/validation.py _ValidateWorkerPoolSpecArgs, in gcloud's order."""
    if not pools[0]:
        raise GcloudError("--worker-pool-spec: an empty value is not allowed for the first "
                          "--worker-pool-spec flag")
    for spec in pools:
        if not spec:
            continue
        if "machine-type" not in spec:
            raise GcloudError("--worker-pool-spec: key [machine-type] required in dict arg but "
                              "not provided")
        if "accelerator-count" in spec and "accelerator-type" not in spec:
            raise GcloudError("--worker-pool-spec: key [accelerator-type] required as "
                              "[accelerator-count] is specified")
        kind = spec.get("accelerator-type")
        if kind and kind not in VERTEX_ACCELERATORS:
            raise GcloudError(f"--worker-pool-spec: invalid value of [accelerator-type]: {kind}. "
                              f"Available values are [{', '.join(VERTEX_ACCELERATORS)}]")
    local = "local-package-path" in pools[0]
    if local:
        _check_local_pool(pools[0])
    for i, spec in enumerate(pools):
        if not spec or (local and i == 0):
            continue
        if local:
            software = sorted({"executor-image-uri", "container-image-uri", "python-module",
                               "script", *LOCAL_ONLY_KEYS} & set(spec))
            if software:
                raise GcloudError(f"--worker-pool-spec: keys [{', '.join(software)}] are not "
                                  "allowed: a local package has been specified in the first "
                                  "--worker-pool-spec and is used for all workers")
            continue
        if "local-package-path" in spec:
            raise GcloudError("--worker-pool-spec: key [local-package-path] is only allowed in "
                              "the first --worker-pool-spec")
        images = ("executor-image-uri" in spec) + ("container-image-uri" in spec)
        if images != 1:
            raise GcloudError("--worker-pool-spec: exactly one of keys [executor-image-uri, "
                              "container-image-uri] is required")
        if "container-image-uri" in spec and "python-module" in spec:
            raise GcloudError("--worker-pool-spec: key [python-module] is not allowed together "
                              "with key [container-image-uri]")
        if "executor-image-uri" in spec and "python-module" not in spec:
            raise GcloudError("--worker-pool-spec: key [python-module] is required")
        only_local = sorted((LOCAL_POOL_KEYS - {"output-image-uri", "local-package-path"})
                            & set(spec))
        if only_local:
            raise GcloudError(f"--worker-pool-spec: keys [{', '.join(only_local)}] are not "
                              "allowed: gcloud takes them only with local-package-path in the "
                              "first --worker-pool-spec (local code, which import does not "
                              "build)")


def _check_local_pool(spec: dict) -> None:
    """_ValidateWorkerPoolSoftwareWithLocalPackage, and what trainspec cannot build."""
    if not os.path.isdir(spec["local-package-path"]):
        raise GcloudError(f"--worker-pool-spec: directory {spec['local-package-path']!r} is not "
                          "found")
    if "executor-image-uri" not in spec:
        raise GcloudError("--worker-pool-spec: key [executor-image-uri] is required when "
                          "local-package-path is specified")
    if ("python-module" in spec) + ("script" in spec) != 1:
        raise GcloudError("--worker-pool-spec: exactly one of keys [python-module, script] is "
                          "required when local-package-path is specified")
    for key, how in LOCAL_ONLY_KEYS.items():
        if key in spec:
            raise GcloudError(f"--worker-pool-spec: key [{key}]: gcloud installs it into the "
                              f"image it builds, which python.source does not; {how}")
    script = spec.get("script")
    if script is not None and not re.fullmatch(r"[A-Za-z_]\w*(/[A-Za-z_]\w*)*\.py", script):
        raise GcloudError(f"--worker-pool-spec: script {script!r} cannot run as a module of the "
                          "package (python.source runs `python -m MODULE`): pass "
                          "python-module=PACKAGE.MODULE")


def check_package_path(path: str, staging: object) -> None:
    """What gcloud checks of --package-path (jobs_util / uploads): a staging place, and a
    package folder (with __init__.py), read relative to the current folder."""
    if not staging:
        raise GcloudError("if local packages are provided, the --staging-bucket or --job-dir "
                          "flag must be given")
    if not os.path.isfile(os.path.join(path, "__init__.py")):
        raise GcloudError(f"--package-path {path} is not a valid Python package: it has no "
                          "__init__.py (or is not a folder)")


def script_module(script: str) -> str:
    """script=trainer/task.py (relative to local-package-path) → the module trainer.task."""
    return script[:-3].replace("/", ".")


def package_source(package_path: str) -> str:
    """--package-path trainer/ (the package itself) → its parent folder, where gcloud looks
    for setup.py (and where python.source points)."""
    parent = os.path.dirname(os.path.normpath(package_path))
    return parent or "."


def check_ml(inv: Invocation) -> None:
    v = inv.values
    _region(inv)
    _kms(inv)
    for role in ("worker", "parameter-server"):
        machine, count = f"--{role}-machine-type", f"--{role}-count"
        if (machine in v) != (count in v):
            missing = count if machine in v else machine
            raise GcloudError(f"argument {missing}: must be specified (with {machine} and "
                              f"{count} together)")
    local = [p for p in v.get("--packages") or () if not str(p).startswith("gs://")]  # type: ignore[union-attr]
    staging = v.get("--staging-bucket") or v.get("--job-dir")
    if local and not staging:
        raise GcloudError("if local packages are provided, the --staging-bucket or --job-dir "
                          "flag must be given")
    if "--package-path" in v:
        check_package_path(str(v["--package-path"]), staging)
    if local:
        raise GcloudError(f"--packages {local[0]} is a local archive, which gcloud uploads at "
                          "submit time; trainspec packages source folders (python.source), not "
                          "archives: upload it and pass its gs:// URI, or use --package-path")
    if "--master-image-uri" in v and "--runtime-version" in v:
        raise GcloudError("only one of --master-image-uri, --runtime-version can be set")
    if v.get("--scale-tier") == "CUSTOM" and "--master-machine-type" not in v:
        raise GcloudError("--master-machine-type is required if --scale-tier is custom")
    if not _JOB_ID.match(inv.job or ""):
        raise GcloudError(f"JOB {inv.job!r} is not a valid job id: the API takes letters, "
                          "digits and '_', starting with a letter, at most 128 characters")
