"""Property-testing kit for trainspec specs: hypothesis strategies and assertions.

A public module: a repository of specs can test its own specs and its own tooling with the
same strategies trainspec tests itself with. Hypothesis is imported only when a strategy is
built, so the assertions work without it.

Strategies
    valid_specs(platform=None, kind=None)
                                 spec dicts the compiler must accept, built from the catalog
                                 (machine × accelerator × count × region combinations that
                                 exist), for "vertex", "ai-platform" or both; kind
                                 "TrainingJob", "HyperparameterTuningJob" (with a generated
                                 spec.tuning the platform can express) or both
    tunings(platform)            spec.tuning dicts valid on that platform
    mutations(spec)              one targeted corruption of a valid spec (a `Mutation`)
    mutated_specs(platform=None) valid_specs().flatmap(mutations)

Assertions
    assert_compiles_conformant(spec)  compiles (dict or YAML text) and the request conforms to
                                      the API's discovery schema; returns the Result
    assert_refused_located(text)      refused, with at least one error at a line and column
    check_repo(path)                  every spec under `path` compiles and conforms

Example, in a repository of specs (``tests/test_specs.py``)::

    from hypothesis import given, settings
    from compiler import testing

    def test_every_spec_compiles():
        testing.check_repo("specs", region="us-central1")

    @settings(max_examples=50, derandomize=True, deadline=None)
    @given(testing.valid_specs(platform="vertex"))
    def test_our_submit_wrapper_accepts_compiled_jobs(spec):
        result = testing.assert_compiles_conformant(spec)
        assert my_wrapper.dry_run(result.body)   # the repo's own code

    @settings(max_examples=50, derandomize=True, deadline=None)
    @given(testing.mutated_specs())
    def test_linter_refuses_broken_specs(mutation):
        testing.assert_refused_located(mutation.text)
"""

from __future__ import annotations

import copy
import datetime
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from . import discovery, pipeline, tree
from .catalog import accelerators, images, machines, regions
from .normalize import Options
from .targets import body_schema

PLATFORMS = tuple(pipeline.TARGETS)
# A fixed date keeps generated specs' warnings (image end of availability) reproducible.
TODAY = datetime.date(2026, 1, 15)


def to_yaml(spec: dict) -> str:
    """A spec dict as YAML text, keys in the dict's order (label and env order matter)."""
    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=1000)


# -- assertions -----------------------------------------------------------------------------

def _text(spec: dict | str | bytes) -> str | bytes:
    return to_yaml(spec) if isinstance(spec, dict) else spec


def assert_compiles_conformant(spec: dict | str | bytes, options: Options = Options(),
                               file: str = "<generated>") -> pipeline.Result:
    """Compile `spec` (a dict or YAML text); fail unless it compiles without errors and the
    request body has no discovery-schema violation for its platform. Returns the Result."""
    result = pipeline.compile_text(_text(spec), file, options, TODAY)
    errors = "\n".join(d.format() for d in result.errors)
    assert result.ok, f"spec refused:\n{errors}\n--- spec ---\n{_text(spec)!s}"
    assert result.job is not None and result.body is not None
    api, schema = body_schema(result.job.platform, result.job.kind)
    found = discovery.violations(api, schema, result.body)
    assert found == [], f"{schema} violations: {found}\n--- spec ---\n{_text(spec)!s}"
    return result


def assert_refused_located(text: dict | str | bytes, options: Options = Options(),
                           file: str = "<mutated>") -> pipeline.Result:
    """Compile `text`; fail unless it is refused with at least one error carrying a line and
    column. Never raises anything but AssertionError for a compiler crash either."""
    try:
        result = pipeline.compile_text(_text(text), file, options, TODAY)
    except Exception as e:  # noqa: BLE001 - a crash is exactly what this reports
        raise AssertionError(f"compile_text raised {type(e).__name__}: {e}\n--- spec ---\n"
                             f"{_text(text)!s}") from e
    assert not result.ok, f"accepted, expected a refusal:\n{_text(text)!s}"
    assert result.errors, "refused without an error diagnostic"
    located = [d for d in result.errors if d.position is not None]
    assert located, ("no error has a line and column:\n" +
                     "\n".join(d.format() for d in result.errors))
    return result


