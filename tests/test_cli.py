"""The CLI contract: commands, streams, exit codes, nothing half-written."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compiler.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOOD = """apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: good-job, labels: {team: a}}
spec:
  region: us-central1
  container: {image: gcr.io/p/t:1}
  pools:
    chief: {accelerator: {type: T4}}
"""
BAD = """apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: bad-job}
spec:
  container: {image: gcr.io/p/t:1}
  pools:
    chief: {replicas: 3, machineTyp: n1-standard-4}
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "specs" / "team").mkdir(parents=True)
    (tmp_path / "specs" / "a.yaml").write_text(GOOD)
    (tmp_path / "specs" / "team" / "b.yml").write_text(GOOD.replace("good-job", "other-job"))
    (tmp_path / "specs" / "notes.txt").write_text("not a spec")
    return tmp_path


def test_validate_reports_every_problem_located(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(BAD)
    code, out, err = run("validate", str(f))
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert f"{f}:7:23: error: $.spec.pools.chief.replicas: the chief pool runs exactly 1 " \
           "replica, not 3" in lines[0]
    assert f"{f}:7:26: error: $.spec.pools.chief.machineTyp: unknown key 'machineTyp' " \
           "(did you mean 'machineType'?) [unknown-key]" in lines
    assert lines[-1] == "1 spec(s) checked, 1 with errors"


def test_validate_folders_recursively_and_json_format(tree: Path) -> None:
    code, out, err = run("validate", str(tree / "specs"), "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["ok"] is True and report["errors"] == 0
    assert [Path(f).name for f in report["files"]] == ["a.yaml", "b.yml"]


def test_validate_json_lists_located_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(BAD)
    code, out, _ = run("validate", str(tmp_path), "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False and report["errors"] == 2
    first = report["diagnostics"][0]
    assert (first["line"], first["column"], first["path"]) == (7, 23, "$.spec.pools.chief.replicas")


def test_validate_missing_path_and_empty_folder(tmp_path: Path) -> None:
    code, _, err = run("validate", str(tmp_path / "nope"))
    assert code == 1 and "no such file or directory" in err
    code, _, err = run("validate", str(tmp_path))
    assert code == 1 and "no *.yaml or *.yml spec found" in err


def test_compile_prints_only_the_body_on_stdout(tree: Path) -> None:
    code, out, err = run("compile", str(tree / "specs" / "a.yaml"))
    assert code == 0 and err == ""
    body = json.loads(out)
    assert body["displayName"] == "good-job"
    assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] == {
        "machineType": "n1-standard-4", "acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 1}


def test_compile_for_the_other_platform_with_project_and_region(tree: Path) -> None:
    spec = tree / "specs" / "a.yaml"
    spec.write_text(GOOD.replace("  region: us-central1\n", ""))
    code, out, err = run("compile", str(spec), "--platform", "ai-platform", "--region",
                         "us-east1", "--project", "acme-prod")
    assert code == 0, err
    body = json.loads(out)
    assert body["jobId"] == "good_job"
    assert body["trainingInput"]["region"] == "us-east1"
    assert body["trainingInput"]["masterConfig"]["acceleratorConfig"] == {
        "count": "1", "type": "NVIDIA_TESLA_T4"}


def test_compile_refuses_what_the_other_platform_cannot_express(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(GOOD.replace("  pools:", "  env: {A: b}\n  scheduling: {strategy: SPOT}\n  pools:"))
    code, out, err = run("compile", str(f), "--platform", "ai-platform")
    assert code == 1 and out == ""
    assert "$.spec.env: ai-platform has no environment variables" in err
    assert "$.spec.scheduling.strategy: strategy SPOT cannot be expressed on ai-platform" in err


def test_region_flag_is_a_default_not_an_override(tree: Path) -> None:
    code, out, err = run("compile", str(tree / "specs" / "a.yaml"), "--region", "europe-west4")
    assert code == 0
    assert "the spec sets region 'us-central1'; 'europe-west4'" in err


def test_compile_tree_writes_one_json_per_spec(tree: Path) -> None:
    out_dir = tree / "compiled"
    code, _, err = run("compile", str(tree / "specs"), "--out", str(out_dir))
    assert code == 0, err
    written = sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*.json"))
    assert written == ["a.json", "team/b.json"]
    assert json.loads((out_dir / "team" / "b.json").read_text())["displayName"] == "other-job"
    code, _, err = run("compile", str(tree / "specs"), "--out", str(out_dir), "--check")
    assert code == 0 and "up to date" in err


def test_compile_tree_writes_nothing_when_any_spec_fails(tree: Path) -> None:
    (tree / "specs" / "team" / "c.yaml").write_text(BAD)
    out_dir = tree / "compiled"
    code, _, err = run("compile", str(tree / "specs"), "--out", str(out_dir))
    assert code == 1
    assert "nothing written" in err
    assert not out_dir.exists()


def test_check_reports_stale_missing_and_orphaned_outputs(tree: Path) -> None:
    out_dir = tree / "compiled"
    assert run("compile", str(tree / "specs"), "--out", str(out_dir))[0] == 0
    (tree / "specs" / "a.yaml").write_text(GOOD.replace("team: a", "team: b"))
    (tree / "specs" / "team" / "b.yml").unlink()
    (tree / "specs" / "new.yaml").write_text(GOOD.replace("good-job", "new-job"))
    code, _, err = run("compile", str(tree / "specs"), "--out", str(out_dir), "--check")
    assert code == 1
    assert f"{out_dir / 'a.json'}: stale" in err
    assert f"{out_dir / 'new.json'}: missing" in err
    assert f"{out_dir / 'team' / 'b.json'}: no spec compiles to it any more" in err
    assert run("compile", str(tree / "specs"), "--out", str(out_dir))[0] == 0
    assert not (out_dir / "team" / "b.json").exists()
    assert run("compile", str(tree / "specs"), "--out", str(out_dir), "--check")[0] == 0


def test_only_files_trainspec_wrote_are_ever_removed(tree: Path) -> None:
    (tree / ".vscode").mkdir()
    (tree / ".vscode" / "settings.json").write_text("{}")
    (tree / "package.json").write_text("{}")
    code, _, err = run("compile", str(tree / "specs"), "--out", str(tree))
    assert code == 0, err
    assert (tree / "package.json").read_text() == "{}"
    assert (tree / ".vscode" / "settings.json").read_text() == "{}"
    assert (tree / "a.json").exists()


def test_compile_tree_refuses_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "compiled").mkdir()
    (tmp_path / "compiled" / "keep.json").write_text("{}")
    code, _, err = run("compile", str(tmp_path / "specs"), "--out", str(tmp_path / "compiled"))
    assert code == 1 and "no *.yaml or *.yml spec found" in err
    assert (tmp_path / "compiled" / "keep.json").exists()


def test_two_specs_with_the_same_output_name_are_refused(tree: Path) -> None:
    (tree / "specs" / "a.yml").write_text(GOOD.replace("good-job", "twin-job"))
    code, _, err = run("compile", str(tree / "specs"), "--out", str(tree / "compiled"))
    assert code == 1 and "both compile to a.json" in err
    assert not (tree / "compiled").exists()


def test_unwritable_out_dir_is_a_clean_error(tree: Path) -> None:
    (tree / "blocker").write_text("a file, not a folder")
    code, _, err = run("compile", str(tree / "specs"), "--out", str(tree / "blocker"))
    assert code == 1 and err.startswith("error: cannot write") and "Traceback" not in err


def test_explain_shows_defaults_and_why(tree: Path) -> None:
    code, out, _ = run("explain", str(tree / "specs" / "a.yaml"))
    assert code == 0
    assert "chief (pool 0)" in out and "1 × n1-standard-4 + 1 × T4" in out
    assert "n1-standard-4, the smallest machine that takes 1 × NVIDIA_TESLA_T4" in out
    assert "POST https://us-central1-aiplatform.googleapis.com/v1/projects/{project}" in out


def test_hostile_input_never_tracebacks(tmp_path: Path) -> None:
    f = tmp_path / "evil.yaml"
    f.write_bytes(b"spec: !!python/object/apply:os.system ['touch " + str(tmp_path).encode()
                  + b"/pwned']\n")
    for command in ("validate", "compile", "explain"):
        code, out, err = run(command, str(f))
        assert code == 1 and "Traceback" not in err and out == ""
    assert not (tmp_path / "pwned").exists()


def test_console_entry_point_runs_as_a_module(tree: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "compiler", "validate", str(tree / "specs")],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "2 spec(s) checked, 0 with errors"


def test_cli_does_not_import_pulumi(tree: Path) -> None:
    code = ("import sys; from compiler.cli import main; "
            f"main(['compile', {str(tree / 'specs' / 'a.yaml')!r}]); "
            "sys.stderr.write(str(sorted(m for m in sys.modules if m.startswith('pulumi'))))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.stderr == "[]"


def test_validate_refuses_two_jobs_with_one_identity(tmp_path: Path) -> None:
    ml = GOOD.replace("spec:\n", "spec:\n  platform: ai-platform\n")
    (tmp_path / "a.yaml").write_text(ml.replace("good-job", "census-v2"))
    (tmp_path / "b.yaml").write_text(ml.replace("good-job", "census_v2"))
    (tmp_path / "c.yaml").write_text(GOOD)
    (tmp_path / "d.yaml").write_text(GOOD)
    code, _, err = run("validate", str(tmp_path))
    assert code == 1
    assert f"{tmp_path / 'b.yaml'}:3:18: error: $.metadata.name: AI Platform jobId 'census_v2' " \
           f"is already used by {tmp_path / 'a.yaml'}" in err
    assert f"{tmp_path / 'd.yaml'}:3:18: error: $.metadata.name: job name 'good-job' is " \
           f"already used by {tmp_path / 'c.yaml'}" in err
    code, _, err = run("compile", str(tmp_path), "--out", str(tmp_path / "out"))
    assert code == 1 and not (tmp_path / "out").exists()


def test_explain_summarises_a_tuning_job() -> None:
    spec = ROOT / "tests" / "golden" / "hpt-vertex-every-field" / "spec.yaml"
    code, out, _ = run("explain", str(spec))
    assert code == 0
    assert "kind       HyperparameterTuningJob" in out
    assert "/locations/us-central1/hyperparameterTuningJobs" in out
    assert "pools (of every trial)" in out
    assert "    search      random, 64 trials, 8 in parallel, stop after 4 failed" in out
    assert "    parameters  learning_rate  double [1e-05, 0.1], log scale" in out
    assert "if batch_size in [64, 128]: decay double [1e-06, 0.01], log scale" in out
    code, out, _ = run("explain", str(ROOT / "tests/golden/err-hpt-grid/spec.yaml"), "--platform",
                       "vertex")
    assert code == 1 and out == ""


def run_stdin(data: bytes, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err, stdin=io.BytesIO(data))
    return code, out.getvalue(), err.getvalue()


def test_dash_reads_one_spec_from_stdin_for_validate_compile_and_explain(tree: Path) -> None:
    code, out, err = run_stdin(GOOD.encode(), "validate", "-")
    assert (code, out, err) == (0, "", "1 spec(s) checked, 0 with errors\n")
    code, out, err = run_stdin(GOOD.encode(), "compile", "-")
    assert code == 0 and err == ""
    assert json.loads(out) == json.loads(run("compile", str(tree / "specs" / "a.yaml"))[1])
    code, out, err = run_stdin(GOOD.encode(), "explain", "-")
    assert code == 0 and out.startswith("good-job  (<stdin>)\n")
    # Mixed with folders: the tree's rules (one job per name) include the stdin spec.
    code, _, err = run_stdin(GOOD.encode(), "validate", str(tree / "specs"), "-")
    assert code == 1 and "<stdin>:3:18: error: $.metadata.name: job name 'good-job' is " \
        f"already used by {tree / 'specs' / 'a.yaml'}" in err


def test_an_invalid_spec_on_stdin_is_located_as_stdin(tree: Path) -> None:
    for command in ("validate", "compile", "explain"):
        code, out, err = run_stdin(BAD.encode(), command, "-")
        assert code == 1 and out == "" and "Traceback" not in err
        assert "<stdin>:7:23: error: $.spec.pools.chief.replicas:" in err
    code, out, err = run_stdin(b"", "compile", "-")
    assert (code, out) == (1, "") and "<stdin>:1:1: error: $: empty file" in err
    code, _, err = run_stdin(b"\xff\xfe", "validate", "-")
    assert code == 1 and "<stdin>:1:1: error: $: not UTF-8" in err
    code, _, err = run_stdin(GOOD.encode(), "validate", "-", "-")
    assert code == 64 and "can be given once" in err  # a usage error
    code, _, err = run_stdin(GOOD.encode(), "compile", "-", "--out", str(tree / "o"))
    assert code == 64 and not (tree / "o").exists()


def test_dash_reads_the_real_stdin_of_the_process(tree: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "compiler", "compile", "-"], input=GOOD.encode(),
                          capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["displayName"] == "good-job"


def test_version_is_the_package_version() -> None:
    from compiler.version import VERSION
    with pytest.raises(SystemExit) as info:
        main(["--version"], io.StringIO(), io.StringIO())
    assert info.value.code == 0
    proc = subprocess.run([sys.executable, "-m", "compiler", "--version"], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert proc.stdout == f"trainspec {VERSION}\n"
    # pyproject.toml reads the version from compiler/version.py: one place.
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert "dynamic = [\"version\"]" in pyproject and "\nversion = \"" not in pyproject
    assert 'version = { attr = "compiler.version.VERSION" }' in pyproject


def test_a_project_from_the_command_line_is_validated_like_spec_project(tmp_path: Path) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(GOOD)
    code, out, err = run("compile", str(spec), "--project", "BAD PROJECT!!")
    assert code == 1 and out == ""
    assert "error: $.spec.project: --project / gcp:project 'BAD PROJECT!!' is not a project " \
           "id" in err and "[project-id]" in err
    code, out, err = run("compile", str(spec), "--project", "acme-ml-prod")
    assert code == 0, err


def test_a_missing_dependency_is_one_line_naming_it_not_a_traceback(monkeypatch,
                                                                    tmp_path) -> None:
    """A Python without trainspec's dependencies (e.g. `python3` outside the venv) hears which,
    once a spec needs it: detect-secrets judges a string its token patterns match (the
    generated tables settle every other spec exactly as detect-secrets would)."""
    import builtins
    import importlib.util
    import io

    from compiler import cli as cli_module
    from compiler.secrets import scan

    real_import, real_find_spec = builtins.__import__, importlib.util.find_spec

    def no_detect_secrets(name, *args, **kwargs):
        if name.startswith("detect_secrets"):
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_detect_secrets)
    monkeypatch.setattr(importlib.util, "find_spec",  # scan reads its version this way
                        lambda name, *a: None if name.startswith("detect_secrets")
                        else real_find_spec(name, *a))
    for cached in [f for f in vars(scan).values() if hasattr(f, "cache_clear")]:
        cached.cache_clear()
    out, err = io.StringIO(), io.StringIO()
    code = cli_module.main(["validate", "specs"], out, err)
    assert code == 0 and err.getvalue().endswith(" spec(s) checked, 0 with errors\n"), err.getvalue()
    assert "lacks" not in err.getvalue()

    spec = tmp_path / "token.yaml"
    spec.write_text(Path("specs/vision/resnet-a100-spot.yaml").read_text().replace(
        "  env:\n", "  env:\n    AWS_KEY: AKIAIOSFODNN7EXAMPLE\n", 1))
    out, err = io.StringIO(), io.StringIO()
    code = cli_module.main(["validate", str(spec)], out, err)
    assert code == 1 and "Traceback" not in err.getvalue()
    assert "lacks the package that provides 'detect_secrets" in err.getvalue()


def test_the_provider_plugin_without_the_pulumi_extra_is_one_line_naming_it() -> None:
    """`pip install trainspec` (no [pulumi]) then the engine starts the plugin: one line, exit 1.
    Run as its console script is, in a Python where no `pulumi` module can be imported."""
    script = textwrap.dedent("""\
        import sys
        from importlib.metadata import entry_points

        class NoPulumi:
            @staticmethod
            def find_spec(name, path=None, target=None):
                if name.split(".")[0] == "pulumi":
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)

        sys.meta_path.insert(0, NoPulumi)
        sys.argv = ["pulumi-resource-trainspec"]
        (plugin,) = entry_points(group="console_scripts", name="pulumi-resource-trainspec")
        sys.exit(plugin.load()())
        """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", "pulumi-resource-trainspec needs trainspec[pulumi]: pip install 'trainspec[pulumi]'\n")
