"""`diff BASE [HEAD]` on throwaway git repositories, and `compile DIR --out OUT --check`."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compiler import cli, plan, review
from compiler.report import review as report_review

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

VERTEX = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: resnet
  labels: {team: vision}
spec:
  region: us-central1
  container:
    image: gcr.io/acme/resnet:1.0
    args: [--epochs=3]
  env:
    NCCL_DEBUG: INFO
    WANDB_API_KEY: {secret: wandbApiKey}
  pools:
    chief: {machineType: n1-standard-8, accelerator: {type: T4, count: 1}}
"""

LEGACY = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: census
  labels: {team: tabular}
spec:
  platform: ai-platform
  region: us-central1
  container: {image: gcr.io/acme/census:3.1}
  pools:
    chief: {machineType: n1-standard-8}
"""


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                          text=True).stdout


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A git repo with two specs committed on `main`."""
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "specs" / "legacy").mkdir(parents=True)
    (tmp_path / "specs" / "resnet.yaml").write_text(VERTEX)
    (tmp_path / "specs" / "legacy" / "census.yaml").write_text(LEGACY)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    return tmp_path


def run(repo: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["diff", *argv, "--repo", str(repo)], out, err)
    return code, out.getvalue(), err.getvalue()


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


# -- actions ----------------------------------------------------------------------------------

def test_no_change_exits_0(repo):
    code, out, _ = run(repo, "main")
    assert code == review.EXIT_SAME == 0
    assert "no changes" in out


def test_added_spec_is_a_create(repo):
    (repo / "specs" / "new.yaml").write_text(VERTEX.replace("name: resnet", "name: fresh"))
    code, out, _ = run(repo, "main")  # untracked file in the working tree
    assert code == review.EXIT_CHANGED == 2
    assert "specs/new.yaml (job fresh, vertex)" in out
    assert "create: a new job is submitted" in out
    assert '+ jobSpec.workerPoolSpecs[0].containerSpec.imageUri: "gcr.io/acme/resnet:1.0"' in out


def test_removed_spec_is_a_delete(repo):
    (repo / "specs" / "resnet.yaml").unlink()
    code, out, _ = run(repo, "main")
    assert code == 2
    assert "delete: the job is cancelled if still running" in out
    assert '- displayName: "resnet"' in out


def test_image_change_is_a_replace_listing_the_field(repo):
    edit(repo / "specs" / "resnet.yaml", "resnet:1.0", "resnet:1.1")
    code, out, _ = run(repo, "main")
    assert code == 2
    assert "replace: cancels the job if it still runs, then submits" in out
    assert '- jobSpec.workerPoolSpecs[0].containerSpec.imageUri: "gcr.io/acme/resnet:1.0"' in out
    assert '+ jobSpec.workerPoolSpecs[0].containerSpec.imageUri: "gcr.io/acme/resnet:1.1"' in out
    assert "census" not in out  # unchanged specs are not listed


def test_ai_platform_label_change_is_an_update_in_place(repo):
    edit(repo / "specs" / "legacy" / "census.yaml", "{team: tabular}", "{team: tabular, tier: gold}")
    code, out, _ = run(repo, "main")
    assert code == 2
    assert "update in place: labels are patched" in out
    assert '+ labels.tier: "gold"' in out


def test_vertex_label_change_is_recorded_for_the_next_run_never_a_re_run(repo):
    edit(repo / "specs" / "resnet.yaml", "{team: vision}", "{team: vision2}")
    code, out, _ = run(repo, "main")
    assert code == 2
    assert "replace" not in out
    assert f"  {plan.LABELS_RECORDED}\n" in out
    assert '- labels.team: "vision"' in out and '+ labels.team: "vision2"' in out
    assert "1 of 2 spec file(s) changed: 1 update" in out
    _, md, _ = run(repo, "main", "--format", "markdown")
    assert "| 🔵 labels recorded (no re-run) |" in md and plan.LABELS_RECORDED in md
    _, js, _ = run(repo, "main", "--format", "json")
    (entry,) = json.loads(js)["entries"]
    assert (entry["action"], entry["description"]) == ("update", plan.LABELS_RECORDED)


def test_two_revisions_and_commits(repo):
    edit(repo / "specs" / "resnet.yaml", "resnet:1.0", "resnet:2.0")
    git(repo, "commit", "-qam", "bump")
    code, out, _ = run(repo, "main~1", "main")
    assert code == 2 and "resnet:2.0" in out
    assert run(repo, "main", "main")[0] == 0


def test_moved_file_with_same_identity_is_not_a_delete_and_create(repo):
    (repo / "specs" / "resnet.yaml").rename(repo / "specs" / "vision.yaml")
    code, out, _ = run(repo, "main")
    assert code == 0
    assert "moved, same request: specs/resnet.yaml → specs/vision.yaml" in out
    edit(repo / "specs" / "vision.yaml", "resnet:1.0", "resnet:1.1")
    code, out, _ = run(repo, "main")
    assert code == 2
    assert "specs/resnet.yaml → specs/vision.yaml (job resnet, vertex)" in out
    assert "replace:" in out and "delete:" not in out and "create:" not in out


