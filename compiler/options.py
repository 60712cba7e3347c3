"""What the caller adds to a spec (CLI flags, Pulumi stack config): read by every stage."""

from __future__ import annotations

from dataclasses import dataclass

from .catalog.extension import NONE as NO_EXTENSION
from .catalog.extension import Extension


@dataclass(frozen=True)
class Options:
    """What the caller adds to a spec: CLI flags or Pulumi stack config."""

    platform: str | None = None  # overrides spec.platform
    project: str | None = None  # default for specs without spec.project
    region: str | None = None  # default for specs without spec.region
    # Bucket for python.source archives, for specs without spec.stagingBucket (--staging-bucket,
    # stack config trainspec:stagingBucket); gs://NAME or NAME.
    staging_bucket: str | None = None
    # Where built archives are written (the Pulumi program, local-run); None: only hashed.
    package_dir: str | None = None
    strict: bool = False  # --strict: every warning is an error (config/apply.py)
    # The repo config's catalog extensions, set per spec by the pipeline from its config.
    extension: Extension = NO_EXTENSION
