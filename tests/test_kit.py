"""The testing kit (compiler.testing) reads the field table (compiler/fields.py) and the pool
roles (compiler/roles.py): every simple field a platform accepts is drawn into valid specs,
every refusal, enum and duration of the table is a mutation refused where it is written, and a
new row is picked up without editing the kit."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler import fields, roles, testing
from compiler.testing import rows

CI = settings(derandomize=True, database=None, deadline=None, print_blob=False,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])


def _base(platform: str) -> dict:
    """A valid spec with a chief pool (the pool rows are mutated on it)."""
    return {"apiVersion": "trainspec/v1", "kind": "TrainingJob", "metadata": {"name": "j"},
            "spec": {"platform": platform, "region": "us-central1",
                     "container": {"image": "gcr.io/p/i:1"},
                     "pools": {roles.CHIEF.name: {"machineType": "n1-standard-4"}}}}


def _path(row: fields.Row) -> str:
    return row.path if row.scope == fields.JOB else f"$.spec.pools.{roles.CHIEF.name}.{row.spec}"


def _refused_at(mutation: testing.Mutation, path: str) -> None:
    result = testing.assert_refused_located(mutation.text)
    assert path in [d.path for d in result.errors], [d.format() for d in result.errors]


def _set(spec: dict, dotted: str) -> bool:
    for key in dotted.split("."):
        if not isinstance(spec, dict) or key not in spec:
            return False
        spec = spec[key]
    return True


@pytest.mark.parametrize("platform", testing.PLATFORMS)
def test_every_row_the_platform_refuses_is_a_mutation_refused_where_written(platform):
    testing.assert_compiles_conformant(_base(platform))
    found = {m.path: m for m in testing.every_mutation(_base(platform)) if "-only on " in m.kind}
    refused = [r for r in fields.ROWS if isinstance(r.target(platform), fields.Refused)]
    assert refused
    for row in refused:
        assert _path(row) in found, f"no mutation puts {row.spec} on {platform}"
        assert found[_path(row)].kind.endswith(f"-only on {platform}")
        _refused_at(found[_path(row)], _path(row))


@pytest.mark.parametrize("platform", testing.PLATFORMS)
def test_every_enum_and_duration_row_is_a_mutation_refused_where_written(platform):
    mutations = testing.every_mutation(_base(platform))
    enums = [_path(r) for r in fields.ROWS if r.values]
    assert enums and fields.DURATION_PATHS
    for kind, paths in (("bad enum", enums), ("bad duration", fields.DURATION_PATHS)):
        for path in paths:
            found = [m for m in mutations if m.kind == kind and m.path == path]
            assert found, f"no {kind} mutation at {path}"
            for mutation in found:
                _refused_at(mutation, path)


def test_pool_mutations_come_from_the_roles():
    mutations = testing.every_mutation(_base("vertex"))
    chief = f"$.spec.pools.{roles.CHIEF.name}"
    assert any(m.kind == "replicas on chief" and m.path == f"{chief}.replicas" for m in mutations)
    unknown = {m.path.rsplit(".", 1)[1] for m in mutations if m.kind == "unknown pool"}
    assert unknown and not unknown & set(roles.NAMES)
    for m in mutations:
        if m.kind in ("unknown pool", "replicas on chief", "removed chief"):
            testing.assert_refused_located(m.text)


@pytest.mark.parametrize("platform", testing.PLATFORMS)
def test_valid_specs_draw_every_simple_field_the_platform_accepts(platform):
    seen: set[str] = set()

    # Hypothesis seeds its draws with the literals of the project's modules, so any edit can
    # reshape the stream: enough examples that a row drawn one time in ten (maxWait: FLEX_START
    # and a coin) is drawn whatever the stream.
    @settings(CI, max_examples=300)
    @given(testing.valid_specs(platform=platform))
    def draw(spec):
        seen.update(r.spec for r in fields.JOB_ROWS if _set(spec["spec"], r.spec))

    draw()
    accepted = {r.spec for r in fields.JOB_ROWS if rows.accepts(r, platform)}
    assert accepted - seen == set()
    assert seen <= accepted, f"drawn where {platform} refuses them: {seen - accepted}"


def test_a_new_row_is_drawn_and_mutated_without_editing_the_kit(monkeypatch):
    """A Vertex-only scheduling switch added to the table (and only there)."""
    new = fields.Row("scheduling.newSwitch", "new_switch", fields.BOOL,
                     "jobSpec.scheduling.newSwitch", fields.only(fields.VERTEX))
    monkeypatch.setattr(fields, "ROWS", (*fields.ROWS, new))
    monkeypatch.setattr(fields, "JOB_ROWS", (*fields.JOB_ROWS, new))
    drawn: list[object] = []

    @settings(CI, max_examples=60)
    # Half of the draws Vertex specs: the row is drawn whatever the stream of the other draws;
    # the other half any platform, where an ai-platform spec must never get it.
    @given(st.one_of(testing.valid_specs(), testing.valid_specs(platform="vertex")))
    def draw(spec):
        if _set(spec["spec"], new.spec):
            assert spec["spec"].get("platform", "vertex") == "vertex"
            drawn.append(spec["spec"]["scheduling"]["newSwitch"])

    draw()
    assert set(drawn) == {True, False}
    found = [m for m in testing.every_mutation(_base("ai-platform")) if m.path == new.path]
    assert [m.kind for m in found] == ["vertex-only on ai-platform"]
    assert found[0].spec["spec"]["scheduling"]["newSwitch"] is True
