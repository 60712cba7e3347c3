"""What every trainspec job provider shares: check and diff (no API calls), the outputs, and
the ownership rule (a job is touched only if its owner label is this resource's)."""

from __future__ import annotations

import hashlib
import json
import os

from pulumi import dynamic

from .. import discovery, pipeline, plan
from ..cloud.jobs import failure, logs_url
from ..cloud.rest import ApiError, Client
from ..diagnostics import Position, TrainspecError
from ..model import IDENTITY_LABEL, SPEC_HASH_LABEL
from ..options import Options
from ..targets import PLATFORMS, TRAINING
from .bodies import describe, has_unknown, locate, restore_ints, secret_keys, splice_secrets

INPUT_KEYS = ("request", "platform", "project", "region", "identity", "specFile", "specHash",
              "sourceMap", "keepJobRecords", "secretEnv", "run", "formerOwners")
# `owner` is the identity label the job was created with; `error` the failure message.
OUTPUT_KEYS = ("name", "owner", "state", "error", "createTime", "startTime", "endTime",
               "consoleUrl", "logsUrl")
TUNING_OUTPUT_KEYS = ("trialCount", "succeededTrials", "bestTrial")
# The input Check records for a replace: which replace it is (`JobProvider.replaces`). Not an
# INPUT_KEYS key: never echoed into the outputs, so Diff never sees it change.
REPLACES = "replaces"
# Keys whose change needs no API call: provider-side flags and bookkeeping.
LOCAL_KEYS = ("identity", "specFile", "specHash", "sourceMap", "keepJobRecords", "__provider",
              "formerOwners")


# What to do when a job's owner label is not this stack's (the lifecycle table in docs/pulumi.md).
OWNER_HELP = (
    "If this stack or its project was renamed from the stack that started the job (`pulumi "
    "stack rename`), say so: `pulumi config set trainspec:renamedFrom ORG/PROJECT/STACK` (the "
    "former name; STACK or PROJECT/STACK also do), and `pulumi preview` shows the jobs it takes "
    "over. If this stack's state was copied from another stack, the job is that stack's, which "
    "still tracks and stops it: put this stack's own state back (`pulumi stack import` of an "
    "export of its own), or forget the copied entries with `pulumi state delete URN`")


class JobError(TrainspecError):
    """A provider operation failed; the message is one line (the engine prints it)."""


