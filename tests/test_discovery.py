"""compiler.discovery: request bodies against the shipped discovery documents."""

import copy

import pytest

from compiler import discovery

VERTEX = "GoogleCloudAiplatformV1CustomJob"
ML = "GoogleCloudMlV1__Job"

GOOD_VERTEX = {
    "displayName": "train-resnet",
    "labels": {"team": "vision", "cost-center": "r_and_d"},
    "jobSpec": {
        "workerPoolSpecs": [
            {"machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                             "acceleratorCount": 2},
             "replicaCount": "1",
             "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 100},
             "containerSpec": {"imageUri": "gcr.io/p/train:1", "args": ["--epochs", "3"],
                               "env": [{"name": "A", "value": "1"}]}},
            {},
            {"machineSpec": {"machineType": "n1-highmem-8"}, "replicaCount": "2",
             "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/x/tf:2",
                                   "packageUris": ["gs://b/p.tar.gz"],
                                   "pythonModule": "trainer.task"}},
        ],
        "scheduling": {"timeout": "3600.5s", "restartJobOnWorkerRestart": False},
        "baseOutputDirectory": {"outputUriPrefix": "gs://b/out"},
    },
}

GOOD_ML = {
    "jobId": "train_resnet_1",
    "labels": {"team": "vision"},
    "etag": "BwWWja0YfJA=",
    "trainingInput": {
        "scaleTier": "CUSTOM", "masterType": "n1-standard-8", "workerType": "n1-standard-8",
        "workerCount": "2", "region": "us-central1", "runtimeVersion": "2.11",
        "pythonVersion": "3.7", "packageUris": ["gs://b/p.tar.gz"], "pythonModule": "t.task",
        "masterConfig": {"acceleratorConfig": {"type": "NVIDIA_TESLA_T4", "count": "1"}},
        "scheduling": {"maxRunningTime": "7200s", "priority": 10},
        "hyperparameters": {"goal": "MAXIMIZE", "maxTrials": 4, "params": [
            {"parameterName": "lr", "type": "DOUBLE", "minValue": 0.001, "maxValue": 1}]},
    },
}


def with_change(body, path, value):
    """A deep copy of `body` with `path` (a list of keys/indexes) set to `value`."""
    out = copy.deepcopy(body)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


def test_good_bodies_conform():
    assert discovery.violations("aiplatform", VERTEX, GOOD_VERTEX) == []
    assert discovery.violations("ml", ML, GOOD_ML) == []


def test_load_is_cached_and_offline():
    doc = discovery.load("aiplatform")
    assert doc is discovery.load("aiplatform")
    assert VERTEX in doc["schemas"] and ML in discovery.load("ml")["schemas"]
    with pytest.raises(ValueError):
        discovery.load("compute")
    with pytest.raises(KeyError):
        discovery.violations("ml", "NoSuchSchema", {})


