"""A job's state holds what trainspec needs and not the SDK's call stack (issue 22's destroy
of N jobs, issue 23's linear up): the engine rewrites the whole state after every step, so each
byte per job is paid once per job per step. Checked from the Python program and from a YAML
program (the provider's Construct), as `pulumi stack export` shows the state."""

from __future__ import annotations

import json

import pytest
from job_specs import vertex

# What one small Vertex job measured (bytes of its compact JSON in the export): 3,840 with the
# call stack and an encrypted empty secretEnv, 2,380 without. The bound leaves room for a new output, not for
# a stack trace (1,200 bytes here) to come back.
MOST_BYTES_PER_JOB = 2_700


@pytest.mark.parametrize("runtime", ["python", "yaml"])
def test_a_job_is_stored_without_the_programs_call_stack(project, emulator, runtime, request):
    if runtime == "yaml":
        request.getfixturevalue("yaml_host")
    p = project(runtime=runtime)
    for i in range(3):
        p.write(f"specs/job-{i}.yaml", vertex(name=f"job-{i}"))
    p.write("specs/keyed.yaml", vertex(name="keyed") + "  env: {WANDB_API_KEY: {secret: key}}\n")
    p.run("config", "set", "--secret", "trainspec:key", "s3cr3t-lean")
    p.up()
    jobs = {job["urn"].rsplit("::", 1)[1]: job for job in p.resources()}
    assert sorted(jobs) == ["job-0", "job-1", "job-2", "keyed"]
    for name, job in jobs.items():
        assert not job.get("stackTrace") and not job.get("sourcePosition"), job
        if name == "keyed":  # a secret value stays a ciphertext in inputs and outputs
            for props in (job["inputs"], job["outputs"]):
                assert set(props["secretEnv"]) >= {"ciphertext"}, props["secretEnv"]
            continue
        # No secret env: an empty map, not a ciphertext of nothing.
        assert job["inputs"]["secretEnv"] == {} == job["outputs"]["secretEnv"], job
        size = len(json.dumps(job, separators=(",", ":")))
        assert size <= MOST_BYTES_PER_JOB, (size, job)
    assert "s3cr3t-lean" not in json.dumps(p.state())
    # The component itself is registered as before: only its jobs leave the stack out.
    specs = p.resources("index:Specs")
    assert len(specs) == 1
    # Nothing else changed: a second up is a no-op.
    again = p.run("preview", "--diff")
    assert "to create" not in again.stdout and "to update" not in again.stdout, again.stdout
