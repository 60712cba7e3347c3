"""A local emulator of the Vertex AI CustomJob and HyperparameterTuningJob (aiplatform v1) and
AI Platform Training Job (ml v1) REST APIs, on one port.

It speaks the real paths and JSON shapes and refuses what the real APIs refuse: bodies are checked
against the discovery documents (`compiler.discovery`) plus the server-side rules a body schema
cannot express; refusals are google.rpc.Status bodies with snake_case BadRequest field paths.
A path no route matches gets what Google's front end sends for a wrong URL: an HTML 404 page,
not the API's JSON NOT_FOUND (which means a missing resource).

Jobs advance with the clock, computed lazily on every read (no background thread):
Vertex QUEUED → PENDING → RUNNING → SUCCEEDED and ml QUEUED → PREPARING → RUNNING → SUCCEEDED,
one step per `progress_seconds` (0 = succeed at once); a HyperparameterTuningJob runs its trials
in waves after PENDING (compiler/cloud/emulated_tuning.py). Labels steer a job, for tests:
``emulator-hold: running`` keeps it RUNNING until cancelled; ``emulator-result: failed`` ends it
FAILED instead of SUCCEEDED.

While a job runs, Vertex jobs with ``jobSpec.enableWebAccess`` (or ``enableDashboardAccess``)
show ``webAccessUris`` keyed by replica (``workerpool0-0``…), ml jobs with
``trainingInput.enableWebAccess`` show ``trainingOutput.webAccessUris`` (``master-replica-0``…).
An ml hyperparameter tuning job reports ``trainingOutput`` trials as they complete (each with a
deterministic objective value), all ``maxTrials`` once it succeeds.

Cloud Logging's ``POST /v2/entries:list`` serves the jobs' log lines (see
`compiler.cloud.logging_emulator`), so `status`, `logs` and `wait` run against the same port.

Run it with ``python -m compiler emulator --port 8765`` and point trainspec at it with
``TRAINSPEC_API_ENDPOINT=http://127.0.0.1:8765``. ``--state FILE`` persists jobs (a snapshot plus
an append-only journal, see `Emulator._save`). Bodies over `MAX_BODY_BYTES` get 413 unread; a
connection silent for `REQUEST_TIMEOUT` seconds is closed.
"""

from __future__ import annotations

import argparse
import base64
import copy
import datetime
import hashlib
import html
import ipaddress
import json
import os
import random
import re
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from compiler import discovery
from compiler.cloud import emulated_tuning
from compiler.cloud import logging_emulator as cloud_logging

VERTEX_SCHEMA = "GoogleCloudAiplatformV1CustomJob"
TUNING_SCHEMA = "GoogleCloudAiplatformV1HyperparameterTuningJob"
# Vertex collection → (state key, create schema, resource type in messages)
COLLECTIONS = {"customJobs": ("vertex", VERTEX_SCHEMA, "CustomJob"),
               "hyperparameterTuningJobs": ("tuning", TUNING_SCHEMA, "HyperparameterTuningJob")}
ML_SCHEMA = "GoogleCloudMlV1__Job"
VERTEX_STEPS = ("JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING",
                "JOB_STATE_SUCCEEDED")
ML_STEPS = ("QUEUED", "PREPARING", "RUNNING", "SUCCEEDED")
HOLD_LABEL, HOLD_VALUE = "emulator-hold", "running"
RESULT_LABEL, RESULT_FAILED = "emulator-result", "failed"
ML_JOB_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,127}$")
_ID_BASE = 1_000_000_000_000_000_000  # Vertex job IDs are large decimal numbers
_BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
SECTIONS = ("vertex", "tuning", "ml", "operations")
COMPACT_AFTER = 1000  # journal lines beyond the number of records before a new snapshot
MAX_BODY_BYTES = 4 * 1024 * 1024  # a request body; a CustomJob is a few KiB
REQUEST_TIMEOUT = 30.0  # seconds a connection may stay silent (slow clients never hold a thread)

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
]


class Refusal(Exception):
    """A request the API refuses; renders as a google.rpc.Status body."""

    def __init__(self, code: int, status: str, message: str,
                 violations: list[tuple[str, str]] | None = None):
        super().__init__(message)
        self.code, self.status, self.message = code, status, message
        self.violations = violations or []

    def body(self) -> dict:
        error: dict[str, Any] = {"code": self.code, "message": self.message,
                                 "status": self.status}
        if self.violations:
            error["details"] = [{"@type": _BAD_REQUEST, "fieldViolations": [
                {"field": f, "description": d} for f, d in self.violations]}]
        return {"error": error}


