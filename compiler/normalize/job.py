"""Spec data → neutral model, with the platform-independent semantic rules.

Runs on schema-checked data but never trusts it: every read is type-checked (reads.py, the
shared readers in reader.py), so a spec with schema errors still gets its other problems
reported (and never a traceback). Here: the top level (metadata, placement, tuning, the simple
fields of compiler/fields.py, cross-field rules); pools in pools.py, tasks and env in tasks.py,
labels in labels.py.
"""

from __future__ import annotations

from typing import Any

from .. import fields
from ..diagnostics import Collector
from ..model import KINDS, PLATFORMS, Job, Pool, PythonPackage
from ..options import Options
from ..packaging import bucket_name
from ..roles import CHIEF, REDUCTION_SERVER, ROLES
from ..schema.validate import project_id
from ..source.document import Document
from ..source.reads import as_dict, as_str
from ..tuning import rules as tuning_rules
from ..tuning.model import KIND as TUNING_KIND
from . import tasks
from .labels import labels
from .pools import pool
from .reader import Reader

DEFAULT_PROJECT_KEYS = ("project", "region")


def _run(value: Any) -> str | None:
    """metadata.run as text (2 and "2" are the same run); other types the schema refused."""
    if isinstance(value, bool):
        return None
    return str(value) if isinstance(value, (int, str)) else None


class Normalizer(Reader):
    """One spec's normalization: the job, built once from the document, with its pools,
    tasks, tuning and cross-field rules."""

    # -- top level -------------------------------------------------------------------------
    def job(self) -> Job:
        data = as_dict(self.doc.data)
        meta, spec = as_dict(data.get("metadata")), as_dict(data.get("spec"))
        platform = self.options.platform or as_str(spec.get("platform")) or "vertex"
        if platform not in PLATFORMS:
            platform = "vertex"
        kind = data.get("kind") if data.get("kind") in KINDS else "TrainingJob"
        job = Job(file=self.doc.file, name=as_str(meta.get("name")) or "", platform=platform,
                  kind=kind, extension=self.options.extension)
        job.description = as_str(meta.get("description"))
        job.run = _run(meta.get("run"))
        job.labels = labels(self.c, as_dict(meta.get("labels")), "$.metadata.labels")
        for key in DEFAULT_PROJECT_KEYS:
            self.place(job, spec, key)
        self.staging_bucket(job, spec)
        job.container, job.python = tasks.spec_task(self, spec)
        job.env = tasks.env(self, as_dict(spec.get("env")), "$.spec.env", ())
        job.settings = self.settings(spec)
        job.vertex = as_dict(spec.get("vertex"))
        job.ai_platform = as_dict(spec.get("aiPlatform"))
        self.tuning(job, spec)
        for role in ROLES:
            raw = as_dict(spec.get("pools")).get(role.name)
            if isinstance(raw, dict):
                job.pools[role.name] = pool(self, job, role.name, raw, f"$.spec.pools.{role.name}")
        pool_two = [r.name for r in ROLES if r.pool == REDUCTION_SERVER.pool and r.name in job.pools]
        if len(pool_two) > 1:
            self.c.error(f"$.spec.pools.{REDUCTION_SERVER.name}", f"{' and '.join(pool_two)} are "
                         f"both Vertex pool {REDUCTION_SERVER.pool}: a job has one of them",
                         "keep one: the reduction server (all-reduce over NCCL) or the "
                         "parameter servers", key=True, code="pool-two-roles")
        if not job.pools:  # the chief runs the spec-level task (on a pool or a scale tier)
            job.spec_chief = Pool(role=CHIEF.name, path="$.spec", task=job.container or job.python,
                                  env=job.env)
            tasks.task_rules(self, job.spec_chief)
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
            if "tuning" not in spec and isinstance(as_dict(self.doc.data).get("spec"), dict):
                self.c.error("$.spec", "missing required key 'tuning'",
                             "a HyperparameterTuningJob searches spec.tuning: metrics, "
                             "parameters, maxTrials, parallelTrials", code="tuning-kind")
            return
        job.tuning = tuning_rules.from_spec(spec["tuning"], self.c)

    def place(self, job: Job, spec: dict, key: str) -> None:
        written, given = as_str(spec.get(key)), getattr(self.options, key)
        if key == "project" and given and not project_id(given):
            self.c.error("$.spec.project", f"--project / gcp:project {given!r} is not a project "
                         "id", "6 to 30 lower-case letters, digits or '-', a letter first, as "
                         "spec.project", code="project-id")
            given = None
        if written and given and written != given:
            self.c.warning(f"$.spec.{key}", f"the spec sets {key} {written!r}; {given!r} from "
                           "the command line or stack config applies only to specs without one",
                           code="option-ignored")
        setattr(job, key, written or given)
        if not written and given:
            job.note(f"$.spec.{key}", f"{given} (from --{key} / stack config)")

    def staging_bucket(self, job: Job, spec: dict) -> None:
        written, given = as_str(spec.get("stagingBucket")), self.options.staging_bucket
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

    # -- simple fields (compiler/fields.py) and cross-field rules -----------------------------
    def settings(self, spec: dict) -> dict[str, Any]:
        """The JOB rows written in `spec`, decoded: row attr → value."""
        out: dict[str, Any] = {}
        for row in fields.JOB_ROWS:
            *parents, key = row.spec.split(".")
            raw = spec
            for parent in parents:
                raw = as_dict(raw.get(parent))
            value = self.decode(row, raw, key, row.path)
            if value is not None:
                out[row.attr] = value
        return out

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


def normalize(doc: Document, c: Collector, options: Options = Options()) -> Job:
    """The neutral model of `doc`; problems go to `c`."""
    return Normalizer(doc, c, options).job()
