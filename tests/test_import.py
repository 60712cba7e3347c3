"""`import` against the shared corpus of real configs: valid ones round-trip, invalid ones are
refused after import with a message naming the real problem.

Round trip: import the source (with the gcloud flags its command implies), compile the spec for
the source API, compare with the source request modulo the documented equivalences (`canon`):
64-bit integers as strings or numbers; empty lists, zero counts and *_UNSPECIFIED enums count as
absent; an ml ReplicaConfig.imageUri equal to masterConfig.imageUri counts as absent (the API
default); ml scaleTier BASIC counts as absent (the proto default, value 0: the server echo drops
it, corpus 035), so does hyperparameterMetricTag training/hptuning/metric (the API default the
import writes out, corpus 025); a jobId / displayName the source does not carry (gcloud's JOB argument and
--display-name, SDK arguments outside the dict) is not compared.
"""

from __future__ import annotations

import copy
import io
import json
import os
import shlex
from pathlib import Path

import pytest

from compiler import cli, pipeline
from compiler.importers import decompile, sources
from compiler.options import Options
from compiler.report import format_text

# Beside the clone; TRAINSPEC_CORPUS names it for a checkout elsewhere (a git worktree).
CORPUS = Path(os.environ.get("TRAINSPEC_CORPUS")
              or Path(__file__).resolve().parents[2] / "shared" / "corpus")
ENTRIES = {p.stem: json.loads(p.read_text()) for p in sorted(CORPUS.glob("*.json"))}
pytestmark = pytest.mark.skipif(not ENTRIES, reason=f"no corpus at {CORPUS}")


def _deep_merge(base: dict, add: dict) -> dict:
    for k, v in add.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _deep_merge(base[k], v)
        else:
            base[k] = copy.deepcopy(v)
    return base


# -- the gcloud flags each entry implies: (argv, what gcloud adds to the request) -----------
def _flags(*parts: tuple[list[str], dict]) -> tuple[list[str], dict]:
    argv: list[str] = []
    patch: dict = {}
    for more, add in parts:
        argv += more
        _deep_merge(patch, add)
    return argv, patch


def region(r: str = "us-central1"):
    return ["--region", r], {"trainingInput": {"region": r}}


def py(runtime: str = "2.11", python: str = "3.7"):
    """The trainer package gcloud staged from --package-path, as --packages."""
    pkg = "gs://example-bucket/staging/trainer-0.1.tar.gz"
    return (["--module-name", "trainer.task", "--packages", pkg, "--runtime-version", runtime,
             "--python-version", python],
            {"trainingInput": {"pythonModule": "trainer.task", "packageUris": [pkg],
                               "runtimeVersion": runtime, "pythonVersion": python}})


def rt(python: str):
    """Only --python-version: the file has its runtimeVersion."""
    return ["--python-version", python], {"trainingInput": {"pythonVersion": python}}


def flag(name: str, value: str, patch: dict):
    return [name, value], patch


ML_PY = _flags(region(), py())
FLAGS: dict[str, tuple[list[str], dict]] = {
    **{k: ML_PY for k in ("001-cloudml-template-basic", "002-census-hptuning",
                          "004-criteo-legacy-large-ps", "005-criteo-legacy-single",
                          "006-movielens-legacy-gpu-ps", "007-movielens-gpu-hypertune",
                          "008-rl-demo-hptuning-no-scaletype", "009-tpu-resnet-hptuning",
                          "010-penguins-tfkeras-hptuning",
                          "011-sklearn-notebook-hptuning-categorical-flow",
                          "012-aips-structured-basic", "013-aips-structured-distributed-ce",
                          "014-aips-structured-gpu-t4", "015-aips-structured-tpu",
                          "016-aips-sklearn-hptuning-metric-with-spaces",
                          "024-tda-asl-energy-standard1-hptuning",
                          "025-tda-feateng-no-metric-tag", "030-formigone-p100-legacy",
                          "032-gfw-10-gpu-workers", "033-docs-machine-types-evaluator",
                          "034-cloudml-tpu-standard_tpu-obsolete")},
    # runtimeVersion (and pythonVersion) written in the file: only the package comes from flags.
    "003-sklearn-template-hptuning": _flags(region(), py("1.13", "3.5")),
    "026-dcblstm-legacy-ps-runtime21": _flags(region(), py("2.1", "3.7")),  # its command line
    "027-dcblstm-hptuning-maxfailed": _flags(region(), py("2.1", "3.7")),
    "029-daangn-runtime16-gpu-workers": _flags(region(), py("1.6", "2.7")),
    "031-gfw-embedded-template-v100": _flags(region(), py("1.12", "2.7")),
    # region is in the file.
    "028-widendeep-region-in-traininginput": _flags(py()),
    # custom containers: only the region (gcloud's --region) comes from the command line.
    **{k: _flags(region()) for k in ("018-pytorch-published-container-basic",
                                     "020-aips-reduction-server-a100",
                                     "021-seed-rl-atari-p100-hp-as-args",
                                     "022-seed-rl-mujoco-legacy-p100",
                                     "023-hypertune-sitecustomize-basic-container")},
    # the entry's command line: --master-image-uri ... --scale-tier BASIC
    "019-aips-pytorch-hptuning-heredoc": _flags(region(), (
        ["--master-image-uri", "gcr.io/cloud-ml-public/training/pytorch-cpu.1-4",
         "--scale-tier", "BASIC"],
        {"trainingInput": {"masterConfig": {"imageUri":
                                            "gcr.io/cloud-ml-public/training/pytorch-cpu.1-4"},
                           "scaleTier": "BASIC"}})),
    # incomplete-standalone: the companion submit script's flags (validity_notes).
    "017-aips-custom-container-hypertune-no-master": _flags(region(), (
        ["--master-machine-type", "n1-highmem-8",
         "--master-accelerator", "count=1,type=nvidia-tesla-v100",
         "--master-image-uri", "gcr.io/example-project/resnet-hypertune:latest"],
        {"trainingInput": {"masterType": "n1-highmem-8", "masterConfig": {
            "acceleratorConfig": {"count": 1, "type": "NVIDIA_TESLA_V100"},
            "imageUri": "gcr.io/example-project/resnet-hypertune:latest"}}})),
    # Vertex gcloud files: the entry's command line.
    "057-vas-persistent-resource-cli-args-scalar": _flags(
        (["--region", "us-central1", "--display-name", "Single CPU Job",
          "--labels", "presistent_resource_job=true"],
         {"displayName": "Single CPU Job", "labels": {"presistent_resource_job": "true"}})),
    "077-vertex-jumpstart-mapping-env": _flags(
        (["--region", "us-central1", "--display-name", "pytorch-training-job"],
         {"displayName": "pytorch-training-job"})),
    "080-dtu2026-t4-list-europe-north2": _flags((["--region", "europe-north2"], {})),
    # gcloud ai hp-tuning-jobs create: the entries' command lines (flags go to the tuning job,
    # --service-account to its trialJobSpec, as gcloud's --log-http body shows).
    "058-vas-pytorch-hptuning-gcloud-v100": _flags(
        (["--region", "us-central1", "--display-name", "pytorch-hpt", "--algorithm",
          "algorithm-unspecified", "--max-trial-count", "5", "--parallel-trial-count", "2"],
         {"displayName": "pytorch-hpt", "maxTrialCount": 5, "parallelTrialCount": 2,
          "studySpec": {"algorithm": "ALGORITHM_UNSPECIFIED"}})),
    # The script passes --service-account=account, a placeholder: an email stands in for it.
    "081-heatmap-vertex-hpt-degenerate": _flags(
        (["--region", "us-central1", "--display-name", "heatmap-hpt", "--max-trial-count", "64",
          "--parallel-trial-count", "64", "--service-account",
          "trainer@example-project.iam.gserviceaccount.com"],
         {"displayName": "heatmap-hpt", "maxTrialCount": 64, "parallelTrialCount": 64,
          "trialJobSpec": {"serviceAccount": "trainer@example-project.iam.gserviceaccount.com"}})),
}

