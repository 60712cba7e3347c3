"""The trainspec provider plugin under the real engine, from a Pulumi YAML program
(`runtime: yaml`, conftest.YAML_PROGRAM: one `trainspec:index:Specs` over specs/).

The same promises as the Python program's (test_lifecycle.py), kept by the provider itself:
a preview sends nothing, `up` creates each job once, a second `up` is a no-op, an edit cancels
before it creates, destroy cancels, a bad spec stops everything at its file:line:col; and
`pulumi import` adopts a job that runs already.
"""

from __future__ import annotations

import pytest
from job_specs import HOLD, ml, tuning, vertex
from test_lifecycle import BERT, CENSUS, rename_bert, states

from compiler import pipeline
from compiler.cloud.rest import Client
from compiler.options import Options


@pytest.fixture
def yaml_project(project, yaml_host):
    def make(**kw):
        return project(runtime="yaml", **kw)
    return make


def test_preview_sends_nothing_up_creates_one_job_per_spec_and_a_second_up_makes_no_call(
        yaml_project, emulator):
    p = yaml_project()
    p.write(BERT, vertex(labels=HOLD))
    p.write(CENSUS, ml(labels=HOLD))
    p.write("specs/ads-hpt.yaml", tuning(labels=HOLD))

    preview = p.run("preview")
    assert "+ 5 to create" in preview.stdout, preview.stdout  # stack, Specs, three jobs
    assert emulator.calls == []

    p.up()
    assert len(emulator.requests("POST", "/customJobs HTTP")) == 1
    assert len(emulator.requests("POST", "/hyperparameterTuningJobs HTTP")) == 1
    assert len(emulator.requests("POST", "/jobs HTTP")) == 1
    jobs = p.outputs()["jobs"]
    assert jobs["bert"]["name"] in emulator.vertex_jobs()
    assert jobs["ads-hpt"]["name"] in emulator.tuning_jobs()
    assert jobs["census"]["name"] == "projects/acme-test/jobs/census"
    types = sorted(r["type"] for r in p.resources(""))
    # pulumi:providers:pulumi: the engine's own (builtin) provider, by which Specs reads the
    # stack's last state (a renamed metadata.name, component.py); it holds nothing.
    assert types == ["pulumi:providers:pulumi", "pulumi:providers:trainspec", "pulumi:pulumi:Stack",
                     "trainspec:index:AiPlatformJob", "trainspec:index:Specs",
                     "trainspec:index:VertexCustomJob",
                     "trainspec:index:VertexHyperparameterTuningJob"]
    assert "__provider" not in str(p.state())  # data only: no pickled code

    before = len(emulator.calls)
    again = p.up()
    assert "5 unchanged" in again.stdout, again.stdout
    assert emulator.calls[before:] == []


def test_an_edited_spec_cancels_the_old_job_then_creates_and_destroy_cancels(
        yaml_project, emulator):
    p = yaml_project()
    p.write(BERT, vertex(labels=HOLD))
    p.write(CENSUS, ml(labels=HOLD))
    p.up()
    (old,) = emulator.vertex_jobs()

    p.write(BERT, vertex(labels=HOLD, steps=20))
    assert "+-1 to replace" in p.run("preview", "--diff").stdout
    p.up()
    jobs = emulator.vertex_jobs()
    new = next(n for n in jobs if n != old)
    assert jobs[old]["state"] == "JOB_STATE_CANCELLED"
    assert jobs[new]["state"] in ("JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING")
    calls = emulator.requests("POST")
    cancel = next(i for i, c in enumerate(calls) if ":cancel" in c)
    second = [i for i, c in enumerate(calls) if c.endswith('/customJobs HTTP/1.1" 200 -')][1]
    assert cancel < second  # delete before replace: never two generations at once
    assert p.outputs()["jobs"]["bert"]["name"] == new

    p.run("destroy", "--yes", "--skip-preview")
    assert states(emulator.vertex_jobs()) == ["JOB_STATE_CANCELLED"] * 2
    assert states(emulator.ml_jobs()) == ["CANCELLED"]
    assert not emulator.requests("DELETE")  # records kept
    assert p.resources("") == []


