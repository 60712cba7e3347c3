"""The labels that say whose job it is: computed without Pulumi, equal to what providers stamp;
whose jobs a resource may act on (a renamed stack's former names, a state copied from another
stack that brings its identity and former owners along)."""

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


def test_former_names_are_one_name_or_a_list_of_up_to_three_parts():
    assert identity.former_names("dev") == ["dev"]
    assert identity.former_names('["a", "p/b", "o/p/c"]') == ["a", "p/b", "o/p/c"]
    assert identity.former_names(["a"]) == ["a"]
    assert identity.former_names(None) == []
    for bad in ("o/p/s/x", "a//b", ["a", 3], "[not json"):
        assert identity.former_names(bad) is None, bad


def test_a_former_name_takes_the_parts_it_leaves_out_from_the_stack_now():
    assert identity.former_stacks('["dev", "old/dev", "acme/old/dev"]', "org", "ml", "staging") == [
        ("org", "ml", "dev"), ("org", "old", "dev"), ("acme", "old", "dev")]
    assert identity.former_stacks("a/b/c/d", "org", "ml", "staging") == []


def test_recorded_former_owners_are_trusted_only_by_a_state_of_this_stack():
    dev, staging, prod = (identity.identity("org", "ml", s, "bert") for s in ("dev", "staging", "prod"))
    # staging, renamed from dev and declared so: its state (identity dev) and dev's jobs.
    assert identity.trusted_owners(staging, dev, None, {dev}) == {staging, dev}
    # Later, the key removed: the state (identity staging) recorded dev as a former owner.
    assert identity.trusted_owners(staging, staging, [dev], set()) == {staging, dev}
    # prod's state copied into staging: prod's identity and its former owners are not trusted.
    assert identity.trusted_owners(staging, prod, [dev], set()) == {staging}
    # ... even with the copied stack's trainspec:renamedFrom (destroy configures the provider
    # from the state): a state that is not this stack's trusts no former name.
    assert identity.trusted_owners(staging, prod, [dev], {dev}) == {staging}