# Placeholders in fields trainspec validates (gs:// URIs, names, durations, counts, machine
# types): replaced by concrete values in the source before import. Elsewhere they stay verbatim.
SUBSTITUTE: dict[str, dict[str, str]] = {
    "041-fmltc-basic-tpu-scheduling": {"${TRAIN_JOB_ID}": "train_job_1",
                                       "${MODEL_DIR}": "gs://example-bucket/model",
                                       "${MAX_RUNNING_MINUTES*60}": "3600"},
    "042-fmltc-basic-gpu-eval-k80": {"${EVAL_JOB_ID}": "eval_job_1",
                                     "${MODEL_DIR}": "gs://example-bucket/model"},
    "052-vas-hpt-xgboost-python-package-disk": {"${BUCKET_URI}": "gs://example-bucket"},
    "053-vas-torchrun-t4-multinode": {"${BUCKET_URI}": "gs://example-bucket"},
    "054-vas-torchrun-t4-reduction-server": {"${BUCKET_URI}": "gs://example-bucket"},
    "057-vas-persistent-resource-cli-args-scalar": {"${PERSISTENT_RESOURCE_ID}": "example-pr"},
    "058-vas-pytorch-hptuning-gcloud-v100": {"$JOB_DIR": "gs://example-bucket/job"},
    "061-vas-mg-eval-l4x8-env-disk": {"${eval_output_dir}": "gs://example-bucket/eval",
                                      "${...}": "v1"},
    "062-vas-mg-train-h100x8-flexstart": {
        "${SERVICE_ACCOUNT}": "trainer@example-project.iam.gserviceaccount.com",
        "${STAGING_BUCKET}": "gs://example-bucket"},
    "064-vas-weathernext-persistent-a100-80gb": {"${PERSISTENT_RESOURCE_ID}": "example-pr"},
    "066-vas-dask-xgboost-web-dashboard": {"${BUCKET_URI}": "gs://example-bucket"},
    "070-pyaip-sdk-psc-interface": {'"${replica_count}"': "1",
                                    "${machine_type}": "n1-standard-4"},
    "086-issue-tfx-6285-persistent-a100": {"<redacted>": "example-project"},
    "076-pyaip-sdk-persistent-resource-k80": {
        "${persistent_resource_id}": "example-pr",
        "${service_account}": "trainer@example-project.iam.gserviceaccount.com"},
}
# Vertex entries compiled with a region: the source's where it names one, else us-central1.
VERTEX_REGION = {"080-dtu2026-t4-list-europe-north2": "europe-north2",
                 "074-pyaip-fixture-tpu-v3-32": "europe-west4"}

# Entries that fail because of a compiler bug (strict xfail: the marker goes when it is fixed).
# Empty: 018/019/023 (container on BASIC), 020 (A2 + A100 on ml v1), 021 (P100 on ml v1), 042
# (BASIC_GPU refused) and 071/072 (short KMS key) were fixed in the compiler.
COMPILER_BUGS: dict[str, str] = {}

# questionable / gcloud-lenient entries: the decision per file, and why.
DECIDED = {
    "057-vas-persistent-resource-cli-args-scalar": ("round-trip", "gcloud wraps the scalar "
                                                   "args into a list; import replays that"),
    "077-vertex-jumpstart-mapping-env": ("round-trip", "gcloud reads the single pool mapping "
                                        "as a one-pool list; import replays that"),
    "078-dtu-mlops-cpu-env-literal-dollar": ("round-trip", "'$WANDB_API_KEY' is a literal "
                                            "string both to gcloud and to trainspec"),
    "079-autobird-t4-mapping": ("round-trip", "single pool mapping, as 077"),
    "074-pyaip-fixture-tpu-v3-32": ("round-trip", "Vertex lists TPU v3 Pod (32 cores) slices "
                                   "on cloud-tpu in europe-west4 only; compiled there it holds "
                                   "(in us-central1 it is refused: test_tpu_pod_region)"),
    "080-dtu2026-t4-list-europe-north2": ("refused", "T4 is not offered for Vertex training "
                                         "in europe-north2 (the catalog's region table)"),
    "081-heatmap-vertex-hpt-degenerate": ("round-trip", "ranges of one value (min == max) are "
                                         "accepted with a warning each: Vertex's acceptance is "
                                         "not verified; AI Platform accepted them (021, 022)"),
    "086-issue-tfx-6285-persistent-a100": ("round-trip", "persistentResourceId is a v1 "
                                          "CustomJobSpec field today"),
}

# invalid / invalid-today (and refused questionable) entries: a phrase the refusal must hold,
# naming the problem validity_notes gives.
REFUSED: dict[str, str] = {
    # issue 8 §5: the unknown legacy name standard_tpu and the region us-central-a rest on the
    # unverified legacy tables (facts §B.5, §B.8) and are warnings now; these entries stay
    # refused for the verified problems that remain.
    "034-cloudml-tpu-standard_tpu-obsolete": "mixes AI Platform legacy machine names",
    "037-vas-uj2-legacy-rest-k80": "NVIDIA_TESLA_K80 is retired",
    "039-tfcloud-expected-body-k80": "'custom' is not one of",
    "040-tfcloud-expected-body-tpu": "'custom' is not one of",
    "046-vas-uj2-rest-k80-python-package": "NVIDIA_TESLA_K80 is retired",
    "048-vas-distributed-multiworker-cmd-string": "command: expected a list, got a string",
    "049-vas-distributed-reduction-server-pool": "command: expected a list, got a string",
    "067-vas-gapic-hpt-k80-grid": "NVIDIA_TESLA_K80 is retired",
    "068-pyaip-gapic-create-custom-job-k80": "NVIDIA_TESLA_K80 is retired",
    "069-pyaip-gapic-hpt-conditional-params-k80": "NVIDIA_TESLA_K80 is retired",
    "071-pyaip-fixture-full-jobspec": "key_1234",
    "072-pyaip-fixture-spot-strategy": "key_1234",
    "075-pyaip-fixture-reservation-affinity": "NVIDIA_TESLA_K80 is retired",
    "076-pyaip-sdk-persistent-resource-k80": "NVIDIA_TESLA_K80 is retired",
    "080-dtu2026-t4-list-europe-north2": "'europe-north2' is not a Vertex AI training region",
    "082-ainu-lm-a100-on-n1-invalid": "NVIDIA_TESLA_A100",
    "085-issue-pyaip-1922-e2-k80": "NVIDIA_TESLA_K80 is retired",
}
# A second phrase where validity_notes names more than one real problem.
REFUSED_ALSO: dict[str, str] = {
    "039-tfcloud-expected-body-k80": "NVIDIA_TESLA_K80 is retired",
    "071-pyaip-fixture-full-jobspec": "$.spec.network",
    "082-ainu-lm-a100-on-n1-invalid": "n1-standard-4",
}

