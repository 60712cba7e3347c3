"""The AI Platform Training (ml v1) job provider's logic: a deterministic jobId, adopted after
a conflict or an unknown outcome; labels are the one in-place change; no delete, only cancel."""

from __future__ import annotations

from typing import Any

from pulumi import dynamic

from .. import plan
from ..cloud.jobs import ML_TERMINAL, failure
from ..cloud.rest import ApiError, Client
from ..model import IDENTITY_LABEL
from ..targets import body_schema
from .bodies import describe, has_unknown, restore_ints
from .polling import ignore_precondition, wait
from .provider import JobError, JobProvider, owner_labels

CREATE_ATTEMPTS = 3  # ml POSTs of one create (its jobId makes a second POST safe)


class TrainingJobProvider(JobProvider):
    """A legacy AI Platform Training job (ml v1 projects.jobs); it can never be deleted."""

    platform = "ai-platform"
    api, schema = body_schema(platform)
    platform_ids_checked = True

    def check(self, olds: dict, news: dict,
              planned: plan.Plan | None = None) -> dynamic.CheckResult:
        """The common check, then a replace's new jobId read: one an earlier run of this job
        (metadata.run removed or lowered) or another job has is refused here, before `up`
        cancels anything, as `pulumi up`'s create would refuse it after."""
        result = super().check(olds, news, planned)
        if result.failures or not isinstance(olds.get("request"), dict) or any(
                has_unknown(news.get(k)) for k in ("request", "project", "identity")):
            return result
        if (planned if planned is not None else self.plan(olds, news)).action != plan.REPLACE:
            return result
        body = restore_ints(self.api, self.schema, news["request"])
        name = f"projects/{news['project']}/jobs/{body.get('jobId')}"
        client = self._client()
        try:
            job = client.ml_get(name)
        except ApiError:
            return result  # not there (or not readable now): the create finds out
        if self._resumable(job, news["identity"], body) and self._newer(client, job, olds):
            return result  # this very replace, interrupted after its create: adopted
        owner = (job.get("labels") or {}).get(IDENTITY_LABEL)
        refusal = plan.id_taken(body["jobId"], name, job.get("state", ""),
                                owner == news["identity"])
        return dynamic.CheckResult(result.inputs, self._refused(refusal, news))

    @staticmethod
    def _newer(client: Client, job: dict, olds: dict) -> bool:
        """`job` was created after the job it replaces (an interrupted create of this replace),
        or that cannot be told; False for an earlier run's job, created before it."""
        # Only a create that finds a job of its own asks: job tracking is not the provider's
        # start-up (compiler.jobs.track and what it reads).
        from ..jobs.track import parse_time  # noqa: PLC0415

        replaced = f"projects/{olds.get('project')}/jobs/{olds['request'].get('jobId')}"
        try:
            before = parse_time(client.ml_get(replaced).get("createTime"))
        except ApiError:
            return True
        created = parse_time(job.get("createTime"))
        return before is None or created is None or created > before

    @staticmethod
    def _resumable(job: dict, identity: str, body: dict) -> bool:
        """`job` is this resource's, of `body`'s request, and not over: a create to adopt."""
        return ((job.get("labels") or {}).get(IDENTITY_LABEL) == identity
                and job.get("state") not in ("FAILED", "CANCELLED", "CANCELLING")
                and _contains(job.get("trainingInput") or {}, body.get("trainingInput") or {}))

    def _get(self, client: Client, name: str) -> dict:
        return client.ml_get(name)

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
            hint = plan.ID_TAKEN_HINT if owner == body["labels"][IDENTITY_LABEL] \
                else plan.ID_TAKEN_ELSEWHERE_HINT
            raise JobError(
                f"the AI Platform jobId {body['jobId']!r} is taken by {why} ({name}, state "
                f"{job.get('state', '?')}); ml v1 job ids are unique per project and never "
                f"reused: {hint}")
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
        # A renamed stack's job (its former owner accepted by `_owned`) is labelled again.
        restamp = (olds.get("owner") or news["identity"]) != news["identity"]
        if self.plan(olds, news).action != plan.UPDATE and not restamp:
            return dynamic.UpdateResult(outs)  # bookkeeping only
        labels = owner_labels(restore_ints(self.api, self.schema, news["request"]),
                               news["identity"], news["specHash"])
        client = self._client()
        try:
            for attempt in range(2):  # one retry if the job changed between GET and PATCH
                job = self._owned(client.ml_get(id_), olds, id_)
                try:
                    job = client.ml_patch(id_, {"labels": labels, "etag": job.get("etag", "")})
                    break
                except ApiError as exc:
                    if exc.status != 409 or attempt:
                        raise
        except ApiError as exc:
            raise JobError(describe(exc, f"updating the labels of {id_}")) from None
        outs.update(owner=news["identity"], state=job.get("state", outs.get("state", "")),
                    error=failure(job))
        return dynamic.UpdateResult(outs)

    def delete(self, id_: str, props: dict) -> None:
        # ml v1 has no delete: cancel a job that is still running; its record always stays.
        client = self._client()
        try:
            if self._owned(client.ml_get(id_), props, id_).get("state") not in ML_TERMINAL:
                ignore_precondition(lambda: client.ml_cancel(id_))
                # Cancelled means stopped: its replicas run until the job is terminal.
                wait(lambda: client.ml_get(id_).get("state"), ML_TERMINAL, id_)
        except ApiError as exc:
            if exc.not_found:
                return
            raise JobError(describe(exc, f"cancelling {id_}")) from None


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
