"""The emulator's HyperparameterTuningJob: the create rules the real API enforces beyond the
discovery schema, and trials that run in waves of `parallelTrialCount` until the job ends.

An oracle, not a mirror: the rules are read from the aiplatform v1 discovery document's own
descriptions (StudySpec, ParameterSpec, ConditionalParameterSpec, the value specs), written
here again, never taken from the compiler's tables.

Time, one step per `progress_seconds` from creation: QUEUED, PENDING, then RUNNING with one
wave of trials per step; SUCCEEDED when the last wave ends. Trials get deterministic parameter
values and one final measurement per metric, so a best trial exists. Labels steer it as for
CustomJobs: ``emulator-hold: running`` keeps the last wave running until cancelled;
``emulator-result: failed`` ends the job FAILED with every trial INFEASIBLE.
"""

from __future__ import annotations

import math
from typing import Any

MAX_TRIALS_RENDERED = 100  # a job may ask for 2^31 trials; the emulator runs this many at most
_VALUE_SPECS = ("doubleValueSpec", "integerValueSpec", "discreteValueSpec", "categoricalValueSpec")
_PARENTS = {"integerValueSpec": "parentIntValues", "discreteValueSpec": "parentDiscreteValues",
            "categoricalValueSpec": "parentCategoricalValues"}
_STOPPING = ("decayCurveStoppingSpec", "medianAutomatedStoppingSpec",
             "convexAutomatedStoppingSpec")
_LOG = ("UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE")
_HPT_ONLY_UNSUPPORTED = "Not supported by HyperparameterTuningJob."


def rules(job: dict) -> list[tuple[str, str]]:
    """Refusals of a HyperparameterTuningJob create, beyond the schema: (snake_case field, text)."""
    out: list[tuple[str, str]] = []
    for field, snake, least in (("maxTrialCount", "max_trial_count", 1),
                                ("parallelTrialCount", "parallel_trial_count", 1),
                                ("maxFailedTrialCount", "max_failed_trial_count", 0)):
        value = job.get(field)
        if value is None and least:
            out.append((snake, "Required."))
        elif value is not None and _int(value) is not None and _int(value) < least:
            out.append((snake, f"Must be at least {least}."))
    study = job.get("studySpec")
    if not isinstance(study, dict):
        return out + [("study_spec", "Required.")]
    metrics = study.get("metrics")
    if not isinstance(metrics, list) or not metrics:
        out.append(("study_spec.metrics", "Required; at least one metric."))
    ids: set = set()
    for i, metric in enumerate(metrics if isinstance(metrics, list) else ()):
        mid = metric.get("metricId") if isinstance(metric, dict) else None
        at = f"study_spec.metrics[{i}].metric_id"
        if not isinstance(mid, str) or not mid:
            out.append((at, "Required."))
        elif any(c.isspace() for c in mid):
            out.append((at, "Must not contain whitespaces."))
        elif mid in ids:
            out.append((at, "Must be unique amongst all MetricSpecs."))
        ids.add(mid)
    if sum(key in study for key in _STOPPING) > 1:
        out.append(("study_spec", "At most one automated stopping spec can be set."))
    if "observationNoise" in study:
        out.append(("study_spec.observation_noise", _HPT_ONLY_UNSUPPORTED))
    params = study.get("parameters")
    if not isinstance(params, list) or not params:
        return out + [("study_spec.parameters", "Required; at least one parameter.")]
    seen: dict[str, list[tuple[Any, list]]] = {}
    kinds: list[str] = []
    for i, param in enumerate(params):
        _parameter(param, f"study_spec.parameters[{i}]", None, [], seen, kinds, out)
    if study.get("algorithm") == "GRID_SEARCH" and "doubleValueSpec" in kinds:
        out.append(("study_spec.algorithm", "To use grid search, all parameters must be "
                    "INTEGER, CATEGORICAL, or DISCRETE."))
    return out


