"""Adopting trainspec in an existing company repository, as the README walks it: a trainer
package, gcloud scripts (one with a --config file), a .gitignore, a pre-commit config and a
workflow of its own → `init .` → `import -- gcloud …` per script → validate → compile --out →
a branch that edits a spec and the trainer → `diff --merge-base main --format markdown` shows
both → `pulumi preview`/`up` against the emulator → `local-run` of the trainer.

The project's virtualenv is this interpreter's (conftest.Project), which holds what `init`'s
requirements.lock pins (.ci/run installs the same lock), so `local-run` runs in the environment
init's instructions make."""

from __future__ import annotations

import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

STAGING = "acme-staging"
COMPANY = {
    "trainer/pyproject.toml": """\
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "acme-trainer"
        version = "1.0.0"
        """,
    "trainer/trainer/__init__.py": "",
    "trainer/trainer/task.py": """\
        import os
        import sys

        print("acme trainer, args", sys.argv[1:], "model dir", os.environ["AIP_MODEL_DIR"])
        """,
    "jobs/resnet.yaml": """\
        workerPoolSpecs:
          - machineSpec: {machineType: n1-standard-8}
            replicaCount: 1
            containerSpec:
              imageUri: us-docker.pkg.dev/acme-ml/trainers/resnet:1.4.2
              args: [--epochs=10]
        """,
    "scripts/train-resnet.sh": """\
        #!/bin/sh
        set -e
        gcloud ai custom-jobs create --project=acme-ml --region=us-central1 \\
          --display-name=resnet --config=jobs/resnet.yaml
        """,
    "scripts/train-linefit.sh": """\
        #!/bin/sh
        gcloud ai custom-jobs create --project=acme-ml --region=us-central1 \\
          --display-name=linefit --args=--epochs=3 \\
          --worker-pool-spec=machine-type=n1-standard-4,local-package-path=trainer,python-module=trainer.task,executor-image-uri=us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest
        """,
    ".gitignore": "__pycache__/\n*.egg-info/\n",
    ".pre-commit-config.yaml": """\
        repos:
          - repo: https://github.com/pre-commit/pre-commit-hooks
            rev: v4.6.0
            hooks:
              - id: trailing-whitespace
        """,
    ".github/workflows/ci.yml": "name: ci\non: push\njobs: {}\n",
    "README.md": "# acme-ml\n",
}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.email=a@acme", "-c",
                           "user.name=acme", *args], check=True, capture_output=True,
                          text=True).stdout


def _trainspec(repo: Path, *args: str, code: int | None = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "compiler", *args], cwd=repo,
                          capture_output=True, text=True, timeout=300)
    if code is not None:
        assert proc.returncode == code, f"{args}: {proc.returncode}\n{proc.stdout}{proc.stderr}"
    return proc


def test_a_company_repository_adopts_trainspec_up_to_pulumi_up_and_local_run(
        project, emulator, tmp_path):
    repo = tmp_path / "acme-ml"
    for rel, text in COMPANY.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(textwrap.dedent(text))
    _git(repo.parent, "init", "-q", "-b", "main", str(repo))
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "the company's repository")
    theirs = {rel: (repo / rel).read_text() for rel in COMPANY}

    init = _trainspec(repo, "init", ".", "--from", "index")
    report = init.stdout.splitlines()
    for line in ("  merged   .gitignore (added venv/, *.pyc)",
                 "  merged   .pre-commit-config.yaml (added trainspec-compiled, "
                 "trainspec-validate)",
                 "  created  .github/workflows/trainspec.yml", "  created  Pulumi.yaml"):
        assert line in report, init.stdout
    nxt = init.stdout.split("next: ", 1)[1]
    assert "git init" not in nxt
    assert "scripts/train-linefit.sh, scripts/train-resnet.sh" in nxt
    for rel in ("README.md", ".github/workflows/ci.yml", "jobs/resnet.yaml",
                "trainer/trainer/task.py"):
        assert (repo / rel).read_text() == theirs[rel]

    for script in ("train-resnet", "train-linefit"):
        text = (repo / "scripts" / f"{script}.sh").read_text().replace("\\\n", " ")
        line = next(x for x in text.splitlines() if x.startswith("gcloud "))
        name = script.removeprefix("train-")
        out = repo / "specs" / f"{name}.yaml"
        _trainspec(repo, "import", "--out", f"specs/{name}.yaml", "--", *shlex.split(line))
        if "python:" in out.read_text():  # the import said: no staging bucket for the trainer
            out.write_text(out.read_text().replace(
                "\nspec:\n", f"\nspec:\n  stagingBucket: gs://{STAGING}\n", 1))
    assert "source: ../trainer" in (repo / "specs" / "linefit.yaml").read_text()
    validate = _trainspec(repo, "validate", "specs")
    assert validate.stderr.strip().endswith("3 spec(s) checked, 0 with errors")
    _trainspec(repo, "compile", "specs", "--out", "compiled")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "adopt trainspec")

    # A branch: a bigger machine for resnet, and a trainer change (the linefit job changes).
    _git(repo, "checkout", "-q", "-b", "bigger")
    resnet = repo / "specs" / "resnet.yaml"
    resnet.write_text(resnet.read_text().replace("n1-standard-8", "n1-standard-16"))
    task = repo / "trainer" / "trainer" / "task.py"
    task.write_text(task.read_text() + 'print("now with early stopping")\n')
    _trainspec(repo, "compile", "specs", "--out", "compiled")
    _trainspec(repo, "compile", "specs", "--out", "compiled", "--check")
    _git(repo, "commit", "-qam", "bigger resnet, early stopping")
    diff = _trainspec(repo, "diff", "main", "--merge-base", "--format", "markdown", code=2)
    assert "n1-standard-16" in diff.stdout and "resnet" in diff.stdout, diff.stdout
    assert "linefit" in diff.stdout and "trainer code changed" in diff.stdout, diff.stdout

    # pulumi preview / up of the branch against the emulator (the staging bucket is there).
    emulator.api.add_bucket(STAGING)
    p = project(name="acme-ml", folder="acme-ml")
    assert p.root == repo and (repo / "Pulumi.yaml").read_text().startswith("name: acme-ml\n")
    preview = p.run("preview")
    assert "+ 5 to create" in preview.stdout, preview.stdout  # stack, Specs, three jobs
    assert emulator.requests("POST") == []
    p.up()
    jobs = emulator.vertex_jobs()
    assert sorted(j["displayName"] for j in jobs.values()) == ["example", "linefit", "resnet"]
    (linefit,) = [j for j in jobs.values() if j["displayName"] == "linefit"]
    uri = linefit["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"][0]
    assert uri.startswith(f"gs://{STAGING}/trainspec/packages/acme_trainer-1.0.0-")
    assert emulator.requests("POST", "/upload/storage/v1/b/acme-staging/o"), emulator.calls
    second = p.run("preview")
    assert "5 unchanged" in second.stdout, second.stdout

    # The trainer runs here as the job would run it.
    out = tmp_path / "run"
    run = _trainspec(repo, "local-run", "specs/linefit.yaml", "--output", str(out))
    assert "acme trainer, args ['--epochs=3'] model dir" in run.stdout, run.stdout + run.stderr
    assert "now with early stopping" in run.stdout
