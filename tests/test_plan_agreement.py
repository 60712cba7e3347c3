"""`trainspec diff` and `pulumi up` tell the same plan (issue 19): over a table of changes
(every field row of compiler/fields.py, and the rest of what a spec holds) on each platform,
and for each state the old job may be in, the `diff` command's entry and the provider plugin's
Check and Diff (over gRPC, as the engine calls them) agree on create / replace / update /
none, on a refusal (the same located line, code and hint), and on what a replace costs.
"""

from __future__ import annotations

import copy
import io
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from pulumi.runtime.proto import provider_pb2
from test_provider_plugin import serve

from compiler import cli, fields, plan
from compiler.options import Options
from compiler.provider import jobs, wire
from compiler.review.compare import Side, compare

PROJECT, REGION = "acme-test", "us-central1"
URN = "urn:pulumi:dev::acme::trainspec:index:Specs${t}::{n}"
SECRET = "trainspec:wandbApiKey"

BASE = {
    "vertex": {
        "apiVersion": "trainspec/v1", "kind": "TrainingJob",
        "metadata": {"name": "resnet", "labels": {"team": "vision"}},
        "spec": {"container": {"image": "gcr.io/acme/resnet:1.0", "args": ["--epochs=3"]},
                 "env": {"NCCL_DEBUG": "INFO", "WANDB_API_KEY": {"secret": "wandbApiKey"}},
                 "pools": {"chief": {"machineType": "n1-standard-8"}}}},
    "ai-platform": {
        "apiVersion": "trainspec/v1", "kind": "TrainingJob",
        "metadata": {"name": "census", "labels": {"team": "tabular"}},
        "spec": {"platform": "ai-platform",
                 "container": {"image": "gcr.io/acme/census:3.1", "args": ["--epochs=3"]},
                 "pools": {"chief": {"machineType": "n1-standard-8"}}}},
}

# A value each simple field row may take (a new row needs one: the test below fails without).
ROW_VALUES = {
    "vertex.displayName": "ResNet nightly",
    "scheduling.timeout": "2h",
    "scheduling.restartOnWorkerRestart": True,
    "scheduling.strategy": "SPOT",
    "scheduling.disableRetries": True,
    "scheduling.maxWait": "1h",
    "scheduling.priority": 500,
    "serviceAccount": "trainer@acme-test.iam.gserviceaccount.com",
    "network": "projects/123456789/global/networks/default",
    "vertex.reservedIpRanges": ["range-a"],
    "vertex.pscInterfaceConfig": {
        "networkAttachment": "projects/acme-test/regions/us-central1/networkAttachments/a"},
    "outputDir": "gs://acme-out/run1",
    "enableWebAccess": True,
    "vertex.enableDashboardAccess": True,
    "vertex.tensorboard": "projects/acme-test/locations/us-central1/tensorboards/123",
    "vertex.experiment": "exp-1",
    "vertex.experimentRun": "run-1",
    "vertex.persistentResourceId": "pool-1",
    "vertex.protectedArtifactLocationId": "us-central1",
    "vertex.models": ["projects/acme-test/locations/us-central1/models/9"],
    "aiPlatform.useChiefInTfConfig": True,
    "encryptionKey": "projects/acme-test/locations/us-central1/keyRings/r/cryptoKeys/k",
}


def _set(spec: dict, dotted: str, value) -> None:
    *parents, leaf = dotted.split(".")
    node = spec
    for key in parents:
        node = node.setdefault(key, {})
    node[leaf] = value


def _row(key: str):
    def edit(spec: dict) -> None:
        _set(spec["spec"], key, ROW_VALUES[key])
        if key == "vertex.experimentRun":  # a run belongs to an experiment
            _set(spec["spec"], "vertex.experiment", ROW_VALUES["vertex.experiment"])
        if key == "vertex.reservedIpRanges":  # ranges of a peered network
            spec["spec"]["network"] = ROW_VALUES["network"]
    return edit


