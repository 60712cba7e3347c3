"""One lowering module per API, and the one registry of platforms every other stage reads.

Each lowering module lists its passes as data: RESOLVE (the defaults the API needs, each with a
note; the only place defaults are chosen) then CHECK (pure: what the API refuses), both run by
`prepare` (common.py); then `lower(job)`, a pure mapping to the request body. `PLATFORMS` names,
per platform, its lowering module, API (discovery document), request schema per spec kind,
Pulumi resource per spec kind (compiler.pulumi_resources) and console page: a new platform is
one row here and one lowering module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType

from ..cloud import jobs
from . import ml, vertex
from .common import compact, prepare

__all__ = ["PLATFORMS", "Platform", "body_schema", "compact", "prepare"]


@dataclass(frozen=True)
class Platform:
    name: str  # spec.platform
    target: ModuleType  # RESOLVE, CHECK, lower
    api: str  # the discovery document of its REST API
    bodies: Mapping[str, str]  # spec kind → schema of the create request body
    resources: Mapping[str, str]  # spec kind → job resource (trainspec:index:NAME; 0.1: class)
    console: Mapping[str, Callable[[str, str], str]]  # spec kind → (name, project) → page URL


TRAINING, TUNING = "TrainingJob", "HyperparameterTuningJob"

PLATFORMS = {p.name: p for p in (
    Platform("vertex", vertex, vertex.API,
             {TRAINING: vertex.SCHEMA, TUNING: vertex.TUNING_SCHEMA},
             {TRAINING: "VertexCustomJob", TUNING: "VertexHyperparameterTuningJob"},
             {TRAINING: jobs.vertex_console_url, TUNING: jobs.tuning_console_url}),
    # On ai-platform a tuning job is a Job like any other.
    Platform("ai-platform", ml, ml.API,
             {TRAINING: ml.SCHEMA, TUNING: ml.SCHEMA},
             {TRAINING: "AiPlatformJob", TUNING: "AiPlatformJob"},
             {TRAINING: jobs.ml_console_url, TUNING: jobs.ml_console_url}),
)}


def body_schema(platform: str, kind: str = TRAINING) -> tuple[str, str]:
    """(discovery API, schema name) of the request a job of `kind` compiles to on `platform`."""
    found = PLATFORMS[platform]
    return found.api, found.bodies[kind]
