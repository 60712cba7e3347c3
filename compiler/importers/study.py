"""The search of a tuning job → `spec.tuning`: a Vertex HyperparameterTuningJob's studySpec and
trial counts (the inverse of targets/vertex.py `study_spec`), or an ml v1 HyperparameterSpec
(the inverse of targets/ml.py `hyperparameters`). Both go through the tuning model and
`compiler.tuning.to_spec`, the one writer of spec.tuning.
"""

from __future__ import annotations

import math
from typing import Any

from .. import durations
from ..diagnostics import Collector
from ..tuning import rules as tuning_rules
from ..tuning.model import (
    ALGORITHMS,
    GOALS,
    MEASUREMENTS,
    ML_DEFAULT_COUNTS,
    ML_DEFAULT_METRIC_TAG,
    ML_SCALE_NONE,
    PARENT_VALUES,
    RANGED,
    SCALES,
    SETTINGS,
    STOPPING_RULES,
    STUDY_STOPPING,
    VALUE_SPECS,
    Condition,
    Metric,
    Parameter,
    Tuning,
    to_spec,
)
from .sources import Source
from .spec import Draft, as_int

# HyperparameterTuningJob field → model setting (the trial counts; the rest is studySpec).
COUNTS = {SETTINGS[s][2]: s for s in ("max_trials", "parallel_trials", "max_failed_trials")}
OUTPUT_ONLY = {"name", "state", "createTime", "startTime", "endTime", "updateTime", "error",
               "trials", "satisfiesPzs", "satisfiesPzi"}
STUDY_KNOWN = {"metrics", "parameters", "algorithm", "measurementSelectionType",
               "studyStoppingConfig", *STOPPING_RULES.values()}
_GOAL = {v: k for k, v in GOALS.items()}
_ALGORITHM = {v: k for k, v in ALGORITHMS.items() if v}
_MEASUREMENT = {v: k for k, v in MEASUREMENTS.items()}
_SCALE = {v: k for k, v in SCALES.items()}
_RULE = {v: k for k, v in STOPPING_RULES.items()}
_KIND = {v: k for k, v in VALUE_SPECS.items()}
_UNSET = ("GOAL_TYPE_UNSPECIFIED", "ALGORITHM_UNSPECIFIED", "SCALE_TYPE_UNSPECIFIED",
          "MEASUREMENT_SELECTION_TYPE_UNSPECIFIED")


def from_ml(src: Source, hp: dict, d: Draft) -> None:
    """spec.tuning from `trainingInput.hyperparameters`, the ml defaults written out."""
    t = tuning_rules.from_ml(_numbers(hp, d), src.collector, "$.trainingInput.hyperparameters")
    d.set("spec.tuning", to_spec(t))
    metric = t.metrics[0]
    if metric.id is None:
        d.comment("spec.tuning.metrics", "no hyperparameterMetricTag in the source: the API "
                  f"default {ML_DEFAULT_METRIC_TAG!r}, the tag hypertune reports by default")
    if metric.goal is None:
        d.comment("spec.tuning.metrics", "no goal in the source: the API default MAXIMIZE")
    for setting, value in ML_DEFAULT_COUNTS.items():
        if getattr(t, setting) is None:
            d.comment(f"spec.tuning.{SETTINGS[setting][0]}", f"no {SETTINGS[setting][1]} in "
                      f"the source: the API default {value}, written out (Vertex requires it)")
    if any(p.scale == ML_SCALE_NONE for p in t.parameters):
        d.comment("spec.tuning.parameters", "scaleType NONE in the source: no scale (the same)")


def _numbers(hp: dict, d: Draft) -> dict:
    """`hp` with numbers written as text (YAML 1.1 reads 5e10 so) read as numbers, as proto3
    JSON parsing does for double fields: what gcloud sends is a number."""
    params = hp.get("params")
    if not isinstance(params, list):
        return hp
    fixed = []
    for p in params:
        if isinstance(p, dict):
            p = dict(p)
            for key in ("minValue", "maxValue"):
                if _text_number(p.get(key)) is not None:
                    d.comment("spec.tuning.parameters", f"{p.get('parameterName')}: {key} "
                              f"{p[key]!r} is text in the source: read as a number, as gcloud "
                              "sends it")
                    p[key] = _text_number(p[key])
        fixed.append(p)
    return {**hp, "params": fixed}


