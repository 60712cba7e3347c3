"""The Pulumi program (compiler/pulumi_program.py, called by __main__.py) under
pulumi.runtime.set_mocks: what it registers.

No engine runs here: the mock monitor records each RegisterResource request. Numbers cross the
mock monitor as protobuf Struct values (float64), exactly as they reach the engine.
"""

from __future__ import annotations

import json
import os
import runpy
import textwrap
from pathlib import Path

import pulumi
import pytest
from pulumi.runtime import mocks as pmocks
from pulumi.runtime import rpc

from compiler import pipeline, pulumi_program
from compiler import pulumi_resources as pr
from compiler.options import Options
from compiler.provider import component, jobs, sdk

ROOT = Path(__file__).resolve().parent.parent
SECRET = "wandb-s3cr3t-0123456789"
VERTEX_TYPE = "trainspec:index:VertexCustomJob"
TUNING_TYPE = "trainspec:index:VertexHyperparameterTuningJob"
ML_TYPE = "trainspec:index:AiPlatformJob"
# (platform, kind) → resource type
TYPES = {("vertex", "TrainingJob"): VERTEX_TYPE, ("vertex", "HyperparameterTuningJob"): TUNING_TYPE,
         ("ai-platform", "TrainingJob"): ML_TYPE, ("ai-platform", "HyperparameterTuningJob"): ML_TYPE}


class Recorder(pulumi.runtime.Mocks):
    """Records each custom resource with the inputs the engine would store: for a trainspec
    job, what the provider's Check returns for the registered inputs (the spec compiled), with
    the registered secretEnv as it crossed the wire."""

    def __init__(self) -> None:
        self.registered: list[pmocks.MockResourceArgs] = []

    def new_resource(self, args: pmocks.MockResourceArgs):
        if args.typ == component.TYPE:
            return f"{args.name}-id", {}  # the jobs' parent: not a resource of its own
        if args.typ in sdk.JOBS:
            urn = f"urn:pulumi:dev::trainspec::{component.TYPE}${args.typ}::{args.name}"
            raw = {k: _unwrap(v) for k, v in args.inputs.items()}
            checked = jobs.check(args.typ, urn, {}, raw, jobs.Config())
            assert checked.failures == [], checked.failures
            args.inputs = {**checked.inputs, "secretEnv": args.inputs.get("secretEnv")}
        self.registered.append(args)
        state = dict(args.inputs)
        if args.typ == "gcp:serviceaccount/account:Account":
            state["email"] = f"{args.inputs['accountId']}@acme-default.iam.gserviceaccount.com"
        return f"{args.name}-id", state

    def call(self, args: pmocks.MockCallArgs):
        return {}


class Monitor(pmocks.MockMonitor):
    """Also records additionalSecretOutputs, which MockResourceArgs does not carry."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(recorder)
        self.secret_outputs: dict[str, list[str]] = {}
        self.outputs: dict[str, set[str]] = {}  # type token → the output names it registered

    def RegisterResourceOutputs(self, request):
        self.outputs[request.urn.split("::")[2].rsplit("$", 1)[-1]] = set(request.outputs)
        return super().RegisterResourceOutputs(request)

    def RegisterResource(self, request):
        self.secret_outputs[request.name] = list(request.additionalSecretOutputs)
        return super().RegisterResource(request)


@pytest.fixture
def program(monkeypatch):
    """(run, recorder, monitor): run(config) executes the program's main() under mocks."""
    monkeypatch.chdir(ROOT)
    recorder = Recorder()
    monitor = Monitor(recorder)
    pulumi.runtime.set_mocks(recorder, project="trainspec", stack="dev", preview=False,
                             organization="acme-org",
                             monitor=monitor)
    # The repo's __main__.py only imports the program shipped in the package.
    main = runpy.run_path(str(ROOT / "__main__.py"), run_name="trainspec_program")["main"]
    assert main is pulumi_program.main

    def run(config: dict[str, str], secret_keys: list[str] | None = None, collect=None):
        """Run the program to completion (every registration done); `collect(jobs)` may
        return an Output to await inside the run. Returns (jobs, collected value)."""
        box: dict = {}

        @pulumi.runtime.test
        def body():
            # A config value None removes that key (e.g. no gcp:project for the stack).
            merged = {"gcp:project": "acme-default", "gcp:region": "us-central1", **config}
            pulumi.runtime.set_all_config({k: v for k, v in merged.items() if v is not None},
                                          secret_keys or [])
            box["jobs"] = main()
            if collect:
                return collect(box["jobs"]).apply(lambda v: box.update(value=v))
            return None

        body()
        return box["jobs"], box.get("value")

    yield run, recorder, monitor
    pulumi.runtime.set_all_config({})