def _image(s): s["spec"]["container"]["image"] += "-next"
def _args(s): s["spec"]["container"]["args"] = ["--epochs=4"]
def _machine(s): s["spec"]["pools"]["chief"]["machineType"] = "n1-standard-16"
def _env(s): s["spec"].get("env", {}).update(NCCL_DEBUG="WARN")  # ai-platform: none
def _labels(s): s["metadata"]["labels"]["cost-center"] = "cc-42"
def _relabel(s): s["metadata"]["labels"]["team"] = "platform"
def _region(s): s["spec"]["region"] = "europe-west4"
def _project(s): s["spec"]["project"] = "acme-other"
def _run(s): s["metadata"]["run"] = "2"
def _labels_and_run(s): _labels(s); _run(s)  # noqa: E702
def _image_and_run(s): _image(s); _run(s)  # noqa: E702
def _nothing(s): pass


def _platform(s):
    if s["spec"].get("platform") == "ai-platform":
        del s["spec"]["platform"]
    else:  # ai-platform has no env
        s["spec"]["platform"] = "ai-platform"
        del s["spec"]["env"]


EDITS = {"image": _image, "args": _args, "machine": _machine, "env": _env, "labels": _labels,
         "relabel": _relabel, "region": _region, "project": _project, "run": _run,
         "labels+run": _labels_and_run, "image+run": _image_and_run, "platform": _platform,
         "secret": _nothing, "nothing": _nothing,
         **{f"row:{r.spec}": _row(r.spec) for r in fields.JOB_ROWS}}
# The old job's state as the provider last read it (None: a state without it); `diff` has none.
STATES = {"vertex": (None, "JOB_STATE_RUNNING", "JOB_STATE_SUCCEEDED"),
          "ai-platform": (None, "RUNNING", "SUCCEEDED")}


def test_every_field_row_has_a_value_in_the_table():
    assert {r.spec for r in fields.JOB_ROWS} == set(ROW_VALUES)


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """The provider plugin, as the engine starts it, in a project folder (yielded with it)."""
    cwd = tmp_path_factory.mktemp("project")
    with serve(cwd) as stub:
        stub.Configure(provider_pb2.ConfigureRequest(args=wire.encode(
            {"project": PROJECT, "region": REGION})))
        yield stub, cwd


def _check(stub, urn: str, olds: dict, spec_file: Path, secret: str):
    answer = stub.Check(provider_pb2.CheckRequest(urn=urn, olds=wire.encode(olds), news=wire.encode(
        {"specFile": str(spec_file), "secretEnv": {SECRET: secret}})))
    return wire.decode(answer.inputs)[0], [f.reason for f in answer.failures]


def _review(old: bytes, new: bytes, old_secret: str, new_secret: str, file: str):
    sides = [Side({file: text}, Options(project=PROJECT, region=REGION),
                  secrets={SECRET: {"secure": value}})
             for text, value in ((old, old_secret), (new, new_secret))]
    [entry] = compare(*sides)
    return entry


def _action(diff) -> str:
    if diff.changes == provider_pb2.DiffResponse.DIFF_NONE:
        return plan.NONE
    return plan.REPLACE if diff.replaces else plan.UPDATE