def check_repo(path: str | Path = "specs", platform: str | None = None,
               project: str | None = None, region: str | None = None) -> list[pipeline.Result]:
    """Every *.yaml/*.yml under `path` compiles and conforms; fails listing every problem."""
    options = Options(platform=platform, project=project, region=region)
    found = tree.compile_paths([str(path)], options)  # as `validate` and the Pulumi program
    assert found.results and not found.missing, f"no spec files under {path}"
    problems = [d.format() for d in found.errors]
    for r in found.results:
        if r.ok:
            api, schema = body_schema(r.job.platform, r.job.kind)  # type: ignore[union-attr]
            problems += [f"{r.file}: {p}: {m}"
                         for p, m in discovery.violations(api, schema, r.body)]
    assert not problems, "\n".join(problems)
    return found.results


# -- the catalog as hardware shapes -----------------------------------------------------------

@dataclass(frozen=True)
class Shape:
    """One pool's hardware as a spec writes it, valid in the regions listed."""

    machine: str | None
    accel: str | None = None  # written type (API enum or short name)
    count: int | None = None  # written count (None: implied)
    topology: str | None = None
    tpu: bool = False
    flex: bool = False  # usable with FLEX_START (every pool the same FLEX GPU)

    def pool(self) -> dict:
        out: dict[str, Any] = {}
        if self.machine:
            out["machineType"] = self.machine
        if self.accel:
            out["accelerator"] = {"type": self.accel}
            if self.count is not None:
                out["accelerator"]["count"] = self.count
        if self.topology:
            out["tpuTopology"] = self.topology
        return out


def _short(enum: str) -> str:
    # Alternate the API enum and a short name, so both spellings are exercised.
    spellings = [s for s in accelerators._NAMES.get(enum, ("", ()))[1] if "_" not in s]
    return spellings[0] if spellings and len(enum) % 2 else enum


@functools.cache
def vertex_shapes() -> dict[str, tuple[Shape, ...]]:
    """Region → the pool shapes Vertex accepts there, from the catalog tables."""
    from .targets.vertex import FLEX_START_GPUS

    out: dict[str, list[Shape]] = {r: [] for r in sorted(regions.VERTEX_TRAINING_REGIONS)}

    def add(shape: Shape, accel: str | None, count: int | None, machine: str) -> None:
        for r in out:
            ok = (regions.vertex_accelerator_in_region(r, accel, count) if accel
                  else regions.vertex_machine_in_region(r, machine))
            if ok:
                out[r].append(shape)

    for m in sorted(machines.VERTEX_MACHINES):
        if m in machines.TPU_VM_MACHINES:
            for topo in machines.tpu_topologies(m):
                if not machines.check_vertex(m, None, None, topo):
                    add(Shape(m, topology=topo, tpu=True), None, None, m)
        elif m in machines.FIXED_GPU_MACHINES:
            accel, count = machines.FIXED_GPU_MACHINES[m]
            if not machines.check_vertex(m, accel, count):
                flex = accel in FLEX_START_GPUS
                add(Shape(m, flex=flex), accel, count, m)  # accelerator implied
                add(Shape(m, _short(accel), count, flex=flex), accel, count, m)
                add(Shape(m, accel, flex=flex), accel, count, m)  # count implied
        elif m == machines.CLOUD_TPU:
            for accel in ("TPU_V2", "TPU_V3"):
                add(Shape(m, accel, 8, tpu=True), accel, 8, m)
        elif not machines.check_vertex(m, None, None):
            add(Shape(m), None, None, m)
    for m, row in sorted(machines.N1_GPU_COUNTS.items()):
        for accel, counts in sorted(row.items()):
            for n in counts:
                if not machines.check_vertex(m, accel, n):
                    add(Shape(m, _short(accel), n), accel, n, m)
    for accel in sorted(accelerators.VERTEX_TYPES):  # accelerator only: the compiler picks
        for n in (1, 2, 4, 8):
            pick = machines.smallest_vertex_machine(accel, n)
            if pick and not accelerators.is_tpu(accel) and not machines.check_vertex(pick, accel, n):
                add(Shape(None, _short(accel), n, flex=accel in FLEX_START_GPUS), accel, n, pick)
    return {r: tuple(s) for r, s in out.items() if s}


