"""The Vertex AI job providers' logic: CustomJob, and HyperparameterTuningJob on another
collection (compiler.pulumi_resources declares the classes Pulumi state names)."""

from __future__ import annotations

from pulumi import dynamic

from ..cloud.jobs import (
    VERTEX_NOT_ADOPTABLE,
    VERTEX_TERMINAL,
    best_trial,
)
from ..cloud.rest import CUSTOM_JOBS, TUNING_JOBS, ApiError, Client
from ..model import IDENTITY_LABEL, REPLACES_LABEL, SPEC_HASH_LABEL
from ..targets import TUNING, body_schema
from .bodies import describe
from .polling import ignore_precondition, poll, settle_seconds, wait
from .provider import OUTPUT_KEYS, REPLACES, TUNING_OUTPUT_KEYS, JobError, JobProvider


class CustomJobProvider(JobProvider):
    """A Vertex AI CustomJob (aiplatform v1 projects.locations.customJobs), and the machinery of
    every Vertex job collection: a subclass names its collection, schema and states."""

    platform = "vertex"
    api, schema = body_schema(platform)
    collection, resource_type = CUSTOM_JOBS, "CustomJob"
    terminal, not_adoptable = VERTEX_TERMINAL, VERTEX_NOT_ADOPTABLE

    def _get(self, client: Client, name: str) -> dict:
        return client.vertex_get(name)

    def create(self, props: dict) -> dynamic.CreateResult:
        body, client = self._body(props), self._client()
        if props.get(REPLACES):  # the replace that makes it: what a retry adopts (`_mine`)
            body["labels"][REPLACES_LABEL] = props[REPLACES]
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
        known = {j.get("name") for j in seen}

        def live() -> dict | None:
            # A job of this generation from an interrupted `up` (killed after its POST, or
            # still retrying one when it died): adopt it. A failed or cancelled one is history,
            # not a job to resume.
            return next((j for j in seen if j.get("state") not in self.not_adoptable), None)

        def look_again() -> dict | None:
            # Before every retried POST (a 429): the job may have been made meanwhile.
            seen[:] = self._mine(client, project, region, labels)
            known.update(j.get("name") for j in seen)
            return live()

        found = live()
        if found is not None:
            return found
        try:
            return client.vertex_create(project, region, body, self.collection,
                                        before_retry=look_again)
        except ApiError as exc:
            if not exc.ambiguous:
                raise
            # The POST may have taken effect, perhaps not yet visible: watch for a job we had not
            # seen before. Never POST again here: a slow first create would make a second job.
            job = poll(lambda: next((j for j in self._mine(client, project, region, labels)
                                      if j.get("name") not in known), None))
            if job is None:
                where = f"projects/{project}/locations/{region}"
                raise JobError(
                    f"{describe(exc, f'creating a {self.resource_type} in {where}')}"
                    f"; the job may exist but did not appear within {settle_seconds():g}s, so "
                    "it was not submitted again: run `pulumi up` again (it adopts the job if it "
                    "appeared, else submits it)") from None
            return job

    def _mine(self, client: Client, project: str, region: str, labels: dict) -> list[dict]:
        """This generation's jobs (both owner labels, and the replace that made it if any:
        checked here too), oldest first."""
        keys = (IDENTITY_LABEL, SPEC_HASH_LABEL) + ((REPLACES_LABEL,) if REPLACES_LABEL in
                                                    labels else ())
        found = client.vertex_list(project, region, " AND ".join(
            f'labels.{k}="{labels[k]}"' for k in keys), self.collection)[self.collection]
        ours = [j for j in found if all((j.get("labels") or {}).get(k) == labels[k] for k in keys)]
        return sorted(ours, key=lambda j: (j.get("createTime", ""), j["name"]))

    def update(self, id_: str, olds: dict, news: dict) -> dynamic.UpdateResult:
        # No API call: bookkeeping changed, or labels alone (a CustomJob's labels cannot change:
        # the new request, labels and all, is kept in state for the next run; plan.decide).
        return dynamic.UpdateResult(self._kept_outs(olds, news))

    def delete(self, id_: str, props: dict) -> None:
        client = self._client()
        try:
            job = self._owned(client.vertex_get(id_), props, id_)
            if job.get("state") not in self.terminal:
                ignore_precondition(lambda: client.vertex_cancel(id_))
                wait(lambda: client.vertex_get(id_).get("state"), self.terminal, id_)
            # A state written before owner labels (no identity) has keepJobRecords false by the
            # old default, not by choice: keep its records.
            if props.get("keepJobRecords") is False and props.get("identity"):
                client.vertex_delete(id_)
        except ApiError as exc:
            if exc.not_found:
                return  # already gone
            raise JobError(describe(exc, f"cancelling {id_}")) from None


class TuningJobProvider(CustomJobProvider):
    """A Vertex AI HyperparameterTuningJob (projects.locations.hyperparameterTuningJobs): the
    CustomJob lifecycle on another collection (its JobState enum is the CustomJob's), with the
    trials' progress and the best trial in the outputs."""

    kind = TUNING
    schema = body_schema("vertex", kind)[1]
    collection, resource_type = TUNING_JOBS, "HyperparameterTuningJob"
    output_keys = OUTPUT_KEYS + TUNING_OUTPUT_KEYS

    def _outs(self, props: dict, job: dict, name: str) -> dict:
        trials = job.get("trials") or []
        return {**super()._outs(props, job, name), "trialCount": len(trials),
                "succeededTrials": sum(t.get("state") == "SUCCEEDED" for t in trials),
                "bestTrial": best_trial(job)}