def _by_name(recorder: Recorder) -> dict[str, pmocks.MockResourceArgs]:
    return {r.name: r for r in recorder.registered}


def _unwrap(value):
    return rpc.unwrap_rpc_secret(value) if rpc.is_rpc_secret(value) else value


SPEC_CONFIG = {"trainspec:wandbApiKey": SECRET}


def test_one_resource_per_spec_with_the_compiled_request(program):
    run, recorder, _ = program
    jobs, _ = run(SPEC_CONFIG, ["trainspec:wandbApiKey"])
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "specs").rglob("*.yaml"))
    expected = {}
    for f in files:
        result = pipeline.compile_file(f, Options(project="acme-default", region="us-central1"))
        assert result.ok, result.diagnostics
        expected[result.job.name] = result

    got = _by_name(recorder)
    assert len(recorder.registered) == len(expected) > 0
    assert set(got) == set(expected) == set(jobs)
    for name, result in expected.items():
        inputs = got[name].inputs
        assert got[name].typ == TYPES[(result.job.platform, result.job.kind)]
        assert inputs["request"] == result.body  # 8.0 == 8: floats compare equal to ints
        assert inputs["platform"] == result.job.platform
        assert inputs["project"] == result.job.project
        assert inputs["region"] == result.job.region
        assert inputs["specFile"] == result.file
        # The owner is this organization + project + stack + resource; a job generation adds
        # the request (docs/pulumi.md "Lifecycle").
        assert inputs["identity"] == pr.identity("acme-org", "trainspec", "dev", name)
        assert inputs["specHash"] == pr.spec_hash(inputs["identity"], result.body)
        assert inputs["keepJobRecords"] is True  # records are kept unless the stack says not
        assert inputs["sourceMap"] == pr.source_map(result)
        assert "__provider" not in inputs  # data only: no code is pickled into state
    assert {r.job.kind for r in expected.values()} == {"TrainingJob", "HyperparameterTuningJob"}


def test_one_stack_output_holds_every_job(program, monkeypatch):
    """Not one output per job: the state (saved after every step) holds the map once."""
    run, _, monitor = program
    exported = {}
    monkeypatch.setattr(pulumi, "export", lambda name, value: exported.update({name: value}))
    jobs, got = run(SPEC_CONFIG, ["trainspec:wandbApiKey"], lambda _: exported["jobs"])
    assert set(exported) == {"jobs"} and set(got) == set(jobs)
    assert set(got[next(iter(jobs))]) >= {"name", "state", "error", "consoleUrl", "logsUrl"}
    assert monitor.outputs["trainspec:index:Specs"] == set()  # not a second copy


def test_restore_ints_makes_the_float_request_canonical_again():
    result = pipeline.compile_file(str(ROOT / "specs/vision/resnet-a100-spot.yaml"))
    floated = json.loads(json.dumps(result.body), parse_int=float)
    restored = pr.restore_ints("aiplatform", "GoogleCloudAiplatformV1CustomJob", floated)
    assert json.dumps(restored) == json.dumps(result.body)
    ml = pipeline.compile_file(str(ROOT / "specs/legacy/census-hptuning.yaml"))
    floated = json.loads(json.dumps(ml.body), parse_int=float)
    restored = pr.restore_ints("ml", "GoogleCloudMlV1__Job", floated)
    params = restored["trainingInput"]["hyperparameters"]
    assert params["maxTrials"] == 20 and isinstance(params["maxTrials"], int)
    assert isinstance(params["params"][1]["minValue"], float)  # a double stays a double
    hpt = pipeline.compile_file(str(ROOT / "specs/vision/resnet-hpt.yaml"))
    floated = json.loads(json.dumps(hpt.body), parse_int=float)
    restored = pr.restore_ints("aiplatform", "GoogleCloudAiplatformV1HyperparameterTuningJob",
                               floated)
    assert restored == hpt.body
    assert isinstance(restored["maxTrialCount"], int)  # int32 fields are ints again
    batch = restored["studySpec"]["parameters"][1]["discreteValueSpec"]["values"]
    assert batch == [64.0, 128.0, 256.0]  # doubles stay doubles: the same values on the wire


