"""`trainspec:index:Specs`: a folder of specs as one resource, in any Pulumi language.

One component, two ways in, one state:
  * a program in any language (Pulumi YAML, TypeScript, ...) declares it and the engine asks the
    provider to Construct it; the provider registers the jobs through the engine's resource
    monitor, as a program would;
  * trainspec's own Python program (compiler.pulumi_program) builds the same class in its own
    process, so it can make its jobs depend on the python.source objects it declares with
    pulumi-gcp (kept for the stacks that hold them; the job resource uploads its archive
    itself before it submits, compiler/provider/uploads.py).
Either way the URNs are `...::trainspec:index:Specs$trainspec:index:<Job>::<metadata.name>`.

`compile_folder` does what the Python program always did first: every spec compiled, and every
error (with missing secrets and bad `protect`/`retainOnDelete` settings) reported before anything
is declared. Then `Specs` declares one job per spec with its secret env values from stack
config; its `jobs` output holds each job's name, state, error and links.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

import pulumi

from .. import pipeline, tree
from ..options import Options
from ..report import format_text
from . import stack as program
from .jobs import Config, resource_type, token
from .sdk import JOBS

TYPE = token("Specs")
# The types a job had under the dynamic providers (before 0.2): aliases keep its state and job.
OLD_TYPE_PREFIX = "pulumi-python:dynamic/trainspec:"
_SWAPPING = threading.Lock()
EXPORTED = ("name", "state", "error", "consoleUrl", "logsUrl")


def stack_options(config: Config, package_dir: str | None = None) -> Options:
    """The compile options of a stack: the provider's defaults, else `gcp:project`/`region`."""
    settings, gcp = program.Settings(), pulumi.Config("gcp")
    return Options(project=config.project or gcp.get("project"),
                   region=config.region or gcp.get("region"),
                   staging_bucket=settings.get("stagingBucket"), package_dir=package_dir)


def compile_folder(path: str, options: Options, compile_file: Callable[[str], pipeline.Result]
                   | None = None) -> list[pipeline.Result]:
    """Every spec under `path`, compiled; a RunError with every problem if one has any."""
    results, found = program.compile_specs(path, options, compile_file)
    found += program.job_options(program.Settings(), {r.job.name for r in results if r.ok})[1]
    problems = [d for d in found if d.is_error]
    for d in found:
        if not d.is_error:  # the folder's own: a spec's warnings are its job's (below, Check)
            pulumi.log.warn(d.format())
    if problems:
        raise pulumi.RunError(f"{len(problems)} error(s) in specs; nothing was declared:\n"
                              + format_text(problems))
    return results


class Specs(pulumi.ComponentResource):
    """One job resource per compiled spec (`compile_folder`), as children."""

    jobs: pulumi.Output[dict]

    def __init__(self, name: str, results: list[pipeline.Result], config: Config,
                 opts: pulumi.ResourceOptions | None = None,
                 depends_on: dict[str, list[pulumi.Resource]] | None = None,
                 options: Options | None = None, register_jobs: bool = True) -> None:
        super().__init__(TYPE, name, None, opts)
        settings = program.Settings()
        by_job = program.job_options(settings, {r.job.name for r in results})[0]
        keep = settings.get_bool("keepJobRecords")
        keep = config.keep_job_records if keep is None else keep
        stack, project = pulumi.get_stack(), pulumi.get_project()
        # As trainspec 0.1 read it; the provider's own setting, when given, is the default.
        impersonate = pulumi.Config("gcp").get("impersonateServiceAccount")
        self.resources: dict[str, pulumi.CustomResource] = {}
        exported: dict[str, tuple[str, ...]] = {}
        renamed = _renamed(results)
        for r in results:
            job = r.job
            wanted = resource_type(job.platform, job.kind)
            # This resource is also: a job declared by the dynamic providers' program, or
            # imported with `pulumi import` (top-level resources), and a job of another kind
            # here (a changed spec.kind or platform).
            top = [f"{OLD_TYPE_PREFIX}{t.rsplit(':', 1)[1]}" for t in JOBS] + list(JOBS)
            aliases = [f"urn:pulumi:{stack}::{project}::{t}::{job.name}" for t in top] + [
                pulumi.Alias(type_=t) for t in JOBS if t != wanted]
            former = renamed.get(r.file)  # this spec's job under its former metadata.name
            if former:
                aliases.append(former)
            opts = pulumi.ResourceOptions.merge(by_job.get(job.name), pulumi.ResourceOptions(
                parent=self, aliases=aliases, depends_on=(depends_on or {}).get(job.name)))
            # The defaults the folder was compiled with, when known: each job's Check then
            # compiles with the same options, and in the provider's process finds the result
            # of this compile (compiled.py) instead of compiling again.
            given = (options.project, options.region, options.staging_bucket) if options \
                else (job.project, job.region, job.staging_bucket)
            trials = ("trialCount", "bestTrial") if "trialCount" in JOBS[wanted].OUTPUTS else ()
            with _without_call_stack():
                resource = JOBS[wanted].declare(job.name, {
                    "specFile": r.file, "project": given[0], "region": given[1],
                    "stagingBucket": given[2], "keepJobRecords": True if keep is None else keep,
                    "secretEnv": program.secret_env(job.secrets),
                    "organization": pulumi.get_organization(),
                    "formerName": former and former.rsplit("::", 1)[-1],
                    "impersonateServiceAccount": impersonate}, (*EXPORTED, *trials), opts)
            self.resources[job.name] = resource
            # What only the folder's discovery says of a spec (a link out of the folder): the
            # job's Check compiles its file alone and logs the spec's own warnings.
            for d in r.diagnostics:
                if d.code in tree.DISCOVERY_CODES and not d.is_error:
                    pulumi.log.warn(d.format(), resource=resource)
            exported[job.name] = (*EXPORTED, *trials)
        self.jobs = _map(self.resources, exported)
        # `register_jobs=False`: the caller exports the map itself, and the state holds it once.
        self.register_outputs({"jobs": self.jobs} if register_jobs else {})


