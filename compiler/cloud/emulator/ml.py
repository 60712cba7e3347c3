"""The AI Platform Training (ml v1) Job routes of the emulator."""

from __future__ import annotations

import copy
from typing import Any

from compiler import discovery
from compiler.cloud.emulator import logs as cloud_logging

from .common import ML_SCHEMA, ML_STEPS, Refusal, etag, invalid, parse_body, rfc3339, web_access
from .listing import ML_FILTER_FIELDS, page
from .rules import ml_rules, schema_violations


class MlApi:
    """The ml v1 projects.jobs methods (part of `Emulator`)."""

    def _ml_create(self, m, query, body) -> dict:
        job = parse_body(body)
        problems = schema_violations("ml", ML_SCHEMA, job) + ml_rules(job)
        if problems:
            raise invalid(problems)
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
        return page(names, self._render_ml, lambda n: self.state["ml"][n]["job"],
                     "jobs", query, ML_FILTER_FIELDS, 20, 100)

    def _ml_cancel(self, m, query, body) -> dict:
        name = self._ml_name(m)
        self._cancel("ml", name, self._render_ml(name)["state"])
        return {}

    def _ml_patch(self, m, query, body) -> dict:
        name = self._ml_name(m)
        rec, patch = self.state["ml"][name], parse_body(body)
        mask = [f for f in ",".join(query.get("updateMask", [])).split(",") if f]
        problems = schema_violations("ml", ML_SCHEMA, patch)
        if not mask:
            problems.append(("update_mask", "updateMask is required."))
        problems += [("update_mask", f"Field {f!r} cannot be updated; only labels can.")
                     for f in mask if f != "labels"]
        problems += [(discovery.to_snake_path(k), "Only labels and etag can be sent in an update.")
                     for k in patch if k not in ("labels", "etag")]
        if "etag" not in patch:
            problems.append(("etag", "etag is required; read the job first."))
        if problems:
            raise invalid(problems)
        if patch["etag"] != etag(name, rec["version"]):
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
        job.update(state=state, createTime=rfc3339(rec["created"]),
                   etag=etag(name, rec["version"]), trainingOutput={})
        if "start" in times:
            job["startTime"] = rfc3339(times["start"])
        if "end" in times:
            job["endTime"] = rfc3339(times["end"])
        if state in ("CANCELLING", "CANCELLED"):
            job["errorMessage"] = "Job was cancelled by the user."
        elif state == "FAILED":
            job["errorMessage"] = "Emulated failure (label emulator-result)."
        ti = job.get("trainingInput") or {}
        if state == "RUNNING" and ti.get("enableWebAccess"):
            job["trainingOutput"]["webAccessUris"] = web_access(
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
                "startTime": rfc3339(start), "endTime": rfc3339(at)})
        out: dict[str, Any] = {"isHyperparameterTuningJob": True,
                               "completedTrialCount": str(done)}
        if spec.get("hyperparameterMetricTag"):
            out["hyperparameterMetricTag"] = spec["hyperparameterMetricTag"]
        if trials:
            out["trials"] = trials
        return out


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


