"""What a repo config says, as plain frozen data (load.py builds it from a checked file)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from ..catalog.extension import NONE as NO_EXTENSION
from ..catalog.extension import Extension

DEFAULT_MAX_MIB = 100


@dataclass(frozen=True)
class RepoConfig:
    """`packaging:`: what a spec's python.source may package (compiler/packaging)."""

    allow_secret_files: tuple[str, ...] = ()
    max_size_mib: int = DEFAULT_MAX_MIB


@dataclass(frozen=True)
class Override:
    """One `overrides:` entry: settings for the specs its `paths` match."""

    paths: tuple[str, ...]
    ignore: frozenset[str] = frozenset()
    severity: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Policy:
    """`policy:`, the guardrails config/policy.py checks. None / () / False: not set."""

    required_labels: tuple[str, ...] = ()
    allowed_regions: tuple[str, ...] | None = None
    allowed_registries: tuple[str, ...] | None = None
    max_accelerators: int | None = None
    max_timeout: Decimal | None = None
    max_timeout_text: str = ""  # as written, for messages
    max_cost: Decimal | None = None  # USD, a job (every trial) running to its timeout
    max_hourly_rate: Decimal | None = None  # USD an hour, every replica (and parallel trial)
    require_encryption_key: bool = False
    require_spot_workers: bool = False
    forbid_plaintext_secrets: bool = False


@dataclass(frozen=True)
class Config:
    """A repo config. `file` is how messages name it ("" when there is none); `folder` is the
    folder its `overrides` paths are relative to, in the same terms as the spec paths given
    to `Config.for_spec` (see load.py)."""

    file: str = ""
    folder: str = ""
    ignore: frozenset[str] = frozenset()
    severity: tuple[tuple[str, str], ...] = ()
    overrides: tuple[Override, ...] = ()
    extension: Extension = NO_EXTENSION
    policy: Policy = field(default_factory=Policy)
    packaging: RepoConfig = field(default_factory=RepoConfig)


NONE = Config()
