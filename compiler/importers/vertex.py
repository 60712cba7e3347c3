"""A Vertex AI CustomJob request → a trainspec spec: the inverse of targets/vertex.py `lower`."""

from __future__ import annotations

from typing import Any

from .. import fields
from ..catalog import accelerators
from ..roles import BY_NAME, BY_POOL, CHIEF, of_pool
from .sources import Source
from .spec import Draft, as_int, is_zero_accel, set_disk, unknown_fields

# Request fields that code reads (the simple ones are fields.ROWS, read back by the table).
JOB_KNOWN = {"displayName", "labels", "jobSpec"} | fields.known(fields.VERTEX, "")
# displayName becomes metadata.name, or spec.vertex.displayName when it is no valid name
# (decompile._name).
BY_CODE = frozenset({"displayName"})
OUTPUT_ONLY = {"name", "state", "createTime", "startTime", "endTime", "updateTime", "error",
               "webAccessUris", "satisfiesPzs", "satisfiesPzi"}
SPEC_KNOWN = {"workerPoolSpecs"} | fields.known(fields.VERTEX, "jobSpec")
SCHEDULING = fields.known(fields.VERTEX, "jobSpec.scheduling")
POOL_KNOWN = {"machineSpec", "replicaCount", "diskSpec", "containerSpec", "pythonPackageSpec"} \
    | fields.known(fields.VERTEX, "", fields.POOL_ROWS)
MACHINE_KNOWN = {"machineType", "acceleratorType", "acceleratorCount"} \
    | fields.known(fields.VERTEX, "machineSpec", fields.POOL_ROWS)
TASKS = {"containerSpec": ("container", {"imageUri": "image", "command": "command",
                                         "args": "args"}),
         "pythonPackageSpec": ("python", {"executorImageUri": "executorImage",
                                          "packageUris": "packages", "pythonModule": "module",
                                          "args": "args"})}
# Scheduling.strategy values the API marks enumDeprecated, and their current names ([DD-AIP]).
DEPRECATED_STRATEGIES = {"ON_DEMAND": "STANDARD", "LOW_COST": "SPOT"}


def to_spec(src: Source, d: Draft) -> None:
    """Fill `d` from the CustomJob in `src.request`."""
    job, c = src.request, src.collector
    for key in job:
        if key in OUTPUT_ONLY:
            d.comment("spec", f"output-only field {key!r} of the source not imported")
        elif key not in JOB_KNOWN:
            c.error(f"$.{key}", f"unknown CustomJob field {key!r}", code="import-unknown-field")
    d.labels(job.get("labels"), "$.labels")
    spec = job.get("jobSpec")
    if not isinstance(spec, dict):
        c.error("$.jobSpec", "jobSpec must be a mapping (a CustomJobSpec)", code="import-shape")
        return
    unknown_fields(c, spec, SPEC_KNOWN, "$.jobSpec", "CustomJobSpec")
    _scheduling(src, spec.get("scheduling", {}))
    for row, value, at in fields.read(job, fields.VERTEX):
        if at in BY_CODE or (row is fields.STRATEGY and value == "STRATEGY_UNSPECIFIED"):
            continue
        if row is fields.STRATEGY and value in DEPRECATED_STRATEGIES:
            d.set(f"spec.{row.spec}", DEPRECATED_STRATEGIES[value],
                  [f"{value} is the deprecated name of {DEPRECATED_STRATEGIES[value]} (the API "
                   "takes both; trainspec writes the current one)"])
        else:
            d.set(f"spec.{row.spec}", value, src.notes.get("$." + fields.origin(row, at)[0]))
    pools = spec.get("workerPoolSpecs")
    if not isinstance(pools, list) or not pools:
        c.error("$.jobSpec.workerPoolSpecs", "workerPoolSpecs must be a non-empty list of pools",
                "a single mapping is accepted only in a gcloud --config file", code="import-shape")
        return
    if len(pools) > len(BY_POOL):
        c.error("$.jobSpec.workerPoolSpecs", f"{len(pools)} worker pools: Vertex takes at most 4",
                code="import-pool-count")
        return
    _pools(src, pools, d)