def _parameter(param: Any, at: str, parent: Any, when: list, seen: dict, kinds: list,
               out: list) -> None:
    if not isinstance(param, dict):
        out.append((at, "Must be a ParameterSpec."))
        return
    pid = param.get("parameterId")
    if not isinstance(pid, str) or not pid:
        out.append((f"{at}.parameter_id", "Required."))
    elif any(c.isspace() for c in pid):
        out.append((f"{at}.parameter_id", "Must not contain whitespaces."))
    else:
        for other_parent, other_when in seen.get(pid, ()):
            # Two conditional specs of one parent may share a name with disjoint conditions.
            if parent is None or other_parent is not parent or set(map(str, when)) & set(
                    map(str, other_when)):
                out.append((f"{at}.parameter_id", "Must be unique amongst all ParameterSpecs."))
                break
        seen.setdefault(pid, []).append((parent, when))
    given = [k for k in _VALUE_SPECS if k in param]
    if len(given) != 1:
        out.append((at, "Exactly one of double_value_spec, integer_value_spec, "
                    "discrete_value_spec or categorical_value_spec is required."))
        return
    kind, spec = given[0], param[given[0]]
    kinds.append(kind)
    spec = spec if isinstance(spec, dict) else {}
    where = f"{at}.{_snake(kind)}"
    scale = param.get("scaleType")
    if "defaultValue" in spec:
        out.append((f"{where}.default_value", _HPT_ONLY_UNSUPPORTED))
    low_bound = None
    if kind in ("doubleValueSpec", "integerValueSpec"):
        low, high = _number(spec.get("minValue")), _number(spec.get("maxValue"))
        if low is None or high is None:
            out.append((where, "min_value and max_value are required."))
        elif low > high:
            out.append((where, "min_value must not be greater than max_value."))
        low_bound = low
    elif kind == "discreteValueSpec":
        values = [_number(v) for v in spec.get("values") or ()]
        if not values or None in values:
            out.append((f"{where}.values", "Required; a list of numbers."))
        elif any(b - a < 1e-10 for a, b in zip(values, values[1:])):
            out.append((f"{where}.values", "Must be in increasing order and at least 1e-10 "
                        "apart."))
        elif len(values) > 1000:
            out.append((f"{where}.values", "Must not contain more than 1,000 values."))
        low_bound = min((v for v in values if v is not None), default=None)
    else:
        if not spec.get("values"):
            out.append((f"{where}.values", "Required."))
        if scale not in (None, "SCALE_TYPE_UNSPECIFIED"):
            out.append((f"{at}.scale_type", "Leave unset for CATEGORICAL parameters."))
    if scale in _LOG and low_bound is not None and low_bound <= 0:
        out.append((f"{at}.scale_type", "The entire feasible space must be strictly positive."))
    for j, cond in enumerate(param.get("conditionalParameterSpecs") or ()):
        _condition(param, kind, spec, cond, f"{at}.conditional_parameter_specs[{j}]", seen,
                   kinds, out)


def _condition(parent: dict, kind: str, spec: dict, cond: Any, at: str, seen: dict,
               kinds: list, out: list) -> None:
    if not isinstance(cond, dict):
        out.append((at, "Must be a ConditionalParameterSpec."))
        return
    want = _PARENTS.get(kind)
    given = [k for k in _PARENTS.values() if k in cond]
    if want is None:
        out.append((at, "A DOUBLE parameter cannot have conditional parameter specs."))
    elif given != [want]:
        out.append((at, f"Exactly {_snake(want)} is required for a parent of this type."))
    else:
        values = (cond[want] or {}).get("values") or []
        if not values:
            out.append((f"{at}.{_snake(want)}.values", "Required."))
        for k, value in enumerate(values):
            if not _in_domain(kind, spec, value):
                out.append((f"{at}.{_snake(want)}.values[{k}]", "Must exist in the parent "
                            "parameter's value spec."))
    child = cond.get("parameterSpec")
    if child is None:
        out.append((f"{at}.parameter_spec", "Required."))
        return
    values = ((cond.get(want) or {}).get("values") or []) if want else []
    _parameter(child, f"{at}.parameter_spec", parent, list(values), seen, kinds, out)


