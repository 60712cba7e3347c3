"""A project's allocation quotas for Vertex AI: each metric's limit per region (Service Usage
v1beta1 ``services.consumerQuotaMetrics.list``, view FULL) and what is in use now (Cloud
Monitoring v3 ``projects.timeSeries.list`` of ``serviceruntime.googleapis.com/quota/allocation/
usage`` on the ``consumer_quota`` resource). Sent like every other call
(`compiler.cloud.transport`: google-auth, retries, TRAINSPEC_API_ENDPOINT for the emulator).

Sources: the discovery documents serviceusage.v1beta1 (rev 20260921) and monitoring.v3 (rev
20260129) in google-api-python-client 2.202; https://cloud.google.com/monitoring/alerts/
using-quota-metrics (the allocation usage metric and its labels). The Cloud Quotas API
(cloudquotas v1 QuotaInfos) has no discovery document in the client and reports no usage."""

from __future__ import annotations

import datetime
from typing import Any

from compiler.cloud.errors import ApiError
from compiler.cloud.transport import Transport

SERVICE_USAGE = "https://serviceusage.googleapis.com"
MONITORING = "https://monitoring.googleapis.com"
USAGE_METRIC = "serviceruntime.googleapis.com/quota/allocation/usage"
MAX_PAGES = 100



class Quotas(Transport):
    """`limits(project, service)` and `usage(project, service)`, every page."""

    def limits(self, project: str, service: str) -> dict[tuple[str, str], int]:
        """(metric, region) → effective limit; (metric, "") is the limit of every region
        without a bucket of its own. -1 is no limit."""
        url = (f"{self.endpoint or SERVICE_USAGE}/v1beta1/projects/{project}/services/"
               f"{service}/consumerQuotaMetrics")
        found: dict[tuple[str, str], int] = {}
        for item in self._pages(url, "metrics", {"view": "FULL"}):
            for limit in _dicts(item.get("consumerQuotaLimits")):
                if "{region}" not in str(limit.get("unit") or ""):
                    continue  # a per-minute or global limit: not what a running job holds
                for bucket in _dicts(limit.get("quotaBuckets")):
                    dimensions = bucket.get("dimensions")
                    dimensions = dimensions if isinstance(dimensions, dict) else {}
                    value = _int(bucket.get("effectiveLimit"))
                    if value is not None and set(dimensions) <= {"region"}:
                        found[(str(item.get("metric", "")), str(dimensions.get("region", "")))] \
                            = value
        return found

    def usage(self, project: str, service: str, now: datetime.datetime) -> dict[tuple[str, str],
                                                                             int]:
        """(metric, region) → its latest allocation usage within the last day."""
        url = f"{self.endpoint or MONITORING}/v3/projects/{project}/timeSeries"
        params = {
            "filter": f'metric.type="{USAGE_METRIC}" AND resource.type="consumer_quota" AND '
                      f'resource.labels.service="{service}"',
            "interval.startTime": _rfc3339(now - datetime.timedelta(days=1)),
            "interval.endTime": _rfc3339(now), "view": "FULL"}
        found: dict[tuple[str, str], int] = {}
        for series in self._pages(url, "timeSeries", params):
            name = _label(series.get("metric"), "quota_metric")
            region = _label(series.get("resource"), "location")
            points = _dicts(series.get("points"))
            if name and points:  # points come newest first
                value = points[0].get("value")
                value = _int(value.get("int64Value")) if isinstance(value, dict) else None
                if value is not None:
                    found[(name, region)] = found.get((name, region), 0) + value
        return found

    def _pages(self, url: str, key: str, params: dict[str, str]) -> list[dict]:
        until = self._monotonic() + self.deadline
        params = dict(params)
        items: list[dict] = []
        for _ in range(MAX_PAGES):
            page = self._call("GET", url, params=dict(params), until=until)
            if not isinstance(page, dict):
                raise ApiError(None, "the answer is not a JSON object", "UNKNOWN", method="GET",
                               url=url)
            items.extend(_dicts(page.get(key)))
            if not page.get("nextPageToken"):
                return items
            params["pageToken"] = page["nextPageToken"]
        raise ApiError(None, f"more than {MAX_PAGES} pages", "INTERNAL", method="GET", url=url)


def _dicts(value: Any) -> list[dict]:
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def _label(value: Any, name: str) -> str:
    labels = value.get("labels") if isinstance(value, dict) else None
    return str(labels.get(name, "")) if isinstance(labels, dict) else ""


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _rfc3339(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
