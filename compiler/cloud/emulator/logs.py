"""The Cloud Logging side of the emulator: ``POST /v2/entries:list`` for the jobs it runs.

Both training APIs log to Cloud Logging as monitored resource ``ml_job`` with labels
``project_id``, ``job_id`` (Vertex: the CustomJob's numeric id; ml: the jobId) and ``task_name``.
Each replica logs under its task name, also in the entry label
``ml.googleapis.com/task_name``: Vertex ``workerpool<pool>-<index>`` (the names of
CustomJob.webAccessUris, [DD-AIP]), AI Platform ``master-replica-0``, ``worker-replica-<i>``,
``ps-replica-<i>``, ``evaluator-replica-<i>`` (TrainingOutput.webAccessUris, [DD-ML]). What the
service itself says about the job (provisioning, completion) has task_name ``service``.

The lines are emulated, not real training output, and deterministic: the service's
provisioning line at creation; when the job runs, a start line per replica and three
``step k/3`` lines per replica spread over the RUNNING step; at the end a line per replica and
the service's verdict (a failure is an ERROR line of the chief and of the service). A cancelled
job's replicas say nothing after the cancel. Entries appear once the emulator's clock reaches
their timestamp, as the job progresses.

Requests are checked like the real API's: ``resourceNames`` (``projects/P``) is required,
``orderBy`` is ``timestamp asc`` (default) or ``timestamp desc``, ``pageSize`` is at most 1000
(default 50), and a filter that does not parse is a 400. The emulator understands the filters
clients need: comparisons (``= != < <= > >= : =~ !~``, optionally negated with NOT) joined by
AND, over resource.type, resource.labels.*, labels.*, logName, severity, timestamp,
receiveTimestamp, insertId, textPayload and jsonPayload.*; OR and parentheses are refused.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import Any

SEVERITIES = ("DEFAULT", "DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL", "ALERT",
              "EMERGENCY")
ORDERS = ("timestamp asc", "timestamp desc")
TASK_LABEL = "ml.googleapis.com/task_name"
SERVICE = "service"
DEFAULT_PAGE, MAX_PAGE = 50, 1000
STEPS = 3
_ML_ROLES = (("master", None), ("worker", "workerCount"), ("ps", "parameterServerCount"),
             ("evaluator", "evaluatorCount"))


class FilterError(ValueError):
    """A filter the API would not parse; the message is the API's kind of answer."""


# --- who logs --------------------------------------------------------------------------------

def vertex_tasks(job: dict) -> list[str]:
    """Task names of a CustomJob's replicas: ``workerpool<pool>-<index>``."""
    pools = ((job.get("jobSpec") or {}).get("workerPoolSpecs")) or []
    return [f"workerpool{i}-{r}" for i, pool in enumerate(pools) if isinstance(pool, dict) and pool
            for r in range(replica_count(pool.get("replicaCount"), 1))]


def ml_tasks(job: dict) -> list[str]:
    """Task names of an ml Job's replicas: ``master-replica-0``, ``worker-replica-<i>``…"""
    ti = job.get("trainingInput") or {}
    out = []
    for role, count_field in _ML_ROLES:
        count = 1 if count_field is None else replica_count(ti.get(count_field), 0)
        out += [f"{role}-replica-{i}" for i in range(count)]
    return out


def replica_count(value: Any, default: int) -> int:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return default


# --- what they say ---------------------------------------------------------------------------

def job_entries(project: str, job_id: str, tasks: list[str], times: dict[str, float],
                outcome: str, step_seconds: float, now: float) -> list[dict]:
    """The log entries of one job up to `now`, oldest first.

    `times`: ``created``, and ``start``, ``end``, ``cancelled`` once they happened (epoch
    seconds); `outcome`: the final state without prefix (SUCCEEDED, FAILED, CANCELLED) or "".
    """
    events: list[tuple[float, str, int, str, str]] = []  # (time, task, n, severity, text)

    def say(at: float, task: str, n: int, text: str, severity: str = "INFO") -> None:
        events.append((at, task, n, severity, text))

    created, start = times["created"], times.get("start")
    end, cancelled = times.get("end"), times.get("cancelled")
    say(created, SERVICE, 0, "Waiting for job to be provisioned.")
    if start is not None:
        say(start, SERVICE, 1, "Waiting for training program to start.")
        stop = min(t for t in (end, cancelled, float("inf")) if t is not None)
        for task in tasks:
            say(start, task, 0, "[emulator] training started")
            for k in range(1, STEPS + 1):
                at = start + k * step_seconds / (STEPS + 1)
                if at <= stop:
                    say(at, task, k, f"[emulator] step {k}/{STEPS} loss={1 / (k + 1):.4f}")
    if end is not None and outcome == "SUCCEEDED":
        for task in tasks:
            say(end, task, STEPS + 1, "[emulator] training finished")
        say(end, SERVICE, 2, "Job completed successfully.")
    elif end is not None and outcome == "FAILED" and tasks:
        say(end, tasks[0], STEPS + 1, "RuntimeError: emulated failure (label emulator-result: "
            "failed)", "ERROR")
        say(end, SERVICE, 2, f"The replica {tasks[0]} exited with a non-zero status of 1.",
            "ERROR")
        say(end, SERVICE, 3, "Job failed.", "ERROR")
    elif end is not None and outcome == "CANCELLED":
        say(end, SERVICE, 2, "Job was cancelled.")
    order = {SERVICE: -1, **{t: i for i, t in enumerate(tasks)}}

    def rank(e: tuple) -> tuple:
        # Equal timestamps (a zero step) keep the story's order: the service's opening lines
        # (n <= 1), the replicas in turn, then the service's verdict.
        phase = 1 if e[1] != SERVICE else 0 if e[2] <= 1 else 2
        return (e[0], phase, order[e[1]], e[2])

    events.sort(key=rank)
    return [_entry(project, job_id, *e) for e in events if e[0] <= now]