def test_region_change_is_a_replace_in_the_new_place(repo):
    # The region is in the request URL, not the Vertex body: the body is the same.
    edit(repo / "specs" / "resnet.yaml", "region: us-central1", "region: europe-west4")
    for fmt in ("text", "markdown"):
        code, out, _ = run(repo, "main", "--format", fmt)
        assert code == 2, out
        assert "replace: cancels the job if it still runs, then submits" in out
        assert '- region: "us-central1"' in out and '+ region: "europe-west4"' in out
        assert "census" not in out
    code, out, _ = run(repo, "main", "--format", "json")
    (entry,) = json.loads(out)["entries"]
    assert entry["action"] == "replace"
    assert entry["changes"][0] == {"path": "region", "kind": "changed", "old": "us-central1",
                                   "new": "europe-west4"}


def test_project_change_is_a_replace_and_defaults_count(repo):
    edit(repo / "specs" / "resnet.yaml", "  region: us-central1", "  project: acme-a\n"
         "  region: us-central1")
    git(repo, "commit", "-qam", "pin project")
    edit(repo / "specs" / "resnet.yaml", "project: acme-a", "project: acme-b")
    code, out, _ = run(repo, "main")
    assert code == 2
    assert "replace:" in out and '- project: "acme-a"' in out and '+ project: "acme-b"' in out
    # The resolved project: a spec that drops its project for the --project default moves
    # when the default differs, and does not when it is the same place.
    edit(repo / "specs" / "resnet.yaml", "  project: acme-b\n", "")
    code, out, _ = run(repo, "main", "--project", "acme-c")
    assert code == 2 and '+ project: "acme-c"' in out
    code, out, _ = run(repo, "main", "--project", "acme-a")
    assert code == 0 and "no changes" in out


def test_classify_location_keywords_keep_the_positional_signature():
    from compiler import plan
    body = {"displayName": "x"}
    assert plan.classify("vertex", body, body).action == plan.NONE
    assert plan.classify("ai-platform", body, body, "ai-platform").action == plan.NONE
    same = plan.classify("vertex", body, body, old_location=("p", "r"), new_location=("p", "r"))
    assert same.action == plan.NONE
    moved = plan.classify("vertex", body, body, "vertex", old_location=("p", "r"),
                          new_location=("q", "r"))
    assert moved.action == plan.REPLACE and moved.changes == [plan.Change("project", "p", "q")]
    labels = plan.classify("ai-platform", {"labels": {"a": "1"}}, {"labels": {"a": "2"}},
                           old_location=("p", "r"), new_location=("p", "s"))
    assert labels.action == plan.REPLACE  # labels are patched in place, but not across regions
    created = plan.classify("vertex", None, body, old_location=None, new_location=("p", "r"))
    assert created.action == plan.CREATE


def test_platform_change_is_a_replace(repo):
    edit(repo / "specs" / "legacy" / "census.yaml", "platform: ai-platform", "platform: vertex")
    code, out, _ = run(repo, "main")
    assert code == 2
    assert "specs/legacy/census.yaml (job census, vertex)" in out
    assert "replace:" in out and "delete:" not in out and "create:" not in out
    assert "- platform: ai-platform" in out and "+ platform: vertex" in out


def test_platform_override_compiles_both_sides_for_it(repo):
    edit(repo / "specs" / "legacy" / "census.yaml", "census:3.1", "census:3.2")
    code, out, _ = run(repo, "main", "--platform", "vertex")
    assert code == 2 and "(job census, vertex)" in out


# -- secrets ----------------------------------------------------------------------------------

def test_secret_env_values_are_never_printed(repo):
    edit(repo / "specs" / "resnet.yaml", "NCCL_DEBUG: INFO",
         "NCCL_DEBUG: WARN\n    HF_TOKEN: hf_live_0123456789abcdefghij\n"
         "    DB_URL: postgres://admin:s3cr3tpw@db/x")
    edit(repo / "specs" / "resnet.yaml", "args: [--epochs=3]",
         "args: [--epochs=3, --api-key=AIzaSyA1234567890abcdefghijklmnopqrstuv, --password, hunter2]")
    (repo / "specs" / "new.yaml").write_text(VERTEX.replace("name: resnet", "name: fresh"))
    for fmt in ("text", "markdown", "json"):
        code, out, err = run(repo, "main", "--format", fmt)
        assert code == 2, err
        for secret in ("hf_live_0123456789abcdefghij", "s3cr3tpw", "AIzaSyA1234567890",
                       "hunter2"):
            assert secret not in out + err, (fmt, secret)
        assert "<redacted>" in out
        assert "<secret:trainspec:wandbApiKey>" in out  # the placeholder is not a secret
        assert "WARN" in out  # ordinary values are shown