def test_secrets_stay_secret(program):
    run, recorder, monitor = program

    def collect(jobs):
        env = jobs["resnet-imagenet"].secretEnv
        return pulumi.Output.all(env, pulumi.Output.from_input(env.is_secret()))

    _, (secret_env, is_secret) = run(SPEC_CONFIG, ["trainspec:wandbApiKey"], collect)
    got = _by_name(recorder)["resnet-imagenet"].inputs
    # The registered secretEnv is a secret on the wire ...
    assert rpc.is_rpc_secret(got["secretEnv"])
    assert rpc.unwrap_rpc_secret(got["secretEnv"]) == {"trainspec:wandbApiKey": SECRET}
    # ... the request carries only the placeholder, and no other input holds the value.
    plain = {k: v for k, v in got.items() if k != "secretEnv"}
    assert SECRET not in json.dumps(plain, default=str)
    assert "<secret:trainspec:wandbApiKey>" in json.dumps(got["request"])
    # The resource's output is secret, and declared so for the engine (additionalSecretOutputs).
    assert is_secret is True and secret_env == {"trainspec:wandbApiKey": SECRET}
    assert monitor.secret_outputs["resnet-imagenet"] == ["secretEnv"]
    # A job without secret env values registers a plain, empty secretEnv.
    assert _by_name(recorder)["bert-cpu-smoke"].inputs["secretEnv"] == {}


def _write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return str(path)


GOOD = """\
    apiVersion: trainspec/v1
    kind: TrainingJob
    metadata: {name: good-job}
    spec:
      container: {image: gcr.io/acme-default/x:1}
    """
BAD = """\
    apiVersion: trainspec/v1
    kind: TrainingJob
    metadata:
      name: bad-job
    spec:
      container: {image: gcr.io/acme-default/x:1}
      pools:
        chief: {machineType: n1-standard-8, replicaz: 2}
      scheduling:
        timeout: 30 minutes
    """


def test_an_invalid_spec_fails_with_every_diagnostic_and_declares_nothing(program, tmp_path):
    run, recorder, _ = program
    _write(tmp_path, "a-good.yaml", GOOD)
    bad = _write(tmp_path, "b-bad.yaml", BAD)
    with pytest.raises(pulumi.RunError) as info:
        run({"trainspec:specs": str(tmp_path)})
    text = str(info.value)
    assert "2 error(s) in specs; nothing was declared" in text
    assert f"{bad}:8:41: error: $.spec.pools.chief.replicaz: unknown key 'replicaz'" in text
    assert f"{bad}:10:14: error: $.spec.scheduling.timeout:" in text
    assert recorder.registered == []


def test_a_missing_secret_is_a_located_error(program, tmp_path):
    run, recorder, _ = program
    spec = _write(tmp_path, "s.yaml", """\
        apiVersion: trainspec/v1
        kind: TrainingJob
        metadata: {name: needs-secret}
        spec:
          container: {image: gcr.io/acme-default/x:1}
          env:
            TOKEN: {secret: apiToken}
        """)
    with pytest.raises(pulumi.RunError) as info:
        run({"trainspec:specs": str(tmp_path)})
    assert (f"{spec}:7:12: error: $.spec.env.TOKEN: secret config 'trainspec:apiToken' is not "
            "set (pulumi config set --secret trainspec:apiToken VALUE) [secret-not-set]"
            ) in str(info.value)
    assert recorder.registered == []


def test_duplicate_job_names_and_empty_folders_are_errors(program, tmp_path):
    run, recorder, _ = program
    _write(tmp_path, "one.yaml", GOOD)
    two = _write(tmp_path, "two.yaml", GOOD)
    with pytest.raises(pulumi.RunError, match=f"{two}:3:18: error: \\$.metadata.name: job name "
                       "'good-job' is already used by .* \\(each spec of a tree is one job: "
                       "rename one\\) \\[duplicate-job-name\\]"):
        run({"trainspec:specs": str(tmp_path)})
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(pulumi.RunError, match="no \\*.yaml or \\*.yml spec found "
                       "\\(trainspec:specs\\) \\[no-specs\\]"):
        run({"trainspec:specs": str(empty)})
    assert recorder.registered == []