@functools.cache
def ml_shapes() -> dict[str, tuple[tuple[Shape, ...], tuple[Shape, ...]]]:
    """Region → (Compute Engine shapes, legacy-name shapes) AI Platform accepts there."""
    out = {}
    for r in sorted(regions.ML_TRAINING_REGIONS):
        ce = [Shape(m) for m in sorted(machines.ML_CE_MACHINES) if not machines.check_ml(m, None, None)]
        for m, row in sorted(machines.ML_N1_GPU_COUNTS.items()):
            for accel, counts in sorted(row.items()):
                if accel in accelerators.RETIRED or not regions.ml_accelerator_in_region(r, accel):
                    continue
                ce += [Shape(m, _short(accel), n) for n in counts
                       if not machines.check_ml(m, accel, n)]
        legacy = [Shape(m) for m, (_, accel, _) in sorted(machines.ML_LEGACY_MACHINES.items())
                  if accel is None or (accel not in accelerators.RETIRED and accel != "TPU_V2")]
        if {"TPU_V2", "TPU_V3"} & {a for a in regions.ML_REGION_ACCELERATORS.get(r, ())}:
            legacy += [Shape(machines.ML_CLOUD_TPU, a, 8, tpu=True) for a in ("TPU_V2", "TPU_V3")
                       if regions.ml_accelerator_in_region(r, a)]
        out[r] = (tuple(ce), tuple(legacy))
    return out


PREBUILT = tuple(images.prebuilt_uri(i) for i in ("tf-cpu.2-17.py310", "tf-gpu.2-17.py310",
                                                  "pytorch-gpu.2-4.py310", "ray-cpu.2-47.py311",
                                                  "sklearn-cpu.1-6", "xgboost-cpu.2-1"))
ML_RUNTIMES = tuple(sorted((rt, py) for rt, pys in images.ML_RUNTIME_VERSIONS.items()
                           for py in sorted(pys)))


# -- strategies -----------------------------------------------------------------------------

def _st():
    from hypothesis import strategies as st  # noqa: PLC0415 - optional dependency

    return st


def _words(min_size: int = 1, max_size: int = 12):
    st = _st()
    return st.from_regex(r"[a-z][a-z0-9]{0,10}", fullmatch=True).filter(
        lambda w: min_size <= len(w) <= max_size)


def _names():
    st = _st()
    return st.from_regex(r"[a-z][a-z0-9]{0,12}(-[a-z0-9]{1,8}){0,2}", fullmatch=True)


def _labels():
    st = _st()
    keys = st.from_regex(r"[a-z][a-z0-9_-]{0,14}", fullmatch=True).filter(
        lambda k: not k.startswith("trainspec-"))
    values = st.from_regex(r"[a-z0-9_-]{0,14}", fullmatch=True)
    return st.dictionaries(keys, values, max_size=5)


def _args():
    st = _st()
    flag = st.builds(lambda k, v: f"--{k}={v}", _words(), st.integers(0, 10**6).map(str) | _words())
    scalar = st.integers(-1000, 10**9) | st.sampled_from([0.1, 1e-3, 2.5]) | st.booleans()
    return st.lists(flag | scalar | st.text("abcxyz-_=./ :", max_size=20), max_size=6)


