"""Decode a tuning search (`spec.tuning`, or the legacy `spec.aiPlatform.hyperparameters`) into
the model of compiler/tuning.py, and check the rules both APIs share.

Each rule's message is written once per syntax (syntax.py): a refusal names the keys
the user wrote, `min`/`scale` in spec.tuning, `minValue`/`scaleType` in an aiPlatform block.
Reads are type-checked: data that broke the schema is skipped here, never a traceback.
Facts (all verified, facts B.7 and [DD-AIP] StudySpec): parameter ids unique; DOUBLE/INTEGER
bounds inclusive, integers whole; log scales need a strictly positive feasible space; scale
unset for CATEGORICAL; discrete values strictly increasing, at most 1000; GRID_SEARCH only with
INTEGER/CATEGORICAL/DISCRETE; conditions only under INTEGER/DISCRETE/CATEGORICAL parents, with
values of the parent's domain. Unverified (so warnings): parallel ≤ max trials, a range of one
value.
"""

from __future__ import annotations

import math
from typing import Any

from .. import durations
from ..diagnostics import Collector
from ..source.jsonpath import child
from ..source.numbers import INT64
from ..source.reads import as_dict, as_int
from .model import (
    ALGORITHMS,
    CONDITIONAL_PARENTS,
    DISCRETE_GAP,
    GOALS,
    KINDS,
    MAX_DISCRETE_VALUES,
    MEASUREMENTS,
    ML_PATH,
    ML_SCALE_NONE,
    ML_TYPES,
    RANGED,
    SCALES,
    SETTINGS,
    SPEC_PATH,
    STOPPING_RULES,
    STUDY_STOPPING,
    Condition,
    Metric,
    Parameter,
    Tuning,
)
from .syntax import error, say, where


def _n(value: Any) -> int | float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return value if ok else None


def _key(value: Any, table: dict) -> Any:
    """`value` if it is one of `table`'s keys (lists and mappings never are), else None."""
    return value if isinstance(value, str) and value in table else None


def _whole(value: Any) -> bool:
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


# -- decoding ---------------------------------------------------------------------------------

def from_spec(raw: dict, c: Collector) -> Tuning:
    """The model of `spec.tuning` (schema-checked data, read defensively)."""
    t = Tuning("spec", SPEC_PATH)
    t.metrics = tuple(Metric(k, _key(v, GOALS), child(f"{SPEC_PATH}.metrics", k))
                      for k, v in as_dict(raw.get("metrics")).items())
    t.parameters = tuple(_spec_parameter(k, v, child(f"{SPEC_PATH}.parameters", k), c)
                         for k, v in as_dict(raw.get("parameters")).items() if isinstance(v, dict))
    t.algorithm = _key(raw.get("algorithm"), ALGORITHMS)
    for setting in ("max_trials", "parallel_trials", "max_failed_trials"):
        setattr(t, setting, as_int(raw.get(SETTINGS[setting][0])))
    stopping = raw.get("earlyStopping")
    if isinstance(stopping, bool):
        t.early_stopping = stopping
    elif isinstance(stopping, dict) and len(stopping) == 1:
        rule, settings = next(iter(stopping.items()))
        if _key(rule, STOPPING_RULES) and isinstance(settings, dict):
            t.stopping = (rule, dict(settings))
    t.measurement = _key(raw.get("measurement"), MEASUREMENTS)
    t.resume_from = raw.get("resumeFrom") if isinstance(raw.get("resumeFrom"), str) else None
    t.study_stopping = _study_stopping(raw.get("studyStopping"), c)
    _study_stopping_bounds(t, c)
    return t


