"""Hyperparameter tuning: one model for `spec.tuning` (kind HyperparameterTuningJob) and the
legacy `spec.aiPlatform.hyperparameters`, the tables naming each setting on both APIs, and
`to_spec`, the model written back as `spec.tuning`.

Decoding and the platform-neutral rules are in rules.py; lowering is in the targets
(targets/vertex.py: studySpec; targets/ml.py: trainingInput.hyperparameters); the
importers read the same tables backwards. Facts: [DD-AIP] HyperparameterTuningJob, StudySpec,
StudySpec.ParameterSpec, ConditionalParameterSpec; [DD-ML] HyperparameterSpec, ParameterSpec
(facts B.7).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..durations import human

KIND = "HyperparameterTuningJob"
SPEC_PATH, ML_PATH = "$.spec.tuning", "$.spec.aiPlatform.hyperparameters"
KINDS = ("double", "integer", "discrete", "categorical")  # spec key = model kind
RANGED = ("double", "integer")  # [min, max]; the others list their values
CONDITIONAL_PARENTS = ("integer", "discrete", "categorical")  # [DD-AIP] ConditionalParameterSpec

# Spec value → API enum; the same enum names on both APIs.
GOALS = {"maximize": "MAXIMIZE", "minimize": "MINIMIZE"}
SCALES = {"linear": "UNIT_LINEAR_SCALE", "log": "UNIT_LOG_SCALE",
          "reverse-log": "UNIT_REVERSE_LOG_SCALE"}
ML_SCALE_NONE = "none"  # ml `scaleType: NONE`: only from aiPlatform.hyperparameters, sent as NONE
ALGORITHMS = {"bayesian": None, "grid": "GRID_SEARCH", "random": "RANDOM_SEARCH"}  # None: unset
ML_TYPES = {"double": "DOUBLE", "integer": "INTEGER", "discrete": "DISCRETE",
            "categorical": "CATEGORICAL"}
# Vertex only.
VALUE_SPECS = {"double": "doubleValueSpec", "integer": "integerValueSpec",
               "discrete": "discreteValueSpec", "categorical": "categoricalValueSpec"}
PARENT_VALUES = {"integer": "parentIntValues", "discrete": "parentDiscreteValues",
                 "categorical": "parentCategoricalValues"}
MEASUREMENTS = {"last": "LAST_MEASUREMENT", "best": "BEST_MEASUREMENT"}
STOPPING_RULES = {"decayCurve": "decayCurveStoppingSpec", "median": "medianAutomatedStoppingSpec",
                  "convex": "convexAutomatedStoppingSpec"}
# What `earlyStopping: true` (AI Platform's on/off switch) becomes on Vertex, which asks for a
# rule: the decay-curve rule with its defaults. A choice, not a documented equivalence: a
# warning says so and how to choose (targets/vertex.py).
DEFAULT_STOPPING_RULE = "decayCurve"
CONVEX_INT64 = ("maxStepCount", "minStepCount", "minMeasurementCount")  # strings in the body
ML_DEFAULT_METRIC_TAG = "training/hptuning/metric"  # [DD-ML] hyperparameterMetricTag default
ML_DEFAULT_COUNTS = {"max_trials": 1, "parallel_trials": 1}  # [DD-ML] maxTrials, maxParallelTrials
MAX_DISCRETE_VALUES = 1000  # [DD-AIP] DiscreteValueSpec.values, [DD-ML] discreteValues
DISCRETE_GAP = 1e-10  # [DD-AIP] DiscreteValueSpec.values: "at least 1e-10 apart"

# Each setting beside metrics and parameters: (spec.tuning key, ml HyperparameterSpec field,
# Vertex field: a HyperparameterTuningJob field, or studySpec.<field>). None: that API has no
# such setting, so a spec that sets it is refused there with a located error.
SETTINGS = {
    "max_trials": ("maxTrials", "maxTrials", "maxTrialCount"),
    "parallel_trials": ("parallelTrials", "maxParallelTrials", "parallelTrialCount"),
    "max_failed_trials": ("maxFailedTrials", "maxFailedTrials", "maxFailedTrialCount"),
    "algorithm": ("algorithm", "algorithm", "studySpec.algorithm"),
    "early_stopping": ("earlyStopping", "enableTrialEarlyStopping", "studySpec.*StoppingSpec"),
    "measurement": ("measurement", None, "studySpec.measurementSelectionType"),
    "resume_from": ("resumeFrom", "resumePreviousJobId", None),
    "study_stopping": ("studyStopping", None, "studySpec.studyStoppingConfig"),
}
# spec.tuning.studyStopping key → (studySpec.studyStoppingConfig field, its kind): when the
# whole study stops. [DD-AIP] GoogleCloudAiplatformV1StudySpecStudyStoppingConfig (since rev
# 20240510; its text is Vertex AI Vizier's: whether a HyperparameterTuningJob honours it is not
# documented, so it is sent with a warning, targets/vertex_check.py). The two runtime bounds
# are StudyTimeConstraint.maxDuration (its endTime, a wall-clock instant, has no spec key).
STUDY_STOPPING = {
    "noProgressFor": ("maxDurationNoProgress", "duration"),
    "noProgressTrials": ("maxNumTrialsNoProgress", "count"),
    "maxTrials": ("maxNumTrials", "count"),
    "minTrials": ("minNumTrials", "count"),
    "maxRuntime": ("maximumRuntimeConstraint.maxDuration", "duration"),
    "minRuntime": ("minimumRuntimeConstraint.maxDuration", "duration"),
    "stopAsap": ("shouldStopAsap", "flag"),
}


@dataclass(frozen=True)
class Metric:
    id: str | None  # None: aiPlatform.hyperparameters without hyperparameterMetricTag
    goal: str | None  # maximize | minimize; None: aiPlatform.hyperparameters without goal
    path: str


@dataclass(frozen=True)
class Parameter:
    id: str
    kind: str | None  # one of KINDS; None when the spec names none (already reported)
    path: str  # JSON path of the parameter
    low: Any = None  # double / integer: the inclusive bounds, as written
    high: Any = None
    values: tuple = ()  # discrete numbers or categorical strings, as written
    scale: str | None = None  # a SCALES key, or ML_SCALE_NONE
    conditions: tuple[Condition, ...] = ()

    def walk(self):
        """This parameter, then its conditional children, depth first."""
        yield self
        for cond in self.conditions:
            for p in cond.parameters:
                yield from p.walk()


@dataclass(frozen=True)
class Condition:
    """Parameters searched only when the parent parameter takes one of `values`."""

    values: tuple
    path: str  # JSON path of the condition (its `when` list is at path + ".when")
    parameters: tuple[Parameter, ...] = ()


@dataclass
class Tuning:
    """The search of a tuning job, from either syntax (`syntax`: "spec" or "ml")."""

    syntax: str
    path: str
    metrics: tuple[Metric, ...] = ()
    parameters: tuple[Parameter, ...] = ()
    algorithm: str | None = None  # an ALGORITHMS key
    max_trials: int | None = None
    parallel_trials: int | None = None
    max_failed_trials: int | None = None
    early_stopping: bool | None = None  # the on/off switch (ml enableTrialEarlyStopping)
    stopping: tuple[str, dict] | None = None  # (STOPPING_RULES key, its settings): Vertex rules
    measurement: str | None = None  # a MEASUREMENTS key
    resume_from: str | None = None
    # studyStopping: STUDY_STOPPING key → its value (a duration in seconds, a count, a flag)
    study_stopping: dict[str, Any] | None = None

    def at(self, setting: str) -> str:
        """The JSON path of a SETTINGS entry in this tuning's own syntax."""
        spec_key, ml_key, _ = SETTINGS[setting]
        return f"{self.path}.{spec_key if self.syntax == 'spec' else ml_key}"

    def is_set(self, setting: str) -> bool:
        if setting == "early_stopping":
            return self.early_stopping is not None or self.stopping is not None
        return getattr(self, setting) is not None

    def all_parameters(self):
        for p in self.parameters:
            yield from p.walk()


