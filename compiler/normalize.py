"""Spec data → neutral model, with the platform-independent semantic rules.

Runs on schema-checked data but never trusts it: every read is type-checked, so a spec with
schema errors still gets its other problems reported (and never a traceback).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import durations, fields, tuning_rules
from .catalog import accelerators, machines
from .config.extension import NONE as NO_EXTENSION
from .config.extension import Extension
from .diagnostics import Collector
from .jsonpath import child
from .model import (
    KINDS,
    MANAGED_LABELS,
    MAX_LABELS,
    PLATFORMS,
    Container,
    EnvVar,
    Job,
    Pool,
    PythonPackage,
    secret_config_key,
)
from .packaging import bucket_name
from .roles import CHIEF, ROLES
from .source import Document
from .tuning import KIND as TUNING_KIND

# Total of command + args per replica. No limit is documented (facts §D.1, ❌): a warning.
MAX_ARGS_CHARS = 100_000
MAX_PACKAGES = 100  # [DD-AIP] pythonPackageSpec.packageUris, [DD-ML] packageUris
MAX_ENV = 100  # [DD-AIP] ContainerSpec.env
DEFAULT_PROJECT_KEYS = ("project", "region")


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


def _d(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _s(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _run(value: Any) -> str | None:
    """metadata.run as text (2 and "2" are the same run); other types the schema refused."""
    if isinstance(value, bool):
        return None
    return str(value) if isinstance(value, (int, str)) else None


def _i(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class Normalizer:
    def __init__(self, doc: Document, c: Collector, options: Options):
        self.doc, self.c, self.options = doc, c, options
        self.as_text: set[str] = set()  # paths whose scalar is sent as the text written

    def text(self, value: Any, path: str) -> str:
        """A scalar as typed: non-strings keep their source text (1e-3, yes, 0600)."""
        if isinstance(value, str):
            return value
        self.as_text.add(path)
        return self.doc.raw.get(path, str(value))

    def strings(self, value: Any, path: str) -> tuple[str, ...]:
        """A list of args as typed: non-string scalars keep their source text (1e-3, yes)."""
        if not isinstance(value, list):
            return ()
        return tuple(self.text(item, child(path, i)) for i, item in enumerate(value)
                     if isinstance(item, (str, int, float, bool)))

    def integer(self, raw: dict, key: str, path: str) -> int | None:
        """An integer field; None if absent, not an integer, or misread (see numbers_as_written),
        so no rule reasons about a value the spec did not mean."""
        return None if path in self.doc.suspect else _i(raw.get(key))

    def numbers_as_written(self) -> None:
        """Refuse numbers YAML read otherwise than they look (0600 is octal 384, 1:30 is 90)
        or that JSON cannot carry (.inf, .nan, beyond int64), wherever the number itself,
        not its text, would be used."""
        for path, reading in self.doc.suspect.items():
            if path not in self.as_text:
                message, hint = reading.problem(duration=path in fields.DURATION_PATHS)
                self.c.error(path, message, hint, code="misread-number")

    # -- top level -------------------------------------------------------------------------
    def job(self) -> Job:
        data = _d(self.doc.data)
        meta, spec = _d(data.get("metadata")), _d(data.get("spec"))
        platform = self.options.platform or _s(spec.get("platform")) or "vertex"
        if platform not in PLATFORMS:
            platform = "vertex"
        kind = data.get("kind") if data.get("kind") in KINDS else "TrainingJob"
        job = Job(file=self.doc.file, name=_s(meta.get("name")) or "", platform=platform,
                  kind=kind, extension=self.options.extension)
        job.description = _s(meta.get("description"))
        job.run = _run(meta.get("run"))
        job.labels = self.labels(_d(meta.get("labels")), "$.metadata.labels", platform)
        for key in DEFAULT_PROJECT_KEYS:
            self.place(job, spec, key)
        self.staging_bucket(job, spec)
        job.container, job.python = self.spec_task(spec)
        job.env = self.env(_d(spec.get("env")), "$.spec.env", ())
        job.settings = self.settings(spec)
        job.vertex = _d(spec.get("vertex"))
        job.ai_platform = _d(spec.get("aiPlatform"))
        self.tuning(job, spec)
        for role in ROLES:
            raw = _d(spec.get("pools")).get(role.name)
            if isinstance(raw, dict):
                job.pools[role.name] = self.pool(job, role.name, raw, f"$.spec.pools.{role.name}")
        if not job.pools:  # the chief runs the spec-level task (on a pool or a scale tier)
            job.spec_chief = Pool(role=CHIEF.name, path="$.spec", task=job.container or job.python,
                                  env=job.env)
            self.task_rules(job.spec_chief)
        if job.pools and CHIEF.name not in job.pools:
            self.c.error("$.spec.pools", f"missing pool {CHIEF.name!r}: the primary replica "
                         f"(Vertex pool {CHIEF.pool} / AI Platform {CHIEF.ml_name}) is required "
                         "when pools are given", code="missing-chief")
        self.cross_checks(job)
        if "stagingBucket" in spec and not any(
                isinstance(t, PythonPackage) and t.source is not None
                for t in [job.python, *(p.task for p in job.pools.values())]):
            self.c.warning("$.spec.stagingBucket", "no python.source to package: the staging "
                           "bucket is not used", code="unused-staging-bucket")
        self.numbers_as_written()
        return job

    def tuning(self, job: Job, spec: dict) -> None:
        """The search of a tuning job: `spec.tuning` only with kind HyperparameterTuningJob;
        the legacy `spec.aiPlatform.hyperparameters` only on a TrainingJob."""
        legacy = job.ai_platform.get("hyperparameters")
        if job.kind != TUNING_KIND:
            if "tuning" in spec:
                self.c.error("$.spec.tuning", "spec.tuning is the search of a hyperparameter "
                             "tuning job", "write kind: HyperparameterTuningJob", key=True,
                             code="tuning-kind")
            if isinstance(legacy, dict):
                job.tuning = tuning_rules.from_ml(legacy, self.c)
            return
        if legacy is not None:
            self.c.error("$.spec.aiPlatform.hyperparameters", "a HyperparameterTuningJob takes "
                         "its search in spec.tuning", "move it to spec.tuning", key=True, code="tuning-kind")
        if not isinstance(spec.get("tuning"), dict):
            if "tuning" not in spec and isinstance(_d(self.doc.data).get("spec"), dict):
                self.c.error("$.spec", "missing required key 'tuning'",
                             "a HyperparameterTuningJob searches spec.tuning: metrics, "
                             "parameters, maxTrials, parallelTrials", code="tuning-kind")
            return
        job.tuning = tuning_rules.from_spec(spec["tuning"], self.c)

    def place(self, job: Job, spec: dict, key: str) -> None:
        written, given = _s(spec.get(key)), getattr(self.options, key)
        if written and given and written != given:
            self.c.warning(f"$.spec.{key}", f"the spec sets {key} {written!r}; {given!r} from "
                           "the command line or stack config applies only to specs without one",
                           code="option-ignored")
        setattr(job, key, written or given)
        if not written and given:
            job.note(f"$.spec.{key}", f"{given} (from --{key} / stack config)")

    def staging_bucket(self, job: Job, spec: dict) -> None:
        written, given = _s(spec.get("stagingBucket")), self.options.staging_bucket
        if given and not bucket_name(given):
            self.c.error("$.spec.stagingBucket", f"--staging-bucket / trainspec:stagingBucket "
                         f"{given!r} is not a bucket name", "gs://BUCKET or BUCKET",
                         code="staging-bucket-name")
        if written and given and bucket_name(written) != bucket_name(given):
            self.c.warning("$.spec.stagingBucket", f"the spec sets stagingBucket {written!r}; "
                           f"{given!r} from the command line or stack config applies only to "
                           "specs without one", code="option-ignored")
        job.staging_bucket = bucket_name(written or given)
        if not written and job.staging_bucket:
            job.note("$.spec.stagingBucket", f"gs://{job.staging_bucket} (from --staging-bucket "
                     "/ stack config)")

    def labels(self, labels: dict, path: str, platform: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, value in labels.items():
            p = child(path, key)
            if not _label_text(key, True):
                self.c.error(p, f"invalid label key {key!r}",
                             "keys start with a lower-case letter and hold only lower-case "
                             "letters, digits, '_' and '-', 1-63 characters", key=True, code="label-key")
            elif key.startswith("trainspec-"):
                self.c.error(p, f"label key {key!r} uses the prefix 'trainspec-', reserved for "
                             "labels trainspec manages", key=True, code="label-prefix")
            if isinstance(value, str):
                if not _label_text(value, False):
                    self.c.error(p, f"invalid label value {value!r}", "values hold only lower-case "
                                 "letters, digits, '_' and '-', at most 63 characters", code="label-value")
                out[key] = value
        limit = MAX_LABELS - len(MANAGED_LABELS)
        if len(labels) > limit:
            self.c.error(path, f"{len(labels)} labels: at most {limit} allowed (the API allows "
                         f"{MAX_LABELS}; trainspec adds {', '.join(MANAGED_LABELS)} when it "
                         "submits the job)", code="label-count")
        return out

    # -- tasks and env ---------------------------------------------------------------------
    def spec_task(self, spec: dict) -> tuple[Container | None, PythonPackage | None]:
        container = self.container(spec.get("container"), "$.spec.container", None)
        python = self.python(spec.get("python"), "$.spec.python", None)
        if container and python:
            self.c.error("$.spec", "give either container or python, not both",
                         "a pool may switch kind with its own container/python", code="task-kind")
        return container, python

    def container(self, raw: Any, path: str, base: Container | None) -> Container | None:
        if not isinstance(raw, dict):
            return None
        base = base or Container()
        return Container(
            image=_s(raw.get("image")) if "image" in raw else base.image,
            command=self.strings(raw["command"], path + ".command") if "command" in raw else base.command,
            args=self.strings(raw["args"], path + ".args") if "args" in raw else base.args,
        )

    def python(self, raw: Any, path: str, base: PythonPackage | None) -> PythonPackage | None:
        if not isinstance(raw, dict):
            return None
        base = base or PythonPackage()
        pick = lambda key, default: _s(raw.get(key)) if key in raw else default  # noqa: E731
        packages = base.packages
        if "packages" in raw:
            packages = tuple(p for p in raw["packages"] if isinstance(p, str)) \
                if isinstance(raw["packages"], list) else ()
            if len(packages) > MAX_PACKAGES:
                self.c.error(path + ".packages", f"{len(packages)} packages: at most {MAX_PACKAGES}",
                             code="package-count")
        return PythonPackage(
            packages=packages,
            module=pick("module", base.module),
            args=self.strings(raw["args"], path + ".args") if "args" in raw else base.args,
            executor_image=pick("executorImage", base.executor_image),
            runtime_version=pick("runtimeVersion", base.runtime_version),
            python_version=pick("pythonVersion", base.python_version),
            source=pick("source", base.source),
        )

    def env(self, raw: dict, path: str, base: tuple[EnvVar, ...]) -> tuple[EnvVar, ...]:
        merged = {e.name: e for e in base}
        for name, value in raw.items():
            p = child(path, name)
            if isinstance(value, dict):
                key = secret_config_key(_s(value.get("secret")) or "")
                if key:
                    merged[name] = EnvVar(name, secret=key)
            elif isinstance(value, (str, int, float, bool)):
                merged[name] = EnvVar(name, value=self.text(value, p))
        return tuple(merged.values())

    # -- pools -----------------------------------------------------------------------------
    def pool(self, job: Job, role: str, raw: dict, path: str) -> Pool:
        c = self.c
        pool = Pool(role=role, path=path)
        replicas = self.integer(raw, "replicas", path + ".replicas")
        chief = role == CHIEF.name
        if chief and replicas is not None and replicas != 1:
            c.error(path + ".replicas", f"the chief pool runs exactly 1 replica, not {replicas}",
                    f"it is Vertex pool {CHIEF.pool} / the AI Platform {CHIEF.ml_name}; put more "
                    "replicas in 'worker'", code="chief-replicas")
        pool.replicas = replicas if replicas is not None and not chief else 1
        pool.machine_type = _s(raw.get("machineType"))
        self.accelerator(pool, _d(raw.get("accelerator")), path + ".accelerator")
        disk = _d(raw.get("disk"))
        pool.disk_type = _s(disk.get("type"))
        pool.disk_size_gb = self.integer(disk, "sizeGb", path + ".disk.sizeGb")
        pool.task, pool.overrides = self.pool_task(job, raw, path)
        pool.env = self.env(_d(raw.get("env")), path + ".env", job.env)
        pool.env_overridden = "env" in raw
        for row in fields.POOL_ROWS:
            value = self.decode(row, raw, row.spec, f"{path}.{row.spec}")
            if value is not None:
                setattr(pool, row.attr, value)
        self.reservation(pool.reservation, path + ".reservation")
        if pool.gpu_partition_size and pool.accelerator_count not in (None, 1):
            c.error(path + ".gpuPartitionSize", "a GPU partition needs accelerator count 1",
                    code="gpu-partition-count")
        self.task_rules(pool)
        return pool

    def accelerator(self, pool: Pool, raw: dict, path: str) -> None:
        name = _s(raw.get("type"))
        count = self.integer(raw, "count", path + ".count")
        if name is None:
            return
        enum = accelerators.canonical(name) or (
            name if self.options.extension.has_accelerator(name) else None)
        if enum is None:
            near = accelerators.suggestions(name)
            self.c.error(path + ".type", f"unknown accelerator {name!r}",
                         f"did you mean {near[0]!r}?" if near else
                         "use the API enum (NVIDIA_TESLA_T4) or a short name (T4, A100, L4, TPU_V3)",
                         code="unknown-accelerator")
            return
        pool.accelerator_type = enum
        if count is None:
            # A fixed-count machine (a2-highgpu-8g) implies its count; otherwise one device.
            implied = machines.implied_accelerator(pool.machine_type) if pool.machine_type else None
            count = implied[1] if implied and implied[0] == enum else 1
        pool.accelerator_count = count

    def reservation(self, raw: dict | None, path: str) -> None:
        if not raw:
            return
        affinity = _s(raw.get("affinity"))
        values = raw.get("values") if isinstance(raw.get("values"), list) else None
        if affinity == "SPECIFIC" and not values:
            self.c.error(path, "a SPECIFIC reservation needs values (the reservation name)",
                         code="reservation-values")
        if affinity in ("ANY", "NONE") and (values or "key" in raw):
            self.c.error(path, f"key and values apply only to SPECIFIC, not {affinity}",
                         code="reservation-keys")

    def pool_task(self, job: Job, raw: dict, path: str):
        pc, pp = raw.get("container"), raw.get("python")
        if isinstance(pc, dict) and isinstance(pp, dict):
            self.c.error(path, "a pool takes container or python, not both", code="task-kind")
        if isinstance(pc, dict):
            return self.container(pc, path + ".container", job.container), frozenset(pc)
        if isinstance(pp, dict):
            return self.python(pp, path + ".python", job.python), frozenset(pp)
        return job.container or job.python, frozenset()

    def task_rules(self, pool: Pool) -> None:
        c, path, task = self.c, pool.path, pool.task
        if task is None:
            c.error(path, "nothing to run: no container or python package for this pool",
                    "set spec.container or spec.python, or one in the pool", code="no-task")
            return
        kind = "container" if isinstance(task, Container) else "python"
        base = f"{path}.{kind}" if pool.overrides else f"$.spec.{kind}"
        if isinstance(task, Container):
            if not task.image:
                c.error(base, "missing required key 'image'", code="missing-image")
            size = sum(map(len, task.command + task.args))
        else:
            if not task.packages and task.source is None:
                c.error(base, "missing required key 'source' or 'packages'",
                        "source: a folder with the trainer's pyproject.toml or setup.py; "
                        "packages: gs:// archives", code="missing-package")
            if task.source is not None and len(task.packages) >= MAX_PACKAGES:
                c.error(base + ".packages", f"{len(task.packages)} packages and a source: at "
                        f"most {MAX_PACKAGES} in all", code="package-count")
            if not task.module:
                c.error(base, "missing required key 'module'", code="missing-module")
            size = sum(map(len, task.args))
        if size > MAX_ARGS_CHARS:
            c.warning(path, f"command and args total {size} characters: more than "
                      f"{MAX_ARGS_CHARS} may be refused (no documented limit)",
                      "pass long inputs in a file, e.g. on gs://", code="args-size")
        if len(pool.env) > MAX_ENV:
            c.error(path, f"{len(pool.env)} environment variables: at most {MAX_ENV}", code="env-count")

    # -- simple fields (compiler/fields.py) and cross-field rules -----------------------------
    def settings(self, spec: dict) -> dict[str, Any]:
        """The JOB rows written in `spec`, decoded: row attr → value."""
        out: dict[str, Any] = {}
        for row in fields.JOB_ROWS:
            *parents, key = row.spec.split(".")
            raw = spec
            for parent in parents:
                raw = _d(raw.get(parent))
            value = self.decode(row, raw, key, row.path)
            if value is not None:
                out[row.attr] = value
        return out

    def decode(self, row: fields.Row, raw: dict, key: str, path: str) -> Any:
        """`raw[key]` as the row's model value; None if absent, misread or refused here."""
        if key not in raw or path in self.doc.suspect:
            return None
        value = row.codec.decode(raw[key])
        if row.codec.name != "duration":
            return value
        if value is None:
            self.c.error(path, f"invalid duration {raw[key]!r}",
                         "use 90s, 30m, 2h, 1d, 1h30m or plain seconds", code="duration-syntax")
        elif value == 0 and row.codec.positive:
            self.c.error(path, f"{key} must be greater than 0", code="duration-range")
        elif durations.problem(value):
            self.c.error(path, f"{raw[key]!r} is {durations.problem(value)}", code="duration-range")
        else:
            return value
        return None

    def cross_checks(self, job: Job) -> None:
        c = self.c
        parts = (job.get(fields.ENCRYPTION_KEY) or "").split("/")
        if job.region and len(parts) > 3:
            key_location = parts[3]
            if key_location != job.region:
                c.error("$.spec.encryptionKey", f"the key is in {key_location!r} but the job runs "
                        f"in {job.region!r}", "Cloud KMS keys must be in the job's region", code="kms-region")
        if job.vertex.get("reservedIpRanges") and not job.get(fields.NETWORK):
            # "under the VPC network" implies network; inferred, not stated (facts §A.3, ◐).
            c.warning("$.spec.vertex.reservedIpRanges", "reserved IP ranges are ranges of "
                      "spec.network, which is not set", "set spec.network", code="reserved-ip-network")


def _label_text(text: str, is_key: bool) -> bool:
    if len(text) > 63 or (is_key and not text):
        return False
    if is_key and not _lower_letter(text[0]):
        return False
    return all(_lower_letter(ch) or ch.isdigit() or ch in "_-" for ch in text)


def _lower_letter(ch: str) -> bool:
    # GCP allows international characters; upper-case letters are refused.
    return ch.islower() or (ch.isalpha() and not ch.isascii() and not ch.isupper())


def normalize(doc: Document, c: Collector, options: Options = Options()) -> Job:
    """The neutral model of `doc`; problems go to `c`."""
    return Normalizer(doc, c, options).job()