def _study_stopping(raw: Any, c: Collector) -> dict[str, Any] | None:
    """spec.tuning.studyStopping as STUDY_STOPPING key → value (durations in seconds)."""
    if not isinstance(raw, dict):
        return None
    at = f"{SPEC_PATH}.{SETTINGS['study_stopping'][0]}"
    out: dict[str, Any] = {}
    for key, (_, kind) in STUDY_STOPPING.items():
        value = raw.get(key)
        if kind == "duration" and value is not None:
            seconds = durations.parse(value)
            if seconds is None:
                c.error(child(at, key), f"invalid duration {value!r}", "use 90s, 30m, 2h, 1d, "
                        "1h30m or plain seconds", code="duration-syntax")
            elif seconds == 0 or durations.problem(seconds):
                c.error(child(at, key), f"{value!r} is " + (durations.problem(seconds) or
                        "no time: give a duration greater than 0"), code="duration-range")
            else:
                out[key] = seconds
        elif kind == "count" and as_int(value) is not None:
            out[key] = as_int(value)
        elif kind == "flag" and isinstance(value, bool):
            out[key] = value
    return out


# studyStopping's (minimum, maximum) pairs: a minimum above its maximum cannot both hold.
STUDY_BOUNDS = (("minTrials", "maxTrials"), ("minRuntime", "maxRuntime"))
NO_PROGRESS = ("noProgressFor", "noProgressTrials")  # [DD-AIP]: single-objective studies only


def _study_stopping_bounds(t: Tuning, c: Collector) -> None:
    """studyStopping against itself and the job: a minimum above its maximum is an error;
    a trial bound the job's maxTrials never reaches and a no-progress rule of a
    multi-objective study have no effect (warnings: the API accepts them)."""
    rules = t.study_stopping or {}
    at = f"{SPEC_PATH}.{SETTINGS['study_stopping'][0]}"
    for low, high in STUDY_BOUNDS:
        if low in rules and high in rules and rules[low] > rules[high]:
            shown = [durations.human(rules[k]) if k.endswith("Runtime") else rules[k] for k in (low, high)]
            c.error(child(at, low), f"{low} {shown[0]} is more than {high} {shown[1]}: the "
                    "study can never satisfy both", f"lower {low} or raise {high}",
                    code="study-stopping-contradiction")
    for key in ("maxTrials", "minTrials"):
        if key in rules and t.max_trials is not None and rules[key] > t.max_trials:
            c.warning(child(at, key), f"{key} {rules[key]} is more than the job's "
                      f"tuning.maxTrials {t.max_trials}, which ends the study first: it has "
                      "no effect", f"keep {key} at most {t.max_trials}",
                      code="study-stopping-ineffective")
    if len(t.metrics) > 1:
        for key in NO_PROGRESS:
            if key in rules:
                c.warning(child(at, key), f"{key} works for single-objective studies only "
                          f"and this study has {len(t.metrics)} metrics: it has no effect",
                          "drop it, or tune one metric", code="study-stopping-ineffective")


def _spec_parameter(pid: str, raw: dict, path: str, c: Collector) -> Parameter:
    kinds = [k for k in KINDS if k in raw]
    if len(kinds) != 1:
        c.error(path, "give exactly one of double, integer, discrete, categorical" if kinds else
                "no search space", "write double: [min, max], integer: [min, max], "
                "discrete: [values] or categorical: [values]", key=True,
                code="tuning-search-space")
    kind = kinds[0] if len(kinds) == 1 else None
    value = raw.get(kind) if kind else None
    low = high = None
    values: tuple = ()
    if kind in RANGED and isinstance(value, list) and len(value) == 2:
        low, high = _n(value[0]), _n(value[1])
        if kind == "integer" and not all(isinstance(v, int) or _whole(v) for v in (low, high)):
            low = high = None  # refused by the schema (an integer, not a number)
    elif kind == "discrete" and isinstance(value, list):
        values = tuple(v for v in value if _n(v) is not None)
    elif kind == "categorical" and isinstance(value, list):
        values = tuple(v for v in value if isinstance(v, str))
    conditions = []
    for i, cond in enumerate(raw.get("conditional") or () if isinstance(
            raw.get("conditional"), list) else ()):
        if not isinstance(cond, dict):
            continue
        at = f"{path}.conditional[{i}]"
        when = tuple(v for v in cond["when"] if isinstance(v, str) or _n(v) is not None) \
            if isinstance(cond.get("when"), list) else ()
        children = tuple(_spec_parameter(k, v, child(f"{at}.parameters", k), c)
                         for k, v in as_dict(cond.get("parameters")).items() if isinstance(v, dict))
        conditions.append(Condition(when, at, children))
    scale = _key(raw.get("scale"), SCALES)
    return Parameter(pid, kind, path, low, high, values, scale, tuple(conditions))


