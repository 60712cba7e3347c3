"""Pulumi dynamic resources for compiled training jobs: `VertexCustomJob`,
`VertexHyperparameterTuningJob` and `AiPlatformJob`.

With the program (pulumi_program.py), the only part of the compiler that imports `pulumi`. It
has no import-time side effects, so dill pickles the providers *by reference* (module + class
name) into Pulumi state and the provider process (`python -m pulumi.dynamic`, run in the
project directory) re-imports this package. The provider classes Pulumi state names are
declared here, as `compiler.pulumi_resources.<Class>`, and must keep these names: their logic
lives in provider.py (check, diff, outputs, ownership), vertex.py, ml.py, bodies.py (the
request as the engine carries it) and polling.py.
Providers pickle no attributes: every call builds its own `compiler.cloud.rest.Client`, which reads
TRAINSPEC_API_ENDPOINT / TRAINSPEC_ACCESS_TOKEN (else Application Default Credentials), and
`configure()` (run in the provider process, never pickled) takes `gcp:impersonateServiceAccount`.

Lifecycle rules (docs/pulumi.md):
  * every job carries two labels: ``trainspec-resource`` = `identity` (Pulumi organization +
    project + stack + resource name) and ``trainspec-spec-hash`` = `specHash` (identity + request).
    A create looks for its own job by both before it POSTs, and again after any failure whose
    outcome is unknown, so one resource never starts two jobs;
  * a job is cancelled only if its ``trainspec-resource`` label is this resource's: another
    stack's or project's job is never touched;
  * a replacement deletes (cancels) the old job before it creates the new one;
  * only the API's own NOT_FOUND means a job is gone.

Neither API can change a job's definition, so any change to the compiled request is a new job;
AI Platform labels are the one in-place change (jobs.patch with etag), and a Vertex job's new
labels alone are kept in state for its next run (no re-run). `compiler.plan.decide` decides,
as it does for the pull-request `diff` command, and refuses an AI Platform change that keeps
its jobId.

Resource inputs (camelCase, also echoed into the outputs):
  request        the compiled request body (dict); secret env values are placeholders
                 ``<secret:ns:key>``, never values
  secretEnv      {config key: value}, a Pulumi secret; spliced into the body just before POST
  platform, project, region, specFile, specHash, keepJobRecords
  run            the spec's `metadata.run` (None if unset): a change replaces the job with a new
                 run even when the request is unchanged; it is part of specHash
  sourceMap      {body path: {"at": "file:line:col", "path": "$.spec..."}} for mapping HTTP 400
                 field violations back to the spec, computed when the program ran
Outputs added: name (full resource name, also the id), owner (the identity label the job was
created with), state, error (a failed job's message), createTime, startTime, endTime,
consoleUrl, logsUrl; a tuning job also trialCount, succeededTrials and bestTrial (its id,
parameters and metrics: the succeeded trial best on the first metric), read again by every
refresh.

The request travels as a dict, not a JSON string, so a preview shows field-level changes and
policies can read fields. The engine turns every number into a float64; that is harmless for
diffing (old outputs and new inputs both arrive as floats) and `restore_ints` makes the body
canonical again before it is validated or POSTed (int64 fields are strings already).
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi import dynamic

from ..jobs.identity import identity, spec_hash
from ..targets import PLATFORMS
from . import ml, vertex
from .bodies import restore_ints, source_map
from .ml import CREATE_ATTEMPTS
from .provider import JobError, JobProvider

__all__ = ["VertexCustomJobProvider", "VertexHyperparameterTuningJobProvider",
           "AiPlatformJobProvider", "VertexCustomJob", "VertexHyperparameterTuningJob",
           "AiPlatformJob", "RESOURCES", "JobError", "CREATE_ATTEMPTS",
           "restore_ints", "source_map"]

DYNAMIC_TYPE_PREFIX = "pulumi-python:dynamic/trainspec:"  # a resource's type token, then its name


# The providers, pickled into state by these names (module compiler.pulumi_resources + class).

class VertexCustomJobProvider(vertex.CustomJobProvider):
    """A Vertex AI CustomJob (aiplatform v1 projects.locations.customJobs)."""


class VertexHyperparameterTuningJobProvider(vertex.TuningJobProvider):
    """A Vertex AI HyperparameterTuningJob (projects.locations.hyperparameterTuningJobs)."""


class AiPlatformJobProvider(ml.TrainingJobProvider):
    """A legacy AI Platform Training job (ml v1 projects.jobs); it can never be deleted."""


# The resources.

class _JobResource(dynamic.Resource):
    name: pulumi.Output[str]
    state: pulumi.Output[str]
    error: pulumi.Output[str]
    createTime: pulumi.Output[str]
    consoleUrl: pulumi.Output[str]
    logsUrl: pulumi.Output[str]
    request: pulumi.Output[dict]

    def __init__(self, provider: JobProvider, resource_name: str, *, request: dict,
                 project: str, region: str, spec_file: str, source_map: dict | None = None,
                 keep_job_records: bool = True, secret_env: Any = None, run: str | None = None,
                 opts: pulumi.ResourceOptions | None = None):
        owner = identity(pulumi.get_organization(), pulumi.get_project(), pulumi.get_stack(),
                         resource_name)
        props = {
            "request": request, "platform": provider.platform, "project": project,
            "region": region, "identity": owner, "specFile": spec_file, "run": run,
            "specHash": spec_hash(owner, request, run), "sourceMap": source_map or {},
            "keepJobRecords": bool(keep_job_records),
            "secretEnv": secret_env if secret_env is not None else {},
            **{k: None for k in provider.output_keys},
        }
        # A spec that changes platform or kind keeps its resource (the other types are aliases
        # of this one), so the change is a replace: the old job is cancelled by its own
        # provider before the new one is created, as for any other change of the request.
        aliases = [pulumi.Alias(type_=t) for t in JOB_TYPES if t != type(self)._type_token()]
        opts = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(additional_secret_outputs=["secretEnv"],
                                         aliases=aliases))
        super().__init__(provider, resource_name, props, opts)

    @classmethod
    def _type_token(cls) -> str:
        return f"{DYNAMIC_TYPE_PREFIX}{cls.__name__}"


class VertexCustomJob(_JobResource, module="trainspec", name="VertexCustomJob"):
    """A Vertex AI CustomJob; id = ``projects/P/locations/R/customJobs/N``."""

    def __init__(self, resource_name: str, **kwargs: Any):
        super().__init__(VertexCustomJobProvider(), resource_name, **kwargs)


class VertexHyperparameterTuningJob(_JobResource, module="trainspec",
                                    name="VertexHyperparameterTuningJob"):
    """A Vertex AI HyperparameterTuningJob; id =
    ``projects/P/locations/R/hyperparameterTuningJobs/N``."""

    trialCount: pulumi.Output[int]
    succeededTrials: pulumi.Output[int]
    bestTrial: pulumi.Output[dict]

    def __init__(self, resource_name: str, **kwargs: Any):
        super().__init__(VertexHyperparameterTuningJobProvider(), resource_name, **kwargs)


class AiPlatformJob(_JobResource, module="trainspec", name="AiPlatformJob"):
    """An AI Platform Training job; id = ``projects/P/jobs/JOB_ID``."""

    def __init__(self, resource_name: str, **kwargs: Any):
        super().__init__(AiPlatformJobProvider(), resource_name, **kwargs)


JOB_TYPES = tuple(f"{DYNAMIC_TYPE_PREFIX}{n}" for n in (
    "VertexCustomJob", "VertexHyperparameterTuningJob", "AiPlatformJob"))
# (platform, spec kind) → resource, as the platform registry (compiler.targets) names them.
_CLASSES = {c.__name__: c for c in (VertexCustomJob, VertexHyperparameterTuningJob, AiPlatformJob)}
RESOURCES = {(name, kind): _CLASSES[resource] for name, platform in PLATFORMS.items()
             for kind, resource in platform.resources.items()}

