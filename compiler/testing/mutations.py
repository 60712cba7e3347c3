"""Mutations: one targeted corruption of a valid spec, which the compiler must refuse with a
located error (never a crash)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import fields, roles
from . import rows
from .assertions import to_yaml
from .draws import _st
from .strategies import OTHER_ROLES, POOL_TWO, valid_specs

# Pool names a spec may write by mistake: what AI Platform calls its replicas (master, ps).
UNKNOWN_POOLS = tuple(sorted({r.ml_task for r in roles.ON_ML} - set(roles.NAMES)))


@dataclass(frozen=True)
class Mutation:
    """A valid spec with one targeted corruption; `text` is what the compiler is given."""

    kind: str
    path: str  # JSON path of the corruption in the spec
    spec: Any  # the corrupted data (None for text-level corruptions)
    raw: str | None = None

    @property
    def text(self) -> str:
        return self.raw if self.raw is not None else to_yaml(self.spec)


def _pools(spec: dict) -> dict:
    return spec["spec"].get("pools") or {}


def value_paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """Every path into a JSON-like value (keys and list indexes), the value's own `()` first:
    the places a property test may put a random subtree."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from value_paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from value_paths(v, prefix + (i,))


def _get(spec: dict, path: list) -> Any:
    for key in path:
        spec = spec[key]
    return spec


def _candidates(spec: dict) -> list[tuple[str, Any]]:
    """(kind, function(copy) -> JSON path) for every corruption that applies to `spec`."""
    s = spec["spec"]
    platform = s.get("platform", "vertex")
    pools = _pools(spec)
    out: list[tuple[str, Any]] = []

    def put(path: list, value: Any) -> Any:
        def apply(d: dict) -> str:
            fields.put(d, ".".join(path), value)  # creating the mappings on the way
            return "$." + ".".join(map(str, path))
        return apply

    def remove(path: list) -> Any:
        def apply(d: dict) -> str:
            del _get(d, path[:-1])[path[-1]]
            return "$." + ".".join(map(str, path[:-1])) if len(path) > 1 else "$"
        return apply

    out += [("unknown key", put(["spec", "machneType"], "n1-standard-4")),
            ("unknown key", put(["metadata", "lables"], {"team": "x"})),
            ("unknown top-level key", put(["specs"], {})),
            ("bad apiVersion", put(["apiVersion"], "trainspec/v9")),
            ("bad kind", put(["kind"], "TrainingJobs")),
            ("bad enum", put(["spec", "platform"], "azure-ml")),
            ("wrong type", put(["spec", "region"], ["us-central1"])),
            ("wrong type", put(["metadata", "labels"], ["team=vision"])),
            ("bad name", put(["metadata", "name"], "1-starts-with-digit")),
            ("bad label", put(["metadata", "labels"], {"Team": "vision"})),
            ("bad label", put(["metadata", "labels"], {"team": "Vision Group"})),
            ("bad label", put(["metadata", "labels"], {"trainspec-hash": "x"})),
            ("removed required key", remove(["apiVersion"])),
            ("removed required key", remove(["kind"])),
            ("removed required key", remove(["metadata", "name"])),
            ("removed required key", remove(["spec"])),
            ("bad output dir", put(["spec", "outputDir"], "s3://bucket/x")),
            ("bad service account", put(["spec", "serviceAccount"], "not an account"))]
    # The legacy AI Platform region, machine and GPU tables are not verified: an unknown value
    # there is a warning, so these mutations are refusals on vertex only.
    vertex = platform == "vertex"
    if vertex:
        out += [("bad region", put(["spec", "region"], "mars-central1")),
                ("bad region", put(["spec", "region"], "us-central"))]
    if "container" in s:
        out += [("removed required key", remove(["spec", "container"])),
                ("removed required key", remove(["spec", "container", "image"])),
                ("wrong type", put(["spec", "container", "args"], "--epochs=3")),
                ("unknown key", put(["spec", "container", "imageUri"], "gcr.io/x/y:1")),
                ("both tasks", put(["spec", "python"], {"packages": ["gs://b/p.tar.gz"],
                                                        "module": "t.task"}))]
    if "python" in s:
        out += [("removed required key", remove(["spec", "python", "module"])),
                ("removed required key", remove(["spec", "python", "packages"])),
                ("bad package uri", put(["spec", "python", "packages"], ["https://x/p.tar.gz"])),
                ("bad count", put(["spec", "python", "packages"],
                                  [f"gs://b/p{i}.tar.gz" for i in range(101)]))]
    for role, pool in pools.items():
        base = ["spec", "pools", role]
        out += [("unknown key", put(base + ["machneType"], "n1-standard-4")),
                ("wrong type", put(base + ["replicas"], "three")),
                ("bad enum", put(base + ["disk"], {"type": "pd-fast", "sizeGb": 200})),
                ("bad count", put(base + ["disk"], {"type": "pd-ssd", "sizeGb": 50})),
                ("bad accelerator", put(base + ["accelerator"], {"type": "A1000", "count": 1}))]
        if role == roles.CHIEF.name:
            out.append(("replicas on chief", put(base + ["replicas"], 2)))
        else:
            out.append(("bad count", put(base + ["replicas"], 0)))
        if vertex:
            out.append(("bad machine", put(base + ["machineType"], "n1-standard-3")))
        if vertex and "accelerator" in pool and pool.get("machineType", "").startswith("n1-"):
            out.append(("bad count", put(base + ["accelerator"],
                                         {"type": pool["accelerator"]["type"], "count": 3})))
        if "accelerator" in pool:
            out.append(("bad count", put(base + ["accelerator", "count"], 0)))
    if pools:
        chief = roles.CHIEF.name
        out.append(("wrong type", put(["spec", "pools", chief], "n1-standard-4")))
        out += [("unknown pool", put(["spec", "pools", name], {"machineType": "n1-standard-4"}))
                for name in UNKNOWN_POOLS]
        # Vertex pool 2 is the parameterServer or the reductionServer, never both; the
        # reductionServer is no ml v1 pool.
        cpu = {"replicas": 2, "machineType": "n1-highcpu-16"}
        out.append(("pool two roles", put(["spec", "pools"], {**pools, **dict.fromkeys(
            POOL_TWO, cpu)})) if vertex else ("vertex-only pool", put(
                ["spec", "pools", roles.REDUCTION_SERVER.name], cpu)))
        if len(pools) == 1:
            out.append(("removed chief", put(["spec", "pools"], {
                OTHER_ROLES[0]: {"replicas": 2, **pools[chief]}})))
    out += _row_candidates(spec, put)
    out += _tuning_candidates(spec, put, remove)
    if platform == "ai-platform":
        out += [("vertex-only on ai-platform", put(["spec", "env"], {"A": "1"})),
                # a well-formed maxWait under ai-platform's 30m minimum
                ("bad duration", put(["spec", "scheduling", "maxWait"], "10m"))]
        if "python" in s:
            # An unknown runtime only warns (the runtime list is not verified); a Python version
            # the runtime lacks is refused ([DD-ML] pythonVersion).
            out.append(("bad runtime", put(["spec", "python"], {
                **s["python"], "runtimeVersion": "2.11", "pythonVersion": "2.7"})))
    else:
        out += [("bad env name", put(["spec", "env"], {"1BAD-NAME": "x"})),
                ("bad secret", put(["spec", "env"], {"TOKEN": {"secret": "x", "value": "y"}})),
                ("foreign secret", put(["spec", "env"], {"TOKEN": {"secret": "gcp:credentials"}}))]
    return out


