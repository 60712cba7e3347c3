"""plaintext-secret (compiler/secret_check.py, by compiler/secret_scan.py's detect-secrets
detectors): a credential written in a spec is a located warning naming the variable and the
fix, never the value, in every format; an error under --strict and policy.forbidPlaintextSecrets;
what review redacts is what validate flags; ordinary values of every spec we have are not."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path

import pytest
import yaml
from files import write

from compiler import cli, review
from compiler.config import plaintext as secret_check
from compiler.config.plaintext import found
from compiler.importers import decompile
from compiler.secrets.scan import scan, secret_kind

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
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
    image: "us-docker.pkg.dev/acme-ml-prod/trainers/resnet@sha256:\
9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    args: [--epochs, "3"]
  env:
    MODE: fast
  pools:
    chief: {machineType: n1-standard-8}
  scheduling: {timeout: 1h}
"""
# Fakes in each format (AWS's documented example key, made-up tokens), one per kind.
TOKENS = {
    "HF_TOKEN": "hf_kQzVbNcYwTfRpLmXaJdHgSeUoIiKyBnMvCq",
    "WANDB_API_KEY": "3f9a6c1e8b2d4f7a0c5e9b1d3f6a8c2e4b7d9f01",
    "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY",
    "GH_PAT": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "LLM_CREDS": "sk-abcdefghij1234567890T3BlbkFJabcdefghij1234567890",
    "SLACK_BOT": "xoxb-2817346123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "SESSION": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
               ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "DEPLOY_KEY": "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAAA\\n"
                  "-----END OPENSSH PRIVATE KEY-----",
    "DB_PASSWORD": "hunter2hunter2",
    "DATABASE_URL": "postgres://admin:s3cr3tpw@db.internal/x",
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def _with_env(name: str, value: str) -> str:
    return SPEC.replace("    MODE: fast\n", f'    MODE: fast\n    {name}: "{value}"\n')


@pytest.mark.parametrize("name", TOKENS)
def test_each_token_kind_is_a_located_warning_naming_the_variable_never_the_value(repo, name):
    write(repo, {"specs/train.yaml": _with_env(name, TOKENS[name])})
    value = TOKENS[name].replace("\\n", "\n")
    outputs = []
    for fmt in ("text", "json", "sarif", "github"):
        code, out, err = run("validate", "specs/train.yaml", "--format", fmt)
        assert code == 0, (fmt, out, err)
        outputs.append((fmt, out + err))
    text = outputs[0][1]
    assert (f"specs/train.yaml:14:{len(name) + 7}: warning: $.spec.env.{name}: env {name} holds "
            "a plaintext secret") in text, text
    assert "[plaintext-secret]" in text and "pulumi config set --secret" in text
    assert f"{name}: {{secret: " in text
    for fmt, shown in outputs:
        assert "plaintext-secret" in shown, fmt
        for part in (value, value[:12], value.splitlines()[-2] if "\n" in value else value[-12:]):
            assert part not in shown, (fmt, part)
    code, out, err = run("validate", "specs/train.yaml", "--strict")
    assert code == 1 and "error: $.spec.env." in out + err


def test_compile_prints_the_warning_and_refuses_under_strict(repo):
    write(repo, {"specs/train.yaml": _with_env("HF_TOKEN", TOKENS["HF_TOKEN"])})
    code, out, err = run("compile", "specs", "--out", "compiled")
    assert code == 0 and "warning: $.spec.env.HF_TOKEN" in out + err
    assert TOKENS["HF_TOKEN"] not in out + err
    # What the spec says is what is sent: the file holds the value the user wrote.
    assert TOKENS["HF_TOKEN"] in "".join(p.read_text() for p in (repo / "compiled").rglob("*.json"))
    code, out, err = run("compile", "specs", "--out", "strict", "--strict")
    assert code == 1 and "error: $.spec.env.HF_TOKEN" in out + err
    assert not (repo / "strict").exists() or not any((repo / "strict").rglob("*.json"))


def test_args_and_other_values_are_checked(repo):
    spec = SPEC.replace('args: [--epochs, "3"]',
                        "args: [--epochs, '3', --api-key=Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU, "
                        "--hf-token, hf_kQzVbNcYwTfRpLmXaJdHgSeUoIiKyBnMvCq, "
                        "'run.sh --password=opensesame1']")
    spec = spec.replace("  labels: {team: vision}\n",
                        "  labels: {team: vision}\n  description: key AKIAIOSFODNN7EXAMPLE\n")
    write(repo, {"specs/train.yaml": spec})
    code, out, err = run("validate", "specs/train.yaml")
    assert code == 0
    assert [line.split(": warning: ")[1].split(" holds")[0] for line in (out + err).splitlines()
            if "[plaintext-secret]" in line] == [
        "$.metadata.description: description",
        "$.spec.container.args[2]: args[2] (--api-key)",
        "$.spec.container.args[4]: args[4] (the value of --hf-token)",
        "$.spec.container.args[5]: args[5]"]
    for value in ("AKIAIOSFODNN7EXAMPLE", "Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU", "opensesame1",
                  "hf_kQzVbNcYwTfRpLmXaJdHgSeUoIiKyBnMvCq"):
        assert value not in out + err


def test_policy_makes_it_an_error_naming_the_config(repo):
    write(repo, {"specs/train.yaml": _with_env("HF_TOKEN", TOKENS["HF_TOKEN"]),
                 "trainspec.yaml": "policy:\n  forbidPlaintextSecrets: true\n"})
    code, out, err = run("validate", "specs/train.yaml")
    assert code == 1
    assert ("error: $.spec.env.HF_TOKEN: env HF_TOKEN holds a plaintext secret: it is committed, "
            "compiled and sent as written (policy.forbidPlaintextSecrets in trainspec.yaml)") in out + err
    # A nested config cannot drop the root's policy.
    write(repo, {"specs/trainspec.yaml": "policy:\n  forbidPlaintextSecrets: false\n"})
    assert run("validate", "specs/train.yaml")[0] == 1


def test_a_false_positive_is_silenced_per_variable(repo):
    spec = _with_env("HF_TOKEN", TOKENS["HF_TOKEN"]).replace(
        "    MODE: fast\n", "    MODE: fast\n    CACHE_KEY: Zq8vKp3LmX9wRt2YbN6cFj4HsD7gA1eU"
        "  # trainspec: ignore[plaintext-secret]\n")
    write(repo, {"specs/train.yaml": spec})
    code, out, err = run("validate", "specs/train.yaml", "--strict")
    assert code == 1 and "HF_TOKEN" in out + err and "CACHE_KEY" not in out + err


@pytest.mark.parametrize("name,value", [
    ("WANDB_API_KEY", {"secret": "wandbApiKey"}), ("MODEL", "bert-base-uncased"),
    ("OUT", "gs://acme-ml-prod-runs/x"), ("DATA", "/mnt/data/train"), ("LR", "0.001"),
    ("STEPS", 1000), ("TOKENIZERS_PARALLELISM", "false"), ("MAX_TOKENS", "4096"),
    ("SECRET_NAME", "projects/p/secrets/hf/versions/latest"), ("PASSWORD_FILE", "/run/pw"),
    ("GOOGLE_APPLICATION_CREDENTIALS", "/var/secrets/google/key.json"),
    ("IMAGE", "us-docker.pkg.dev/p/r/i@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822c"
              "d15d6c15b0f00a08"), ("API_KEY", "${API_KEY}"), ("RUN_ID", "2f1c9b7e-8a4d-4c3b-9e"
                                                                "1f-5d6a7b8c9d0e"),
    ("SORT_KEY", "created_at_timestamp"), ("ENDPOINT", "https://api.wandb.ai")])
def test_ordinary_values_are_not_flagged(name, value):
    assert list(found({"spec": {"env": {name: value}}})) == []


def _strings_flagged(data) -> list[tuple[str, str]]:
    return [(path, what) for path, what, _, _ in found(data)]


def test_no_spec_of_ours_and_no_corpus_value_is_flagged():
    """False positives: every spec in specs/ and examples/, and every corpus entry (its
    config as written, and the spec `import` makes of it) holds no flagged value."""
    seen = 0
    for path in sorted([*ROOT.glob("specs/**/*.yaml"), *ROOT.glob("examples/**/*.yaml")]):
        assert _strings_flagged(yaml.safe_load(path.read_text())) == [], path
        seen += 1
    for path in sorted(CORPUS.glob("*.json")):
        entry = json.loads(path.read_text())
        assert _strings_flagged(entry["config"]) == [], path
        raw = entry.get("raw_text") if entry["kind"] == "gcloud-config" else None
        outcome = decompile.decompile(raw or json.dumps(entry["config"]), path.name)
        if outcome.ok:
            assert _strings_flagged(yaml.safe_load(outcome.text)) == [], path
        seen += 1
    assert seen >= 9


def test_review_redacts_exactly_what_validate_flags():
    env = [{"name": k, "value": v.replace("\\n", "\n")} for k, v in TOKENS.items()]
    env += [{"name": "MODEL", "value": "bert-base-uncased"}, {"name": "HF_TOKEN", "value": "x"}]
    shown = review.redact({"env": env})["env"]
    for entry, after in zip(env, shown):
        assert (after["value"] == "<redacted>") is bool(secret_kind(entry["value"],
                                                                    entry["name"])), entry["name"]
    args = ["--lr=0.1", "--token", TOKENS["HF_TOKEN"], "--api-key=abc123x", "run --password=p4ss"]
    assert review.redact({"args": args})["args"] == [
        "--lr=0.1", "--token", "<redacted>", "--api-key=<redacted>", "run --password=<redacted>"]
    assert {i for i, *_ in secret_check.args(args)} == {2, 3, 4}


def test_detection_never_uses_the_network(monkeypatch):
    def refuse(*_, **__):
        raise AssertionError("detect-secrets tried to reach the network")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    for name, value in TOKENS.items():
        assert secret_kind(value.replace("\\n", "\n"), name), name


def test_long_hostile_text_is_scanned_in_bounded_time():
    import time

    start = time.perf_counter()
    for text in ("a=" * 50_000, "a:" * 50_000, "-a " * 30_000, "x" * 100_000):
        scan(text)
    assert time.perf_counter() - start < 10
