"""Hypothesis strategies for valid specs (hypothesis is imported only when one is built)."""

from __future__ import annotations

from typing import Any

from ..catalog import machines
from .draws import PLATFORMS, _args, _container, _duration, _env, _labels, _names, _st
from .shapes import ML_RUNTIMES, PREBUILT, ml_shapes, vertex_shapes
from .tuning import _hyperparameters, _tuning


def _job_fields(draw, spec: dict, projects: list[str], bucket: str, odds: int) -> None:
    """Where and as whom the job runs, each field or not: project, serviceAccount (of the first
    project), network, outputDir (in `bucket`); encryptionKey and enableWebAccess one time in
    `odds` (2: a coin flip)."""
    st = _st()

    def maybe(one_in: int = 2) -> bool:
        return draw(st.booleans()) if one_in == 2 else draw(st.integers(0, one_in - 1)) == 0

    if maybe():
        spec["project"] = draw(st.sampled_from(projects))
    if maybe():
        spec["serviceAccount"] = f"trainer@{projects[0]}.iam.gserviceaccount.com"
    if maybe():
        spec["network"] = "projects/123456789012/global/networks/ml-vpc"
    if maybe():
        spec["outputDir"] = f"gs://{bucket}/" + draw(_names())
    if maybe(odds):
        region = spec["region"]
        spec["encryptionKey"] = f"projects/acme/locations/{region}/keyRings/ml/cryptoKeys/k1"
    if maybe(odds):
        spec["enableWebAccess"] = draw(st.booleans())


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
    _job_fields(draw, spec, ["acme-ml-prod", "acme-ml-dev", "my-project-123"], "acme-runs", 2)
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
    _job_fields(draw, spec, ["acme-ml-legacy", "my-project-123"], "acme-legacy-runs", 4)
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