@pytest.mark.parametrize("platform", sorted(BASE))
@pytest.mark.parametrize("change", sorted(EDITS))
def test_diff_and_pulumi_up_agree(plugin, platform, change):
    plugin, cwd = plugin
    base = BASE[platform]
    new_spec = copy.deepcopy(base)
    EDITS[change](new_spec)
    old_text, new_text = (yaml.safe_dump(s, sort_keys=False).encode() for s in (base, new_spec))
    file = Path(f"{change}-{platform}") / "specs" / f"{base['metadata']['name']}.yaml"
    (cwd / file).parent.mkdir(parents=True)
    secrets = ("v1", "v2" if change == "secret" else "v1")
    entry = _review(old_text, new_text, *secrets, str(file))
    old_type = jobs.resource_type(platform, "TrainingJob")
    new_type = jobs.resource_type(new_spec["spec"].get("platform", "vertex"), "TrainingJob")
    name = base["metadata"]["name"]

    (cwd / file).write_bytes(old_text)
    old_inputs, failures = _check(plugin, URN.format(t=old_type, n=name), {}, file, secrets[0])
    assert not failures
    (cwd / file).write_bytes(new_text)
    news, failures = _check(plugin, URN.format(t=new_type, n=name), old_inputs, file, secrets[1])
    if entry.new is not None and not entry.new.ok:  # a value this platform refuses: both do
        assert failures and change.startswith("row:"), failures
        return
    # A refusal: the same located line in `diff` and in the provider's check.
    refused = entry.refused
    assert failures == ([refused.format()] if refused else []), (change, failures)
    if refused:
        assert refused.code == "ml-job-immutable" and refused.position is not None
        assert entry.failed and entry.action == "error"
        return
    for state in STATES[platform]:
        outputs = {**old_inputs, "name": "projects/x/jobs/y", "owner": old_inputs["identity"]}
        if state:
            outputs["state"] = state
        diff = plugin.Diff(provider_pb2.DiffRequest(
            id="projects/x/jobs/y", urn=URN.format(t=new_type, n=name),
            olds=wire.encode(outputs), news=wire.encode(news)))
        assert _action(diff) == entry.plan.action, (change, state, entry.plan)
        if entry.plan.action == plan.REPLACE:
            assert diff.deleteBeforeReplace
        # What the plan says of this job, given what the provider knows of its state.
        told = plan.decide(platform, entry.old.body, entry.new.body, platform,
                           old_location=(entry.old.job.project, entry.old.job.region),
                           new_location=(entry.new.job.project, entry.new.job.region),
                           old_run=entry.old.job.run, new_run=entry.new.job.run,
                           changed_secrets=entry.new.job.secrets if change == "secret" else [],
                           state=state)
        if state is None:
            assert told.description == entry.plan.description
        if told.action == plan.REPLACE:
            assert told.description.endswith(plan.REPLACE_COSTS[plan.job_state(state)])
    if change in ("labels", "relabel"):
        assert entry.plan.action == plan.UPDATE
        assert entry.plan.description == (plan.LABELS_RECORDED if platform == "vertex"
                                           else plan.DESCRIPTIONS[plan.UPDATE])


def test_replace_costs_by_state():
    body = {"a": 1}
    for state, said in ((None, "cancels the job if it still runs, then submits"),
                        ("JOB_STATE_RUNNING", "cancels the running job, then submits"),
                        ("JOB_STATE_QUEUED", "cancels the running job, then submits"),
                        ("SUCCEEDED", "re-runs a finished job (its record is kept)"),
                        ("JOB_STATE_FAILED", "re-runs a finished job (its record is kept)")):
        found = plan.decide("vertex", body, {"a": 2}, state=state)
        assert found.description == f"replace: {said}"
    rerun = plan.decide("vertex", body, body, old_run="1", new_run="2", state="SUCCEEDED")
    assert rerun.description == "replace: re-run requested: re-runs a finished job (its record " \
                                "is kept)"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_shows_the_refusal_pulumi_up_would_make(tmp_path):
    """The case of issue 19: `args` of an applied AI Platform spec changed. `pulumi preview`
    refuses it; `diff` says so, located, with the code and the way out, in every format."""
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    spec = tmp_path / "specs" / "census.yaml"
    spec.parent.mkdir()
    spec.write_text(yaml.safe_dump(BASE["ai-platform"], sort_keys=False))
    git("add", "-A")
    git("commit", "-qm", "base")
    spec.write_text(spec.read_text().replace("--epochs=3", "--epochs=4"))
    outputs = {}
    for fmt in ("text", "markdown", "json"):
        out, err = io.StringIO(), io.StringIO()
        code = cli.main(["diff", "main", "--repo", str(tmp_path), "--project", PROJECT, "--region", REGION,
                         "--format", fmt], out, err)
        assert code == 1, err.getvalue()
        outputs[fmt] = out.getvalue()
    line = ("specs/census.yaml:4:9: error: $.metadata.name: AI Platform job 'census' cannot be "
            "changed (only its labels can) and its jobId can never be reused (set or bump "
            "metadata.run to submit the changed job as a new run, jobId <name>_run_<run>; the "
            "old one is cancelled first) [ml-job-immutable]")
    assert outputs["text"].splitlines()[2:7] == [
        "specs/census.yaml (job census, ai-platform)",
        "  error: pulumi up refuses this change",
        "  " + line,
        '    - trainingInput.args[0]: "--epochs=3"',
        '    + trainingInput.args[0]: "--epochs=4"']
    assert "1 of 1 spec file(s) changed: 1 error" in outputs["text"]
    assert "error: refused by pulumi up" in outputs["markdown"] and line in outputs["markdown"]
    assert '"code": "ml-job-immutable"' in outputs["json"]