def _image():
    st = _st()
    return st.builds(lambda host, repo, tag: f"{host}/{repo}:{tag}",
                     st.sampled_from(["gcr.io/acme", "us-docker.pkg.dev/acme/trainers",
                                      "europe-docker.pkg.dev/acme/ml"]),
                     _names(), st.from_regex(r"[0-9]\.[0-9]{1,2}\.[0-9]", fullmatch=True))


def _container(draw, full: bool) -> dict:
    st = _st()
    out: dict[str, Any] = {"image": draw(_image())} if full else {}
    if draw(st.booleans()):
        out["command"] = draw(st.sampled_from([["python3", "-m", "trainer.task"],
                                               ["/bin/train"], ["torchrun", "--nproc_per_node=8"]]))
    if draw(st.booleans()) or not out:
        out["args"] = draw(_args())
    return out


def _env(draw) -> dict:
    st = _st()
    names = st.from_regex(r"[A-Z_][A-Z0-9_]{0,10}", fullmatch=True)
    values = st.text("abcdefXYZ0123456789-_./:", max_size=16) | st.builds(
        lambda k: {"secret": k}, st.from_regex(r"[a-z][A-Za-z0-9]{0,10}", fullmatch=True))
    return draw(st.dictionaries(names, values, max_size=4))


def _duration(draw, max_seconds: int = 7 * 86400):
    st = _st()
    seconds = draw(st.integers(1, max_seconds))
    style = draw(st.sampled_from(["plain", "s", "compound"]))
    if style == "plain":
        return seconds
    if style == "s":
        return f"{seconds}s"
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    text = "".join(f"{n}{u}" for n, u in ((d, "d"), (h, "h"), (m, "m"), (s, "s")) if n)
    return text