def _invalid(violations: list[tuple[str, str]]) -> Refusal:
    return Refusal(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", violations)


class Emulator:
    """The state and rules of both APIs; `handle` answers one request."""

    def __init__(self, state_file: str | None = None, progress_seconds: float = 2.0,
                 fault_rate_429: float = 0.0, fault_rate_503: float = 0.0,
                 seed: int | None = None, clock: Callable[[], float] = time.time,
                 log: Callable[[str], None] | None = None):
        self.state_file = state_file
        self.progress_seconds = progress_seconds
        self.fault_rate_429, self.fault_rate_503 = fault_rate_429, fault_rate_503
        self.clock = clock  # epoch seconds: timestamps are rendered from it
        self.log = log
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.state: dict[str, Any] = {"next_id": 1, "vertex": {}, "tuning": {}, "ml": {},
                                     "operations": {}}
        self._journal: Any = None
        self._entries = 0  # lines in the journal since the last snapshot
        if state_file:
            self._load()

    def handle(self, method: str, target: str, body: bytes = b"") -> tuple[int, dict | str]:
        """Answer one request: (HTTP status, JSON body), or (404, HTML page) for no route."""
        url = urlsplit(target)
        path, query = unquote(url.path), parse_qs(url.query)
        try:
            with self._lock:
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

    # --- Vertex AI CustomJob and HyperparameterTuningJob ---------------------------------------

    def _vertex_create(self, m, query, body) -> dict:
        job = _parse(body)
        key, schema, _ = COLLECTIONS[m["c"]]
        problems = _schema_violations("aiplatform", schema, job) + server_rules(
            "aiplatform", job, schema)
        if problems:
            raise _invalid(problems)
        name = (f"projects/{m['p']}/locations/{m['r']}/{m['c']}/"
                f"{_ID_BASE + self.state['next_id']}")
        self.state["next_id"] += 1
        self.state[key][name] = {"job": {**job, "name": name}, "created": self.clock(),
                                 "cancelled": None}
        self._save((key, name))
        return self._render_vertex(name)

    def _vertex_get(self, m, query, body) -> dict:
        return self._render_vertex(self._vertex_name(m))

    def _vertex_list(self, m, query, body) -> dict:
        prefix = f"projects/{m['p']}/locations/{m['r']}/{m['c']}/"
        records = self.state[COLLECTIONS[m["c"]][0]]
        names = [n for n in records if n.startswith(prefix)]
        return _page(names, self._render_vertex, lambda n: records[n]["job"],
                     m["c"], query, _VERTEX_FILTER_FIELDS, 100, 1000)

    def _vertex_cancel(self, m, query, body) -> dict:
        name = self._vertex_name(m)
        self._cancel(COLLECTIONS[m["c"]][0], name, self._render_vertex(name)["state"])
        return {}

    def _vertex_delete(self, m, query, body) -> dict:
        name = self._vertex_name(m)
        key, _, kind = COLLECTIONS[m["c"]]
        job = self._render_vertex(name)
        # Whether the real API deletes a job that is still running is unverified (facts A.12);
        # refusing until it is terminal is the conservative choice, so callers cancel first.
        if job["state"] not in _TERMINAL:
            raise Refusal(400, "FAILED_PRECONDITION",
                          f"{kind} {name} is in state {job['state']}; cancel it first.")
        del self.state[key][name]
        op_id = _ID_BASE + self.state["next_id"]
        self.state["next_id"] += 1
        now = _rfc3339(self.clock())
        op = {"name": f"projects/{m['p']}/locations/{m['r']}/operations/{op_id}", "done": True,
              "metadata": {"@type": "type.googleapis.com/google.cloud.aiplatform.v1."
                                    "DeleteOperationMetadata",
                           "genericMetadata": {"createTime": now, "updateTime": now}},
              "response": {"@type": "type.googleapis.com/google.protobuf.Empty"}}
        self.state["operations"][op["name"]] = op
        self._save((key, name), ("operations", op["name"]))
        return op

    def _operation_get(self, m, query, body) -> dict:
        name = f"projects/{m['p']}/locations/{m['r']}/operations/{m['id']}"
        if name not in self.state["operations"]:
            raise Refusal(404, "NOT_FOUND", f"Operation {name} does not exist.")
        return self.state["operations"][name]

    def _vertex_name(self, m) -> str:
        name = f"projects/{m['p']}/locations/{m['r']}/{m['c']}/{m['id']}"
        key, _, kind = COLLECTIONS[m["c"]]
        if name not in self.state[key]:
            raise Refusal(404, "NOT_FOUND", f"The {kind} {name} does not exist.")
        return name

    def _render_vertex(self, name: str) -> dict:
        tuning = "/hyperparameterTuningJobs/" in name
        rec = self.state["tuning" if tuning else "vertex"][name]
        state, times = self._progress(rec, VERTEX_STEPS, "JOB_STATE_", tuning)
        job = copy.deepcopy(rec["job"])
        if tuning:
            labels = job.get("labels") or {}
            found = emulated_tuning.trials(
                job, times, state, self.clock(), self.progress_seconds,
                labels.get(HOLD_LABEL) == HOLD_VALUE, labels.get(RESULT_LABEL) == RESULT_FAILED,
                rec["cancelled"])
            for trial in found:
                for key in ("startTime", "endTime"):
                    if key in trial:
                        trial[key] = _rfc3339(trial[key])
            if found:
                job["trials"] = found
        job.update(state=state, createTime=_rfc3339(rec["created"]),
                   updateTime=_rfc3339(times["update"]))
        if "start" in times:
            job["startTime"] = _rfc3339(times["start"])
        if "end" in times:
            job["endTime"] = _rfc3339(times["end"])
        if state == "JOB_STATE_CANCELLED":
            job["error"] = {"code": 1, "message": "CANCELED"}
        elif state == "JOB_STATE_FAILED":
            job["error"] = {"code": 13, "message": "Emulated failure (label emulator-result)."}
        spec = job.get("jobSpec") or {}
        if state == "JOB_STATE_RUNNING" and (spec.get("enableWebAccess")
                                             or spec.get("enableDashboardAccess")):
            job["webAccessUris"] = _web_access(name, cloud_logging.vertex_tasks(job), _region_of(name))
        return job

    # --- AI Platform Training Job (ml v1) --------------------------------------------------

    def _ml_create(self, m, query, body) -> dict:
        job = _parse(body)
        problems = _schema_violations("ml", ML_SCHEMA, job) + _ml_rules(job)
        if problems:
            raise _invalid(problems)
        name = f"projects/{m['p']}/jobs/{job['jobId']}"
        if name in self.state["ml"]:
            raise Refusal(409, "ALREADY_EXISTS",
                          "Field: job.job_id Error: A job with this id already exists.")
        job = {k: v for k, v in job.items() if k not in ("etag", "trainingOutput")}
        self.state["ml"][name] = {"job": job, "created": self.clock(), "cancelled": None,
                                  "version": 1}
        self._save(("ml", name))
        return self._render_ml(name)

    def _ml_get(self, m, query, body) -> dict:
        return self._render_ml(self._ml_name(m))

    def _ml_list(self, m, query, body) -> dict:
        prefix = f"projects/{m['p']}/jobs/"
        names = [n for n in self.state["ml"] if n.startswith(prefix)]
        return _page(names, self._render_ml, lambda n: self.state["ml"][n]["job"],
                     "jobs", query, _ML_FILTER_FIELDS, 20, 100)

    def _ml_cancel(self, m, query, body) -> dict:
        name = self._ml_name(m)
        self._cancel("ml", name, self._render_ml(name)["state"])
        return {}

    def _ml_patch(self, m, query, body) -> dict:
        name = self._ml_name(m)
        rec, patch = self.state["ml"][name], _parse(body)
        mask = [f for f in ",".join(query.get("updateMask", [])).split(",") if f]
        problems = _schema_violations("ml", ML_SCHEMA, patch)
        if not mask:
            problems.append(("update_mask", "updateMask is required."))
        problems += [("update_mask", f"Field {f!r} cannot be updated; only labels can.")
                     for f in mask if f != "labels"]
        problems += [(discovery.to_snake_path(k), "Only labels and etag can be sent in an update.")
                     for k in patch if k not in ("labels", "etag")]
        if "etag" not in patch:
            problems.append(("etag", "etag is required; read the job first."))
        if problems:
            raise _invalid(problems)
        if patch["etag"] != _etag(name, rec["version"]):
            raise Refusal(409, "ABORTED", "The etag does not match the job's current etag; "
                          "read the job again and retry.")
        rec["job"]["labels"] = dict(patch.get("labels") or {})
        rec["version"] += 1
        self._save(("ml", name))
        return self._render_ml(name)

    def _ml_name(self, m) -> str:
        name = f"projects/{m['p']}/jobs/{m['id']}"
        if name not in self.state["ml"]:
            raise Refusal(404, "NOT_FOUND", f"Field: name Error: The job {name} does not exist.")
        return name

    def _render_ml(self, name: str) -> dict:
        rec = self.state["ml"][name]
        state, times = self._progress(rec, ML_STEPS, "")
        job = copy.deepcopy(rec["job"])
        job.update(state=state, createTime=_rfc3339(rec["created"]),
                   etag=_etag(name, rec["version"]), trainingOutput={})
        if "start" in times:
            job["startTime"] = _rfc3339(times["start"])
        if "end" in times:
            job["endTime"] = _rfc3339(times["end"])
        if state in ("CANCELLING", "CANCELLED"):
            job["errorMessage"] = "Job was cancelled by the user."
        elif state == "FAILED":
            job["errorMessage"] = "Emulated failure (label emulator-result)."
        ti = job.get("trainingInput") or {}
        if state == "RUNNING" and ti.get("enableWebAccess"):
            job["trainingOutput"]["webAccessUris"] = _web_access(
                name, cloud_logging.ml_tasks(job), ti.get("region", "us-central1"))
        if isinstance(ti.get("hyperparameters"), dict) and "start" in times:
            job["trainingOutput"].update(self._trials(ti["hyperparameters"], state, times))
        return job

    def _trials(self, spec: dict, state: str, times: dict) -> dict:
        """Hyperparameter tuning output: trials complete evenly over the RUNNING step."""
        total = cloud_logging.replica_count(spec.get("maxTrials"), 1) or 1
        start = times["start"]
        stop = times.get("end", self.clock())
        if state == "SUCCEEDED":
            done = total
        else:
            span = self.progress_seconds or 1.0
            done = min(total - 1, int((stop - start) / span * total)) if stop > start else 0
        trials = []
        for i in range(1, done + 1):
            at = start + (i / total) * self.progress_seconds
            value = round(0.5 + 0.4 * ((i * 37) % 100) / 100, 4)
            trials.append({
                "trialId": str(i), "state": "SUCCEEDED",
                "hyperparameters": _trial_values(spec.get("params") or [], i),
                "finalMetric": {"trainingStep": str(100 * i), "objectiveValue": value},
                "startTime": _rfc3339(start), "endTime": _rfc3339(at)})
        out: dict[str, Any] = {"isHyperparameterTuningJob": True,
                               "completedTrialCount": str(done)}
        if spec.get("hyperparameterMetricTag"):
            out["hyperparameterMetricTag"] = spec["hyperparameterMetricTag"]
        if trials:
            out["trials"] = trials
        return out

    # --- Cloud Logging (entries:list) -------------------------------------------------------

    def _logging_list(self, m, query, body) -> dict:
        request = _parse(body)
        names = request.get("resourceNames")
        if not isinstance(names, list) or not names or not all(
                isinstance(n, str) and re.match(r"^projects/[^/]+$", n) for n in names):
            raise _invalid([("resource_names", "Required: one or more resource names such as "
                             "projects/PROJECT_ID.")])
        order = request.get("orderBy", "timestamp asc")
        if order not in cloud_logging.ORDERS:
            raise _invalid([("order_by", "Only 'timestamp asc' and 'timestamp desc' are "
                             "supported.")])
        text = request.get("filter", "")
        if not isinstance(text, str):
            raise _invalid([("filter", "Must be a string.")])
        try:
            keep = cloud_logging.compile_filter(text) if text.strip() else (lambda e: True)
        except cloud_logging.FilterError as exc:
            raise Refusal(400, "INVALID_ARGUMENT", str(exc)) from exc
        projects = {n.split("/", 1)[1] for n in names}
        entries = [e for e in self._log_entries(projects) if keep(e)]
        entries.sort(key=lambda e: cloud_logging.parse_time(e["timestamp"]))
        if order.endswith("desc"):
            entries.reverse()
        return _slice(entries, "entries", request.get("pageSize"), request.get("pageToken"),
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

    # --- shared ---------------------------------------------------------------------------

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
            if self.clock() < cancelled + p:
                state, times["update"] = prefix + "CANCELLING", cancelled
            else:
                state = prefix + "CANCELLED"
                times["update"] = times["end"] = cancelled + p
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

    # --- persistence (--state FILE) -----------------------------------------------------
    #
    # FILE is a snapshot (the whole state as JSON); FILE.journal holds, one JSON line each,
    # the records every write changed since. A write appends one line and fsyncs it: durable,
    # and its cost does not grow with the number of jobs. When the journal outgrows the state,
    # it is folded into a new snapshot (written to a temp file, fsynced, renamed) and emptied.

    def _load(self) -> None:
        if os.path.exists(self.state_file):
            with open(self.state_file, encoding="utf-8") as f:
                self.state.update(json.load(f))
        else:
            self._snapshot()
        journal = self.state_file + ".journal"
        if os.path.exists(journal):
            with open(journal, "rb") as f:
                lines = f.read().split(b"\n")
            # The last line lacks its newline only if a write was cut short: never answered.
            for line in lines[:-1]:
                self._apply(json.loads(line))
            self._entries = len(lines) - 1
            if lines[-1]:
                with open(journal, "r+b") as f:
                    f.truncate(sum(len(line) + 1 for line in lines[:-1]))

    def _apply(self, entry: dict) -> None:
        self.state["next_id"] = entry["next_id"]
        for section, key, value in entry["changes"]:
            if value is None:
                self.state[section].pop(key, None)
            else:
                self.state[section][key] = value

    def _save(self, *changed: tuple[str, str]) -> None:
        if not self.state_file:
            return
        entry = {"next_id": self.state["next_id"],
                 "changes": [[section, key, self.state[section].get(key)]
                             for section, key in changed]}
        if self._journal is None:
            self._journal = open(self.state_file + ".journal", "ab")  # noqa: SIM115
        self._journal.write(json.dumps(entry, separators=(",", ":")).encode() + b"\n")
        self._journal.flush()
        os.fsync(self._journal.fileno())
        self._entries += 1
        if self._entries > COMPACT_AFTER + sum(len(self.state[k]) for k in SECTIONS):
            self._compact()

    def _compact(self) -> None:
        self._snapshot()
        # Replaying the old journal over the new snapshot would change nothing: emptying it
        # after the rename is safe even if the process dies in between.
        self._journal.truncate(0)
        self._journal.flush()
        os.fsync(self._journal.fileno())
        self._entries = 0

    def _snapshot(self) -> None:
        folder = os.path.dirname(os.path.abspath(self.state_file))
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".emulator-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self.state, f, separators=(",", ":"), sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.state_file)  # atomic: readers never see a half-written file
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def close(self) -> None:
        """Close the journal (tests reopen the same state file)."""
        if self._journal is not None:
            self._journal.close()
            self._journal = None


_TERMINAL = frozenset({"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED"})

# What *.googleapis.com answers for a path no API serves (trimmed: no style or logo).
_NOT_FOUND_PAGE = """<!DOCTYPE html>
<html lang=en>
  <meta charset=utf-8>
  <title>Error 404 (Not Found)!!1</title>
  <p><b>404.</b> <ins>That’s an error.</ins>
  <p>The requested URL <code>{path}</code> was not found on this server.  <ins>That’s all we know.</ins>
"""


MAX_JSON_DEPTH = 64  # deeper than any request body; like Google's frontends, refuse, don't recurse


def _not_json(constant: str) -> Any:
    # Python's json module reads NaN/Infinity; JSON (and Google's front ends) do not.
    raise ValueError(f"Unexpected token {constant!r}: not JSON")


def _parse(body: bytes) -> dict:
    try:
        value = json.loads(body or b"{}", parse_constant=_not_json)
    except ValueError as exc:
        raise Refusal(400, "INVALID_ARGUMENT", f"Invalid JSON payload received. {exc}") from exc
    except RecursionError as exc:
        raise Refusal(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Nested too deeply.") \
            from exc
    if not isinstance(value, dict):
        raise Refusal(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Expected an object.")
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise Refusal(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Nested too deeply.")
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return value


def _schema_violations(api: str, schema: str, body: dict) -> list[tuple[str, str]]:
    # Output-only fields are refused too, although Google may ignore them: trainspec must never
    # send them, and refusing makes such a bug visible.
    return [(discovery.to_snake_path(p), m) for p, m in discovery.violations(api, schema, body)]


def server_rules(api: str, body: dict, schema: str | None = None) -> list[tuple[str, str]]:
    """The create request's rules beyond its schema, as (snake_case field, description).
    `schema` tells a HyperparameterTuningJob from a CustomJob (the default) on aiplatform."""
    if api != "aiplatform":
        return _ml_rules(body)
    if schema != TUNING_SCHEMA:
        return _vertex_rules(body)
    # The trial job is a CustomJobSpec: the CustomJob rules apply to it, under its own name.
    custom = {k: body[k] for k in ("displayName", "labels") if k in body}
    custom["jobSpec"] = body.get("trialJobSpec")
    return [(f.replace("job_spec", "trial_job_spec", 1) if f.startswith("job_spec") else f, d)
            for f, d in _vertex_rules(custom)] + emulated_tuning.rules(body)


def _vertex_rules(job: dict) -> list[tuple[str, str]]:
    """Rules the real API enforces that the discovery schema cannot express (facts A.1-A.4)."""
    out = []
    name = job.get("displayName")
    if not name:
        out.append(("display_name", "Required; must not be empty."))
    elif isinstance(name, str) and len(name) > 128:
        out.append(("display_name", "Must be at most 128 characters."))
    labels = job.get("labels")
    if isinstance(labels, dict) and len(labels) > 64:
        out.append(("labels", "A resource can have at most 64 labels."))
    for key, value in (labels.items() if isinstance(labels, dict) else ()):
        if not _label_ok(key, 1):
            out.append((f"labels[{json.dumps(key)}]", "Label keys must be 1-64 characters of "
                        "lowercase letters, digits, '_' or '-'."))
        if isinstance(value, str) and not _label_ok(value, 0):
            out.append((f"labels[{json.dumps(key)}]", "Label values must be at most 64 "
                        "characters of lowercase letters, digits, '_' or '-'."))
    if not isinstance(job.get("jobSpec"), dict):
        return out + [("job_spec", "Required.")]
    pools = job["jobSpec"].get("workerPoolSpecs")
    if not pools or not isinstance(pools, list):
        return out + [("job_spec.worker_pool_specs", "Required; at least one worker pool.")]
    if pools[0] == {}:
        out.append(("job_spec.worker_pool_specs[0]", "The first worker pool must not be empty."))
    for i, pool in enumerate(pools):
        if not isinstance(pool, dict) or pool == {}:
            continue
        where = f"job_spec.worker_pool_specs[{i}]"
        machine = pool.get("machineSpec")
        if not isinstance(machine, dict) or not machine.get("machineType"):
            out.append((f"{where}.machine_spec.machine_type", "Required in a non-empty pool."))
        if ("containerSpec" in pool) == ("pythonPackageSpec" in pool):
            out.append((where, "Exactly one of container_spec or python_package_spec is "
                        "required."))
        out += _vertex_pool_rules(job["jobSpec"], pool, where)
    return out


def _vertex_pool_rules(spec: dict, pool: dict, where: str) -> list[tuple[str, str]]:
    """Documented refusals inside one pool: NfsMount.server is an IP address, a GPU partition
    takes acceleratorCount 1 (MachineSpec.gpuPartitionSize), GB200 needs a reservation ([CC])."""
    out = []
    machine = pool.get("machineSpec") if isinstance(pool.get("machineSpec"), dict) else {}
    for i, mount in enumerate(pool.get("nfsMounts") or ()):
        server = mount.get("server") if isinstance(mount, dict) else None
        try:
            ipaddress.ip_address(server or "")
        except ValueError:
            out.append((f"{where}.nfs_mounts[{i}].server", "Must be the IP address of the NFS "
                        "server."))
    if machine.get("gpuPartitionSize") and str(machine.get("acceleratorCount")) != "1":
        out.append((f"{where}.machine_spec.gpu_partition_size", "Requires accelerator_count 1."))
    affinity = machine.get("reservationAffinity")
    kind = affinity.get("reservationAffinityType") if isinstance(affinity, dict) else None
    if machine.get("acceleratorType") == "NVIDIA_GB200" and not spec.get("persistentResourceId") \
            and kind not in ("ANY_RESERVATION", "SPECIFIC_RESERVATION"):
        out.append((f"{where}.machine_spec.reservation_affinity", "NVIDIA_GB200 is only "
                    "available through a reservation."))
    return out


def _label_ok(text: str, min_len: int) -> bool:
    # CustomJob.labels: ≤64 code points of lowercase letters, digits, '_' and '-'; international
    # characters allowed.
    return min_len <= len(text) <= 64 and all(
        c in "_-" or c.isdigit() or c.islower() or (ord(c) > 127 and c.isalpha()) for c in text)


def _ml_rules(job: dict) -> list[tuple[str, str]]:
    """Rules of the legacy API beyond its schema (facts B.2-B.4 and C)."""
    out = []
    job_id = job.get("jobId")
    if not job_id:
        out.append(("job_id", "Required."))
    elif isinstance(job_id, str) and not ML_JOB_ID.match(job_id):
        out.append(("job_id", "Must start with a letter and contain only letters, digits and "
                    "underscores (at most 128 characters)."))
    if isinstance(job.get("labels"), dict) and len(job["labels"]) > 64:
        out.append(("labels", "A job can have at most 64 labels."))
    ti = job.get("trainingInput")
    if not isinstance(ti, dict):
        return out + [("training_input", "Required; only training jobs are emulated.")]
    for field in ("region", "scaleTier"):
        if not ti.get(field):
            out.append((f"training_input.{discovery.to_snake_path(field)}", "Required."))
    custom = ti.get("scaleTier") == "CUSTOM"
    if custom and not ti.get("masterType"):
        out.append(("training_input.master_type", "Required when scale_tier is CUSTOM."))
    for role in ("worker", "parameterServer", "evaluator"):
        count = ti.get(f"{role}Count")
        if isinstance(count, (int, str)) and str(count).lstrip("-").isdigit() and int(count) > 0:
            where = f"training_input.{discovery.to_snake_path(role)}"
            if not custom:
                out.append((f"{where}_count", "Only allowed when scale_tier is CUSTOM."))
            if not ti.get(f"{role}Type"):
                out.append((f"{where}_type", f"Required when {where}_count is set."))
    container = ((ti.get("masterConfig") or {}).get("imageUri")
                 if isinstance(ti.get("masterConfig"), dict) else None)
    if not container:
        # pythonVersion is not among them: gcloud submits without it (no --python-version) and
        # the service picks the runtime's default.
        for field in ("runtimeVersion", "packageUris", "pythonModule"):
            if not ti.get(field):
                out.append((f"training_input.{discovery.to_snake_path(field)}",
                            "Required unless master_config.image_uri is set."))
    if ti.get("args"):
        # [DD-ML] ReplicaConfig.containerCommand/containerArgs: "mutually exclusive with
        # TrainingInput.args, i.e., both cannot be set at the same time".
        for role in ("master", "worker", "parameterServer", "evaluator"):
            config = ti.get(f"{role}Config")
            for field in ("containerCommand", "containerArgs"):
                if isinstance(config, dict) and config.get(field):
                    out.append((f"training_input.{discovery.to_snake_path(role)}_config."
                                f"{discovery.to_snake_path(field)}",
                                "Cannot be set together with training_input.args."))
    return out


_VERTEX_FILTER_FIELDS = {"display_name": "displayName", "displayName": "displayName",
                         "state": "state"}
_ML_FILTER_FIELDS = {"job_id": "jobId", "jobId": "jobId", "state": "state"}
_TERM = re.compile(r'\s*(?P<key>labels\.[^\s=!]+|[A-Za-z_]+)\s*(?P<op>!=|=)\s*'
                   r'(?P<value>"(?:[^"\\]|\\.)*"|[^\s"]+)\s*(?:AND\b|$)')


def _filter(expression: str, fields: dict[str, str]) -> tuple[Callable[[dict], bool], bool]:
    """A predicate for AIP-160 filters made of ``key=value`` terms joined by AND, and whether
    it reads the job's state (computed on rendering) rather than only what was submitted."""
    terms, pos = [], 0
    while pos < len(expression):
        match = _TERM.match(expression, pos)
        if not match or match.end() == pos:
            raise Refusal(400, "INVALID_ARGUMENT", f"Unsupported filter: {expression!r}.")
        key, value = match["key"], match["value"]
        value = json.loads(value) if value.startswith('"') else value
        if not key.startswith("labels.") and key not in fields:
            raise Refusal(400, "INVALID_ARGUMENT", f"Unsupported filter field {key!r}.")
        terms.append((key, match["op"], value))
        pos = match.end()
        if match[0].rstrip().endswith("AND") and pos >= len(expression):
            raise Refusal(400, "INVALID_ARGUMENT", f"Filter ends with AND: {expression!r}.")

    def get(job: dict, key: str) -> Any:
        if key.startswith("labels."):
            return (job.get("labels") or {}).get(key[len("labels."):])
        return job.get(fields[key])

    uses_state = any(fields.get(k) == "state" for k, _, _ in terms)
    return (lambda job: all((get(job, k) == v) == (op == "=") for k, op, v in terms)), uses_state


def _page(names: list[str], render: Callable[[str], dict], submitted: Callable[[str], dict],
          key: str, query: dict, fields: dict, default: int, limit: int) -> dict:
    """One page of jobs. Only the page is rendered, and a filter on what was submitted
    (labels, names) reads the stored job: listing stays cheap as jobs accumulate."""
    expression = query.get("filter", [""])[0].strip()
    if expression:
        keep, uses_state = _filter(expression, fields)
        if uses_state:
            rendered = {n: render(n) for n in names}
            names, render = [n for n in names if keep(rendered[n])], rendered.__getitem__
        else:
            names = [n for n in names if keep(submitted(n))]
    return _slice(names, key, query.get("pageSize", [None])[0], query.get("pageToken", [""])[0],
                  default, limit, render)


def _slice(items: list, key: str, size_value: Any, token: Any, default: int, limit: int,
           render: Callable[[Any], dict] = lambda item: item) -> dict:
    """One page of `items`, each through `render`; pageToken is an opaque offset, pageSize is
    capped at `limit`."""
    try:
        size = int(size_value or default) or default
        start = int(base64.urlsafe_b64decode(str(token)).decode()) if token else 0
    except (ValueError, TypeError) as exc:
        raise Refusal(400, "INVALID_ARGUMENT", "Invalid pageSize or pageToken.") from exc
    if size < 0 or start < 0:
        raise Refusal(400, "INVALID_ARGUMENT", "Invalid pageSize or pageToken.")
    size = min(size, limit)
    out: dict[str, Any] = {}
    if items[start:start + size]:  # Google omits empty repeated fields
        out[key] = [render(i) for i in items[start:start + size]]
    if start + size < len(items):
        out["nextPageToken"] = base64.urlsafe_b64encode(str(start + size).encode()).decode()
    return out


def _web_access(name: str, tasks: list[str], region: str) -> dict[str, str]:
    """Interactive-shell URIs per replica (the real ones are opaque hosts per node)."""
    return {t: f"https://{hashlib.sha256(f'{name}/{t}'.encode()).hexdigest()[:16]}-dot-"
               f"{region}.aiplatform-training.googleusercontent.com" for t in tasks}


def _region_of(name: str) -> str:
    return name.split("/")[3]


def _trial_values(params: list, trial: int) -> dict[str, str]:
    """The hyperparameters of emulated trial `trial`: deterministic points of each range."""
    out = {}
    for p in params:
        if not isinstance(p, dict) or not p.get("parameterName"):
            continue
        choices = p.get("categoricalValues") or p.get("discreteValues")
        if choices:
            out[p["parameterName"]] = str(choices[trial % len(choices)])
            continue
        low, high = float(p.get("minValue", 0)), float(p.get("maxValue", 1))
        value = low + (high - low) * ((trial * 7) % 10) / 10
        out[p["parameterName"]] = str(int(value)) if p.get("type") == "INTEGER" else f"{value:g}"
    return out


def _etag(name: str, version: int) -> str:
    return base64.b64encode(hashlib.sha256(f"{name}#{version}".encode()).digest()[:9]).decode()


def _rfc3339(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "trainspec-emulator"
    disable_nagle_algorithm = True  # headers and body go out in two writes; don't stall on ACKs

    def setup(self) -> None:
        # A socket timeout (StreamRequestHandler applies `timeout`): a client that stops
        # sending mid-request is dropped instead of holding a thread forever.
        self.timeout = self.server.request_timeout
        super().setup()

    def _serve(self) -> None:
        limit = self.server.max_body
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        refusal = None
        if self.headers.get("Transfer-Encoding"):
            refusal = Refusal(411, "INVALID_ARGUMENT", "Send the body with a Content-Length.")
        elif length < 0:
            refusal = Refusal(400, "INVALID_ARGUMENT", "Bad Content-Length.")
        elif length > limit:
            # Refused before reading: the body never reaches memory.
            refusal = Refusal(413, "INVALID_ARGUMENT",
                              f"Request payload size exceeds the limit: {limit} bytes.")
        if refusal is not None:
            self.close_connection = True  # the unread body must not be read as a request
            status, payload = refusal.code, refusal.body()
        else:
            try:
                body = self.rfile.read(length) if length else b""
            except TimeoutError:
                self.close_connection = True
                return
            if len(body) < length:  # the client hung up mid-body
                self.close_connection = True
                return
            status, payload = self.server.emulator.handle(self.command, self.path, body)
        if isinstance(payload, str):
            data, kind = payload.encode(), "text/html; charset=UTF-8"
        else:
            data = json.dumps(payload, indent=2, allow_nan=False).encode()
            kind = "application/json; charset=UTF-8"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

    def log_message(self, format: str, *args: Any) -> None:
        # Only the request line and status are logged, never headers (they carry the token).
        if self.server.emulator.log:
            self.server.emulator.log(f"{self.address_string()} {format % args}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    max_body = MAX_BODY_BYTES
    request_timeout = REQUEST_TIMEOUT

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that times out or hangs up is not an emulator failure: one line, no trace.
        exc = sys.exc_info()[1]
        if isinstance(exc, (TimeoutError, ConnectionError)):
            return
        super().handle_error(request, client_address)


def make_server(host: str = "127.0.0.1", port: int = 0, *, max_body: int = MAX_BODY_BYTES,
                request_timeout: float = REQUEST_TIMEOUT, **options: Any) -> ThreadingHTTPServer:
    """A bound, not yet serving, HTTP server around `Emulator(**options)`; ``.url`` is its base.
    Request bodies over `max_body` bytes get 413; a connection silent for `request_timeout`
    seconds is closed."""
    server = _Server((host, port), _Handler)
    server.max_body, server.request_timeout = max_body, request_timeout
    server.emulator = Emulator(**options)  # type: ignore[attr-defined]
    server.url = f"http://{host}:{server.server_address[1]}"  # type: ignore[attr-defined]
    return server


def serve(host: str = "127.0.0.1", port: int = 0, **options: Any):
    """Start an emulator in a daemon thread; returns (server, thread).

    ``server.url`` is the base URL, ``server.emulator`` the `Emulator`; stop with
    ``server.shutdown(); server.server_close()``. `options` are `Emulator` arguments.
    """
    server = make_server(host, port, **options)
    # A short poll interval makes shutdown() quick in tests.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name="trainspec-emulator", daemon=True)
    thread.start()
    return server, thread


def main(argv: list[str] | None = None) -> int:
    """CLI: ``python -m compiler emulator --port PORT [...]``; serves until interrupted."""
    parser = argparse.ArgumentParser(
        prog="trainspec emulator",
        description="Serve a local emulator of the Vertex AI CustomJob and "
                    "HyperparameterTuningJob and AI Platform Training Job REST APIs, and of Cloud "
                    "Logging entries:list for their jobs. Point trainspec at it with "
                    "TRAINSPEC_API_ENDPOINT.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--state", metavar="FILE", help="persist jobs in this JSON file")
    parser.add_argument("--step-seconds", type=float, default=2.0,
                        help="seconds per state step; 0 = jobs succeed at once")
    parser.add_argument("--fail-429", type=float, default=0.0, metavar="RATE",
                        help="refuse this fraction of requests with 429 RESOURCE_EXHAUSTED")
    parser.add_argument("--fail-503", type=float, default=0.0, metavar="RATE",
                        help="refuse this fraction of requests with 503 UNAVAILABLE")
    parser.add_argument("--seed", type=int, help="seed of the fault-injection RNG")
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    args = parser.parse_args(argv)
    server = make_server(
        args.host, args.port, state_file=args.state, progress_seconds=args.step_seconds,
        fault_rate_429=args.fail_429, fault_rate_503=args.fail_503, seed=args.seed,
        log=None if args.quiet else lambda line: print(line, file=sys.stderr, flush=True))
    print(f"trainspec emulator listening on {server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        server.emulator.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
