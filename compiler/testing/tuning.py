"""Hypothesis strategies for `spec.tuning` (and ml v1 `aiPlatform.hyperparameters`)."""

from __future__ import annotations

from typing import Any

from .draws import PLATFORMS, _st, _words


def _hyperparameters(draw) -> dict:
    st = _st()
    params = []
    grid = draw(st.booleans())
    kinds = ["INTEGER", "CATEGORICAL", "DISCRETE"] + ([] if grid else ["DOUBLE"])
    for i, kind in enumerate(draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=4))):
        p: dict[str, Any] = {"parameterName": f"p{i}-{kind.lower()}", "type": kind}
        if kind == "DOUBLE":
            lo = draw(st.sampled_from([0.0001, 0.001, 0.5, 1.0]))
            p.update(minValue=lo, maxValue=lo * draw(st.sampled_from([2, 10, 1000])))
            if draw(st.booleans()):
                p["scaleType"] = draw(st.sampled_from(["UNIT_LINEAR_SCALE", "UNIT_LOG_SCALE"]))
        elif kind == "INTEGER":
            lo = draw(st.integers(1, 100))
            p.update(minValue=lo, maxValue=lo + draw(st.integers(0, 100)))
        elif kind == "CATEGORICAL":
            p["categoricalValues"] = draw(st.lists(_words(), min_size=1, max_size=4, unique=True))
        else:
            values = sorted(draw(st.lists(st.integers(1, 512), min_size=1, max_size=5, unique=True)))
            p["discreteValues"] = values
        params.append(p)
    hp: dict[str, Any] = {"goal": draw(st.sampled_from(["MAXIMIZE", "MINIMIZE"])), "params": params}
    trials = draw(st.integers(1, 50))
    hp["maxTrials"] = trials
    hp["maxParallelTrials"] = draw(st.integers(1, trials))
    hp["hyperparameterMetricTag"] = "accuracy"
    if grid:
        hp["algorithm"] = "GRID_SEARCH"
    return hp


def _id():
    st = _st()
    return st.from_regex(r"[a-z][a-z0-9_]{0,10}(/[a-z0-9]{1,6})?", fullmatch=True)


def _search_space(draw, pid: str, kinds: list[str]) -> dict:
    st = _st()
    kind = draw(st.sampled_from(kinds))
    if kind == "double":
        lo = draw(st.sampled_from([0.0, 0.0001, 0.001, 0.5, 1.0]))
        out: dict[str, Any] = {"double": [lo, lo + draw(st.sampled_from([0.5, 2.0, 10.0]))]}
        scales = ["linear", "log", "reverse-log"] if lo > 0 else ["linear"]
    elif kind == "integer":
        lo = draw(st.integers(1, 100))
        out = {"integer": [lo, lo + draw(st.integers(1, 200))]}
        scales = ["linear", "log", "reverse-log"]
    elif kind == "discrete":
        values = sorted(draw(st.lists(st.integers(1, 512) | st.sampled_from([0.25, 0.5, 1.5]),
                                      min_size=1, max_size=5, unique=True)))
        out = {"discrete": values}
        scales = ["linear", "log", "reverse-log"]
    else:
        return {"categorical": draw(st.lists(_words(), min_size=1, max_size=4, unique=True))}
    if draw(st.booleans()):
        out["scale"] = draw(st.sampled_from(scales))
    return out


def _tuning(draw, platform: str) -> dict:
    st = _st()
    vertex = platform == "vertex"
    metric_ids = draw(st.lists(_id(), min_size=1, max_size=3 if vertex else 1, unique=True))
    out: dict[str, Any] = {"metrics": {m: draw(st.sampled_from(["maximize", "minimize"]))
                                       for m in metric_ids}}
    grid = draw(st.integers(0, 3)) == 0
    kinds = ["integer", "discrete", "categorical"] + ([] if grid else ["double"])
    ids = iter(f"p{i}" for i in range(100))
    params: dict[str, Any] = {}
    for _ in range(draw(st.integers(1, 4))):
        pid = next(ids)
        space = _search_space(draw, pid, kinds)
        parent = next(k for k in ("integer", "discrete", "categorical") if k in space) \
            if not {"double"} & set(space) else None
        if vertex and parent and draw(st.integers(0, 2)) == 0:
            domain = list(space[parent]) if parent != "integer" else \
                list(range(space[parent][0], space[parent][1] + 1))[:8]
            when = draw(st.lists(st.sampled_from(domain), min_size=1, max_size=3, unique=True))
            space["conditional"] = [{"when": when, "parameters": {
                next(ids): _search_space(draw, "", kinds)}}]
        params[pid] = space
    out["parameters"] = params
    if grid:
        out["algorithm"] = "grid"
    elif draw(st.booleans()):
        out["algorithm"] = draw(st.sampled_from(["bayesian", "random"]))
    trials = draw(st.integers(1, 64))
    out["maxTrials"], out["parallelTrials"] = trials, draw(st.integers(1, trials))
    if draw(st.booleans()):
        out["maxFailedTrials"] = draw(st.integers(0, 8))
    stopping = draw(st.integers(0, 4))
    if stopping == 1:
        out["earlyStopping"] = draw(st.booleans())
    elif stopping == 2 and vertex:
        out["earlyStopping"] = draw(st.sampled_from([
            {"decayCurve": {}}, {"median": {"useElapsedDuration": True}},
            {"convex": {"maxStepCount": 1000, "minMeasurementCount": 5}}]))
    if vertex and draw(st.integers(0, 2)) == 0:
        out["measurement"] = draw(st.sampled_from(["last", "best"]))
    if not vertex and draw(st.integers(0, 4)) == 0:
        out["resumeFrom"] = "earlier_tuning_job"
    if vertex and draw(st.integers(0, 3)) == 0:
        out["studyStopping"] = draw(st.sampled_from([
            {"noProgressTrials": 10}, {"maxRuntime": "12h", "minTrials": 4},
            {"noProgressFor": 5400, "maxTrials": trials, "minRuntime": "30m", "stopAsap": True}]))
    return out


def tunings(platform: str):
    """Strategy: `spec.tuning` dicts `platform` accepts (conditions, rules and several metrics
    only on vertex; resumeFrom only on ai-platform)."""
    st = _st()
    if platform not in PLATFORMS:
        raise ValueError(f"platform must be one of {PLATFORMS}, not {platform!r}")
    return st.composite(lambda draw: _tuning(draw, platform))()


