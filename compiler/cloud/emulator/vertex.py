"""The Vertex AI CustomJob and HyperparameterTuningJob routes of the emulator."""

from __future__ import annotations

import copy

from compiler.cloud.emulator import logs as cloud_logging
from compiler.cloud.emulator import tuning as emulated_tuning

from .common import (
    COLLECTIONS,
    HOLD_LABEL,
    HOLD_VALUE,
    ID_BASE,
    RESULT_FAILED,
    RESULT_LABEL,
    VERTEX_STEPS,
    VERTEX_TERMINAL,
    Refusal,
    invalid,
    parse_body,
    rfc3339,
    web_access,
)
from .listing import VERTEX_FILTER_FIELDS, page
from .rules import schema_violations, server_rules


class VertexApi:
    """The aiplatform v1 customJobs and hyperparameterTuningJobs methods (part of `Emulator`)."""

    def _vertex_create(self, m, query, body) -> dict:
        job = parse_body(body)
        key, schema, _ = COLLECTIONS[m["c"]]
        problems = schema_violations("aiplatform", schema, job) + server_rules(
            "aiplatform", job, schema)
        if problems:
            raise invalid(problems)
        self._check_quota(m["r"], job)
        name = (f"projects/{m['p']}/locations/{m['r']}/{m['c']}/"
                f"{ID_BASE + self.state['next_id']}")
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
        return page(names, self._render_vertex, lambda n: records[n]["job"],
                     m["c"], query, VERTEX_FILTER_FIELDS, 100, 1000)

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
        if job["state"] not in VERTEX_TERMINAL:
            raise Refusal(400, "FAILED_PRECONDITION",
                          f"{kind} {name} is in state {job['state']}; cancel it first.")
        del self.state[key][name]
        op_id = ID_BASE + self.state["next_id"]
        self.state["next_id"] += 1
        now = rfc3339(self.clock())
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
                        trial[key] = rfc3339(trial[key])
            if found:
                job["trials"] = found
        job.update(state=state, createTime=rfc3339(rec["created"]),
                   updateTime=rfc3339(times["update"]))
        if "start" in times:
            job["startTime"] = rfc3339(times["start"])
        if "end" in times:
            job["endTime"] = rfc3339(times["end"])
        if state == "JOB_STATE_CANCELLED":
            job["error"] = {"code": 1, "message": "CANCELED"}
        elif state == "JOB_STATE_FAILED":
            job["error"] = {"code": 13, "message": "Emulated failure (label emulator-result)."}
        spec = job.get("jobSpec") or {}
        if state == "JOB_STATE_RUNNING" and (spec.get("enableWebAccess")
                                             or spec.get("enableDashboardAccess")):
            job["webAccessUris"] = web_access(name, cloud_logging.vertex_tasks(job), _region_of(name))
        return job


def _region_of(name: str) -> str:
    return name.split("/")[3]


