"""The repo config, continued from test_config.py: nested configs (the policy of every config
from the repository's root to the spec's folder applies, everything else is the nearest
config's), policy.maxTimeout without a timeout, pyproject.toml's dotted keys, inline tables and
links, and catalog extensions on ai-platform."""

from __future__ import annotations

import os
import subprocess

import pytest
from files import write
from test_config import EXTENSION, LABEL_ERROR, LABEL_POLICY, NEW_HARDWARE, SPEC, lines, repo, run

from compiler.config import load
from compiler.source.repo import GitFiles

__all__ = ["repo"]  # the fixture, shared with test_config.py

SUB = "specs/sub/train.yaml"


def sub_error(line: str) -> str:
    return line.replace("specs/train.yaml", SUB)


def test_an_empty_nested_config_keeps_the_roots_policy(repo):
    write(repo, {"trainspec.yaml": LABEL_POLICY, "specs/sub/trainspec.yaml": "", SUB: SPEC})
    code, _, err = run("validate", SUB)
    assert code == 1 and lines(err) == [sub_error(LABEL_ERROR)]


def test_a_nested_config_adds_rules_and_each_error_names_its_file(repo):
    write(repo, {"trainspec.yaml": LABEL_POLICY,
                 "specs/sub/trainspec.yaml": "policy:\n  requiredLabels: [owner]\n", SUB: SPEC})
    code, _, err = run("validate", SUB)
    assert code == 1 and lines(err) == [
        sub_error(LABEL_ERROR),
        f"{SUB}:5:11: error: $.metadata.labels: label 'owner' is required (policy.requiredLabels"
        " in specs/sub/trainspec.yaml) (add it under metadata.labels) [policy-label]"]


@pytest.mark.parametrize("root, nested, expected", [
    # The lists allowed intersect: the nested config cannot widen the root's.
    ("allowedRegions: [europe-west4]", "allowedRegions: [us-central1, europe-west4]",
     "error: $.spec.region: region 'us-central1' is not allowed (policy.allowedRegions in "
     "trainspec.yaml) (allowed: europe-west4) [policy-region]"),
    ("allowedRegions: [us-central1, europe-west4]", "allowedRegions: [europe-west4]",
     "error: $.spec.region: region 'us-central1' is not allowed (policy.allowedRegions in "
     "specs/sub/trainspec.yaml) (allowed: europe-west4) [policy-region]"),
    ("allowedRegistries: [gcr.io/]", "allowedRegistries: [us-docker.pkg.dev/]",
     "error: $.spec.container.image: image 'us-docker.pkg.dev/acme-ml-prod/trainers/resnet:"
     "1.4.2' is not from an allowed registry (policy.allowedRegistries in trainspec.yaml) "
     "(allowed: gcr.io/ (a prefix matches whole path segments, at '/'); push the image to one "
     "of them, or add its registry to policy.allowedRegistries in trainspec.yaml) "
     "[policy-registry]"),
    # The maxima take the least, wherever it is set.
    ("maxTimeout: 1d", "maxTimeout: 30d",
     "error: $.spec.scheduling.timeout: timeout 2d is over policy.maxTimeout 1d in "
     "trainspec.yaml [policy-timeout]"),
    ("maxTimeout: 30d", "maxTimeout: 1d",
     "error: $.spec.scheduling.timeout: timeout 2d is over policy.maxTimeout 1d in "
     "specs/sub/trainspec.yaml [policy-timeout]"),
    # A requirement set anywhere holds.
    ("requireEncryptionKey: true", "requireEncryptionKey: false",
     "error: $.spec.encryptionKey: no spec.encryptionKey: a customer-managed key (CMEK) is "
     "required (policy.requireEncryptionKey in trainspec.yaml) (set spec.encryptionKey: "
     "projects/P/locations/R/keyRings/K/cryptoKeys/C) [policy-encryption-key]"),
])
def test_a_nested_config_only_tightens(repo, root, nested, expected):
    write(repo, {"trainspec.yaml": f"policy:\n  {root}\n",
                 "specs/sub/trainspec.yaml": f"policy:\n  {nested}\n",
                 SUB: SPEC + "  scheduling: {timeout: 2d}\n"})
    code, _, err = run("validate", SUB)
    assert code == 1 and [line.split(": ", 1)[1] for line in lines(err)] == [expected]


