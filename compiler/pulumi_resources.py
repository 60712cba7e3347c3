"""Pulumi dynamic resources for compiled training jobs: `VertexCustomJob`,
`VertexHyperparameterTuningJob` and `AiPlatformJob`.

The only compiler module that imports `pulumi`. It has no import-time side effects, so dill
pickles the providers *by reference* (module + class name) into Pulumi state and the provider
process (`python -m pulumi.dynamic`, run in the project directory) re-imports this module.
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
AI Platform labels are the one in-place change (jobs.patch with etag). `compiler.plan.classify`
decides, as it does for the pull-request `diff` command.

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

import os
import time
from typing import Any

import pulumi
from pulumi import dynamic
from pulumi.output import Unknown

from . import discovery, pipeline, plan
from .cloud.jobs import (
    ML_TERMINAL,
    VERTEX_NOT_ADOPTABLE,
    VERTEX_TERMINAL,
    best_trial,
    failure,
    logs_url,
    ml_console_url,
    tuning_console_url,
    vertex_console_url,
)
from .cloud.rest import CUSTOM_JOBS, TUNING_JOBS, ApiError, Client
from .diagnostics import TrainspecError
from .identity import identity, spec_hash
from .model import IDENTITY_LABEL, SPEC_HASH_LABEL, secret_placeholder
from .normalize import Options
from .targets import ml as ml_target
from .targets import vertex as vertex_target

DYNAMIC_TYPE_PREFIX = "pulumi-python:dynamic/trainspec:"  # a resource's type token, then its name
ROOT_KEY = "*"  # sourceMap entry for the body as a whole (an empty property key is avoided)
INPUT_KEYS = ("request", "platform", "project", "region", "identity", "specFile", "specHash",
              "sourceMap", "keepJobRecords", "secretEnv", "run")
# `owner` is the identity label the job was created with; `error` the failure message.
OUTPUT_KEYS = ("name", "owner", "state", "error", "createTime", "startTime", "endTime",
               "consoleUrl", "logsUrl")
TUNING_OUTPUT_KEYS = ("trialCount", "succeededTrials", "bestTrial")
# Keys whose change needs no API call: provider-side flags and bookkeeping.
LOCAL_KEYS = ("identity", "specFile", "specHash", "sourceMap", "keepJobRecords", "__provider")
CREATE_ATTEMPTS = 3  # ml POSTs of one create (its jobId makes a second POST safe)
# After a Vertex create with an unknown outcome, how long to watch for the job to appear before
# giving up without a second POST (TRAINSPEC_CREATE_SETTLE_SECONDS overrides).
CREATE_SETTLE_SECONDS = 60.0
# Cancelling a real job takes seconds to minutes; destroy waits at most this long.
CANCEL_TIMEOUT_SECONDS = 900.0
_UNKNOWN_STRING = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # pulumi.runtime.rpc.UNKNOWN


class JobError(TrainspecError):
    """A provider operation failed; the message is one line (the engine prints it)."""


# --- pure helpers, also used by the program ----------------------------------------------------

def source_map(result: Any) -> dict[str, dict[str, str]]:
    """Body path → where it was written ({"at": "file:line:col", "path": spec JSON path})."""
    collector = result.document.collector() if result.document is not None else None
    out: dict[str, dict[str, str]] = {}
    for body_path, spec_path in sorted({ROOT_KEY: "$.spec", **result.origins}.items()):
        pos = collector.locate(spec_path) if collector else None
        at = f"{result.file}:{pos.line}:{pos.column}" if pos else result.file
        out[body_path] = {"at": at, "path": spec_path}
    return out


def secret_keys(request: Any) -> list[str]:
    """Config keys whose placeholders occur in `request`."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value.startswith("<secret:") and value.endswith(">"):
            found.add(value[len("<secret:"):-1])

    walk(request)
    return sorted(found)


