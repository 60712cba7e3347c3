"""The labels that say whose job it is: computed without Pulumi, equal to what providers stamp."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from compiler.cloud import jobs
from compiler.jobs import identity

ROOT = Path(__file__).resolve().parent.parent


def test_identity_and_spec_hash_are_pure_and_importable_without_pulumi() -> None:
    code = ("import sys; from compiler.jobs import identity, track, watch; "
            "from compiler.cloud import jobs; "
            "assert 'pulumi' not in sys.modules, sorted(m for m in sys.modules if 'pulumi' in m)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_a_run_is_a_new_generation_and_no_run_keeps_the_old_hash() -> None:
    owner = identity.identity("organization", "trainspec", "dev", "bert")
    body = {"displayName": "bert"}
    # The value the providers of earlier versions stamped: a stack without runs keeps its jobs.
    assert identity.spec_hash(owner, body) == identity._digest({"identity": owner,
                                                                "request": body})
    hashes = {identity.spec_hash(owner, body, run) for run in (None, "1", "2")}
    assert len(hashes) == 3
    assert identity.spec_hash(owner, body, "2") == identity.spec_hash(owner, body, "2")
    assert len(identity.spec_hash(owner, body, "2")) == 32  # a valid label value


def test_tensorboard_link_is_the_sdk_form() -> None:
    url = jobs.tensorboard_url("projects/123/locations/us-central1/tensorboards/77",
                               "projects/p/locations/us-central1/customJobs/999")
    assert url == ("https://us-central1.tensorboard.googleusercontent.com/experiment/"
                   "projects+123+locations+us-central1+tensorboards+77+experiments+999")