def test_env_changes_are_shown_by_name_in_every_format(repo):
    """A changed env value (same number of variables), a secret-looking one and a pool's own
    env: each line names its variable, never its position (docs/review.md)."""
    edit(repo / "specs" / "resnet.yaml", "WANDB_API_KEY: {secret: wandbApiKey}",
         "WANDB_API_KEY: {secret: wandbApiKey}\n    HF_TOKEN: hf_live_0123456789abcdefghij")
    edit(repo / "specs" / "resnet.yaml", "accelerator: {type: T4, count: 1}}",
         "accelerator: {type: T4, count: 1}}\n    worker: {machineType: n1-standard-8, "
         "replicas: 2, env: {MODE: a}}")
    git(repo, "commit", "-qam", "env")
    edit(repo / "specs" / "resnet.yaml", "NCCL_DEBUG: INFO", "NCCL_DEBUG: WARN")
    edit(repo / "specs" / "resnet.yaml", "hf_live_0123456789abcdefghij",
         "hf_live_9876543210abcdefghij")
    edit(repo / "specs" / "resnet.yaml", "env: {MODE: a}", "env: {MODE: b}")
    (repo / "specs" / "new.yaml").write_text(VERTEX.replace("name: resnet", "name: fresh"))
    pool = "jobSpec.workerPoolSpecs[{}].containerSpec.env[name={}]"
    for fmt in ("text", "markdown", "json"):
        code, out, err = run(repo, "main", "--format", fmt)
        assert code == 2, err
        assert "env[0]" not in out and "env[1]" not in out, (fmt, out)
        assert "hf_live_" not in out, fmt
        for shown in (pool.format(0, "NCCL_DEBUG") + ".value", pool.format(0, "HF_TOKEN") + ".value",
                      pool.format(1, "MODE") + ".value", pool.format(0, "WANDB_API_KEY") + ".name"):
            assert shown in out, (fmt, shown)
    _, out, _ = run(repo, "main")
    assert f'- {pool.format(0, "HF_TOKEN")}.value: "<redacted>"' in out
    assert f'+ {pool.format(0, "HF_TOKEN")}.value: "<redacted>"' in out
    assert f'+ {pool.format(1, "MODE")}.value: "b"' in out


def test_diagnostics_are_redacted_in_every_format(repo):
    edit(repo / "specs" / "resnet.yaml", "  region: us-central1", "  region: us-central1\n"
         "  outputDir: https://admin:SuperSecretPw99@storage.example.com/x")
    for fmt in ("text", "markdown", "json"):
        code, out, err = run(repo, "main", "--format", fmt)
        assert code == 1, (fmt, out)
        assert "SuperSecretPw99" not in out + err, fmt
        assert "https://admin:<redacted>@storage.example.com/x" in out, fmt  # still useful
        assert "$.spec.outputDir" in out, fmt


def test_secret_literals_are_scrubbed_from_diagnostics():
    from compiler.diagnostics import Diagnostic
    secrets = review.spec_secrets({"spec": {
        "env": {"DB_PASSWORD": "hunter2hunter2", "MODE": "fast"},
        "container": {"args": ["--password", "opensesame", "--lr", "0.1"]}}})
    assert secrets == {"hunter2hunter2", "opensesame"}
    d = Diagnostic("$.spec.x", "'hunter2hunter2' and 'opensesame' are wrong; mode 'fast'",
                   hint="try api_key=XYZSECRET123")
    r = review.redact_diagnostic(d, secrets)
    assert r.message == "'<redacted>' and '<redacted>' are wrong; mode 'fast'"
    assert r.hint == "try api_key=<redacted>"


def test_key_value_args_are_redacted(repo):
    edit(repo / "specs" / "resnet.yaml", "args: [--epochs=3]",
         "args: [--epochs=3, api_key=XYZSECRET123, --token=Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU, "
         "password=pw0rd55, "
         "'python t.py --secret=sh3llsecret --lr=0.1']")
    for fmt in ("text", "markdown", "json"):
        code, out, err = run(repo, "main", "--format", fmt)
        assert code == 2, err
        for secret in ("XYZSECRET123", "Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU", "pw0rd55", "sh3llsecret"):
            assert secret not in out + err, (fmt, secret)
        for shown in ("api_key=<redacted>", "--token=<redacted>", "password=<redacted>",
                      "python t.py --secret=<redacted> --lr=0.1"):
            assert shown in out, (fmt, shown)


def test_redact_text_hides_only_the_secret_part():
    cases = {
        "api_key=XYZSECRET123": "api_key=<redacted>",
        "--token=Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU": "--token=<redacted>",
        "--token=abc": "--token=abc",  # a token's name, but not a random value
        "password=p4ss --lr=0.1": "password=<redacted> --lr=0.1",
        "run --credentials-file /k.json now": "run --credentials-file /k.json now",  # a path
        "https://u:pw123@host/x?access_token=Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU&y=1":
            "https://u:<redacted>@host/x?access_token=<redacted>&y=1",
        "the token expired": "the token expired",  # prose, not a pair
        "monkey=3 --lr=0.1 keyfile=a": "monkey=3 --lr=0.1 keyfile=a",
        "SSH_KEY=Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU sshKey=Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU "
        "--key=Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU": "SSH_KEY=<redacted> sshKey=<redacted> --key=<redacted>",
    }
    for text, expected in cases.items():
        assert review.redact_text(text) == expected, text


def test_redact_keeps_placeholders_and_plain_values():
    body = {"args": ["--token", "Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU", "--lr=0.1", "--secret-key=xyz9q"],
            "env": [{"name": "API_KEY", "value": "<secret:trainspec:k>"},
                    {"name": "MODE", "value": "fast"}, {"name": "PASSWORD", "value": "p4ss"}]}
    assert review.redact(body) == {
        "args": ["--token", "<redacted>", "--lr=0.1", "--secret-key=<redacted>"],
        "env": [{"name": "API_KEY", "value": "<secret:trainspec:k>"},
                {"name": "MODE", "value": "fast"}, {"name": "PASSWORD", "value": "<redacted>"}]}


