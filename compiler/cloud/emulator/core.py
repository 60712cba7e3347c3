"""The emulator's state and routes: one `Emulator` answers a request of either API, or of
Cloud Logging, and computes where each job has got to from the clock."""

from __future__ import annotations

import html
import random
import re
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from compiler.cloud.emulator import logs as cloud_logging
from compiler.cloud.emulator import tuning as emulated_tuning

from .billing import BillingApi
from .common import (
    HOLD_LABEL,
    HOLD_VALUE,
    ML_STEPS,
    RESULT_FAILED,
    RESULT_LABEL,
    VERTEX_STEPS,
    Refusal,
    invalid,
    parse_body,
)
from .journal import Journal
from .listing import page_of
from .ml import MlApi
from .quotas import QuotaApi
from .storage import StorageApi
from .vertex import VertexApi

_V = r"^/v1/projects/(?P<p>[^/:]+)/locations/(?P<r>[^/:]+)"
_C = r"/(?P<c>customJobs|hyperparameterTuningJobs)"
_M = r"^/v1/projects/(?P<p>[^/:]+)/jobs"
ROUTES = [  # (method, pattern, handler name)
    ("POST", _V + _C + r"$", "vertex_create"),
    ("GET", _V + _C + r"$", "vertex_list"),
    ("GET", _V + _C + r"/(?P<id>[^/:]+)$", "vertex_get"),
    ("DELETE", _V + _C + r"/(?P<id>[^/:]+)$", "vertex_delete"),
    ("POST", _V + _C + r"/(?P<id>[^/:]+):cancel$", "vertex_cancel"),
    ("GET", _V + r"/operations/(?P<id>[^/:]+)$", "operation_get"),
    ("POST", _M + r"$", "ml_create"),
    ("GET", _M + r"$", "ml_list"),
    ("GET", _M + r"/(?P<id>[^/:]+)$", "ml_get"),
    ("PATCH", _M + r"/(?P<id>[^/:]+)$", "ml_patch"),
    ("POST", _M + r"/(?P<id>[^/:]+):cancel$", "ml_cancel"),
    ("POST", r"^/v2/entries:list$", "logging_list"),
    ("GET", r"^/v1/services$", "billing_services"),
    ("GET", r"^/v1/services/(?P<s>[^/:]+)/skus$", "billing_skus"),
    ("GET", r"^/storage/v1/b/(?P<b>[^/]+)/o/(?P<o>.+)$", "object_get"),
    ("POST", r"^/upload/storage/v1/b/(?P<b>[^/]+)/o$", "object_insert"),
    ("GET", r"^/v1beta1/projects/(?P<p>[^/]+)/services/(?P<s>[^/]+)/consumerQuotaMetrics$",
     "quota_metrics"),
    ("GET", r"^/v3/projects/(?P<p>[^/]+)/timeSeries$", "quota_usage"),
]


