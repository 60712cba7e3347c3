"""A stack created by trainspec 0.1's program (Python dynamic providers, code pickled into
state) moves to the trainspec provider with one `pulumi up`: no replace, the same job ids, the
jobs keep running, and from then on the state holds data only.

The old program is taken from git history (LEGACY, the last commit before the provider), so the
stack is made by the code users ran; it still imports today's compiler.pulumi_resources, kept
for one release for exactly such states.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from job_specs import HOLD, ml, vertex

ROOT = Path(__file__).resolve().parents[2]
LEGACY = "a76cfb1"  # main before compiler/provider: jobs were dynamic-provider resources


def _legacy_program() -> str:
    proc = subprocess.run(["git", "-C", str(ROOT), "show", f"{LEGACY}:compiler/pulumi_program.py"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"the migration test needs git history ({LEGACY}): {proc.stderr}"
    return proc.stdout


def test_a_dynamic_provider_stack_moves_to_the_provider_without_touching_its_jobs(
        project, emulator):
    p = project()
    p.write("legacy_program.py", _legacy_program())
    p.write("__main__.py", "from legacy_program import main\n\nmain()\n")
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
    assert p.outputs()["bert"]["name"] == jobs["bert"]

    calls = len(emulator.calls)
    assert "unchanged" in p.up().stdout
    assert emulator.calls[calls:] == []

    p.run("destroy", "--yes", "--skip-preview")
    assert emulator.vertex_jobs()[jobs["bert"]]["state"] == "JOB_STATE_CANCELLED"
    assert emulator.ml_jobs()[jobs["census"]]["state"] == "CANCELLED"