def _scheduling(src: Source, value: Any) -> None:
    if not isinstance(value, dict):
        src.collector.error("$.jobSpec.scheduling", "scheduling must be a mapping", code="import-shape")
        return
    unknown_fields(src.collector, value, SCHEDULING, "$.jobSpec.scheduling", "Scheduling")


def _pools(src: Source, pools: list, d: Draft) -> None:
    c = src.collector
    present: dict[str, dict] = {}
    for i, pool in enumerate(pools):
        at = f"$.jobSpec.workerPoolSpecs[{i}]"
        if not isinstance(pool, dict):
            c.error(at, "a worker pool must be a mapping", code="import-shape")
            continue
        if not pool:
            if i == 0:
                c.error(at, "pool 0 (the chief) is empty", code="import-empty-chief")
            continue
        unknown_fields(c, pool, POOL_KNOWN, at, "WorkerPoolSpec")
        box = pool.get("containerSpec")
        role = of_pool(i, box.get("imageUri") if isinstance(box, dict) else None).name
        present[role] = pool
        _machine(src, role, pool, at, d)
    _tasks(src, present, d)


def _machine(src: Source, role: str, pool: dict, at: str, d: Draft) -> None:
    p = f"spec.pools.{role}"
    count = as_int(pool.get("replicaCount"))
    if role != CHIEF.name or count not in (1, None):
        d.set(f"{p}.replicas", count)
    elif count is None:
        d.comment(p, "no replicaCount in the source: trainspec sends 1 for the chief")
    m = pool.get("machineSpec")
    m = m if isinstance(m, dict) else {}
    unknown_fields(src.collector, m, MACHINE_KNOWN, f"{at}.machineSpec", "MachineSpec")
    if "machineType" in m:
        d.set(f"{p}.machineType", m["machineType"])
    kind, n = m.get("acceleratorType"), m.get("acceleratorCount")
    if isinstance(kind, int) and not isinstance(kind, bool):
        name = accelerators.from_enum_number(kind)
        if name:
            d.comment(f"{p}.accelerator", f"acceleratorType {kind} is the proto enum number "
                      f"of {name}")
            kind = name
    if not is_zero_accel(kind, n):
        d.set(f"{p}.accelerator.type", kind, src.notes.get(f"{at}.machineSpec.acceleratorType"))
        if n is not None:
            d.set(f"{p}.accelerator.count", as_int(n))
    elif kind not in (None, "") or n is not None:
        d.comment(p, "accelerator type unspecified / count 0 in the source: no accelerator")
    set_disk(d, p, pool.get("diskSpec"))
    for row, value, _ in fields.read(pool, fields.VERTEX, fields.POOL_ROWS):
        d.set(f"{p}.{row.spec}", value)
    if not d.has(p):
        d.set(p, {})


