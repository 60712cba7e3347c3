"""A job's log in Cloud Logging, for `logs`: a reader of the entries not yet shown, and one
line per entry."""

from __future__ import annotations

import datetime
import json

from ..cloud import jobs as api
from ..cloud.rest import Client
from . import track

LOG_OVERLAP = 60.0  # seconds re-read on each poll: entries that arrive late are still shown


def _stamp(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def log_line(platform: str, entry: dict, job: dict | None = None) -> str:
    """One entry: time, replica, severity (if above INFO) and message; `job` (the API's) tells
    Vertex's pool 2 apart (parameterServer or reductionServer)."""
    labels = (entry.get("resource") or {}).get("labels") or {}
    task = labels.get("task_name") or (entry.get("labels") or {}).get(
        "ml.googleapis.com/task_name") or track.SERVICE
    payload = entry.get("jsonPayload")
    if entry.get("textPayload") is not None:
        text = str(entry["textPayload"])
    elif isinstance(payload, dict) and "message" in payload:
        text = str(payload["message"])
    else:
        text = json.dumps(payload if payload is not None else entry.get("protoPayload", {}),
                          sort_keys=True)
    severity = entry.get("severity", "DEFAULT")
    level = "" if severity in ("DEFAULT", "DEBUG", "INFO", "NOTICE") else f"{severity} "
    moment = track.parse_time(entry.get("timestamp"))
    when = f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z" if moment else "-"
    return f"{when} {track.replica_name(platform, task, job):<18} {level}{text.rstrip()}"


class LogReader:
    """New entries of one job on each `read()`, each entry once, in order."""

    def __init__(self, client: Client, found: track.Found, since: datetime.datetime,
                 replica: str | None):
        self.client, self.found = client, found
        job = found.job or {}
        base = api.logs_filter(job.get("name", ""))
        self.filter = base + (f" AND {replica}" if replica else "")
        self.cursor = since
        self.seen: dict[str, datetime.datetime] = {}

    def read(self) -> list[dict]:
        start = self.cursor - datetime.timedelta(seconds=LOG_OVERLAP) if self.seen else self.cursor
        entries = self.client.log_entries(self.found.project, f'{self.filter} AND '
                                          f'timestamp>="{_stamp(start)}"')
        new = []
        for e in entries:
            key = str(e.get("insertId") or json.dumps(e, sort_keys=True))
            if key in self.seen:
                continue
            moment = track.parse_time(e.get("timestamp")) or self.cursor
            self.seen[key] = moment
            self.cursor = max(self.cursor, moment)
            new.append(e)
        horizon = self.cursor - datetime.timedelta(seconds=2 * LOG_OVERLAP)
        self.seen = {k: t for k, t in self.seen.items() if t >= horizon}  # bounded memory
        return new