def _text_number(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def from_vertex(src: Source, d: Draft) -> None:
    """spec.tuning from the HyperparameterTuningJob fields beside trialJobSpec (`src.study`)."""
    study, c = src.study or {}, src.collector
    t = Tuning("spec", "$")
    for key, value in study.items():
        if key in OUTPUT_ONLY:
            d.comment("spec", f"output-only field {key!r} of the source not imported")
        elif key in COUNTS:
            setattr(t, COUNTS[key], as_int(value))
        elif key != "studySpec":
            c.error(f"$.{key}", f"unknown HyperparameterTuningJob field {key!r}",
                    code="import-unknown-field")
    spec = study.get("studySpec")
    if isinstance(spec, dict):
        _no_key(spec, STUDY_KNOWN, "$.studySpec", "StudySpec", c)
    else:
        c.error("$.studySpec", "studySpec must be a mapping (a StudySpec)", code="import-shape")
        return
    t.metrics = tuple(_metric(m, f"$.studySpec.metrics[{i}]", c, d)
                      for i, m in enumerate(_list(spec, "metrics", "$.studySpec", c)))
    t.parameters = tuple(_parameter(p, f"$.studySpec.parameters[{i}]", c, d, True)
                         for i, p in enumerate(_list(spec, "parameters", "$.studySpec", c)))
    t.algorithm = _enum(spec.get("algorithm"), _ALGORITHM, "$.studySpec.algorithm", c)
    t.measurement = _enum(spec.get("measurementSelectionType"), _MEASUREMENT,
                          "$.studySpec.measurementSelectionType", c)
    rules = [k for k in spec if k in _RULE]
    if len(rules) > 1:
        c.error("$.studySpec", "more than one automated stopping spec: Vertex takes one",
                code="import-unsupported")
    elif rules:
        settings = spec[rules[0]]
        if not isinstance(settings, dict):
            c.error(f"$.studySpec.{rules[0]}", f"{rules[0]} must be a mapping",
                    code="import-shape")
        else:
            t.stopping = (_RULE[rules[0]], {k: as_int(v) for k, v in settings.items()})
    t.study_stopping = _study_stopping(spec.get("studyStoppingConfig"), c)
    for setting in ("max_trials", "parallel_trials"):
        key, _, field = SETTINGS[setting]
        if getattr(t, setting) is None:
            setattr(t, setting, 1)
            d.comment(f"spec.tuning.{key}", f"no {field} in the source: 1, gcloud's default "
                      f"(--{field.replace('Count', '-count').replace('Trial', '-trial')}); the "
                      "API requires it")
    d.set("spec.tuning", to_spec(t), src.notes.get("$.studySpec"))
    for setting in ("max_trials", "parallel_trials", "algorithm"):
        field = SETTINGS[setting][2]
        for note in src.notes.get(f"$.{field}", ()):
            d.comment(f"spec.tuning.{SETTINGS[setting][0]}", note)


def _study_stopping(config: Any, c: Collector) -> dict[str, Any] | None:
    """spec.tuning.studyStopping from a StudyStoppingConfig, by STUDY_STOPPING's rows."""
    if config is None:
        return None
    at = "$.studySpec.studyStoppingConfig"
    if not isinstance(config, dict):
        c.error(at, "studyStoppingConfig must be a mapping", code="import-shape")
        return None
    fields = {f: (k, kind) for k, (f, kind) in STUDY_STOPPING.items()}
    out: dict[str, Any] = {}
    for name, value in config.items():
        inner = value.items() if isinstance(value, dict) and name.endswith("Constraint") \
            else [(None, value)]
        for leaf, v in inner:
            field = f"{name}.{leaf}" if leaf else name
            if field not in fields:
                c.error(f"{at}.{field}", f"StudyStoppingConfig field {field!r} has no trainspec "
                        "key", code="import-unknown-field")
                continue
            key, kind = fields[field]
            read = durations.parse(v.removesuffix("s") if isinstance(v, str) else None) \
                if kind == "duration" else as_int(v) if kind == "count" else v
            if read is None:
                c.error(f"{at}.{field}", f"{v!r} is not a {kind}", code="import-shape")
            else:
                out[key] = read
    return out


def _no_key(value: dict, known: Any, at: str, message: str, c: Collector) -> None:
    """Refuse the fields of `value` (a `message`, e.g. StudySpec) that spec.tuning cannot say."""
    for key in value:
        if key not in known:
            c.error(f"{at}.{key}", f"{message} field {key!r} has no trainspec key",
                    "HyperparameterTuningJob does not support it" if key == "observationNoise"
                    else None, code="import-unknown-field")


def _list(spec: dict, key: str, at: str, c: Collector) -> list:
    value = spec.get(key)
    if not isinstance(value, list) or not value:
        c.error(f"{at}.{key}", f"{key} must be a non-empty list", code="import-shape")
        return []
    return value


def _enum(value: Any, table: dict, at: str, c: Collector) -> str | None:
    if value is None or value in _UNSET:
        return None
    if not isinstance(value, str) or value not in table:
        c.error(at, f"unknown value {value!r}", code="import-enum-value")
        return None
    return table[value]


def _metric(m: Any, at: str, c: Collector, d: Draft) -> Metric:
    if not isinstance(m, dict) or not isinstance(m.get("metricId"), str):
        c.error(at, "a metric needs metricId", code="import-required-field")
        return Metric("", "maximize", at)
    _no_key(m, ("metricId", "goal"), at, "MetricSpec", c)
    goal = _enum(m.get("goal"), _GOAL, f"{at}.goal", c)
    if goal is None:
        d.comment("spec.tuning.metrics", f"{m['metricId']}: no goal in the source (Vertex "
                  "reads GOAL_TYPE_UNSPECIFIED as maximize)")
    return Metric(m["metricId"], goal or "maximize", at)


def _parameter(p: Any, at: str, c: Collector, d: Draft, top: bool) -> Parameter:
    if not isinstance(p, dict) or not isinstance(p.get("parameterId"), str):
        c.error(at, "a parameter needs parameterId", code="import-required-field")
        return Parameter("", None, at)
    _no_key(p, {"parameterId", "scaleType", "conditionalParameterSpecs", *VALUE_SPECS.values()},
            at, "ParameterSpec", c)
    given = [k for k in VALUE_SPECS.values() if k in p]
    if len(given) != 1:
        c.error(at, "a parameter needs exactly one of doubleValueSpec, integerValueSpec, "
                "discreteValueSpec, categoricalValueSpec", code="import-required-field")
        return Parameter(p["parameterId"], None, at)
    kind, spec = _KIND[given[0]], p[given[0]] if isinstance(p[given[0]], dict) else {}
    if "defaultValue" in spec:
        c.error(f"{at}.{given[0]}.defaultValue", "defaultValue is not supported by "
                "HyperparameterTuningJob (Vertex AI Vizier only)", code="import-unsupported")
    low = high = None
    values: tuple = ()
    if kind in RANGED:
        low, high = _number(spec.get("minValue"), kind), _number(spec.get("maxValue"), kind)
    else:
        values = tuple(_number(v, kind) for v in spec.get("values") or ())
    scale = _enum(p.get("scaleType"), _SCALE, f"{at}.scaleType", c)
    if p.get("scaleType") == "SCALE_TYPE_UNSPECIFIED":
        d.comment("spec.tuning.parameters", f"{p['parameterId']}: scaleType "
                  "SCALE_TYPE_UNSPECIFIED in the source: no scale (the same)")
    conditions: list[Condition] = []
    for j, cond in enumerate(p.get("conditionalParameterSpecs") or ()):
        where = f"{at}.conditionalParameterSpecs[{j}]"
        if not top:
            c.error(where, "a conditional parameter with conditions of its own: trainspec "
                    "takes one level of conditional parameters", code="import-unsupported")
            continue
        parents = [k for k in PARENT_VALUES.values() if isinstance(cond, dict) and k in cond]
        if len(parents) != 1 or not isinstance(cond.get("parameterSpec"), dict):
            c.error(where, "a conditional parameter needs parameterSpec and one parent*Values",
                    code="import-required-field")
            continue
        when = tuple(_number(v, kind) for v in (cond[parents[0]] or {}).get("values") or ())
        child = _parameter(cond["parameterSpec"], f"{where}.parameterSpec", c, d, False)
        # Consecutive specs under the same values form one `when` group (order kept).
        if conditions and conditions[-1].values == when and \
                all(q.id != child.id for q in conditions[-1].parameters):
            last = conditions.pop()
            conditions.append(Condition(when, last.path, last.parameters + (child,)))
        else:
            conditions.append(Condition(when, where, (child,)))
    return Parameter(p["parameterId"], kind, at, low, high, values, scale, tuple(conditions))


def _number(value: Any, kind: str) -> Any:
    """An integer parameter's values as numbers (int64 arrives as a decimal string, "32")."""
    if kind != "integer":
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return value
    return int(value) if isinstance(value, float) and value.is_integer() else value