# -- the model as spec.tuning ---------------------------------------------------------------

def to_spec(t: Tuning) -> dict:
    """`spec.tuning` data meaning `t`. The ml syntax's defaults are written out: the metric
    tag, the goal and the trial counts ([DD-ML] HyperparameterSpec: one trial, one at a time),
    which spec.tuning needs explicitly because Vertex requires them."""
    out: dict[str, Any] = {"metrics": {m.id or ML_DEFAULT_METRIC_TAG: m.goal or "maximize"
                                       for m in t.metrics}}
    out["parameters"] = {p.id: parameter_spec(p) for p in t.parameters}
    for setting in SETTINGS:
        key = SETTINGS[setting][0]
        if setting in ML_DEFAULT_COUNTS and getattr(t, setting) is None and t.syntax == "ml":
            out[key] = ML_DEFAULT_COUNTS[setting]
        elif setting == "early_stopping":
            if t.stopping is not None:
                out[key] = {t.stopping[0]: dict(t.stopping[1])}
            elif t.early_stopping is not None:
                out[key] = t.early_stopping
        elif setting == "study_stopping" and t.study_stopping is not None:
            out[key] = {k: human(v) if STUDY_STOPPING[k][1] == "duration" else v
                        for k, v in t.study_stopping.items()}
        elif getattr(t, setting) is not None:
            out[key] = getattr(t, setting)
    return out