def _row_candidates(spec: dict, put) -> list[tuple[str, Any]]:
    """The corruptions the field table (compiler/fields.py) names: a valid value of every row
    the platform refuses (a pool row on the chief), a value outside every enum row's values,
    a broken duration in every duration row."""
    s = spec["spec"]
    platform = s.get("platform", fields.VERTEX)
    other = fields.ML if platform == fields.VERTEX else fields.VERTEX
    job = rows.context(s.get("region", "us-central1"), s.get("project", "acme"), "acme-runs",
                       "run")
    out: list[tuple[str, Any]] = []
    for row in fields.ROWS:
        if row.scope == fields.POOL and not _pools(spec):
            continue
        keys = ["spec", *row.spec.split(".")] if row.scope == fields.JOB else \
            ["spec", "pools", roles.CHIEF.name, row.spec]
        if isinstance(row.target(platform), fields.Refused):
            out.append((f"{other}-only on {platform}", put(keys, rows.example(row, platform, job))))
        if row.values:
            out.append(("bad enum", put(keys, f"not-{row.values[0]}")))
    for path in fields.DURATION_PATHS:
        keys = path.removeprefix("$.").split(".")
        out += [("bad duration", put(keys, "2 hours")), ("bad duration", put(keys, "-5m"))]
    return out