def _has_unknown(value: Any) -> bool:
    if isinstance(value, Unknown) or value == _UNKNOWN_STRING:
        return True
    if isinstance(value, dict):
        return any(_has_unknown(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_unknown(v) for v in value)
    return False


def restore_ints(api: str, schema: str, body: Any) -> Any:
    """A copy of `body` with integer fields back to ints.

    The engine carries every number as a float64 (`8` arrives as `8.0`); int64 fields are
    already strings in compiled bodies, int32 ones (acceleratorCount, bootDiskSizeGb, priority,
    maxTrials) are restored here, guided by the discovery schema, so POSTed bodies stay canonical.
    Doubles stay as they are.
    """
    schemas = discovery.load(api)["schemas"]

    def walk(prop: dict, value: Any) -> Any:
        if "$ref" in prop:
            prop = schemas.get(prop["$ref"], {})
        if isinstance(value, dict):
            if "properties" in prop:
                props = prop["properties"]
                return {k: walk(props.get(k, {}), v) for k, v in value.items()}
            extra = prop.get("additionalProperties", {})
            return {k: walk(extra, v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(prop.get("items", {}), v) for v in value]
        if (isinstance(value, float) and value.is_integer()
                and prop.get("format") in ("int32", "uint32", "int64", "uint64")):
            return int(value)
        return value

    return walk({"$ref": schema}, body)


def splice_secrets(body: Any, secrets: dict[str, Any]) -> Any:
    """A copy of `body` with each ``<secret:KEY>`` placeholder replaced by ``secrets[KEY]``."""
    wanted = {secret_placeholder(k): v for k, v in (secrets or {}).items()}

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str) and value in wanted:
            return str(wanted[value])
        return value

    return walk(body)


def locate(field: str, smap: dict | None) -> tuple[str, str]:
    """(where, spec path) of a body path, walking up to the nearest mapped ancestor."""
    smap = smap or {}
    path = field
    while True:
        entry = smap.get(path or ROOT_KEY)
        if isinstance(entry, dict):
            return entry.get("at", ""), entry.get("path", "")
        if not path:
            return "", ""
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""


def describe(exc: ApiError, what: str, smap: dict | None = None) -> str:
    """One line: what failed, the API's status and message, violations at file:line:col."""
    code = f"HTTP {exc.status}" if exc.status is not None else "no response"
    text = f"{what}: {code} {exc.status_name or ''}".rstrip() + f": {exc.message}"
    for field, message in exc.field_violations:
        body_path = discovery.server_field_to_body_path(field)
        at, spec_path = locate(body_path, smap)
        where = f"{at}: {spec_path} " if at else ""
        text += f"; {where}({field}): {message}"
    return " ".join(text.split())


# --- providers ---------------------------------------------------------------------------------

class _JobProvider(dynamic.ResourceProvider):
    """What both providers share. No attributes: nothing is pickled into state but the class."""

    serialize_as_secret_always = False  # captures no secret: secretEnv travels as an input
    platform = ""
    api = ""
    schema = ""
    output_keys = OUTPUT_KEYS

    # -- check / diff (no API calls) --

    def check(self, _olds: dict, news: dict) -> dynamic.CheckResult:
        failures: list[dynamic.CheckFailure] = []
        for key in ("request", "project", "region", "identity", "specFile", "specHash"):
            value = news.get(key)
            if _has_unknown(value):
                continue
            if key == "request" and not isinstance(value, dict):
                failures.append(dynamic.CheckFailure(key, "required: the compiled request body"))
            elif key != "request" and (not isinstance(value, str) or not value):
                failures.append(dynamic.CheckFailure(key, "required: a non-empty string"))
        platform = news.get("platform")
        if platform not in (None, self.platform) and not _has_unknown(platform):
            failures.append(dynamic.CheckFailure(
                "platform", f"{platform!r}: this resource submits {self.platform} jobs"))
        request = news.get("request")
        if isinstance(request, dict) and not _has_unknown(request):
            body = restore_ints(self.api, self.schema, request)
            smap = news.get("sourceMap") if isinstance(news.get("sourceMap"), dict) else {}
            for path, message in discovery.violations(self.api, self.schema, body):
                at, spec_path = locate(path, smap)
                where = f"{at}: {spec_path}: " if at else ""
                failures.append(dynamic.CheckFailure(
                    "specFile", f"{where}{path or '(body)'}: {message}"))
            secrets = news.get("secretEnv")
            if not _has_unknown(secrets):
                missing = [k for k in secret_keys(request) if k not in (secrets or {})]
                if missing:
                    failures.append(dynamic.CheckFailure(
                        "specFile", "no value for secret config key(s) " + ", ".join(missing)))
            failures += self._check_change(_olds, news)
        failures += self._check_spec(news)
        return dynamic.CheckResult(news, failures)

    def _check_spec(self, news: dict) -> list[dynamic.CheckFailure]:
        """The spec file re-validated by the compiler itself (the same validator as the CLI).

        The provider runs in the project directory, so a relative `specFile` resolves as the
        program's did. Skipped during a preview with unknown inputs, and when the file is gone
        (a destroy or refresh after the spec was deleted must not fail). One compile per check.
        """
        relevant = [news.get(k) for k in ("specFile", "project", "region")]
        if any(_has_unknown(v) for v in relevant):
            return []
        spec_file, project, region = relevant
        if not isinstance(spec_file, str) or not spec_file or not os.path.isfile(spec_file):
            return []
        options = Options(platform=self.platform,
                          project=project if isinstance(project, str) and project else None,
                          region=region if isinstance(region, str) and region else None)
        result = pipeline.compile_file(spec_file, options)
        # Failures name `specFile`: the engine prints the named property's value with each.
        return [dynamic.CheckFailure("specFile", d.format()) for d in result.errors]

    def _check_change(self, olds: dict, news: dict) -> list[dynamic.CheckFailure]:
        return []

    def _plan(self, olds: dict, news: dict) -> plan.Plan:
        old = olds.get("request")
        old = restore_ints(self.api, self.schema, old) if isinstance(old, dict) else None
        new = restore_ints(self.api, self.schema, news.get("request"))
        # Where the job lives (platform, project, region) is part of the plan, as in `diff`.
        return plan.classify(self.platform, old, new, olds.get("platform"),
                             old_location=(olds.get("project"), olds.get("region")),
                             new_location=(news.get("project"), news.get("region")),
                             old_run=olds.get("run"), new_run=news.get("run"))

    def diff(self, _id: str, olds: dict, news: dict) -> dynamic.DiffResult:
        # olds are the previous *outputs*; news the checked inputs.
        if any(_has_unknown(news.get(k)) for k in INPUT_KEYS):
            return dynamic.DiffResult(changes=None)
        planned = self._plan(olds, news)
        action, replaces = planned.action, []
        if action in (plan.REPLACE, plan.CREATE):
            moved = {c.path for c in planned.changes}
            replaces = [k for k in plan.LOCATION_PATHS if k in moved]
            if plan.RUN_PATH in moved:
                replaces.append("run")  # a re-run: same request, a new job
            if action == plan.CREATE or moved - set(plan.NON_BODY_PATHS):
                replaces.append("request")
        if (olds.get("secretEnv") or {}) != (news.get("secretEnv") or {}):
            replaces.append("secretEnv")  # the job would run with the old value
        if replaces:
            # Cancel the old job before creating the new one: two generations never run at once
            # (create-before-delete would cancel the old job only at the end of `up`, or never
            # if `up` fails, while it keeps burning accelerators).
            return dynamic.DiffResult(changes=True, replaces=replaces, delete_before_replace=True)
        local = any(olds.get(k) != news.get(k) for k in LOCAL_KEYS)
        return dynamic.DiffResult(changes=action == plan.UPDATE or local)

    # -- helpers for CRUD --

    def configure(self, req: dynamic.ConfigureRequest) -> None:
        # Runs in the provider process after unpickling: nothing set here reaches the state.
        self._impersonate = req.config.get("gcp:impersonateServiceAccount") or None

    def _client(self) -> Client:
        return Client(impersonate_service_account=getattr(self, "_impersonate", None))

    def _body(self, props: dict) -> dict:
        body = restore_ints(self.api, self.schema, props["request"])
        body = splice_secrets(body, props.get("secretEnv") or {})
        left = secret_keys(body)
        if left:
            raise JobError(f"{props.get('specFile')}: no value for secret config key(s) "
                           f"{', '.join(left)}; set them with `pulumi config set --secret`")
        body["labels"] = _owner_labels(body, props.get("owner") or props["identity"],
                                       props["specHash"])
        return body

    @staticmethod
    def _inputs(props: dict) -> dict:
        return {k: props[k] for k in INPUT_KEYS if k in props}

    def _outs(self, props: dict, job: dict, name: str) -> dict:
        """Inputs echoed (diff compares against outputs), then what the job says now."""
        project = props.get("project", "")
        outs = {**self._inputs(props),
                "owner": props.get("owner") or props.get("identity", ""),
                "name": name, "state": job.get("state", ""), "error": failure(job),
                "consoleUrl": self._console(name, project), "logsUrl": logs_url(name, project)}
        for key in ("createTime", "startTime", "endTime"):
            if job.get(key):
                outs[key] = job[key]
        return outs

    def _kept_outs(self, olds: dict, news: dict) -> dict:
        """The new inputs with the job's outputs kept: an update never wipes outputs."""
        return {**self._inputs(news), **{k: olds[k] for k in self.output_keys if k in olds}}

    def _console(self, name: str, project: str) -> str:
        raise NotImplementedError

    def _get(self, client: Client, name: str) -> dict:
        raise NotImplementedError

    def read(self, id_: str, props: dict) -> dynamic.ReadResult:
        try:
            job = self._get(self._client(), id_)
        except ApiError as exc:
            if exc.not_found:  # only the API's own NOT_FOUND: never a wrong endpoint's 404
                return dynamic.ReadResult(None, {})
            raise JobError(describe(exc, f"reading {id_}")) from None
        return dynamic.ReadResult(id_, self._outs(props, job, id_))

    def _owned(self, job: dict, props: dict) -> dict:
        """`job`, if this resource owns it; else refuse (another stack's or project's job).

        Compared with the resource's identity now (not the `owner` output, which travels with a
        state copied into another stack). A job without the label predates owner labels.
        """
        label = (job.get("labels") or {}).get(IDENTITY_LABEL)
        mine = props.get("identity") or props.get("owner")
        if label is not None and label != mine:
            raise JobError(
                f"{job.get('name')} belongs to another Pulumi stack or project (its "
                f"{IDENTITY_LABEL} label is {label!r}, this resource's is {mine!r}); it was not "
                "touched. Remove it from this stack with `pulumi state delete URN`")
        return job


class VertexCustomJobProvider(_JobProvider):
    """A Vertex AI CustomJob (aiplatform v1 projects.locations.customJobs), and the machinery of
    every Vertex job collection: a subclass names its collection, schema and states."""

    platform, api, schema = "vertex", vertex_target.API, vertex_target.SCHEMA
    collection, resource_type = CUSTOM_JOBS, "CustomJob"
    terminal, not_adoptable = VERTEX_TERMINAL, VERTEX_NOT_ADOPTABLE

    def _console(self, name: str, project: str) -> str:
        return vertex_console_url(name, project)

    def _get(self, client: Client, name: str) -> dict:
        return client.vertex_get(name)

    def create(self, props: dict) -> dynamic.CreateResult:
        body, client = self._body(props), self._client()
        project, region = props["project"], props["region"]
        where = f"projects/{project}/locations/{region}"
        try:
            job = self._create(client, project, region, body)
        except ApiError as exc:
            raise JobError(describe(exc, f"creating a {self.resource_type} in {where}",
                                    props.get("sourceMap"))) from None
        return dynamic.CreateResult(job["name"], self._outs(props, job, job["name"]))

    def _create(self, client: Client, project: str, region: str, body: dict) -> dict:
        """Adopt this generation's live job, else POST; after an unknown outcome, look first."""
        labels = body["labels"]
        seen = self._mine(client, project, region, labels)
        # A job of this generation from an interrupted `up` (killed after the POST): adopt it.
        # A failed or cancelled one is history, not a job to resume.
        alive = [j for j in seen if j.get("state") not in self.not_adoptable]
        if alive:
            return alive[0]
        known = {j.get("name") for j in seen}
        try:
            return client.vertex_create(project, region, body, self.collection)
        except ApiError as exc:
            if not exc.ambiguous:
                raise
            # The POST may have taken effect, perhaps not yet visible: watch for a job we had not
            # seen before. Never POST again here: a slow first create would make a second job.
            job = _poll(lambda: next((j for j in self._mine(client, project, region, labels)
                                      if j.get("name") not in known), None))
            if job is None:
                where = f"projects/{project}/locations/{region}"
                raise JobError(
                    f"{describe(exc, f'creating a {self.resource_type} in {where}')}"
                    f"; the job may exist but did not appear within {_settle_seconds():g}s, so "
                    "it was not submitted again: run `pulumi up` again (it adopts the job if it "
                    "appeared, else submits it)") from None
            return job

    def _mine(self, client: Client, project: str, region: str, labels: dict) -> list[dict]:
        """This generation's jobs (both owner labels, checked here too), oldest first."""
        keys = (IDENTITY_LABEL, SPEC_HASH_LABEL)
        found = client.vertex_list(project, region, " AND ".join(
            f'labels.{k}="{labels[k]}"' for k in keys), self.collection)[self.collection]
        ours = [j for j in found if all((j.get("labels") or {}).get(k) == labels[k] for k in keys)]
        return sorted(ours, key=lambda j: (j.get("createTime", ""), j["name"]))

    def update(self, id_: str, olds: dict, news: dict) -> dynamic.UpdateResult:
        # Only bookkeeping changed (diff replaces on any request change): no API call.
        return dynamic.UpdateResult(self._kept_outs(olds, news))

    def delete(self, id_: str, props: dict) -> None:
        client = self._client()
        try:
            job = self._owned(client.vertex_get(id_), props)
            if job.get("state") not in self.terminal:
                _ignore_precondition(lambda: client.vertex_cancel(id_))
                _wait(lambda: client.vertex_get(id_).get("state"), self.terminal, id_)
            # A state written before owner labels (no identity) has keepJobRecords false by the
            # old default, not by choice: keep its records.
            if props.get("keepJobRecords") is False and props.get("identity"):
                client.vertex_delete(id_)
        except ApiError as exc:
            if exc.not_found:
                return  # already gone
            raise JobError(describe(exc, f"cancelling {id_}")) from None


class VertexHyperparameterTuningJobProvider(VertexCustomJobProvider):
    """A Vertex AI HyperparameterTuningJob (projects.locations.hyperparameterTuningJobs): the
    CustomJob lifecycle on another collection (its JobState enum is the CustomJob's), with the
    trials' progress and the best trial in the outputs."""

    schema = vertex_target.TUNING_SCHEMA
    collection, resource_type = TUNING_JOBS, "HyperparameterTuningJob"
    output_keys = OUTPUT_KEYS + TUNING_OUTPUT_KEYS

    def _console(self, name: str, project: str) -> str:
        return tuning_console_url(name, project)

    def _outs(self, props: dict, job: dict, name: str) -> dict:
        trials = job.get("trials") or []
        return {**super()._outs(props, job, name), "trialCount": len(trials),
                "succeededTrials": sum(t.get("state") == "SUCCEEDED" for t in trials),
                "bestTrial": best_trial(job)}


class AiPlatformJobProvider(_JobProvider):
    """A legacy AI Platform Training job (ml v1 projects.jobs); it can never be deleted."""

    platform, api, schema = "ai-platform", ml_target.API, ml_target.SCHEMA

    def _console(self, name: str, project: str) -> str:
        return ml_console_url(name, project)

    def _get(self, client: Client, name: str) -> dict:
        return client.ml_get(name)

    def _check_change(self, olds: dict, news: dict) -> list[dynamic.CheckFailure]:
        old = olds.get("request")
        if not isinstance(old, dict) or old.get("jobId") != news["request"].get("jobId"):
            return []
        if self._plan(olds, news).action != plan.REPLACE or olds.get("project") != news.get(
                "project"):
            return []
        at, _ = locate("jobId", news.get("sourceMap"))
        return [dynamic.CheckFailure("specFile", (
            f"{at + ': ' if at else ''}AI Platform job {old.get('jobId')!r} cannot be changed "
            "and its jobId can never be reused: set or bump metadata.run to submit the changed "
            "job as a new run (jobId <name>_run_<run>; the old one is cancelled first) "
            "(only labels can be updated in place)"))]

    def create(self, props: dict) -> dynamic.CreateResult:
        body, project, client = self._body(props), props["project"], self._client()
        name = f"projects/{project}/jobs/{body['jobId']}"
        try:
            job = self._create(client, project, name, body)
        except ApiError as exc:
            raise JobError(describe(exc, f"creating {name}", props.get("sourceMap"))) from None
        return dynamic.CreateResult(name, self._outs(props, job, name))

    def _create(self, client: Client, project: str, name: str, body: dict) -> dict:
        """POST the deterministic jobId; if it exists (409, or an unknown outcome), adopt it."""
        for attempt in range(1, CREATE_ATTEMPTS + 1):
            try:
                return client.ml_create(project, body)
            except ApiError as exc:
                if exc.status != 409 and not exc.ambiguous:
                    raise
                try:
                    return self._adopt(client, name, body)
                except ApiError as missing:
                    if not (exc.ambiguous and missing.not_found):
                        raise
                if attempt == CREATE_ATTEMPTS:
                    raise  # the create's own failure, not the look-up's NOT_FOUND
        raise AssertionError("unreachable")

    def _adopt(self, client: Client, name: str, body: dict) -> dict:
        """The jobId exists: adopt it if it is this resource's job, else refuse clearly."""
        job = client.ml_get(name)
        owner = (job.get("labels") or {}).get(IDENTITY_LABEL)
        if owner != body["labels"][IDENTITY_LABEL] or not _contains(
                job.get("trainingInput") or {}, body.get("trainingInput") or {}):
            why = ("an earlier, different version of this job" if owner == body["labels"][
                IDENTITY_LABEL] else "another Pulumi stack or project" if owner
                else "a job trainspec did not start")
            raise JobError(
                f"the AI Platform jobId {body['jobId']!r} is taken by {why} ({name}, state "
                f"{job.get('state', '?')}); ml v1 job ids are unique per project and never "
                "reused: rename metadata.name")
        if job.get("state") in ("FAILED", "CANCELLED", "CANCELLING"):
            raise JobError(
                f"the AI Platform jobId {body['jobId']!r} belongs to this job's earlier run, now "
                f"{job['state']} ({name}); ml v1 never reuses a jobId: set or bump metadata.run "
                "to submit a new run")
        if (job.get("labels") or {}) != body["labels"]:
            job = client.ml_patch(name, {"labels": body["labels"], "etag": job.get("etag", "")})
        return job

    def update(self, id_: str, olds: dict, news: dict) -> dynamic.UpdateResult:
        outs = self._kept_outs(olds, news)
        if self._plan(olds, news).action != plan.UPDATE:
            return dynamic.UpdateResult(outs)  # bookkeeping only
        labels = _owner_labels(restore_ints(self.api, self.schema, news["request"]),
                               olds.get("owner") or news["identity"], news["specHash"])
        client = self._client()
        try:
            for attempt in range(2):  # one retry if the job changed between GET and PATCH
                job = self._owned(client.ml_get(id_), olds)
                try:
                    job = client.ml_patch(id_, {"labels": labels, "etag": job.get("etag", "")})
                    break
                except ApiError as exc:
                    if exc.status != 409 or attempt:
                        raise
        except ApiError as exc:
            raise JobError(describe(exc, f"updating the labels of {id_}")) from None
        outs.update(state=job.get("state", outs.get("state", "")), error=failure(job))
        return dynamic.UpdateResult(outs)

    def delete(self, id_: str, props: dict) -> None:
        # ml v1 has no delete: cancel a job that is still running; its record always stays.
        client = self._client()
        try:
            if self._owned(client.ml_get(id_), props).get("state") not in ML_TERMINAL:
                _ignore_precondition(lambda: client.ml_cancel(id_))
                # Cancelled means stopped: its replicas run until the job is terminal.
                _wait(lambda: client.ml_get(id_).get("state"), ML_TERMINAL, id_)
        except ApiError as exc:
            if exc.not_found:
                return
            raise JobError(describe(exc, f"cancelling {id_}")) from None


def _owner_labels(body: dict, owner: str, generation: str) -> dict:
    """The request's labels plus the two that say whose job it is (see the module docstring)."""
    return {**(body.get("labels") or {}), IDENTITY_LABEL: owner, SPEC_HASH_LABEL: generation}


def _contains(live: Any, wanted: Any) -> bool:
    """True if every field of `wanted` is in `live` (the server may add defaults)."""
    if isinstance(wanted, dict):
        return isinstance(live, dict) and all(
            k in live and _contains(live[k], v) for k, v in wanted.items())
    if isinstance(wanted, list):
        return isinstance(live, list) and len(live) == len(wanted) and all(
            _contains(a, b) for a, b in zip(live, wanted, strict=True))
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool):
        return str(live) == str(wanted) or live == wanted  # int64 may come back as a string
    return live == wanted


