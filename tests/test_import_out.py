"""`import --out SPEC`: the imported spec written to a new file, a local trainer made relative
to it (tests/engine/test_adopt_engine.py imports a company's gcloud scripts into specs/ so)."""

from __future__ import annotations

import io

from compiler import cli

EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest"


def test_import_out_writes_a_new_spec_with_its_trainer_relative_to_it(tmp_path, monkeypatch):
    """gcloud reads local-package-path from where it runs; a spec's python.source is read from
    the spec's folder: `--out specs/x.yaml` writes it there (never over a file) and rebases."""
    (tmp_path / "trainer" / "trainer").mkdir(parents=True)
    (tmp_path / "trainer" / "pyproject.toml").write_text('[project]\nname = "t"\nversion = "1"\n')
    (tmp_path / "trainer" / "trainer" / "task.py").write_text("")
    (tmp_path / "Pulumi.yaml").write_text("name: acme\n")  # the spec's repository
    monkeypatch.chdir(tmp_path)
    words = ["--out", "specs/team/fit.yaml", "--", "gcloud", "ai", "custom-jobs", "create",
             "--region=us-central1", "--display-name=fit",
             f"--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={EXECUTOR},"
             "local-package-path=trainer,python-module=trainer.task"]
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["import", *words], out, err) == 0, err.getvalue()
    assert out.getvalue() == "" and "wrote specs/team/fit.yaml" in err.getvalue()
    text = (tmp_path / "specs" / "team" / "fit.yaml").read_text()
    assert "    source: ../../trainer\n" in text
    assert "trainer from where gcloud ran, relative to this spec's folder (--out)" in text
    # Checked where it was written: only the staging bucket is missing.
    assert "source-staging-bucket" in err.getvalue() and "source-folder" not in err.getvalue()
    err = io.StringIO()
    assert cli.main(["import", *words], io.StringIO(), err) == 1
    assert "import never overwrites a file" in err.getvalue()
    assert (tmp_path / "specs" / "team" / "fit.yaml").read_text() == text


def test_import_of_a_trainer_folder_trainspec_cannot_package_says_what_it_needs(tmp_path,
                                                                                 monkeypatch):
    """gcloud's autopackaging takes any folder (it copies it into an image); trainspec builds an
    sdist, so a folder without pyproject.toml is reported with the layout it needs, together
    with the missing staging bucket."""
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    (tmp_path / "trainer" / "task.py").write_text("")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["import", "--", "gcloud", "ai", "custom-jobs", "create",
                     "--region=us-central1", "--display-name=fit",
                     f"--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri="
                     f"{EXECUTOR},local-package-path=trainer,python-module=trainer.task"],
                    out, err) == 0, err.getvalue()
    assert "    source: trainer\n" in out.getvalue()
    lines = err.getvalue().splitlines()
    assert "[source-staging-bucket]" in lines[1]
    assert lines[2] == (
        "<imported spec>:17:13: error: $.spec.python.source: trainer: no package metadata: the "
        "folder has no pyproject.toml or setup.py (add trainer/pyproject.toml beside the "
        "package, with [project] name and version and [tool.setuptools] packages = "
        "[\"trainer\"], the code in trainer/trainer/task.py: the executor image pip-installs "
        "the sdist trainspec builds from the folder) [source-metadata]")
