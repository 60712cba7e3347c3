"""The provider's job resources: `trainspec:index:VertexCustomJob`,
`trainspec:index:VertexHyperparameterTuningJob` and `trainspec:index:AiPlatformJob`.

Their lifecycle is the dynamic providers' code, reused as is (compiler.pulumi_resources: ownership
labels, delete-before-replace, only NOT_FOUND means gone, records kept, deadlines); this module
adds what a real provider does differently:

  * Check compiles the spec (a file path or an inline object) with the pipeline every command
    uses, and turns it into the inputs the dynamic resources carried (request, platform,
    identity, specHash, sourceMap, run), so the state holds data only, never code;
  * Create uploads the spec's python.source archives first (uploads.py);
  * the provider's own configuration (`trainspec:project`, `region`, `endpoint`,
    `impersonateServiceAccount`, `keepJobRecords`) replaces the environment and the pickled
    provider's `configure`.
"""

from __future__ import annotations

import contextvars
import json
import os
from dataclasses import dataclass, field
from typing import Any

import yaml

from .. import pipeline
from ..cloud.jobs import is_final
from ..cloud.rest import Client
from ..cloud.storage import Storage
from ..diagnostics import Diagnostic
from ..jobs import former as former_stacks_gone
from ..jobs.identity import former_names, former_stacks, identity, spec_hash, trusted_owners
from ..options import Options
from ..packaging import cache_dir
from ..pulumi_resources import ml, vertex
from ..pulumi_resources.bodies import has_unknown, source_map
from ..pulumi_resources.provider import OWNER_HELP, JobError, JobProvider
from ..targets import PLATFORMS
from . import compiled, uploads

PACKAGE = "trainspec"
# A Pulumi organization the engine does not tell a resource provider; the file backend's name.
DEFAULT_ORGANIZATION = "organization"
# Inputs that say where the spec was written, not what runs: a change alone is no update.
PRESENTATION_KEYS = ("specFile", "sourceMap")
# What Check computes but the state does not keep: the source map (~1.2 kB a job, ~60% of its
# inputs) is read only to locate an API error, by the Create or Update that follows a Check in
# the same provider process (server.py). Each RPC that carried it cost the engine its size in
# encoding and in its automatic log (~/.pulumi/logs), and the state kept it twice (inputs and
# outputs). A state written before holds it; Diff ignores it there.
NOT_IN_STATE = ("sourceMap",)
# The metadata.name a spec's job had in this stack's last state, given by the `Specs` component
# with an alias to that resource (component.py): read by Check only, never kept.
FORMER_NAME = "formerName"
# The job and state a refresh found changed (Read), kept in the inputs: the engine decides a
# refresh's result with Diff (the inputs Read returned against the stored ones), and a job's
# state is an output. Check carries it over, so an `up` never sees it change.
OBSERVED = "observedState"


def token(name: str) -> str:
    return f"{PACKAGE}:index:{name}"


@dataclass(frozen=True)
class Config:
    """The provider's configuration (stack config `trainspec:KEY`, or a provider resource's
    inputs): defaults for every job it manages."""

    project: str | None = None
    region: str | None = None
    endpoint: str | None = None  # else TRAINSPEC_API_ENDPOINT, else Google's hosts
    impersonate_service_account: str | None = None
    keep_job_records: bool | None = None
    renamed_from: tuple[str, ...] = ()  # former names of this stack (`trainspec:renamedFrom`)

    KEYS = ("project", "region", "endpoint", "impersonateServiceAccount", "keepJobRecords",
            "renamedFrom")

    @classmethod
    def from_inputs(cls, inputs: dict) -> Config:
        def text(key: str) -> str | None:
            value = inputs.get(key)
            return value if isinstance(value, str) and value else None
        keep = inputs.get("keepJobRecords")
        if isinstance(keep, str):  # stack config values arrive as strings
            keep = {"true": True, "false": False}.get(keep.lower(), keep)
        return cls(text("project"), text("region"), text("endpoint"),
                   text("impersonateServiceAccount"), keep if isinstance(keep, bool) else None,
                   tuple(former_names(inputs.get("renamedFrom")) or ()))

    @staticmethod
    def problems(inputs: dict) -> list[tuple[str, str]]:
        """(key, reason) for each configuration value of the wrong type."""
        found = []
        for key in Config.KEYS:
            value = inputs.get(key)
            if value is None or has_unknown(value):
                continue
            if key == "keepJobRecords":
                if not isinstance(value, bool) and str(value).lower() not in ("true", "false"):
                    found.append((key, "must be true or false"))
            elif key == "renamedFrom":
                if former_names(value) is None:
                    found.append((key, "must be a stack name (STACK, PROJECT/STACK or "
                                       "ORG/PROJECT/STACK) or a JSON list of them"))
            elif not isinstance(value, str):
                found.append((key, "must be a string"))
        return found