def _in_domain(kind: str, spec: dict, value: Any) -> bool:
    if kind == "categoricalValueSpec":
        return value in (spec.get("values") or ())
    number = _number(value)
    if number is None:
        return False
    if kind == "integerValueSpec":
        low, high = _number(spec.get("minValue")), _number(spec.get("maxValue"))
        return number == int(number) and low is not None and high is not None and \
            low <= number <= high
    return any(abs(number - (_number(v) or 0.0)) <= 1e-10 for v in spec.get("values") or ())


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)  # int64 fields arrive as decimal strings
    except (TypeError, ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


def _int(value: Any) -> int | None:
    number = _number(value)
    return int(number) if number is not None and number == int(number) else None


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


# -- trials -----------------------------------------------------------------------------------

def trials(job: dict, times: dict, state: str, now: float, step: float, held: bool,
           failed: bool, cancelled: float | None) -> list[dict]:
    """The trials of a job whose RUNNING phase began at times["start"] (if it did)."""
    if "start" not in times:
        return []
    total = max(1, min(_int(job.get("maxTrialCount")) or 1, MAX_TRIALS_RENDERED))
    parallel = max(1, min(_int(job.get("parallelTrialCount")) or 1, total))
    waves = math.ceil(total / parallel)
    start = times["start"]
    metrics = [m for m in job["studySpec"].get("metrics") or () if isinstance(m, dict)]
    out = []
    for i in range(total):
        wave = i // parallel
        begins, ends = start + wave * step, start + (wave + 1) * step
        if held and wave == waves - 1:
            ends = math.inf
        stop = cancelled if cancelled is not None else math.inf
        if begins > min(now, stop):
            break
        trial: dict[str, Any] = {"id": str(i + 1), "startTime": begins,
                                 "parameters": _values(job["studySpec"].get("parameters"), i)}
        if ends <= min(now, stop):
            trial["endTime"] = ends
            if failed:
                trial.update(state="INFEASIBLE", infeasibleReason="Emulated failure (label "
                             "emulator-result).")
            else:
                trial.update(state="SUCCEEDED", finalMeasurement={"stepCount": "1", "metrics": [
                    {"metricId": m.get("metricId"), "value": _score(i, k)}
                    for k, m in enumerate(metrics)]})
        elif cancelled is not None and now >= cancelled:
            trial.update(state="STOPPING" if now < cancelled + step else "INFEASIBLE")
            if trial["state"] == "INFEASIBLE":
                trial.update(endTime=cancelled + step, infeasibleReason="The job was cancelled.")
        else:
            trial["state"] = "ACTIVE"
        out.append(trial)
    return out


def end_time(job: dict, start: float, step: float) -> float:
    """When the last wave of trials ends (the job then succeeds)."""
    total = max(1, min(_int(job.get("maxTrialCount")) or 1, MAX_TRIALS_RENDERED))
    parallel = max(1, min(_int(job.get("parallelTrialCount")) or 1, total))
    return start + math.ceil(total / parallel) * step


def _score(trial: int, metric: int) -> float:
    # Deterministic and spread over [0, 1): the golden-ratio sequence.
    return round(((trial + 1) * 0.6180339887 + metric * 0.25) % 1.0, 6)


def _values(params: Any, trial: int) -> list[dict]:
    out = []
    for p in params if isinstance(params, list) else ():
        if not isinstance(p, dict):
            continue
        value: Any = None
        if isinstance(p.get("doubleValueSpec"), dict):
            s = p["doubleValueSpec"]
            low, high = _number(s.get("minValue")) or 0.0, _number(s.get("maxValue")) or 0.0
            value = low + (high - low) * _score(trial, 0)
        elif isinstance(p.get("integerValueSpec"), dict):
            s = p["integerValueSpec"]
            low, high = _int(s.get("minValue")) or 0, _int(s.get("maxValue")) or 0
            value = float(low + trial % (high - low + 1)) if high >= low else float(low)
        else:
            spec = p.get("discreteValueSpec") or p.get("categoricalValueSpec") or {}
            values = spec.get("values") or [None]
            value = values[trial % len(values)]
            value = float(value) if isinstance(value, (int, float)) else value
        out.append({"parameterId": p.get("parameterId"), "value": value})
    return out