def _tasks(src: Source, present: dict[str, dict], d: Draft) -> None:
    """Hoist what every pool shares to spec.container / spec.python / spec.env; pools keep
    the rest (pool container/python override the spec-level one field by field). A role
    running its own image (the reduction server) shares nothing: it keeps what differs from
    its default."""
    for role in [r for r in present if BY_NAME[r].image]:
        _own_task(src, role, present.pop(role), d)
    tasks: dict[str, tuple[str, dict]] = {}
    for role, pool in present.items():
        kinds = [k for k in TASKS if isinstance(pool.get(k), dict)]
        if len(kinds) != 1:
            src.collector.error(f"$.jobSpec.workerPoolSpecs[{BY_NAME[role].pool}]",
                                "a pool needs exactly one of containerSpec and pythonPackageSpec",
                                code="import-task-kind")
            return
        tasks[role] = (kinds[0], pool[kinds[0]])
    kinds = {k for k, _ in tasks.values()}
    shared = len(kinds) == 1
    for role, (kind, task) in tasks.items():
        at = f"$.jobSpec.workerPoolSpecs[{BY_NAME[role].pool}].{kind}"
        unknown_fields(src.collector, task, {*TASKS[kind][1], "env"}, at,
                       f"{kind[0].upper()}{kind[1:]}")
    for kind in kinds:
        name, fields = TASKS[kind]
        for key, spec_key in fields.items():
            # The chief's value goes to the spec level; a pool that differs overrides it
            # ([] where it has none: the compiler drops empty lists, as the API does).
            base = tasks[next(iter(tasks))][1].get(key) if shared else None
            if base not in (None, []):
                d.set(f"spec.{name}.{spec_key}", base, _notes(src, kind, key))
            for role, (k, t) in tasks.items():
                value = t.get(key)
                if k != kind or value == base or (value in (None, []) and base in (None, [])):
                    continue
                if value is None and key in ("command", "args", "packageUris"):
                    value = []
                if value is not None:
                    d.set(f"spec.pools.{role}.{name}.{spec_key}", value, _notes(src, kind, key))
    envs = {role: _env(src, role, kind, t) for role, (kind, t) in tasks.items()}
    values = list(envs.values())
    if values and all(e == values[0] for e in values):
        if values[0]:
            d.set("spec.env", values[0])
    else:
        for role, env in envs.items():
            if env:
                d.set(f"spec.pools.{role}.env", env)
    for role, (kind, _) in tasks.items():
        name = TASKS[kind][0]
        if not shared and not d.has(f"spec.pools.{role}.{name}"):
            d.set(f"spec.pools.{role}.{name}", {})


def _own_task(src: Source, role: str, pool: dict, d: Draft) -> None:
    at, task = f"$.jobSpec.workerPoolSpecs[{BY_NAME[role].pool}].containerSpec", pool["containerSpec"]
    unknown_fields(src.collector, task, {*TASKS["containerSpec"][1], "env"}, at, "ContainerSpec")
    if any(isinstance(pool.get(k), dict) for k in TASKS if k != "containerSpec"):
        src.collector.error(at[:at.rindex(".")], "a pool needs exactly one of containerSpec and "
                            "pythonPackageSpec", code="import-task-kind")
    p = f"spec.pools.{role}"
    for key, spec_key in TASKS["containerSpec"][1].items():
        value = task.get(key)
        if value not in (None, []) and not (spec_key == "image" and value == BY_NAME[role].image):
            d.set(f"{p}.container.{spec_key}", value, _notes(src, "containerSpec", key))
    env = _env(src, role, "containerSpec", task)
    if env:
        d.set(f"{p}.env", env)
    if task.get("imageUri") == BY_NAME[role].image:
        d.comment(p, f"containerSpec.imageUri is the {BY_NAME[role].label} image: this pool's "
                  "default")


def _env(src: Source, role: str, kind: str, task: dict) -> dict:
    out: dict = {}
    at = f"$.jobSpec.workerPoolSpecs[{BY_NAME[role].pool}].{kind}.env"
    raw = task.get("env") or []
    if not isinstance(raw, list):
        src.collector.error(at, "env must be a list of {name, value}", code="import-shape")
        return out
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) \
                or set(item) - {"name", "value"}:
            src.collector.error(f"{at}[{i}]", "an env entry must be {name, value} (a string "
                                "name)",
                                "secret references (valueFrom) have no trainspec key", code="import-shape")
            continue
        if item["name"] in out:
            src.collector.error(f"{at}[{i}]", f"env {item['name']!r} is set twice", code="import-env-twice")
        out[item["name"]] = item.get("value", "")
    return out


def _notes(src: Source, kind: str, key: str) -> list[str]:
    return sorted({n for path, notes in src.notes.items()
                   if path.endswith(f".{kind}.{key}") for n in notes})