def _vertex_spec(draw) -> dict:
    st = _st()
    table = vertex_shapes()
    region = draw(st.sampled_from(sorted(table)))
    shapes = table[region]
    chief_shape = draw(st.sampled_from(shapes))
    strategy = draw(st.sampled_from([None, "STANDARD", "SPOT", "FLEX_START"]))
    flex = [s for s in shapes if s.flex]
    if strategy == "FLEX_START":
        if not flex:
            strategy = None
        else:
            chief_shape = draw(st.sampled_from(flex))
    spec: dict[str, Any] = {"region": region}
    if draw(st.booleans()):
        spec["platform"] = "vertex"
    if draw(st.booleans()):
        spec["project"] = draw(st.sampled_from(["acme-ml-prod", "acme-ml-dev", "my-project-123"]))
    if draw(st.booleans()):
        spec["serviceAccount"] = "trainer@acme-ml-prod.iam.gserviceaccount.com"
    if draw(st.booleans()):
        spec["network"] = "projects/123456789012/global/networks/ml-vpc"
    if draw(st.booleans()):
        spec["outputDir"] = "gs://acme-runs/" + draw(_names())
    if draw(st.booleans()):
        spec["encryptionKey"] = f"projects/acme/locations/{region}/keyRings/ml/cryptoKeys/k1"
    if draw(st.booleans()):
        spec["enableWebAccess"] = draw(st.booleans())
    python = draw(st.booleans())
    if python:
        spec["python"] = {"packages": [f"gs://acme-artifacts/{draw(_names())}-0.1.tar.gz"],
                          "module": "trainer.task", "executorImage": draw(st.sampled_from(PREBUILT))}
        if draw(st.booleans()):
            spec["python"]["args"] = draw(_args())
    else:
        spec["container"] = _container(draw, True)
    if draw(st.booleans()):
        spec["env"] = _env(draw)
    pools: dict[str, Any] = {"chief": chief_shape.pool()}
    if not chief_shape.tpu:
        for role in ("worker", "parameterServer", "evaluator"):
            if draw(st.integers(0, 2)) == 0:
                continue
            shape = chief_shape if strategy == "FLEX_START" else draw(
                st.sampled_from([s for s in shapes if not s.tpu]))
            pool = {"replicas": draw(st.integers(1, 16)), **shape.pool()}
            if not python and draw(st.integers(0, 3)) == 0:
                pool["container"] = _container(draw, False)
            if draw(st.integers(0, 3)) == 0:
                pool["env"] = _env(draw)
            pools[role] = pool
    for pool in pools.values():
        if draw(st.integers(0, 3)) == 0:
            pool["disk"] = {"type": draw(st.sampled_from(machines.BOOT_DISK_TYPES_VERTEX)),
                            "sizeGb": draw(st.integers(*machines.DISK_SIZE_RANGE))}
        if draw(st.integers(0, 5)) == 0:
            pool["reservation"] = draw(st.sampled_from([
                {"affinity": "ANY"}, {"affinity": "NONE"},
                {"affinity": "SPECIFIC", "values": ["projects/acme/zones/us-central1-a/"
                                                   "reservations/r1"]}]))
        if draw(st.integers(0, 5)) == 0:
            pool["nfsMounts"] = [{"server": "10.0.0.2", "path": "/share", "mountPoint": "data"}]
    lone_cpu = len(pools) == 1 and set(pools["chief"]) == {"machineType"} and \
        not chief_shape.accel and not chief_shape.topology
    if not (lone_cpu and draw(st.integers(0, 3)) == 0):  # no pools: one default CPU replica
        spec["pools"] = pools
    sched: dict[str, Any] = {}
    if strategy:
        sched["strategy"] = strategy
    if strategy == "FLEX_START" and draw(st.booleans()):
        sched["maxWait"] = _duration(draw, 86400)
    if draw(st.booleans()):
        sched["timeout"] = _duration(draw)
    if draw(st.booleans()):
        sched["restartOnWorkerRestart"] = draw(st.booleans())
    if draw(st.booleans()):
        sched["disableRetries"] = draw(st.booleans())
    if sched:
        spec["scheduling"] = sched
    vertex: dict[str, Any] = {}
    if draw(st.integers(0, 3)) == 0:
        vertex["displayName"] = draw(st.text("abc XYZ-_0123", min_size=1, max_size=30))
    if draw(st.integers(0, 3)) == 0:
        vertex["enableDashboardAccess"] = draw(st.booleans())
    if draw(st.integers(0, 4)) == 0 and "serviceAccount" in spec:
        vertex["tensorboard"] = f"projects/acme/locations/{region}/tensorboards/123"
    if draw(st.integers(0, 4)) == 0 and "network" in spec:
        vertex["reservedIpRanges"] = ["training-range"]
    if vertex:
        spec["vertex"] = vertex
    return spec


