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
from .jobs import Config

SCHEMA_FILE = "schema.json"


def schema_text() -> str:
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def _provider_class():
    import pulumi
    from pulumi.provider import ConstructResult, Provider

    from ..packaging import cache_dir
    from . import compiled
    from .component import TYPE, Specs, compile_folder, stack_options

    class TrainspecProvider(Provider):
        def __init__(self) -> None:
            super().__init__(VERSION, schema_text())
            self.config = Config()

        def construct(self, name: str, resource_type: str, inputs: dict,
                      options: pulumi.ResourceOptions | None = None) -> ConstructResult:
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


async def _exit_with_the_engine(engine_pid: int) -> None:
    """Stop when the engine that started us is gone (a killed `pulumi up`: the plugin runs in a
    session of its own). Nobody would receive an answer, and a create still retrying would
    start a job no state knows; a job already POSTed carries its labels, and the next `up`
    adopts it."""
    import asyncio

    while os.getppid() == engine_pid:
        await asyncio.sleep(1)
    sys.stderr.write("pulumi-resource-trainspec: the engine is gone; stopping\n")
    os._exit(1)


def main(argv: list[str] | None = None) -> None:
    """Serve the provider on a local port (printed first, as the engine expects)."""
    import asyncio

    import grpc
    from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
    from pulumi.runtime.proto import provider_pb2_grpc

    from .server import Servicer

    argv = sys.argv[1:] if argv is None else argv
    engine = next((a for a in argv if not a.startswith("-")), "")
    provider = _provider_class()()

    async def serve() -> None:
        server = grpc.aio.server(options=_GRPC_CHANNEL_OPTIONS)
        servicer = Servicer(provider, argv, engine_address=engine)
        provider_pb2_grpc.add_ResourceProviderServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        sys.stdout.write(f"{port}\n")
        sys.stdout.flush()
        watchdog = asyncio.create_task(_exit_with_the_engine(os.getppid()))
        await server.wait_for_termination()
        watchdog.cancel()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
