"""Hypothesis strategies for valid specs (hypothesis is imported only when one is built)."""

from __future__ import annotations

from typing import Any

from .. import fields, roles
from ..catalog import accelerators, machines
from . import rows
from .draws import PLATFORMS, _args, _container, _duration, _env, _labels, _names, _st
from .shapes import ML_RUNTIMES, PREBUILT, ml_shapes, vertex_shapes
from .tuning import _hyperparameters, _tuning

# Rows drawn only where the row they need is set, each a warning otherwise: TensorBoard needs a
# serviceAccount that can write to it, reserved IP ranges are ranges of the network.
NEEDS = {"vertex.tensorboard": fields.SERVICE_ACCOUNT.spec,
         "vertex.reservedIpRanges": fields.NETWORK.spec}
OTHER_ROLES = tuple(r.name for r in roles.ROLES if r is not roles.CHIEF)
ML_OTHER_ROLES = tuple(r.name for r in roles.ON_ML if r is not roles.CHIEF)
# Vertex pool 2's roles: a spec has one of them (pool-two-roles).
POOL_TWO = tuple(r.name for r in roles.ROLES if r.pool == roles.REDUCTION_SERVER.pool)


def _gpu(shape) -> bool:
    """The shape has GPUs: written, or fixed by its machine (a2-highgpu-1g)."""
    return bool(shape.accel or shape.machine and machines.implied_accelerator(shape.machine))


def _job_fields(draw, spec: dict, platform: str, job: dict[str, str],
                chosen: dict[str, Any]) -> None:
    """Every simple job field `platform` accepts (the rows of compiler/fields.py), each or not.
    `chosen` (by spec path) holds the values the logic here drew (None: unset); every other
    row gets a valid value of its own (compiler/testing/rows.py), a row of NEEDS only after
    the row it needs."""
    st = _st()
    written: set[str] = set()
    for row in fields.JOB_ROWS:
        if not rows.accepts(row, platform):
            continue
        need = NEEDS.get(row.spec)
        if row.spec in chosen:
            value = chosen[row.spec]
        elif (need is None or need in written) and draw(st.booleans()):
            value = rows.draw_value(draw, row, platform, job)
        else:
            continue
        if value is not None:
            fields.put(spec, row.spec, value)
            written.add(row.spec)


def _vertex_spec(draw) -> dict:
    st = _st()
    table = vertex_shapes()
    region = draw(st.sampled_from(sorted(table)))
    shapes = table[region]
    chief_shape = draw(st.sampled_from(shapes))
    strategy = draw(st.sampled_from([None, *fields.STRATEGY.values]))
    flex = [s for s in shapes if s.flex]
    if strategy == "FLEX_START":
        if not flex:
            strategy = None
        else:
            chief_shape = draw(st.sampled_from(flex))
    spec: dict[str, Any] = {"region": region}
    if draw(st.booleans()):
        spec["platform"] = "vertex"
    projects = ["acme-ml-prod", "acme-ml-dev", "my-project-123"]
    if draw(st.booleans()):
        spec["project"] = draw(st.sampled_from(projects))
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
    pools: dict[str, Any] = {roles.CHIEF.name: chief_shape.pool()}
    if not chief_shape.tpu:
        pool_two = draw(st.sampled_from(POOL_TWO))
        for role in OTHER_ROLES:
            if draw(st.integers(0, 2)) == 0 or role in POOL_TWO and role != pool_two:
                continue
            own_image = roles.BY_NAME[role].image
            # Google's image (the reduction server) runs on CPUs: a GPU there is a warning.
            choices = [s for s in shapes if not s.tpu and not (own_image and _gpu(s))]
            if strategy == "FLEX_START":
                choices = [] if own_image and _gpu(chief_shape) else [chief_shape]
            if not choices:
                continue
            shape = draw(st.sampled_from(choices))
            pool = {"replicas": draw(st.integers(1, 16)), **shape.pool()}
            if own_image and draw(st.integers(0, 3)) == 0:
                pool["container"] = {"image": own_image.replace("us-", draw(
                    st.sampled_from(["us-", "europe-", "asia-"])), 1)}
            elif not own_image and not python and draw(st.integers(0, 3)) == 0:
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
        if _gb200(pool) and pool.get("reservation", {}).get("affinity") not in ("ANY", "SPECIFIC"):
            pool["reservation"] = {"affinity": "ANY"}  # GB200 (A4X) runs only on a reservation
    lone_cpu = len(pools) == 1 and set(pools[roles.CHIEF.name]) == {"machineType"} and \
        not chief_shape.accel and not chief_shape.topology
    if not (lone_cpu and draw(st.integers(0, 3)) == 0):  # no pools: one default CPU replica
        spec["pools"] = pools
    max_wait = _duration(draw, 86400) if strategy == "FLEX_START" and draw(st.booleans()) \
        else None  # maxWait only with FLEX_START on vertex
    job = rows.context(region, projects[0], "acme-runs", draw(_names()))
    _job_fields(draw, spec, "vertex", job, {fields.STRATEGY.spec: strategy,
                                            fields.MAX_WAIT.spec: max_wait})
    return spec


def _gb200(pool: dict) -> bool:
    """The pool's accelerator is a GB200 (written, or implied by an A4X machine)."""
    written = (pool.get("accelerator") or {}).get("type")
    implied = machines.FIXED_GPU_MACHINES.get(pool.get("machineType") or "", (None,))[0]
    return (accelerators.canonical(written) if written else implied) == "NVIDIA_GB200"


def _ml_spec(draw) -> dict:
    st = _st()
    region = draw(st.sampled_from(sorted(ml_shapes())))
    ce, legacy = ml_shapes()[region]
    use_legacy = draw(st.integers(0, 3)) == 0
    shapes = legacy if use_legacy else ce
    spec: dict[str, Any] = {"platform": "ai-platform", "region": region}
    projects = ["acme-ml-legacy", "my-project-123"]
    if draw(st.booleans()):
        spec["project"] = draw(st.sampled_from(projects))
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
        pools: dict[str, Any] = {roles.CHIEF.name: chief.pool()}
        if not chief.tpu:
            for role in ML_OTHER_ROLES:
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
    if draw(st.integers(0, 2)) == 0:
        ai["hyperparameters"] = _hyperparameters(draw)
    if ai:
        spec["aiPlatform"] = ai
    # maxWait is at least 30m on ai-platform ([DD-ML] Scheduling.maxWaitTime).
    max_wait = draw(st.sampled_from(["30m", "1h", 1800, "2h30m", "1d"])) \
        if draw(st.booleans()) else None
    job = rows.context(region, projects[0], "acme-legacy-runs", draw(_names()))
    _job_fields(draw, spec, "ai-platform", job, {fields.MAX_WAIT.spec: max_wait})
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