# invalid-today entries whose only problem rests on an unverified fact (facts reference status
# ◐/❌): compiled, with a warning holding this phrase (issue 8 §5: such facts never refuse).
WARNED: dict[str, str] = {
    # BASIC_GPU = one K80 is from older docs (facts §B.3 ◐); fmltc issue #318 shows the failure.
    "042-fmltc-basic-gpu-eval-k80": "scaleTier BASIC_GPU ran on a K80 GPU",
}

ROUND_TRIP = sorted(k for k, e in ENTRIES.items()
                    if e["validity"] in ("valid", "incomplete-standalone")
                    or DECIDED.get(k, ("",))[0] == "round-trip" or k in WARNED)
REFUSE = sorted(k for k, e in ENTRIES.items()
                if (e["validity"] in ("invalid", "invalid-today")
                    or DECIDED.get(k, ("",))[0] == "refused") and k not in WARNED)


# -- helpers ------------------------------------------------------------------------------------
def source_text(key: str) -> tuple[str, str]:
    """(text, file name) of an entry: gcloud files as written (raw_text) when it parses to the
    recorded config, else the recorded config (031 is a YAML document embedded in another, 021
    a heredoc with shell variables); request bodies and SDK dicts as JSON."""
    import yaml

    e = ENTRIES[key]
    if e["kind"] == "gcloud-config":
        raw = e.get("raw_text") or ""
        try:
            same = yaml.safe_load(raw) == e["config"]
        except yaml.YAMLError:
            same = False
        text, name = (raw if same else json.dumps(e["config"], indent=2)), key + ".yaml"
    else:
        text, name = json.dumps(e["config"], indent=2), key + ".json"
    for old, new in SUBSTITUTE.get(key, {}).items():
        text = text.replace(old, new)
    return text, name


def source_config(key: str) -> dict:
    import yaml

    return yaml.safe_load(source_text(key)[0])


def import_entry(key: str, extra: list[str] = ()) -> decompile.Outcome:
    argv, _ = FLAGS.get(key, ([], {}))
    argv = list(argv) + list(extra)
    text, name = source_text(key)
    return decompile.decompile(text, name, decompile.parse_flags(argv))


INT64 = {"replicaCount", "acceleratorCount", "count", "bootDiskSizeGb", "workerCount",
         "parameterServerCount", "evaluatorCount"}
INT64_BOUNDS = {"minValue", "maxValue"}  # IntegerValueSpec: "4" or 4 (gcloud files write 4)


def canon(value, key: str = ""):
    """The documented equivalences, applied to both sides."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = canon(v, k)
            if v in (None, [], {}) or (isinstance(v, str) and v.endswith("_UNSPECIFIED")):
                continue
            if k in INT64 and v == 0:
                continue
            out[k] = v
        if key == "acceleratorConfig" and "count" not in out and "type" not in out:
            return {}
        return out
    if isinstance(value, list):
        return [canon(v) for v in value]
    if key in INT64 | INT64_BOUNDS and isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return value


def canon_ml(body: dict) -> dict:
    body = canon(body)
    tin = body.get("trainingInput", {})
    if tin.get("scaleTier") == "BASIC":
        del tin["scaleTier"]
    hp = tin.get("hyperparameters") or {}
    if hp.get("hyperparameterMetricTag") == "training/hptuning/metric":
        del hp["hyperparameterMetricTag"]
    master = (tin.get("masterConfig") or {}).get("imageUri")
    for cfg in ("workerConfig", "parameterServerConfig", "evaluatorConfig"):
        c = tin.get(cfg)
        if isinstance(c, dict) and c.get("imageUri") == master:
            del c["imageUri"]
            if not c:
                del tin[cfg]
    for role in ("worker", "parameterServer", "evaluator"):
        if f"{role}Type" in tin and f"{role}Count" not in tin:
            pass
    return body


def expected_request(key: str, src: sources.Source) -> dict:
    """The request the source stands for: the body itself, or the gcloud file plus what the
    entry's flags add, or (SDK) the request the SDK arguments build."""
    e = ENTRIES[key]
    _, patch = FLAGS.get(key, ([], {}))
    config = source_config(key)
    if e["api"] == "ai-platform" or "trialJobSpec" in config:
        return _deep_merge(config, patch)  # the body, or the gcloud file plus its flags
    if e["kind"] == "sdk-dict":  # mechanical; see test_sdk_*
        request = src.tuning_request() if src.kind == "vertex-hpt" else src.request
        return _deep_merge(copy.deepcopy(request), patch)
    if e["kind"] == "gcloud-config":
        return _deep_merge({"jobSpec": src.request["jobSpec"]}, patch)
    return _deep_merge(config, patch)


def compile_spec(text: str, platform: str, region: str | None = None) -> pipeline.Result:
    return pipeline.compile_text(text, "<imported>", Options(platform=platform, region=region))


# -- the corpus contract ---------------------------------------------------------------------
def test_every_entry_has_a_decision():
    """Every corpus entry is either round-tripped or refused (none silently skipped)."""
    assert set(ROUND_TRIP) | set(REFUSE) == set(ENTRIES)
    assert not set(ROUND_TRIP) & set(REFUSE)
    assert set(REFUSED) == set(REFUSE)


def _cases(keys):
    return [pytest.param(k, marks=pytest.mark.xfail(reason=COMPILER_BUGS[k], strict=True))
            if k in COMPILER_BUGS else k for k in keys]


@pytest.mark.parametrize("key", _cases(ROUND_TRIP))
def test_round_trip(key):
    e = ENTRIES[key]
    outcome = import_entry(key)
    assert outcome.ok, "\n".join(d.format() for d in outcome.diagnostics)
    region = None if e["api"] == "ai-platform" else VERTEX_REGION.get(key, "us-central1")
    result = compile_spec(outcome.text, e["api"], region)
    assert result.ok, outcome.text + "\n" + "\n".join(d.format() for d in result.diagnostics)
    if key in WARNED:
        assert any(WARNED[key] in d.message and not d.is_error for d in result.diagnostics)
    text, name = source_text(key)
    src, _ = sources.load(text, name)
    want = expected_request(key, src)
    got = copy.deepcopy(result.body)
    if e["api"] == "ai-platform":
        if "jobId" not in want:
            got.pop("jobId")
        assert canon_ml(got) == canon_ml(want), outcome.text
    else:
        if "displayName" not in want:
            got.pop("displayName")
        assert canon(got) == canon(want), outcome.text


