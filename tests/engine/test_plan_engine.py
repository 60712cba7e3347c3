"""The plan under the real engine (issue 19): a label rollout re-runs no finished job, every
trainspec warning of a spec reaches `pulumi preview` and `pulumi up` on its resource, and the
stack's outputs agree with `trainspec status` after a refresh.
"""

from __future__ import annotations

import json
import time

import pytest
from job_specs import ml, vertex

from compiler import plan

BERT, GPT, CENSUS = "specs/bert.yaml", "specs/gpt.yaml", "specs/census.yaml"


def _finished(p, emulator, refresh: tuple[str, ...] = ()) -> None:
    """Wait until every job of the emulator is SUCCEEDED or CANCELLED, then refresh the
    stack."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        states = [j["state"] for j in [*emulator.vertex_jobs().values(),
                                        *emulator.ml_jobs().values()]]
        if all(s in ("JOB_STATE_SUCCEEDED", "SUCCEEDED", "JOB_STATE_CANCELLED") for s in states):
            break
        time.sleep(0.5)
    p.run("refresh", "--yes", "--skip-preview", *refresh)


def _diagnostics(stdout: str) -> dict[str, list[str]]:
    """The lines of Pulumi's Diagnostics section by resource heading ("VertexCustomJob (bert)"),
    each line without its indentation."""
    said: dict[str, list[str]] = {}
    for block in stdout.split("Diagnostics:", 1)[1].split("\n\n"):
        heading, *lines = block.strip("\n").splitlines() or [""]
        if heading.startswith("  ") and heading.endswith("):"):
            said[heading.strip().rstrip(":").split(":")[-1]] = [line.strip() for line in lines]
    return said


def test_a_required_label_rolled_out_over_finished_jobs_re_runs_none(project, emulator):
    """A platform team adds `requiredLabels: [team, cost-center]`; every team adds the label.
    The next `pulumi up` records it for the Vertex jobs' next run and patches the AI Platform
    job: no job is submitted again."""
    p = project()
    p.write(BERT, vertex())
    p.write(GPT, vertex(name="gpt"))
    p.write(CENSUS, ml())
    p.up()
    _finished(p, emulator)
    created = (len(emulator.vertex_jobs()), len(emulator.ml_jobs()))
    posts = len(emulator.requests("POST"))

    p.write("trainspec.yaml", "policy:\n  requiredLabels: [team, cost-center]\n")
    assert p.run("preview", check=False).returncode != 0  # the policy holds before the labels
    p.write(BERT, vertex(labels=", cost-center: cc-1"))
    p.write(GPT, vertex(name="gpt", labels=", cost-center: cc-1"))
    p.write(CENSUS, ml(labels=", cost-center: cc-1"))
    preview = p.run("preview")
    assert "+-" not in preview.stdout and "to replace" not in preview.stdout, preview.stdout
    # One line on each Vertex job, none on the patched one (each job also says its cost).
    said = _diagnostics(preview.stdout)
    recorded = {"VertexCustomJob (bert)", "VertexCustomJob (gpt)"}
    assert {job for job, lines in said.items() if plan.LABELS_RECORDED in lines} == recorded
    assert all(said[job].count(plan.LABELS_RECORDED) == 1 for job in recorded), said
    assert "~ 3 to update" in preview.stdout, preview.stdout

    up = p.up()
    assert "to replace" not in up.stdout
    assert sum(lines.count(plan.LABELS_RECORDED) for lines in _diagnostics(up.stdout).values()) == 2
    assert (len(emulator.vertex_jobs()), len(emulator.ml_jobs())) == created
    assert len(emulator.requests("POST")) == posts  # nothing submitted, nothing cancelled
    assert emulator.requests("PATCH", "/jobs/census")  # ml v1 labels: patched in place
    assert emulator.ml_jobs()["projects/acme-test/jobs/census"]["labels"]["cost-center"] == "cc-1"
    # The new labels are in state: a later change submits its job with them.
    bert = next(r for r in p.resources() if r["urn"].endswith("::bert"))
    assert bert["outputs"]["request"]["labels"]["cost-center"] == "cc-1"
    assert "5 unchanged" in p.up().stdout
    p.write(BERT, vertex(steps=20, labels=", cost-center: cc-1"))
    replaced = p.up()
    assert plan.REPLACE_COSTS[plan.FINISHED] in replaced.stdout, replaced.stdout
    newest = max(emulator.vertex_jobs().values(), key=lambda j: j["createTime"])
    assert newest["labels"]["cost-center"] == "cc-1"


WARNED = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: warned
spec:
  python:
    executorImage: us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-1:latest
    packages: [gs://acme-code/trainer-0.1.tar.gz]
    module: trainer.task
  env:
    WANDB_API_KEY: 0123456789abcdef0123456789abcdef01234567
  pools:
    chief: {machineType: n1-standard-4}
"""