def _ml_spec(draw) -> dict:
    st = _st()
    region = draw(st.sampled_from(sorted(ml_shapes())))
    ce, legacy = ml_shapes()[region]
    use_legacy = draw(st.integers(0, 3)) == 0
    shapes = legacy if use_legacy else ce
    spec: dict[str, Any] = {"platform": "ai-platform", "region": region}
    if draw(st.booleans()):
        spec["project"] = draw(st.sampled_from(["acme-ml-legacy", "my-project-123"]))
    if draw(st.booleans()):
        spec["serviceAccount"] = "trainer@acme-ml-legacy.iam.gserviceaccount.com"
    if draw(st.booleans()):
        spec["network"] = "projects/123456789012/global/networks/ml-vpc"
    if draw(st.booleans()):
        spec["outputDir"] = "gs://acme-legacy-runs/" + draw(_names())
    if draw(st.integers(0, 3)) == 0:
        spec["encryptionKey"] = f"projects/acme/locations/{region}/keyRings/ml/cryptoKeys/k1"
    if draw(st.integers(0, 3)) == 0:
        spec["enableWebAccess"] = draw(st.booleans())
    python = draw(st.booleans())
    if python:
        runtime, py = draw(st.sampled_from(ML_RUNTIMES))
        spec["python"] = {"packages": [f"gs://acme-artifacts/{draw(_names())}-0.1.tar.gz"],
                          "module": "trainer.task", "runtimeVersion": runtime, "pythonVersion": py}
        if draw(st.booleans()):
            spec["python"]["args"] = draw(_args())
    else:
        spec["container"] = _container(draw, True)
    # BASIC_GPU is refused (its K80 is retired), so it belongs to the mutations, not here.
    tier = draw(st.sampled_from([None, "pools", "pools", "pools", "BASIC", "STANDARD_1",
                                 "PREMIUM_1", "BASIC_TPU"]))
    ai: dict[str, Any] = {}
    if tier == "pools":
        chief = draw(st.sampled_from(shapes))
        pools: dict[str, Any] = {"chief": chief.pool()}
        if not chief.tpu:
            for role in ("worker", "parameterServer", "evaluator"):
                if draw(st.integers(0, 2)) == 0:
                    continue
                shape = draw(st.sampled_from([s for s in shapes if not s.tpu]))
                pool = {"replicas": draw(st.integers(1, 16)), **shape.pool()}
                if not python and draw(st.integers(0, 3)) == 0:
                    pool["container"] = _container(draw, False)
                pools[role] = pool
        for pool in pools.values():
            if draw(st.integers(0, 3)) == 0:
                pool["disk"] = {"type": draw(st.sampled_from(machines.BOOT_DISK_TYPES_ML)),
                                "sizeGb": draw(st.integers(*machines.DISK_SIZE_RANGE))}
        spec["pools"] = pools
        if draw(st.booleans()):
            ai["scaleTier"] = "CUSTOM"
    elif tier is not None:
        ai["scaleTier"] = tier
    sched: dict[str, Any] = {}
    if draw(st.booleans()):
        sched["timeout"] = _duration(draw)
    if draw(st.booleans()):
        sched["maxWait"] = draw(st.sampled_from(["30m", "1h", 1800, "2h30m", "1d"]))
    if draw(st.booleans()):
        sched["priority"] = draw(st.integers(0, 1000))
    if draw(st.integers(0, 3)) == 0:
        sched["strategy"] = "STANDARD"
    if sched:
        spec["scheduling"] = sched
    if draw(st.booleans()):
        ai["useChiefInTfConfig"] = draw(st.booleans())
    if draw(st.integers(0, 2)) == 0:
        ai["hyperparameters"] = _hyperparameters(draw)
    if ai:
        spec["aiPlatform"] = ai
    return spec


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
    return out


def tunings(platform: str):
    """Strategy: `spec.tuning` dicts `platform` accepts (conditions, rules and several metrics
    only on vertex; resumeFrom only on ai-platform)."""
    st = _st()
    if platform not in PLATFORMS:
        raise ValueError(f"platform must be one of {PLATFORMS}, not {platform!r}")
    return st.composite(lambda draw: _tuning(draw, platform))()


KINDS = ("TrainingJob", "HyperparameterTuningJob")


def valid_specs(platform: str | None = None, kind: str | None = None):
    """Strategy: spec dicts (apiVersion … spec) the compiler must accept and that compile to a
    discovery-conformant request. `platform`: "vertex", "ai-platform" or None for both;
    `kind`: "TrainingJob", "HyperparameterTuningJob" or None for both (one in four a tuning
    job)."""
    st = _st()
    if platform not in (None, *PLATFORMS):
        raise ValueError(f"platform must be one of {PLATFORMS} or None, not {platform!r}")
    if kind not in (None, *KINDS):
        raise ValueError(f"kind must be one of {KINDS} or None, not {kind!r}")

    @st.composite
    def build(draw) -> dict:
        which = platform or draw(st.sampled_from(PLATFORMS))
        spec = _vertex_spec(draw) if which == "vertex" else _ml_spec(draw)
        job_kind = kind or ("HyperparameterTuningJob" if draw(st.integers(0, 3)) == 0
                            else "TrainingJob")
        if job_kind == "HyperparameterTuningJob":
            ai = spec.get("aiPlatform") or {}
            ai.pop("hyperparameters", None)  # a tuning job searches spec.tuning only
            if not ai:
                spec.pop("aiPlatform", None)
            spec["tuning"] = _tuning(draw, which)
        meta: dict[str, Any] = {"name": draw(_names())}
        if draw(st.booleans()):
            meta["labels"] = draw(_labels())
        if draw(st.integers(0, 3)) == 0:
            meta["description"] = draw(st.text(max_size=40))
        return {"apiVersion": "trainspec/v1", "kind": job_kind, "metadata": meta,
                "spec": spec}

    return build()


