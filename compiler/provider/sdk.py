"""Python classes for the provider's resources, for a Pulumi program (and for the provider's own
component, which registers jobs with them): `Specs` (a folder of specs; constructed by the
provider, so a program in any language gets the same jobs) and the three job resources.

    from compiler.provider.sdk import Specs
    specs = Specs("specs", path="specs")
    pulumi.export("jobs", specs.jobs)

The property names are the schema's (compiler/provider/schema.json; a test holds them equal).
"""

from __future__ import annotations

from typing import Any

import pulumi

from ..pulumi_resources.provider import OUTPUT_KEYS, TUNING_OUTPUT_KEYS
from .jobs import token

COMPUTED = ("request", "platform", "identity", "specHash", "sourceMap", "run")


class _Job(pulumi.CustomResource):
    """A job from one spec: `spec_file` (a path) or `spec` (the spec as an object)."""

    TYPE = ""
    OUTPUTS = OUTPUT_KEYS
    name: pulumi.Output[str]
    state: pulumi.Output[str]
    error: pulumi.Output[str]
    consoleUrl: pulumi.Output[str]
    logsUrl: pulumi.Output[str]

    def __init__(self, resource_name: str, *, spec_file: pulumi.Input[str] | None = None,
                 spec: pulumi.Input[dict] | None = None, project: pulumi.Input[str] | None = None,
                 region: pulumi.Input[str] | None = None,
                 staging_bucket: pulumi.Input[str] | None = None,
                 keep_job_records: pulumi.Input[bool] | None = None,
                 secret_env: pulumi.Input[dict] | None = None,
                 organization: pulumi.Input[str] | None = None,
                 impersonate_service_account: pulumi.Input[str] | None = None,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        props: dict[str, Any] = {
            "specFile": spec_file, "spec": spec, "project": project, "region": region,
            "stagingBucket": staging_bucket, "keepJobRecords": keep_job_records, "secretEnv": secret_env,
            "organization": organization,
            "impersonateServiceAccount": impersonate_service_account,
            # The engine does not tell a provider about retainOnDelete: the input does, so a
            # change that would leave the running job beside its replacement is refused.
            "retainOnDelete": True if opts is not None and opts.retain_on_delete else None,
            **{k: None for k in (*COMPUTED, *self.OUTPUTS)}}
        opts = pulumi.ResourceOptions.merge(
            opts, pulumi.ResourceOptions(additional_secret_outputs=["secretEnv"]))
        super().__init__(self.TYPE, resource_name, props, opts)


class VertexCustomJob(_Job):
    """A Vertex AI CustomJob; id = ``projects/P/locations/R/customJobs/N``."""

    TYPE = token("VertexCustomJob")


class VertexHyperparameterTuningJob(_Job):
    """A Vertex AI HyperparameterTuningJob; id =
    ``projects/P/locations/R/hyperparameterTuningJobs/N``."""

    TYPE = token("VertexHyperparameterTuningJob")
    OUTPUTS = OUTPUT_KEYS + TUNING_OUTPUT_KEYS
    trialCount: pulumi.Output[int]
    succeededTrials: pulumi.Output[int]
    bestTrial: pulumi.Output[dict]


class AiPlatformJob(_Job):
    """An AI Platform Training job; id = ``projects/P/jobs/JOB_ID``."""

    TYPE = token("AiPlatformJob")


JOBS = {c.TYPE: c for c in (VertexCustomJob, VertexHyperparameterTuningJob, AiPlatformJob)}


class Specs(pulumi.ComponentResource):
    """Every spec under `path`, one job each (constructed by the trainspec provider)."""

    jobs: pulumi.Output[dict]

    def __init__(self, resource_name: str, *, path: pulumi.Input[str],
                 opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(token("Specs"), resource_name, {"path": path, "jobs": None}, opts,
                         remote=True)
