"""What a gcloud command line asks for: gcloud.py parses it, gcloud_checks.py refuses what
gcloud would."""

from __future__ import annotations

from dataclasses import dataclass, field

VERTEX_COMMAND = ("ai", "custom-jobs", "create")
TUNING_COMMAND = ("ai", "hp-tuning-jobs", "create")
ML_COMMAND = ("ai-platform", "jobs", "submit", "training")


@dataclass
class Invocation:
    """What a gcloud command line asks for."""

    api: str  # "vertex" or "ai-platform"
    track: str  # "ga", "beta" or "alpha"
    tuning: bool = False  # `ai hp-tuning-jobs create` (api "vertex")
    project: str | None = None
    config: str | None = None  # --config FILE, as written
    values: dict[str, object] = field(default_factory=dict)  # flag → parsed value
    job: str | None = None  # ai-platform's JOB argument
    user_args: list[str] | None = None  # ai-platform: the words after `--`

    @property
    def text(self) -> str:
        name = "gcloud " + ("" if self.track == "ga" else self.track + " ")
        command = TUNING_COMMAND if self.tuning else VERTEX_COMMAND if self.api == "vertex" \
            else ML_COMMAND
        return name + " ".join(command)