_ML_KIND = {v: k for k, v in ML_TYPES.items()}
_ML_GOAL = {v: k for k, v in GOALS.items()}
_ML_ALGORITHM = {v: k for k, v in ALGORITHMS.items() if v}
_ML_SCALE = {**{v: k for k, v in SCALES.items()}, "NONE": ML_SCALE_NONE}


def from_ml(raw: dict, c: Collector, path: str = ML_PATH) -> Tuning:
    """The model of an ml v1 HyperparameterSpec written at `path` (`spec.aiPlatform.
    hyperparameters`, or an imported trainingInput), with the shape rules of that syntax
    ([DD-ML] ParameterSpec)."""
    t = Tuning("ml", path)
    tag = raw.get("hyperparameterMetricTag")
    t.metrics = (Metric(tag if isinstance(tag, str) else None,
                        _ML_GOAL.get(_key(raw.get("goal"), _ML_GOAL)),
                        f"{path}.hyperparameterMetricTag"),)
    params = raw.get("params")
    out = []
    for i, p in enumerate(params if isinstance(params, list) else ()):
        if isinstance(p, dict):
            out.append(_ml_parameter(p, f"{path}.params[{i}]", c))
    t.parameters = tuple(out)
    t.algorithm = _ML_ALGORITHM.get(_key(raw.get("algorithm"), _ML_ALGORITHM))
    for setting in ("max_trials", "parallel_trials", "max_failed_trials"):
        setattr(t, setting, as_int(raw.get(SETTINGS[setting][1])))
    stopping = raw.get("enableTrialEarlyStopping")
    t.early_stopping = stopping if isinstance(stopping, bool) else None
    resume = raw.get("resumePreviousJobId")
    t.resume_from = resume if isinstance(resume, str) else None
    return t


def _ml_parameter(p: dict, at: str, c: Collector) -> Parameter:
    written = p.get("type")
    kind = _ML_KIND.get(_key(written, _ML_KIND))
    name = p.get("parameterName") if isinstance(p.get("parameterName"), str) else ""
    low = high = None
    values: tuple = ()
    if kind in RANGED:
        low, high = _n(p.get("minValue")), _n(p.get("maxValue"))
        # Written but not a number: the schema says so at the value, once.
        if "minValue" not in p or "maxValue" not in p:
            c.error(at, f"a {written} parameter needs minValue and maxValue",
                    code="tuning-search-space")
    elif kind == "categorical":
        raw = p.get("categoricalValues")
        if not isinstance(raw, list) or not raw:
            c.error(at, "a CATEGORICAL parameter needs categoricalValues",
                    code="tuning-search-space")
        values = tuple(v for v in raw if isinstance(v, str)) if isinstance(raw, list) else ()
        for key in ("minValue", "maxValue"):
            if key in p:
                c.error(f"{at}.{key}", f"{key} does not apply to a CATEGORICAL parameter",
                        code="tuning-search-space")
    elif kind == "discrete":
        raw = p.get("discreteValues")
        values = tuple(v for v in raw if _n(v) is not None) if isinstance(raw, list) else ()
        if not values:
            c.error(at, "a DISCRETE parameter needs discreteValues", code="tuning-search-space")
    for key in ("minValue", "maxValue", "discreteValues"):
        for i, v in enumerate(p[key] if isinstance(p.get(key), list) else [p.get(key)]):
            _double(v, f"{at}.{key}" + (f"[{i}]" if key == "discreteValues" else ""), c)
    scale = _ML_SCALE.get(_key(p.get("scaleType"), _ML_SCALE))
    return Parameter(name, kind, at, low, high, values, scale)