def test_a_spec_without_project_is_a_located_error(program, tmp_path):
    run, recorder, _ = program
    _write(tmp_path, "a-good.yaml", GOOD.replace("good-job", "other-job").replace(
        "spec:\n", "spec:\n      project: acme-own\n"))
    vertex = _write(tmp_path, "b-vertex.yaml", GOOD)
    ml = _write(tmp_path, "c-ml.yaml", GOOD.replace("good-job", "ml-job").replace(
        "spec:\n", "spec:\n      platform: ai-platform\n"))
    with pytest.raises(pulumi.RunError) as info:
        run({"trainspec:specs": str(tmp_path), "gcp:project": None})
    text = str(info.value)
    assert "2 error(s) in specs; nothing was declared" in text
    for spec in (vertex, ml):
        assert (f"{spec}:4:1: error: $.spec: no project: set spec.project or "
                "`pulumi config set gcp:project ...` [job-location]") in text
    assert recorder.registered == []


def test_a_vertex_spec_without_region_is_a_located_error(program, tmp_path):
    run, recorder, _ = program
    spec = _write(tmp_path, "v.yaml", GOOD)
    with pytest.raises(pulumi.RunError) as info:
        run({"trainspec:specs": str(tmp_path), "gcp:region": None})
    assert (f"{spec}:4:1: error: $.spec: no region: set spec.region or "
            "`pulumi config set gcp:region ...` [job-location]") in str(info.value)
    assert "1 error(s) in specs" in str(info.value)
    assert recorder.registered == []


ML_NAMED = """\
    apiVersion: trainspec/v1
    kind: TrainingJob
    metadata: {{name: {name}}}
    spec:
      platform: ai-platform
      project: {project}
      container: {{image: gcr.io/acme-default/x:1}}
    """


def test_ai_platform_specs_with_the_same_job_id_are_duplicates(program, tmp_path):
    run, recorder, _ = program
    first = _write(tmp_path, "a-dash.yaml", ML_NAMED.format(name="a-b", project="acme-default"))
    second = _write(tmp_path, "b-underscore.yaml",
                    ML_NAMED.format(name="a_b", project="acme-default"))
    with pytest.raises(pulumi.RunError) as info:
        run({"trainspec:specs": str(tmp_path)})
    text = str(info.value)
    assert "1 error(s) in specs" in text
    assert (f"{second}:3:18: error: $.metadata.name: AI Platform jobId 'a_b' in project "
            f"'acme-default' is already used by {first} (ml v1 jobIds replace '-' by '_': "
            "rename metadata.name) [duplicate-job-id]") in text
    assert recorder.registered == []

    # In another project the same jobId is another job.
    _write(tmp_path, "b-underscore.yaml", ML_NAMED.format(name="a_b", project="acme-other"))
    jobs, _ = run({"trainspec:specs": str(tmp_path)})
    assert sorted(jobs) == ["a-b", "a_b"]
    assert sorted(r.inputs["request"]["jobId"] for r in recorder.registered) == ["a_b", "a_b"]


def test_keep_job_records_and_service_account_from_config(program, tmp_path):
    run, recorder, _ = program
    _write(tmp_path, "a-good.yaml", GOOD)
    run({"trainspec:specs": str(tmp_path), "trainspec:keepJobRecords": "false",
         "trainspec:createServiceAccount": "true"})
    got = {r.typ: r for r in recorder.registered}
    assert got[VERTEX_TYPE].inputs["keepJobRecords"] is False
    assert got[VERTEX_TYPE].inputs["project"] == "acme-default"
    assert got["gcp:serviceaccount/account:Account"].inputs["accountId"] == "trainspec-dev"
    binding = got["gcp:projects/iAMMember:IAMMember"]
    assert binding.inputs["role"] == "roles/aiplatform.user"
    assert binding.inputs["member"] == (
        "serviceAccount:trainspec-dev@acme-default.iam.gserviceaccount.com")


def test_output_bucket_from_config_with_the_runner_as_writer(program, tmp_path):
    run, recorder, _ = program
    _write(tmp_path, "a-good.yaml", GOOD)
    run({"trainspec:specs": str(tmp_path), "trainspec:outputBucket": "acme-runs",
         "trainspec:createServiceAccount": "true"})
    got = {r.typ: r for r in recorder.registered}
    bucket = got["gcp:storage/bucket:Bucket"].inputs
    assert (bucket["name"], bucket["uniformBucketLevelAccess"]) == ("acme-runs", True)
    writer = got["gcp:storage/bucketIAMMember:BucketIAMMember"].inputs
    assert writer["role"] == "roles/storage.objectAdmin"
    assert writer["member"] == "serviceAccount:trainspec-dev@acme-default.iam.gserviceaccount.com"


def test_no_bucket_unless_asked(program, tmp_path):
    run, recorder, _ = program
    _write(tmp_path, "a-good.yaml", GOOD)
    run({"trainspec:specs": str(tmp_path)})
    assert not [r for r in recorder.registered if r.typ.startswith("gcp:storage")]


