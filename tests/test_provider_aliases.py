"""The aliases `Specs` gives each job: only the resources the stack's last state holds (every one
when that state cannot be read). The engine tests cover each alias taking effect
(tests/engine: test_provider_migration.py, test_lifecycle.py's kind change, test_ownership.py's
`pulumi import`); this holds the choice itself, which a preview of N jobs pays per job."""

from __future__ import annotations

import pytest

pytest.importorskip("pulumi")

from compiler.provider.component import OLD_TYPE_PREFIX, _aliases  # noqa: E402
from compiler.provider.sdk import JOBS  # noqa: E402

CUSTOM, TUNING = "trainspec:index:VertexCustomJob", "trainspec:index:VertexHyperparameterTuningJob"
ML = "trainspec:index:AiPlatformJob"
CHILD = f"urn:pulumi:dev::acme::trainspec:index:Specs${CUSTOM}::bert"


def held(*urns: str) -> tuple[set[tuple[str, str]], set[str]]:
    """What `Specs` reads of a last state holding `urns` (their type is the URN's last one)."""
    return ({(u.split("::")[2].rsplit("$", 1)[-1], u.rsplit("::", 1)[-1]) for u in urns},
            set(urns))


def urns_and_types(aliases: list) -> tuple[list[str], list[str]]:
    return ([a for a in aliases if isinstance(a, str)],
            [a.type_ for a in aliases if not isinstance(a, str)])


def test_an_unreadable_state_gives_every_alias_a_job_may_need():
    urns, types = urns_and_types(_aliases("bert", CUSTOM, "dev", "acme", None, None))
    assert len(urns) == 2 * len(JOBS) and f"urn:pulumi:dev::acme::{CUSTOM}::bert" in urns
    assert f"urn:pulumi:dev::acme::{OLD_TYPE_PREFIX}VertexCustomJob::bert" in urns
    assert sorted(types) == sorted([TUNING, ML])


def test_a_job_already_in_state_under_its_own_urn_gets_none():
    assert _aliases("bert", CUSTOM, "dev", "acme", *held()) == []
    assert _aliases("bert", CUSTOM, "dev", "acme", *held(CHILD)) == []


def test_only_what_the_state_holds_is_aliased():
    imported = f"urn:pulumi:dev::acme::{CUSTOM}::bert"  # `pulumi import`: top level
    dynamic = f"urn:pulumi:dev::acme::{OLD_TYPE_PREFIX}VertexCustomJob::bert"  # trainspec 0.1
    assert urns_and_types(_aliases("bert", CUSTOM, "dev", "acme", *held(imported))) == (
        [imported], [])
    assert urns_and_types(_aliases("bert", CUSTOM, "dev", "acme", *held(dynamic, CHILD))) == (
        [dynamic], [])
    # The spec became a tuning job: its job is the state's custom job, by a type alias.
    assert urns_and_types(_aliases("bert", TUNING, "dev", "acme", *held(CHILD))) == ([], [CUSTOM])
    # Another job's resources are not this one's.
    assert _aliases("gpt", TUNING, "dev", "acme", *held(CHILD, imported)) == []