class Emulator(VertexApi, MlApi, BillingApi, StorageApi, QuotaApi, Journal):
    """The state and rules of both APIs (and the Billing Catalog, the Cloud Storage calls
    of an upload, and the project's quotas); `handle` answers one request. `buckets`: the Cloud
    Storage buckets that exist. `quotas`: (metric, region) → (limit, usage outside the
    emulator), see quotas.py."""

    def __init__(self, state_file: str | None = None, progress_seconds: float = 2.0,
                 cancel_seconds: float | None = None,
                 fault_rate_429: float = 0.0, fault_rate_503: float = 0.0,
                 seed: int | None = None, clock: Callable[[], float] = time.time,
                 log: Callable[[str], None] | None = None, buckets: Iterable[str] = (),
                 quotas: dict[tuple[str, str], tuple[int, int]] | None = None):
        self.state_file = state_file
        self.progress_seconds = progress_seconds
        # How long a cancelled job stays CANCELLING (a real cancel takes seconds to minutes).
        self.cancel_seconds = progress_seconds if cancel_seconds is None else cancel_seconds
        self.fault_rate_429, self.fault_rate_503 = fault_rate_429, fault_rate_503
        self.clock = clock  # epoch seconds: timestamps are rendered from it
        self.log = log
        self.quotas = {k: list(v) for k, v in (quotas or {}).items()}
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.state: dict[str, Any] = {"next_id": 1, "vertex": {}, "tuning": {}, "ml": {},
                                     "operations": {}, "buckets": {}, "objects": {}}
        self._journal: Any = None
        self._entries = 0  # lines in the journal since the last snapshot
        self._content_type: str | None = None  # of the request being answered
        if state_file:
            self._load()
        for bucket in buckets:
            self.add_bucket(bucket)

    def handle(self, method: str, target: str, body: bytes = b"",
               content_type: str | None = None) -> tuple[int, dict | str]:
        """Answer one request: (HTTP status, JSON body), or (404, HTML page) for no route."""
        url = urlsplit(target)
        path, query = unquote(url.path), parse_qs(url.query)
        try:
            with self._lock:
                self._content_type = content_type
                self._maybe_fail()
                for verb, pattern, name in ROUTES:
                    match = re.match(pattern, path)
                    if match and verb == method:
                        return 200, getattr(self, "_" + name)(match, query, body)
            return 404, _NOT_FOUND_PAGE.format(path=html.escape(url.path))
        except Refusal as refusal:
            return refusal.code, refusal.body()
        except Exception as exc:  # noqa: BLE001 - a bug must still answer, not drop the socket
            return 500, Refusal(500, "INTERNAL", f"Emulator bug: {type(exc).__name__}").body()

    # --- Cloud Logging (entries:list) -------------------------------------------------------

    def _logging_list(self, m, query, body) -> dict:
        request = parse_body(body)
        names = request.get("resourceNames")
        if not isinstance(names, list) or not names or not all(
                isinstance(n, str) and re.match(r"^projects/[^/]+$", n) for n in names):
            raise invalid([("resource_names", "Required: one or more resource names such as "
                             "projects/PROJECT_ID.")])
        order = request.get("orderBy", "timestamp asc")
        if order not in cloud_logging.ORDERS:
            raise invalid([("order_by", "Only 'timestamp asc' and 'timestamp desc' are "
                             "supported.")])
        text = request.get("filter", "")
        if not isinstance(text, str):
            raise invalid([("filter", "Must be a string.")])
        try:
            keep = cloud_logging.compile_filter(text) if text.strip() else (lambda e: True)
        except cloud_logging.FilterError as exc:
            raise Refusal(400, "INVALID_ARGUMENT", str(exc)) from exc
        projects = {n.split("/", 1)[1] for n in names}
        entries = [e for e in self._log_entries(projects) if keep(e)]
        entries.sort(key=lambda e: cloud_logging.parse_time(e["timestamp"]))
        if order.endswith("desc"):
            entries.reverse()
        return page_of(entries, "entries", request.get("pageSize"), request.get("pageToken"),
                      cloud_logging.DEFAULT_PAGE, cloud_logging.MAX_PAGE)

    def _log_entries(self, projects: set[str]) -> list[dict]:
        found = []
        for kind, steps, prefix, tasks in (
                ("vertex", VERTEX_STEPS, "JOB_STATE_", cloud_logging.vertex_tasks),
                ("ml", ML_STEPS, "", cloud_logging.ml_tasks)):
            for name, rec in self.state[kind].items():
                project = name.split("/")[1]
                if project not in projects:
                    continue
                state, times = self._progress(rec, steps, prefix)
                when = {"created": rec["created"], **{k: times[k] for k in ("start", "end")
                                                       if k in times}}
                if rec["cancelled"] is not None:
                    when["cancelled"] = rec["cancelled"]
                outcome = state.removeprefix(prefix) if "end" in times else ""
                found += cloud_logging.job_entries(project, name.rsplit("/", 1)[-1],
                                             tasks(rec["job"]), when, outcome,
                                             self.progress_seconds, self.clock())
        # Entries ordered within each job; stable sort by time keeps that order on ties.
        return found

    # --- job progress, cancel, faults -----------------------------------------------------

    def _progress(self, rec: dict, steps: tuple[str, ...], prefix: str,
                  tuning: bool = False) -> tuple[str, dict]:
        """The state a job has reached now, and when it started, changed and ended.

        A job runs one step; a tuning job one step per wave of trials."""
        p, created, cancelled = self.progress_seconds, rec["created"], rec["cancelled"]
        labels = rec["job"].get("labels") or {}
        now = self.clock() if cancelled is None else min(self.clock(), cancelled)
        ends = emulated_tuning.end_time(rec["job"], created + 2 * p, p) if tuning \
            else created + 3 * p
        elapsed = max(0.0, now - created)
        step = 3 if p <= 0 or now >= ends else min(2, int(elapsed // p))
        if labels.get(HOLD_LABEL) == HOLD_VALUE:
            step = min(step, 2)
        times = {"update": ends if step == 3 else created + step * p}
        if step >= 2:
            times["start"] = created + 2 * p
        state = steps[step]
        if step == 3:
            times["end"] = times["update"]
            if labels.get(RESULT_LABEL) == RESULT_FAILED:
                state = prefix + "FAILED"
        if cancelled is not None:
            if self.clock() < cancelled + self.cancel_seconds:
                state, times["update"] = prefix + "CANCELLING", cancelled
            else:
                state = prefix + "CANCELLED"
                times["update"] = times["end"] = cancelled + self.cancel_seconds
        return state, times

    def _cancel(self, api: str, name: str, state: str) -> None:
        if state.removeprefix("JOB_STATE_") in ("SUCCEEDED", "FAILED", "CANCELLED"):
            raise Refusal(400, "FAILED_PRECONDITION",
                          f"The job is already in a terminal state ({state}) "
                          "and cannot be cancelled.")
        rec = self.state[api][name]
        if rec["cancelled"] is None:  # cancelling twice is harmless, as on the real API
            rec["cancelled"] = self.clock()
            self._save((api, name))

    def _maybe_fail(self) -> None:
        # Faults come before any effect, like a front end shedding load.
        roll = self._rng.random()
        if roll < self.fault_rate_429:
            raise Refusal(429, "RESOURCE_EXHAUSTED", "Quota exceeded (emulated).")
        if roll < self.fault_rate_429 + self.fault_rate_503:
            raise Refusal(503, "UNAVAILABLE", "The service is currently unavailable (emulated).")


# What *.googleapis.com answers for a path no API serves (trimmed: no style or logo).
_NOT_FOUND_PAGE = """<!DOCTYPE html>
<html lang=en>
  <meta charset=utf-8>
  <title>Error 404 (Not Found)!!1</title>
  <p><b>404.</b> <ins>That’s an error.</ins>
  <p>The requested URL <code>{path}</code> was not found on this server.  <ins>That’s all we know.</ins>
"""