# -- formats ----------------------------------------------------------------------------------

def test_markdown_is_a_pr_comment(repo):
    edit(repo / "specs" / "resnet.yaml", "resnet:1.0", "resnet:1.1")
    (repo / "specs" / "legacy" / "census.yaml").unlink()
    code, out, _ = run(repo, "main", "--format", "markdown")
    assert code == 2
    assert out.startswith(report_review.MARKER)
    assert "| Spec | Job | Platform | Action |" in out
    assert "| `specs/resnet.yaml` | resnet | vertex | 🟠 replace |" in out
    assert "| `specs/legacy/census.yaml` | census | ai-platform | 🔴 delete |" in out
    assert out.count("<details>") == 2 and out.count("</details>") == 2
    assert "```diff\n- jobSpec.workerPoolSpecs[0].containerSpec.imageUri" in out


def test_markdown_no_changes(repo):
    code, out, _ = run(repo, "main", "--format", "markdown")
    assert code == 0 and "No changes" in out


def test_json_is_machine_readable_and_stable(repo):
    edit(repo / "specs" / "resnet.yaml", "resnet:1.0", "resnet:1.1")
    code, out, _ = run(repo, "main", "--format", "json")
    assert code == 2
    report = json.loads(out)
    assert report["exitCode"] == 2 and report["ok"] is True and report["changed"] == 1
    assert report["summary"] == {"create": 0, "replace": 1, "update": 0, "delete": 0, "error": 0}
    (entry,) = report["entries"]
    assert entry["action"] == "replace" and entry["job"] == "resnet"
    assert {"path": "jobSpec.workerPoolSpecs[0].containerSpec.imageUri", "kind": "changed",
            "old": "gcr.io/acme/resnet:1.0", "new": "gcr.io/acme/resnet:1.1"} in entry["changes"]
    assert run(repo, "main", "--format", "json")[1] == out  # byte-identical on a re-run


# -- errors -----------------------------------------------------------------------------------

def test_invalid_spec_on_head_is_a_located_error(repo):
    edit(repo / "specs" / "resnet.yaml", "n1-standard-8", "n1-standard-3")
    code, out, _ = run(repo, "main")
    assert code == review.EXIT_ERROR == 1
    assert "specs/resnet.yaml:15:" in out and "$.spec.pools.chief.machineType" in out
    code, out, err = run(repo, "main", "--format", "json")
    assert code == 1
    (entry,) = json.loads(out)["entries"]
    assert entry["action"] == "error" and entry["errors"][0]["line"] == 15
    assert "specs/resnet.yaml:15:" in err  # markdown/json go to a file; the log says why


def test_spec_broken_on_base_and_fixed_on_head_is_not_an_error(repo):
    edit(repo / "specs" / "resnet.yaml", "n1-standard-8", "n1-standard-3")
    git(repo, "commit", "-qam", "break")
    edit(repo / "specs" / "resnet.yaml", "n1-standard-3", "n1-standard-8")
    code, out, _ = run(repo, "main")
    assert code == 2
    assert "create:" in out and "did not compile on the BASE side" in out


def test_unknown_revision_is_an_error(repo):
    code, out, err = run(repo, "no-such-branch")
    assert code == 1 and out == ""
    assert "no-such-branch" in err and "fetch-depth: 0" in err


def test_specs_folder_option_and_missing_folder(repo):
    (repo / "jobs").mkdir()
    (repo / "jobs" / "a.yml").write_text(VERTEX)
    code, out, _ = run(repo, "main", "--specs", "jobs")
    assert code == 2 and "jobs/a.yml (job resnet, vertex)" in out and "create" in out


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_folder_without_specs_on_either_side_is_an_error(repo, fmt):
    code, out, err = run(repo, "main", "--specs", "nosuch", "--format", fmt)
    assert code == review.EXIT_ERROR == 1 and out == ""
    assert "no spec files" in err and "nosuch/" in err and "does not exist" in err
    code, out, err = run(repo, "main", "main", "--specs", "nosuch", "--format", fmt)
    assert code == 1 and out == "" and "nosuch/" in err
    (repo / "empty").mkdir()
    code, out, err = run(repo, "main", "--specs", "empty")
    assert code == 1 and out == "" and "empty/" in err


def test_run_from_a_folder_without_specs_is_an_error(repo):
    (repo / "docs").mkdir()
    code, out, err = run(repo / "docs", "main")  # --repo docs: specs/ is docs/specs
    assert code == 1 and out == ""
    assert "docs/specs/" in err and "--specs" in err


# -- compile DIR --out OUT --check ------------------------------------------------------------

def compile_tree(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["compile", *argv], out, err)
    return code, err.getvalue()