def _double(value: Any, path: str, c: Collector) -> None:
    """An integer the ml API takes as a double ([DD-ML] ParameterSpec minValue, maxValue,
    discreteValues: format double) is refused if the double is another number (beyond 2**53);
    beyond int64 is refused where it is written (compiler/source/numbers.py)."""
    if not isinstance(value, int) or isinstance(value, bool) or number_problem(value, None):
        return
    if not INT64[0] <= value <= INT64[1] or int(float(value)) == value:
        return
    c.error(path, f"{value} cannot be sent exactly: the API takes it as a double, which reads "
            f"it as {int(float(value))}", f"a double holds every integer up to 2**53 "
            f"({2**53})", code="inexact-number")


def check(t: Tuning, c: Collector) -> None:
    """Report what neither API accepts in `t`."""
    _check_ids(t, c)
    for p in t.parameters:
        _check_parameter(t, p, c)
    if t.algorithm == "grid":
        doubles = [p.id for p in t.all_parameters() if p.kind == "double"]
        if doubles:
            error(c, t.at("algorithm"), say(t, "grid-double", ids=", ".join(map(repr, doubles)),
                                            verb="is" if len(doubles) == 1 else "are"))
    trials, parallel = t.max_trials, t.parallel_trials
    if trials is not None and parallel is not None and parallel > trials:
        code, message = say(t, "parallel", parallel=parallel, trials=trials)
        c.warning(t.at("parallel_trials"), message, code=code)


def _check_ids(t: Tuning, c: Collector) -> None:
    """Ids are unique; the children of one parent may share an id under disjoint conditions
    ([DD-AIP] ParameterSpec.conditionalParameterSpecs)."""
    seen: dict[str, list[tuple[str | None, tuple, str]]] = {}

    def visit(p: Parameter, parent: str | None, when: tuple) -> None:
        for other_parent, other_when, first in seen.get(p.id, ()):
            if parent is None or other_parent != parent or set(when) & set(other_when):
                code, message = say(t, "duplicate-id", id=p.id, first=first)
                c.add(where(t, p, "id"), message, key=t.syntax == "spec", code=code)
                break
        seen.setdefault(p.id, []).append((parent, when, p.path))
        for cond in p.conditions:
            for q in cond.parameters:
                visit(q, p.path, cond.values)

    for p in t.parameters:
        if p.id:
            visit(p, None, ())


def _check_parameter(t: Tuning, p: Parameter, c: Collector) -> None:
    log = p.scale in ("log", "reverse-log")
    if p.kind in RANGED:
        lo, hi = p.low, p.high
        # A number JSON cannot carry (beyond int64, not finite) is refused where it is written
        # (compiler/source/numbers.py); the rules below only read numbers that can be sent.
        bad = [v for v in (lo, hi) if v is not None and number_problem(v, p.kind)]
        if lo is not None and hi is not None and not bad:
            if lo > hi:
                error(c, where(t, p, "range"), say(t, "range-order", low=lo, high=hi))
            elif p.kind == "integer" and not (float(lo).is_integer() and float(hi).is_integer()):
                error(c, where(t, p, "range"), say(t, "whole-bounds"))
            elif lo == hi:
                code, message = say(t, "one-value", low=lo)
                c.warning(where(t, p, "range"), message, code=code)
        if log and lo is not None and lo <= 0:
            error(c, where(t, p, "scale"), say(t, "log-range"))
    elif p.kind == "discrete":
        values = p.values
        bad = [v for v in values if number_problem(v, p.kind)]  # refused where written
        if not bad and any(b <= a for a, b in zip(values, values[1:])):
            error(c, where(t, p, "values"), say(t, "discrete-order"))
        elif not bad and len(values) > MAX_DISCRETE_VALUES:
            error(c, where(t, p, "values"), say(t, "too-many-values", n=len(values)))
        if log and any(v <= 0 for v in values):
            error(c, where(t, p, "scale"), say(t, "log-values"))
    elif p.kind == "categorical" and p.scale is not None:
        error(c, where(t, p, "scale"), say(t, "categorical-scale"))
    for cond in p.conditions:
        if p.kind not in CONDITIONAL_PARENTS:
            if p.kind is not None:
                error(c, cond.path, say(t, "double-parent"))
            continue
        for i, value in enumerate(cond.values):
            problem = parent_value_problem(p, value)
            if problem:
                error(c, f"{cond.path}.when[{i}]", say(t, problem[0], **problem[1]))
        for q in cond.parameters:
            _check_parameter(t, q, c)