# -- mutations ------------------------------------------------------------------------------

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
            _get(d, path[:-1])[path[-1]] = value
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
            ("bad duration", put(["spec", "scheduling"], {**(s.get("scheduling") or {}),
                                                          "timeout": "2 hours"})),
            ("bad duration", put(["spec", "scheduling"], {**(s.get("scheduling") or {}),
                                                          "timeout": "-5m"})),
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
        if role == "chief":
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
        out.append(("wrong type", put(["spec", "pools", "chief"], "n1-standard-4")))
        out.append(("unknown pool", put(["spec", "pools", "master"], {"machineType": "n1-standard-4"})))
        if len(pools) == 1:
            out.append(("removed chief", put(["spec", "pools"],
                                             {"worker": {"replicas": 2, **pools["chief"]}})))
    out += _tuning_candidates(spec, put, remove)
    if platform == "ai-platform":
        out += [("vertex-only on ai-platform", put(["spec", "env"], {"A": "1"})),
                ("vertex-only on ai-platform", put(["spec", "scheduling"],
                                                   {**(s.get("scheduling") or {}),
                                                    "strategy": "SPOT"})),
                ("bad duration", put(["spec", "scheduling"], {**(s.get("scheduling") or {}),
                                                              "maxWait": "10m"})),
                ("vertex-only on ai-platform", put(["spec", "vertex"], {"displayName": "x"}))]
        if "python" in s:
            # An unknown runtime only warns (the runtime list is not verified); a Python version
            # the runtime lacks is refused ([DD-ML] pythonVersion).
            out.append(("bad runtime", put(["spec", "python"], {
                **s["python"], "runtimeVersion": "2.11", "pythonVersion": "2.7"})))
    else:
        out += [("bad enum", put(["spec", "scheduling"], {**(s.get("scheduling") or {}),
                                                          "strategy": "CHEAP"})),
                ("ai-platform-only on vertex", put(["spec", "scheduling"],
                                                   {**(s.get("scheduling") or {}),
                                                    "priority": 5})),
                ("bad env name", put(["spec", "env"], {"1BAD-NAME": "x"})),
                ("bad secret", put(["spec", "env"], {"TOKEN": {"secret": "x", "value": "y"}})),
                ("foreign secret", put(["spec", "env"], {"TOKEN": {"secret": "gcp:credentials"}}))]
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
                ("whitespace in a metric id", put(base + ["metrics"], {"val loss": "minimize"}))]
    else:
        out += [("vertex-only on ai-platform", put(base + ["measurement"], "best")),
                ("vertex-only on ai-platform", put(base + ["earlyStopping"], {"median": {}})),
                ("several metrics on ai-platform", put(base + ["metrics"], {
                    "a": "maximize", "b": "minimize"}))]
    return out


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
        kind, apply = draw(st.sampled_from(options))
        data = copy.deepcopy(spec)
        path = apply(data)
        return Mutation(kind, path, data)

    return build()


def mutated_specs(platform: str | None = None, kind: str | None = None):
    """Strategy: mutations of generated valid specs."""
    return valid_specs(platform, kind).flatmap(mutations)
