"""Reduction Server as its own pool (issue 19 §6): `spec.pools.reductionServer` is Vertex pool 2
running Google's reduction-server image, imported as such, named so by explain and logs, left
out of TF_CONFIG and not run by local-run; refused on ai-platform and beside a parameterServer."""

from __future__ import annotations

import datetime
import io
import json
import shlex
from pathlib import Path

import pytest
import yaml

from compiler import cli, explain, localrun, pipeline, roles
from compiler.importers import decompile
from compiler.jobs import track
from compiler.options import Options
from compiler.report import format_text

TODAY = datetime.date(2026, 11, 22)
GOLDEN = Path(__file__).parent / "golden"
GOLDEN_IMPORT = Path(__file__).parent / "golden-import"
IMAGE = "us-docker.pkg.dev/vertex-ai-restricted/training/reductionserver:latest"
SPEC = (GOLDEN / "vertex-reduction-server" / "spec.yaml").read_text(encoding="utf-8")


def _compile(text: str, platform: str | None = None) -> pipeline.Result:
    return pipeline.compile_text(text, "spec.yaml", Options(platform=platform), today=TODAY)


def _text(result: pipeline.Result) -> str:
    return format_text(result.diagnostics)


def test_the_pool_runs_googles_image_not_the_jobs_task_or_env():
    text = SPEC.replace("  pools:\n", "  env: {NCCL_DEBUG: INFO}\n  pools:\n")
    result = _compile(text)
    assert result.ok, _text(result)
    pools = result.body["jobSpec"]["workerPoolSpecs"]
    assert len(pools) == 3
    assert pools[2] == {"machineSpec": {"machineType": "n1-highcpu-16"}, "replicaCount": "4",
                        "containerSpec": {"imageUri": IMAGE}}
    assert pools[1]["containerSpec"]["env"] == [{"name": "NCCL_DEBUG", "value": "INFO"}]


def test_a_pool_image_of_its_own_is_kept():
    europe = IMAGE.replace("us-", "europe-", 1)
    result = _compile(SPEC.replace("      machineType: n1-highcpu-16\n", "      machineType: "
                                   f"n1-highcpu-16\n      container: {{image: {europe}}}\n"))
    assert result.ok, _text(result)
    assert result.body["jobSpec"]["workerPoolSpecs"][2]["containerSpec"] == {"imageUri": europe}


def test_explain_names_the_reduction_server():
    result = _compile(SPEC)
    out = explain.render(result)
    assert "reduction server (pool 2)  4 × n1-highcpu-16" in out
    assert f"container {IMAGE}" in out
    assert "parameterServer" not in out


def test_parameter_server_and_reduction_server_are_one_pool():
    text = SPEC.replace("    reductionServer:\n", "    parameterServer:\n      replicas: 2\n"
                        "      machineType: n1-standard-8\n    reductionServer:\n")
    result = _compile(text)
    assert not result.ok
    assert "spec.yaml:22:5: error: $.spec.pools.reductionServer: parameterServer and " \
           "reductionServer are both Vertex pool 2: a job has one of them" in _text(result)
    assert "[pool-two-roles]" in _text(result)


def test_ai_platform_refuses_it_at_the_pool():
    result = _compile(SPEC, "ai-platform")
    assert not result.ok
    assert ("spec.yaml:19:5: error: $.spec.pools.reductionServer: cannot be expressed on "
            "ai-platform (vertex only): the reduction server is a Vertex pool") in _text(result)
    assert "[vertex-only]" in _text(result)


def test_a_parameter_server_running_the_image_is_a_warning():
    text = SPEC.replace("    reductionServer:\n      replicas: 4\n      machineType: n1-highcpu-16\n",
                        f"    parameterServer:\n      replicas: 4\n      machineType: n1-highcpu-16\n"
                        f"      container: {{image: {IMAGE}}}\n")
    result = _compile(text)
    assert result.ok, _text(result)
    assert ("spec.yaml:22:26: warning: $.spec.pools.parameterServer.container.image: this "
            "parameterServer pool runs the reduction-server image: it is a reduction server "
            "(name the pool 'reductionServer'") in _text(result)
    assert "[reduction-server-pool]" in _text(result)
    # On ai-platform the name it suggests is refused: no such warning there.
    ml = _compile(text.replace("spec:\n", "spec:\n  platform: ai-platform\n"))
    assert "reduction-server-pool" not in _text(ml)


@pytest.mark.parametrize(("pool", "at"), [
    ("      machineType: a2-highgpu-1g\n", "$.spec.pools.reductionServer.machineType"),
    ("      machineType: n1-highcpu-16\n      accelerator: {type: T4}\n",
     "$.spec.pools.reductionServer.accelerator")])
def test_gpus_on_the_reduction_server_are_a_warning_never_a_refusal(pool, at):
    result = _compile(SPEC.replace("      machineType: n1-highcpu-16\n", pool))
    assert result.ok, _text(result)
    assert f"warning: {at}: " in _text(result)
    assert "on the reduction server, whose reducers use no GPUs" in _text(result)
    assert "[reduction-server-accelerator]" in _text(result)