def test_program_never_imports_pulumi_into_the_cli():
    # STYLE 6: only the Pulumi layer imports pulumi; the CLI stays fast without it.
    import subprocess
    import sys

    code = ("import sys, compiler.cli, compiler.pipeline, compiler.plan; "
            "print('pulumi' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, env={**os.environ})
    assert out.stdout.strip() == "False", out.stderr


def test_a_spec_run_is_an_input_and_part_of_the_spec_hash(program, tmp_path):
    run, recorder, _ = program
    _write(tmp_path, "a-good.yaml", GOOD.replace("metadata: {name: good-job}",
                                                 "metadata: {name: good-job, run: 2}"))
    run({"trainspec:specs": str(tmp_path)})
    inputs = _by_name(recorder)["good-job"].inputs
    body = pipeline.compile_file(str(tmp_path / "a-good.yaml"),
                                 Options(project="acme-default", region="us-central1")).body
    assert inputs["run"] == "2" and inputs["request"] == body  # the request itself is unchanged
    assert inputs["specHash"] == pr.spec_hash(inputs["identity"], body, "2")
    assert inputs["specHash"] != pr.spec_hash(inputs["identity"], body)


# -- python.source: the archive is a BucketObject the job depends on ------------------------

TRAINER_PYPROJECT = '[project]\nname = "tiny-trainer"\nversion = "0.2.0"\n'
SOURCE_SPEC = """\
    apiVersion: trainspec/v1
    kind: TrainingJob
    metadata: {{name: {name}}}
    spec:
      python:
        source: ../trainer
        module: trainer.task
        executorImage: us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest
        packages: [gs://acme-libs/extra-1.0.tar.gz]
    """


def _source_repo(root: Path) -> Path:
    """A specs repository (Pulumi.yaml) with a trainer package and two specs using it."""
    root.mkdir()
    (root / "Pulumi.yaml").write_text("name: ml-jobs\nruntime: python\n")
    (root / "trainer" / "trainer").mkdir(parents=True)
    (root / "trainer" / "pyproject.toml").write_text(TRAINER_PYPROJECT)
    (root / "trainer" / "trainer" / "__init__.py").write_text("")
    (root / "trainer" / "trainer" / "task.py").write_text("print('training')\n")
    (root / "specs").mkdir()
    for name in ("job-a", "job-b"):
        _write(root / "specs", f"{name}.yaml", SOURCE_SPEC.format(name=name))
    return root / "specs"


@pytest.fixture
def dependencies(monkeypatch):
    """{resource name: URNs it depends on}, as the engine receives them."""
    seen: dict[str, list[str]] = {}
    register = Monitor.RegisterResource

    def recording(self, request):
        seen[request.name] = list(request.dependencies)
        return register(self, request)

    monkeypatch.setattr(Monitor, "RegisterResource", recording)
    return seen


@pytest.fixture
def retained(monkeypatch):
    """The names of the resources registered with retainOnDelete."""
    seen: set[str] = set()
    register = Monitor.RegisterResource

    def recording(self, request):
        if request.retainOnDelete:
            seen.add(request.name)
        return register(self, request)

    monkeypatch.setattr(Monitor, "RegisterResource", recording)
    return seen


def test_a_source_object_is_never_deleted_by_pulumi(program, retained, tmp_path, monkeypatch):
    """Content-addressed: another stack's job may run the same object (and the job resource
    uploads it itself), so removing a spec or the stack must not delete it."""
    run, recorder, _ = program
    monkeypatch.setenv("TRAINSPEC_CACHE_DIR", str(tmp_path / "cache"))
    specs = _source_repo(tmp_path / "repo")
    run({"trainspec:specs": str(specs), "trainspec:stagingBucket": "gs://acme-staging"})
    (obj,) = [r for r in recorder.registered if r.typ == "gcp:storage/bucketObject:BucketObject"]
    assert obj.name in retained and not {"job-a", "job-b"} & retained


def test_a_source_is_uploaded_once_and_each_job_depends_on_it(program, dependencies, tmp_path,
                                                               monkeypatch):
    run, recorder, _ = program
    cache = tmp_path / "cache"
    monkeypatch.setenv("TRAINSPEC_CACHE_DIR", str(cache))
    specs = _source_repo(tmp_path / "repo")
    jobs, _ = run({"trainspec:specs": str(specs), "trainspec:stagingBucket": "gs://acme-staging"})
    objects = [r for r in recorder.registered if r.typ == "gcp:storage/bucketObject:BucketObject"]
    assert len(objects) == 1  # two specs, one source: one archive, one upload
    obj = objects[0]
    archive = next(cache.iterdir())
    assert archive.name.startswith("tiny_trainer-0.2.0-") and archive.name.endswith(".tar.gz")
    object_name = f"trainspec/packages/{archive.name}"
    assert obj.name == f"acme-staging/{object_name}"
    assert (obj.inputs["bucket"], obj.inputs["name"]) == ("acme-staging", object_name)
    assert obj.inputs["contentType"] == "application/gzip"
    asset = obj.inputs["source"]
    assert isinstance(asset, pulumi.FileAsset) and asset.path == str(archive)
    # The mock monitor's URNs name the stack and project its own way: match type and name.
    urn_tail = f"gcp:storage/bucketObject:BucketObject::{obj.name}"
    for name in ("job-a", "job-b"):
        request = _by_name(recorder)[name].inputs["request"]
        spec = request["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]
        # The built archive first, the spec's own packages after it.
        assert spec["packageUris"] == [f"gs://acme-staging/{object_name}",
                                       "gs://acme-libs/extra-1.0.tar.gz"]
        assert [u for u in dependencies[name] if u.endswith(urn_tail)], dependencies[name]


@pytest.mark.parametrize("endpoint", ["env", "config"])
def test_against_another_endpoint_the_job_uploads_and_no_gcp_object_is_declared(
        program, dependencies, tmp_path, monkeypatch, endpoint):
    """The emulator (TRAINSPEC_API_ENDPOINT, or the provider's trainspec:endpoint): pulumi-gcp
    would upload to Google's Cloud Storage (and needs its plugin); the job resource uploads to
    the endpoint itself, so the job depends on nothing and names the same archive."""
    run, recorder, _ = program
    monkeypatch.setenv("TRAINSPEC_CACHE_DIR", str(tmp_path / "cache"))
    config = {"trainspec:specs": str(_source_repo(tmp_path / "repo")),
              "trainspec:stagingBucket": "gs://acme-staging"}
    if endpoint == "env":
        monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "http://127.0.0.1:8765")
    else:
        config["trainspec:endpoint"] = "http://127.0.0.1:8765"
    run(config)
    assert not [r for r in recorder.registered if r.typ.startswith("gcp:")]
    for name in ("job-a", "job-b"):
        request = _by_name(recorder)[name].inputs["request"]
        uris = request["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"]
        assert uris[0].startswith("gs://acme-staging/trainspec/packages/tiny_trainer-0.2.0-")
        assert not [u for u in dependencies[name] if "bucketObject" in u], dependencies[name]


def test_a_code_change_is_a_new_object_and_a_new_request(program, tmp_path, monkeypatch):
    run, recorder, _ = program
    monkeypatch.setenv("TRAINSPEC_CACHE_DIR", str(tmp_path / "cache"))
    specs = _source_repo(tmp_path / "repo")
    config = {"trainspec:specs": str(specs), "trainspec:stagingBucket": "acme-staging"}
    run(config)
    first = {r.name: r for r in recorder.registered}
    recorder.registered.clear()
    run(config)  # unchanged tree: the same object name and request
    assert {r.name for r in recorder.registered} == set(first)
    recorder.registered.clear()
    (tmp_path / "repo" / "trainer" / "trainer" / "task.py").write_text("print('trained')\n")
    run(config)
    second = {r.name: r for r in recorder.registered}
    old_object = next(n for n in first if n.startswith("acme-staging/"))
    new_object = next(n for n in second if n.startswith("acme-staging/"))
    assert old_object != new_object
    uris = second["job-a"].inputs["request"]["jobSpec"]["workerPoolSpecs"][0][
        "pythonPackageSpec"]["packageUris"]
    assert uris[0] == "gs://" + new_object


def test_a_source_without_staging_bucket_declares_nothing(program, tmp_path, monkeypatch):
    run, recorder, _ = program
    monkeypatch.setenv("TRAINSPEC_CACHE_DIR", str(tmp_path / "cache"))
    specs = _source_repo(tmp_path / "repo")
    with pytest.raises(pulumi.RunError) as info:
        run({"trainspec:specs": str(specs)})
    assert (f"{specs}/job-a.yaml:6:13: error: $.spec.python.source: no staging bucket to upload "
            "the package to") in str(info.value)
    assert recorder.registered == []
    assert not (tmp_path / "cache").exists()  # nothing built to upload
