"""The repo config (docs/config.md): finding it, every key, inline ignores, --strict, catalog
extensions in explain, policy guardrails, and hostile config files."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
from files import write

from compiler import cli, durations, fields
from compiler.catalog import accelerators
from compiler.catalog import prices as catalog
from compiler.config import check, load
from compiler.rules import RULES
from compiler.source import read as source
from compiler.source.repo import GitFiles

ROOT = Path(__file__).resolve().parent.parent
SPEC = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: train
  labels: {team: vision}
spec:
  project: acme-ml-prod
  region: us-central1
  container:
    image: us-docker.pkg.dev/acme-ml-prod/trainers/resnet:1.4.2
  pools:
    chief: {machineType: n1-standard-8, accelerator: {type: T4, count: 1}}
"""
# A spec with a warning (and no error) on main: Vertex TensorBoard without a service account.
WARNED = SPEC + "  vertex: {tensorboard: projects/p/locations/us-central1/tensorboards/1}\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A repository (a .git folder bounds the config search) with specs/train.yaml."""
    root = tmp_path / "repo"
    write(root, {"specs/train.yaml": SPEC})
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    return root


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if not line.endswith("with errors")]


# -- ignore, severity, overrides, inline, --strict ---------------------------------------------

LABEL_POLICY = "policy:\n  requiredLabels: [cost-center]\n"
LABEL_ERROR = ("specs/train.yaml:5:11: error: $.metadata.labels: label 'cost-center' is required "
               "(policy.requiredLabels in trainspec.yaml) (add it under metadata.labels) "
               "[policy-label]")


def test_a_policy_error_fails_validate(repo):
    write(repo, {"trainspec.yaml": LABEL_POLICY})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [LABEL_ERROR]


def test_ignore_silences_a_code(repo):
    write(repo, {"trainspec.yaml": LABEL_POLICY + "ignore: [policy-label]\n"})
    assert run("validate", "specs") == (0, "", "1 spec(s) checked, 0 with errors\n")


def test_severity_makes_an_error_a_warning_and_strict_makes_it_an_error_again(repo):
    write(repo, {"trainspec.yaml": LABEL_POLICY + "severity: {policy-label: warning}\n"})
    code, out, err = run("compile", "specs/train.yaml")
    assert code == 0 and json.loads(out)["displayName"] == "train"
    assert lines(err) == [LABEL_ERROR.replace(": error: ", ": warning: ")]
    code, out, err = run("compile", "specs/train.yaml", "--strict")
    assert code == 1 and out == "" and lines(err) == [LABEL_ERROR]


def test_strict_turns_every_warning_into_an_error(repo):
    write(repo, {"specs/train.yaml": WARNED})
    code, _, err = run("validate", "specs")
    assert code == 0 and ": warning: $.spec.vertex.tensorboard:" in err
    code, _, err = run("validate", "specs", "--strict")
    assert code == 1 and ": error: $.spec.vertex.tensorboard:" in err
    assert run("explain", "specs/train.yaml", "--strict")[0] == 1
    assert run("explain", "specs/train.yaml")[0] == 0


def test_an_override_applies_to_the_paths_it_matches_only(repo):
    write(repo, {"specs/legacy/old.yaml": SPEC.replace("name: train", "name: old"),
                 "trainspec.yaml": LABEL_POLICY + "overrides:\n"
                                   "  - paths: [specs/legacy/**]\n"
                                   "    ignore: [policy-label]\n"})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [LABEL_ERROR]


def test_a_later_override_wins(repo):
    write(repo, {"trainspec.yaml": LABEL_POLICY + "severity: {policy-label: warning}\n"
                 "overrides:\n"
                 "  - paths: ['*.yaml']\n    severity: {policy-label: warning}\n"
                 "  - paths: [specs/train.yaml]\n    severity: {policy-label: error}\n"})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [LABEL_ERROR]


def test_an_inline_ignore_silences_its_codes_on_its_line(repo):
    spec = SPEC.replace("  labels: {team: vision}\n",
                        "  labels: {team: vision}  # trainspec: ignore[policy-region, policy-label]\n")
    write(repo, {"trainspec.yaml": LABEL_POLICY, "specs/train.yaml": spec})
    assert run("validate", "specs")[0] == 0
    # On another line it silences nothing.
    write(repo, {"specs/train.yaml": SPEC.replace(
        "  project:", "  # trainspec: ignore[policy-label]\n  project:")})
    assert run("validate", "specs")[0] == 1


def test_an_unknown_inline_code_is_a_located_error(repo):
    write(repo, {"specs/train.yaml": SPEC.replace(
        "  region: us-central1\n", "  region: us-central1  # trainspec: ignore[policy-regoin]\n")})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [
        "specs/train.yaml:8:44: error: $: unknown rule code 'policy-regoin' in "
        "`# trainspec: ignore[...]` (did you mean 'policy-region'?) [unknown-code]"]


