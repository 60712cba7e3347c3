"""Every integer of the spec schema → the API fields it is sent to: one table.

An integer field's bounds are its API formats' range (int32, int64, uint32 in the discovery
documents, `compiler.discovery.integer_range`; the narrowest when it goes to several fields),
narrowed only where a fact says so (`why`). `python -m compiler.schema.completions --write` writes them
into the published schema, so `validate` refuses a value out of range with a located error;
tests/test_schema_docs.py holds every integer of the schema to this table.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import discovery

AIP, ML = "aiplatform", "ml"
_V, _M = "GoogleCloudAiplatformV1", "GoogleCloudMlV1__"


@dataclass(frozen=True)
class Sent:
    """An integer field sent as the API fields `to` ((api, discovery schema, field) each)."""

    to: tuple[tuple[str, str, str], ...]
    minimum: int | None = None  # tighter than the formats, for the reason in `why`
    maximum: int | None = None
    why: str = ""

    def bounds(self) -> tuple[int, int]:
        """(minimum, maximum): the formats' ranges intersected, then the tighter bounds."""
        ranges = [discovery.integer_range(*field) for field in self.to]
        low, high = max(r[0] for r in ranges), min(r[1] for r in ranges)
        return (low if self.minimum is None else max(low, self.minimum),
                high if self.maximum is None else min(high, self.maximum))


_TRIALS = "at least one trial ([DD-ML] maxTrials, maxParallelTrials default 1)"
_FAILED = "a count of trials: 0 lets the service decide ([DD-ML] maxFailedTrials)"
_STEPS = "a count of steps or measurements ([DD-AIP] ConvexAutomatedStoppingSpec)"
_STUDY = "a count of trials: a study stopped at 0 would run none ([DD-AIP] StudyStoppingConfig)"


def _counts(ml: str, vertex: str, minimum: int, why: str) -> Sent:
    return Sent(((ML, _M + "HyperparameterSpec", ml), (AIP, _V + "HyperparameterTuningJob",
                                                       vertex)), minimum, why=why)


def _study(name: str) -> Sent:
    return Sent(((AIP, _V + "StudySpecStudyStoppingConfig", name),), 1, why=_STUDY)


def _convex(name: str) -> Sent:
    return Sent(((AIP, _V + "StudySpecConvexAutomatedStoppingSpec", name),), 0, why=_STEPS)


_INTEGER_VALUES = Sent(((AIP, _V + "StudySpecParameterSpecIntegerValueSpec", "minValue"),
                        (AIP, _V + "StudySpecParameterSpecIntegerValueSpec", "maxValue")))

# JSON pointer into the schema → where the integer goes, or why it is no API integer.
FIELDS: dict[str, Sent | str] = {
    "/properties/metadata/properties/run": "no API field: written into the job's name and a "
                                           "label as text (a JSON-safe integer)",
    "/properties/spec/properties/scheduling/properties/priority": Sent(
        ((ML, _M + "Scheduling", "priority"),), 0, 1000,
        "[DD-ML] Scheduling.priority: int32 in [0, 1000]"),
    "/$defs/duration": "a duration, sent as a google-duration string",
    "/$defs/args/items": "an argument, sent as a string",
    "/$defs/env/additionalProperties": "an environment value, sent as a string",
    "/$defs/accelerator/properties/count": Sent(
        ((AIP, _V + "MachineSpec", "acceleratorCount"), (ML, _M + "AcceleratorConfig", "count")),
        1, why="an accelerator block names at least one (no accelerator: leave it out)"),
    "/$defs/disk/properties/sizeGb": Sent(
        ((AIP, _V + "DiskSpec", "bootDiskSizeGb"), (ML, _M + "DiskConfig", "bootDiskSizeGb")),
        100, 64000, "[CC], [DD-AIP] bootDiskSizeGb: 100 to 64,000 inclusive"),
    "/$defs/pool/properties/replicas": Sent(
        ((AIP, _V + "WorkerPoolSpec", "replicaCount"), (ML, _M + "TrainingInput", "workerCount"),
         (ML, _M + "TrainingInput", "parameterServerCount"),
         (ML, _M + "TrainingInput", "evaluatorCount")),
        1, why="a pool runs at least one replica (no replicas: leave the pool out)"),
    "/$defs/hyperparameters/properties/maxTrials": _counts("maxTrials", "maxTrialCount", 1,
                                                           _TRIALS),
    "/$defs/hyperparameters/properties/maxParallelTrials": _counts(
        "maxParallelTrials", "parallelTrialCount", 1, _TRIALS),
    "/$defs/hyperparameters/properties/maxFailedTrials": _counts(
        "maxFailedTrials", "maxFailedTrialCount", 0, _FAILED),
    "/$defs/tuningParameter/properties/integer/items": _INTEGER_VALUES,
    "/$defs/tuningLeafParameter/properties/integer/items": _INTEGER_VALUES,
    "/$defs/tuning/properties/maxTrials": _counts("maxTrials", "maxTrialCount", 1, _TRIALS),
    "/$defs/tuning/properties/parallelTrials": _counts("maxParallelTrials", "parallelTrialCount",
                                                       1, _TRIALS),
    "/$defs/tuning/properties/maxFailedTrials": _counts("maxFailedTrials", "maxFailedTrialCount",
                                                        0, _FAILED),
    "/$defs/tuning/properties/earlyStopping/properties/convex/properties/maxStepCount":
        _convex("maxStepCount"),
    "/$defs/tuning/properties/earlyStopping/properties/convex/properties/minStepCount":
        _convex("minStepCount"),
    "/$defs/tuning/properties/earlyStopping/properties/convex/properties/minMeasurementCount":
        _convex("minMeasurementCount"),
    "/$defs/tuning/properties/studyStopping/properties/noProgressTrials":
        _study("maxNumTrialsNoProgress"),
    "/$defs/tuning/properties/studyStopping/properties/maxTrials": _study("maxNumTrials"),
    "/$defs/tuning/properties/studyStopping/properties/minTrials": _study("minNumTrials"),
}