# The service account one call impersonates: the job's `impersonateServiceAccount` input (the
# Specs component sets it from `gcp:impersonateServiceAccount`, which the engine never shows a
# provider), else the provider's. Set per gRPC call; worker threads inherit it.
IMPERSONATE: contextvars.ContextVar[str | None] = contextvars.ContextVar("impersonate",
                                                                         default=None)


# The owner labels the stack running now accepts for one call's resource (`trusted`), set per
# gRPC call from its URN: never the identity a state carries, which a copied state brings along.
OWNERS: contextvars.ContextVar[frozenset[str] | None] = contextvars.ContextVar("owners",
                                                                              default=None)


# The stack a Create runs in, (organization, project, stack), set per gRPC call from its URN.
CREATING_IN: contextvars.ContextVar[tuple[str, str, str] | None] = contextvars.ContextVar(
    "creating_in", default=None)


def creating_in(urn: str, organization: str | None) -> tuple[str, str, str]:
    stack, project, _name = parse_urn(urn)
    return organization or DEFAULT_ORGANIZATION, project, stack


class _Configured:
    """What a provider-served job adds to the dynamic provider's logic."""

    config = Config()

    def _trusted(self, props: dict) -> set[str]:
        owners = OWNERS.get()
        return set(owners) if owners is not None else super()._trusted(props)  # type: ignore[misc]

    def diff(self, id_: str, olds: dict, news: dict):
        result = super().diff(id_, olds, news)  # type: ignore[misc]
        retained = [o for o, v in (("now", news), ("recorded", olds))
                    if v.get("retainOnDelete") is True]
        if result.replaces and retained and not is_final(olds.get("state") or ""):
            first = ("" if "recorded" not in retained else
                     " (Pulumi replaces with the option its state records: `pulumi up` once "
                     "with this job out of it and its spec unchanged, then apply the change)")
            raise JobError(
                f"{id_}: this change replaces the job, which is retainOnDelete: Pulumi would "
                "forget it and it would keep running, untracked, beside its replacement, so the "
                "change is refused. To stop it and start the new job, take the job out of "
                f"trainspec:retainOnDelete{first}: it is then cancelled before its replacement "
                "starts. To keep it running and start another beside it, give the spec a new "
                "metadata.name (the old resource is removed, and retained). If the job has "
                "finished meanwhile, `pulumi refresh` first")
        return result

    def _client(self, kind: type[Client] | type[Storage] = Client):
        return kind(self.config.endpoint, impersonate_service_account=(
            IMPERSONATE.get() or self.config.impersonate_service_account))

    def _mine(self, client: Client, project: str, region: str, labels: dict) -> list[dict]:
        """A create's own jobs to adopt, less those a renamed stack took over: a stack made
        again under a renamed stack's old name finds them under its own owner label (a Vertex
        job's labels cannot change), but they are in the renamed stack's state, not its own."""
        seen = super()._mine(client, project, region, labels)  # type: ignore[misc]
        stack = CREATING_IN.get()
        if not seen or stack is None:
            return seen
        held, error = former_stacks_gone.claimed_ids(*stack, os.getcwd())
        if error is not None:
            raise JobError(f"{stack[2]}: a job of this spec's labels exists and {error}: it is "
                           "neither adopted nor submitted again; nothing was changed")
        return [j for j in seen if j.get("name") not in held]

    def _check_spec(self, news: dict) -> list:
        return []  # Check compiled the spec already (one compile per Check)

    def create(self, props: dict):
        # The job's code first: a job is never submitted with a package that is not there.
        if props.get(uploads.KEY):
            uploads.upload_all(self._client(Storage), props[uploads.KEY])
        return super().create(props)  # type: ignore[misc]