# -- the config file itself ---------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("ignore: [policy-lable]\n", "trainspec.yaml:1:10: error: $.ignore[0]: unknown rule code "
     "'policy-lable' (did you mean 'policy-label'?) [unknown-code]"),
    ("severity:\n  policy-regoin: warning\n", "trainspec.yaml:2:3: error: $.severity.policy-regoin: "
     "unknown rule code 'policy-regoin' (did you mean 'policy-region'?) [unknown-code]"),
    ("severity: {policy-label: info}\n", "trainspec.yaml:1:26: error: $.severity.policy-label: "
     "'info' is not one of error, warning [repo-config]"),
    ("ignroe: []\n", "trainspec.yaml:1:1: error: $.ignroe: unknown key 'ignroe' (did you mean "
     "'ignore'?) [repo-config]"),
    ("policy:\n  maxTimeout: soon\n", "trainspec.yaml:2:15: error: $.policy.maxTimeout: 'soon' is "
     "not a positive duration (e.g. 6h, 3d, 1h30m or plain seconds) [repo-config]"),
    ("policy:\n  allowedRegions: [us-central-1]\n", "trainspec.yaml:2:20: error: "
     "$.policy.allowedRegions[0]: 'us-central-1': a region, e.g. us-central1 [repo-config]"),
    ("overrides:\n  - ignore: [policy-label]\n", "trainspec.yaml:2:5: error: $.overrides[0]: "
     "missing required key 'paths' [repo-config]"),
    ("ignore: [a\n", "trainspec.yaml:2:1: error: $: invalid YAML: did not find expected ',' or "
     "']' [repo-config]"),
    ("- ignore\n", "trainspec.yaml:1:1: error: $: the repo config must be a mapping (ignore, "
     "severity, policy, ...), not a list [repo-config]"),
    ("policy:\n  maxAcceleratorsPerJob: 0600\n", "trainspec.yaml:2:26: error: "
     "$.policy.maxAcceleratorsPerJob: YAML 1.1 reads 0600 as the octal number 384: a leading 0 "
     "means base 8 (write 600 if you meant 600, 384 if you meant octal, or '0600' for text) "
     "[repo-config]"),
])
def test_a_bad_config_is_a_located_error(repo, text, expected):
    write(repo, {"trainspec.yaml": text})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [expected]


def test_a_config_problem_is_reported_once_for_a_tree(repo):
    write(repo, {"specs/b.yaml": SPEC.replace("name: train", "name: b"),
                 "trainspec.yaml": "ignore: [nope]\n"})
    code, _, err = run("validate", "specs")
    assert code == 1 and err.count("unknown rule code 'nope'") == 1


def test_config_errors_cannot_be_ignored(repo):
    write(repo, {"trainspec.yaml": "ignore: [repo-config]\nbogus: 1\n"})
    assert run("validate", "specs")[0] == 1


def test_an_empty_or_comment_only_config_sets_nothing(repo):
    write(repo, {"trainspec.yaml": "# nothing yet\n"})
    assert run("validate", "specs")[0] == 0
    write(repo, {"trainspec.yaml": ""})
    assert run("validate", "specs")[0] == 0


# -- finding it -----------------------------------------------------------------------------

def test_pyproject_tool_trainspec_is_a_config(repo):
    write(repo, {"pyproject.toml": '[project]\nname = "x"\n\n[tool.trainspec]\n'
                                   'ignore = ["policy-lable"]\n'})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [
        "pyproject.toml:5:10: error: $.ignore[0]: unknown rule code 'policy-lable' "
        "(did you mean 'policy-label'?) [unknown-code]"]


def test_pyproject_policy_table_and_overrides_array(repo):
    write(repo, {"pyproject.toml": '[tool.trainspec.policy]\nrequiredLabels = ["cost-center"]\n'
                                   '\n[[tool.trainspec.overrides]]\npaths = ["specs/**"]\n'
                                   'ignore = ["policy-label"]\n'})
    assert run("validate", "specs")[0] == 0
    write(repo, {"pyproject.toml": '[tool.trainspec.policy]\nrequiredLabel = ["x"]\n'})
    code, _, err = run("validate", "specs")
    assert lines(err) == ["pyproject.toml:2:1: error: $.policy.requiredLabel: unknown key "
                          "'requiredLabel' (did you mean 'requiredLabels'?) [repo-config]"]


