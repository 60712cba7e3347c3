"""Rule codes (compiler/rules.yaml, loaded by compiler/rules.py): every diagnostic has one,
registered, with the severity its rule declares; every registered code is reachable;
docs/rules.md is the registry's.

The inputs are every golden case (both platforms), every spec under specs/, every
tests/golden-import command and every corpus entry (imported as it is, then compiled for both
platforms), plus the small cases below for rules those inputs do not reach.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import json
import os
import re
import shlex
import sys
from pathlib import Path
from unittest import mock

import pytest

from compiler import cli, pipeline, ruledoc, rules
from compiler.diagnostics import Diagnostic
from compiler.importers import decompile
from compiler.options import Options
from compiler.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
GOLDEN_IMPORT = ROOT / "tests" / "golden-import"
CORPUS = ROOT.parent / "shared" / "corpus"
TODAY = datetime.date(2026, 11, 22)
PLATFORMS = ("vertex", "ai-platform")


def _compile(text: str | bytes, name: str, platform: str | None = None) -> list[Diagnostic]:
    return pipeline.compile_text(text, name, Options(platform=platform), today=TODAY).diagnostics


def _imported(outcome: decompile.Outcome) -> list[Diagnostic]:
    found = list(outcome.diagnostics)
    if outcome.ok:
        for platform in PLATFORMS:
            found += _compile(outcome.text, "<imported>", platform)
    return found


def _golden(case: Path) -> list[Diagnostic]:
    blob = (case / "spec.yaml").read_bytes()
    return [d for p in PLATFORMS for d in _compile(blob, "spec.yaml", p)]


def _spec(path: Path) -> list[Diagnostic]:
    return pipeline.compile_file(str(path), today=TODAY).diagnostics


def _golden_import(case: Path) -> list[Diagnostic]:
    here = os.getcwd()
    os.chdir(case)  # --config names a file beside the command
    try:
        words = shlex.split((case / "command").read_text(encoding="utf-8"))
        return _imported(decompile.import_gcloud(words, []))
    finally:
        os.chdir(here)


def _corpus(path: Path) -> list[Diagnostic]:
    entry = json.loads(path.read_text(encoding="utf-8"))
    raw = entry.get("raw_text") if entry["kind"] == "gcloud-config" else None
    text, name = (raw, path.stem + ".yaml") if raw else (json.dumps(entry["config"]),
                                                         path.stem + ".json")
    return _imported(decompile.decompile(text, name))


INPUTS = {
    **{f"golden/{p.name}": (_golden, p) for p in sorted(GOLDEN.iterdir())
       if (p / "spec.yaml").is_file()},
    **{f"specs/{p.relative_to(ROOT / 'specs')}": (_spec, p)
       for p in sorted((ROOT / "specs").rglob("*.yaml"))},
    **{f"golden-import/{p.name}": (_golden_import, p) for p in sorted(GOLDEN_IMPORT.iterdir())
       if (p / "command").is_file()},
    **{f"corpus/{p.stem}": (_corpus, p) for p in sorted(CORPUS.glob("*.json"))},
}


_HERE = {Path(pipeline.__file__).parent / "diagnostics.py", Path(dataclasses.__file__)}


def _made_in() -> str:
    """The repository-relative file whose code made the Diagnostic being initialised."""
    frame = sys._getframe(2)
    while frame is not None and Path(frame.f_code.co_filename) in _HERE:
        frame = frame.f_back
    return str(Path(frame.f_code.co_filename).resolve().relative_to(ROOT)) if frame else "?"


@functools.cache
def diagnostics(name: str) -> tuple[Diagnostic, ...]:
    """The diagnostics of one input, each with `origin`: the file that made it."""
    init = Diagnostic.__init__

    def recording(self, *args, **kwargs):
        init(self, *args, **kwargs)
        object.__setattr__(self, "origin", getattr(self, "origin", None) or _made_in())

    run, path = INPUTS[name]
    with mock.patch.object(Diagnostic, "__init__", recording):
        return tuple(run(path))


def test_every_diagnostic_has_a_code() -> None:
    missing = [f"{name}: {d.format()} (made in {d.origin})" for name in INPUTS
               for d in diagnostics(name) if not d.code]
    assert missing == []


def test_every_code_emitted_is_registered_with_its_severity() -> None:
    found = [d for name in INPUTS for d in diagnostics(name) if d.code]
    assert {d.code for d in found} <= set(RULES)
    wrong = {(d.code, d.severity) for d in found if d.severity != RULES[d.code].severity}
    assert wrong == set()


# -- what the inputs above do not reach: the smallest case of each rule -------------------------

SPEC = """\
apiVersion: trainspec/v1
kind: TrainingJob
metadata: {name: job}
spec:
  region: us-central1
