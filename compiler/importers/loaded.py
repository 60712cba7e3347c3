"""A loaded job config (sources.py tells its kind): the API request it stands for, and what was
noticed on the way, which every reader of it (sdk.py, flags, ml.py, vertex.py, study.py) fills."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Collector


@dataclass
class Source:
    """A loaded config: its kind, the API request it stands for, and what was noticed."""

    kind: str
    api: str
    request: dict
    collector: Collector
    notes: dict[str, list[str]] = field(default_factory=dict)  # request path → comments
    project: str | None = None
    region: str | None = None
    study: dict | None = None  # the HyperparameterTuningJob fields beside trialJobSpec
    # Local code gcloud would build (local-package-path, --package-path): python.source, and
    # the comments that go with it.
    local_source: str | None = None
    local_notes: list[str] = field(default_factory=list)
    local_staging: tuple[str, str] | None = None  # (gs://BUCKET, where it came from)

    def note(self, path: str, text: str) -> None:
        self.notes.setdefault(path, []).append(text)

    def tuning_request(self) -> dict:
        """A `vertex-hpt` source as the one HyperparameterTuningJob request it stands for."""
        out = {k: v for k, v in self.request.items() if k != "jobSpec"}
        out.update(self.study or {})
        out["trialJobSpec"] = self.request.get("jobSpec")
        return out
