"""The gRPC ResourceProvider the engine talks to: the Python SDK's provider server
(`pulumi.provider.server`, which serves GetSchema, GetPluginInfo and Construct) plus the
custom-resource methods it leaves out, each answered by compiler.provider.jobs.

Configure answers `supportsPreview: false`: the engine then never calls Create or Update during
a preview (it returns the inputs as the outputs itself), which is what makes a preview send
nothing. Handshake stays unimplemented for the same reason (a handshake implies preview support).
Blocking work (compiling, REST calls, waiting for a cancel) runs on worker threads, so the
engine's parallel steps run in parallel here too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf import empty_pb2
from pulumi.errors import RunError
from pulumi.provider.server import ProviderServicer
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc, provider_pb2

from .. import plan
from ..diagnostics import TrainspecError
from ..pulumi_resources.bodies import has_unknown
from ..pulumi_resources.provider import INPUT_KEYS, REPLACES, JobError
from . import capacity, jobs, wire

_DIFF_ON_THE_LOOP = 64 * 1024  # bytes of a job's new inputs diffed on the event loop


class Servicer(ProviderServicer):
    """ProviderServicer with CheckConfig/DiffConfig/Configure and the job resources' CRUD."""

    def __init__(self, provider, args: list[str], engine_address: str) -> None:
        super().__init__(provider, args, engine_address)
        self.config = jobs.Config()
        self.providers = {t: cls() for t, cls in jobs.CLASSES.items()}
        self.ledger = capacity.Ledger()
        # Each job's source map (body path → where the spec wrote it), from its last Check: what
        # Create and Update locate an API error with. Kept here, not in the state: the engine
        # checks a resource before it creates or updates it, in this process.
        self.source_maps: dict[str, dict] = {}
        # Each job's `replaces` (pulumi_resources.provider.REPLACES) from its last Check with
        # olds: a replacement's second Check, without olds, records the same.
        self.replacing: dict[str, str | None] = {}
        self._engine: engine_pb2_grpc.EngineStub | None = None

    # -- configuration --

    async def CheckConfig(self, request, context):
        news, secret = wire.decode(request.news)
        failures = [provider_pb2.CheckFailure(property=k, reason=r)
                    for k, r in jobs.Config.problems(news)]
        # Only trainspec's provider settings are provider inputs: other `trainspec:` stack
        # config (specs, protect, secrets) is the program's, not the provider's.
        kept = {k: v for k, v in news.items() if k in jobs.Config.KEYS or k == "version"}
        return provider_pb2.CheckResponse(inputs=wire.encode(kept, secret), failures=failures)

    async def DiffConfig(self, request, context):
        olds, _ = wire.decode(request.olds)
        news, _ = wire.decode(request.news)
        changed = [k for k in jobs.Config.KEYS if olds.get(k) != news.get(k)]
        # Never a replace: a job is where its spec says; a changed default reaches the jobs
        # through their own Check and Diff.
        return provider_pb2.DiffResponse(
            changes=provider_pb2.DiffResponse.DIFF_SOME if changed
            else provider_pb2.DiffResponse.DIFF_NONE, diffs=changed)

    async def Configure(self, request, context):
        args, _ = wire.decode(request.args)
        if not args and request.variables:  # an engine that sends only the old map
            args = {k.split(":", 1)[-1].split("config:", 1)[-1]: v
                    for k, v in request.variables.items()}
        self.config = jobs.Config.from_inputs(args)
        self.provider.config = self.config  # the Specs component's defaults
        for provider in self.providers.values():
            provider.config = self.config
        return provider_pb2.ConfigureResponse(acceptSecrets=True, acceptResources=True,
                                              acceptOutputs=True, supportsPreview=False)

    async def Construct(self, request, context):
        try:
            return await super().Construct(request, context)
        except RunError as exc:  # a spec error: its diagnostics, without a traceback
            await context.abort(grpc.StatusCode.UNKNOWN, str(exc))

    # -- job resources --

    async def Check(self, request, context):
        news, secret = wire.decode(request.news)
        olds, _ = wire.decode(request.olds)
        type_token = self._type(request.urn, request.type, context)
        # All of a Check's blocking work (the compile, the request's checks, the quota ledger,
        # which may read the project's quotas) in one worker-thread call: each hop to a thread
        # and back costs the event loop a wake-up, a sizeable share of an unchanged job's CPU.
        logs: list[tuple[int, str]] = []  # sent even when the Check fails midway
        try:
            inputs, failures = await asyncio.to_thread(
                self._check, type_token, request.urn, olds, news, logs)
        finally:
            for severity, text in logs:
                await self._log(severity, text, request.urn)
        return provider_pb2.CheckResponse(
            inputs=wire.encode(inputs, secret | _secret_env(inputs)),
            failures=[provider_pb2.CheckFailure(property=p, reason=r) for p, r in failures])

    def _check(self, type_token: str, urn: str, olds: dict, news: dict,
               logs: list[tuple[int, str]]) -> tuple[dict, list[tuple[str, str]]]:
        """(the inputs to keep, failures as (property, reason)) of one job's Check; what to log
        is added to `logs` as (severity, text), in order, as it is found."""
        checked = jobs.check(type_token, urn, olds, news, self.config)
        logs += [(engine_pb2.WARNING, w) for w in [w.format() for w in checked.warnings]
                 + checked.notes]
        failures = list(checked.failures)
        inputs = checked.inputs
        if jobs.OBSERVED in olds:  # what the last refresh found: no input of an `up` changes it
            inputs = {**inputs, jobs.OBSERVED: olds[jobs.OBSERVED]}
        # What applying does (plan.decide, as `diff` says), decided once for the checks below
        # and the quota ledger.
        planned = None
        if not failures and "request" in inputs and not has_unknown(inputs):
            if isinstance(inputs["request"], dict):  # else the check below refuses it
                planned = self.providers[type_token].plan(olds, inputs)
            # The request body checked against the API's own schema, and the change rules.
            result = self.providers[type_token].check(olds, inputs, planned)
            failures += [(f.property, f.reason) for f in result.failures]
            # Which replace creates the job (what its create adopts: vertex._mine). The engine
            # checks a replacement again without its olds before creating it: that Check
            # takes what the Check with olds found, in this process.
            replaces = result.inputs.get(REPLACES)
            if olds:
                self.replacing[urn] = replaces
            else:
                replaces = self.replacing.pop(urn, None)
            inputs = {k: v for k, v in inputs.items() if k != REPLACES}
            if replaces:
                inputs[REPLACES] = replaces
        if not failures and planned is not None:
            # Only a create or replace submits, so only it is counted against the quota and
            # priced.
            action = self.ledger.action(urn, olds, planned.action if olds else None)
            failures += self._quota(urn, olds, inputs, action, logs)
            note = capacity.cost_note(action, checked.result)
            if note and not failures and self.ledger.first(urn, note):
                logs.append((engine_pb2.INFO, note))
        inputs = {k: v for k, v in inputs.items() if k not in jobs.NOT_IN_STATE}
        if isinstance(checked.inputs.get("sourceMap"), dict):
            self.source_maps[urn] = checked.inputs["sourceMap"]
        return inputs, failures

    async def Diff(self, request, context):
        olds, _ = wire.decode(request.olds)
        news, _ = wire.decode(request.news)
        provider = self.providers[self._type(request.urn, request.type, context)]
        # Where the spec was written is not what runs: a moved file or an edited comment is
        # no update (the new values are the inputs in state from here on), nor is a source map
        # that a state written before 0.2 holds and the new inputs no longer carry.
        seen = {**{k: v for k, v in olds.items() if k not in jobs.PRESENTATION_KEYS},
                **{k: news[k] for k in jobs.PRESENTATION_KEYS if k in news}}
        old_inputs, _ = wire.decode(request.old_inputs)
        if old_inputs.get("retainOnDelete") is True:  # what the engine replaces with
            seen["retainOnDelete"] = True
        # On the event loop: a diff is pure and short (plan.decide), and a hop to a worker
        # thread and back cost more than it does; a large job (an unusual number of args or env
        # entries) goes to a thread, not to stall every other call meanwhile.
        result = await self._call(context, provider.diff, request.id, seen, news,
                                  thread=request.news.ByteSize() > _DIFF_ON_THE_LOOP)
        diffs = [k for k in INPUT_KEYS if k not in jobs.PRESENTATION_KEYS
                 and seen.get(k) != news.get(k)]
        if "__provider" in olds:  # a state written by the dynamic providers: rewritten as data
            diffs.append("__provider")
        # Only in a refresh (news: the stored inputs; old_inputs: Read's) can it differ.
        refreshed = old_inputs.get(jobs.OBSERVED) != news.get(jobs.OBSERVED)
        if refreshed:
            diffs.append(jobs.OBSERVED)
        if result.changes is None:
            changes = provider_pb2.DiffResponse.DIFF_UNKNOWN
        else:
            changes = (provider_pb2.DiffResponse.DIFF_SOME if result.changes or refreshed
                       else provider_pb2.DiffResponse.DIFF_NONE)
            # The plan's own line, as `trainspec diff` prints it: what a replace costs given
            # the job's last known state, and that a Vertex label change is not a re-run.
            planned = provider.plan(seen, news) if result.changes else None
            if planned is not None and (planned.action == plan.REPLACE or planned.recorded):
                await self._log(engine_pb2.INFO, planned.description, request.urn)
            if planned is not None and planned.action == plan.REPLACE and result.replaces:
                # The engine checks the replacement again without olds: the quota check
                # there gives this job's share back (capacity.py).
                self.ledger.replacing(request.urn, {**seen, "name": request.id})
        return provider_pb2.DiffResponse(
            changes=changes, replaces=result.replaces or [], diffs=diffs,
            deleteBeforeReplace=bool(result.delete_before_replace))

    async def Create(self, request, context):
        props, secret = wire.decode(request.properties)
        provider = self.providers[self._type(request.urn, request.type, context)]
        if request.preview:  # not sent while supportsPreview is false; never submit in one
            return provider_pb2.CreateResponse(properties=request.properties)
        jobs.CREATING_IN.set(jobs.creating_in(request.urn, props.get("organization")))
        result = await self._call(context, provider.create, self._located(request.urn, props),
                                  using=props)
        return provider_pb2.CreateResponse(id=result.id, properties=self._outs(result.outs, secret))

    async def Read(self, request, context):
        props, secret = wire.decode(request.properties)
        inputs, input_secret = wire.decode(request.inputs)
        type_token = jobs.for_id(request.id)
        if type_token is None:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                f"{request.id!r} is not a job name trainspec knows "
                                "(projects/P/locations/R/customJobs/ID, "
                                "projects/P/locations/R/hyperparameterTuningJobs/ID or "
                                "projects/P/jobs/ID)")
        if not props and not inputs:  # `pulumi import`: only the id is known
            wanted = self._type(request.urn, request.type, context)
            if wanted != type_token:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                                    f"{request.id} is a {type_token} job, not a {wanted}")
            adopted = await self._call(context, jobs.adopt, self._type(
                request.urn, request.type, context), request.urn, request.id, self.config)
            return provider_pb2.ReadResponse(id=request.id, inputs=wire.encode(adopted[0]),
                                             properties=self._outs(adopted[1], set()))
        provider = self.providers[type_token]
        result = await self._call(context, provider.read, request.id, props, using=inputs)
        if not result.id:
            return provider_pb2.ReadResponse()  # the API's NOT_FOUND: the job is gone
        return provider_pb2.ReadResponse(
            id=result.id, properties=self._outs(result.outs, secret),
            inputs=wire.encode(jobs.observed(inputs, props, result.outs), input_secret))

    async def Update(self, request, context):
        olds, _ = wire.decode(request.olds)
        news, secret = wire.decode(request.news)
        provider = self.providers[self._type(request.urn, request.type, context)]
        if request.preview:
            return provider_pb2.UpdateResponse(properties=request.news)
        result = await self._call(context, provider.update, request.id, olds,
                                  self._located(request.urn, news), using=news, urn=request.urn)
        return provider_pb2.UpdateResponse(properties=self._outs(result.outs, secret))

    async def Delete(self, request, context):
        props, _ = wire.decode(request.properties)
        old_inputs, _ = wire.decode(request.old_inputs)
        # By the id, not the URN: a state written by the dynamic providers, or a job whose spec
        # changed kind, is deleted by the provider of the job it is.
        type_token = jobs.for_id(request.id) or self._type(request.urn, request.type, context)
        await self._call(context, self.providers[type_token].delete, request.id, props,
                         using=old_inputs, owners={**props, **old_inputs}, urn=request.urn)
        return empty_pb2.Empty()

    # -- helpers --

    def _quota(self, urn: str, olds: dict, inputs: dict, action: str,
               logs: list[tuple[int, str]]) -> list[tuple[str, str]]:
        """The project's quota against what the stack's new jobs hold (capacity.py): errors
        as failures, the rest added to `logs`."""
        account = inputs.get("impersonateServiceAccount")
        failures, warnings, notes = self.ledger.check(
            urn, olds, inputs, action, self.config.endpoint,
            account if isinstance(account, str) and account else
            self.config.impersonate_service_account)
        logs += [(engine_pb2.WARNING, t) for t in warnings] + [(engine_pb2.INFO, t) for t in notes]
        return failures

    def _type(self, urn: str, given: str, context) -> str:
        type_token = given or urn.split("::")[2].rsplit("$", 1)[-1]
        if type_token not in self.providers:
            raise TrainspecError(f"trainspec has no resource type {type_token!r}")
        return type_token

    async def _call(self, context, method: Callable, *args: Any, using: dict | None = None,
                    urn: str = "", owners: dict | None = None, thread: bool = True):
        """`method(*args)` on a worker thread (on the event loop with `thread` false: no
        blocking call in it), as the identity the inputs `using` name; with a `urn`, acting
        only on jobs the stack running now owns (its state: `owners`, else `using`)."""
        account = (using or {}).get("impersonateServiceAccount")
        jobs.IMPERSONATE.set(account if isinstance(account, str) and account else None)
        try:
            jobs.OWNERS.set(jobs.trusted(urn, owners or using or {}, self.config) if urn else None)
            return await asyncio.to_thread(method, *args) if thread else method(*args)
        except JobError as exc:  # one line, as the engine prints it
            await context.abort(grpc.StatusCode.UNKNOWN, str(exc))
        except TrainspecError as exc:
            await context.abort(grpc.StatusCode.UNKNOWN, str(exc))

    def _located(self, urn: str, props: dict) -> dict:
        """`props` with the source map its Check found (none: API errors name the file only)."""
        return {**props, "sourceMap": self.source_maps.get(urn, props.get("sourceMap"))}

    @staticmethod
    def _outs(outs: dict, secret: set[str]):
        outs = {k: v for k, v in outs.items() if k not in jobs.NOT_IN_STATE}
        return wire.encode(jobs.without_nulls(outs), (secret | _secret_env(outs)) & set(outs))

    async def _log(self, severity: int, message: str, urn: str) -> None:
        if self._engine is None:
            self._engine = engine_pb2_grpc.EngineStub(grpc.aio.insecure_channel(self.engine_address))
        try:
            await self._engine.Log(engine_pb2.LogRequest(severity=severity, message=message,
                                                         urn=urn))
        except grpc.RpcError:
            pass  # a warning that cannot be shown never fails the check


def _secret_env(props: dict) -> set[str]:
    """{"secretEnv"} when it holds a value: always a secret in the state, whatever the program
    marked. An empty map (a job without secret env) is stored as it is, not as a ciphertext
    of nothing (131 bytes twice per job, in a state the engine rewrites after every step)."""
    return {"secretEnv"} if props.get("secretEnv") else set()