def _tuning_candidates(spec: dict, put, remove) -> list[tuple[str, Any]]:
    """Corruptions of a tuning job's search (or a search put on a TrainingJob)."""
    s = spec["spec"]
    tuning = s.get("tuning")
    if spec.get("kind") != "HyperparameterTuningJob" or not isinstance(tuning, dict):
        return [("tuning on a training job", put(["spec", "tuning"], {
            "metrics": {"loss": "minimize"}, "parameters": {"lr": {"double": [0.1, 1]}},
            "maxTrials": 2, "parallelTrials": 1}))]
    base = ["spec", "tuning"]
    first = next(iter(tuning["parameters"]))
    out = [("tuning job without tuning", remove(base)),
           ("removed required key", remove(base + ["metrics"])),
           ("bad goal", put(base + ["metrics"], {"loss": "lower"})),
           ("bad range", put(base + ["parameters", first], {"double": [2.0, 1.0]})),
           ("log scale from zero", put(base + ["parameters", first],
                                       {"double": [0, 1], "scale": "log"})),
           ("discrete not increasing", put(base + ["parameters", first], {"discrete": [3, 2, 1]})),
           ("two search spaces", put(base + ["parameters", first],
                                     {"integer": [1, 2], "discrete": [1, 2]})),
           ("scaled categorical", put(base + ["parameters", first],
                                      {"categorical": ["a"], "scale": "log"})),
           ("conditional under a double", put(base + ["parameters", first], {
               "double": [0, 1], "conditional": [{"when": [0.5], "parameters": {
                   "zz": {"integer": [1, 2]}}}]})),
           ("condition outside the parent's values", put(base + ["parameters", first], {
               "categorical": ["a", "b"], "conditional": [{"when": ["c"], "parameters": {
                   "zz": {"integer": [1, 2]}}}]})),
           ("grid with a double", put(base, {**tuning, "algorithm": "grid", "parameters": {
               **tuning["parameters"], "zz": {"double": [0, 1]}}})),
           ("bad count", put(base + ["maxTrials"], 0)),
           ("bad count", put(base + ["parallelTrials"], 2**31)),
           ("bad enum", put(base + ["algorithm"], "bayes")),
           ("legacy search on a tuning job", put(["spec", "aiPlatform"], {
               "hyperparameters": {"params": [{"parameterName": "lr", "type": "DOUBLE",
                                               "minValue": 0.1, "maxValue": 1}]}}))]
    if s.get("platform", "vertex") == "vertex":
        out += [("ai-platform-only on vertex", put(base + ["resumeFrom"], "old_job")),
                ("vertex requires the count", remove(base + ["maxTrials"])),
                ("whitespace in a metric id", put(base + ["metrics"], {"val loss": "minimize"})),
                ("no study stops at zero trials", put(base + ["studyStopping"], {"maxTrials": 0})),
                ("a study stops after some time", put(base + ["studyStopping"],
                                                      {"noProgressFor": "0s"}))]
    else:
        out += [("vertex-only on ai-platform", put(base + ["measurement"], "best")),
                ("vertex-only on ai-platform", put(base + ["earlyStopping"], {"median": {}})),
                ("vertex-only on ai-platform", put(base + ["studyStopping"], {"minTrials": 2})),
                ("several metrics on ai-platform", put(base + ["metrics"], {
                    "a": "maximize", "b": "minimize"}))]
    return out


def every_mutation(spec: dict) -> list[Mutation]:
    """Every targeted corruption of the valid `spec` that `mutations` draws from but the
    text-level ones, each applied to a copy."""
    return [_apply(spec, kind, apply) for kind, apply in _candidates(spec)]


def _apply(spec: dict, kind: str, apply) -> Mutation:
    data = copy.deepcopy(spec)
    return Mutation(kind, apply(data), data)


def mutations(spec: dict):
    """Strategy: one `Mutation` of the valid `spec` (which is not modified)."""
    st = _st()
    options = _candidates(spec)
    kind = f"kind: {spec.get('kind')}"
    text_level = [("duplicate key", lambda t: t + "kind: TrainingJob\n"),
                  ("python tag", lambda t: t.replace(kind, "kind: !!python/name:os.system ''",
                                                     1)),
                  ("not a mapping", lambda t: "- " + t.replace("\n", "\n  ")),
                  ("tab indentation", lambda t: t.replace("\n  ", "\n\t", 1))]

    @st.composite
    def build(draw) -> Mutation:
        if draw(st.integers(0, 9)) == 9:  # hypothesis favours 0: keep text edits rare
            kind, edit = draw(st.sampled_from(text_level))
            return Mutation(kind, "$", None, edit(to_yaml(spec)))
        return _apply(spec, *draw(st.sampled_from(options)))

    return build()


def mutated_specs(platform: str | None = None, kind: str | None = None):
    """Strategy: mutations of generated valid specs."""
    return valid_specs(platform, kind).flatmap(mutations)