def test_a_renamed_metadata_name_cancels_the_old_job_before_creating_the_new_one(
        yaml_project, emulator):
    """The component Construct builds in the provider reads the stack's last state too."""
    rename_bert(yaml_project(), emulator)


def test_a_bad_spec_fails_preview_at_its_location_and_nothing_is_sent(yaml_project, emulator):
    p = yaml_project()
    p.write(BERT, vertex())
    p.write("specs/bad.yaml", vertex(name="bad").replace("n1-standard-4", "n1-standard-5"))
    for command in (("preview",), ("up", "--yes", "--skip-preview")):
        proc = p.run(*command, check=False)
        text = proc.stdout + proc.stderr
        assert proc.returncode != 0
        assert "specs/bad.yaml:11:26: error:" in text and "n1-standard-5" in text, text
        assert "[machine-type]" in text or "[" in text.split("n1-standard-5", 1)[1]
        assert "Traceback" not in text
    assert emulator.calls == []
    # errors before anything: not even the component
    assert [r["type"] for r in p.resources("") if r["type"].startswith("trainspec:")] == []


def test_pulumi_import_adopts_a_running_job_and_the_next_preview_changes_nothing(
        yaml_project, emulator):
    p = yaml_project()
    p.write("specs/other.yaml", vertex(name="other", labels=HOLD))
    p.up()
    # A job started outside Pulumi, from the request this spec compiles to.
    spec = p.write(BERT, vertex(labels=HOLD))
    body = pipeline.compile_file(str(spec), Options(project="acme-test",
                                                    region="us-central1")).body
    job = Client(emulator.url).vertex_create("acme-test", "us-central1", body)
    (spec.parent / "bert.yaml").rename(spec.parent / "bert.yaml.later")

    imported = p.run("import", "trainspec:index:VertexCustomJob", "bert", job["name"], "--yes")
    assert "1 imported" in imported.stdout, imported.stdout
    (resource,) = [r for r in p.resources() if r["id"] == job["name"]]
    assert resource["inputs"]["spec"]["metadata"]["name"] == "bert"

    (spec.parent / "bert.yaml.later").rename(spec)
    before = len(emulator.calls)
    preview = p.run("preview", "--diff")
    assert "to create" not in preview.stdout and "to replace" not in preview.stdout, \
        preview.stdout
    assert "to update" not in preview.stdout, preview.stdout
    p.up()
    assert [c for c in emulator.calls[before:] if '"GET' not in c] == []
    assert emulator.vertex_jobs()[job["name"]]["state"] != "JOB_STATE_CANCELLED"
    assert p.outputs()["jobs"]["bert"]["name"] == job["name"]

    p.run("destroy", "--yes", "--skip-preview")
    assert emulator.vertex_jobs()[job["name"]]["state"] == "JOB_STATE_CANCELLED"


def test_pulumi_package_get_schema_prints_the_committed_schema(yaml_project):
    import json
    import shutil
    import sys
    from pathlib import Path

    from compiler import provider

    p = yaml_project()
    # The plugin as the engine finds it. By name (`get-schema trainspec`) the CLI asks the
    # Pulumi registry first, which these machines cannot reach.
    exe = shutil.which("pulumi-resource-trainspec", path=str(Path(sys.executable).parent))
    proc = subprocess_run(p, "package", "get-schema", exe)
    assert json.loads(proc.stdout) == json.loads(provider.schema_text())


