"""A `trainspec:renamedFrom` is honoured only when the Pulumi CLI shows no stack of that name
(compiler.jobs.former); a CLI that cannot answer refuses the takeover."""

from __future__ import annotations

import json

import pytest

from compiler.jobs import former

ORG = "organization"


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """A `pulumi` on PATH that prints `listed` as `stack ls --json --all` would (or fails)."""
    def make(listed: list[str] | None, status: int = 0) -> None:
        out = json.dumps([{"name": n} for n in listed or []])
        script = tmp_path / "pulumi"
        script.write_text(f"#!/bin/sh\necho '{out}'\necho 'error: no backend' >&2\nexit {status}\n")
        script.chmod(0o755)
        monkeypatch.setenv("PATH", str(tmp_path))
        former._listed.cache_clear()
    yield make
    former._listed.cache_clear()


def test_a_stack_that_still_exists_is_refused_a_gone_one_is_not(cli, tmp_path):
    cli(["dev", "organization/other/prod"])
    said = former.refusal([(ORG, "trainspec", "dev")], "trainspec", str(tmp_path))
    assert said and "organization/trainspec/dev, which still exists" in said
    assert "pulumi config rm trainspec:renamedFrom" in said
    assert former.refusal([(ORG, "other", "prod")], "trainspec", str(tmp_path))
    assert former.refusal([(ORG, "trainspec", "prod")], "trainspec", str(tmp_path)) is None
    assert former.refusal([], "trainspec", str(tmp_path)) is None


@pytest.mark.parametrize("listed, status, why", [
    (None, 1, "error: no backend"), (["x"], 0, None)])
def test_no_answer_from_the_cli_refuses_the_takeover(cli, tmp_path, listed, status, why):
    if why is None:  # no CLI at all
        cli(None)
        (tmp_path / "pulumi").unlink()
        why = "not on PATH"
    else:
        cli(listed, status)
    said = former.refusal([(ORG, "trainspec", "dev")], "trainspec", str(tmp_path))
    assert said and "cannot be told" in said and why in said


def test_the_ids_a_stacks_state_holds_or_why_not(cli, tmp_path):
    script = tmp_path / "pulumi"
    cli([])
    script.write_text("#!/bin/sh\necho '{\"deployment\": {\"resources\": [{\"id\": \"j1\"}, "
                      "{\"urn\": \"u\"}]}}'\n")
    former.state_ids.cache_clear()
    assert former.state_ids("o/p/s", str(tmp_path)) == (frozenset({"j1"}), None)
    cli(None, 1)
    former.state_ids.cache_clear()
    ids, why = former.state_ids("o/p/s", str(tmp_path))
    assert not ids and "pulumi stack export --stack o/p/s" in why and "no backend" in why


def test_the_stacks_claiming_a_former_name_are_read_from_the_project_config(tmp_path):
    """`claimants`: the other stacks whose config says they were renamed from this one, from
    each `Pulumi.<STACK>.yaml` of the project (its stackConfigDir honoured), read as safely as
    a spec: a hostile file claims nothing and takes no time."""
    (tmp_path / "Pulumi.yaml").write_text("name: ml\nruntime: python\nstackConfigDir: stacks\n")
    stacks = tmp_path / "stacks"
    stacks.mkdir()
    (stacks / "Pulumi.staging.yaml").write_text("config:\n  trainspec:renamedFrom: dev\n")
    (stacks / "Pulumi.prod.yaml").write_text("config:\n  trainspec:renamedFrom: ml/qa\n")
    (stacks / "Pulumi.dev.yaml").write_text("config:\n  trainspec:renamedFrom: dev\n")  # itself
    laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefgh", "bcdefghi")) + "config: {trainspec:renamedFrom: dev}\n"
    (stacks / "Pulumi.bomb.yaml").write_text(laughs)
    (tmp_path / "Pulumi.top.yaml").write_text("config:\n  trainspec:renamedFrom: dev\n")
    assert former.claimants(ORG, "ml", "dev", str(tmp_path)) == ["staging"]
    assert former.claimants(ORG, "ml", "qa", str(tmp_path)) == ["prod"]
