"""What a document that is not a spec is: a job config `import` reads (gcloud, REST, SDK), named
so that validate can say "convert it" instead of "missing apiVersion"; importers/sources.py
reads the same keys to load one."""

from __future__ import annotations

SDK_KEYS = ("worker_pool_specs", "job_spec", "trial_job_spec", "container_uri",
             "ai_platform_training_args", "training_input")


def describe(data: dict) -> str | None:
    """What job config `data` is (a phrase for messages), or None when it is none `import`
    reads: how a spec folder tells a stray gcloud config from a broken spec."""
    if "trainingInput" in data:
        return ("an AI Platform Training (ml v1) REST body" if "jobId" in data else
                "a gcloud ai-platform jobs submit training --config file")
    if "trialJobSpec" in data or "studySpec" in data:
        return "a Vertex AI hyperparameter tuning job"
    if "jobSpec" in data:
        return "a Vertex AI CustomJob REST body"
    if "workerPoolSpecs" in data:
        return "a gcloud ai custom-jobs create --config file (a CustomJobSpec)"
    if any(k in data for k in SDK_KEYS):
        return "a set of Vertex AI Python SDK arguments"
    return None