@pytest.mark.parametrize("key", _cases(REFUSE))
def test_refused_after_import(key):
    outcome = import_entry(key)
    e = ENTRIES[key]
    if outcome.ok:
        region = None if e["api"] == "ai-platform" else VERTEX_REGION.get(key, "us-central1")
        result = compile_spec(outcome.text, e["api"], region)
        assert not result.ok, outcome.text
        messages = "\n".join(d.format() for d in result.errors)
    else:
        messages = "\n".join(d.format() for d in outcome.diagnostics)
    assert REFUSED[key] in messages, messages
    if key in REFUSED_ALSO:
        assert REFUSED_ALSO[key] in messages, messages


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_import_is_deterministic(key):
    first, second = import_entry(key), import_entry(key)
    assert first.text == second.text and first.diagnostics == second.diagnostics


@pytest.mark.parametrize("key", sorted(k for k, e in ENTRIES.items() if e.get("placeholders")))
def test_placeholders_stay_verbatim(key):
    """Without substitution, string placeholders are copied as written."""
    e = ENTRIES[key]
    text = e["raw_text"] if e["kind"] == "gcloud-config" else json.dumps(e["config"])
    argv = FLAGS.get(key, ([], {}))[0]
    outcome = decompile.decompile(text, key + ".json", decompile.parse_flags(argv))
    if outcome.text is None:
        pytest.skip("not importable as written")
    import yaml
    spec = json.dumps(yaml.safe_load(outcome.text))
    for token in ("${PROJECT_ID}", "${BUCKET_URI}", "${MODEL_DIR}", "$PUBLISHED_IMAGE_URI"):
        if token in text and token != "${MODEL_DIR}":
            assert token in spec


# -- kinds, flags and refusals of the importer itself ----------------------------------------
def test_tpu_pod_region():
    outcome = import_entry("074-pyaip-fixture-tpu-v3-32")
    result = compile_spec(outcome.text, "vertex", "us-central1")
    assert any("TPU_V3 Pod slices (32 cores) are not available for training in us-central1"
               for d in result.errors)


def test_sdk_container_job_replica_split():
    """CustomContainerTrainingJob.run(replica_count=2): pool 0 ×1 and pool 1 ×1 (065)."""
    text, name = source_text("065-vas-weathernext-dws-h100-1g")
    src, _ = sources.load(text, name)
    pools = src.request["jobSpec"]["workerPoolSpecs"]
    assert [p["replicaCount"] for p in pools] == [1, 1]
    assert pools[0]["machineSpec"] == {"machineType": "a3-highgpu-1g",
                                       "acceleratorType": "NVIDIA_H100_80GB",
                                       "acceleratorCount": 1}
    assert src.request["jobSpec"]["scheduling"] == {"strategy": "FLEX_START"}


def test_sdk_kwargs_map_to_request_fields():
    text, name = source_text("062-vas-mg-train-h100x8-flexstart")
    src, _ = sources.load(text, name)
    spec = src.request["jobSpec"]
    assert spec["scheduling"] == {"maxWaitDuration": "1800s", "strategy": "FLEX_START"}
    assert spec["workerPoolSpecs"][0]["diskSpec"] == {"bootDiskType": "pd-ssd",
                                                     "bootDiskSizeGb": 2000}
    assert spec["baseOutputDirectory"] == {"outputUriPrefix": "gs://example-bucket/${job_name}"}


def test_numeric_enum_is_named():
    outcome = import_entry("050-vas-distributed-tpu-v3-numeric-enum")
    assert "type: TPU_V3" in outcome.text
    assert "acceleratorType 7 is the proto enum number of TPU_V3" in outcome.text


def test_comments_record_choices():
    text = import_entry("038-vas-uj3-legacy-rest-custom-container").text
    assert "# jobId 'custom_container_20210325215916' kept as metadata.name" in text
    text = import_entry("001-cloudml-template-basic").text
    assert "# no region in the source: taken from --region" in text
    assert "# from --module-name" in text
    text = import_entry("004-criteo-legacy-large-ps").text
    assert "legacy machine names kept" in text
    text = import_entry("077-vertex-jumpstart-mapping-env").text
    assert "gcloud reads it as a one-pool list" in text


def test_display_name_sanitised_and_kept():
    text = import_entry("057-vas-persistent-resource-cli-args-scalar").text
    assert "name: Single-CPU-Job" in text
    assert "displayName: Single CPU Job" in text


def test_flags_override_the_file():
    text, name = source_text("028-widendeep-region-in-traininginput")
    argv = FLAGS["028-widendeep-region-in-traininginput"][0] + ["--region", "europe-west1"]
    outcome = decompile.decompile(text, name, decompile.parse_flags(argv))
    assert "region: europe-west1" in outcome.text
    assert "overrides 'us-east1'" in outcome.text


def test_vertex_tuning_job_imports_as_a_tuning_job():
    outcome = import_entry("047-vas-uj11-rest-hptuning-job")
    assert outcome.ok
    assert "kind: HyperparameterTuningJob" in outcome.text
    assert "    metrics: {val_loss: minimize}" in outcome.text


def test_trial_job_only_imports_the_trial_job_as_a_training_job():
    text, name = source_text("047-vas-uj11-rest-hptuning-job")
    outcome = decompile.decompile(text, name, decompile.parse_flags(["--trial-job-only"]))
    assert outcome.ok and "kind: TrainingJob" in outcome.text and "  tuning:" not in outcome.text
    assert "only the trialJobSpec was imported (--trial-job-only)" in outcome.text
    text, name = source_text("045-vas-uj3-rest-custom-container")
    outcome = decompile.decompile(text, name, decompile.parse_flags(["--trial-job-only"]))
    assert not outcome.ok and "--trial-job-only applies to" in outcome.diagnostics[0].message


def test_tuning_flags_need_a_tuning_config():
    text, name = source_text("045-vas-uj3-rest-custom-container")
    outcome = decompile.decompile(text, name, decompile.parse_flags(["--max-trial-count", "4"]))
    assert not outcome.ok
    assert "--max-trial-count is a flag of gcloud ai hp-tuning-jobs create" in \
        outcome.diagnostics[0].message


def test_gcloud_default_trial_counts_are_written_out():
    """No counts in the file and no flags: gcloud sends 1 and 1 (its --log-http body)."""
    config = source_config("058-vas-pytorch-hptuning-gcloud-v100")
    outcome = decompile.decompile(json.dumps(config), "hpt.yaml",
                                  decompile.parse_flags(["--region", "us-central1"]))
    assert outcome.ok
    assert "# no maxTrialCount in the source: 1, gcloud's default (--max-trial-count)" in \
        outcome.text
    assert "maxTrials: 1\n" in outcome.text and "parallelTrials: 1\n" in outcome.text