def test_check_is_ok_on_fresh_output_and_fails_when_stale(tmp_path):
    specs = tmp_path / "specs"
    shutil.copytree(ROOT / "specs", specs)
    out = tmp_path / "compiled"
    assert compile_tree(str(specs), "--out", str(out))[0] == 0
    code, err = compile_tree(str(specs), "--out", str(out), "--check")
    assert code == 0 and "up to date" in err
    edit(specs / "vision" / "resnet-a100-spot.yaml", "resnet:1.4.2", "resnet:1.4.3")
    code, err = compile_tree(str(specs), "--out", str(out), "--check")
    assert code == 1
    assert f"{out / 'vision' / 'resnet-a100-spot.json'}: stale" in err
    (specs / "nlp" / "bert-cpu-smoke.yaml").unlink()
    code, err = compile_tree(str(specs), "--out", str(out), "--check")
    assert code == 1 and "bert-cpu-smoke.json: no spec compiles to it any more" in err


def test_output_is_canonical_one_file_per_spec(tmp_path):
    specs = tmp_path / "specs"
    shutil.copytree(ROOT / "specs", specs)
    out = tmp_path / "compiled"
    compile_tree(str(specs), "--out", str(out))
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.json"))
    assert files == sorted(p.relative_to(specs).with_suffix(".json").as_posix()
                           for p in specs.rglob("*.yaml"))
    before = {p: p.read_bytes() for p in out.rglob("*.json")}
    compile_tree(str(specs), "--out", str(out))
    assert {p: p.read_bytes() for p in out.rglob("*.json")} == before


def test_nothing_half_written_when_one_spec_is_invalid(tmp_path):
    specs = tmp_path / "specs"
    shutil.copytree(ROOT / "specs", specs)
    out = tmp_path / "compiled"
    compile_tree(str(specs), "--out", str(out))
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    edit(specs / "vision" / "resnet-a100-spot.yaml", "resnet:1.4.2", "resnet:1.4.3")
    edit(specs / "nlp" / "bert-cpu-smoke.yaml", "n1-standard-8", "n1-standard-3")
    code, err = compile_tree(str(specs), "--out", str(out))
    assert code == 1 and "nothing written" in err and "bert-cpu-smoke.yaml:" in err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # no file changed or added
    fresh = tmp_path / "fresh"
    assert compile_tree(str(specs), "--out", str(fresh))[0] == 1
    assert not fresh.exists()


TUNING = """\
apiVersion: trainspec/v1
kind: HyperparameterTuningJob
metadata: {name: resnet-hpt}
spec:
  region: us-central1
  container: {image: gcr.io/acme/resnet:1.0}
  tuning:
    metrics: {accuracy: maximize}
    parameters:
      lr: {double: [0.0001, 0.1], scale: log}
      batch: {discrete: [32, 64]}
      depth: {integer: [18, 50]}
    maxTrials: 20
    parallelTrials: 4
"""


def test_a_tuning_job_shows_its_search_space(repo):
    (repo / "specs" / "hpt.yaml").write_text(TUNING)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "hpt")
    edit(repo / "specs" / "hpt.yaml", "[32, 64]", "[32, 64, 128]")
    code, out, _ = run(repo, "HEAD")
    assert code == 2
    assert "specs/hpt.yaml (job resnet-hpt, vertex, tuning job)" in out
    assert "    + studySpec.parameters[1].discreteValueSpec.values[2]: 128" in out
    assert "  search space\n    metrics     accuracy (maximize)\n" in out
    assert "    search      bayesian, 20 trials, 4 in parallel\n" in out
    assert "                batch  discrete [32, 64, 128] (3 values)\n" in out
    assert "                depth  integer [18, 50] (33 values)\n" in out
    code, out, _ = run(repo, "HEAD", "--format", "json")
    (entry,) = json.loads(out)["entries"]
    assert entry["searchSpace"][3] == "parameters  lr     double [0.0001, 0.1], log scale"
    code, out, _ = run(repo, "HEAD", "--format", "markdown")
    assert "# grid points unbounded (a double parameter)" in out
    edit(repo / "specs" / "hpt.yaml", "[32, 64, 128]", "[32, 64]")
    edit(repo / "specs" / "hpt.yaml", "name: resnet-hpt}", "name: resnet-hpt, labels: {a: b}}")
    code, out, _ = run(repo, "HEAD")
    assert "(job resnet-hpt, vertex, tuning job)" in out and "search space" not in out
    (repo / "specs" / "hpt.yaml").unlink()
    code, out, _ = run(repo, "HEAD")
    assert "delete: the job is cancelled if still running" in out
    assert "  search space (before)" in out


# -- issue 8 §3: pairing by identity, stack config, redaction, report size, exit codes ---------

def test_a_renamed_spec_and_a_new_job_at_its_old_path_are_a_move_and_a_create(repo):
    # Before: paired by path, the untouched resnet job was shown as replaced by "fresh".
    (repo / "specs" / "resnet.yaml").rename(repo / "specs" / "vision.yaml")
    (repo / "specs" / "resnet.yaml").write_text(VERTEX.replace("name: resnet", "name: fresh"))
    code, out, _ = run(repo, "main")
    assert code == 2
    assert "specs/resnet.yaml (job fresh, vertex)\n  create: a new job is submitted" in out
    assert "moved, same request: specs/resnet.yaml → specs/vision.yaml" in out
    assert "replace" not in out and "delete" not in out
    assert "1 of 3 spec file(s) changed: 1 create" in out


