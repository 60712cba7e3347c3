"""The quota check in a real preview: a stack whose jobs together need more of a verified quota
than the project has free fails at the spec that tips it over, and nothing is sent; a job that
fits is priced on its resource."""

from __future__ import annotations

from job_specs import h100
from test_provider_yaml import yaml_project  # noqa: F401 - the Pulumi YAML program fixture

FLEX = "{timeout: 2h, strategy: FLEX_START}"
H100 = "aiplatform.googleapis.com/custom_model_training_preemptible_nvidia_h100_gpus"


def test_preview_fails_on_quota_with_nothing_sent(yaml_project, emulator):  # noqa: F811
    emulator.api.quotas[(H100, "us-central1")] = [24, 2]  # 22 free; two jobs need 32
    p = yaml_project()
    p.write("specs/llm-a.yaml", h100("llm-a", 1, FLEX))
    p.write("specs/llm-b.yaml", h100("llm-b", 1, FLEX))
    preview = p.run("preview", check=False)
    text = preview.stdout + preview.stderr
    assert preview.returncode != 0, text
    assert f"{H100} in us-central1: the jobs need 32 at once" in text, text
    assert "limit is 24 with 2 in use now" in text and "[quota]" in text
    assert "specs/llm-" in text and "Traceback" not in text
    # The job that fits is priced on its resource (Flex-start, 2 × (A3 + 8 × H100)).
    assert "cost: $" in text and "for the 2h timeout" in text, text
    assert emulator.calls == []  # no job created, listed or read
    assert emulator.quota_reads  # the limits and usage were read
    # `up` steps resources in parallel: the job that fits alone may be submitted, the one that
    # tips the sum over never is.
    up = p.run("up", "--yes", "--skip-preview", check=False)
    assert up.returncode != 0 and "[quota]" in up.stdout + up.stderr
    assert len(emulator.requests("POST", "/customJobs HTTP")) <= 1
    assert len(emulator.vertex_jobs()) <= 1


def test_replacing_the_running_job_that_holds_the_quota_fits(yaml_project, emulator):  # noqa: F811
    """All 16 of 16 held by the stack's own running job: an edit replaces it delete-first, so
    preview and `up --skip-preview` check the new job against the usage less its share."""
    emulator.api.quotas[(H100, "us-central1")] = [16, 0]
    p = yaml_project()
    held = h100("llm", 1, FLEX).replace("  name: llm\n", "  name: llm\n  labels: "
                                        "{emulator-hold: running}\n")
    p.write("specs/llm.yaml", held)
    p.up()
    assert [j["state"] for j in emulator.vertex_jobs().values()] != []
    p.write("specs/llm.yaml", held.replace("llm:1.0", "llm:1.1"))
    preview = p.run("preview", check=False)
    text = preview.stdout + preview.stderr
    assert preview.returncode == 0 and "[quota]" not in text, text
    # Said once, though the engine checks the replaced resource twice.
    assert text.split("Diagnostics:")[1].count("cost: $") == 1, text
    up = p.up(check=False)
    assert up.returncode == 0, up.stdout + up.stderr
    states = sorted(j["state"] for j in emulator.vertex_jobs().values())
    assert len(states) == 2 and "JOB_STATE_CANCELLED" in states or \
        "JOB_STATE_CANCELLING" in states, states