"""
CONTAINER = "  container: {image: gcr.io/p/t:1}\n"


def _python(image: str) -> str:
    return f"  python: {{packages: [gs://b/t.tar.gz], module: t, executorImage: '{image}'}}\n"


def _ml(pool: str, python: str = "  container: {image: gcr.io/p/t:1}\n") -> str:
    return SPEC + "  platform: ai-platform\n" + python + f"  pools:\n    chief: {pool}\n"


def _hpt(study_spec: str) -> str:
    """A HyperparameterTuningJob REST body with `study_spec` (JSON text) as its studySpec."""
    body = {"trialJobSpec": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
        "containerSpec": {"imageUri": "gcr.io/p/t:1"}}]}, "maxTrialCount": 2,
        "parallelTrialCount": 1}
    return json.dumps(body)[:-1] + f', "studySpec": {study_spec}}}'


_METRIC = '"metrics": [{"metricId": "m", "goal": "MAXIMIZE"}]'
_PARAM = '{"parameterId": "lr", "doubleValueSpec": {"minValue": 0.1, "maxValue": 1}}'


def _import(text: str, name: str = "job.json") -> list[Diagnostic]:
    return _imported(decompile.decompile(text, name))


def _repo(tmp: Path, files: dict[str, str], python: str = "  python: {source: ../trainer, "
          "module: trainer.task, executorImage: 'us-docker.pkg.dev/vertex-ai/training/"
          "ray-cpu.2-47.py311:latest'}\n") -> list[Diagnostic]:
    """A spec with python.source in a repository holding `files` (beside a good trainer)."""
    files = {"Pulumi.yaml": "name: p\nruntime: python\n", "specs/job.yaml": SPEC + python +
             "  stagingBucket: gs://acme-staging\n", "trainer/pyproject.toml":
             '[project]\nname = "t"\nversion = "1"\n', "trainer/trainer/__init__.py": "",
             "trainer/trainer/task.py": "", **files}
    for name, text in files.items():
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_text(text)
    here = os.getcwd()
    os.chdir(tmp)
    try:
        return list(pipeline.compile_file("specs/job.yaml", today=TODAY).diagnostics)
    finally:
        os.chdir(here)


def _options(text: str, **options) -> list[Diagnostic]:
    return pipeline.compile_text(text, "s.yaml", Options(**options), today=TODAY).diagnostics


_POOL = {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
         "containerSpec": {"imageUri": "gcr.io/p/t:1"}}


def _custom_job(*pools: dict, flags: tuple[str, ...] = ()) -> list[Diagnostic]:
    """A CustomJob REST body with `pools` as its workerPoolSpecs, imported with gcloud `flags`."""
    body = json.dumps({"displayName": "j", "jobSpec": {"workerPoolSpecs": list(pools)}})
    return list(decompile.decompile(body, "job.json", decompile.parse_flags(list(flags)))
                .diagnostics)


def _ml_job(**training_input) -> list[Diagnostic]:
    """An ml v1 Job REST body with `training_input` (and a region) as its trainingInput."""
    return _import(json.dumps({"jobId": "j", "trainingInput": {"region": "us-central1",
                                                               **training_input}}))


_TPU_V5E = "  pools:\n    chief: {machineType: ct5lp-hightpu-4t, tpuTopology: 2x2}\n"


class _Config:
    """Pulumi stack config as `pulumi_program.job_options` reads it."""

    def __init__(self, values: dict):
        self.values = values

    def get_object(self, key: str):
        return self.values.get(key)


def _job_options(values: dict) -> list[Diagnostic]:
    from compiler import pulumi_program

    return pulumi_program.job_options(_Config(values), {"job"})[1]


def _compile_specs(folder: Path) -> list[Diagnostic]:
    from compiler import pulumi_program

    return pulumi_program.compile_specs(str(folder), Options())[1]


def _catalog(problems, path: str = "$.spec.pools.chief") -> list[Diagnostic]:
    from compiler.diagnostics import Collector

    c = Collector()
    c.report(path, problems)
    return c.items


def _machines(*args):
    from compiler.catalog import machines

    return _catalog(machines.check_vertex(*args))


def _read(path: Path) -> list[Diagnostic]:
    from compiler.source import read as source

    return source.read(str(path))[1]


class _Unreadable:
    def read(self, _size: int) -> bytes:
        raise OSError(5, "Input/output error")


def _special_file(tmp: Path) -> list[Diagnostic]:
    os.makedirs(tmp / "trainer", exist_ok=True)
    os.mkfifo(tmp / "trainer" / "pipe")
    return _repo(tmp, {})


def _unreadable_source(tmp: Path) -> list[Diagnostic]:
    from unittest import mock

    # Run as root, chmod cannot refuse a listing: the OS's refusal is simulated.
    with mock.patch("os.scandir", side_effect=PermissionError(13, "Permission denied")):
        return _repo(tmp, {})


TRIGGERS = {
    "file-missing": lambda tmp: _read(tmp / "none.yaml"),
    "file-type": lambda tmp: _read(tmp),
    "file-name": lambda tmp: (tmp / "a\nb.yaml").write_text(SPEC) and _read(tmp / "a\nb.yaml"),
    "file-unreadable": lambda tmp: pipeline.compile_stream(_Unreadable()).diagnostics,
    "file-size": lambda tmp: _compile(SPEC + "#" * (1 << 20), "big.yaml"),
    "yaml-merge": lambda tmp: _compile(SPEC + "  <<: [1]\n" + CONTAINER, "s.yaml"),
    "yaml-recursive-alias": lambda tmp: _compile("a: &x [*x]\n", "s.yaml"),
    "yaml-value": lambda tmp: _compile(SPEC + "  project: !!int x\n" + CONTAINER, "s.yaml"),
    "required-key": lambda tmp: _compile(SPEC.replace("metadata: {name: job}\n", ""), "s.yaml"),
    "value-length": lambda tmp: _compile(SPEC + "  container: {image: ''}\n", "s.yaml"),
    "accelerator-type": lambda tmp: _compile(SPEC + CONTAINER + "  pools:\n    chief: "
                                             "{machineType: n1-standard-4, accelerator: "
                                             "{type: TPU_V2_POD, count: 8}}\n", "s.yaml"),
    "executor-image-prebuilt": lambda tmp: _compile(SPEC + _python("gcr.io/p/t:latest"), "s.yaml"),
    "executor-image-unknown": lambda tmp: _compile(SPEC + _python(
        "us-docker.pkg.dev/vertex-ai/training/tf-cpu.9-99.py310:latest"), "s.yaml"),
    "spot-tpu-pod": lambda tmp: _compile(SPEC + CONTAINER + "  scheduling: {strategy: SPOT}\n"
                                         "  pools:\n    chief: {machineType: cloud-tpu, "
                                         "accelerator: {type: TPU_V3, count: 32}}\n", "s.yaml"),
    "ml-legacy-accelerator": lambda tmp: _compile(_ml(
        "{machineType: standard_gpu, accelerator: {type: T4, count: 1}}"), "s.yaml"),
    "runtime-python-unverified": lambda tmp: _compile(_ml("{machineType: n1-standard-4}", (
        "  python: {packages: [gs://b/t.tar.gz], module: t, runtimeVersion: '9.9', "
        "pythonVersion: '3.7'}\n")), "s.yaml"),
    # A spec's accelerator always has both (normalize defaults the count) and a legacy machine
    # name is mapped before the check: these reach the catalog from its other callers.
    "accelerator-pair": lambda tmp: _machines("n1-standard-4", None, 2),
    "legacy-machine": lambda tmp: _machines("standard_gpu", None, None),
    "tpu-topology": lambda tmp: _machines("n1-standard-4", "NVIDIA_TESLA_T4", 1, "2x2"),
    "import-already-spec": lambda tmp: _import(SPEC + CONTAINER, "job.yaml"),
    "import-not-job-config": lambda tmp: _import('{"steps": []}'),
    "import-unknown-field": lambda tmp: _import(_hpt("{" + _METRIC + ', "parameters": [' +
                                                     _PARAM + '], "observationNoise": "HIGH"}')),
    "import-shape": lambda tmp: _import(_hpt("[]")),
    "import-enum-value": lambda tmp: _import(_hpt("{" + _METRIC + ', "parameters": [' + _PARAM +
                                                  '], "algorithm": "ANNEALING"}')),
    "import-required-field": lambda tmp: _import(_hpt('{"metrics": [{}], "parameters": [' +
                                                      _PARAM + "]}")),
    "import-unsupported": lambda tmp: _import(_hpt("{" + _METRIC + ', "parameters": [' +
                                                   _PARAM.replace('"maxValue": 1',
                                                                  '"maxValue": 1, '
                                                                  '"defaultValue": 0.5') + "]}")),
    "import-output-dir": lambda tmp: _import(json.dumps({
        "display_name": "j", "staging_bucket": "gs://b", "worker_pool_specs": [{
            "machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
            "container_spec": {"image_uri": "gcr.io/p/t:1"}}]})),
    "duplicate-job-name": lambda tmp: pipeline.check_set([
        pipeline.compile_text(SPEC + CONTAINER, f"{n}.yaml", today=TODAY) for n in "ab"]),
    "no-specs": lambda tmp: _compile_specs(tmp),
    "stack-option": lambda tmp: _job_options({"protect": "job"}),
    "stack-option-job": lambda tmp: _job_options({"retainOnDelete": ["other"]}),
    "source-no-repository": lambda tmp: _compile(SPEC + "  stagingBucket: gs://b\n  python: "
                                                 "{source: t, module: t, executorImage: 'us-"
                                                 "docker.pkg.dev/vertex-ai/training/ray-cpu.2-47."
                                                 "py311:latest'}\n", "<stdin>"),
    "source-outside-repository": lambda tmp: _repo(tmp, {}, "  python: {source: ../../x, module: "
                                                   "t, executorImage: 'us-docker.pkg.dev/vertex-"
                                                   "ai/training/ray-cpu.2-47.py311:latest'}\n"),
    "source-folder": lambda tmp: _repo(tmp, {}, "  python: {source: ../missing, module: t, "
                                       "executorImage: 'us-docker.pkg.dev/vertex-ai/training/"
                                       "ray-cpu.2-47.py311:latest'}\n"),
    "source-module-name": lambda tmp: _repo(tmp, {}, "  python: {source: ../trainer, module: "
                                            "'trainer..task', executorImage: 'us-docker.pkg.dev"
                                            "/vertex-ai/training/ray-cpu.2-47.py311:latest'}\n"),
    "source-nested-repository": lambda tmp: _repo(tmp, {"trainer/vendor/.git/HEAD": "ref\n"}),
    "source-special-file": _special_file,
    "source-unreadable": _unreadable_source,
    "repo-config": lambda tmp: (tmp / "trainspec.yaml").mkdir() or _repo(tmp, {}),
    # normalize: a pool's task inherits from the spec's, so the schema cannot require these.
    "missing-image": lambda tmp: _compile(SPEC + _python("gcr.io/p/t:1") + "  pools:\n    "
                                          "chief: {container: {command: [t]}}\n", "s.yaml"),
    "missing-package": lambda tmp: _compile(SPEC + CONTAINER + "  pools:\n    chief: {python: "
                                            "{module: t}}\n", "s.yaml"),
    "missing-module": lambda tmp: _compile(SPEC + CONTAINER + "  pools:\n    chief: {python: "
                                           "{packages: [gs://b/t.tar.gz]}}\n", "s.yaml"),
    "args-size": lambda tmp: _compile(SPEC + "  container: {image: gcr.io/p/t:1, args: [" +
                                      "a" * 100_001 + "]}\n", "s.yaml"),
    "env-count": lambda tmp: _compile(SPEC + CONTAINER + "  env: {" + ", ".join(
        f"V{i}: x" for i in range(101)) + "}\n", "s.yaml"),
    "label-count": lambda tmp: _compile(SPEC.replace("{name: job}", "{name: job, labels: {" +
                                                     ", ".join(f"k{i}: v" for i in range(63)) +
                                                     "}}") + CONTAINER, "s.yaml"),
    # The schema's duration pattern takes an empty string; a negative number is no duration.
    "duration-syntax": lambda tmp: _compile(SPEC + CONTAINER + "  scheduling: {timeout: -5}\n",
                                            "s.yaml"),
    "unused-staging-bucket": lambda tmp: _compile(SPEC + CONTAINER + "  stagingBucket: "
                                                  "gs://acme-staging\n", "s.yaml"),
    "option-ignored": lambda tmp: _options(SPEC + CONTAINER, region="europe-west4"),
    # targets: a TPU VM machine given a topology and no accelerator is checked by machine.
    "region-machine": lambda tmp: _compile(SPEC.replace("us-central1", "asia-east1") + CONTAINER
                                           + _TPU_V5E, "s.yaml"),
    "vertex-ignores-runtime": lambda tmp: _compile(SPEC + _python(
        "us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest").replace(
        "module: t", "module: t, runtimeVersion: '2.11'"), "s.yaml"),
    "job-id": lambda tmp: _compile(SPEC.replace("{name: job}", "{name: " + "j" * 126 +
                                                ", run: 2}") + CONTAINER, "s.yaml", "ai-platform"),
    # importers
    "import-pool-count": lambda tmp: _custom_job(*[_POOL] * 5),
    "import-empty-chief": lambda tmp: _custom_job({}, _POOL),
    "import-task-kind": lambda tmp: _custom_job({"machineSpec": _POOL["machineSpec"]}),
    "import-env-twice": lambda tmp: _custom_job({**_POOL, "containerSpec": {
        "imageUri": "gcr.io/p/t:1", "env": [{"name": "A", "value": "1"}, {"name": "A"}]}}),
    "import-trial-job-only": lambda tmp: _custom_job(_POOL, flags=("--trial-job-only",)),
    "gcloud-flag-api": lambda tmp: _custom_job(_POOL, flags=("--scale-tier", "basic")),
    "import-runtime-container": lambda tmp: _ml_job(masterConfig={"imageUri": "gcr.io/p/t:1"},
                                                    runtimeVersion="2.11"),
    "import-args": lambda tmp: _ml_job(scaleTier="CUSTOM", masterType="n1-standard-4",
                                       masterConfig={"imageUri": "gcr.io/p/t:1",
                                                     "containerArgs": ["a"]}, args=["b"]),
    # Reached by the corpus too, but the test must pass in a clone without ../shared/corpus.
    "import-no-task": lambda tmp: _ml_job(scaleTier="BASIC"),
    "import-no-region": lambda tmp: _import(json.dumps({"jobId": "j", "trainingInput": {
        "scaleTier": "BASIC", "masterConfig": {"imageUri": "gcr.io/p/t:1"}}})),
    "import-own-flags": lambda tmp: decompile.import_gcloud(
        ["gcloud", "ai", "custom-jobs", "create"], ["--project", "p"]).diagnostics,
}

# Registered rules no test input reaches, each with why.
UNREACHABLE = {
    "schema-rule": "the code of a JSON Schema keyword KEYWORD_CODES does not name: schema v1 "
                   "uses none (tested by keyword below)",
}


@pytest.mark.parametrize("code", sorted(TRIGGERS))
def test_each_rule_has_a_case(code: str, tmp_path: Path) -> None:
    found = TRIGGERS[code](tmp_path)
    assert code in {d.code for d in found}, [d.format() for d in found]
    assert all(d.severity == RULES[d.code].severity for d in found if d.code)


def test_every_registered_code_is_reached() -> None:
    """No dead codes: each rule is emitted by an input above, by its case in TRIGGERS, or by a
    test elsewhere that expects its `[code]` in a diagnostic (or is listed as unreachable)."""
    emitted = {d.code for name in INPUTS for d in diagnostics(name)}
    expected = set()
    for test in (ROOT / "tests").rglob("test_*.py"):  # the engine tests too
        expected |= set(re.findall(r"\[([a-z0-9-]+)\]", test.read_text(encoding="utf-8")))
    reached = (emitted | set(TRIGGERS) | expected) & set(RULES)
    assert set(RULES) - reached == set(UNREACHABLE)
    assert set(UNREACHABLE) <= set(RULES)


def test_schema_keywords_each_have_a_code() -> None:
    """schema-rule is only for a keyword a future schema adds: v1 uses none."""
    from compiler.schema import validate as schemas

    used: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            used.update(k for k in node if k in VALIDATION_KEYWORDS)
            for k, v in node.items():
                if k not in ("properties", "$defs") or isinstance(v, dict):
                    walk(v)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(schemas.schema())
    assert used and used <= set(schemas.KEYWORD_CODES)
    assert set(schemas.KEYWORD_CODES.values()) <= set(RULES)


VALIDATION_KEYWORDS = {"type", "enum", "const", "pattern", "minimum", "maximum",
                       "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
                       "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties",
                       "required", "additionalProperties", "propertyNames", "dependentRequired",
                       "oneOf", "anyOf", "not", "if", "contains", "multipleOf", "format"}
# allOf is not among them: jsonschema reports a failed allOf branch as that branch's own errors
# (a `pattern` inside allOf fails as `pattern`).


def test_the_registry_is_well_formed() -> None:
    for code, rule in RULES.items():
        assert code == rule.code and re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", code), code
        assert rule.severity in ("error", "warning") and rule.summary and rule.source, code


_ROW = "  - {code: a-b, severity: error, summary: s, source: trainspec}\n"


@pytest.mark.parametrize(("text", "error"), [
    ("x:\n" + _ROW.replace("error", "fatal"),
     "rules.yaml:2: section 'x': severity 'fatal' of a-b is neither 'error' nor 'warning'"),
    ("x:\n" + _ROW.replace("a-b", "a_b"), "rules.yaml:2: section 'x': code 'a_b' is not "
     "kebab-case (lower-case letters and digits, words joined by '-')"),
    ("x:\n" + _ROW.replace(", source: trainspec", ""), "rules.yaml:2: section 'x': a rule is a "
     "mapping with exactly the keys code, severity, summary and source (and optionally tunable), "
     "not keys code, severity, summary"),
    ("x:\n" + _ROW.replace("}", ", hint: h}"), "rules.yaml:2: section 'x': a rule is a mapping "
     "with exactly the keys code, severity, summary and source (and optionally tunable), not "
     "keys code, severity, summary, source, hint"),
    ("x:\n  - a-b\n", "rules.yaml:2: section 'x': a rule is a mapping with exactly the keys "
     "code, severity, summary and source (and optionally tunable), not 'a-b'"),
    ("x:\n" + _ROW.replace("}", ", tunable: false}"), "rules.yaml:2: section 'x': tunable is "
     "written only as `tunable: true`, on an error rule (a warning can always be tuned), not "
     "on a-b"),
    ("x:\n" + _ROW.replace("error", "warning").replace("}", ", tunable: true}"),
     "rules.yaml:2: section 'x': tunable is written only as `tunable: true`, on an error rule"),
    ("x:\n" + _ROW.replace("summary: s", "summary: ''"),
     "rules.yaml:2: section 'x': summary is not a non-empty string: ''"),
    ("x:\n" + _ROW.replace("summary: s", "summary: 3"),
     "rules.yaml:2: section 'x': summary is not a non-empty string: 3"),
    ("x:\n  - code: a-b\n    severity: error\n    severity: warning\n    summary: s\n"
     "    source: trainspec\n", "rules.yaml:4: key 'severity' written twice in one mapping"),
    ("x:\n" + _ROW + "y:\n" + _ROW, "rules.yaml: rule code 'a-b' declared twice (again in "
     "section 'y')"),
    ("x: []\n", "rules.yaml:1: section 'x' is not a non-empty list of rules"),
    ("- " + _ROW.strip(" -"), "rules.yaml: the registry is a mapping of named sections, each a "
     "list of rules"),
    ("", "rules.yaml: the registry is a mapping of named sections, each a list of rules"),
    ("x: [\n", "rules.yaml: not valid YAML: while parsing a flow node"),
    ("x: 0x_\n", "rules.yaml: not valid YAML: invalid literal for int() with base 16"),
    ("x: !!bool maybe\n", "rules.yaml: not valid YAML: 'maybe'"),
])
def test_a_malformed_registry_file_is_refused_with_where_and_why(text: str, error: str) -> None:
    with pytest.raises(rules.RegistryError) as info:
        rules.table(rules.load(text))
    assert str(info.value).startswith(error), str(info.value)


def test_the_registry_file_is_packaged() -> None:
    """An installed wheel has compiler/rules.yaml (pyproject.toml package-data)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert rules.FILE.name in data["tool"]["setuptools"]["package-data"]["compiler"]
    assert rules.FILE.parent == ROOT / "compiler"


