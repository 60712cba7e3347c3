"""gcloud ai-platform jobs submit training's flags merged into trainingInput (BuildTrainingJob):
each flag given replaces the file's field; --package-path is local code python.source builds."""

from __future__ import annotations

import argparse
from typing import Any

from .. import fields
from ..roles import BY_NAME, CHIEF
from .flag_table import ML_COUNTS, ML_ROLES, ML_SCALARS, noted, set_rows
from .gcloud_checks import check_package_path, package_source
from .gcloud_values import GcloudError
from .sources import Source


def merge_ml(src: Source, ns: argparse.Namespace, v: dict[str, Any]) -> None:
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
            src.note(f"{at}.{key}", noted(dest))
    web = v.get("enable_web_access")
    set_rows(src, fields.ML, {**v, "enable_web_access": bool(web) if from_gcloud else web or None},
             {} if web else {"enable_web_access": "gcloud sends enableWebAccess false without "
                                                  "--enable-web-access"})
    for role, config in ML_ROLES.items():
        accel, image = v.get(f"{role}_accelerator"), v.get(f"{role}_image_uri")
        if accel:
            cfg = tin.setdefault(config, {})
            cfg["acceleratorConfig"] = {"count": accel["count"], "type": accel["type"]}
            src.note(f"{at}.{config}.acceleratorConfig", noted(f"{role}_accelerator"))
        if image:
            tin.setdefault(config, {})["imageUri"] = image
            src.note(f"{at}.{config}.imageUri", noted(f"{role}_image_uri"))
    if v.get("tpu_tf_version"):
        # gcloud puts --tpu-tf-version on the workers (the TPU pool of a cloud_tpu job).
        config = BY_NAME["worker"].ml_config
        tin.setdefault(config, {})["tpuTfVersion"] = v["tpu_tf_version"]
        src.note(f"{at}.{config}.tpuTfVersion", noted("tpu_tf_version"))
    master = tin.get(CHIEF.ml_config)
    if from_gcloud and not tin.get("packageUris") and not src.local_source and not (
            isinstance(master, dict) and master.get("imageUri")):
        src.collector.error("$", "a job without a custom container needs packages: gcloud "
                            "refuses it (\"Non-custom jobs must have packages\")",
                            "pass --packages gs://BUCKET/trainer-0.1.tar.gz, or "
                            "--master-image-uri", code="gcloud-refuses")


def _bucket_of(uri: Any) -> str | None:
    return "gs://" + uri[5:].split("/")[0] if isinstance(uri, str) and uri.startswith("gs://") \
        else None
