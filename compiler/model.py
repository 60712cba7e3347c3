"""The backend-neutral job model: what a spec means, after defaults and cross-field rules.

Both lowering modules (targets/vertex.py, targets/ml.py) read only this model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .catalog.extension import NONE as NO_EXTENSION
from .catalog.extension import Extension

if TYPE_CHECKING:
    from .fields import Row
    from .tuning.model import Tuning

PLATFORMS = ("vertex", "ai-platform")
KINDS = ("TrainingJob", "HyperparameterTuningJob")


# The only stack config namespace a spec's `{secret: KEY}` may read. Another one (gcp:credentials,
# aws:secretKey) would put another provider's credentials into a job's environment; the schema
# refuses it with a located error (schemas/v1, $defs.env).
CONFIG_NAMESPACE = "trainspec"
# Labels the Pulumi providers put on every job they create (compiler/pulumi_resources/):
# whose job it is, and which generation. Both APIs allow 64 labels per job.
IDENTITY_LABEL, SPEC_HASH_LABEL = "trainspec-resource", "trainspec-spec-hash"
# On a Vertex job that replaced another: which replace made it (a retried create adopts only
# its own replace's job, never an earlier generation's with the same spec hash).
REPLACES_LABEL = "trainspec-replaces"
MANAGED_LABELS = (IDENTITY_LABEL, SPEC_HASH_LABEL, REPLACES_LABEL)
MAX_LABELS = 64


def secret_config_key(key: str) -> str | None:
    """The stack config key `{secret: key}` reads: ``trainspec:NAME`` for ``NAME`` or
    ``trainspec:NAME``; None for an empty name or another namespace, which are never read."""
    namespace, _, name = key.rpartition(":")
    return f"{CONFIG_NAMESPACE}:{name}" if name and namespace in ("", CONFIG_NAMESPACE) else None


def secret_placeholder(key: str) -> str:
    """What a secret env value compiles to outside Pulumi: a marker, never the value."""
    return f"<secret:{key}>"


@dataclass(frozen=True)
class EnvVar:
    name: str
    value: str | None = None
    secret: str | None = None  # trainspec:KEY, the stack config key holding the value

    @property
    def payload_value(self) -> str:
        return secret_placeholder(self.secret) if self.secret else (self.value or "")


@dataclass(frozen=True)
class Container:
    image: str | None = None
    command: tuple[str, ...] = ()
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class PythonPackage:
    packages: tuple[str, ...] = ()
    module: str | None = None
    args: tuple[str, ...] = ()
    executor_image: str | None = None
    runtime_version: str | None = None
    python_version: str | None = None
    # python.source as written (a folder relative to the spec file); once packaged, its
    # archive's URI is the first of `packages` (compiler/packaging).
    source: str | None = None


Task = Container | PythonPackage


@dataclass
class Pool:
    role: str
    path: str  # JSON path of the pool in the spec
    replicas: int = 1
    machine_type: str | None = None
    accelerator_type: str | None = None
    accelerator_count: int | None = None
    disk_type: str | None = None
    disk_size_gb: int | None = None
    task: Task | None = None
    overrides: frozenset[str] = frozenset()  # task fields this pool set itself ("image", "args"…)
    env: tuple[EnvVar, ...] = ()
    env_overridden: bool = False
    tpu_topology: str | None = None
    reservation: dict[str, Any] | None = None
    gpu_partition_size: str | None = None
    nfs_mounts: tuple[dict[str, str], ...] = ()
    lustre_mounts: tuple[dict[str, str], ...] = ()
    tpu_tf_version: str | None = None


@dataclass
class Job:
    file: str
    name: str
    platform: str
    kind: str = "TrainingJob"
    labels: dict[str, str] = field(default_factory=dict)
    description: str | None = None
    run: str | None = None  # metadata.run, as text: part of the generation, never in a Vertex body
    project: str | None = None
    region: str | None = None
    staging_bucket: str | None = None  # bucket name (no gs://) for python.source archives
    container: Container | None = None
    python: PythonPackage | None = None
    env: tuple[EnvVar, ...] = ()
    pools: dict[str, Pool] = field(default_factory=dict)
    # The chief of a spec without pools (the spec-level task and env), built once by
    # normalize; a target's resolve runs it as pool 0 / the master, or a scale tier runs it.
    spec_chief: Pool | None = None
    # The simple fields (compiler/fields.py JOB_ROWS), decoded: row attr → value; unset absent.
    settings: dict[str, Any] = field(default_factory=dict)
    vertex: dict[str, Any] = field(default_factory=dict)
    ai_platform: dict[str, Any] = field(default_factory=dict)
    # The search of a tuning job: spec.tuning, or (ai-platform) spec.aiPlatform.hyperparameters.
    tuning: Tuning | None = None
    notes: list[str] = field(default_factory=list)  # defaults applied and why, for `explain`
    # The repo config's catalog extensions: values the targets accept without a catalog row.
    extension: Extension = NO_EXTENSION

    def defaulted(self, path: str) -> bool:
        """Whether resolve chose the value at `path` (every default is noted)."""
        return any(n.startswith(f"{path}: ") for n in self.notes)

    def get(self, row: Row) -> Any:
        """The value of a simple field (a JOB row of compiler/fields.py), None if unset."""
        return self.settings.get(row.attr)

    def note(self, path: str, text: str) -> None:
        self.notes.append(f"{path}: {text}")

    @property
    def secrets(self) -> list[str]:
        # What the pools run with: pool env already merges (and may override) the spec's.
        envs = [p.env for p in self.pools.values()] if self.pools else [self.env]
        return sorted({e.secret for env in envs for e in env if e.secret})