def test_the_allowed_regions_in_common_may_be_none(repo):
    write(repo, {"trainspec.yaml": "policy:\n  allowedRegions: [us-central1]\n",
                 "specs/sub/trainspec.yaml": "policy:\n  allowedRegions: [europe-west4]\n",
                 SUB: SPEC})
    assert lines(run("validate", SUB)[2]) == [
        f"{SUB}:8:11: error: $.spec.region: region 'us-central1' is not allowed (policy."
        "allowedRegions in specs/sub/trainspec.yaml) (allowed: none (the configs' "
        "allowedRegions have no region in common)) [policy-region]"]


def test_only_the_policy_is_inherited(repo):
    # The root's severity does not reach specs under a nested config; its policy does.
    write(repo, {"trainspec.yaml": LABEL_POLICY + "severity: {policy-label: warning}\n",
                 "specs/sub/trainspec.yaml": "ignore: []\n", SUB: SPEC})
    assert lines(run("validate", SUB)[2]) == [sub_error(LABEL_ERROR)]
    assert run("validate", "specs/train.yaml")[0] == 0  # warned under the root's config


def test_an_outer_configs_mistake_is_reported_for_a_nested_spec(repo):
    write(repo, {"trainspec.yaml": "policy:\n  maxTimout: 1d\n",
                 "specs/sub/trainspec.yaml": "", SUB: SPEC})
    code, _, err = run("validate", SUB)
    assert code == 1 and lines(err) == [
        "trainspec.yaml:2:3: error: $.policy.maxTimout: unknown key 'maxTimout' (did you mean "
        "'maxTimeout'?) [repo-config]"]


def test_pyproject_and_yaml_layers_combine(repo):
    write(repo, {"pyproject.toml": '[tool.trainspec.policy]\nrequiredLabels = ["cost-center"]\n',
                 "specs/sub/trainspec.yaml": "", SUB: SPEC})
    assert lines(run("validate", SUB)[2]) == [
        sub_error(LABEL_ERROR).replace("in trainspec.yaml", "in pyproject.toml")]


# -- policy.maxTimeout without a timeout (issue 9 review) -------------------------------------

def test_no_timeout_is_fine_when_the_apis_default_is_within_the_max(repo):
    write(repo, {"trainspec.yaml": "policy:\n  maxTimeout: 30d\n"})
    assert run("validate", "specs") == (0, "", "1 spec(s) checked, 0 with errors\n")
    write(repo, {"trainspec.yaml": "policy:\n  maxTimeout: 7d\n"})
    assert run("validate", "specs")[0] == 0


@pytest.mark.parametrize("timeout", ["0s", "999999999999s", "1.5ns"])
def test_a_refused_timeout_is_not_also_a_missing_one(repo, timeout):
    write(repo, {"trainspec.yaml": "policy:\n  maxTimeout: 1d\n",
                 "specs/train.yaml": SPEC + f"  scheduling: {{timeout: {timeout}}}\n"})
    code, _, err = run("validate", "specs")
    assert code == 1 and "policy-timeout" not in err and "no scheduling.timeout" not in err


# -- pyproject.toml: dotted keys, inline tables, links (issue 9 review) -----------------------

@pytest.mark.parametrize("text, where", [
    ('tool.trainspec.ignore = ["zzz"]\n', "pyproject.toml:1:25"),
    ('[tool]\ntrainspec.ignore = ["zzz"]\n', "pyproject.toml:2:20"),
    ('[tool]\ntrainspec = {ignore = ["zzz"]}\n', "pyproject.toml:2:1"),
    ('tool = {trainspec = {ignore = ["zzz"]}}\n', "pyproject.toml:1:1"),
])
def test_a_dotted_key_or_inline_table_error_is_located(repo, text, where):
    write(repo, {"pyproject.toml": text})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [
        f"{where}: error: $.ignore[0]: unknown rule code 'zzz' (docs/rules.md lists the "
        "codes) [unknown-code]"]


