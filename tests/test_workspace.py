"""Which Pulumi stack a spec belongs to, from the files the Pulumi CLI writes (no CLI run here;
tests/engine/test_init.py checks the same against the real CLI's files)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from compiler.jobs.workspace import WorkspaceError, resolve


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "specs" / "team").mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: jobs\nruntime: python\n")
    (root / "specs" / "team" / "a.yaml").write_text("x")
    return root


def select(home: Path, project_file: Path, stacks: dict | None = None, legacy: str | None = None):
    """Write what `pulumi stack select` writes (pkg/workspace/workspace.go settingsPath)."""
    digest = hashlib.sha1(str(project_file).encode()).hexdigest()
    folder = home / "workspaces"
    folder.mkdir(parents=True, exist_ok=True)
    data = {"stacks": stacks} if stacks else {"stack": legacy}
    (folder / f"jobs-{digest}-workspace.json").write_text(json.dumps(data))


def test_the_selected_stack_of_the_current_backend(repo, tmp_path):
    home = tmp_path / "home"
    select(home, repo / "Pulumi.yaml", {"file:///state": "organization/jobs/dev",
                                         "https://api.pulumi.com": "acme/jobs/prod"})
    spec = str(repo / "specs" / "team" / "a.yaml")
    env = {"PULUMI_HOME": str(home), "PULUMI_BACKEND_URL": "file:///state"}
    s = resolve(spec, env=env)
    assert (s.organization, s.project, s.name, s.root) == ("organization", "jobs", "dev", repo)
    assert s.chosen_by == "the selected stack (pulumi stack select)"
    # No PULUMI_BACKEND_URL: the current login of credentials.json.
    (home / "credentials.json").write_text(json.dumps({"current": "https://api.pulumi.com"}))
    s = resolve(spec, env={"PULUMI_HOME": str(home)})
    assert (s.organization, s.name) == ("acme", "prod")
    # Pulumi.yaml's backend.url wins over the login.
    (repo / "Pulumi.yaml").write_text("name: jobs\nbackend:\n  url: file:///state\n")
    assert resolve(spec, env={"PULUMI_HOME": str(home)}).name == "dev"


def test_older_cli_files_and_home_from_HOME(repo, tmp_path):
    select(tmp_path / ".pulumi", repo / "Pulumi.yaml", legacy="staging")
    s = resolve(str(repo / "specs" / "team" / "a.yaml"), env={"HOME": str(tmp_path)})
    assert (s.organization, s.name) == ("organization", "staging")


def test_flag_then_environment_then_selection(repo, tmp_path):
    home = tmp_path / "home"
    select(home, repo / "Pulumi.yaml", {"file:///state": "organization/jobs/dev"})
    spec = str(repo / "specs" / "team" / "a.yaml")
    env = {"PULUMI_HOME": str(home), "PULUMI_BACKEND_URL": "file:///state",
           "PULUMI_STACK": "ci"}
    assert resolve(spec, env=env).name == "ci"
    assert resolve(spec, env=env).chosen_by == "PULUMI_STACK"
    assert resolve(spec, stack="mine", env=env).name == "mine"
    # Organization: --org, the qualified name, PULUMI_ORGANIZATION, "organization".
    assert resolve(spec, stack="acme/mine", env=env).organization == "acme"
    assert resolve(spec, stack="acme/jobs/mine", env=env).organization == "acme"
    assert resolve(spec, stack="acme/mine", org="other", env=env).organization == "other"
    assert resolve(spec, stack="mine", env={**env, "PULUMI_ORGANIZATION": "o"}).organization == "o"
    assert resolve(spec, stack="mine", env=env).organization == "organization"


def test_refusals_say_what_to_do(repo, tmp_path):
    spec = str(repo / "specs" / "team" / "a.yaml")
    env = {"PULUMI_HOME": str(tmp_path / "empty")}
    with pytest.raises(WorkspaceError, match="no Pulumi stack selected for project 'jobs'.*"
                                             "--stack NAME, set PULUMI_STACK"):
        resolve(spec, env=env)
    # A selection recorded for another backend is not this backend's.
    select(tmp_path / "empty", repo / "Pulumi.yaml", {"file:///elsewhere": "organization/jobs/x"})
    with pytest.raises(WorkspaceError, match="no Pulumi stack selected"):
        resolve(spec, env={**env, "PULUMI_BACKEND_URL": "file:///state"})
    with pytest.raises(WorkspaceError, match="is a stack of project 'other'"):
        resolve(spec, stack="acme/other/dev", env=env)
    for bad in ("a/b/c/d", "acme/", "/dev"):
        with pytest.raises(WorkspaceError, match="expected STACK, ORG/STACK or ORG/PROJECT/STACK"):
            resolve(spec, stack=bad, env=env)
    lonely = tmp_path / "lonely.yaml"
    lonely.write_text("x")
    with pytest.raises(WorkspaceError, match="no Pulumi.yaml in its folder or above it"):
        resolve(str(lonely), stack="dev", env=env, cwd=tmp_path)
    # ...unless the current folder is a Pulumi project.
    assert resolve(str(lonely), stack="dev", env=env, cwd=repo).project == "jobs"
    (repo / "Pulumi.yaml").write_text("name: [unclosed\n")
    with pytest.raises(WorkspaceError, match=r"Pulumi.yaml:2:1: error: \$: invalid YAML"):
        resolve(spec, stack="dev", env=env)
    (repo / "Pulumi.yaml").write_text("runtime: python\n")
    with pytest.raises(WorkspaceError, match="no project `name:`"):
        resolve(spec, stack="dev", env=env)


def test_stack_config_defaults(repo, tmp_path):
    spec = str(repo / "specs" / "team" / "a.yaml")
    (repo / "Pulumi.dev.yaml").write_text(
        "config:\n  gcp:project: acme-dev\n  gcp:region: europe-west4\n"
        "  trainspec:wandbApiKey:\n    secure: AAABAC==\n")
    assert resolve(spec, stack="dev", env={}).config == {"gcp:project": "acme-dev",
                                                         "gcp:region": "europe-west4"}
    assert resolve(spec, stack="prod", env={}).config == {}
    (repo / "Pulumi.yaml").write_text("name: jobs\nstackConfigDir: stacks\n")
    (repo / "stacks").mkdir()
    (repo / "stacks" / "Pulumi.dev.yaml").write_text("config:\n  gcp:project: from-dir\n")
    assert resolve(spec, stack="dev", env={}).config == {"gcp:project": "from-dir"}


def test_the_staging_bucket_is_read_from_either_namespace(repo):
    spec = str(repo / "specs" / "team" / "a.yaml")
    (repo / "Pulumi.dev.yaml").write_text("config:\n  trainspec:stagingBucket: gs://shared\n")
    assert resolve(spec, stack="dev", env={}).config == {"trainspec:stagingBucket": "gs://shared"}
    # `pulumi config set stagingBucket X` writes the project's namespace, read when
    # trainspec:stagingBucket is not set (the program's rule: trainspec:KEY wins).
    (repo / "Pulumi.dev.yaml").write_text("config:\n  trainspec:stagingBucket: gs://shared\n"
                                          "  jobs:stagingBucket: gs://own\n")
    assert resolve(spec, stack="dev", env={}).config == {"trainspec:stagingBucket": "gs://shared"}
    (repo / "Pulumi.dev.yaml").write_text("config:\n  jobs:stagingBucket: gs://own\n")
    assert resolve(spec, stack="dev", env={}).config == {"trainspec:stagingBucket": "gs://own"}


def test_the_former_names_of_a_renamed_stack_are_read(repo):
    spec = str(repo / "specs" / "team" / "a.yaml")
    (repo / "Pulumi.dev.yaml").write_text("config:\n  trainspec:renamedFrom: old-dev\n")
    assert resolve(spec, stack="dev", env={}).config == {"trainspec:renamedFrom": '["old-dev"]'}
    (repo / "Pulumi.dev.yaml").write_text("config:\n  trainspec:renamedFrom: [a, b/c]\n")
    assert resolve(spec, stack="dev", env={}).config == {"trainspec:renamedFrom": '["a", "b/c"]'}
