"""How a tuning rule speaks in each syntax: its message in the words of `spec.tuning`
(`min`, `scale`) or of an aiPlatform block (`minValue`, `scaleType`), with its rule code from
compiler/rules.py, and where a part of a parameter is written in each."""

from __future__ import annotations

from typing import Any

from ..diagnostics import Collector
from .model import Parameter, Tuning

# message → (rule code, message in spec.tuning words, message in aiPlatform.hyperparameters
# words)
MESSAGES = {
    "duplicate-id": ("tuning-parameter-id", "duplicate parameter id {id!r} (also at {first})",
                     "duplicate parameterName {id!r}"),
    "range-order": ("tuning-range-order", "min {low} is greater than max {high}",
                    "minValue {low} is greater than maxValue {high}"),
    "whole-bounds": ("tuning-integer-bounds", "an integer parameter needs whole bounds",
                     "an INTEGER parameter needs whole minValue and maxValue"),
    "one-value": ("tuning-single-value", "a range of one value ({low}): the parameter is not "
                  "searched; pass it as an argument instead",
                  "minValue equals maxValue ({low}): the parameter is not searched; pass it as "
                  "an argument instead"),
    "log-range": ("tuning-log-scale", *("a log scale needs a strictly positive range",) * 2),
    "log-values": ("tuning-log-scale", *("a log scale needs strictly positive values",) * 2),
    "categorical-scale": ("tuning-categorical-scale",
                          "scale does not apply to a categorical parameter",
                          "scaleType does not apply to a CATEGORICAL parameter"),
    "discrete-order": ("tuning-discrete-order", "discrete values must be strictly increasing",
                       "discreteValues must be strictly increasing"),
    "too-many-values": ("tuning-discrete-count", *("{n} values: at most 1000",) * 2),
    "grid-double": ("tuning-grid", "grid search needs integer, discrete or categorical "
                    "parameters only, and {ids} {verb} double",
                    "GRID_SEARCH needs INTEGER, CATEGORICAL or DISCRETE parameters only"),
    "parallel": ("tuning-parallel-trials",
                 *("{parallel} parallel trials but only {trials} trials in all",) * 2),
    "double-parent": ("tuning-conditional-parent", *("a double parameter cannot have "
                      "conditional parameters: only integer, discrete and categorical ones "
                      "can",) * 2),
    "parent-type": ("tuning-condition-value",
                    *("{value!r} is not {what}, a value of the {kind} parameter {id!r}",) * 2),
    "parent-domain": ("tuning-condition-value",
                      *("{value!r} is not one of the values of {id!r} ({domain})",) * 2),
}


def say(t: Tuning, message: str, **kw: Any) -> tuple[str, str]:
    """(rule code, message) in the words of `t`'s syntax."""
    code, spec, ml = MESSAGES[message]
    return code, (spec if t.syntax == "spec" else ml).format(**kw)


def error(c: Collector, path: str, said: tuple[str, str]) -> None:
    code, message = said
    c.error(path, message, code=code)


def where(t: Tuning, p: Parameter, part: str) -> str:
    """The JSON path of a part of `p` ("range", "values", "scale", "id") in its syntax."""
    if t.syntax == "spec":
        return {"range": f"{p.path}.{p.kind}", "values": f"{p.path}.{p.kind}",
                "scale": f"{p.path}.scale", "id": p.path}[part]
    return {"range": p.path, "values": f"{p.path}.discreteValues",
            "scale": f"{p.path}.scaleType", "id": f"{p.path}.parameterName"}[part]