@contextlib.contextmanager
def _without_call_stack() -> Iterator[None]:
    """A job declared inside is registered without the Python call stack the SDK sends with
    each resource and the engine keeps in the state (`stackTrace`, `sourcePosition`): a job's
    origin is its spec file (`specFile`); the stack holds only frames of trainspec's program
    and the language host, and was a third of a job's state. The engine saves the whole state
    after every step (on a file backend `pulumi destroy` of N jobs writes it 2N times), so a
    job's state is paid N times over (docs/pulumi.md, "Speed"). The SDK reads the stack in one
    private function; an SDK without it registers with the stack, as before
    (tests/engine/test_lean_state.py holds the pinned SDK to no stack in the state)."""
    from pulumi.runtime import resource as runtime
    from pulumi.runtime.proto import source_pb2

    with _SWAPPING:  # two components constructed at once (threads of the provider)
        read = getattr(runtime, "_get_stack_trace", None)
        if read is None:
            yield
            return
        runtime._get_stack_trace = source_pb2.StackTrace
        try:
            yield
        finally:
            runtime._get_stack_trace = read


def _renamed(results: list[pipeline.Result]) -> dict[str, str]:
    """{spec file: URN of its job under its former metadata.name}, from this stack's last
    state, for each spec whose job had another name there and whose former name no spec
    declares now. An alias to that URN makes the renamed spec's job the same resource as
    before (with `formerName`, by which the job's Check knows the old job as this stack's): its
    name is part of the request, so the engine replaces it, delete before create (the old job
    is cancelled before the new one is submitted), as for any other edit. Read with the
    engine's own `readStackResourceOutputs` of this stack (org/project/stack, as the Pulumi
    Cloud wants it): this stack's state only, never another's."""
    name = f"{pulumi.get_organization()}/{pulumi.get_project()}/{pulumi.get_stack()}"
    try:
        state = pulumi.runtime.invoke("pulumi:pulumi:readStackResourceOutputs",
                                      {"stackName": name}).value or {}
    except Exception as e:  # noqa: BLE001 - any failure only loses the rename's order
        pulumi.log.warn(f"could not read this stack's last state ({e}): a spec whose "
                        "metadata.name changed gets its new job before the old one is cancelled")
        return {}
    names = {r.job.name for r in results}
    files = {r.file: r.job.name for r in results}
    former: dict[str, list[str]] = {}
    for urn, resource in (state.get("outputs") or {}).items():
        spec_file = ((resource or {}).get("outputs") or {}).get("specFile")
        old_name = urn.rsplit("::", 1)[-1]
        if (resource.get("type") in JOBS and spec_file in files
                and files[spec_file] != old_name and old_name not in names):
            former.setdefault(spec_file, []).append(urn)
    # Two former jobs of one file (a state that holds both): neither is taken over.
    return {f: urns[0] for f, urns in former.items() if len(urns) == 1}


def _map(resources: dict[str, pulumi.CustomResource],
         keys: dict[str, tuple[str, ...]]) -> pulumi.Output[dict]:
    """{job name: {key: output}} as one Output over a flat list (`Output.from_input` of the
    nested map makes an Output per job and per key on top of the resources' own)."""
    pairs = [(name, key) for name, wanted in keys.items() for key in wanted]

    def nest(values: list) -> dict:
        out: dict[str, dict] = {name: {} for name in keys}
        for (name, key), value in zip(pairs, values):
            out[name][key] = value
        return out

    return pulumi.Output.all(*(getattr(resources[n], k) for n, k in pairs)).apply(nest)
