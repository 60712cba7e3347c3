"""python.source uploads: the Cloud Storage client and `ensure` against the emulator's Cloud
Storage routes (served in-process, counted by their request lines), and the provider's job
resource, whose Create uploads the archive and then submits the job that names it."""

import json
import textwrap

import pytest
import requests

from compiler.cloud.emulator import serve
from compiler.cloud.errors import ApiError
from compiler.cloud.rest import Client
from compiler.cloud.storage import Storage, ensure, md5_hash
from compiler.provider import jobs

BUCKET, OBJECT = "acme-staging", "trainspec/packages/tiny_trainer-0.2.0-0123456789abcdef.tar.gz"


@pytest.fixture
def emulator(monkeypatch):
    """(server, Storage client, request lines answered)."""
    for name in ("TRAINSPEC_API_ENDPOINT", "TRAINSPEC_ACCESS_TOKEN", "TRAINSPEC_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    lines: list[str] = []
    server, _ = serve(port=0, progress_seconds=0, buckets=[BUCKET], log=lines.append)
    yield server, Storage(server.url, sleep=lambda s: None, timeout=5), lines
    server.shutdown()
    server.server_close()


def calls(lines, verb):
    return [line for line in lines if f'"{verb} ' in line]


def test_a_new_object_is_one_post_and_an_unchanged_one_is_not_sent_again(emulator, tmp_path):
    server, client, lines = emulator
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(b"the archive")
    assert ensure(client, BUCKET, OBJECT, archive) is True
    assert len(calls(lines, "POST")) == 1 and "ifGenerationMatch=0" in calls(lines, "POST")[0]
    stored = client.object_get(BUCKET, OBJECT)
    assert stored["md5Hash"] == md5_hash(b"the archive") and stored["size"] == "11"
    assert stored["contentType"] == "application/gzip"
    lines.clear()
    assert ensure(client, BUCKET, OBJECT, archive) is False
    assert calls(lines, "POST") == [] and len(calls(lines, "GET")) == 1


def test_an_object_with_other_bytes_is_replaced_at_the_generation_read(emulator, tmp_path):
    server, client, lines = emulator
    first = client.object_insert(BUCKET, OBJECT, b"a partial write", if_generation_match=0)
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(b"the archive")
    lines.clear()
    assert ensure(client, BUCKET, OBJECT, archive) is True
    (post,) = calls(lines, "POST")
    assert f"ifGenerationMatch={first['generation']}" in post
    assert client.object_get(BUCKET, OBJECT)["md5Hash"] == md5_hash(b"the archive")


def test_a_concurrent_writer_is_never_overwritten(emulator, tmp_path):
    server, client, _ = emulator
    client.object_insert(BUCKET, OBJECT, b"theirs", if_generation_match=0)
    with pytest.raises(ApiError) as raised:
        client.object_insert(BUCKET, OBJECT, b"ours", if_generation_match=0)
    assert raised.value.status == 412
    # ensure: someone wrote the same bytes meanwhile → nothing to do; other bytes → the error.
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(b"theirs")
    assert ensure(client, BUCKET, OBJECT, archive) is False


def test_missing_bucket_and_object_are_the_apis_own_not_found(emulator, tmp_path):
    server, client, _ = emulator
    assert client.object_get(BUCKET, OBJECT) is None
    with pytest.raises(ApiError) as raised:
        client.object_insert("no-such-bucket", OBJECT, b"x", if_generation_match=0)
    assert raised.value.status == 404 and raised.value.not_found
    assert "The specified bucket does not exist." in str(raised.value)
    # The JSON API's error shape, not google.rpc.Status.
    answer = requests.get(f"{server.url}/storage/v1/b/{BUCKET}/o/nothing", timeout=5)
    assert answer.status_code == 404
    assert answer.json() == {"error": {"code": 404, "message": f"No such object: {BUCKET}/nothing",
                                       "errors": [{"domain": "global", "reason": "notFound",
                                                   "message": f"No such object: {BUCKET}/nothing"}]}}
    # A wrong path is the front end's HTML page: not a missing object.
    page = requests.get(f"{server.url}/storage/v1/nowhere", timeout=5)
    assert page.status_code == 404 and page.headers["Content-Type"].startswith("text/html")


def test_the_emulator_refuses_what_cloud_storage_refuses(emulator):
    server, _, _ = emulator
    url = f"{server.url}/upload/storage/v1/b/{BUCKET}/o"
    no_name = requests.post(url, params={"uploadType": "media"}, data=b"x", timeout=5)
    assert no_name.status_code == 400 and no_name.json()["error"]["errors"][0]["reason"] == "required"
    bad = requests.post(url, params={"uploadType": "media", "name": "o", "ifGenerationMatch": "x"},
                        data=b"x", timeout=5)
    assert bad.status_code == 400
    # Bigger than a job's JSON limit (4 MiB) is fine for an object.
    big = requests.post(url, params={"uploadType": "media", "name": "big"},
                        data=b"0" * (5 * 1024 * 1024), timeout=30)
    assert big.status_code == 200 and big.json()["size"] == str(5 * 1024 * 1024)


def test_objects_and_buckets_persist_in_the_state_file(tmp_path):
    state = str(tmp_path / "emulator.json")
    server, _ = serve(port=0, state_file=state, buckets=[BUCKET])
    Storage(server.url).object_insert(BUCKET, OBJECT, b"x", if_generation_match=0)
    server.shutdown(), server.server_close(), server.emulator.close()
    server, _ = serve(port=0, state_file=state)  # no --bucket this time: it was kept
    try:
        assert Storage(server.url).object_get(BUCKET, OBJECT)["md5Hash"] == md5_hash(b"x")
    finally:
        server.shutdown(), server.server_close(), server.emulator.close()


# -- the provider's job resource: Check builds and names, Create uploads then submits ------

SPEC = """\
    apiVersion: trainspec/v1
    kind: TrainingJob
    metadata: {name: job-a}
    spec:
      stagingBucket: gs://BUCKET
      python:
        source: ../trainer
        module: trainer.task
        executorImage: us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest
    """


def _repo(root, bucket=BUCKET):
    (root / "trainer" / "trainer").mkdir(parents=True)
    (root / "Pulumi.yaml").write_text("name: ml-jobs\nruntime: yaml\n")
    (root / "trainer" / "pyproject.toml").write_text('[project]\nname = "tiny-trainer"\n'
                                                     'version = "0.2.0"\n')
    (root / "trainer" / "trainer" / "__init__.py").write_text("")
    (root / "trainer" / "trainer" / "task.py").write_text("print('training')\n")
    (root / "specs").mkdir()
    spec = root / "specs" / "job-a.yaml"
    spec.write_text(textwrap.dedent(SPEC).replace("BUCKET", bucket))
    return spec


URN = "urn:pulumi:dev::ml-jobs::trainspec:index:Specs$trainspec:index:VertexCustomJob::job-a"
TYPE = "trainspec:index:VertexCustomJob"


def _check(spec, config):
    checked = jobs.check(TYPE, URN, {}, {"specFile": str(spec)}, config)
    assert checked.failures == []
    return checked.inputs


def test_check_builds_and_names_the_archive_and_sends_nothing(emulator, tmp_path, monkeypatch):
    server, _, lines = emulator
    monkeypatch.setenv("TRAINSPEC_CACHE_DIR", str(tmp_path / "cache"))
    config = jobs.Config(project="acme-test", region="us-central1", endpoint=server.url)
    inputs = _check(_repo(tmp_path / "repo"), config)
    (archive,) = (tmp_path / "cache").iterdir()
    uri = f"gs://{BUCKET}/trainspec/packages/{archive.name}"
    assert inputs["uploads"] == [uri]
    spec = inputs["request"]["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]
    assert spec["packageUris"] == [uri]
    assert lines == []


def test_create_uploads_once_then_submits_with_the_package(emulator, tmp_path, monkeypatch):
    server, client, lines = emulator
    monkeypatch.setenv("TRAINSPEC_CACHE_DIR", str(tmp_path / "cache"))
    config = jobs.Config(project="acme-test", region="us-central1", endpoint=server.url)
    inputs = _check(_repo(tmp_path / "repo"), config)
    provider = jobs.VertexCustomJob()
    provider.config = config
    created = provider.create(inputs)
    (post_object,) = [c for c in calls(lines, "POST") if "/upload/storage/" in c]
    job_posts = [i for i, c in enumerate(lines) if "/customJobs " in c and '"POST' in c]
    assert lines.index(post_object) < job_posts[0]  # the code is there before the job
    (uri,) = inputs["uploads"]
    job = Client(server.url).vertex_get(created.id)
    assert job["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"] == [uri]
    assert client.object_get(*uri.removeprefix("gs://").split("/", 1)) is not None
    # Another job with the same code (a replace, or another stack): nothing uploaded.
    lines.clear()
    provider.create({**inputs, "identity": inputs["identity"] + "-2",
                     "specHash": inputs["specHash"] + "-2"})
    assert [c for c in calls(lines, "POST") if "/upload/" in c] == []


def test_create_with_a_missing_bucket_fails_before_submitting(emulator, tmp_path, monkeypatch):
    server, _, lines = emulator
    monkeypatch.setenv("TRAINSPEC_CACHE_DIR", str(tmp_path / "cache"))
    config = jobs.Config(project="acme-test", region="us-central1", endpoint=server.url)
    inputs = _check(_repo(tmp_path / "repo", bucket="no-such-bucket"), config)
    provider = jobs.VertexCustomJob()
    provider.config = config
    with pytest.raises(jobs.JobError) as raised:
        provider.create(inputs)
    assert "gs://no-such-bucket/trainspec/packages/" in str(raised.value)
    assert "The specified bucket does not exist." in str(raised.value)
    assert not [c for c in lines if "/customJobs" in c]  # no job without its code
    assert json.dumps(inputs)  # the checked inputs are plain data


def test_a_write_between_our_get_and_post_is_looked_at_again(emulator, tmp_path):
    server, client, lines = emulator
    archive = tmp_path / "a.tar.gz"

    class Racing(Storage):
        """Someone else writes `theirs` just before our POST."""
        theirs = b""

        def object_insert(self, bucket, name, data, **kw):
            Storage(server.url).object_insert(bucket, name, self.theirs, if_generation_match=0)
            return super().object_insert(bucket, name, data, **kw)

    racing = Racing(server.url, sleep=lambda s: None)
    archive.write_bytes(b"ours")
    racing.theirs = b"ours"  # the same archive: done, nothing overwritten
    assert ensure(racing, BUCKET, OBJECT, archive) is False
    other = OBJECT.replace(".tar.gz", "-2.tar.gz")
    racing.theirs = b"something else"  # other bytes: the 412, never an overwrite
    with pytest.raises(ApiError) as raised:
        ensure(racing, BUCKET, other, archive)
    assert raised.value.status == 412
    assert client.object_get(BUCKET, other)["md5Hash"] == md5_hash(b"something else")
