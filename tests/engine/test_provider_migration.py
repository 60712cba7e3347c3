"""A stack created by trainspec 0.1's program (Python dynamic providers, code pickled into
state) moves to the trainspec provider with one `pulumi up`: no replace, the same job ids, the
jobs keep running, and from then on the state holds data only.

LEGACY_PROGRAM is 0.1's program reduced to what made its jobs (`declare()` of
compiler/pulumi_program.py before compiler/provider existed): the dynamic resources of
compiler.pulumi_resources, kept for one release for exactly such states, with the same inputs
and exports. It reads only that module and the compile entry point, so moving internal modules
does not break it (a copy of the old file from git history did, at the first merge).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from job_specs import HOLD, ml, vertex

ROOT = Path(__file__).resolve().parents[2]
LEGACY_PROGRAM = """\
import glob

import pulumi

from compiler import pipeline
from compiler import pulumi_resources as jobs
from compiler.options import Options

gcp = pulumi.Config("gcp")
options = Options(project=gcp.get("project"), region=gcp.get("region"))
for file in sorted(glob.glob("specs/*.yaml")):
    result = pipeline.compile_file(file, options)
    job = result.job
    resource = jobs.RESOURCES[(job.platform, job.kind)](
        job.name, request=result.body, project=job.project, region=job.region,
        spec_file=result.file, source_map=jobs.source_map(result), keep_job_records=True,
        secret_env={}, run=job.run)
    pulumi.export(job.name, {"name": resource.name, "state": resource.state,
                             "error": resource.error, "consoleUrl": resource.consoleUrl,
                             "logsUrl": resource.logsUrl})
"""


def test_a_dynamic_provider_stack_moves_to_the_provider_without_touching_its_jobs(
        project, emulator):
    p = project()
    p.write("__main__.py", LEGACY_PROGRAM)
    p.write("specs/bert.yaml", vertex(labels=HOLD))
    p.write("specs/census.yaml", ml(labels=HOLD))
    p.up()
    before = {r["urn"].rsplit("::", 1)[1]: r for r in p.resources()}
    assert {r["type"] for r in before.values()} == {
        "pulumi-python:dynamic/trainspec:VertexCustomJob",
        "pulumi-python:dynamic/trainspec:AiPlatformJob"}
    assert "__provider" in before["bert"]["inputs"]  # code in state: what is moved away from
    jobs = {n: r["id"] for n, r in before.items()}

    # The upgrade: the program shipped now (the repository's __main__.py).
    shutil.copy(ROOT / "__main__.py", p.root / "__main__.py")
    calls = len(emulator.calls)
    preview = p.run("preview", "--diff")
    assert "to replace" not in preview.stdout and "to delete" not in preview.stdout, \
        preview.stdout
    assert "+ 1 to create" in preview.stdout  # the Specs component, the jobs' new parent
    assert "~ 2 to update" in preview.stdout, preview.stdout

    p.up()
    assert [c for c in emulator.calls[calls:] if '"GET' not in c] == []  # no POST, no cancel
    after = {r["urn"].rsplit("::", 1)[1]: r for r in p.resources()}
    assert {n: r["id"] for n, r in after.items()} == jobs
    assert {r["type"] for r in after.values()} == {"trainspec:index:VertexCustomJob",
                                                    "trainspec:index:AiPlatformJob"}
    assert "__provider" not in str(p.state())
    assert "pulumi-python" not in str(p.state())  # no dynamic provider left in the stack
    assert emulator.vertex_jobs()[jobs["bert"]]["state"] == "JOB_STATE_RUNNING"
    assert emulator.ml_jobs()[jobs["census"]]["state"] == "RUNNING"
    assert p.outputs()["jobs"]["bert"]["name"] == jobs["bert"]

    calls = len(emulator.calls)
    assert "unchanged" in p.up().stdout
    assert emulator.calls[calls:] == []

    p.run("destroy", "--yes", "--skip-preview")
    assert emulator.vertex_jobs()[jobs["bert"]]["state"] == "JOB_STATE_CANCELLED"
    assert emulator.ml_jobs()[jobs["census"]]["state"] == "CANCELLED"
