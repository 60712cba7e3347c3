"""Allocation quotas, as the emulator keeps them: a limit (and a usage from outside the emulator)
per ``aiplatform.googleapis.com/...`` metric and region, given with ``--quota``. It serves them
as Service Usage v1beta1 ``consumerQuotaMetrics.list`` and the Cloud Monitoring v3
``timeSeries.list`` of ``serviceruntime.googleapis.com/quota/allocation/usage``, and refuses a
Vertex create whose job would go over a limit with the real 429 body ("The following quota
metrics exceed quota limits: M", code 429, status RESOURCE_EXHAUSTED, no details).

What a job holds is the emulator's own reading of the API (it reads none of the compiler's
tables): each replica's GPUs or TPU cores, and the vCPUs a predefined machine name ends in;
Spot and Flex-start jobs hold the preemptible metrics. Jobs that have not ended hold theirs."""

from __future__ import annotations

import re
from typing import Any

from .common import VERTEX_TERMINAL, Refusal

SERVICE = "aiplatform.googleapis.com"
PREFIX = SERVICE + "/custom_model_training_"
_GPU = re.compile(r"^NVIDIA_(?:TESLA_)?([A-Z0-9]+?)(?:_80GB|_141GB)?$")
_CPUS = re.compile(r"^[a-z][a-z0-9]*-(?:standard|highmem|highcpu)-(\d+)$")
USAGE_METRIC = "serviceruntime.googleapis.com/quota/allocation/usage"


def parse_quota(text: str) -> tuple[str, str, int, int]:
    """``METRIC@REGION=LIMIT[:USED]`` (the metric without the service prefix is accepted)."""
    match = re.match(r"^([\w./]+)@([a-z0-9-]+)=(\d+)(?::(\d+))?$", text.strip())
    if not match:
        raise ValueError(f"not METRIC@REGION=LIMIT[:USED]: {text!r}")
    name = match[1] if "/" in match[1] else f"{SERVICE}/{match[1]}"
    return name, match[2], int(match[3]), int(match[4] or 0)


def holds(job: dict) -> dict[str, int]:
    """metric → amount a CustomJob (or a tuning job's parallel trials) holds while it runs."""
    spec = job.get("trialJobSpec") or job.get("jobSpec") or {}
    parallel = int(job.get("parallelTrialCount") or 1) if "trialJobSpec" in job else 1
    strategy = (spec.get("scheduling") or {}).get("strategy")
    kind = "preemptible_" if strategy in ("SPOT", "FLEX_START") else ""
    found: dict[str, int] = {}
    for pool in spec.get("workerPoolSpecs") or []:
        machine = pool.get("machineSpec") or {}
        replicas = int(pool.get("replicaCount") or 0) * parallel
        accelerator, count = machine.get("acceleratorType", ""), int(
            machine.get("acceleratorCount") or 0)
        gpu = _GPU.match(accelerator)
        name = (f"nvidia_{gpu[1].lower()}_gpus" if gpu else
                accelerator.lower() if accelerator.startswith("TPU_V") else None)
        if name and count:
            key = PREFIX + kind + name
            found[key] = found.get(key, 0) + replicas * count
        cpus = _CPUS.match(machine.get("machineType", ""))
        if cpus:
            key = PREFIX + kind + "cpus"
            found[key] = found.get(key, 0) + replicas * int(cpus[1])
    return found


class QuotaApi:
    """Part of `Emulator`: ``self.quotas`` maps (metric, region) → [limit, usage outside]."""

    quotas: dict[tuple[str, str], list[int]]

    def _in_use(self, region: str) -> dict[str, int]:
        used = {m: v[1] for (m, r), v in self.quotas.items() if r == region}
        for key in ("vertex", "tuning"):
            for name, rec in self.state[key].items():  # type: ignore[attr-defined]
                if name.split("/")[3] != region:
                    continue
                if self._render_vertex(name)["state"] in VERTEX_TERMINAL:  # type: ignore[attr-defined]
                    continue
                for m, amount in holds(rec["job"]).items():
                    used[m] = used.get(m, 0) + amount
        return used

    def _check_quota(self, region: str, job: dict) -> None:
        wanted = {m: n for m, n in holds(job).items() if (m, region) in self.quotas}
        if not wanted:  # no limit set: no need to look at every job (creates stay O(1))
            return
        used = self._in_use(region)
        over = [m for m, amount in sorted(wanted.items())
                if used.get(m, 0) + amount > self.quotas[(m, region)][0]]
        if over:
            raise Refusal(429, "RESOURCE_EXHAUSTED", "The following quota metrics exceed "
                          "quota limits: " + ", ".join(over))

    def _quota_metrics(self, m: Any, query: dict, body: bytes) -> dict:
        if m["s"] != SERVICE:
            return {"metrics": []}
        metrics: dict[str, list[dict]] = {}
        for (name, region), (limit, _) in sorted(self.quotas.items()):
            metrics.setdefault(name, []).append(
                {"effectiveLimit": str(limit), "defaultLimit": str(limit),
                 "dimensions": {"region": region}})
        return {"metrics": [
            {"name": f"projects/{m['p']}/services/{SERVICE}/consumerQuotaMetrics/"
                     f"{name.replace('/', '%2F')}",
             "metric": name, "displayName": name.rsplit("/", 1)[1], "unit": "1/{project}/{region}",
             "consumerQuotaLimits": [{
                 "name": f"projects/{m['p']}/services/{SERVICE}/consumerQuotaMetrics/"
                         f"{name.replace('/', '%2F')}/limits/%2Fproject%2Fregion",
                 "metric": name, "unit": "1/{project}/{region}", "isPrecise": True,
                 "quotaBuckets": buckets}]}
            for name, buckets in metrics.items()]}

    def _quota_usage(self, m: Any, query: dict, body: bytes) -> dict:
        text = query.get("filter", [""])[0]
        if USAGE_METRIC not in text or "interval.endTime" not in query:
            raise Refusal(400, "INVALID_ARGUMENT", "filter and interval.endTime are required.")
        end = query["interval.endTime"][0]
        series = []
        for region in sorted({r for _, r in self.quotas}):
            used = self._in_use(region)
            for name in sorted(n for n, r in self.quotas if r == region):
                series.append({
                    "metric": {"type": USAGE_METRIC, "labels": {"quota_metric": name}},
                    "resource": {"type": "consumer_quota", "labels": {
                        "project_id": m["p"], "service": SERVICE, "location": region}},
                    "metricKind": "GAUGE", "valueType": "INT64",
                    "points": [{"interval": {"startTime": end, "endTime": end},
                                "value": {"int64Value": str(used.get(name, 0))}}]})
        return {"timeSeries": series}