def test_sdk_parameter_specs_become_the_study_spec():
    """hpt.DoubleParameterSpec(min, max, scale)-style dicts, metric_spec, the SDK defaults."""
    text, name = source_text("051-vas-hpt-distributed-t4x2")
    src, _ = sources.load(text, name)
    spec = src.tuning_request()["studySpec"]
    assert spec["metrics"] == [{"metricId": "accuracy", "goal": "MAXIMIZE"}]
    assert spec["parameters"][0] == {"parameterId": "learning_rate", "doubleValueSpec": {
        "minValue": 0.001, "maxValue": 1}, "scaleType": "UNIT_LOG_SCALE"}
    assert spec["parameters"][2] == {"parameterId": "units",
                                     "discreteValueSpec": {"values": [64, 128, 512]}}
    assert spec["measurementSelectionType"] == "BEST_MEASUREMENT"  # the SDK's default
    assert "algorithm" not in spec  # search_algorithm=None: the service's default
    sdk = {"worker_pool_specs": [{"machine_spec": {"machine_type": "n1-standard-4"},
                                  "replica_count": 1, "container_spec": {"image_uri": "gcr.io/p/t:1"}}],
           "metric_spec": {"loss": "minimize"}, "max_trial_count": 4, "parallel_trial_count": 2,
           "search_algorithm": "grid", "measurement_selection": "last",
           "parameter_spec": {"opt": {"type": "CategoricalParameterSpec", "values": ["adam", "sgd"],
                                      "conditional_parameter_spec": {
                                          "momentum": {"type": "DiscreteParameterSpec",
                                                       "values": [0.5, 0.9], "scale": "linear",
                                                       "parent_values": ["sgd"]}}},
                              "layers": {"type": "IntegerParameterSpec", "min": 1, "max": 4,
                                         "scale": "reverse_log"}}}
    outcome = decompile.decompile(json.dumps(sdk), "sdk.json",
                                  decompile.parse_flags(["--region", "us-central1"]))
    assert outcome.ok, outcome.diagnostics
    result = compile_spec(outcome.text, "vertex")
    assert result.ok, [d.format() for d in result.errors]
    study = result.body["studySpec"]
    assert study["algorithm"] == "GRID_SEARCH"
    assert study["measurementSelectionType"] == "LAST_MEASUREMENT"
    assert study["parameters"][0]["conditionalParameterSpecs"] == [{
        "parameterSpec": {"parameterId": "momentum", "discreteValueSpec": {"values": [0.5, 0.9]},
                          "scaleType": "UNIT_LINEAR_SCALE"},
        "parentCategoricalValues": {"values": ["sgd"]}}]
    assert study["parameters"][1] == {"parameterId": "layers", "integerValueSpec": {
        "minValue": "1", "maxValue": "4"}, "scaleType": "UNIT_REVERSE_LOG_SCALE"}


def test_flag_of_the_other_api_is_refused():
    text, name = source_text("045-vas-uj3-rest-custom-container")
    outcome = decompile.decompile(text, name, decompile.parse_flags(["--module-name", "x.y"]))
    assert not outcome.ok
    assert "--module-name is a flag of the other API" in outcome.diagnostics[0].message


def test_package_path_becomes_python_source(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    flags = ["--package-path", "trainer/", "--module-name", "trainer.task"]
    outcome = decompile.decompile("trainingInput: {scaleTier: BASIC}\n", "c.yaml",
                                  decompile.parse_flags(flags + ["--staging-bucket", "gs://b"]))
    assert outcome.diagnostics[0].format() == (
        "c.yaml:1:1: error: $: --package-path trainer/ is not a valid Python package: it has no "
        "__init__.py (or is not a folder) [gcloud-refuses]")
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    outcome = decompile.decompile("trainingInput: {scaleTier: BASIC}\n", "c.yaml",
                                  decompile.parse_flags(flags))
    assert outcome.diagnostics[0].format() == (
        "c.yaml:1:1: error: $: if local packages are provided, the --staging-bucket or --job-dir "
        "flag must be given [gcloud-refuses]")
    outcome = decompile.decompile("trainingInput: {scaleTier: BASIC}\n", "c.yaml",
                                  decompile.parse_flags(flags + ["--job-dir", "gs://runs/x"]))
    assert outcome.ok, outcome.diagnostics
    assert "  stagingBucket: gs://runs\n" in outcome.text
    assert "    source: .\n" in outcome.text and "    module: trainer.task\n" in outcome.text


@pytest.mark.parametrize("text, phrase", [
    ("", "empty file"),
    ("- a\n- b\n", "the top level is a list"),
    ("foo: 1\nbar: 2\n", "not a training job config"),
    ("apiVersion: trainspec/v1\nkind: TrainingJob\nmetadata: {name: x}\nspec: {}\n",
     "already a trainspec spec"),
    ("trainingInput: [1, 2]\n", "trainingInput: expected a mapping (a TrainingInput), got a list"),
    ("trainingInput: {scaleTier: BASIC}\n", "nothing to run"),
    ('{"jobSpec": {"workerPoolSpecs": []}}', "non-empty list"),
    ('{"jobSpec": {"workerPoolSpecs": [{"machineSpec": {}, "containerSpec": {}, '
     '"bogus": 1}]}}', "unknown WorkerPoolSpec field 'bogus'"),
    ("a: [unclosed\n", "invalid YAML"),
    ("x: !!python/object:os.system {}\n", "unsupported tag"),
    ("workerPoolSpecs: 7\n", "workerPoolSpecs: expected a list (of WorkerPoolSpec), got the number 7"),
])
def test_not_importable_is_a_clean_error(text, phrase):
    outcome = decompile.decompile(text, "bad.yaml", decompile.parse_flags([]))
    assert not outcome.ok
    formatted = "\n".join(d.format() for d in outcome.diagnostics)
    assert phrase in formatted
    assert formatted.startswith("bad.yaml")


def test_cli_import(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n")
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["import", str(path), "--region", "us-central1", "--module-name",
                     "trainer.task", "--packages", "gs://b/t.tar.gz", "--runtime-version",
                     "2.11", "--python-version", "3.7", "--name", "census",
                     "--args=--epochs,5"], out, err)
    assert code == 0, err.getvalue()
    assert err.getvalue() == ""
    spec = out.getvalue()
    assert "args: [--epochs, \"5\"]" in spec
    result = compile_spec(spec, "ai-platform")
    assert result.ok
    assert result.body["jobId"] == "census"
    assert result.body["trainingInput"]["args"] == ["--epochs", "5"]


def test_cli_bad_input_exit_1(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("[1, 2]")
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["import", str(path)], out, err) == 1
    assert out.getvalue() == ""
    assert err.getvalue().startswith(f"{path}:1:1: error: $:")
    assert "Traceback" not in err.getvalue()
    assert cli.main(["import", str(tmp_path / "missing.json")], out, err) == 1


def test_cli_warns_when_import_does_not_validate(tmp_path):
    path = tmp_path / "k80.json"
    path.write_text(json.dumps(ENTRIES["046-vas-uj2-rest-k80-python-package"]["config"]))
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["import", str(path)], out, err) == 0
    assert "does not validate" in err.getvalue() and "K80" in err.getvalue()


