"""Spec field ↔ request field: one row per simple field, read by every stage.

A row says where a spec key goes on each API (or the refusal when the API has no such field),
how its value is decoded from the spec and encoded into the request, and which Vertex SDK
keyword and gcloud flag carry it. normalize decodes the rows into the model, each target's
check refuses the rows it cannot express, each target's lower writes the rows it can, the
importers read them back, `explain` shows them, and tests hold the README's spec reference
and the schema equal to them. Fields that need real logic (pools and their tasks, ml `args`
vs `containerArgs`, scale tiers, tuning) are code in the targets, not rows.

Adding a simple field (say a Vertex-only scheduling switch) is one row here, one schema
entry and a golden case: every stage picks the row up.
Sources: aiplatform v1 discovery document (CustomJob, CustomJobSpec, Scheduling, MachineSpec,
WorkerPoolSpec), ml v1 discovery document (TrainingInput, ReplicaConfig, Scheduling).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import durations

VERTEX, ML = "vertex", "ai-platform"
JOB, POOL = "job", "pool"  # a row of spec.* (the model's Job.settings) or of a pool (Pool attrs)


def unset(value: Any) -> bool:
    """Absent, empty lists and empty mappings are never sent (nor imported, nor refused)."""
    return value is None or (isinstance(value, (list, tuple, dict)) and not value)


@dataclass(frozen=True)
class Codec:
    """How a value is read from the spec and written to a request (and read back)."""

    name: str  # the README's word for it
    schema: dict  # what the JSON Schema says of the key (type or $ref)
    decode: Callable[[Any], Any]  # spec value → model value; None: not this type
    encode: Callable[[Any], Any] = lambda v: v  # model value → request value
    load: Callable[[Any], Any] = lambda v: v  # request value → spec value (import)
    # "must be greater than 0" (timeout) or a duration bound, checked when decoding.
    positive: bool = False


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _bool(v: Any) -> bool | None:
    return v if isinstance(v, bool) else None


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _strings(v: Any) -> tuple[str, ...] | None:
    return tuple(x for x in v if isinstance(x, str)) if isinstance(v, list) else None


def _mappings(v: Any) -> tuple[dict, ...] | None:
    return tuple(m for m in v if isinstance(m, dict)) if isinstance(v, list) else None


def _mapping(v: Any) -> dict | None:
    return v if isinstance(v, dict) and v else None


def _psc(raw: dict) -> dict:
    return {k: v for k, v in (("networkAttachment", raw.get("networkAttachment")),
                              ("dnsPeeringConfigs", [dict(d) for d in
                                                     raw.get("dnsPeeringConfigs") or ()]))
            if not unset(v)}


# API enum: NO_RESERVATION, ANY_RESERVATION, SPECIFIC_RESERVATION ([DD-AIP] ReservationAffinity).
RESERVATION_KEY = "compute.googleapis.com/reservation-name"
AFFINITY = {"ANY": "ANY_RESERVATION", "SPECIFIC": "SPECIFIC_RESERVATION", "NONE": "NO_RESERVATION"}


def _reservation(raw: dict) -> dict:
    affinity = raw.get("affinity")
    out: dict = {"reservationAffinityType": AFFINITY.get(affinity, f"{affinity}_RESERVATION")}
    if affinity == "SPECIFIC":
        out["key"] = raw.get("key") or RESERVATION_KEY
        out["values"] = list(raw.get("values") or ())
    return out


def _load_reservation(aff: Any) -> Any:
    if not isinstance(aff, dict):
        return aff
    kind = aff.get("reservationAffinityType")
    back = {v: k for k, v in AFFINITY.items()}
    return {"affinity": back.get(kind, kind), **{k: aff[k] for k in ("key", "values") if k in aff}}


STRING = Codec("string", {"type": "string"}, _str)
BOOL = Codec("bool", {"type": "boolean"}, _bool)
INTEGER = Codec("integer", {"type": "integer"}, _int)
DURATION = Codec("duration", {"$ref": "#/$defs/duration"}, durations.parse, durations.to_google)
TIMEOUT = Codec("duration", {"$ref": "#/$defs/duration"}, durations.parse, durations.to_google,
                positive=True)
STRINGS = Codec("list", {"type": "array"}, _strings, list)
MOUNTS = Codec("list", {"type": "array"}, _mappings, lambda v: [dict(m) for m in v])
PSC = Codec("mapping", {"type": "object"}, _mapping, _psc)
RESERVATION = Codec("mapping", {"$ref": "#/$defs/reservation"}, _mapping, _reservation,
                    _load_reservation)


@dataclass(frozen=True)
class Refused:
    """What a target says of a field it cannot express: `{value}` is the value written."""

    message: str
    allowed: tuple = ()  # values the target accepts by sending nothing (strategy STANDARD)


def only(platform: str) -> Refused:
    """The usual refusal on the other API: "cannot be expressed on X (P only)"."""
    other = ML if platform == VERTEX else VERTEX
    return Refused(f"cannot be expressed on {other} ({platform} only)")


@dataclass(frozen=True)
class Row:
    spec: str  # the key under $.spec (JOB rows) or under a pool (POOL rows)
    attr: str  # the model attribute: Pool.<attr> (POOL), or a short name (JOB: Job.settings key)
    codec: Codec
    vertex: str | Refused  # body path (JOB: from the CustomJob; POOL: from the WorkerPoolSpec)
    ml: str | Refused  # body path (JOB: from the Job; POOL: from the role's ReplicaConfig)
    scope: str = JOB
    sdk: str | None = None  # Vertex SDK run()/submit() keyword
    gcloud: dict[str, str] = field(default_factory=dict)  # platform → gcloud flag
    values: tuple[str, ...] = ()  # the schema's enum, when the key has one
    explain: str | None = None  # explain's label, when it shows the value

    def target(self, platform: str) -> str | Refused:
        return self.vertex if platform == VERTEX else self.ml

    @property
    def path(self) -> str:
        """The JSON path of a JOB row (POOL rows: relative to the pool's path)."""
        return f"$.spec.{self.spec}" if self.scope == JOB else self.spec


def both(flag: str) -> dict[str, str]:
    return {VERTEX: flag, ML: flag}


_SCHED = "jobSpec.scheduling."
_TIN = "trainingInput."
# In Vertex body order: lowering writes the rows in this order (ml sorts its own, see
# targets/ml.py ORDER), so bodies keep one key order.
ROWS: tuple[Row, ...] = (
    Row("vertex.displayName", "display_name", STRING, "displayName", only(VERTEX)),
    Row("scheduling.timeout", "timeout", TIMEOUT, _SCHED + "timeout",
        _TIN + "scheduling.maxRunningTime", sdk="timeout", explain="timeout"),
    Row("scheduling.restartOnWorkerRestart", "restart_on_worker_restart", BOOL,
        _SCHED + "restartJobOnWorkerRestart", only(VERTEX), sdk="restart_job_on_worker_restart"),
    Row("scheduling.strategy", "strategy", STRING, _SCHED + "strategy",
        Refused("strategy {value} cannot be expressed on ai-platform (vertex only)",
                allowed=("STANDARD",)),
        sdk="scheduling_strategy", values=("STANDARD", "SPOT", "FLEX_START"),
        explain="strategy"),
    Row("scheduling.disableRetries", "disable_retries", BOOL, _SCHED + "disableRetries",
        only(VERTEX), sdk="disable_retries"),
    Row("scheduling.maxWait", "max_wait", DURATION, _SCHED + "maxWaitDuration",
        _TIN + "scheduling.maxWaitTime", sdk="max_wait_duration", explain="max wait"),
    Row("scheduling.priority", "priority", INTEGER,
        Refused("Vertex has no job priority (ai-platform only)"), _TIN + "scheduling.priority",
        explain="priority"),
    Row("serviceAccount", "service_account", STRING, "jobSpec.serviceAccount",
        _TIN + "serviceAccount", sdk="service_account", gcloud=both("--service-account"),
        explain="service account"),
    Row("network", "network", STRING, "jobSpec.network", _TIN + "network", sdk="network",
        gcloud=both("--network"), explain="network"),
    Row("vertex.reservedIpRanges", "reserved_ip_ranges", STRINGS, "jobSpec.reservedIpRanges",
        only(VERTEX), sdk="reserved_ip_ranges"),
    Row("vertex.pscInterfaceConfig", "psc_interface_config", PSC, "jobSpec.pscInterfaceConfig",
        only(VERTEX), sdk="psc_interface_config"),
    Row("outputDir", "output_dir", STRING, "jobSpec.baseOutputDirectory.outputUriPrefix",
        _TIN + "jobDir", gcloud={ML: "--job-dir"}, explain="output dir"),
    Row("enableWebAccess", "enable_web_access", BOOL, "jobSpec.enableWebAccess",
        _TIN + "enableWebAccess", sdk="enable_web_access", gcloud=both("--enable-web-access")),
    Row("vertex.enableDashboardAccess", "enable_dashboard_access", BOOL,
        "jobSpec.enableDashboardAccess", only(VERTEX), sdk="enable_dashboard_access",
        gcloud={VERTEX: "--enable-dashboard-access"}),
    Row("vertex.tensorboard", "tensorboard", STRING, "jobSpec.tensorboard", only(VERTEX),
        sdk="tensorboard"),
    Row("vertex.experiment", "experiment", STRING, "jobSpec.experiment", only(VERTEX)),
    Row("vertex.experimentRun", "experiment_run", STRING, "jobSpec.experimentRun", only(VERTEX)),
    Row("vertex.persistentResourceId", "persistent_resource_id", STRING,
        "jobSpec.persistentResourceId", only(VERTEX), sdk="persistent_resource_id",
        gcloud={VERTEX: "--persistent-resource-id"}),
    Row("vertex.protectedArtifactLocationId", "protected_artifact_location_id", STRING,
        "jobSpec.protectedArtifactLocationId", only(VERTEX)),
    Row("vertex.models", "models", STRINGS, "jobSpec.models", only(VERTEX)),
    Row("aiPlatform.useChiefInTfConfig", "use_chief_in_tf_config", BOOL,
        Refused("cannot be expressed on vertex: Vertex has no such field (pool 0's TF_CONFIG "
                "role is set by the service)"), _TIN + "useChiefInTfConfig",
        gcloud={ML: "--use-chief-in-tf-config"}),
    Row("encryptionKey", "encryption_key", STRING, "encryptionSpec.kmsKeyName",
        _TIN + "encryptionConfig.kmsKeyName", sdk="encryption_spec_key_name",
        gcloud=both("--kms-key"), explain="CMEK key"),
    # Pool rows: body paths from the WorkerPoolSpec (vertex) or the role's ReplicaConfig (ml).
    Row("tpuTopology", "tpu_topology", STRING, "machineSpec.tpuTopology", only(VERTEX), POOL),
    Row("reservation", "reservation", RESERVATION, "machineSpec.reservationAffinity",
        only(VERTEX), POOL),
    Row("gpuPartitionSize", "gpu_partition_size", STRING, "machineSpec.gpuPartitionSize",
        only(VERTEX), POOL),
    Row("nfsMounts", "nfs_mounts", MOUNTS, "nfsMounts", only(VERTEX), POOL),
    Row("lustreMounts", "lustre_mounts", MOUNTS, "lustreMounts", only(VERTEX), POOL),
    Row("tpuTfVersion", "tpu_tf_version", STRING, only(ML), "tpuTfVersion", POOL,
        gcloud={ML: "--tpu-tf-version"}),
)
JOB_ROWS = tuple(r for r in ROWS if r.scope == JOB)
POOL_ROWS = tuple(r for r in ROWS if r.scope == POOL)
BY_SPEC = {r.spec: r for r in JOB_ROWS}
# The rows code reasons about (the rest are only decoded, refused, written and read back).
TIMEOUT_ROW, MAX_WAIT, STRATEGY, PRIORITY = (BY_SPEC[k] for k in (
    "scheduling.timeout", "scheduling.maxWait", "scheduling.strategy", "scheduling.priority"))
SERVICE_ACCOUNT, NETWORK, OUTPUT_DIR, ENCRYPTION_KEY = (BY_SPEC[k] for k in (
    "serviceAccount", "network", "outputDir", "encryptionKey"))
DURATION_PATHS = tuple(r.path for r in JOB_ROWS if r.codec.name == "duration")


# -- readers shared by the stages ----------------------------------------------------------

def refusals(platform: str, values: Callable[[Row], Any], rows: tuple[Row, ...] = JOB_ROWS) \
        -> Iterator[tuple[Row, str]]:
    """(row, message) for every set field `platform` cannot express."""
    for row in rows:
        how, value = row.target(platform), values(row)
        if isinstance(how, Refused) and not unset(value) and value not in how.allowed:
            yield row, how.message.format(value=value)


def put(body: dict, path: str, value: Any) -> None:
    """Set `value` at dotted `path`, creating mappings on the way (in insertion order)."""
    *parents, last = path.split(".")
    node = body
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value


def lower(platform: str, values: Callable[[Row], Any], body: dict,
          rows: tuple[Row, ...] = JOB_ROWS) -> list[tuple[Row, str]]:
    """Write every set row `platform` expresses into `body`; (row, body path) written."""
    written = []
    for row in rows:
        how, value = row.target(platform), values(row)
        if isinstance(how, str) and not unset(value):
            encoded = row.codec.encode(value)
            if not unset(encoded):
                put(body, how, encoded)
                written.append((row, how))
    return written


def read(request: Any, platform: str, rows: tuple[Row, ...] = JOB_ROWS) \
        -> Iterator[tuple[Row, Any, str]]:
    """(row, spec value, body path) for every row set in `request` (the importers)."""
    for row in rows:
        how = row.target(platform)
        if not isinstance(how, str):
            continue
        node = request
        for key in how.split("."):
            node = node.get(key) if isinstance(node, dict) else None
        if not unset(node):
            yield row, row.codec.load(node), how


def known(platform: str, parent: str, rows: tuple[Row, ...] = JOB_ROWS) -> set[str]:
    """The keys under body path `parent` ("" for the top) that rows of `platform` write."""
    prefix = f"{parent}." if parent else ""
    return {how[len(prefix):].split(".")[0] for row in rows
            if isinstance(how := row.target(platform), str) and how.startswith(prefix)}


def flags(platform: str) -> dict[str, Row]:
    """gcloud flag → row, for `platform`'s gcloud command."""
    return {row.gcloud[platform]: row for row in ROWS if platform in row.gcloud}


def sdk_kwargs() -> dict[str, str]:
    """Vertex SDK keyword → CustomJob body path, for rows written under the job spec."""
    return {row.sdk: row.vertex for row in JOB_ROWS if row.sdk and isinstance(row.vertex, str)}


def origin(row: Row, at: str) -> tuple[str, str]:
    """(body path, spec path) of a written JOB row for the source map: the key right under
    the job spec (jobSpec.scheduling, trainingInput.jobDir, encryptionSpec) and the spec key
    it comes from (a group of rows, such as scheduling, maps to its spec mapping)."""
    parts = at.split(".")
    depth = 2 if parts[0] in ("jobSpec", "trainingInput") else 1
    key = ".".join(parts[:depth])
    grouped = key != at and "." in row.spec
    return key, "$.spec." + (row.spec.rsplit(".", 1)[0] if grouped else row.spec)


# The rule code (compiler/rules.py) of a refusal on each platform: the field is the other's.
REFUSAL_CODE = {VERTEX: "ml-only", ML: "vertex-only"}