@pytest.mark.parametrize("text", [
    'tool.trainspec.ignore = [\n',
    '[tool]\nruff = {line-length = 99}\ntrainspec.ignore = [\n',
    '[tool]\ntrainspec = {ignore = [\n',
])
def test_a_broken_pyproject_with_a_dotted_trainspec_key_is_an_error(repo, text):
    write(repo, {"pyproject.toml": text})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err)[0].startswith("pyproject.toml:") and "invalid TOML" in err


def test_a_linked_pyproject_is_refused_unread_like_a_linked_trainspec_yaml(repo, tmp_path):
    (tmp_path / "elsewhere.toml").write_text('[tool.trainspec]\nignore = ["policy-label"]\n')
    os.symlink(tmp_path / "elsewhere.toml", repo / "pyproject.toml")
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [
        "pyproject.toml:1:1: error: $: a symbolic link: the repo config is a regular file "
        "(trainspec cannot tell whether it has [tool.trainspec]) [repo-config]"]
    write(repo, {"trainspec.yaml": LABEL_POLICY})  # beside a trainspec.yaml: not "two configs"
    assert lines(run("validate", "specs")[2]) == [lines(err)[0], LABEL_ERROR]


# -- catalog extensions on ai-platform (issue 9 review) ---------------------------------------

ML = "spec:\n  platform: ai-platform\n"


def test_an_accelerator_outside_ml_v1s_closed_enum_stays_refused_even_if_listed(repo):
    write(repo, {"specs/train.yaml": NEW_HARDWARE.replace("spec:\n", ML),
                 "trainspec.yaml": EXTENSION})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [
        "specs/train.yaml:13:61: error: $.spec.pools.chief.accelerator.type: NVIDIA_B300 is not "
        "available on ai-platform [accelerator-type]"]


def test_on_ai_platform_a_listed_known_accelerator_silences_the_old_region_table(repo):
    spec = SPEC.replace("us-central1", "asia-east1").replace("spec:\n", ML)
    write(repo, {"specs/train.yaml": spec})
    assert "[ml-region-accelerator]" in run("validate", "specs")[2]
    write(repo, {"trainspec.yaml": "extraAccelerators:\n  asia-east1: [NVIDIA_TESLA_T4]\n"})
    code, out, err = run("explain", "specs/train.yaml")
    assert code == 0 and "warning" not in err
    assert ("$.spec.pools.chief.accelerator.type: NVIDIA_TESLA_T4 in asia-east1 "
            "(extraAccelerators in trainspec.yaml)") in out


def _commit(root) -> None:
    """`root` as a git repository with everything in it committed."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "c"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)


def test_at_a_git_revision_every_configs_policy_applies_too(tmp_path):
    write(tmp_path, {"trainspec.yaml": LABEL_POLICY, "specs/sub/trainspec.yaml": "",
                     SUB: SPEC})
    _commit(tmp_path)
    found = load.find(SUB, GitFiles(tmp_path, "HEAD"))
    assert found.config.file.endswith("specs/sub/trainspec.yaml")
    assert [(p.required_labels, file.rsplit(":", 1)[-1]) for p, file in found.policies] == [
        (("cost-center",), "trainspec.yaml"), ((), "specs/sub/trainspec.yaml")]


def test_at_a_git_revision_a_linked_pyproject_is_refused_too(tmp_path):
    (tmp_path / "elsewhere.toml").write_text('[tool.trainspec]\nignore = ["policy-label"]\n')
    os.symlink("elsewhere.toml", tmp_path / "pyproject.toml")
    write(tmp_path, {"specs/train.yaml": SPEC})
    _commit(tmp_path)
    found = load.find("specs/train.yaml", GitFiles(tmp_path, "HEAD"))
    assert [(d.message, d.hint) for d in found.problems] == [
        ("not a regular file of at most 1 MiB",
         "trainspec cannot tell whether it has [tool.trainspec]")]