def test_a_pyproject_without_the_section_is_not_a_config_and_the_search_goes_on(repo):
    write(repo, {"specs/pyproject.toml": '[project]\nname = "trainspec-specs"\n',
                 "trainspec.yaml": LABEL_POLICY})
    assert lines(run("validate", "specs")[2]) == [LABEL_ERROR]


def test_another_tools_broken_pyproject_is_not_ours(repo):
    write(repo, {"pyproject.toml": "[project\nname = 'trainspec'\n"})
    assert run("validate", "specs")[0] == 0


def test_a_broken_pyproject_with_the_section_is_a_located_error(repo):
    write(repo, {"pyproject.toml": '[tool.trainspec]\nignore = ["a",\n'})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err)[0].startswith("pyproject.toml:3:1: error: $: invalid TOML: Invalid value")


def test_pyproject_messages_name_toml_types_and_give_no_yaml_hints(repo):
    write(repo, {"pyproject.toml": "[tool.trainspec.policy]\nmaxTimeout = 1979-05-27T07:32:00Z\n"
                                   "requiredLabels = [2.5, 07:32:00, 1979-05-27, \"1e5\"]\n"})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [
        "pyproject.toml:2:14: error: $.policy.maxTimeout: expected a string, got an offset "
        "date-time [repo-config]",
        "pyproject.toml:3:18: error: $.policy.requiredLabels[0]: expected a string, got a float "
        "(quote it, e.g. \"2.10\": unquoted, TOML reads it as a number) [repo-config]",
        "pyproject.toml:3:18: error: $.policy.requiredLabels[1]: expected a string, got a local "
        "time [repo-config]",
        "pyproject.toml:3:18: error: $.policy.requiredLabels[2]: expected a string, got a local "
        "date [repo-config]"]


def test_both_configs_in_one_folder_is_an_error(repo):
    write(repo, {"trainspec.yaml": "ignore: []\n", "pyproject.toml": "[tool.trainspec]\n"})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [
        "trainspec.yaml:1:1: error: $: two repo configs in one folder: trainspec.yaml and "
        "[tool.trainspec] in pyproject.toml (keep one of them) [repo-config]"]


def test_the_nearest_config_wins(repo):
    # Its ignore/severity/overrides, not the root's (the root's policy still applies:
    # tests/test_config_layers.py).
    write(repo, {"trainspec.yaml": "ignore: [tensorboard-service-account]\n",
                 "specs/trainspec.yaml": "ignore: []\n", "specs/train.yaml": WARNED})
    assert "[tensorboard-service-account]" in run("validate", "specs/train.yaml")[2]


def test_nothing_above_the_repository_root_is_read(repo):
    write(repo.parent, {"trainspec.yaml": LABEL_POLICY})
    assert run("validate", "specs")[0] == 0
    (repo / ".git").rmdir()  # no repository: the search goes on up to the filesystem root
    assert run("validate", "specs")[0] == 1


def test_stdin_uses_the_current_folders_config(repo):
    write(repo, {"trainspec.yaml": LABEL_POLICY})
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["validate", "-"], out, err, stdin=io.BytesIO(SPEC.encode())) == 1
    assert "[policy-label]" in err.getvalue()


def test_a_spec_at_a_git_revision_reads_the_config_at_that_revision(tmp_path):
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True,
                       env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    git("init", "-q")
    write(tmp_path, {"trainspec.yaml": "ignore: [policy-label]\n", "specs/train.yaml": SPEC})
    git("add", ".")
    git("commit", "-qm", "one")
    write(tmp_path, {"trainspec.yaml": "ignore: []\n"})
    found = load.find("specs/train.yaml", GitFiles(tmp_path, "HEAD"))
    assert found.config.ignore == {"policy-label"} and found.spec == "specs/train.yaml"


# -- catalog extensions ---------------------------------------------------------------------

NEW_HARDWARE = SPEC.replace("us-central1", "us-south2").replace(
    "chief: {machineType: n1-standard-8, accelerator: {type: T4, count: 1}}",
    "chief: {machineType: a5-highgpu-8g, accelerator: {type: NVIDIA_B300, count: 8}}")
EXTENSION = ("extraRegions: [us-south2]\nextraMachineTypes: [a5-highgpu-8g]\n"
             "extraAccelerators:\n  us-south2: [NVIDIA_B300]\n")


def test_without_an_extension_new_hardware_is_refused(repo):
    write(repo, {"specs/train.yaml": NEW_HARDWARE})
    code, _, err = run("validate", "specs")
    assert code == 1 and len(lines(err)) == 3


def test_an_extension_compiles_new_hardware_as_written(repo):
    write(repo, {"specs/train.yaml": NEW_HARDWARE, "trainspec.yaml": EXTENSION})
    code, out, _ = run("compile", "specs/train.yaml")
    assert code == 0
    assert json.loads(out)["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] == {
        "machineType": "a5-highgpu-8g", "acceleratorType": "NVIDIA_B300", "acceleratorCount": 8}


