"""`trainspec import --job NAME` against the emulator: a job created directly on the API (no
trainspec labels, no Pulumi) becomes the spec that compiles to its create request."""

from __future__ import annotations

import io
import os

import pytest
from job_specs import HOLD, ml, tuning, vertex

from compiler import cli, pipeline
from compiler.cloud.emulator import serve
from compiler.cloud.rest import Client
from compiler.model import IDENTITY_LABEL, SPEC_HASH_LABEL
from compiler.options import Options

OPTIONS = Options(project="acme-test", region="us-central1")


@pytest.fixture
def api(monkeypatch):
    server, _ = serve(progress_seconds=10.0)
    for key in list(os.environ):
        if key.startswith(("PULUMI_", "TRAINSPEC_")):
            monkeypatch.delenv(key)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", server.url)
    yield Client(endpoint=server.url)
    server.shutdown()
    server.server_close()


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["import", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def create(client: Client, text: str, tmp_path) -> tuple[str, dict]:
    """(the job's name, its create request) for a spec's request POSTed as is."""
    path = tmp_path / "source.yaml"
    path.write_text(text)
    r = pipeline.compile_file(str(path), OPTIONS)
    assert r.ok and r.body is not None and r.job is not None, [d.format() for d in r.diagnostics]
    if r.job.platform == "ai-platform":
        job = client.ml_create("acme-test", r.body)
        return f"projects/acme-test/jobs/{job['jobId']}", r.body
    elif r.job.kind == "HyperparameterTuningJob":
        job = client.vertex_create("acme-test", "us-central1", r.body, "hyperparameterTuningJobs")
    else:
        job = client.vertex_create("acme-test", "us-central1", r.body)
    return job["name"], r.body


@pytest.mark.parametrize("text", [vertex(labels=HOLD, workers=2), ml(labels=HOLD, workers=1),
                                  tuning(labels=HOLD)], ids=["custom", "ml", "tuning"])
def test_the_spec_of_an_existing_job_compiles_to_its_create_request(api, tmp_path, text):
    name, body = create(api, text, tmp_path)
    code, spec, err = run("--job", name)
    assert code == 0, err
    assert err == ""
    assert f"from the job {name}" in spec
    written = tmp_path / "imported.yaml"
    written.write_text(spec)
    # No project or region given: the spec says where the job is.
    again = pipeline.compile_file(str(written), Options())
    assert again.ok, [d.format() for d in again.diagnostics]
    assert again.body == body
    assert (again.job.project, again.job.region) == ("acme-test", "us-central1")


def test_a_job_trainspec_created_loses_only_its_ownership_labels(api, tmp_path):
    name, body = create(api, vertex(labels=HOLD), tmp_path)
    stamped = {**body, "labels": {**body["labels"], IDENTITY_LABEL: "abc123",
                                  SPEC_HASH_LABEL: "def456"}}
    name = api.vertex_create("acme-test", "us-central1", stamped)["name"]
    code, spec, err = run("--job", name)
    assert code == 0, err
    assert IDENTITY_LABEL not in spec and SPEC_HASH_LABEL not in spec
    assert "team: nlp" in spec


def test_bad_names_and_missing_jobs_are_one_line_errors_and_no_spec(api):
    for argv, says in [
        (["--job", "projects/acme-test/locations/us-central1/models/1"], "no job's resource name"),
        (["--job", "projects/acme-test/locations/us-central1/customJobs/999"], "NOT_FOUND"),
        (["--job", "projects/acme-test/jobs/nope"], "NOT_FOUND"),
    ]:
        code, out, err = run(*argv)
        assert (code, out) == (1, ""), err
        assert err.startswith("error: ") and says in err and err.count("\n") == 1, err
        assert "Traceback" not in err


def test_import_takes_a_file_or_a_job_not_both_nor_neither(api):
    assert run()[0] == 64
    code, _, err = run("job.json", "--job", "projects/acme-test/jobs/x")
    assert code == 64 and "FILE or --job" in err and "not both" in err