def _ignore_precondition(call) -> None:
    try:
        call()
    except ApiError as exc:
        # The job reached a terminal state between our GET and the cancel.
        if exc.status != 400 or exc.status_name != "FAILED_PRECONDITION":
            raise


def _settle_seconds() -> float:
    raw = os.environ.get("TRAINSPEC_CREATE_SETTLE_SECONDS")
    try:
        return max(0.0, float(raw)) if raw else CREATE_SETTLE_SECONDS
    except ValueError:
        return CREATE_SETTLE_SECONDS


def _poll(find, seconds: float | None = None):
    """`find()` until it returns something, with backoff, for `seconds` (None if never)."""
    deadline = time.monotonic() + (_settle_seconds() if seconds is None else seconds)
    delay = 0.5
    while True:
        found = find()
        if found is not None or time.monotonic() >= deadline:
            return found
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 2, 10.0)


def _wait(get_state, done: frozenset, name: str) -> str:
    """Poll until the state is in `done`, within TRAINSPEC_CANCEL_TIMEOUT seconds."""
    limit = float(os.environ.get("TRAINSPEC_CANCEL_TIMEOUT") or CANCEL_TIMEOUT_SECONDS)
    deadline, delay, state = time.monotonic() + limit, 0.25, ""
    while True:
        state = get_state() or ""
        if state in done:
            return state
        if time.monotonic() + delay > deadline:
            raise JobError(f"{name} is still {state or 'not terminal'} {limit:g}s after cancel; "
                           "run the command again later (the job stays in the stack)")
        time.sleep(delay)
        delay = min(delay * 2, 10.0)


# --- resources ---------------------------------------------------------------------------------

class _JobResource(dynamic.Resource):
    name: pulumi.Output[str]
    state: pulumi.Output[str]
    error: pulumi.Output[str]
    createTime: pulumi.Output[str]
    consoleUrl: pulumi.Output[str]
    logsUrl: pulumi.Output[str]
    request: pulumi.Output[dict]

    def __init__(self, provider: _JobProvider, resource_name: str, *, request: dict,
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
# (platform, spec kind) → resource. On ai-platform a tuning job is a Job like any other.
RESOURCES = {("vertex", "TrainingJob"): VertexCustomJob,
             ("vertex", "HyperparameterTuningJob"): VertexHyperparameterTuningJob,
             ("ai-platform", "TrainingJob"): AiPlatformJob,
             ("ai-platform", "HyperparameterTuningJob"): AiPlatformJob}