def test_explain_marks_what_the_extension_accepted(repo):
    write(repo, {"specs/train.yaml": NEW_HARDWARE, "trainspec.yaml": EXTENSION})
    code, out, _ = run("explain", "specs/train.yaml")
    assert code == 0
    assert ("  from the repo config (not in trainspec's catalog, sent as written)\n"
            "    - $.spec.region: us-south2 (extraRegions in trainspec.yaml)\n"
            "    - $.spec.pools.chief.machineType: a5-highgpu-8g (extraMachineTypes in "
            "trainspec.yaml)\n"
            "    - $.spec.pools.chief.accelerator.type: NVIDIA_B300 in us-south2 "
            "(extraAccelerators in trainspec.yaml)\n") in out


def test_an_accelerator_extension_is_per_region(repo):
    write(repo, {"specs/train.yaml": SPEC.replace("type: T4, count: 1", "type: T4, count: 2")
                 .replace("us-central1", "us-west3"),
                 "trainspec.yaml": "extraAccelerators:\n  us-west3: [NVIDIA_TESLA_T4]\n"})
    assert run("validate", "specs")[0] == 0
    write(repo, {"trainspec.yaml": "extraAccelerators:\n  us-east1: [NVIDIA_TESLA_T4]\n"})
    code, _, err = run("validate", "specs")
    assert code == 1 and "NVIDIA_TESLA_T4 is not available for training in us-west3" in err


def test_an_extension_on_ai_platform(repo):
    write(repo, {"specs/train.yaml": SPEC.replace("us-central1", "us-south2").replace(
        "spec:\n", "spec:\n  platform: ai-platform\n"), "trainspec.yaml": EXTENSION})
    code, out, err = run("explain", "specs/train.yaml")
    assert code == 0 and "warning" not in err
    assert "    - $.spec.region: us-south2 (extraRegions in trainspec.yaml)\n" in out


# -- policy -----------------------------------------------------------------------------------

@pytest.mark.parametrize("policy, spec, expected", [
    ("allowedRegions: [europe-west4]", SPEC,
     "specs/train.yaml:8:11: error: $.spec.region: region 'us-central1' is not allowed "
     "(policy.allowedRegions in trainspec.yaml) (allowed: europe-west4) [policy-region]"),
    ("allowedRegistries: [us-docker.pkg.dev/acme-ml]", SPEC,
     "specs/train.yaml:10:12: error: $.spec.container.image: image 'us-docker.pkg.dev/acme-ml-"
     "prod/trainers/resnet:1.4.2' is not from an allowed registry (policy.allowedRegistries in "
     "trainspec.yaml) (allowed: us-docker.pkg.dev/acme-ml (a prefix matches whole path "
     "segments, at '/'): 'us-docker.pkg.dev/acme-ml' does not allow 'us-docker.pkg.dev/acme-ml-"
     "prod/…'; add 'us-docker.pkg.dev/acme-ml-prod/' to policy.allowedRegistries in "
     "trainspec.yaml, or push the image to an allowed registry) [policy-registry]"),
    ("maxAcceleratorsPerJob: 3",
     SPEC + "    worker: {replicas: 3, machineType: n1-standard-8, accelerator: {type: T4}}\n"
            "  scheduling: {strategy: SPOT}\n",
     "specs/train.yaml:13:68: error: $.spec.pools.worker.accelerator: the job holds 4 "
     "accelerators at once (chief 1 × 1, worker 3 × 1), over policy.maxAcceleratorsPerJob 3 in "
     "trainspec.yaml [policy-accelerators]"),
    ("maxTimeout: 1d", SPEC,
     "specs/train.yaml:6:1: error: $.spec.scheduling.timeout: no scheduling.timeout: the API's "
     "default, 7d, is over policy.maxTimeout 1d in trainspec.yaml (set "
     "spec.scheduling.timeout, at most 1d) [policy-timeout]"),
    ("maxTimeout: 1d", SPEC + "  scheduling: {timeout: 36h}\n",
     "specs/train.yaml:13:25: error: $.spec.scheduling.timeout: timeout 1d12h is over "
     "policy.maxTimeout 1d in trainspec.yaml [policy-timeout]"),
    ("requireEncryptionKey: true", SPEC,
     "specs/train.yaml:6:1: error: $.spec.encryptionKey: no spec.encryptionKey: a "
     "customer-managed key (CMEK) is required (policy.requireEncryptionKey in trainspec.yaml) "
     "(set spec.encryptionKey: projects/P/locations/R/keyRings/K/cryptoKeys/C) "
     "[policy-encryption-key]"),
    ("requireSpotWorkers: true", SPEC + "    worker: {replicas: 2, machineType: n1-standard-8}\n",
     "specs/train.yaml:6:1: error: $.spec.scheduling.strategy: a job with worker replicas must "
     "run on Spot VMs (policy.requireSpotWorkers in trainspec.yaml) (set "
     "spec.scheduling.strategy: SPOT) [policy-spot]"),
])
def test_each_policy_rule_is_a_coded_located_error(repo, policy, spec, expected):
    write(repo, {"trainspec.yaml": f"policy:\n  {policy}\n", "specs/train.yaml": spec})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [expected]


