"""Load a job config and tell which kind it is: a Source, the API request it stands for.

Kinds: `ml-gcloud` (gcloud ai-platform --config: a Job with trainingInput, no jobId needed),
`ml-rest` ({jobId, trainingInput}), `vertex-gcloud` (gcloud ai custom-jobs --config: a
CustomJobSpec), `vertex-rest` (a CustomJob), `vertex-hpt` (a HyperparameterTuningJob, REST or
gcloud), `vertex-sdk` (Python SDK / GAPIC arguments in snake_case, read by sdk.py).
"""

from __future__ import annotations

import dataclasses
import json

from ..diagnostics import Collector, Diagnostic
from ..schema.foreign import SDK_KEYS as _SDK_KEYS
from ..source import read as source
from . import sdk
from .loaded import Source
from .sdk import camel

ML, VERTEX = "ai-platform", "vertex"


def load(text: bytes | str, file: str) -> tuple[Source | None, list[Diagnostic]]:
    """Parse a JSON or YAML config (safely, with positions) and detect its kind."""
    # JSON bodies and gcloud's YAML (1.2) mean 1e-05 as a number, not PyYAML's string.
    doc, found = source.parse(text, file, exponents=True)
    c = doc.collector()
    if doc.data is None or any(d.is_error for d in found):
        return None, [_retarget(d) for d in found]
    data = _exact_json(text) or doc.data
    if data.get("apiVersion") == "trainspec/v1" or "spec" in data and "kind" in data:
        c.error("$", "this is already a trainspec spec", "validate or compile it instead",
                code="import-already-spec")
        return None, c.items
    if "trainingInput" in data:
        kind = "ml-rest" if "jobId" in data else "ml-gcloud"
        return _proto_names(Source(kind, ML, data, c), "trainingInput"), c.items
    if "trialJobSpec" in data or "studySpec" in data:
        return _hpt(data, c), c.items
    if "jobSpec" in data:
        return _proto_names(Source("vertex-rest", VERTEX, data, c), "jobSpec"), c.items
    if "workerPoolSpecs" in data:
        return _gcloud_vertex(data, c), c.items
    if any(k in data for k in _SDK_KEYS):
        return sdk.read(Source("vertex-sdk", VERTEX, {}, c), data), c.items
    c.error("$", "not a training job config: expected trainingInput (AI Platform), "
            "workerPoolSpecs or jobSpec (Vertex AI), or SDK worker_pool_specs / job_spec",
            f"top-level keys: {', '.join(sorted(map(str, data))) or 'none'}",
            code="import-not-job-config")
    return None, c.items


def _exact_json(text: bytes | str) -> dict | None:
    """A JSON body's values as JSON reads them: the YAML 1.1 loader (kept for its positions and
    safety checks, which passed) reads an exponent without a dot, 1e-07, as a string."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _retarget(d: Diagnostic) -> Diagnostic:
    """The loader's words for a spec, said of a job config."""
    if d.code == "top-level-mapping":
        kind = d.message.rsplit(" ", 1)[-1]
        return dataclasses.replace(d, message=f"not a job config: the top level is a {kind}, "
                                   "not a mapping")
    if d.code == "empty-document":
        return dataclasses.replace(d, message="empty file: expected a job config")
    return d


def _proto_names(src: Source, top: str) -> Source:
    """proto3 JSON parsers accept the proto field names (use_chief_in_tf_config) beside the
    JSON names; read them as the camelCase field they are. gcloud YAML does not accept them,
    so gcloud files keep them and get refused as unknown fields."""
    if src.kind.endswith("-gcloud"):
        return src
    body = src.request.get(top)
    if isinstance(body, dict):
        fixed = {}
        for key, value in body.items():
            name = camel(key) if isinstance(key, str) else key
            if name != key:
                src.note(f"$.{top}.{name}", f"{key} (the proto field name) read as {name}")
            fixed[name] = value
        src.request = {**src.request, top: fixed}
    return src


def _gcloud_vertex(data: dict, c: Collector) -> Source:
    """gcloud reads --config with protojson, which wraps a scalar into a one-element list for
    repeated fields; replay that so the request is what gcloud sends."""
    src = Source("vertex-gcloud", VERTEX, {"jobSpec": dict(data)}, c)
    spec = src.request["jobSpec"]
    pools = spec.get("workerPoolSpecs")
    if isinstance(pools, dict):
        spec["workerPoolSpecs"] = [pools]
        src.note("$.jobSpec.workerPoolSpecs", "workerPoolSpecs was a single mapping: gcloud "
                 "reads it as a one-pool list")
    pools = spec.get("workerPoolSpecs")
    for i, pool in enumerate(pools if isinstance(pools, list) else ()):
        if not isinstance(pool, dict):
            continue
        for task in ("containerSpec", "pythonPackageSpec"):
            t = pool.get(task)
            for key in ("command", "args", "packageUris"):
                if isinstance(t, dict) and isinstance(t.get(key), (str, int, float, bool)):
                    pool[task] = t = dict(t)
                    t[key] = [t[key]]
                    src.note(f"$.jobSpec.workerPoolSpecs[{i}].{task}.{key}",
                             f"{key} was a single value: gcloud reads it as a one-item list")
    return src


def _hpt(data: dict, c: Collector) -> Source:
    kind = "vertex-hpt"
    trial = data.get("trialJobSpec")
    request: dict = {"jobSpec": trial if isinstance(trial, dict) else {}}
    for key in ("displayName", "labels", "encryptionSpec"):
        if key in data:
            request[key] = data[key]
    study = {k: v for k, v in data.items() if k not in ("trialJobSpec", "displayName", "labels",
                                                        "encryptionSpec")}
    src = Source(kind, VERTEX, request, c, study=study)
    return src