class VertexCustomJob(_Configured, vertex.CustomJobProvider):
    """A Vertex AI CustomJob; id = ``projects/P/locations/R/customJobs/N``."""


class VertexHyperparameterTuningJob(_Configured, vertex.TuningJobProvider):
    """A Vertex AI HyperparameterTuningJob; id = ``projects/P/locations/R/hyperparameterTuningJobs/N``."""


class AiPlatformJob(_Configured, ml.TrainingJobProvider):
    """An AI Platform Training job; id = ``projects/P/jobs/JOB_ID``."""


CLASSES: dict[str, type[JobProvider]] = {
    token(c.__name__): c for c in (VertexCustomJob, VertexHyperparameterTuningJob, AiPlatformJob)}


def for_id(job_id: str) -> str | None:
    """The type token whose jobs have ids like `job_id` (None if none has)."""
    # The importers (decompiling a job to a spec) only when a job is read by its id: a Check
    # or Diff, all an unchanged job gets, never needs them, and the plugin starts without.
    from ..importers.job import CUSTOM, ML, TUNING, collection  # noqa: PLC0415

    return {CUSTOM: token("VertexCustomJob"), TUNING: token("VertexHyperparameterTuningJob"),
            ML: token("AiPlatformJob")}.get(collection(job_id) or "")


def resource_type(platform: str, kind: str) -> str:
    """The type token of a spec's job, as the platform registry names it."""
    return token(PLATFORMS[platform].resources[kind])


def parse_urn(urn: str) -> tuple[str, str, str]:
    """(stack, project, name) of ``urn:pulumi:STACK::PROJECT::TYPE::NAME``."""
    head, project, _type, name = urn.split("::", 3)
    return head.split(":", 2)[2], project, name


@dataclass
class Checked:
    inputs: dict
    failures: list[tuple[str, str]]  # (property, reason)
    warnings: list[Diagnostic]
    result: pipeline.Result | None = None  # the compiled spec, when it checked
    notes: list[str] = field(default_factory=list)  # shown as warnings in the plan


def _owners(urn: str, organization: str | None, config: Config) -> tuple[str, dict[str, str]]:
    """(the identity of the resource `urn` names in the stack running now, {identity of a
    former name (`trainspec:renamedFrom`): that name})."""
    stack, project, name = parse_urn(urn)
    org = organization or DEFAULT_ORGANIZATION
    renamed = {identity(*former, name): "/".join(former)
               for former in former_stacks(list(config.renamed_from), org, project, stack)}
    return identity(org, project, stack, name), renamed


def _respelled(urn: str, news: dict) -> str | None:
    """The identity of this stack's resource of the spec's former metadata.name, when the
    `Specs` component found one in this stack's last state (`formerName`, with an alias to
    it: the engine hands this Check that resource's state). It names this stack, as `urn`
    does: a state copied from another stack carries that stack's identity, never this one."""
    name = _text(news.get(FORMER_NAME))
    if name is None:
        return None
    stack, project, _name = parse_urn(urn)
    return identity(_text(news.get("organization")) or DEFAULT_ORGANIZATION, project, stack, name)


