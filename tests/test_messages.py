"""Messages that lead to the fix (issue 19, item 7): each error says what to write instead."""

from __future__ import annotations

import io

import pytest
from files import write

from compiler import cli

SPEC = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: bert
spec:
  region: us-central1
  container:
    image: us-docker.pkg.dev/acme-nlp/trainers/bert:1.0
    args: [--epochs=3]
  pools:
    chief:
      machineType: n1-standard-8
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def validate(root, spec: str, config: str | None = None) -> str:
    files = {"specs/train.yaml": spec}
    if config is not None:
        files["trainspec.yaml"] = config
    write(root, files)
    out, err = io.StringIO(), io.StringIO()
    cli.main(["validate", "specs/train.yaml"], out, err)
    return out.getvalue() + err.getvalue()


def test_the_count_error_names_the_machine_taking_the_requested_count(repo):
    out = validate(repo, SPEC.replace(
        "machineType: n1-standard-8",
        "machineType: a2-highgpu-2g\n      accelerator: {type: A100, count: 4}"))
    assert ("NVIDIA_TESLA_A100 on a2-highgpu-2g needs acceleratorCount 2; "
            "NVIDIA_TESLA_A100 × 4 needs a2-highgpu-4g [accelerator-count]") in out
    out = validate(repo, SPEC.replace(
        "machineType: n1-standard-8",
        "machineType: n1-standard-32\n      accelerator: {type: T4, count: 1}"))
    assert "allows acceleratorCount 2, 4, not 1; NVIDIA_TESLA_T4 × 1 fits n1-standard-4 " \
           "(the smallest machine taking it) [accelerator-count]" in out, out


@pytest.mark.parametrize(("edit", "key"), [
    (("machineType: n1-standard-8", "machineType: a9-highgpu-8g"), "extraMachineTypes"),
    (("machineType: n1-standard-8",
      "machineType: n1-standard-8\n      accelerator: {type: NVIDIA_Z900, count: 1}"),
     "extraAccelerators"),
    (("region: us-central1", "region: us-south9"), "extraRegions"),
])
def test_new_hardware_errors_name_the_repo_config_extension(repo, edit, key):
    out = validate(repo, SPEC.replace(*edit))
    assert "error:" in out
    assert f"{key} in the repo config (trainspec.yaml)" in out, out


def test_a_registry_refusal_says_prefixes_match_at_slash_boundaries(repo):
    out = validate(repo, SPEC, "policy:\n  allowedRegistries: [us-docker.pkg.dev/acme-]\n")
    assert "[policy-registry]" in out
    assert "a prefix matches whole path segments" in out, out
    assert "'us-docker.pkg.dev/acme-' does not allow 'us-docker.pkg.dev/acme-nlp/…'" in out, out
    assert "add 'us-docker.pkg.dev/acme-nlp/' to policy.allowedRegistries" in out, out


def test_a_spot_policy_on_ai_platform_names_the_way_out(repo):
    spec = SPEC.replace("region: us-central1", "platform: ai-platform\n  region: us-central1")
    spec += "    worker: {machineType: n1-standard-8, replicas: 2}\n"
    out = validate(repo, spec, "policy:\n  requireSpotWorkers: true\n")
    assert "[policy-spot]" in out
    assert "set spec.scheduling.strategy: SPOT" not in out, out
    assert "ai-platform has no Spot VMs" in out and "spec.platform: vertex" in out, out
    assert "overrides" in out, out


@pytest.mark.parametrize(("edit", "hint"), [
    # accelerator one level up from its pool: under pools.
    (("      machineType: n1-standard-8",
      "      machineType: n1-standard-8\n    accelerator: {type: T4, count: 1}"),
     "an indentation mistake? 'accelerator' is a key one level down (of chief, worker, "),
    # machineType one level down from its pool: under the accelerator.
    (("      machineType: n1-standard-8",
      "      accelerator:\n        type: T4\n        machineType: n1-standard-8"),
     "an indentation mistake? 'machineType' is a key one level up (of $.spec.pools.chief)"),
])
def test_a_key_one_level_off_is_called_an_indentation_mistake(repo, edit, hint):
    out = validate(repo, SPEC.replace(*edit))
    assert "[unknown-key]" in out
    assert hint in out, out
    assert "did you mean 'evaluator'" not in out, out


def test_a_folded_argument_that_looks_like_list_items_is_a_warning(repo):
    spec = SPEC.replace("    args: [--epochs=3]", '    args:\n      - --epochs\n        - "10"\n'
                        "      - --lr - a hyphen in a value is fine - 0.1")
    out = validate(repo, spec)
    assert "warning: $.spec.container.args[0]: '--epochs - \"10\"' is one argument" in out, out
    assert "[folded-args]" in out and out.count("[folded-args]") == 1, out
    assert "error" not in out.replace("0 with errors", ""), out
