"""The typed Python SDK of the provider's resources, for a Pulumi program (and for the provider's
own component, which registers jobs with them): `Specs` (a folder of specs; constructed by the
provider, so a program in any language gets the same jobs) and the three job resources.

    from compiler.provider.sdk import Specs, VertexCustomJob
    specs = Specs("specs", path="specs")
    pulumi.export("jobs", specs.jobs)
    bert = VertexCustomJob("bert", spec_file="specs/bert.yaml")
    pulumi.export("bert", bert.consoleUrl)

Written by hand, held equal to the schema (compiler/provider/schema.json) by
tests/test_provider_sdk.py: each input is the schema's input property in snake_case with its
type, each output the schema's property with its type. The package is typed (`py.typed`), so a
type checker checks a program's calls against these signatures.
"""

from __future__ import annotations

from typing import Any

import pulumi

from ..pulumi_resources.provider import OUTPUT_KEYS, TUNING_OUTPUT_KEYS
from .jobs import token

COMPUTED = ("request", "platform", "identity", "specHash", "run")


class _Job(pulumi.CustomResource):
    """A job from one spec: `spec_file` (a path) or `spec` (the spec as an object)."""

    TYPE = ""
    OUTPUTS = OUTPUT_KEYS
    # Inputs, as Check completed them.
    specFile: pulumi.Output[str]
    spec: pulumi.Output[dict]
    project: pulumi.Output[str]
    region: pulumi.Output[str]
    stagingBucket: pulumi.Output[str]
    keepJobRecords: pulumi.Output[bool]
    secretEnv: pulumi.Output[dict[str, str]]
    organization: pulumi.Output[str]
    impersonateServiceAccount: pulumi.Output[str]
    retainOnDelete: pulumi.Output[bool]
    # What Check computed from the spec.
    request: pulumi.Output[dict]
    platform: pulumi.Output[str]
    identity: pulumi.Output[str]
    specHash: pulumi.Output[str]
    run: pulumi.Output[str]
    # The job, as last read.
    name: pulumi.Output[str]
    owner: pulumi.Output[str]
    formerOwners: pulumi.Output[list[str]]
    state: pulumi.Output[str]
    error: pulumi.Output[str]
    createTime: pulumi.Output[str]
    startTime: pulumi.Output[str]
    endTime: pulumi.Output[str]
    consoleUrl: pulumi.Output[str]
    logsUrl: pulumi.Output[str]

    def __init__(self, resource_name: str, *, spec_file: pulumi.Input[str] | None = None,
                 spec: pulumi.Input[dict] | None = None, project: pulumi.Input[str] | None = None,
                 region: pulumi.Input[str] | None = None,
                 staging_bucket: pulumi.Input[str] | None = None,
                 keep_job_records: pulumi.Input[bool] | None = None,
                 secret_env: pulumi.Input[dict[str, str]] | None = None,
                 organization: pulumi.Input[str] | None = None,
                 impersonate_service_account: pulumi.Input[str] | None = None,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        inputs: dict[str, Any] = {
            "specFile": spec_file, "spec": spec, "project": project, "region": region,
            "stagingBucket": staging_bucket, "keepJobRecords": keep_job_records, "secretEnv": secret_env,
            "organization": organization,
            "impersonateServiceAccount": impersonate_service_account}
        self._register(resource_name, inputs, (*COMPUTED, *self.OUTPUTS), opts)

    def _register(self, resource_name: str, inputs: dict[str, Any], outputs: tuple[str, ...],
                  opts: pulumi.ResourceOptions | None) -> None:
        # The engine does not tell a provider about retainOnDelete: the input does, so a
        # change that would leave the running job beside its replacement is refused.
        if opts is not None and opts.retain_on_delete:
            inputs = {**inputs, "retainOnDelete": True}
        props = {**inputs, **{k: None for k in outputs if k not in inputs}}
        if inputs.get("secretEnv") != {}:  # the provider stores an empty map as it is
            opts = pulumi.ResourceOptions.merge(
                opts, pulumi.ResourceOptions(additional_secret_outputs=["secretEnv"]))
        super().__init__(self.TYPE, resource_name, props, opts)

    @classmethod
    def declare(cls, resource_name: str, inputs: dict[str, Any], outputs: tuple[str, ...],
                opts: pulumi.ResourceOptions | None = None) -> _Job:
        """The job with `inputs` (schema names; None values left out) and only `outputs` as
        attributes: what the `Specs` component registers. Every property is a pending task in
        the program until the engine answers, and the Python SDK waits on all of them in a loop
        that grows with their number squared (`pulumi.runtime.stack.wait_for_rpcs`)."""
        job = cls.__new__(cls)
        job._register(resource_name, {k: v for k, v in inputs.items() if v is not None},
                      outputs, opts)
        return job


# Inputs of the schema an SDK class sets from its resource options, not from a keyword: the
# engine tells a provider nothing of `retainOnDelete`, so the option is passed on as an input.
FROM_OPTIONS = ("retainOnDelete",)


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