def test_the_image_is_told_by_region_tag_and_digest():
    assert roles.is_reduction_server_image(IMAGE)
    assert roles.is_reduction_server_image(IMAGE.replace("us-", "asia-", 1))
    assert roles.is_reduction_server_image(IMAGE.replace(":latest", "@sha256:" + "0" * 64))
    assert not roles.is_reduction_server_image(IMAGE.replace("us-", "us-central1-", 1))
    assert not roles.is_reduction_server_image("gcr.io/cloud-ml-service-private/reductionserver:latest")
    assert roles.of_pool(2, IMAGE) is roles.REDUCTION_SERVER
    assert roles.of_pool(2, "gcr.io/acme/ps:1") is roles.BY_POOL[2] is roles.PARAMETER_SERVER
    assert roles.of_pool(1, IMAGE).name == "worker"


def _import(case: str, monkeypatch) -> dict:
    monkeypatch.chdir(GOLDEN_IMPORT / case)
    words = shlex.split((GOLDEN_IMPORT / case / "command").read_text(encoding="utf-8"))
    outcome = decompile.import_gcloud(words, [])
    assert outcome.ok, [d.format() for d in outcome.diagnostics]
    return yaml.safe_load(outcome.text)


def test_gcloud_worker_pool_spec_imports_as_reduction_server(monkeypatch):
    pools = _import("vertex-reduction-server", monkeypatch)["spec"]["pools"]
    assert list(pools) == ["chief", "worker", "reductionServer"]
    assert pools["reductionServer"] == {"replicas": 4, "machineType": "n1-highcpu-16"}


def test_gcloud_config_keeps_a_regional_image_and_shares_no_env(monkeypatch):
    spec = _import("vertex-config-reduction-server", monkeypatch)["spec"]
    assert spec["env"] == {"NCCL_DEBUG": "INFO"}
    assert spec["pools"]["reductionServer"] == {
        "replicas": 2, "machineType": "n1-highcpu-16",
        "container": {"image": IMAGE.replace("us-", "europe-", 1)}}


def test_sdk_and_rest_configs_import_as_reduction_server():
    pools = [{"replica_count": 1, "machine_spec": {"machine_type": "n1-standard-8"},
              "container_spec": {"image_uri": "gcr.io/acme/t:1"}},
             {"replica_count": 2, "machine_spec": {"machine_type": "n1-standard-8"},
              "container_spec": {"image_uri": "gcr.io/acme/t:1"}},
             {"replica_count": 3, "machine_spec": {"machine_type": "n1-highcpu-16"},
              "container_spec": {"image_uri": IMAGE}}]
    rest = {"displayName": "j", "jobSpec": {"workerPoolSpecs": [
        {"replicaCount": str(p["replica_count"]),
         "machineSpec": {"machineType": p["machine_spec"]["machine_type"]},
         "containerSpec": {"imageUri": p["container_spec"]["image_uri"]}} for p in pools]}}
    for text in (json.dumps({"worker_pool_specs": pools}), json.dumps(rest)):
        outcome = decompile.decompile(text, "job.json")
        assert outcome.ok, [d.format() for d in outcome.diagnostics]
        spec = yaml.safe_load(outcome.text)["spec"]
        assert spec["pools"]["reductionServer"] == {"replicas": 3, "machineType": "n1-highcpu-16"}
        assert "parameterServer" not in spec["pools"]


def test_local_run_leaves_it_out_of_tf_config_and_does_not_run_it(tmp_path, monkeypatch):
    result = _compile(SPEC)
    env = localrun.cluster_env(result.job, "chief", result.body)
    tf = json.loads(env["TF_CONFIG"])
    assert list(tf["cluster"]) == ["chief", "worker"]
    assert "ps" not in env["TF_CONFIG"]
    # CLUSTER_SPEC lists every pool, as Vertex sets it.
    assert list(json.loads(env["CLUSTER_SPEC"])["cluster"]) == ["workerpool0", "workerpool1",
                                                                "workerpool2"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["local-run", "spec.yaml", "--pool", "reductionServer"], out, err) == 1
    assert "the reductionServer pool runs Google's reduction server image, which local-run " \
           "does not run" in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["local-run", "spec.yaml"], out, err) == 0, err.getvalue()
    assert "note: the reductionServer pool (4 × reduction server) is not run locally and is " \
           "not in TF_CONFIG" in err.getvalue()


def test_logs_name_pool_two_by_the_jobs_image():
    job = {"jobSpec": {"workerPoolSpecs": [{}, {}, {"containerSpec": {"imageUri": IMAGE}}]}}
    assert track.replica_name("vertex", "workerpool2-1", job) == "reductionServer-1"
    assert track.replica_name("vertex", "workerpool2-1") == "parameterServer-1"
    assert track.replica_name("vertex", "workerpool1-0", job) == "worker-0"
    assert track.replica_filter("vertex", "reductionServer") == \
        'resource.labels.task_name=~"^workerpool2-[0-9]+$"'
