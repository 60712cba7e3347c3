"""`validate --format sarif` (SARIF 2.1.0 for GitHub code scanning) and `--format github`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from compiler import cli
from compiler.diagnostics import Diagnostic, Position
from compiler.report import formats
from compiler.rules import RULES

ROOT = Path(__file__).resolve().parent.parent

# The part of the SARIF 2.1.0 schema (OASIS sarif-schema-2.1.0.json) that trainspec's output
# uses, with its `required`, enums and closed property lists as the standard writes them, plus
# what GitHub code scanning requires on top (docs "SARIF support for code scanning": a driver
# name, rule ids, a result's ruleId, message text, and a physical location with a start line).
_MESSAGE = {"type": "object", "required": ["text"], "additionalProperties": False,
            "properties": {"text": {"type": "string"}, "markdown": {"type": "string"}}}
_LEVEL = {"enum": ["none", "note", "warning", "error"]}
SARIF_SUBSET = {
    "type": "object", "required": ["version", "runs"], "additionalProperties": False,
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"enum": ["2.1.0"]},
        "runs": {"type": "array", "items": {
            "type": "object", "required": ["tool"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name", "rules"],
                    "properties": {
                        "name": {"type": "string"}, "version": {"type": "string"},
                        "informationUri": {"type": "string", "format": "uri"},
                        "rules": {"type": "array", "items": {
                            "type": "object", "required": ["id", "shortDescription", "help"],
                            "additionalProperties": False,
                            "properties": {
                                "id": {"type": "string"}, "shortDescription": _MESSAGE,
                                "fullDescription": _MESSAGE, "help": _MESSAGE,
                                "defaultConfiguration": {
                                    "type": "object", "additionalProperties": False,
                                    "properties": {"level": _LEVEL}}}}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["ruleId", "message", "locations"],
                    "properties": {
                        "ruleId": {"type": "string"},
                        "ruleIndex": {"type": "integer", "minimum": -1},
                        "level": _LEVEL, "message": _MESSAGE,
                        "locations": {"type": "array", "minItems": 1, "items": {
                            "type": "object", "additionalProperties": False,
                            "properties": {"physicalLocation": {
                                "type": "object", "required": ["artifactLocation", "region"],
                                "additionalProperties": False,
                                "properties": {
                                    "artifactLocation": {
                                        "type": "object", "required": ["uri"],
                                        "additionalProperties": False,
                                        "properties": {"uri": {"type": "string",
                                                               "format": "uri-reference"},
                                                       "uriBaseId": {"type": "string"}}},
                                    "region": {
                                        "type": "object", "required": ["startLine"],
                                        "additionalProperties": False,
                                        "properties": {
                                            "startLine": {"type": "integer", "minimum": 1},
                                            "startColumn": {"type": "integer",
                                                            "minimum": 1}}}}}}}}}}}}}}},
}

SPEC = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: train, labels: {team: vision}}
spec:
  region: us-central1
  container: {image: "us-docker.pkg.dev/p/t/x:1"}
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "specs").mkdir()
    (root / "specs" / "a b.yaml").write_text(SPEC)
    (root / "trainspec.yaml").write_text("policy:\n  requiredLabels: [cost-center]\n"
                                         "  allowedRegions: [europe-west4]\n")
    monkeypatch.chdir(root / "specs")  # paths are relative to the repository, not to here
    return root


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(list(argv), out, err), out.getvalue(), err.getvalue()


def test_sarif_is_valid_and_names_every_rule(repo):
    code, out, err = run("validate", ".", "--format", "sarif")
    assert code == 1 and err == ""
    log = json.loads(out)
    checker = jsonschema.Draft202012Validator(SARIF_SUBSET,
                                              format_checker=jsonschema.FormatChecker())
    assert list(checker.iter_errors(log)) == []
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "trainspec" and driver["informationUri"] == "https://trainspec.dev"
    assert [r["id"] for r in driver["rules"]] == list(RULES)
    policy = driver["rules"][list(RULES).index("policy-region")]
    assert policy["shortDescription"]["text"] == RULES["policy-region"].summary
    assert policy["defaultConfiguration"] == {"level": "error"}
    assert log["runs"][0]["results"] == [
        {"ruleId": "policy-label", "ruleIndex": list(RULES).index("policy-label"),
         "level": "error",
         "message": {"text": "$.metadata.labels: label 'cost-center' is required "
                             "(policy.requiredLabels in ../trainspec.yaml) (add it under "
                             "metadata.labels)"},
         "locations": [{"physicalLocation": {
             "artifactLocation": {"uri": "specs/a%20b.yaml", "uriBaseId": "%SRCROOT%"},
             "region": {"startLine": 3, "startColumn": 33}}}]},
        {"ruleId": "policy-region", "ruleIndex": list(RULES).index("policy-region"),
         "level": "error",
         "message": {"text": "$.spec.region: region 'us-central1' is not allowed "
                             "(policy.allowedRegions in ../trainspec.yaml) (allowed: "
                             "europe-west4)"},
         "locations": [{"physicalLocation": {
             "artifactLocation": {"uri": "specs/a%20b.yaml", "uriBaseId": "%SRCROOT%"},
             "region": {"startLine": 5, "startColumn": 11}}}]}]


def test_sarif_of_a_clean_tree_has_no_results(repo):
    (repo / "trainspec.yaml").write_text("")
    code, out, _ = run("validate", ".", "--format", "sarif")
    assert code == 0 and json.loads(out)["runs"][0]["results"] == []


def test_a_diagnostic_without_a_code_gets_a_rule_too():
    log = formats.sarif([Diagnostic("$", "m", file="<stdin>")], root="/")
    assert log["runs"][0]["tool"]["driver"]["rules"][-1]["id"] == "trainspec"
    assert log["runs"][0]["results"] == [{"ruleId": "trainspec", "ruleIndex": len(RULES),
                                          "level": "error", "message": {"text": "$: m"}}]


def test_github_annotations(repo):
    code, out, err = run("validate", ".", "--format", "github")
    assert code == 1 and err == ""
    assert out.splitlines() == [
        "::error file=specs/a b.yaml,line=3,col=33,title=policy-label::$.metadata.labels: label "
        "'cost-center' is required (policy.requiredLabels in ../trainspec.yaml) (add it under "
        "metadata.labels)",
        "::error file=specs/a b.yaml,line=5,col=11,title=policy-region::$.spec.region: region "
        "'us-central1' is not allowed (policy.allowedRegions in ../trainspec.yaml) (allowed: "
        "europe-west4)"]


def test_github_escapes_data_and_properties():
    d = Diagnostic("$.a", "100% bad\r\nnext", "warning", "dir/x:y,z.yaml", Position(2, 3),
                   code="policy-label")
    assert formats.github([d], root=".") == (
        "::warning file=dir/x%3Ay%2Cz.yaml,line=2,col=3,title=policy-label::"
        "$.a: 100%25 bad%0D%0Anext\n")


def workflow(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


@pytest.mark.parametrize("path", [ROOT / "examples" / "github-actions" / "trainspec.yml",
                                  ROOT / "compiler" / "_templates" / "github-workflow.yml"])
def test_the_workflows_annotate_and_upload_sarif(path):
    job = workflow(path)["jobs"]["review"]
    assert job["permissions"]["security-events"] == "write"
    runs = [s.get("run", "") for s in job["steps"]]
    assert any("compile specs --out compiled --check --format github "
               "--report sarif=trainspec.sarif" in r for r in runs)  # one run: docs/speed.md
    upload = next(s for s in job["steps"] if "upload-sarif" in s.get("uses", ""))
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["sarif_file"] == "trainspec.sarif"
    assert "always()" in upload["if"] or "!cancelled()" in upload["if"]


def test_paths_are_relative_to_the_repository_holding_each_spec(repo, tmp_path, monkeypatch):
    # The current folder is in another repository than the spec (issue 9 review).
    other = tmp_path / "tools"
    (other / ".git").mkdir(parents=True)
    monkeypatch.chdir(other)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    spec = str(repo / "specs" / "a b.yaml")
    _, out, _ = run("validate", spec, "--format", "sarif")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(out)["runs"][0]["results"]}
    assert uris == {"specs/a%20b.yaml"}
    _, out, _ = run("validate", spec, "--format", "github")
    assert all(line.startswith("::error file=specs/a b.yaml,") for line in out.splitlines())


def test_github_paths_are_relative_to_the_workspace(repo, tmp_path, monkeypatch):
    # A checkout whose repository root is not the workspace (actions/checkout `path:`).
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    _, out, _ = run("validate", ".", "--format", "github")
    assert out.splitlines()[0].startswith("::error file=repo/specs/a b.yaml,line=3,")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "elsewhere"))  # outside it: the repo's
    _, out, _ = run("validate", ".", "--format", "github")
    assert out.splitlines()[0].startswith("::error file=specs/a b.yaml,line=3,")


def test_a_spec_outside_any_repository_keeps_its_path_as_given(tmp_path, monkeypatch):
    (tmp_path / "a.yaml").write_text(SPEC)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    d = Diagnostic("$.a", "m", file="a.yaml", position=Position(1, 1), code="policy-label")
    assert formats.github([d]).startswith("::error file=a.yaml,line=1,col=1,")