@pytest.mark.parametrize("runtime", ["python", "yaml"])
def test_every_warning_of_a_spec_reaches_preview_and_up_on_its_resource(project, emulator,
                                                                        request, runtime):
    """A spec's own warnings (its job's Check logs them) and what only the folder's discovery
    says of it (a link to a file outside the folder, logged by the Specs component), from
    trainspec's Python program and from a Pulumi YAML program (the component's Construct)."""
    if runtime == "yaml":
        request.getfixturevalue("yaml_host")
    p = project(runtime=runtime)
    p.write("specs/warned.yaml", WARNED)
    p.write("shared/linked.yaml", vertex(name="linked"))
    (p.root / "specs" / "linked.yaml").symlink_to(p.root / "shared" / "linked.yaml")
    validate = p.trainspec("validate", "specs", "--project", "acme-test", "--region",
                           "us-central1", "--format", "json")
    found = json.loads(validate.stdout)
    warnings = [d for d in found["diagnostics"] if d["severity"] == "warning"]
    assert {d["code"] for d in warnings} == {"executor-image-retired", "plaintext-secret",
                                             "spec-link"}
    for command in (("preview",), ("up", "--yes", "--skip-preview")):
        out = p.run(*command).stdout
        for d in warnings:
            line = f"{d['file']}:{d['line']}:{d['column']}: warning: {d['path']}: "
            assert line in out and f"[{d['code']}]" in out, (command, line, out)
        diagnostics = out.split("Diagnostics:", 1)[1]
        for name, codes in (("warned", ("executor-image-retired", "plaintext-secret")),
                            ("linked", ("spec-link",))):
            block = diagnostics.split(f"trainspec:index:VertexCustomJob ({name}):", 1)[1]
            block = block.split("\n\n", 1)[0]  # the warnings attached to this job
            assert all(f"[{c}]" in block for c in codes), (name, block)


def test_stack_outputs_agree_with_status_after_a_refresh(project, emulator):
    """`pulumi refresh --run-program` (or PULUMI_RUN_PROGRAM=true) reads the jobs and runs the
    program, so the stack's outputs are the refreshed ones (docs/pulumi.md "Stack outputs")."""
    p = project()
    p.write(BERT, vertex())
    p.write(CENSUS, ml())
    p.up()
    assert p.outputs()["jobs"]["bert"]["state"] != "JOB_STATE_SUCCEEDED"
    _finished(p, emulator, refresh=("--run-program",))

    def agree() -> None:
        status = json.loads(p.trainspec("status", "specs", "--stack", "dev", "--format",
                                        "json").stdout)["jobs"]
        outputs = p.outputs()["jobs"]
        for job in status:
            assert outputs[job["name"]]["state"].removeprefix("JOB_STATE_") == job["state"]
            assert outputs[job["name"]]["name"] == job["job"]
        assert sorted(j["state"] for j in status) == ["SUCCEEDED", "SUCCEEDED"]
    agree()

    p.write(BERT, vertex(steps=20))  # a new job, then PULUMI_RUN_PROGRAM for plain refresh
    p.up()
    assert p.outputs()["jobs"]["bert"]["state"] != "JOB_STATE_SUCCEEDED"
    p.env["PULUMI_RUN_PROGRAM"] = "true"
    _finished(p, emulator)
    agree()