class JobProvider(dynamic.ResourceProvider):
    """What both providers share. No attributes: nothing is pickled into state but the class."""

    serialize_as_secret_always = False  # captures no secret: secretEnv travels as an input
    platform = ""  # a key of targets.PLATFORMS
    kind = TRAINING  # the spec kind whose request this provider sends
    api = ""
    schema = ""
    output_keys = OUTPUT_KEYS
    platform_ids_checked = False  # check reads whether a new client-chosen job id is taken

    # -- check / diff (no API calls) --

    def check(self, _olds: dict, news: dict,
              planned: plan.Plan | None = None) -> dynamic.CheckResult:
        """The dynamic provider's check; `planned`: `self.plan(_olds, news)`, when the caller
        has it (the plugin's Check decides it once for this and its quota ledger)."""
        failures: list[dynamic.CheckFailure] = []
        for key in ("request", "project", "region", "identity", "specFile", "specHash"):
            value = news.get(key)
            if has_unknown(value):
                continue
            if key == "request" and not isinstance(value, dict):
                failures.append(dynamic.CheckFailure(key, "required: the compiled request body"))
            elif key != "request" and (not isinstance(value, str) or not value):
                failures.append(dynamic.CheckFailure(key, "required: a non-empty string"))
        platform = news.get("platform")
        if platform not in (None, self.platform) and not has_unknown(platform):
            failures.append(dynamic.CheckFailure(
                "platform", f"{platform!r}: this resource submits {self.platform} jobs"))
        request = news.get("request")
        if isinstance(request, dict) and not has_unknown(request):
            body = restore_ints(self.api, self.schema, request)
            smap = news.get("sourceMap") if isinstance(news.get("sourceMap"), dict) else {}
            for path, message in discovery.violations(self.api, self.schema, body):
                at, spec_path = locate(path, smap)
                where = f"{at}: {spec_path}: " if at else ""
                failures.append(dynamic.CheckFailure(
                    "specFile", f"{where}{path or '(body)'}: {message}"))
            secrets = news.get("secretEnv")
            if not has_unknown(secrets):
                missing = [k for k in secret_keys(request) if k not in (secrets or {})]
                if missing:
                    failures.append(dynamic.CheckFailure(
                        "specFile", "no value for secret config key(s) " + ", ".join(missing)))
            # One plan for both (REPLACES is no input of it): decide is most of a Check's own
            # work for an unchanged job.
            planned = planned if planned is not None else self.plan(_olds, news)
            failures += self._check_change(news, planned)
            news = {k: v for k, v in news.items() if k != REPLACES}
            replaces = self.replaces(_olds, news, planned)
            if replaces:
                news[REPLACES] = replaces
        failures += self._check_spec(news)
        return dynamic.CheckResult(news, failures)

    def replaces(self, olds: dict, news: dict, planned: plan.Plan) -> str | None:
        """Which replace creates this job: a hash of the state it replaces (its specHash and
        its own `replaces`), else the state's. A create adopts only a job of its own replace:
        the same replace retried (an interrupted `up` leaves the old inputs in state, so it
        hashes alike), never an earlier generation's finished job that has the same specHash
        (a spec rolled back, a run removed, a secret changed). `planned`: `self.plan(olds,
        news)`."""
        before = olds.get(REPLACES)
        before = before if isinstance(before, str) and before else None
        if not isinstance(olds.get("request"), dict) or planned.action != plan.REPLACE:
            return before
        seen = json.dumps([olds.get("specHash"), before, olds.get("run")])
        return hashlib.sha256(seen.encode()).hexdigest()[:16]

    def _check_spec(self, news: dict) -> list[dynamic.CheckFailure]:
        """The spec file re-validated by the compiler itself (the same validator as the CLI).

        The provider runs in the project directory, so a relative `specFile` resolves as the
        program's did. Skipped during a preview with unknown inputs, and when the file is gone
        (a destroy or refresh after the spec was deleted must not fail). One compile per check.
        """
        relevant = [news.get(k) for k in ("specFile", "project", "region")]
        if any(has_unknown(v) for v in relevant):
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

    @classmethod
    def _check_change(cls, news: dict, planned: plan.Plan) -> list[dynamic.CheckFailure]:
        """The change `pulumi up` refuses (`planned`: `plan.decide` of it, as `diff` says),
        located in the spec."""
        return cls._refused(planned.refusal, news)

    @staticmethod
    def _refused(refusal: plan.Refusal | None, news: dict) -> list[dynamic.CheckFailure]:
        """`refusal` as a located check failure ([] for None)."""
        if refusal is None:
            return []
        at, spec_path = locate(refusal.at, news.get("sourceMap"))
        file, line, column = (at.rsplit(":", 2) + ["", ""])[:3] if at else ("", "", "")
        position = Position(int(line), int(column)) if line.isdigit() and column.isdigit() \
            else None
        file = file if position is not None else at or str(news.get("specFile") or "")
        return [dynamic.CheckFailure("specFile", refusal.diagnostic(
            file, spec_path, position).format())]

    def plan(self, olds: dict, news: dict) -> plan.Plan:
        """`plan.decide` over the old inputs or outputs and the new inputs (the function the
        `diff` command calls): with outputs, the job's last known state says what a replace
        costs."""
        old = olds.get("request")
        old = restore_ints(self.api, self.schema, old) if isinstance(old, dict) else None
        new = restore_ints(self.api, self.schema, news.get("request"))
        old_secrets, new_secrets = olds.get("secretEnv") or {}, news.get("secretEnv") or {}
        changed = [k for k in secret_keys(news.get("request"))
                   if old_secrets.get(k) != new_secrets.get(k)]
        # Where the job lives (platform, project, region) is part of the plan, as in `diff`.
        return plan.decide(self.platform, old, new, olds.get("platform"),
                           old_location=(olds.get("project"), olds.get("region")),
                           new_location=(news.get("project"), news.get("region")),
                           old_run=olds.get("run"), new_run=news.get("run"),
                           changed_secrets=changed, state=olds.get("state"),
                           ids_checked=self.platform_ids_checked)

    def diff(self, _id: str, olds: dict, news: dict) -> dynamic.DiffResult:
        # olds are the previous *outputs*; news the checked inputs.
        if any(has_unknown(news.get(k)) for k in INPUT_KEYS):
            return dynamic.DiffResult(changes=None)
        planned = self.plan(olds, news)
        action, replaces = planned.action, []
        if action in (plan.REPLACE, plan.CREATE):
            moved = {c.path for c in planned.changes}
            secret = {p for p in moved if p.startswith(plan.SECRET_CHANGE)}
            replaces = [k for k in plan.LOCATION_PATHS if k in moved]
            if plan.RUN_PATH in moved:
                replaces.append("run")  # a re-run: same request, a new job
            if action == plan.CREATE or moved - set(plan.NON_BODY_PATHS) - secret:
                replaces.append("request")
            if secret:
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
        body["labels"] = owner_labels(body, props.get("owner") or props["identity"],
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
        return PLATFORMS[self.platform].console[self.kind](name, project)

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

    def _trusted(self, props: dict) -> set[str]:
        """The owner labels this resource may act on. Here (trainspec 0.1's dynamic providers,
        which are not told the stack running now) the identity in state; the provider plugin
        compares with the stack running now instead (compiler.provider.jobs)."""
        return {props.get("identity") or props.get("owner")}

    def _owned(self, job: dict, props: dict, job_id: str) -> dict:
        """`job`, if this resource owns it; else refuse (another stack's or project's job).

        A job without the label predates owner labels.
        """
        label = (job.get("labels") or {}).get(IDENTITY_LABEL)
        trusted = self._trusted(props)
        if label is not None and label not in trusted:
            raise JobError(
                f"{job_id} belongs to another Pulumi stack or project (its {IDENTITY_LABEL} "
                f"label is {label!r}, not this resource's {' or '.join(map(repr, sorted(trusted)))}"
                f"); it was not touched. {OWNER_HELP}")
        return job


def owner_labels(body: dict, owner: str, generation: str) -> dict:
    """The request's labels plus the two that say whose job it is (the package docstring)."""
    return {**(body.get("labels") or {}), IDENTITY_LABEL: owner, SPEC_HASH_LABEL: generation}