def number_problem(value: int | float, kind: str | None) -> str | None:
    """Why a number cannot be sent: not finite, beyond a double, or (integers) beyond int64.
    compiler/source/numbers.py reports each such number where it is written; the rules skip them."""
    if isinstance(value, float):
        return None if math.isfinite(value) else "not a finite number"
    if kind == "integer" and not INT64[0] <= value <= INT64[1]:
        return "outside the int64 range"
    try:
        float(value)
    except OverflowError:
        return "too large for a double"
    return None


def parent_value_problem(p: Parameter, value: Any) -> tuple[str, dict] | None:
    """Why `value` cannot be in a condition on parent `p`, as (MESSAGES key, fields)."""
    fields = {"value": value, "kind": p.kind, "id": p.id}
    if p.kind == "categorical":
        if not isinstance(value, str):
            return "parent-type", {**fields, "what": "a string"}
        if value not in p.values:
            return "parent-domain", {**fields, "domain": ", ".join(p.values)}
        return None
    if _n(value) is None or (p.kind == "integer" and not isinstance(value, int)):
        return "parent-type", {**fields, "what": "a whole number" if p.kind == "integer"
                               else "a number"}
    if number_problem(value, p.kind):
        return None  # refused where it is written (compiler/source/numbers.py)
    if p.kind == "integer":
        if p.low is not None and p.high is not None and not p.low <= value <= p.high:
            return "parent-domain", {**fields, "domain": f"{p.low} to {p.high}"}
    elif not any(abs(value - v) <= DISCRETE_GAP for v in p.values):
        return "parent-domain", {**fields, "domain": ", ".join(map(str, p.values))}
    return None


def inexpressible(t: Tuning, platform: str, c: Collector) -> None:
    """Settings, rules and shapes of `t` that `platform` has no field for: located errors."""
    other = "vertex" if platform == "ai-platform" else "ai-platform"
    column = 1 if platform == "ai-platform" else 2
    for setting, names in SETTINGS.items():
        if names[column] is None and t.is_set(setting):
            c.error(t.at(setting), f"cannot be expressed on {platform} ({other} only)",
                    code="tuning-platform")
    if platform != "ai-platform":
        return
    if t.stopping is not None:
        c.error(f"{t.at('early_stopping')}.{t.stopping[0]}", "ai-platform has no choice of "
                "stopping rule (vertex only)", "write earlyStopping: true, AI Platform's "
                "automated early stopping", code="tuning-platform")
    for p in t.all_parameters():
        for cond in p.conditions:
            c.error(cond.path, "conditional parameters cannot be expressed on ai-platform "
                    "(vertex only)", code="tuning-platform")
    if len(t.metrics) > 1:
        c.error(f"{t.path}.metrics", f"{len(t.metrics)} metrics: ai-platform tunes exactly one "
                "(its hyperparameterMetricTag)", "keep one metric, or compile for vertex",
                code="tuning-platform")