@pytest.mark.parametrize("policy", [
    "allowedRegions: [us-central1, europe-west4]",
    "allowedRegistries: [us-docker.pkg.dev/acme-ml-prod]",
    "allowedRegistries: [us-docker.pkg.dev/acme-ml-prod/trainers/]",
    "maxAcceleratorsPerJob: 1",
    "requiredLabels: [team]",
    "requireSpotWorkers: true",  # a chief alone has no workers
])
def test_a_spec_within_the_policy_passes(repo, policy):
    write(repo, {"trainspec.yaml": f"policy:\n  {policy}\n"})
    assert run("validate", "specs")[0] == 0


def test_policy_covers_executor_images_and_parallel_trials(repo):
    write(repo, {"trainspec.yaml": "policy:\n  allowedRegistries: [gcr.io/acme/]\n"
                                   "  maxAcceleratorsPerJob: 3\n",
                 "specs/train.yaml": (Path(__file__).parent.parent / "specs" / "vision" /
                                      "resnet-hpt.yaml").read_text()})
    code, _, err = run("validate", "specs")
    assert code == 1 and "[policy-registry]" in err
    assert "the job holds 4 accelerators at once (chief 1 × 1; 4 parallel trials)" in err


# -- hostile config files -----------------------------------------------------------------------