def renamed_refusal(urn: str, organization: str | None, config: Config) -> str | None:
    """Why the stack's `trainspec:renamedFrom` is not honoured (a named stack still exists, or
    that cannot be told: compiler.jobs.former); None if it is, or is not set."""
    if not config.renamed_from:
        return None
    stack, project, _name = parse_urn(urn)
    formers = former_stacks(list(config.renamed_from), organization or DEFAULT_ORGANIZATION,
                            project, stack)
    return former_stacks_gone.refusal(formers, project, os.getcwd())


def trusted(urn: str, state: dict, config: Config) -> frozenset[str]:
    """The owner labels the resource `urn` may act on, its `state` read as untrusted data."""
    refused = renamed_refusal(urn, _text(state.get("organization")), config)
    if refused:
        raise JobError(f"{parse_urn(urn)[2]}: {refused}")
    now, renamed = _owners(urn, _text(state.get("organization")), config)
    former = state.get("formerOwners")
    return frozenset(trusted_owners(now, state.get("identity"),
                                    former if isinstance(former, list) else None, set(renamed)))


def compile_source(news: dict, name: str, options: Options) -> tuple[pipeline.Result, str, str]:
    """(result, the property the spec came from, its file name in diagnostics)."""
    spec_file = news.get("specFile")
    if isinstance(spec_file, str) and spec_file:
        return compiled.compile_file(spec_file, options), "specFile", spec_file
    label = f"{name}.spec"  # an inline spec is shown as YAML, its positions in that text
    text = yaml.safe_dump(news.get("spec"), sort_keys=False, allow_unicode=True)
    return pipeline.compile_text(text, label, options), "spec", label


def observed(inputs: dict, before: dict, after: dict) -> dict:
    """The inputs a refresh stores, given the outputs before and after it: with OBSERVED set
    to the job's name and state when either changed, so that the refresh reports the job as
    updated; as stored otherwise (a refresh that finds nothing new reports it unchanged)."""
    now = {"job": after.get("name"), "state": after.get("state")}
    if now == {"job": before.get("name"), "state": before.get("state")}:
        return inputs
    return {**inputs, OBSERVED: now}


