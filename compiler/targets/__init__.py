"""One lowering module per API. Each lists its passes as data: RESOLVE (the defaults the API
needs, each with a note; the only place defaults are chosen) then CHECK (pure: what the API
refuses), both run by `prepare`; then `lower(job)`, a pure mapping to the request body."""

from __future__ import annotations

import datetime
from types import ModuleType

from ..diagnostics import Collector
from ..model import Job

# (platform, spec kind) → (discovery document, schema of the create request body).
BODIES = {
    ("vertex", "TrainingJob"): ("aiplatform", "GoogleCloudAiplatformV1CustomJob"),
    ("vertex", "HyperparameterTuningJob"):
        ("aiplatform", "GoogleCloudAiplatformV1HyperparameterTuningJob"),
    ("ai-platform", "TrainingJob"): ("ml", "GoogleCloudMlV1__Job"),
    ("ai-platform", "HyperparameterTuningJob"): ("ml", "GoogleCloudMlV1__Job"),
}


def body_schema(platform: str, kind: str = "TrainingJob") -> tuple[str, str]:
    """(discovery API, schema name) of the request a job of `kind` compiles to on `platform`."""
    return BODIES[(platform, kind)]


def compact(d: dict) -> dict:
    """Drop unset values: absent, empty lists and empty mappings are never sent."""
    return {k: v for k, v in d.items() if v is not None and v != [] and v != {}}


def prepare(target: ModuleType, job: Job, c: Collector, today: datetime.date) -> None:
    """Run `target`'s passes over `job`: resolve, then check."""
    for resolve in target.RESOLVE:
        resolve(job)
    for check in target.CHECK:
        check(job, c, today)
