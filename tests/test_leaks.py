"""No output path echoes a secret (issue 16 §3 review): every message quoting a value, every
report format, explain, import; more token families; exact file names in JSON and SARIF;
escaped compile output; fewer false positives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import test_secrets
from test_secrets import TOKENS, run

from compiler import emit
from compiler.config.plaintext import found
from compiler.secrets.scan import secret_kind

ROOT = Path(__file__).resolve().parent.parent
S = (ROOT / "specs/vision/resnet-a100-spot.yaml").read_text()
GHP = "ghp_R7nT2qLx9VbK4mZ8wPcY3sJd6HfA1eGu5oNi"
JWT = TOKENS["SESSION"]
repo = test_secrets.repo  # the fixture: a folder holding .git, the current folder


# Each a value-quoting message, the secret where the user's value goes.
PLACES = {
    "label-value": ("cost-center: research", 'wandb: "{t}"'),
    "label-key": ("cost-center: research", '"{t}": x'),
    "region": ("region: us-central1", 'region: "{t}"'),
    "project": ("project: acme-ml-prod", 'project: "{t}"'),
    "service-account": ("serviceAccount: trainer@acme-ml-prod.iam.gserviceaccount.com",
                        'serviceAccount: "{t}"'),
    "output-dir": ("outputDir: gs://acme-ml-prod-runs/resnet-imagenet", 'outputDir: "{t}"'),
    "timeout": ("timeout: 1d", 'timeout: "{t}"'),
    "strategy": ("strategy: SPOT", 'strategy: "{t}"'),
    "api-version": ("apiVersion: trainspec/v1", 'apiVersion: "{t}"'),
    "kind": ("kind: TrainingJob", 'kind: "{t}"'),
    "platform": ("platform: vertex", 'platform: "{t}"'),
    "unknown-key": ("  project: acme-ml-prod", '  project: acme-ml-prod\n  "{t}": 1'),
    "env-name": ("NCCL_DEBUG: INFO", '"{t}": INFO'),
    "machine": ("disk: {type: pd-ssd, sizeGb: 500}",
                'disk: {type: pd-ssd, sizeGb: 500}\n      machineType: "{t}"'),
    "int-tag": ("sizeGb: 500", "sizeGb: !!int {t}"),
}
FAMILIES = {"github": GHP, "jwt": JWT, "aws": TOKENS["AWS_ACCESS_KEY_ID"],
            "slack": TOKENS["SLACK_BOT"], "openai": TOKENS["LLM_CREDS"],
            "stripe": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "gitlab": "glpat-xZ3vB8nQ2mK7pL9rT4wY"}


def _outputs(path: str) -> str:
    seen = ""
    for fmt in ("text", "json", "sarif", "github"):
        seen += "".join(run("validate", "--strict", "--format", fmt, path)[1:])
    seen += run("explain", path)[1] + run("explain", path)[2]
    return seen + run("compile", path)[2]  # its body is the spec as written: the warning says so


@pytest.mark.parametrize("place", PLACES)
def test_no_message_quotes_a_token(repo, place):
    old, new = PLACES[place]
    assert old in S
    (repo / "s.yaml").write_text(S.replace(old, new.replace("{t}", GHP), 1))
    shown = _outputs("s.yaml")
    assert GHP not in shown and GHP[:12] not in shown
    assert "[plaintext-secret]" in shown or place in ("int-tag",)


@pytest.mark.parametrize("family", FAMILIES)
def test_no_message_quotes_any_token_family(repo, family):
    token = FAMILIES[family]
    (repo / "s.yaml").write_text(S.replace("cost-center: research", f'wandb: "{token}"'))
    shown = _outputs("s.yaml")
    assert token not in shown and token[:16] not in shown
    assert "<redacted>" in shown


def test_a_too_long_token_is_flagged_and_never_shown_cut_short(repo):
    (repo / "s.yaml").write_text(S.replace("cost-center: research", f"jwt: {JWT}"))
    code, _, err = run("validate", "s.yaml")
    assert code == 1 and "[value-length]" in err and "[plaintext-secret]" in err
    assert JWT[:20] not in err and JWT[-20:] not in err


def test_a_named_secret_is_never_quoted_even_cut_short(repo):
    value = "password=" + "hunter2hunter2" * 6  # no token format: a keyword pair
    (repo / "s.yaml").write_text(S.replace("cost-center: research", f"pw: {value}"))
    code, _, err = run("validate", "s.yaml")
    assert code == 1 and "[value-length]" in err and "[plaintext-secret]" in err
    assert "hunter2hunter2" not in err


def test_explain_never_prints_a_secret_of_the_description(repo):
    (repo / "s.yaml").write_text(S.replace("description: ResNet-50 baseline, 90 epochs",
                                           f'description: "see {GHP} or password=hunter22"'))
    code, out, err = run("explain", "s.yaml")
    assert code == 0 and GHP not in out + err and "hunter22" not in out + err
    assert "see <redacted>" in out


# Fakes in each vendor's documented format (detectors.py cites each).
MORE_TOKENS = {
    "google-api-key": "AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe",
    "google-oauth": "ya29.a0AfH6SMBx7Kq3vZ9pLmN2wR8tY5uE1oI4aS6dF0gH3jK7lQ",
    "github-fine-grained": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH"
                           "IJKLMNOPQRSTUVWXYZ0123456789abcdefgh",
    "huggingface": "hf_kQzVbNcYwTfRpLmXaJdHgSeUoIiKyBnMvCq",
    "anthropic": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "npm": "npm_abcdefghijklmnopqrstuvwxyz0123456789",
    "digitalocean": "dop_v1_" + "a1" * 32,
    "vault": "hvs.CAESIJlWh3Ekm0VHo9tXg6PkFc_3uXh1rzPkDqCxNcGEjZsQGh4KHGh2cy5xVjFmTzR2Uk1N",
}


@pytest.mark.parametrize("family", MORE_TOKENS)
def test_more_token_families_are_found_in_free_text_args_and_labels(family):
    token = MORE_TOKENS[family]
    spec = {"metadata": {"description": f"use {token} here", "labels": {"x": token}},
            "spec": {"container": {"args": [f"--opt={token}", token]}}}
    assert [f[0] for f in found(spec)] == [
        "$.metadata.description", "$.metadata.labels.x", "$.spec.container.args[0]",
        "$.spec.container.args[1]"]


@pytest.mark.parametrize("name,value", [
    ("VAULT_TOKEN", "hvs.CAESIJlWh3Ekm0VHo9tXg6PkFc_3uXh1rzPkDqCxNcGEjZsQGh4KHGh2"),
    ("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.a0AfH6SMBx7Kq3vZ9pLmN2wR8tY5uE1oI4aS6dF0gH3jK7lQ"),
    ("SERVICE_TOKEN", "x1.Rk9vYmFyQmF6cXV4.ZGVhZGJlZWZjYWZlYmFiZQ.Qm9vTWFnaWNXb3Jk")])
def test_dotted_tokens_under_secret_names_are_random_enough(name, value):
    assert secret_kind(value, name)


def test_import_warns_of_each_plaintext_secret_it_writes(repo):
    body = {"displayName": "x", "jobSpec": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-8"}, "replicaCount": "1",
        "containerSpec": {"imageUri": "us-docker.pkg.dev/p/r/i:1",
                          "args": [f"--api-key={GHP}"],
                          "env": [{"name": "HF_TOKEN", "value": MORE_TOKENS["huggingface"]}]}}]}}
    (repo / "rest.json").write_text(json.dumps(body))
    code, out, err = run("import", "rest.json", "--region", "us-central1")
    assert code == 0 and GHP in out and MORE_TOKENS["huggingface"] in out  # as the config says
    assert "args[0] (--api-key) holds a plaintext secret" in err
    assert "env HF_TOKEN holds a plaintext secret" in err and "{secret: hfToken}" in err
    assert GHP not in err and MORE_TOKENS["huggingface"] not in err


@pytest.mark.parametrize("name,value", [
    ("SECRET", "false"), ("DB_PASS", "none"), ("API_TOKEN", "null"), ("PASSWORD", "disabled"),
    ("S3_SECRET", "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf"),
    ("DB_PASSWORD", "projects/acme/secrets/db-password/versions/3"),
    ("HF_TOKEN", "sm://acme/hf-token"), ("API_KEY", "vault:secret/data/ml#api_key"),
    ("WANDB_API_KEY", "secret/data/ml/wandb"),
    ("CACHE_KEY", "5d41402abc4b2a76b9719d911017c592"),
    ("DATASET_KEY", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")])
def test_no_value_references_and_digests_are_not_secrets(name, value):
    assert list(found({"spec": {"env": {name: value}}})) == []


def test_a_digest_after_a_key_flag_is_not_a_secret():
    assert list(found({"spec": {"container": {"args": [
        "--hash-key", "5d41402abc4b2a76b9719d911017c592",
        "--cache-key=5d41402abc4b2a76b9719d911017c592"]}}})) == []


FORGED = "\nfile:1:1: error: x"


@pytest.mark.parametrize("check", [False, True])
def test_compile_never_prints_a_raw_out_path(repo, check):
    (repo / "specs").mkdir()
    (repo / "specs" / "a.yaml").write_text(S)
    out = str(repo / f"o{FORGED}\x1b[31m\u2028\u202e")
    run("compile", "specs", "--out", out)
    code, _, err = run("compile", "specs", "--out", out, *(["--check"] if check else []))
    assert code == 0 and "\nfile:1:1" not in err
    assert not any(ch in err for ch in "\x1b\u2028\u202e")
    (repo / "specs" / "b.yaml").write_text("apiVersion: [")
    code, _, err = run("compile", "specs", "--out", out, *(["--check"] if check else []))
    assert code == 1 and "nothing written to" in err and "\nfile:1:1" not in err


def test_compile_stdout_escapes_invisible_code_points_keeping_the_value(repo):
    odd = "\u2028\u0085\u202e\u200f\u061c\u2066\x7f"
    escaped = "".join(f"\\u{ord(ch):04x}" for ch in odd)  # YAML's escapes: DEL is no text
    (repo / "s.yaml").write_text(S.replace("[--epochs, 90,",
                                           f'["--tag=a{escaped}b", --epochs, 90,'))
    code, out, _ = run("compile", "s.yaml")
    assert code == 0 and not any(ch in out for ch in odd)
    assert "\\u2028\\u0085\\u202e\\u200f\\u061c\\u2066\\u007f" in out
    assert f"--tag=a{odd}b" in json.dumps(json.loads(out), ensure_ascii=False)
    assert emit.dumps(json.loads(out)) == out


def test_json_and_sarif_carry_the_exact_file_name(repo):
    name = "a\u202e.yaml"
    (repo / name).write_text(S)
    _, out, _ = run("validate", "--format", "json", name)
    report = json.loads(out)
    assert report["files"] == [name] and report["diagnostics"][0]["file"] == name
    assert "\u202e" not in out  # JSON escapes it: \u202e, once
    _, out, _ = run("validate", "--format", "sarif", name)
    uri = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert uri["artifactLocation"]["uri"] == "a%E2%80%AE.yaml"
    _, _, err = run("validate", name)
    assert err.startswith("a\\u202e.yaml:") and "\u202e" not in err
