"""trainspec as a Pulumi resource provider plugin: the executable `pulumi-resource-trainspec`
(a console script of this package), which the engine finds on PATH for package `trainspec`.

Resources (schema.json is the schema `pulumi package get-schema trainspec` prints):

  trainspec:index:Specs                           component: one job per spec under `path`
  trainspec:index:VertexCustomJob                 a Vertex AI CustomJob
  trainspec:index:VertexHyperparameterTuningJob   a Vertex AI HyperparameterTuningJob
  trainspec:index:AiPlatformJob                   an AI Platform Training job

Three job types rather than one: their ids (and so `pulumi import`), outputs and APIs differ,
and each is the type its job had under the dynamic providers, so an old stack moves over by an
alias per resource. The job logic is compiler.pulumi_resources' (jobs.py); server.py is the gRPC
side; component.py the `Specs` component.
"""

from __future__ import annotations

import os
import sys
from importlib import resources

from ..version import VERSION

SCHEMA_FILE = "schema.json"
# Threads for blocking work (REST calls, waiting for a cancelled job to stop): enough that the
# engine's `--parallel` is the only limit. asyncio's default pool, min(32, CPUs + 4), ran 6
# deletes at a time on 2 cores, and trainspec 0.1's dynamic provider 4, whatever `--parallel`.
WORKERS = 512
# What the `pulumi` extra brings (pulumi and its gRPC stack): without it the plugin cannot serve.
PULUMI_EXTRA_MODULES = ("pulumi", "grpc", "google.protobuf")
NEEDS_EXTRA = ("pulumi-resource-trainspec needs trainspec[pulumi]: "
               "pip install 'trainspec[pulumi]'")


def schema_text() -> str:
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def _provider_class():
    import pulumi
    from pulumi.provider import ConstructResult, Provider

    from .jobs import Config

    class TrainspecProvider(Provider):
        def __init__(self) -> None:
            super().__init__(VERSION, schema_text())
            self.config = Config()

        def construct(self, name: str, resource_type: str, inputs: dict,
                      options: pulumi.ResourceOptions | None = None) -> ConstructResult:
            # Only a program other than Python's constructs `Specs` here: the component, the
            # tree compile and the report are not the plugin's start-up.
            from ..packaging import cache_dir  # noqa: PLC0415
            from . import compiled  # noqa: PLC0415
            from .component import TYPE, Specs, compile_folder, stack_options  # noqa: PLC0415

            if resource_type != TYPE:
                raise pulumi.RunError(f"trainspec has no component {resource_type!r}")
            path = inputs.get("path")
            if not isinstance(path, str) or not path:
                raise pulumi.RunError(f"{TYPE} {name!r}: path (a folder of specs) is required")
            # The jobs' Checks compile with these options (python.source archives in the cache,
            # as Create uploads them from there) and find each spec compiled already.
            compile_options = stack_options(self.config, str(cache_dir()))
            results = compile_folder(path, compile_options,
                                     lambda f: compiled.compile_file(f, compile_options))
            component = Specs(name, results, self.config, options, options=compile_options)
            return ConstructResult(urn=component.urn, state={"jobs": component.jobs})

    return TrainspecProvider


def _exit_with_the_engine(engine_pid: int) -> None:
    """Stop when the engine that started us is gone (a killed `pulumi up`: the plugin runs in a
    process group of its own, which a kill of the CLI's group does not reach). Nobody would
    receive an answer, and a create still retrying would start a job no state knows; a job
    already POSTed carries its labels, and the next `up` adopts it.

    Two signs, each watched by a thread of its own (the event loop may be busy): end of file
    on stdin, whose write end the engine holds until it exits (pkg/resource/plugin's
    `cmd.StdinPipe()`; it works through a wrapper script too), and a new parent process.
    Pulumi's own plugins ask the engine's health service, but only every 5 minutes.
    """
    import stat
    import threading
    import time

    def gone(why: str) -> None:
        try:  # stderr is usually a pipe to the dead engine: the line may go nowhere
            os.write(2, f"pulumi-resource-trainspec: the engine is gone ({why}); "
                        "stopping\n".encode())
        except OSError:
            pass
        os._exit(1)

    def stdin_closed() -> None:
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        gone("its pipe to this plugin closed")

    def parent_changed() -> None:
        while os.getppid() == engine_pid:
            time.sleep(0.5)
        gone("its process exited")

    try:
        piped = stat.S_ISFIFO(os.fstat(0).st_mode)  # not /dev/null or a terminal
    except OSError:
        piped = False
    if piped:
        threading.Thread(target=stdin_closed, name="engine-stdin", daemon=True).start()
    threading.Thread(target=parent_changed, name="engine-parent", daemon=True).start()


def main(argv: list[str] | None = None) -> None:
    """Serve the provider on a local port (printed first, as the engine expects)."""
    import asyncio
    import gc
    from concurrent.futures import ThreadPoolExecutor

    try:
        import grpc
        from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
        from pulumi.runtime.proto import provider_pb2_grpc

        from .server import Servicer

        provider = _provider_class()()
    except ModuleNotFoundError as e:  # `pip install trainspec` without the extra: say so
        if not any(f"{e.name}.".startswith(f"{m}.") for m in PULUMI_EXTRA_MODULES):
            raise
        sys.stderr.write(f"{NEEDS_EXTRA}\n")
        sys.exit(1)

    # What start-up made (modules, the schema, the catalogs) lives as long as the plugin: out
    # of the collector's way, so a full collection does not walk it again during an `up`.
    gc.freeze()
    argv = sys.argv[1:] if argv is None else argv
    engine = next((a for a in argv if not a.startswith("-")), "")

    async def serve() -> None:
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="trainspec"))
        server = grpc.aio.server(options=_GRPC_CHANNEL_OPTIONS)
        servicer = Servicer(provider, argv, engine_address=engine)
        provider_pb2_grpc.add_ResourceProviderServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        sys.stdout.write(f"{port}\n")
        sys.stdout.flush()
        _exit_with_the_engine(os.getppid())
        await server.wait_for_termination()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