def test_swapping_two_files_is_no_change(repo):
    a, b = repo / "specs" / "resnet.yaml", repo / "specs" / "legacy" / "census.yaml"
    text_a, text_b = a.read_text(), b.read_text()
    a.write_text(text_b)
    b.write_text(text_a)
    code, out, _ = run(repo, "main")
    assert code == 0, out
    assert "no changes" in out
    assert "moved, same request: specs/legacy/census.yaml → specs/resnet.yaml" in out


def test_two_specs_with_one_job_name_are_an_error(repo):
    (repo / "specs" / "copy.yaml").write_text(VERTEX.replace("resnet:1.0", "resnet:9"))
    for fmt in ("text", "json"):
        code, out, err = run(repo, "main", "--format", fmt)
        assert code == 1, out
        assert "job name 'resnet' is already used by specs/resnet.yaml" in out + err
        assert "replace:" not in out and '"action": "replace"' not in out
        assert "specs/copy.yaml:4:" in out + err or '"line": 4' in out
    # validate says the same
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["validate", str(repo / "specs")], out, err) == 1
    assert "job name 'resnet' is already used by" in err.getvalue()


def _validate(folder: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(["validate", str(folder)], out, err), err.getvalue()


def test_hidden_files_and_folders_are_not_specs_on_either_side(repo):
    # Regression: diff read specs/.draft.yaml (a hidden file) as a spec; validate does not.
    (repo / "specs" / ".old.yaml").write_text(VERTEX.replace("name: resnet", "name: old"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a hidden file at BASE")
    (repo / "specs" / ".old.yaml").unlink()
    (repo / "specs" / ".draft.yaml").write_text(VERTEX)  # resnet again: no clash, not a spec
    (repo / "specs" / ".wip").mkdir()
    (repo / "specs" / ".wip" / "job.yaml").write_text("not: [a spec")
    for argv in (("HEAD",), ("HEAD", "HEAD")):
        code, out, err = run(repo, *argv)
        assert (code, err) == (0, ""), out
        assert "no changes: 2 spec file(s) compile to the same requests" in out
    assert _validate(repo / "specs") == (0, "2 spec(s) checked, 0 with errors\n")


def test_diff_refuses_each_clash_validate_refuses_and_blames_the_same_file(repo):
    # Regression: the cross-spec rules of diff and validate are one (compiler.tree): a job
    # name used twice across folders, and two ml jobIds that fold to one ('-' is '_').
    (repo / "specs" / "z").mkdir()
    (repo / "specs" / "z" / "census.yaml").write_text(LEGACY.replace("census:3.1", "census:4"))
    (repo / "specs" / "b-c.yaml").write_text(LEGACY.replace("name: census", "name: b-c"))
    (repo / "specs" / "b_c.yaml").write_text(LEGACY.replace("name: census", "name: b_c"))
    code, out, err = run(repo, "main")
    assert code == 1, out
    assert "specs/z/census.yaml:4:9: error: $.metadata.name: job name 'census' is already " \
           "used by specs/legacy/census.yaml" in out
    assert "specs/b_c.yaml:4:9: error: $.metadata.name: AI Platform jobId 'b_c' is already " \
           "used by specs/b-c.yaml" in out
    code, err = _validate(repo / "specs")
    assert code == 1
    specs = repo / "specs"
    assert f"{specs}/z/census.yaml:4:9: error: $.metadata.name: job name 'census' is already " \
           f"used by {specs}/legacy/census.yaml" in err
    assert f"{specs}/b_c.yaml:4:9: error: $.metadata.name: AI Platform jobId 'b_c' is already " \
           f"used by {specs}/b-c.yaml" in err
    assert "2 with errors" in err


def test_an_untouched_spec_that_no_longer_compiles_is_reported(repo):
    edit(repo / "specs" / "resnet.yaml", "n1-standard-8", "n1-standard-3")
    git(repo, "commit", "-qam", "broken on main")
    edit(repo / "specs" / "legacy" / "census.yaml", "census:3.1", "census:3.2")
    code, out, _ = run(repo, "main")
    assert code == 1  # `pulumi up` would fail on it, whoever touched what
    assert "specs/resnet.yaml:15:" in out and "census:3.2" in out


# resnet.yaml reads the secret trainspec:wandbApiKey: `pulumi up` refuses a stack without it.
STACK = ("config:\n  gcp:project: acme-prod\n  gcp:region: us-central1\n"
         "  trainspec:wandbApiKey:\n    secure: v1:AAAA\n")


def test_stack_config_defaults_are_part_of_the_plan(repo):
    edit(repo / "specs" / "resnet.yaml", "  region: us-central1\n", "")
    (repo / "Pulumi.dev.yaml").write_text(STACK)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "stack")
    (repo / "Pulumi.dev.yaml").write_text(STACK.replace("us-central1", "europe-west4"))
    code, out, _ = run(repo, "main", "--stack", "dev")
    assert code == 2, out
    assert "specs/resnet.yaml (job resnet, vertex)" in out
    assert '- region: "us-central1"' in out and '+ region: "europe-west4"' in out
    assert "census" not in out  # it sets its own region
    assert run(repo, "main")[0] == 0  # without --stack the config is not read
    (repo / "Pulumi.dev.yaml").write_text(STACK.replace("acme-prod", "acme-test"))
    code, out, _ = run(repo, "main", "--stack", "dev")
    assert code == 2 and '+ project: "acme-test"' in out
    assert "specs/legacy/census.yaml" in out  # no project of its own either
    git(repo, "commit", "-qam", "move")
    code, out, _ = run(repo, "main~1", "main", "--stack", "dev")  # both sides from git
    assert code == 2 and '+ project: "acme-test"' in out


def stack_changed(repo: Path, before: str, after: str) -> tuple[int, str, str]:
    """`diff --stack dev` after Pulumi.dev.yaml went from `before` (committed) to `after`."""
    (repo / "Pulumi.dev.yaml").write_text(before)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "stack")
    (repo / "Pulumi.dev.yaml").write_text(after)
    return run(repo, "main", "--stack", "dev")


def test_a_changed_stack_secret_replaces_the_jobs_that_read_it(repo):
    secret = "config:\n  trainspec:wandbApiKey:\n    secure: v1:AAAA\n"
    code, out, _ = stack_changed(repo, secret, secret.replace("AAAA", "BBBB"))
    assert code == 2
    assert "specs/resnet.yaml (job resnet, vertex)\n  replace:" in out
    assert "stack secret trainspec:wandbApiKey" in out and "AAAA" not in out
    assert "census" not in out


@pytest.mark.parametrize("before,after,how,job", [
    ("  run: 3\n", "", "removed", "census"), ("  run: 3\n", "  run: 2\n", "lowered", "census_run_2")])
def test_an_ai_platform_run_taken_back_is_a_warning_offline(repo, before, after, how, job):
    """Offline, `diff` cannot tell whether an earlier run used the jobId a run removed or
    lowered gives (preview reads it and refuses then): the plan says so, not a refusal."""
    census = repo / "specs" / "legacy" / "census.yaml"
    edit(census, "  name: census\n", "  name: census\n" + before)
    git(repo, "commit", "-qam", "run 3")
    edit(census, "  name: census\n" + before, "  name: census\n" + after)
    code, out, _ = run(repo, "main")
    assert code == 2, out
    assert (f"warning: metadata.run {how}: jobId {job!r} may be an earlier run's, which ml v1 "
            "never reuses (`pulumi preview` reads it and refuses then); bump metadata.run past "
            "every earlier run") in out
    edit(census, "  name: census\n" + after, "  name: census\n  run: 4\n")
    assert "may be an earlier run" not in run(repo, "main")[1]  # a bump: a new jobId


def test_a_secret_the_provider_does_not_read_is_refused_by_diff_as_by_pulumi_up(repo):
    """The provider reads a job's secret from trainspec:KEY only: one set (or changed) only in
    the project's namespace is `secret-not-set` in `diff --stack` as in preview, never "no
    change"; a plain (not --secret) trainspec: value is read, and a change of it replaces."""
    secret = "config:\n  specs:wandbApiKey:\n    secure: v1:AAAA\n"
    code, out, _ = stack_changed(repo, secret, secret.replace("AAAA", "BBBB"))
    assert code == 1, out
    assert "specs/resnet.yaml:" in out and "$.spec.env.WANDB_API_KEY" in out
    assert "secret config 'trainspec:wandbApiKey' is not set; specs:wandbApiKey is set, but " \
           "secrets are read only from trainspec:" in out
    assert "(pulumi config set trainspec:wandbApiKey VALUE --secret) [secret-not-set]" in out
    assert "AAAA" not in out and "BBBB" not in out
    plain = "config:\n  trainspec:wandbApiKey: plain-1\n"
    code, out, _ = stack_changed(repo, plain, plain.replace("-1", "-2"))
    assert code == 2 and "stack secret trainspec:wandbApiKey" in out and "plain-" not in out
    assert run(repo, "main")[0] == 0  # without --stack no config is read, nothing refused


@pytest.mark.parametrize("name,message", [("prod", "no Pulumi.prod.yaml at main"),
                                          ("../x", "is not a stack name")])
def test_a_missing_or_bad_stack_is_an_error(repo, name, message):
    code, out, err = run(repo, "main", "--stack", name)
    assert code == 1 and out == "" and message in err


@pytest.mark.parametrize("value,hidden,shown", [
    ("Authorization: Bearer abcdef123456", "abcdef123456", "Authorization: Bearer <redacted>"),
    ("--header=Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz", "Basic <redacted>"),
    ("curl -H 'Authorization: Bearer tok123456789'", "tok123456789", "Bearer <redacted>"),
    ("https://hooks.slack.com/services/T0001/B0002/abcdefghijklmn", "abcdefghijklmn", ""),
    ("postgres://admin:s3cr3tpw@db/x", "s3cr3tpw", ""),
    ("mysql -u root --password hunter9", "hunter9", "--password <redacted>"),
])
def test_credentials_real_repos_carry_are_redacted_in_text(value, hidden, shown):
    body = {"containerSpec": {"args": [value]}, "env": [{"name": "HEADER", "value": value}]}
    text = json.dumps(review.redact(body))
    assert hidden not in text and shown in text


@pytest.mark.parametrize("flag", ["--db-password", "--db-pass", "--pass", "--password"])
def test_password_flags_hide_their_value(flag):
    args = ["--lr", "0.1", flag, "hunter2", "--epochs", "3", f"{flag}=hunter3"]
    assert review.redact({"args": args})["args"] == [
        "--lr", "0.1", flag, "<redacted>", "--epochs", "3", f"{flag}=<redacted>"]
    assert review.spec_secrets({"args": args}) == {"hunter2", "hunter3"}


@pytest.mark.parametrize("name,value,secret", [
    ("DB_PASS", "v4lue", True), ("DB_PASSWORD", "v4lue", True), ("APP_SECRET", "v4lue", True),
    ("AWS_SECRET_ACCESS_KEY", "v4lue", True), ("GH_TOKEN", "Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU", True),
    ("AWS_KEY", "Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU", True),
    ("SENTRY_DSN", "Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU", True),
    ("GH_TOKEN", "v4lue", False),  # a token's name, not a random value (detect-secrets' entropy)
    ("LR", "Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU", False), ("PASSTHROUGH", "v4lue", False),
    ("BYPASS_CACHE", "v4lue", False),
    ("KEYBOARD_LAYOUT", "v4lue", False), ("NUM_PASSES", "v4lue", False),
    ("TOKENIZERS_PARALLELISM", "false", False), ("SECRET_NAME", "projects/p/secrets/s", False),
    ("PASSWORD_FILE", "/run/secrets/db", False), ("API_KEY", "${API_KEY}", False)])
def test_env_names_that_say_secret_hide_their_value(name, value, secret):
    env = review.redact({"env": [{"name": name, "value": value}]})["env"][0]["value"]
    assert (env == "<redacted>") is secret


def test_a_report_longer_than_a_github_comment_is_summarised_by_whole_rows(repo):
    for i in range(400):
        (repo / "specs" / f"job-{i:03}-{'x' * 200}.yaml").write_text(
            VERTEX.replace("name: resnet", f"name: job-{i:03}"))
    code, out, _ = run(repo, "main", "--format", "markdown")
    assert code == 2
    assert len(out) <= report_review.COMMENT_LIMIT
    assert "a summary without per-spec details" in out and "<details>" not in out
    rows = [line for line in out.splitlines() if line.startswith("| `specs/")]
    assert 0 < len(rows) < 400 and all("| 🟢 create |" in r for r in rows)
    assert f"… and {400 - len(rows)} more spec(s), not listed here." in out
    assert "400 of 402 spec file(s) changed: 400 create" in out
    code, text, _ = run(repo, "main")  # the log keeps every change
    assert code == 2 and text.count("create: a new job is submitted") == 400


def test_usage_errors_do_not_exit_like_changes(repo):
    for argv in (["diff"], ["diff", "main", "--no-such-flag"], ["diff", "main", "--format", "x"]):
        with pytest.raises(SystemExit) as caught:
            cli.main(argv, io.StringIO(), io.StringIO())
        assert caught.value.code == cli.EXIT_USAGE == 64
        assert caught.value.code not in (review.EXIT_SAME, review.EXIT_CHANGED)


def _workflow_step(name: str) -> dict:
    import yaml  # noqa: PLC0415

    workflow = yaml.safe_load((ROOT / "examples" / "github-actions" / "trainspec.yml").read_text())
    (step,) = [s for s in workflow["jobs"]["review"]["steps"] if s.get("name") == name]
    return step


def _github_if(expression: str, status: str) -> bool:
    """The few GitHub expression forms the workflow uses, evaluated for a diff status."""
    text = expression.strip().removeprefix("${{").removesuffix("}}")
    text = (text.replace("!cancelled()", "True").replace("steps.diff.outcome", "'success'")
            .replace("steps.diff.outputs.status", repr(status))
            .replace("&&", " and ").replace("||", " or "))
    return bool(eval(text, {"__builtins__": {}}))  # noqa: S307 - our own test input


@pytest.mark.parametrize("argv,status", [([], "0"), (["--format", "markdown"], "2"),
                                         (["--bogus"], "64")])
def test_the_example_workflow_fails_on_usage_errors_and_not_on_changes(repo, tmp_path, argv,
                                                                       status):
    step = _workflow_step("Diff against the base branch")
    if status == "2":
        edit(repo / "specs" / "resnet.yaml", "resnet:1.0", "resnet:1.1")
    script = step["run"].replace("${{ github.base_ref }}", "main")
    if argv:  # the same command with one more argument
        script = script.replace("--merge-base", "--merge-base " + " ".join(argv))
    git(repo, "branch", "-f", "origin/main", "main")
    output, summary = tmp_path / "out", tmp_path / "summary"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    # A wrapper, not a link: a linked interpreter finds no pyvenv.cfg beside it, so it would
    # run without the test environment's packages (detect-secrets).
    (bindir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bindir / "python").chmod(0o755)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "GITHUB_OUTPUT": str(output),
           "GITHUB_STEP_SUMMARY": str(summary), "PYTHONPATH": str(ROOT)}
    subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=env, check=True)
    assert output.read_text() == f"status={status}\n"
    fail = _workflow_step("Fail unless the diff ran and found no error (exit 0 or 2)")
    post = _workflow_step("Post or update the PR comment")
    assert _github_if(fail["if"], status) is (status not in ("0", "2"))
    assert _github_if(post["if"], status) is (status in ("0", "1", "2"))
