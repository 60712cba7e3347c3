"""`python -m compiler local-run SPEC [--pool ROLE] [-- ARGS]`: the trainer of a python.source
spec installed from its archive into a throwaway virtualenv and run as a replica would be."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compiler import cli, localrun, pipeline

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow  # each run builds a virtualenv and pip-installs (about 2 s)

# A trainer that records what it was started with.
PROBE = """\
import json, os, sys
keys = ("AIP_MODEL_DIR", "AIP_CHECKPOINT_DIR", "AIP_TENSORBOARD_LOG_DIR", "CLUSTER_SPEC",
        "TF_CONFIG", "MODE", "API_TOKEN", "PYTHONPATH")
seen = {k: os.environ.get(k) for k in keys}
seen["argv"] = sys.argv[1:]
seen["cwd"] = os.getcwd()
seen["file"] = __file__
with open(os.path.join(os.environ["AIP_MODEL_DIR"], "seen.json"), "w") as f:
    json.dump(seen, f)
print("probe ran", flush=True)
print("to stderr", file=sys.stderr, flush=True)
sys.exit(int(os.environ.get("EXIT_WITH", "0")))
"""
SPEC = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: probe}
spec:
  outputDir: gs://acme-runs/probe
  python:
    source: ../trainer
    module: trainer.probe
    executorImage: us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest
    args: [--from-spec]
  env:
    MODE: fast
    API_TOKEN: {secret: apiToken}
  pools:
    chief: {}
    worker: {replicas: 2}
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    for name, text in {"Pulumi.yaml": "name: ml\nruntime: python\n",
                       "trainer/pyproject.toml": '[project]\nname = "probe"\nversion = "1.0"\n',
                       "trainer/trainer/__init__.py": "",
                       "trainer/trainer/probe.py": PROBE,
                       "specs/probe.yaml": SPEC}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    monkeypatch.chdir(root)
    return root


def local_run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["local-run", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_example_trainer_writes_its_model(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = local_run("examples/specs/local-trainer.yaml", "--output", str(tmp_path),
                               "--", "--epochs", "2")
    assert code == 0, err
    model = json.loads((tmp_path / "model" / "model.json").read_text())
    assert model["epochs"] == 2 and model["loss"] < 0.1
    assert out.splitlines()[0] == "replica workerpool0-0: 2 epochs, lr 0.05"
    assert f"model written to {tmp_path}/model/model.json" in out
    built = pipeline.compile_file("examples/specs/local-trainer.yaml").uploads[0].package
    assert err.splitlines()[:2] == [
        f"local-run example-local-trainer: chief replica 0, python -m trainer.task, package "
        f"{built.file_name}",
        f"outputs: {tmp_path}/ (AIP_MODEL_DIR={tmp_path}/model/)"]


def test_a_replica_gets_the_environment_vertex_gives_it(repo, tmp_path, monkeypatch):
    monkeypatch.setenv("TRAINSPEC_SECRET_API_TOKEN", "t0ken-value")
    monkeypatch.setenv("PYTHONPATH", str(repo / "trainer"))  # never the source: the archive runs
    monkeypatch.setenv("EXIT_WITH", "3")
    out_dir = tmp_path / "out"
    code, out, err = local_run("specs/probe.yaml", "--pool", "worker", "--output", str(out_dir),
                               "--", "--extra", "1")
    assert code == 3, err  # the trainer's exit code
    assert out == "probe ran\n" and "to stderr\n" in err
    assert "t0ken-value" not in out + err
    seen = json.loads((out_dir / "model" / "seen.json").read_text())
    assert seen["argv"] == ["--from-spec", "--extra", "1"]
    assert (seen["MODE"], seen["API_TOKEN"], seen["PYTHONPATH"]) == ("fast", "t0ken-value", None)
    assert seen["AIP_MODEL_DIR"] == f"{out_dir}/model/"
    assert seen["AIP_CHECKPOINT_DIR"] == f"{out_dir}/checkpoints/"
    assert seen["AIP_TENSORBOARD_LOG_DIR"] == f"{out_dir}/logs/"
    assert (out_dir / "checkpoints").is_dir() and (out_dir / "logs").is_dir()
    assert seen["cwd"] == str(out_dir)
    assert str(repo) not in seen["file"]  # imported from the installed archive
    cluster = json.loads(seen["CLUSTER_SPEC"])
    assert cluster["cluster"] == {"workerpool0": ["127.0.0.1:2222"],
                                  "workerpool1": ["127.0.0.1:2223", "127.0.0.1:2224"]}
    assert cluster["task"] == {"type": "workerpool1", "index": 0}
    assert cluster["environment"] == "cloud"
    assert json.loads(cluster["job"])["python_module"] == "trainer.probe"
    tf = json.loads(seen["TF_CONFIG"])
    assert tf["cluster"] == {"chief": ["127.0.0.1:2222"],
                             "worker": ["127.0.0.1:2223", "127.0.0.1:2224"]}
    assert tf["task"] == {"type": "worker", "index": 0}


def test_a_secret_without_its_override_is_refused_before_anything_runs(repo, tmp_path,
                                                                      monkeypatch):
    monkeypatch.delenv("TRAINSPEC_SECRET_API_TOKEN", raising=False)
    code, out, err = local_run("specs/probe.yaml", "--output", str(tmp_path / "out"))
    assert code == 1 and out == ""
    assert err == (
        "error: specs/probe.yaml: env API_TOKEN reads the stack secret trainspec:apiToken, which "
        "local-run does not decrypt: export TRAINSPEC_SECRET_API_TOKEN (e.g. "
        "TRAINSPEC_SECRET_API_TOKEN=\"$(pulumi config get apiToken)\")\n")
    assert not (tmp_path / "out").exists()


def test_bad_input_is_located_and_runs_nothing(repo, tmp_path):
    spec = repo / "specs" / "probe.yaml"
    spec.write_text(SPEC.replace("module: trainer.probe", "module: trainer.missing"))
    code, out, err = local_run("specs/probe.yaml", "--output", str(tmp_path / "out"))
    assert (code, out) == (1, "")
    assert err.startswith("specs/probe.yaml:8:13: error: $.spec.python.module: module "
                          "'trainer.missing' is not in the package built from trainer")
    spec.write_text(SPEC.replace("source: ../trainer", "packages: [gs://acme/t-1.tar.gz]"))
    code, out, err = local_run("specs/probe.yaml", "--output", str(tmp_path / "out"))
    assert code == 1 and err == ("error: specs/probe.yaml: the chief pool runs gs:// packages "
                                 "only: local-run installs python.source (set it to the "
                                 "trainer's folder)\n")
    code, _, err = local_run("specs/probe.yaml", "--pool", "evaluator")
    assert code == 1 and err == "error: specs/probe.yaml: the job has no evaluator pool\n"
    assert not (tmp_path / "out").exists()
    with pytest.raises(SystemExit) as usage:
        cli.main(["local-run"], io.StringIO(), io.StringIO())
    assert usage.value.code == 64


def test_a_container_spec_prints_its_docker_run(repo, tmp_path):
    (repo / "specs" / "box.yaml").write_text("""\
apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: box}
spec:
  container:
    image: us-docker.pkg.dev/acme/trainers/box:1.0
    command: [python, -m, box.train]
    args: [--epochs, 3]
  env:
    MODE: fast
    API_TOKEN: {secret: apiToken}
""")
    code, out, err = local_run("specs/box.yaml", "--output", str(tmp_path / "out"), "--", "--dry")
    assert code == 0
    cluster = json.dumps({"cluster": {"workerpool0": ["127.0.0.1:2222"]}, "environment": "cloud",
                          "task": {"type": "workerpool0", "index": 0},
                          "job": json.dumps({"python_module": "", "package_uris": [],
                                             "job_args": ["--epochs", "3"]})})
    assert out == (
        f"docker run --rm -v {tmp_path}/out:/tmp/trainspec-outputs "
        "-e AIP_MODEL_DIR=/tmp/trainspec-outputs/model/ "
        "-e AIP_CHECKPOINT_DIR=/tmp/trainspec-outputs/checkpoints/ "
        "-e AIP_TENSORBOARD_LOG_DIR=/tmp/trainspec-outputs/logs/ "
        f"-e 'CLUSTER_SPEC={cluster}' -e MODE=fast -e API_TOKEN --entrypoint python "
        "us-docker.pkg.dev/acme/trainers/box:1.0 -m box.train --epochs 3 --dry\n")
    assert "note: export API_TOKEN first: it is the stack secret trainspec:apiToken" in err
    assert not (tmp_path / "out").exists()  # nothing was run or written


def test_ctrl_c_stops_the_trainer_quietly_with_130(repo, tmp_path):
    (repo / "trainer" / "trainer" / "probe.py").write_text(
        "import time\nprint('started', flush=True)\ntime.sleep(60)\n")
    env = {**os.environ, "TRAINSPEC_SECRET_API_TOKEN": "x", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "compiler", "local-run", "specs/probe.yaml",
                             "--output", str(tmp_path / "out")], cwd=repo, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        assert proc.stdout.readline() == "started\n"
        started = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C sends: the whole foreground group
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert time.monotonic() - started < 15
    # The trainer is stopped as a cancelled job is (SIGTERM): no KeyboardInterrupt traceback.
    assert err.endswith("interrupted\n") and "Traceback" not in err


def test_secret_variable_names():
    assert localrun.secret_variable("trainspec:wandbApiKey") == "TRAINSPEC_SECRET_WANDB_API_KEY"
    assert localrun.secret_variable("trainspec:db.pass-word") == "TRAINSPEC_SECRET_DB_PASS_WORD"


def test_ai_platform_tf_config_names_the_master(repo):
    spec = repo / "specs" / "probe.yaml"
    spec.write_text(SPEC.replace("spec:\n", "spec:\n  platform: ai-platform\n  region: "
                                 "us-central1\n  stagingBucket: gs://acme-staging\n").replace(
        "    executorImage: us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest\n",
        "    runtimeVersion: '2.11'\n    pythonVersion: '3.7'\n").replace(
        "  env:\n    MODE: fast\n    API_TOKEN: {secret: apiToken}\n", ""))
    result = pipeline.compile_file("specs/probe.yaml")
    assert result.ok, result.diagnostics
    env = localrun.cluster_env(result.job, "chief", result.body)
    assert "CLUSTER_SPEC" not in env
    tf = json.loads(env["TF_CONFIG"])
    assert tf["task"] == {"type": "master", "index": 0}
    assert list(tf["cluster"]) == ["master", "worker"]


def test_tf_config_roles_come_from_the_role_table(repo):
    """useChiefInTfConfig names the master chief; an evaluator runs but is in no cluster."""
    spec = repo / "specs" / "probe.yaml"
    spec.write_text(SPEC.replace("spec:\n", "spec:\n  platform: ai-platform\n  region: "
                                 "us-central1\n  stagingBucket: gs://acme-staging\n  aiPlatform: "
                                 "{useChiefInTfConfig: true}\n").replace(
        "    executorImage: us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest\n",
        "    runtimeVersion: '2.11'\n    pythonVersion: '3.7'\n").replace(
        "  env:\n    MODE: fast\n    API_TOKEN: {secret: apiToken}\n", "").replace(
        "    worker: {replicas: 2}\n", "    worker: {replicas: 2}\n    evaluator: {}\n"))
    result = pipeline.compile_file("specs/probe.yaml")
    assert result.ok, result.diagnostics
    tf = json.loads(localrun.cluster_env(result.job, "evaluator", result.body)["TF_CONFIG"])
    assert tf["task"] == {"type": "evaluator", "index": 0}
    assert list(tf["cluster"]) == ["chief", "worker"]
