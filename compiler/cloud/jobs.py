"""What a job says, as both APIs return it: its states, its failure message, its links.

Pure functions over the JSON of a Vertex AI CustomJob or HyperparameterTuningJob (aiplatform v1)
or an AI Platform Training Job (ml v1); shared by the Pulumi providers (outputs, lifecycle) and
the CLI's status/logs/wait.
"""

from __future__ import annotations

from urllib.parse import quote

# [DD-AIP] CustomJob.state, [DD-ML] Job.state. Final: the job will not change again.
VERTEX_TERMINAL = frozenset({"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED",
                             "JOB_STATE_EXPIRED", "JOB_STATE_PARTIALLY_SUCCEEDED"})
VERTEX_NOT_ADOPTABLE = frozenset({"JOB_STATE_FAILED", "JOB_STATE_CANCELLED",
                                  "JOB_STATE_CANCELLING", "JOB_STATE_EXPIRED"})
ML_TERMINAL = frozenset({"SUCCEEDED", "FAILED", "CANCELLED"})
SUCCEEDED = "SUCCEEDED"


def short_state(state: str) -> str:
    """The state without Vertex's ``JOB_STATE_`` prefix: both APIs then read alike."""
    return state.removeprefix("JOB_STATE_") if state else "UNKNOWN"


def is_final(state: str) -> bool:
    return state in VERTEX_TERMINAL or state in ML_TERMINAL


def succeeded(state: str) -> bool:
    return short_state(state) == SUCCEEDED


def failure(job: dict) -> str:
    """The failure message of a failed job ("" otherwise): Vertex `error`, ml `errorMessage`."""
    if not str(job.get("state", "")).endswith("FAILED"):
        return ""
    return message(job) or "unknown failure"


def message(job: dict) -> str:
    """What the job says went wrong, whatever its state ("" if nothing): a cancelled job's
    reason, a failed job's error."""
    error = job.get("error")
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    return str(job.get("errorMessage") or "")


def job_id(name: str) -> str:
    """The last segment of a job's resource name: Vertex's numeric id, ml's jobId."""
    return name.rsplit("/", 1)[-1]


def vertex_console_url(name: str, project: str) -> str:
    region = name.split("/")[3]
    return (f"https://console.cloud.google.com/vertex-ai/locations/{region}/training/"
            f"{job_id(name)}/cpu?project={project}")


def tuning_console_url(name: str, project: str) -> str:
    return (f"https://console.cloud.google.com/vertex-ai/training/hyperparameter-tuning-jobs/"
            f"{job_id(name)}?project={project}")


def best_trial(job: dict) -> dict | None:
    """The SUCCEEDED trial of a Vertex tuning job best on the study's first metric (its goal), or
    None: {id, parameters: {id: value}, metrics: {id: value}}."""
    metrics = ((job.get("studySpec") or {}).get("metrics") or [{}])[0]
    wanted, minimize = metrics.get("metricId"), metrics.get("goal") == "MINIMIZE"
    scored = []
    for trial in job.get("trials") or ():
        if trial.get("state") != SUCCEEDED:
            continue
        values = {m.get("metricId"): m.get("value")
                  for m in (trial.get("finalMeasurement") or {}).get("metrics") or ()}
        value = values.get(wanted)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            scored.append((-value if minimize else value, trial, values))
    if not scored:
        return None
    _, trial, values = max(scored, key=lambda item: item[0])  # the first of equals
    return {"id": trial.get("id"), "metrics": values,
            "parameters": {p.get("parameterId"): p.get("value")
                           for p in trial.get("parameters") or ()}}


def ml_console_url(name: str, project: str) -> str:
    return f"https://console.cloud.google.com/ai-platform/jobs/{job_id(name)}?project={project}"


def logs_url(name: str, project: str) -> str:
    """Cloud Logging for the job: both APIs log as resource.type="ml_job" with its job_id."""
    query = quote(logs_filter(name).replace(" AND ", "\n"), safe="")
    return f"https://console.cloud.google.com/logs/query;query={query}?project={project}"


def logs_filter(name: str) -> str:
    """The Cloud Logging filter of a job's entries (Vertex and ml jobs alike)."""
    return f'resource.type="ml_job" AND resource.labels.job_id="{job_id(name)}"'


def tensorboard_url(tensorboard: str, name: str) -> str:
    """The TensorBoard web app of a Vertex job that uploads to `tensorboard`
    (``projects/P/locations/L/tensorboards/T``): its experiment is named after the job id.
    Same form as the Vertex SDK (google-cloud-aiplatform `utils/console_utils.py`,
    `custom_job_tensorboard_console_uri`)."""
    location = tensorboard.split("/")[3]
    experiment = f"{tensorboard}/experiments/{job_id(name)}".replace("/", "+")
    return f"https://{location}.tensorboard.googleusercontent.com/experiment/{experiment}"