def subprocess_run(p, *args: str):
    """`pulumi ARGS` in the project (without --non-interactive, which `package` refuses)."""
    import subprocess
    proc = subprocess.run([p.cli, *args], cwd=p.root, env=p.env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def test_a_spec_warning_is_a_pulumi_warning_on_its_resource(yaml_project, emulator):
    p = yaml_project()
    p.write(BERT, vertex(labels=HOLD)
            + "  env: {HF_TOKEN: hf_aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM}\n")
    for proc in (p.run("preview"), p.up()):
        lines = proc.stdout.splitlines()
        # Shown under the job's own heading in Diagnostics, located and coded.
        at = lines.index("  trainspec:index:VertexCustomJob (bert):")
        assert lines[at + 1].startswith("    warning: specs/bert.yaml:12:19: warning: "
                                        "$.spec.env.HF_TOKEN:"), lines[at:at + 3]
        assert lines[at + 1].endswith("[plaintext-secret]")


def test_a_python_source_spec_uploads_its_archive_once_and_the_job_names_it(yaml_project,
                                                                          emulator):
    """The job resource uploads its code itself (no pulumi-gcp): preview builds and sends
    nothing, up uploads once before it submits, a second up uploads nothing, and destroy
    leaves the object (a job may still use it)."""
    from test_pulumi_program import SOURCE_SPEC, TRAINER_PYPROJECT

    emulator.api.add_bucket("acme-staging")
    p = yaml_project()
    p.env["TRAINSPEC_CACHE_DIR"] = str(p.root / ".cache")
    p.write("trainer/pyproject.toml", TRAINER_PYPROJECT)
    p.write("trainer/trainer/__init__.py", "")
    p.write("trainer/trainer/task.py", "print('training')\n")
    p.write("specs/job-a.yaml", SOURCE_SPEC.format(name="job-a"))
    p.run("config", "set", "trainspec:stagingBucket", "gs://acme-staging")

    p.run("preview")
    assert emulator.calls == []
    (archive,) = (p.root / ".cache").iterdir()  # built by Check
    uri = f"gs://acme-staging/trainspec/packages/{archive.name}"

    p.up()
    (upload,) = emulator.requests("POST", "/upload/storage/v1/b/acme-staging/o?")
    assert "uploadType=media" in upload and "ifGenerationMatch=0" in upload
    assert emulator.calls.index(upload) < emulator.calls.index(
        emulator.requests("POST", "/customJobs HTTP")[0])
    (job,) = emulator.vertex_jobs().values()
    packages = job["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"]
    assert packages == [uri, "gs://acme-libs/extra-1.0.tar.gz"]
    assert f"acme-staging/{uri.split('/', 3)[3]}" in emulator.api.state["objects"]

    before = len(emulator.calls)
    again = p.up()
    assert "unchanged" in again.stdout and emulator.calls[before:] == []

    p.run("destroy", "--yes")
    assert emulator.requests("POST", "/upload/") == [upload]  # uploaded once in all
    assert f"acme-staging/{uri.split('/', 3)[3]}" in emulator.api.state["objects"]


def test_pulumi_import_then_the_spec_trainspec_import_job_writes_previews_as_no_change(
        yaml_project, emulator, tmp_path):
    """Adopting a job end to end with no hand-written spec: the job exists (created directly on
    the API), `pulumi import` adopts it, `trainspec import --job` writes its spec into specs/,
    and the program that now declares it changes nothing."""
    p = yaml_project()
    p.write("specs/other.yaml", vertex(name="other", labels=HOLD))
    p.up()
    source = tmp_path / "elsewhere.yaml"
    source.write_text(vertex(labels=HOLD, workers=2))
    body = pipeline.compile_file(str(source), Options(project="acme-test",
                                                      region="us-central1")).body
    job = Client(emulator.url).vertex_create("acme-test", "us-central1", body)

    imported = p.run("import", "trainspec:index:VertexCustomJob", "bert", job["name"], "--yes")
    assert "1 imported" in imported.stdout, imported.stdout
    written = p.trainspec("import", "--job", job["name"])
    assert written.returncode == 0, written.stderr
    p.write(BERT, written.stdout)

    before = len(emulator.calls)
    preview = p.run("preview", "--diff")
    for change in ("to create", "to replace", "to update", "to delete"):
        assert change not in preview.stdout, preview.stdout
    p.up()
    assert [c for c in emulator.calls[before:] if '"GET' not in c] == []
    assert p.outputs()["jobs"]["bert"]["name"] == job["name"]
    assert emulator.vertex_jobs()[job["name"]]["state"] != "JOB_STATE_CANCELLED"