@pytest.mark.parametrize("api,schema,body,path,fragment", [
    ("aiplatform", VERTEX,
     with_change(GOOD_VERTEX, ["jobSpec", "workerPoolSpecs", 0, "machineSpec", "machineTyp"], "x"),
     "jobSpec.workerPoolSpecs[0].machineSpec.machineTyp", "did you mean 'machineType'"),
    ("aiplatform", VERTEX, with_change(GOOD_VERTEX, ["state"], "JOB_STATE_RUNNING"),
     "state", "output only"),
    # ml marks output-only fields only in the description ("Output only. ...").
    ("ml", ML, with_change(GOOD_ML, ["createTime"], "2024-01-01T00:00:00Z"),
     "createTime", "output only"),
    ("ml", ML, with_change(GOOD_ML, ["state"], "QUEUED"), "state", "output only"),
    ("aiplatform", VERTEX,
     with_change(GOOD_VERTEX, ["jobSpec", "workerPoolSpecs", 0, "machineSpec", "acceleratorType"],
                 "NVIDIA_TESLA_T5"),
     "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType", "NVIDIA_TESLA_T4"),
    ("ml", ML, with_change(GOOD_ML, ["trainingInput", "scaleTier"], "HUGE"),
     "trainingInput.scaleTier", "invalid value 'HUGE'"),
    ("aiplatform", VERTEX, with_change(GOOD_VERTEX, ["jobSpec", "scheduling", "timeout"], "1h"),
     "jobSpec.scheduling.timeout", "invalid duration"),
    ("ml", ML, with_change(GOOD_ML, ["trainingInput", "scheduling", "maxRunningTime"], 3600),
     "trainingInput.scheduling.maxRunningTime", "expected a string"),
    ("aiplatform", VERTEX,
     with_change(GOOD_VERTEX, ["jobSpec", "scheduling", "timeout"], "1.0123456789s"),
     "jobSpec.scheduling.timeout", "invalid duration"),
    ("aiplatform", VERTEX,
     with_change(GOOD_VERTEX, ["jobSpec", "workerPoolSpecs", 0, "replicaCount"], "one"),
     "jobSpec.workerPoolSpecs[0].replicaCount", "int64"),
    ("aiplatform", VERTEX,
     with_change(GOOD_VERTEX, ["jobSpec", "workerPoolSpecs", 0, "replicaCount"], 1.5),
     "jobSpec.workerPoolSpecs[0].replicaCount", "int64"),
    ("ml", ML, with_change(GOOD_ML, ["trainingInput", "workerCount"], str(2**63)),
     "trainingInput.workerCount", "out of range"),
    ("ml", ML, with_change(GOOD_ML, ["trainingInput", "scheduling", "priority"], 2**31),
     "trainingInput.scheduling.priority", "out of range for int32"),
    ("aiplatform", VERTEX,
     with_change(GOOD_VERTEX, ["jobSpec", "workerPoolSpecs", 0, "machineSpec", "acceleratorCount"],
                 True),
     "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorCount", "int32"),
    ("aiplatform", VERTEX, with_change(GOOD_VERTEX, ["labels", "team"], 7),
     'labels["team"]', "expected a string"),
    ("aiplatform", VERTEX, with_change(GOOD_VERTEX, ["jobSpec", "workerPoolSpecs"], {}),
     "jobSpec.workerPoolSpecs", "expected an array"),
    ("aiplatform", VERTEX,
     with_change(GOOD_VERTEX, ["jobSpec", "workerPoolSpecs", 0, "containerSpec", "args", 1], 3),
     "jobSpec.workerPoolSpecs[0].containerSpec.args[1]", "expected a string"),
    ("aiplatform", VERTEX, with_change(GOOD_VERTEX, ["jobSpec", "enableWebAccess"], "yes"),
     "jobSpec.enableWebAccess", "expected true or false"),
    ("aiplatform", VERTEX, with_change(GOOD_VERTEX, ["displayName"], None),
     "displayName", "null"),
    ("ml", ML, with_change(GOOD_ML, ["etag"], "not base64!"), "etag", "base64"),
    ("ml", ML, with_change(GOOD_ML, ["trainingInput", "hyperparameters", "params", 0,
                                     "minValue"], "low"),
     "trainingInput.hyperparameters.params[0].minValue", "expected a number"),
])
def test_each_bad_field_is_reported_at_its_path(api, schema, body, path, fragment):
    found = discovery.violations(api, schema, body)
    assert [p for p, _ in found] == [path], found
    assert fragment in found[0][1]


def test_integers_accept_numbers_and_decimal_strings():
    body = with_change(GOOD_VERTEX, ["jobSpec", "workerPoolSpecs", 0, "replicaCount"], 3)
    body = with_change(body, ["jobSpec", "workerPoolSpecs", 0, "machineSpec", "acceleratorCount"],
                       "4")
    assert discovery.violations("aiplatform", VERTEX, body) == []


def test_root_must_be_an_object():
    assert discovery.violations("ml", ML, []) == [("", "expected an object, got an array")]


def test_deprecated_enum_is_a_warning_not_a_violation():
    body = with_change(GOOD_VERTEX,
                       ["jobSpec", "workerPoolSpecs", 0, "machineSpec", "acceleratorType"],
                       "NVIDIA_TESLA_K80")
    assert discovery.violations("aiplatform", VERTEX, body) == []
    assert discovery.deprecations("aiplatform", VERTEX, body) == [
        ("jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType",
         "'NVIDIA_TESLA_K80' is deprecated")]


def test_output_only_detection_uses_flag_or_description():
    assert discovery.is_output_only({"readOnly": True})
    assert discovery.is_output_only({"description": "Output only. When the job was created."})
    assert not discovery.is_output_only({"description": "The current training job result."})


@pytest.mark.parametrize("camel,snake", [
    ("jobSpec.workerPoolSpecs[0].machineSpec.acceleratorType",
     "job_spec.worker_pool_specs[0].machine_spec.accelerator_type"),
    ("trainingInput.masterConfig.tpuTfVersion", "training_input.master_config.tpu_tf_version"),
    ('labels["myKey"]', 'labels["myKey"]'),
    ("displayName", "display_name"),
    ("", ""),
])
def test_path_case_conversion_round_trips(camel, snake):
    assert discovery.to_snake_path(camel) == snake
    assert discovery.to_camel_path(snake) == camel


def test_server_field_paths_map_back_to_body_paths():
    assert (discovery.server_field_to_body_path(
        "custom_job.job_spec.worker_pool_specs[0].machine_spec.accelerator_count")
        == "jobSpec.workerPoolSpecs[0].machineSpec.acceleratorCount")
    assert discovery.server_field_to_body_path("job.training_input.region") == \
        "trainingInput.region"
    assert discovery.server_field_to_body_path("job_id") == "jobId"