# -- migration: compile --platform vertex of imported AI Platform specs -----------------------
def migrate(key: str) -> pipeline.Result:
    outcome = import_entry(key)
    assert outcome.ok
    return compile_spec(outcome.text, "vertex", "us-central1")


def test_migration_legacy_machines_and_pools():
    """master/worker/ps → pools 0/1/2; legacy names → Compute Engine types (approximate)."""
    result = migrate("004-criteo-legacy-large-ps")
    assert result.ok, [d.format() for d in result.diagnostics]
    pools = result.body["jobSpec"]["workerPoolSpecs"]
    assert [p["machineSpec"]["machineType"] for p in pools] == \
        ["n1-highmem-8", "n1-highcpu-16", "n1-highmem-8"]
    assert [p["replicaCount"] for p in pools] == ["1", "60", "29"]


def test_migration_evaluator_is_pool_3():
    result = migrate("033-docs-machine-types-evaluator")
    assert result.ok, [d.format() for d in result.diagnostics]
    pools = result.body["jobSpec"]["workerPoolSpecs"]
    assert len(pools) == 4 and pools[3]["replicaCount"] == "1"
    assert pools[3]["machineSpec"]["machineType"] == "n1-highcpu-16"


def test_migration_runtime_version_to_prebuilt_container():
    result = migrate("026-dcblstm-legacy-ps-runtime21")
    assert result.ok, [d.format() for d in result.diagnostics]
    spec = result.body["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]
    assert spec["executorImageUri"].endswith("/tf-cpu.2-1:latest")
    assert spec["pythonModule"] == "trainer.task"


def test_migration_hyperparameter_tuning_to_vertex():
    """An AI Platform tuning config imports as a HyperparameterTuningJob that compiles for
    vertex: the same search as a studySpec, the trial job as trialJobSpec."""
    result = migrate("002-census-hptuning")
    assert result.ok, [d.format() for d in result.diagnostics]
    body = result.body
    assert (body["maxTrialCount"], body["parallelTrialCount"]) == (4, 2)
    assert body["studySpec"]["metrics"] == [{"metricId": "accuracy", "goal": "MAXIMIZE"}]
    assert body["studySpec"]["parameters"][2] == {
        "parameterId": "scale-factor", "doubleValueSpec": {"minValue": 0.1, "maxValue": 1.0},
        "scaleType": "UNIT_REVERSE_LOG_SCALE"}
    assert body["trialJobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["pythonModule"] == \
        "trainer.task"


# The AI Platform tuning entries that do not compile for vertex, and why: the search converts
# for every one; these are refused for their trial job's hardware or runtime (as their
# TrainingJob would be), or for a metric tag Vertex refuses ([DD-AIP] MetricSpec.metricId).
MIGRATION_REFUSED = {
    "003-sklearn-template-hptuning": "no Vertex prebuilt container for runtime 1.13",
    "007-movielens-gpu-hypertune": "NVIDIA_TESLA_K80 is retired",
    "009-tpu-resnet-hptuning": "a TPU job has exactly one pool with one replica",
    "016-aips-sklearn-hptuning-metric-with-spaces": "metric id 'Taxi Model Accuracy' contains "
                                                    "whitespace",
    "021-seed-rl-atari-p100-hp-as-args": "NVIDIA_TESLA_P100 is retired",
    "022-seed-rl-mujoco-legacy-p100": "NVIDIA_TESLA_P100 is retired",
    "024-tda-asl-energy-standard1-hptuning": "scale tier STANDARD_1 cannot be expressed on vertex",
    "025-tda-feateng-no-metric-tag": "scale tier STANDARD_1 cannot be expressed on vertex",
}
ML_TUNING = sorted(k for k, e in ENTRIES.items() if e["api"] == "ai-platform"
                   and "hyperparameters" in e["config"].get("trainingInput", {}))


@pytest.mark.parametrize("key", ML_TUNING)
def test_ai_platform_tuning_entries_migrate_to_vertex(key):
    outcome = import_entry(key)
    assert outcome.ok and "kind: HyperparameterTuningJob" in outcome.text
    result = migrate(key)
    if key in MIGRATION_REFUSED:
        assert any(MIGRATION_REFUSED[key] in d.message for d in result.errors), \
            [d.format() for d in result.errors]
        tuning_errors = [d for d in result.errors if d.path.startswith("$.spec.tuning")]
        assert tuning_errors == [] or key == "016-aips-sklearn-hptuning-metric-with-spaces"
        return
    assert result.ok, [d.format() for d in result.errors]
    hp = ENTRIES[key]["config"]["trainingInput"]["hyperparameters"]
    assert result.body["maxTrialCount"] == hp["maxTrials"]
    assert [p["parameterId"] for p in result.body["studySpec"]["parameters"]] == \
        [p["parameterName"] for p in hp["params"]]


def test_migration_covers_every_ai_platform_tuning_entry():
    assert len(ML_TUNING) == 17 and set(MIGRATION_REFUSED) < set(ML_TUNING)


def test_migration_k80_legacy_gpu_is_refused_as_retired():
    result = migrate("006-movielens-legacy-gpu-ps")
    assert any("K80" in d.message and "retired" in d.message for d in result.errors)


def test_migration_custom_container_with_gpu():
    result = migrate("038-vas-uj3-legacy-rest-custom-container")
    assert result.ok, [d.format() for d in result.diagnostics]
    pool = result.body["jobSpec"]["workerPoolSpecs"][0]
    assert pool["containerSpec"]["imageUri"] == "gcr.io/migration-ucaip-training/cifar_migration:v1"
    assert pool["containerSpec"]["args"][1:] == ["--epochs=20", "--steps=100"]
    assert result.body["displayName"] == "custom_container_20210325215916"


def _study(**changes) -> dict:
    if not ENTRIES:  # no corpus: the module is skipped, its parameters must still build
        return {}
    body = copy.deepcopy(ENTRIES["047-vas-uj11-rest-hptuning-job"]["config"])
    for path, value in changes.items():
        target = body
        keys = path.split("__")
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        target[keys[-1]] = value
    return body


COND = {"parameterSpec": {"parameterId": "c", "integerValueSpec": {"minValue": 1, "maxValue": 2}},
        "parentDiscreteValues": {"values": [0.01]}}


@pytest.mark.parametrize("body, where, phrase", [
    (_study(studySpec__observationNoise="LOW"), "$.studySpec.observationNoise",
     "has no trainspec key (HyperparameterTuningJob does not support it)"),
    (_study(studySpec__studyStoppingConfig={"maxNumTrials": 3, "maximumRuntimeConstraint": {
        "endTime": "2030-01-01T00:00:00Z"}}),
     "$.studySpec.studyStoppingConfig.maximumRuntimeConstraint.endTime", "has no trainspec key"),
    (_study(studySpec__metrics__0__safetyConfig={"safetyThreshold": 1}),
     "$.studySpec.metrics[0].safetyConfig", "has no trainspec key"),
    (_study(studySpec__parameters__1__integerValueSpec={"minValue": 1, "maxValue": 2,
                                                        "defaultValue": 1}),
     "$.studySpec.parameters[1].integerValueSpec.defaultValue", "not supported by "
     "HyperparameterTuningJob"),
    (_study(studySpec__parameters__0__conditionalParameterSpecs=[
        {**COND, "parameterSpec": {**COND["parameterSpec"], "conditionalParameterSpecs": [
            {"parameterSpec": {"parameterId": "d", "integerValueSpec": {"minValue": 1,
                                                                        "maxValue": 2}},
             "parentIntValues": {"values": ["1"]}}]}}]),
     "$.studySpec.parameters[0].conditionalParameterSpecs[0].parameterSpec."
     "conditionalParameterSpecs[0]", "one level of conditional parameters"),
    (_study(studySpec__algorithm="BEST_SEARCH"), "$.studySpec.algorithm", "unknown value"),
    (_study(studyStoppingRule=1), "$.studyStoppingRule",
     "unknown HyperparameterTuningJob field"),
])
def test_tuning_fields_trainspec_cannot_write_are_named_errors(body, where, phrase):
    outcome = decompile.decompile(json.dumps(body), "hpt.json",
                                  decompile.parse_flags(["--region", "us-central1"]))
    assert not outcome.ok
    assert any(d.path == where and phrase in d.format() for d in outcome.diagnostics), \
        [d.format() for d in outcome.diagnostics]


def test_a_conditional_tuning_job_round_trips():
    body = _study(studySpec__parameters__0__conditionalParameterSpecs=[
        COND, {**COND, "parameterSpec": {**COND["parameterSpec"], "parameterId": "e"}},
        {**COND, "parentDiscreteValues": {"values": [0.1, 0.001]}}])
    outcome = decompile.decompile(json.dumps(body), "hpt.json",
                                  decompile.parse_flags(["--region", "us-central1"]))
    assert outcome.ok, outcome.diagnostics
    assert "- when: [0.01]" in outcome.text and "- when: [0.1, 0.001]" in outcome.text
    result = compile_spec(outcome.text, "vertex", "us-central1")
    assert result.ok, [d.format() for d in result.errors]
    assert canon(result.body) == canon(body)


# -- issue 8 §4: fixes found by importing real gcloud commands ---------------------------------
def _vertex_config() -> str:
    return ("workerPoolSpecs:\n  - machineSpec: {machineType: n1-standard-4}\n    replicaCount: 1\n"
            "    containerSpec: {imageUri: gcr.io/p/t:1}\n")


def test_service_account_and_network_are_vertex_flags_too():
    outcome = decompile.decompile(_vertex_config(), "c.yaml", decompile.parse_flags(
        ["--region", "us-central1", "--service-account", "t@p.iam.gserviceaccount.com",
         "--network", "projects/1/global/networks/v"]))
    assert outcome.ok, outcome.diagnostics
    body = compile_spec(outcome.text, "vertex").body
    assert body["jobSpec"]["serviceAccount"] == "t@p.iam.gserviceaccount.com"
    assert body["jobSpec"]["network"] == "projects/1/global/networks/v"


def test_kms_key_is_the_custom_jobs_encryption_spec():
    key = "projects/p/locations/us-central1/keyRings/r/cryptoKeys/k"
    outcome = decompile.decompile(_vertex_config(), "c.yaml", decompile.parse_flags(
        ["--region", "us-central1", "--kms-key", key]))
    body = compile_spec(outcome.text, "vertex").body
    assert body["encryptionSpec"] == {"kmsKeyName": key}
    assert "encryptionSpec" not in body["jobSpec"]


def test_worker_pool_spec_keys_gcloud_rejects_are_refused():
    outcome = decompile.decompile(_vertex_config(), "c.yaml", decompile.parse_flags(
        ["--worker-pool-spec", "machine-type=n1-standard-4,disk-type=pd-ssd,"
         "container-image-uri=gcr.io/p/t:1"]))
    assert not outcome.ok
    assert "valid keys are [" in outcome.diagnostics[0].message
    assert "received: disk-type" in outcome.diagnostics[0].message


@pytest.mark.parametrize("old, new", [("LOW_COST", "SPOT"), ("ON_DEMAND", "STANDARD")])
def test_deprecated_strategies_are_written_by_their_current_name(old, new):
    text = _vertex_config() + f"scheduling: {{strategy: {old}}}\n"
    outcome = decompile.decompile(text, "c.yaml", decompile.parse_flags([]))
    assert outcome.ok, outcome.diagnostics
    assert f"strategy: {new}" in outcome.text and f"{old} is the deprecated name" in outcome.text
    assert compile_spec(outcome.text, "vertex", "us-central1").body["jobSpec"]["scheduling"] == \
        {"strategy": new}


def test_sdk_staging_bucket_becomes_the_output_directory():
    sdk = {"worker_pool_specs": [{"machine_spec": {"machine_type": "n1-standard-4"},
                                  "replica_count": 1,
                                  "container_spec": {"image_uri": "gcr.io/p/t:1"}}],
           "staging_bucket": "gs://acme-staging/"}
    outcome = decompile.decompile(json.dumps(sdk), "sdk.json", decompile.parse_flags([]))
    assert outcome.ok
    assert "outputDir: gs://acme-staging/aiplatform-custom-job" in outcome.text
    assert any(d.severity == "warning" and "a new folder per run" in d.message
               for d in outcome.diagnostics)
    body = compile_spec(outcome.text, "vertex", "us-central1").body
    assert body["jobSpec"]["baseOutputDirectory"] == {
        "outputUriPrefix": "gs://acme-staging/aiplatform-custom-job"}


def test_cli_import_gcloud_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["import", "--", "gcloud", "ai", "custom-jobs", "create", "--region",
                     "us-central1", "--display-name=smoke", "--worker-pool-spec",
                     "machine-type=n1-standard-4,container-image-uri=gcr.io/p/t:1"], out, err)
    assert code == 0, err.getvalue()
    assert "name: smoke" in out.getvalue()
    code = cli.main(["import", "--", "gcloud", "ai", "custom-jobs", "create", "--region",
                     "us-central1", "--display-name=smoke"], out, err)
    assert code == 1
    assert "one of --config and --worker-pool-spec must be specified" in err.getvalue()
    assert "Traceback" not in err.getvalue()


def test_gcloud_config_of_the_wrong_kind_is_named_by_what_it_is(tmp_path, monkeypatch):
    """A tuning config given to custom-jobs, SDK snake_case given to hp-tuning-jobs: refused,
    saying what the file is (gcloud sends neither as the user meant)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hpt.yaml").write_text(
        "studySpec: {metrics: [{metricId: a, goal: MAXIMIZE}]}\n"
        "trialJobSpec: {workerPoolSpecs: [{machineSpec: {machineType: n1-standard-4}}]}\n")
    (tmp_path / "sdk.yaml").write_text(
        "metric_spec: {a: maximize}\n"
        "trial_job_spec: {worker_pool_specs: [{machine_spec: {machine_type: n1-standard-4}}]}\n")
    custom = ["gcloud", "ai", "custom-jobs", "create", "--region=us-central1",
              "--display-name=x", "--config=hpt.yaml"]
    outcome = decompile.import_gcloud(custom, [])
    assert not outcome.ok
    assert outcome.diagnostics[0].message.endswith(
        "reads a CustomJobSpec (workerPoolSpecs, ...), not a Vertex AI hyperparameter tuning job")
    tuning = ["gcloud", "ai", "hp-tuning-jobs", "create", "--region=us-central1",
              "--display-name=x", "--config=sdk.yaml"]
    outcome = decompile.import_gcloud(tuning, [])
    assert not outcome.ok
    assert "snake_case keys" in outcome.diagnostics[0].message
    assert "(write studySpec, trialJobSpec, ...)" in outcome.diagnostics[0].message


# -- gcloud's local code becomes python.source ----------------------------------------------

EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest"


@pytest.fixture
def trainer_repo(tmp_path, monkeypatch):
    """A folder with Pulumi.yaml and trainer/ (pyproject + package): where gcloud would run."""
    (tmp_path / "Pulumi.yaml").write_text("name: ml\nruntime: python\n")
    (tmp_path / "trainer" / "trainer").mkdir(parents=True)
    (tmp_path / "trainer" / "pyproject.toml").write_text('[project]\nname = "t"\nversion = "1"\n')
    (tmp_path / "trainer" / "trainer" / "__init__.py").write_text("")
    (tmp_path / "trainer" / "trainer" / "task.py").write_text("")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _compiled(text: str, folder: Path):
    (folder / "imported.yaml").write_text(text)
    result = pipeline.compile_file(str(folder / "imported.yaml"),
                                   Options(staging_bucket="gs://acme-staging"))
    assert result.ok, format_text(result.diagnostics)
    return result


@pytest.mark.parametrize("software", ["python-module=trainer.task", "script=trainer/task.py"])
def test_vertex_local_package_path_is_python_source(trainer_repo, software):
    outcome = decompile.import_gcloud(shlex.split(
        "gcloud ai custom-jobs create --region=us-central1 --display-name=x "
        f"--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={EXECUTOR},"
        f"local-package-path=trainer,{software},output-image-uri=gcr.io/acme/x:1 "
        "--worker-pool-spec=machine-type=n1-standard-8,replica-count=2 --args=--epochs=3"), [])
    assert outcome.ok, outcome.diagnostics
    assert outcome.text.endswith(
        "  python:\n"
        f"    # from local-package-path: gcloud builds a container image from the folder on "
        f"{EXECUTOR} for every pool; trainspec packages it as an sdist that the same executor "
        "image installs (pythonPackageSpec)\n"
        "    # relative to where gcloud ran; python.source is relative to this spec file: adjust "
        "it where you save the spec\n"
        "    # needs a staging bucket: spec.stagingBucket or stack config trainspec:stagingBucket\n"
        "    # output-image-uri gcr.io/acme/x:1 dropped: no image is built\n"
        "    source: trainer\n"
        "    module: trainer.task\n"
        "    # from --args\n"
        "    args: [--epochs=3]\n"
        f"    executorImage: {EXECUTOR}\n"
        "  pools:\n"
        "    chief: {machineType: n1-standard-4}\n"
        "    worker: {replicas: 2, machineType: n1-standard-8}\n")
    body = _compiled(outcome.text, trainer_repo).body
    for pool in body["jobSpec"]["workerPoolSpecs"]:
        spec = pool["pythonPackageSpec"]
        assert spec["pythonModule"] == "trainer.task" and spec["executorImageUri"] == EXECUTOR
        assert spec["packageUris"][0].startswith("gs://acme-staging/trainspec/packages/t-1-")


def test_ml_package_path_is_python_source(trainer_repo, monkeypatch):
    monkeypatch.chdir(trainer_repo / "trainer")
    outcome = decompile.import_gcloud(shlex.split(
        "gcloud ai-platform jobs submit training x --region=us-central1 "
        "--module-name=trainer.task --package-path=trainer --staging-bucket=gs://acme-ml-staging "
        "--runtime-version=2.11 --python-version=3.7 --packages=gs://acme-libs/extra-1.tar.gz"),
        [])
    assert outcome.ok, outcome.diagnostics
    assert "  # from --staging-bucket\n  stagingBucket: gs://acme-ml-staging\n" in outcome.text
    assert "    source: .\n    # from --packages\n    packages: [gs://acme-libs/extra-1.tar.gz]\n" \
        in outcome.text
    (trainer_repo / "trainer" / "imported.yaml").write_text(outcome.text)
    result = pipeline.compile_file("imported.yaml")
    assert result.ok, format_text(result.diagnostics)
    uris = result.body["trainingInput"]["packageUris"]
    assert uris[0].startswith("gs://acme-ml-staging/trainspec/packages/t-1-")
    assert uris[1:] == ["gs://acme-libs/extra-1.tar.gz"]


@pytest.mark.parametrize("pools, message", [
    (f"executor-image-uri={EXECUTOR},local-package-path=trainer,python-module=m,"
     "requirements=torch", "--worker-pool-spec: key [requirements]: gcloud installs it into the "
     "image it builds, which python.source does not; declare them in the package's "
     "dependencies (pyproject.toml [project] dependencies): trainspec packages the folder as "
     "it is"),
    (f"executor-image-uri={EXECUTOR},local-package-path=trainer,script=run.sh",
     "--worker-pool-spec: script 'run.sh' cannot run as a module of the package (python.source "
     "runs `python -m MODULE`): pass python-module=PACKAGE.MODULE"),
    (f"executor-image-uri={EXECUTOR},local-package-path=trainer",
     "--worker-pool-spec: exactly one of keys [python-module, script] is required when "
     "local-package-path is specified"),
    ("local-package-path=trainer,python-module=m", "--worker-pool-spec: key "
     "[executor-image-uri] is required when local-package-path is specified"),
    (f"executor-image-uri={EXECUTOR},local-package-path=missing,python-module=m",
     "--worker-pool-spec: directory 'missing' is not found"),
    (f"executor-image-uri={EXECUTOR},local-package-path=trainer,python-module=m "
     f"--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri={EXECUTOR}",
     "--worker-pool-spec: keys [executor-image-uri] are not allowed: a local package has been "
     "specified in the first --worker-pool-spec and is used for all workers"),
    (f"container-image-uri=gcr.io/a/b:1 --worker-pool-spec=machine-type=n1-standard-4,"
     f"executor-image-uri={EXECUTOR},local-package-path=trainer,python-module=m",
     "--worker-pool-spec: key [local-package-path] is only allowed in the first "
     "--worker-pool-spec"),
])
def test_local_code_gcloud_refuses_or_trainspec_cannot_build(trainer_repo, pools, message):
    outcome = decompile.import_gcloud(shlex.split(
        "gcloud ai custom-jobs create --region=us-central1 --display-name=x "
        f"--worker-pool-spec=machine-type=n1-standard-4,{pools}"), [])
    assert not outcome.ok
    assert format_text(outcome.diagnostics) == \
        f"gcloud command line: error: $: {message} [gcloud-refuses]"