def parameter_spec(p: Parameter) -> dict:
    out: dict[str, Any] = {}
    if p.kind in RANGED:
        out[p.kind] = [p.low, p.high]
    elif p.kind is not None:
        out[p.kind] = list(p.values)
    if p.scale is not None and p.scale != ML_SCALE_NONE:
        out["scale"] = p.scale
    if p.conditions:
        out["conditional"] = [{"when": list(c.values),
                               "parameters": {q.id: parameter_spec(q) for q in c.parameters}}
                              for c in p.conditions]
    return out


# -- summaries for `explain` and `diff` -----------------------------------------------------

def grid_points(t: Tuning) -> int | None:
    """How many distinct trials a grid search can run; None if a parameter is continuous."""
    total = 1
    for p in t.parameters:
        n = _points(p)
        if n is None:
            return None
        total *= n
    return total


def _points(p: Parameter) -> int | None:
    if p.kind == "integer" and _whole(p.low) and _whole(p.high):
        size = max(0, int(p.high) - int(p.low) + 1)
    elif p.kind in ("discrete", "categorical"):
        size = len(p.values)
    else:
        return None
    # A value with active conditional children counts once per combination of theirs.
    extra: dict[Any, int] = {}
    for cond in p.conditions:
        for v in dict.fromkeys(cond.values):
            n = extra.get(v, 1)
            for child in cond.parameters:
                m = _points(child)
                if m is None:
                    return None
                n *= m
            extra[v] = n
    return size - len(extra) + sum(extra.values())


def describe(p: Parameter) -> str:
    """One parameter's search space in words: "double [0.0001, 0.1], log scale"."""
    if p.kind in RANGED:
        text = f"{p.kind} [{_num(p.low)}, {_num(p.high)}]"
        if p.kind == "integer" and _whole(p.low) and _whole(p.high):
            text += f" ({max(0, int(p.high) - int(p.low) + 1)} values)"
    else:
        shown = ", ".join(_num(v) for v in p.values[:8]) + (", …" if len(p.values) > 8 else "")
        text = f"{p.kind or '?'} [{shown}] ({len(p.values)} values)"
    if p.scale and p.scale != ML_SCALE_NONE:
        text += f", {p.scale} scale"
    return text


def summary(t: Tuning) -> list[str]:
    """The search in a few lines: metrics, budget, algorithm, one line per parameter."""
    metrics = ", ".join(f"{m.id or ML_DEFAULT_METRIC_TAG} ({m.goal or 'maximize'})"
                        for m in t.metrics)
    budget = [f"{t.max_trials if t.max_trials is not None else '?'} trials"]
    if t.parallel_trials is not None:
        budget.append(f"{t.parallel_trials} in parallel")
    if t.max_failed_trials is not None:
        budget.append(f"stop after {t.max_failed_trials} failed" if t.max_failed_trials
                      else "failures: the service decides")
    algorithm = t.algorithm or "bayesian"
    lines = [f"metrics     {metrics}", f"search      {algorithm}, " + ", ".join(budget)]
    points = grid_points(t)
    grid = f"{points}" if points is not None else "unbounded (a double parameter)"
    if points is not None and t.max_trials is not None and t.max_trials > points:
        grid += f" (fewer than the {t.max_trials} trials asked for)"
    lines.append("grid points " + grid)
    width = max((len(p.id) for p in t.all_parameters()), default=0)
    for i, p in enumerate(t.parameters):
        head = "parameters  " if i == 0 else " " * 12
        lines.append(f"{head}{p.id:<{width}}  {describe(p)}")
        for cond in p.conditions:
            when = ", ".join(_num(v) for v in cond.values)
            for q in cond.parameters:
                lines.append(f"{'':12}  if {p.id} in [{when}]: {q.id} {describe(q)}")
    stopping = (f"{t.stopping[0]} rule" if t.stopping else
                "on" if t.early_stopping else "off" if t.early_stopping is False else None)
    extras = [f"early stopping {stopping}" if stopping else "",
              f"measurement {t.measurement}" if t.measurement else "",
              f"resumes {t.resume_from}" if t.resume_from else "",
              "study stops on " + ", ".join(t.study_stopping) if t.study_stopping else ""]
    if any(extras):
        lines.append("options     " + ", ".join(e for e in extras if e))
    return lines


def _whole(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)
                                      and value.is_integer())


def _num(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)