def test_docs_rules_md_is_generated_from_the_registry() -> None:
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == ruledoc.markdown(), "run: python -m compiler rules --markdown > docs/rules.md"
    assert all(f"| `{code}` |" in committed for code in RULES)


def test_rules_command_lists_and_explains_codes(capsys) -> None:
    assert cli.main(["rules"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert len(listing) == len(RULES)
    assert listing[0].split()[:2] == ["accelerator-count", "error"]
    assert cli.main(["rules", "tpu-topology"]) == 0
    assert capsys.readouterr().out == (
        "tpu-topology (error, may be silenced)\n  a tpuTopology the TPU VM machine allows, and "
        "only on TPU VM machines\n  source: facts §A.7 ✅\n")
    assert cli.main(["rules", "tpu-topolgy"]) == 1
    assert capsys.readouterr().err == ("error: unknown rule code 'tpu-topolgy' (did you mean "
                                       "'tpu-topology'?)\n")


def test_the_code_is_in_text_and_json_output(tmp_path: Path, capsys) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC + CONTAINER + "  pools:\n    chief: {machineTyp: n1-standard-4}\n")
    assert cli.main(["validate", str(spec)]) == 1
    assert capsys.readouterr().err.splitlines()[0] == (
        f"{spec}:8:13: error: $.spec.pools.chief.machineTyp: unknown key 'machineTyp' (did you "
        "mean 'machineType'?) [unknown-key]")
    assert cli.main(["validate", "--format", "json", str(spec)]) == 1
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [(d["code"], d["path"]) for d in found] == [
        ("unknown-key", "$.spec.pools.chief.machineTyp")]


def _code_literals() -> dict[str, str]:
    """Every string written as a diagnostic's `code=` in compiler/ (both arms of a conditional
    too): code → where."""
    import ast

    found: dict[str, str] = {}
    for path in sorted((ROOT / "compiler").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "code":
                for leaf in ast.walk(node.value):
                    if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
                        found.setdefault(leaf.value, f"{path.relative_to(ROOT)}:{leaf.lineno}")
    return found


def test_every_code_written_in_the_compiler_is_registered() -> None:
    """A typo in a code fails here, without an input that reaches the rule."""
    literals = _code_literals()
    assert len(literals) > 100  # the walk finds the codes (not an empty pass)
    unknown = {code: where for code, where in literals.items() if code not in RULES}
    assert not unknown, unknown
