"""`metadata.run`: running an unchanged spec again, on purpose and visibly in review."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from compiler import cli, pipeline, plan
from compiler.jobs.identity import spec_hash

VERTEX = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: resnet
  {run}labels: {{team: vision}}
spec:
  project: acme-ml
  region: us-central1
  container: {{image: gcr.io/acme/resnet:1.0}}
"""
LEGACY = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata:
  name: census-job
  {run}labels: {{team: tabular}}
spec:
  platform: ai-platform
  project: acme-ml
  region: us-central1
  container: {{image: gcr.io/acme/census:3.1}}
"""


def spec(template: str, run: str | None = None) -> str:
    return template.format(run=f"run: {run}\n  " if run is not None else "")


def compiled(text: str) -> pipeline.Result:
    return pipeline.compile_text(text, "s.yaml")


def test_a_run_is_never_sent_to_vertex_and_numbers_and_strings_are_the_same_run():
    plain, two, quoted = (compiled(spec(VERTEX, r)) for r in (None, "2", '"2"'))
    assert plain.ok and two.ok and quoted.ok
    assert two.body == plain.body  # what the API receives does not change
    assert two.job.run == quoted.job.run == "2" and plain.job.run is None


def test_an_ai_platform_run_gets_its_own_job_id():
    assert compiled(spec(LEGACY)).body["jobId"] == "census_job"
    r = compiled(spec(LEGACY, "2024-06-01"))
    assert r.body["jobId"] == "census_job_run_2024_06_01"
    body = {k: v for k, v in r.body.items() if k != "jobId"}
    assert body == {k: v for k, v in compiled(spec(LEGACY)).body.items() if k != "jobId"}


@pytest.mark.parametrize("value, message", [
    ("true", "$.metadata.run: expected an integer or a string, got a boolean"),
    ("-1", "$.metadata.run: -1 is less than the minimum of 0"),
    ("1.5", "$.metadata.run: expected an integer or a string, got 1.5"),
    ('"two words"', "$.metadata.run: 'two words': a run is a whole number or a tag"),
    ("[1]", "$.metadata.run: expected an integer or a string, got a list"),
])
def test_a_bad_run_is_a_located_error(value, message):
    r = compiled(spec(VERTEX, value))
    assert not r.ok
    assert any(d.format().startswith(f"s.yaml:5:8: error: {message}") for d in r.errors), \
        [d.format() for d in r.errors]


def test_an_ai_platform_run_that_makes_the_job_id_too_long_is_located():
    text = spec(LEGACY, "x" * 60).replace("census-job", "c" * 100)
    r = compiled(text)
    assert [d.format().split(" (")[0] for d in r.errors] == [
        f"s.yaml:5:8: error: $.metadata.run: the jobId of this run, '{'c' * 100}_run_{'x' * 60}', "
        "is not a valid AI Platform jobId"]


@pytest.mark.parametrize("name", ["", "  name: 9job\n"])
def test_a_missing_or_refused_name_is_the_schemas_error_alone_on_ai_platform(name):
    """The jobId is the name's: no second error about the jobId of a name already refused."""
    r = compiled(spec(LEGACY, "2").replace("  name: census-job\n", name))
    assert [d.code for d in r.errors] == ["value-format" if name else "required-key"]


def test_two_specs_whose_runs_make_one_job_id_clash():
    a = compiled(spec(LEGACY, "2"))
    b = pipeline.compile_text(spec(LEGACY).replace("census-job", "census-job-run-2"), "t.yaml")
    assert a.body["jobId"] == b.body["jobId"] == "census_job_run_2"
    clashes = pipeline.check_set([a, b])
    assert [d.message for d in clashes] == [
        "AI Platform jobId 'census_job_run_2' in project 'acme-ml' is already used by s.yaml"]


def test_the_run_is_part_of_the_generation():
    one, two = compiled(spec(VERTEX, "1")), compiled(spec(VERTEX, "2"))
    assert spec_hash("o", one.body, one.job.run) != spec_hash("o", two.body, two.job.run)


def test_classify_a_run_change_is_a_replace_even_with_the_same_request():
    body = compiled(spec(VERTEX)).body
    p = plan.classify("vertex", body, body, old_run=None, new_run="2")
    assert p.action == plan.REPLACE and p.rerun
    assert p.description.startswith("replace: re-run requested")
    assert p.changes == [plan.Change("metadata.run", None, "2", "added")]
    assert plan.classify("vertex", body, body, old_run="2", new_run="2").action == plan.NONE
    # An ai-platform label change that comes with a new run is a new job, not a patch.
    legacy = compiled(spec(LEGACY)).body
    relabelled = {**legacy, "labels": {"team": "x"}}
    assert plan.classify("ai-platform", legacy, relabelled).action == plan.UPDATE
    assert plan.classify("ai-platform", legacy, relabelled, old_run="1",
                         new_run="2").action == plan.REPLACE


def test_explain_shows_the_run(tmp_path: Path):
    f = tmp_path / "s.yaml"
    f.write_text(spec(LEGACY, 3))
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["explain", str(f)], out, err) == 0
    assert "  platform   ai-platform  (jobId census_job_run_3)\n" in out.getvalue()
    assert "  run        3  (metadata.run: change it to run this spec again)\n" in out.getvalue()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_review_diff_shows_re_run_requested(tmp_path: Path):
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "resnet.yaml").write_text(spec(VERTEX))
    git("add", "-A")
    git("commit", "-qm", "base")
    (tmp_path / "specs" / "resnet.yaml").write_text(spec(VERTEX, 2))
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["diff", "main", "--repo", str(tmp_path)], out, err)
    assert code == 2, err.getvalue()
    assert out.getvalue().splitlines()[2:6] == [
        "specs/resnet.yaml (job resnet, vertex)",
        "  replace: re-run requested: cancels the job if it still runs, then submits",
        "  cost: price unknown (no price for n1-standard-4 in us-central1 (on-demand))",
        '    + metadata.run: "2"',
    ]
    out = io.StringIO()
    cli.main(["diff", "main", "--repo", str(tmp_path), "--format", "json"], out, io.StringIO())
    entry = json.loads(out.getvalue())["entries"][0]
    assert entry["action"] == "replace" and entry["description"] == (
        "replace: re-run requested: cancels the job if it still runs, then submits")
    assert entry["changes"] == [{"path": "metadata.run", "kind": "added", "old": None,
                                 "new": "2"}]
