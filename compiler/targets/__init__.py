"""One lowering module per API: `check(job, collector, today)` then `lower(job)`."""

# (platform, spec kind) → (discovery document, schema of the create request body).
BODIES = {
    ("vertex", "TrainingJob"): ("aiplatform", "GoogleCloudAiplatformV1CustomJob"),
    ("vertex", "HyperparameterTuningJob"):
        ("aiplatform", "GoogleCloudAiplatformV1HyperparameterTuningJob"),
    ("ai-platform", "TrainingJob"): ("ml", "GoogleCloudMlV1__Job"),
    ("ai-platform", "HyperparameterTuningJob"): ("ml", "GoogleCloudMlV1__Job"),
}


def body_schema(platform: str, kind: str = "TrainingJob") -> tuple[str, str]:
    """(discovery API, schema name) of the request a job of `kind` compiles to on `platform`."""
    return BODIES[(platform, kind)]


def compact(d: dict) -> dict:
    """Drop unset values: absent, empty lists and empty mappings are never sent."""
    return {k: v for k, v in d.items() if v is not None and v != [] and v != {}}