def _entry(project: str, job_id: str, at: float, task: str, n: int, severity: str,
           text: str) -> dict:
    stamp = rfc3339(at)
    entry: dict[str, Any] = {
        "insertId": f"{job_id}-{task}-{n}",
        "logName": f"projects/{project}/logs/" + (task if task != SERVICE else
                                                  f"ml.googleapis.com%2F{job_id}"),
        "resource": {"type": "ml_job", "labels": {"project_id": project, "job_id": job_id,
                                                  "task_name": task}},
        "timestamp": stamp, "receiveTimestamp": stamp, "severity": severity,
    }
    if task == SERVICE:
        entry["jsonPayload"] = {"message": text}
    else:
        entry["labels"] = {TASK_LABEL: task}
        entry["textPayload"] = text
    return entry


def rfc3339(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(text: str) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise FilterError(f"Invalid timestamp {text!r}: expected RFC 3339, e.g. "
                          "2024-01-01T00:00:00Z.") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment


# --- filters ---------------------------------------------------------------------------------

_TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<op>!=|>=|<=|=~|!~|[=<>:])|'
                    r'(?P<paren>[()])|(?P<word>[^\s=<>:!()"]+))')
_FIELD = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*(?:\.(?:[A-Za-z_][A-Za-z0-9_/-]*|"[^"]*"))*$')
_ROOTS = ("resource", "labels", "logName", "severity", "timestamp", "receiveTimestamp",
          "insertId", "textPayload", "jsonPayload")


def compile_filter(text: str) -> Callable[[dict], bool]:
    """A predicate over entries for `text`, or FilterError (the API's 400)."""
    tokens = _tokens(text)
    terms, i = [], 0
    while i < len(tokens):
        negate = False
        if tokens[i] == ("word", "NOT"):
            negate, i = True, i + 1
        if i + 3 > len(tokens):
            raise FilterError(f"Unparseable filter: incomplete comparison at the end of {text!r}.")
        (k1, field), (k2, op), (k3, value) = tokens[i:i + 3]
        if k1 != "word" or k2 != "op" or k3 not in ("word", "str"):
            raise FilterError(f"Unparseable filter: expected `field OPERATOR value` in {text!r}.")
        terms.append((negate, _field(field), op, _value(value, k3)))
        i += 3
        if i < len(tokens):
            if tokens[i] in (("word", "OR"), ("paren", "("), ("paren", ")")):
                raise FilterError(f"Unsupported filter {text!r}: the emulator understands "
                                  "comparisons joined by AND.")
            if tokens[i] != ("word", "AND"):
                raise FilterError(f"Unparseable filter: expected AND after a comparison in "
                                  f"{text!r}.")
            i += 1
            if i >= len(tokens):
                raise FilterError(f"Unparseable filter: {text!r} ends with AND.")
    checks = [_check(t) for t in terms]
    return lambda entry: all(check(entry) for check in checks)


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        if not text[pos:].strip():
            break
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise FilterError(f"Unparseable filter: unexpected character at {pos} of {text!r}.")
        kind = match.lastgroup or ""
        out.append((kind, match[kind]))
        pos = match.end()
    return out


def _field(text: str) -> list[str]:
    if not _FIELD.match(text):
        raise FilterError(f"Unparseable filter: {text!r} is not a field path.")
    parts = re.findall(r'"[^"]*"|[^.]+', text)
    parts = [p[1:-1] if p.startswith('"') else p for p in parts]
    if parts[0] not in _ROOTS:
        raise FilterError(f"Unparseable filter: unknown field {parts[0]!r}.")
    return parts


def _value(text: str, kind: str) -> str:
    if kind == "str":
        return re.sub(r'\\(.)', r"\1", text[1:-1])
    return text


def _get(entry: dict, path: list[str]) -> Any:
    value: Any = entry
    for part in path:
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def _check(term: tuple[bool, list[str], str, str]) -> Callable[[dict], bool]:
    negate, path, op, wanted = term
    if path[0] in ("timestamp", "receiveTimestamp"):
        moment = parse_time(wanted)
        key: Callable[[Any], Any] = lambda v: parse_time(v) if isinstance(v, str) else None  # noqa: E731
        target: Any = moment
    elif path == ["severity"]:
        if wanted.upper() not in SEVERITIES:
            raise FilterError(f"Unparseable filter: unknown severity {wanted!r}.")
        key = lambda v: SEVERITIES.index(v) if v in SEVERITIES else 0  # noqa: E731
        target = SEVERITIES.index(wanted.upper())
    else:
        key, target = (lambda v: v if isinstance(v, str) else None), wanted
    if op in ("=~", "!~"):
        try:
            pattern = re.compile(wanted)
        except re.error as exc:
            raise FilterError(f"Unparseable filter: invalid regular expression {wanted!r}.") \
                from exc

    def check(entry: dict) -> bool:
        value = key(_get(entry, path))
        if op in ("=~", "!~"):
            found = value is not None and bool(pattern.search(str(value)))
            result = found if op == "=~" else not found
        elif value is None:
            result = op == "!="
        elif op == ":":
            result = str(target) in str(value) if isinstance(target, str) else value == target
        else:
            result = {"=": value == target, "!=": value != target, "<": value < target,
                      "<=": value <= target, ">": value > target, ">=": value >= target}[op]
        return result != negate

    return check