@pytest.mark.parametrize("content, message", [
    (b"ignore: [\xff]\n", "trainspec.yaml:1:10: error: $: not UTF-8: invalid byte 0xff"),
    (b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n", "nesting deeper than 64 levels"),
    (b"a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     b"c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
     b"e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n", "expands to more than 50000 values"),
    (b"ignore: []\n" + b"#" * (1024 * 1024 + 1), "larger than 1 MiB"),
    (b"\x00\x01binary", "trainspec.yaml:1:1: error: $: invalid YAML: control character"),
    (b"ignore: !!python/object:os.system [x]\n", "trainspec.yaml:1:9: error: "),
])
def test_a_hostile_config_is_a_located_error_without_traceback(repo, content, message):
    write(repo, {"trainspec.yaml": content})
    code, _, err = run("validate", "specs")
    assert code == 1 and message in err and "Traceback" not in err
    assert err.splitlines()[0].startswith("trainspec.yaml:")


def test_a_config_that_is_not_a_regular_file_is_refused_unread(repo):
    os.mkfifo(repo / "trainspec.yaml")  # reading a pipe would block forever
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [
        "trainspec.yaml:1:1: error: $: not a regular file (a named pipe): a spec is a YAML "
        "file [repo-config]"]
    for target in ("/dev/zero", "/etc/hostname"):  # nothing outside the repository is read
        os.unlink(repo / "trainspec.yaml")
        os.symlink(target, repo / "trainspec.yaml")
        code, _, err = run("validate", "specs")
        assert code == 1 and lines(err) == [
            "trainspec.yaml:1:1: error: $: a symbolic link: the repo config is a regular file "
            "[repo-config]"]


def test_a_deeply_nested_pyproject_is_a_located_error(repo):
    write(repo, {"pyproject.toml": "[tool.trainspec]\nignore = " + "[" * 100_000 + "\n"})
    code, _, err = run("validate", "specs")
    assert code == 1 and "Traceback" not in err
    assert lines(err)[0].startswith("pyproject.toml:")


def test_the_init_template_documents_every_key_validly(repo):
    template = (Path(__file__).parent.parent / "compiler" / "_templates" /
                "trainspec.yaml").read_text()
    settings = "\n".join(line[2:] for line in template.splitlines()
                         if re.match(r"^# (\s*[A-Za-z]+:|\s+- )", line)) + "\n"
    for key in ("ignore", "severity", "overrides", "extraRegions", "extraMachineTypes",
                "extraAccelerators", "policy", "packaging", "requiredLabels", "allowedRegions",
                "allowedRegistries", "maxAcceleratorsPerJob", "maxTimeout",
                "requireEncryptionKey", "requireSpotWorkers", "allowSecretFiles", "maxSizeMiB",
                "maxCostPerJob", "maxHourlyRate"):
        assert re.search(rf"^\s*(- )?{key}:", settings, re.M), key
    config, problems = check.parse_yaml(settings, "trainspec.yaml")
    assert problems == () and config.policy.max_accelerators == 16
    assert (config.policy.max_cost, config.policy.max_hourly_rate) == (500, 40)
    write(repo, {"trainspec.yaml": template})
    assert run("validate", "specs")[0] == 0


def test_diff_reads_each_sides_config_and_takes_strict(tmp_path, monkeypatch):
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    write(tmp_path, {"specs/train.yaml": WARNED,
                     "trainspec.yaml": LABEL_POLICY + "ignore: [policy-label]\n"})
    git("add", "-A")
    git("commit", "-qm", "base")
    monkeypatch.chdir(tmp_path)
    assert run("diff", "main")[0] == 0  # no change; the base's config ignores the label
    assert run("diff", "main", "--strict")[0] == 1  # the tensorboard warning is an error
    write(tmp_path, {"trainspec.yaml": LABEL_POLICY})
    code, out, err = run("diff", "main")
    assert code == 1 and "[policy-label]" in out + err


def test_the_config_schema_is_valid_and_docs_name_every_key():
    schema = json.loads((ROOT / "schemas" / "v1" / "config.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    docs = (ROOT / "docs" / "config.md").read_text()
    keys = list(schema["properties"]) + [f"{parent}.{key}" for parent in ("policy", "packaging")
                                         for key in schema["properties"][parent]["properties"]]
    for key in keys:
        assert f"| `{key}` |" in docs, key


def test_every_config_code_is_in_the_registry():
    from compiler.rules import RULES

    codes = {"repo-config", "unknown-code", "policy-label", "policy-region", "policy-registry",
             "policy-accelerators", "policy-timeout", "policy-encryption-key", "policy-spot"}
    assert codes <= set(RULES)
    docs = (ROOT / "docs" / "config.md").read_text()
    assert all(f"`{code}`" in docs for code in codes)


def test_what_leaves_a_spec_without_meaning_is_never_ignored():
    from compiler.config import apply
    from compiler.config.model import Config
    from compiler.diagnostics import Diagnostic

    schema = Diagnostic("$.spec.x", "unknown key 'x'", file="s.yaml", code="policy-label")
    rule = Diagnostic("$.spec.region", "not allowed", file="s.yaml", code="policy-label")
    found = load.Found(Config(ignore=frozenset({"policy-label"}),
                              severity=(("policy-label", "warning"),)), "s.yaml")
    assert apply.apply([schema, rule], found, {}, "s.yaml", False, fixed=[schema]) == [schema]


# -- what may be silenced (compiler/rules.yaml `tunable`) -----------------------------------------

ML_SPEC = SPEC.replace("  region: us-central1\n", "  platform: ai-platform\n  region: us-central1\n"
                       "  scheduling: {timeout: 1h, disableRetries: true}\n")


@pytest.mark.parametrize("config,expected", [
    ("ignore: [vertex-only]\n", "trainspec.yaml:1:10: error: $.ignore[0]: vertex-only cannot be "
     "ignored: silencing it would send a different job than the spec says, or none (fix what it "
     "reports; docs/rules.md says which rules may be ignored) [code-not-tunable]"),
    ("severity: {chief-replicas: warning}\n", "trainspec.yaml:1:12: error: $.severity."
     "chief-replicas: chief-replicas cannot be made a warning: silencing it would send a "
     "different job than the spec says, or none (fix what it reports; docs/rules.md says which "
     "rules may be ignored) [code-not-tunable]"),
    ("ignore: [unknown-code, polcy-label]\n", "trainspec.yaml:1:10: error: $.ignore[0]: "
     "unknown-code cannot be ignored"),
    ("severity: {unknown-key: warning}\n", "trainspec.yaml:1:12: error: $.severity.unknown-key: "
     "unknown-key cannot be made a warning"),
])
def test_a_rule_that_would_change_the_job_cannot_be_silenced(repo, config, expected):
    """An error whose value lowering drops or changes (a platform refusal, a structural rule)
    is never ignored nor softened: the config naming it is an error, and the spec's own error
    still stands, so nothing different from the spec is ever sent."""
    write(repo, {"trainspec.yaml": config, "specs/train.yaml": ML_SPEC})
    code, out, err = run("compile", "specs/train.yaml")
    assert code == 1 and out == ""
    assert any(line.startswith(expected) for line in lines(err)), err
    assert "$.spec.scheduling.disableRetries: cannot be expressed on ai-platform" in err


def test_an_inline_ignore_of_a_rule_that_would_change_the_job_is_refused(repo):
    write(repo, {"specs/train.yaml": ML_SPEC.replace(
        "disableRetries: true}\n", "disableRetries: true}  # trainspec: ignore[vertex-only]\n")})
    code, out, err = run("compile", "specs/train.yaml")
    assert code == 1 and out == ""
    assert "vertex-only cannot be ignored" in err and "[code-not-tunable]" in err
    assert ": error: $.spec.scheduling.disableRetries: cannot be expressed on ai-platform" in err


def _golden_cases():
    golden = ROOT / "tests" / "golden"
    for diagnostics in sorted(golden.glob("*/*.diagnostics")):
        platform = diagnostics.stem
        codes = set(re.findall(r": error: .*\[([a-z0-9-]+)\]$", diagnostics.read_text(), re.M))
        if codes and all(RULES[c].can_tune for c in codes):
            yield pytest.param(diagnostics.parent, platform, sorted(codes),
                               id=f"{diagnostics.parent.name}-{platform}")




@pytest.mark.parametrize("case,platform,codes", list(_golden_cases()))
def test_a_silenced_error_sends_the_spec_as_written(repo, case, platform, codes):
    """Every golden case whose errors are all tunable compiles once they are ignored, and each
    value an error was about is in the request as the spec wrote it."""
    spec = (case / "spec.yaml").read_text()
    write(repo, {"specs/train.yaml": spec, "trainspec.yaml": f"ignore: [{', '.join(codes)}]\n"})
    code, out, err = run("compile", "specs/train.yaml", "--platform", platform)
    assert code == 0, err
    body = json.dumps(json.loads(out))
    doc, _ = source.parse(spec.encode(), "spec.yaml")
    expected = [line for line in (case / f"{platform}.diagnostics").read_text().splitlines()
                if ": error: " in line]
    for line in expected:
        path = line.split(": error: ", 1)[1].split(": ", 1)[0]
        value: object = doc.data
        for part in re.findall(r"[^.\[\]]+", path.removeprefix("$")):
            value = value[int(part)] if isinstance(value, list) else (
                value.get(part) if isinstance(value, dict) else None)
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            continue  # the error is about an object (a pool): its scalars are checked above
        # As written means as the spec means it: a duration in the API's form, a short
        # accelerator name as the API's enum.
        sent = {json.dumps(value), str(value)}
        if path in fields.DURATION_PATHS:
            sent.add(json.dumps(durations.to_google(durations.parse(value))))
        if path.endswith(".accelerator.type"):
            sent.add(json.dumps(accelerators.canonical(str(value)) or value))
        assert any(s in body for s in sent), (path, value)


ML_POOL_SPEC = SPEC.replace("  region: us-central1\n", "  platform: ai-platform\n  region: us-central1\n")


@pytest.mark.parametrize("config,spec,kept", [
    # A retired GPU gets no machine: ignoring the retirement leaves no machine to send.
    ("ignore: [retired-accelerator]\n", ML_POOL_SPEC.replace(
        "chief: {machineType: n1-standard-8, accelerator: {type: T4, count: 1}}",
        "chief: {accelerator: {type: K80, count: 3}}"), "[no-machine]"),
    # A machine newer than the tables does not let an accelerator the API has no name for through.
    ("ignore: [unknown-machine]\n", SPEC.replace(
        "chief: {machineType: n1-standard-8, accelerator: {type: T4, count: 1}}",
        "chief: {machineType: n1-standard-9, accelerator: {type: TPU_V2_POD, count: 32}}"),
     "[accelerator-type]"),
])
def test_silencing_one_rule_never_silences_another(repo, config, spec, kept):
    write(repo, {"trainspec.yaml": config, "specs/train.yaml": spec})
    code, out, err = run("compile", "specs/train.yaml")
    assert code == 1 and out == "" and kept in err, err


def test_a_tpu_vm_without_topology_counts_its_chips_against_the_policy(repo):
    spec = SPEC.replace("chief: {machineType: n1-standard-8, accelerator: {type: T4, count: 1}}",
                        "chief: {machineType: ct5lp-hightpu-4t}")
    write(repo, {"trainspec.yaml": "policy: {maxAcceleratorsPerJob: 1}\n", "specs/train.yaml": spec})
    code, _, err = run("validate", "specs")
    assert code == 1 and "[policy-accelerators]" in err, err


@pytest.mark.parametrize("value", ["٢x٢", "2x2\u2028"])
def test_schema_patterns_read_digits_and_dots_as_ecma_262_does(repo, value):
    """`\\d` is [0-9] in a JSON Schema pattern and `.` matches no line terminator."""
    spec = SPEC.replace("chief: {machineType: n1-standard-8, accelerator: {type: T4, count: 1}}",
                        f"chief: {{machineType: ct5lp-hightpu-4t, tpuTopology: \"{value}\"}}")
    write(repo, {"trainspec.yaml": "ignore: [tpu-topology]\n", "specs/train.yaml": spec})
    code, out, err = run("compile", "specs/train.yaml")
    assert code == 1 and out == "" and "$.spec.pools.chief.tpuTopology" in err, err


# -- cost policy (compiler/config/policy.py _cost, at compiler/catalog/prices.csv's rates) -----

H100 = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: llm, labels: {team: nlp}}
spec:
  region: us-central1
  container: {image: us-docker.pkg.dev/acme-ml-prod/trainers/llm:1.0}
  pools:
    chief: {machineType: a3-highgpu-8g}
  scheduling: {timeout: 24h}
"""


SECONDARY = ("prices from secondary sources (cloudbilling SKUs 2E83-99F1-391A (A3 core "
             "$0.0293227/h × 208) + B045-9255-8314 (A3 RAM $0.0025534/GiB-h × 1872), as quoted "
             "in a zenn.dev blog post; cloudbilling SKU 3F95-001E-B747 (Vertex AI service "
             "C7E2-9256-1C43), as quoted in a zenn.dev blog post, 2025-08-16): run `trainspec "
             "prices refresh`")
COST_RULES = [
    ("maxCostPerJob: 2000", "specs/train.yaml:9:25: {severity}: $.spec.scheduling.timeout: the "
     "job costs at most $2,424.18 ($101.01/h for the 1d timeout), over policy.maxCostPerJob "
     "$2,000.00 in trainspec.yaml{said} (a shorter scheduling.timeout, fewer replicas or "
     "trials, or cheaper machines) [policy-cost{code}]"),
    ("maxHourlyRate: 100.5", "specs/train.yaml:8:12: {severity}: $.spec.pools.chief: the job "
     "costs $101.01/h at once, over policy.maxHourlyRate $100.50/h in trainspec.yaml{said} "
     "(fewer replicas or parallel trials, cheaper machines, or scheduling.strategy SPOT) "
     "[policy-hourly-rate{code}]"),
]


@pytest.fixture
def verified_prices(monkeypatch):
    """The catalog with its rows as `prices refresh` writes them: read today, verified."""
    rows = tuple(dataclasses.replace(p, status=catalog.VERIFIED) for p in catalog.ROWS)
    monkeypatch.setattr(catalog, "_BY_KEY", catalog.index(rows))


@pytest.mark.parametrize("policy, expected", COST_RULES)
def test_each_cost_rule_at_verified_prices_is_a_coded_located_error(repo, verified_prices,
                                                                   policy, expected):
    """Every price read from a current primary source: [policy-cost] and
    [policy-hourly-rate] refuse the job."""
    write(repo, {"trainspec.yaml": f"policy:\n  {policy}\n", "specs/train.yaml": H100})
    code, _, err = run("validate", "specs")
    assert code == 1 and lines(err) == [expected.format(severity="error", said="", code="")]


@pytest.mark.parametrize("policy, expected", COST_RULES)
def test_each_cost_rule_at_a_secondary_price_is_a_warning_naming_the_source(repo, policy,
                                                                           expected):
    """The shipped catalog's prices are secondary (a blog post's SKU prices): a refusal must be
    certain, so the finding is a warning ([policy-cost-unverified],
    [policy-hourly-rate-unverified]) saying so and how to refresh, and the job passes."""
    write(repo, {"trainspec.yaml": f"policy:\n  {policy}\n", "specs/train.yaml": H100})
    code, _, err = run("validate", "specs")
    assert code == 0 and lines(err) == [expected.format(
        severity="warning", said="; " + SECONDARY, code="-unverified")]


def test_a_job_under_its_cost_limits_passes(repo):
    write(repo, {"trainspec.yaml": "policy: {maxCostPerJob: 2500, maxHourlyRate: 102}\n",
                 "specs/train.yaml": H100})
    code, _, err = run("validate", "specs")
    assert code == 0 and "policy" not in err


def test_a_cost_rule_over_an_unknown_price_is_a_warning_it_was_not_checked(repo):
    write(repo, {"trainspec.yaml": "policy: {maxCostPerJob: 1}\n",
                 "specs/train.yaml": H100.replace("us-central1", "us-east4")})
    code, _, err = run("validate", "specs")
    assert code == 0 and lines(err) == [
        "specs/train.yaml:8:12: warning: $.spec.pools.chief: policy.maxCostPerJob in "
        "trainspec.yaml could not be checked: no price for H100 80GB, a3-highgpu-8g in us-east4 "
        "(on-demand) in compiler/catalog/prices.csv (`trainspec prices refresh` reads the Cloud "
        "Billing Catalog) [cost-unchecked]"]