def check(type_token: str, urn: str, olds: dict, news: dict, config: Config) -> Checked:
    """The checked inputs of a job resource: its spec compiled, and every problem found."""
    keys = ("specFile", "spec", "project", "region", "stagingBucket", "organization",
            "secretEnv", "keepJobRecords", "impersonateServiceAccount")
    if any(has_unknown(news.get(k)) for k in keys):
        return Checked(news, [], [])  # a preview with values not known yet: checked at `up`
    has_file, has_spec = bool(news.get("specFile")), news.get("spec") is not None
    if has_file == has_spec:
        return Checked(news, [("specFile", "give exactly one of specFile (a spec file's path) "
                                           "or spec (the spec itself)")], [])
    if has_spec and not isinstance(news["spec"], dict):
        return Checked(news, [("spec", "must be an object: the spec as a spec file holds it")], [])
    if has_file and not os.path.isfile(news["specFile"]):
        return Checked(news, [("specFile", f"{news['specFile']}: no such file (relative paths "
                                           f"are read from the project directory, {os.getcwd()})")], [])
    name = parse_urn(urn)[2]
    # python.source archives are built into the cache (Create uploads them from there).
    options = Options(project=_text(news.get("project")) or config.project,
                      region=_text(news.get("region")) or config.region,
                      staging_bucket=_text(news.get("stagingBucket")),
                      package_dir=str(cache_dir()))
    result, prop, label = compile_source(news, name, options)
    problems = result.errors + pipeline.location_errors(result)
    warnings = [d for d in result.diagnostics if not d.is_error]
    if problems or result.job is None or result.body is None:
        return Checked(news, [(prop, d.format()) for d in problems], warnings)
    job = result.job
    wanted = resource_type(job.platform, job.kind)
    if wanted != type_token:
        return Checked(news, [(prop, f"{label}: this spec is a {job.platform} {job.kind}: declare "
                                     f"it as a {wanted}, not a {type_token}")], warnings)
    secrets = news.get("secretEnv") or {}
    if not isinstance(secrets, dict):
        return Checked(news, [("secretEnv", "must be a map of secret config key to value")], [])
    missing = [k for k in job.secrets if k not in secrets]
    if missing:
        return Checked(news, [(prop, f"{label}: no value in secretEnv for secret config key(s) "
                                     f"{', '.join(missing)}")], warnings)
    refused = renamed_refusal(urn, _text(news.get("organization")), config)
    if refused:
        return Checked(news, [(prop, f"{label}: {refused}")], warnings)
    owner, renamed = _owners(urn, _text(news.get("organization")), config)
    former = olds.get("identity")
    if isinstance(former, str) and former not in {owner, *renamed, _respelled(urn, news)}:
        return Checked(news, [(prop, f"{label}: this resource's state was written by another "
                                     f"stack (owner label {former!r}, not this stack's "
                                     f"{owner!r}); nothing was changed. {OWNER_HELP}")], warnings)
    notes = [] if former == owner or former not in renamed else [
        f"{name}: this stack was renamed from {renamed[former]} (trainspec:renamedFrom): that "
        "stack's job of this spec is this stack's from now on (`up` labels an AI Platform job "
        "again; a Vertex job's labels cannot change, so the state records its former owner; "
        "`trainspec status` and `trainspec cancel` find such a job only while "
        "trainspec:renamedFrom stays set)"]
    recorded = olds.get("formerOwners")
    formers = sorted(trusted_owners(owner, former, recorded if isinstance(recorded, list) else None,
                                    set(renamed)) - {owner})
    keep = news.get("keepJobRecords")
    keep = keep if isinstance(keep, bool) else config.keep_job_records
    inputs = {
        **news, "request": result.body, "platform": job.platform, "project": job.project,
        "region": job.region, "identity": owner, "specFile": label, "run": job.run,
        "specHash": spec_hash(owner, result.body, job.run), "sourceMap": source_map(result),
        "keepJobRecords": True if keep is None else keep, "secretEnv": secrets,
        "formerOwners": formers or None,
    }
    inputs.pop(uploads.KEY, None)
    inputs.pop(FORMER_NAME, None)  # only this Check's: a later one has the new name's state
    if result.uploads:
        inputs[uploads.KEY] = [u.uri for u in result.uploads]
    return Checked(inputs, [], warnings, result, notes)


def adopt(type_token: str, urn: str, job_id: str, config: Config) -> tuple[dict, dict]:
    """`pulumi import`: (inputs, outputs) of a job read with only its id.

    The inputs are the spec `trainspec import` writes for the job's request (inline, as `spec`);
    checked like any other, they compile back to that request, so the next preview of a program
    that declares the same spec is a no-op. A job another stack or project owns is refused.
    """
    from ..importers import job as job_import  # noqa: PLC0415  (as in for_id)

    provider = CLASSES[type_token]()
    provider.config = config
    job = provider._get(provider._client(), job_id)
    outcome = job_import.to_spec(job_id, job)
    if not outcome.ok or outcome.text is None:
        raise JobError(f"{job_id}: trainspec cannot write a spec for this job:\n"
                       + "\n".join(d.format() for d in outcome.diagnostics))
    inputs = {"spec": yaml.safe_load(outcome.text)}
    checked = check(type_token, urn, {}, inputs, config)
    if checked.failures:
        raise JobError(f"{job_id}: the spec written for this job does not check: "
                       + "; ".join(r for _, r in checked.failures))
    OWNERS.set(trusted(urn, checked.inputs, config))
    provider._owned(job, checked.inputs, job_id)  # another stack's job: refused, untouched
    return inputs, provider._outs(checked.inputs, job, job_id)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def without_nulls(props: dict) -> dict:
    """`props` as the engine keeps them: a None value is no value."""
    return json.loads(json.dumps({k: v for k, v in props.items() if v is not None}))
