"""Rules that need generated inputs (too big or too repetitive for golden files)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import jsonschema
import pytest

from compiler import discovery, durations, pipeline
from compiler.options import Options
from compiler.schema import validate as schemas
from compiler.targets import body_schema

ROOT = Path(__file__).resolve().parent.parent
TODAY = datetime.date(2026, 11, 22)


def spec(body: str, meta: str = "metadata: {name: job}") -> str:
    return f"apiVersion: trainspec/v1\nkind: TrainingJob\n{meta}\nspec:\n{body}"


def errors(text: str, platform: str = "vertex") -> list[str]:
    result = pipeline.compile_text(text, "s.yaml", Options(platform=platform), today=TODAY)
    return [d.format() for d in result.errors]


def test_published_schema_is_valid_against_its_metaschema() -> None:
    jsonschema.Draft202012Validator.check_schema(schemas.schema())


def test_every_example_spec_is_valid_and_conformant() -> None:
    files = sorted((ROOT / "specs").rglob("*.yaml"))
    assert len(files) >= 6
    for f in files:
        result = pipeline.compile_file(str(f), today=TODAY)
        assert result.ok, [d.format() for d in result.errors]
        api, name = body_schema(result.job.platform, result.job.kind)
        assert discovery.violations(api, name, result.body) == [], f


@pytest.mark.parametrize("count,ok", [(100, True), (101, False)])
def test_at_most_100_packages(count: int, ok: bool) -> None:
    packages = ", ".join(f"gs://b/p{i}.tar.gz" for i in range(count))
    text = spec(f"  python:\n    packages: [{packages}]\n    module: t\n"
                "    executorImage: us-docker.pkg.dev/vertex-ai/training/ray-cpu.2-47.py311:latest\n")
    found = errors(text)
    assert (found == []) is ok
    if not ok:
        assert "s.yaml:6:15: error: $.spec.python.packages: 101 packages: at most 100 " \
            "[package-count]" in found


@pytest.mark.parametrize("size,ok", [(100_000, True), (100_001, False)])
def test_total_args_over_100000_characters_warns(size: int, ok: bool) -> None:
    """No args limit is documented (facts §D.1, ❌): a warning, never a refusal."""
    arg = "x" * (size - 12)  # + "run" + "123456789" = size characters
    text = spec(f"  container: {{image: gcr.io/p/t:1, command: [run], args: [{arg}, '123456789']}}\n")
    result = pipeline.compile_text(text, "s.yaml", Options())
    assert result.ok
    warned = [d.message for d in result.diagnostics if not d.is_error]
    assert (warned == []) is ok, warned
    if not ok:
        assert "command and args total 100001 characters: more than 100000" in warned[0]


def test_at_most_100_env_vars_per_pool() -> None:
    env = ", ".join(f"V{i}: x" for i in range(101))
    found = errors(spec(f"  container: {{image: gcr.io/p/t:1}}\n  env: {{{env}}}\n"))
    assert any("101 environment variables: at most 100" in e for e in found)


@pytest.mark.parametrize("platform,limit", [("vertex", 61), ("ai-platform", 61)])
def test_label_count_limit(platform: str, limit: int) -> None:
    def labels(n: int) -> str:
        return "metadata:\n  name: job\n  labels: {" + ", ".join(f"k{i}: v" for i in range(n)) + "}"
    body = "  region: us-central1\n  container: {image: gcr.io/p/t:1}\n"
    assert errors(spec(body, labels(limit)), platform) == []
    found = errors(spec(body, labels(limit + 1)), platform)
    assert any(f"{limit + 1} labels: at most {limit}" in e for e in found)


def test_international_lower_case_labels_are_allowed() -> None:
    assert errors(spec("  container: {image: gcr.io/p/t:1}\n",
                       "metadata: {name: job, labels: {équipe: données, 团队: 视觉}}")) == []


def test_label_key_and_value_length() -> None:
    body = "  container: {image: gcr.io/p/t:1}\n"
    found = errors(spec(body, f"metadata: {{name: job, labels: {{a{'b' * 63}: v, k: {'v' * 64}}}}}"))
    assert len(found) == 2


@pytest.mark.parametrize("written,payload", [
    ("90s", "90s"), ("30m", "1800s"), ("2h", "7200s"), ("1d", "86400s"), ("1h30m", "5400s"),
    ("5400", "5400s"), ("1.5s", "1.5s"), ("1d2h3m4s", "93784s")])
def test_durations(written: str, payload: str) -> None:
    assert durations.to_google(durations.parse(written)) == payload
    text = spec(f"  container: {{image: gcr.io/p/t:1}}\n  scheduling: {{timeout: '{written}'}}\n")
    body = pipeline.compile_text(text, "s.yaml", today=TODAY).body
    assert body["jobSpec"]["scheduling"]["timeout"] == payload


@pytest.mark.parametrize("bad", ["2 h", "h", "-5", "1h30", "soon", "1w"])
def test_bad_durations_are_located(bad: str) -> None:
    found = errors(spec(f"  container: {{image: gcr.io/p/t:1}}\n  scheduling: {{timeout: '{bad}'}}\n"))
    assert found and found[0].startswith("s.yaml:6:25: error: $.spec.scheduling.timeout")


def test_ai_platform_job_id_is_derived_and_stable() -> None:
    text = spec("  region: us-central1\n  container: {image: gcr.io/p/t:1}\n",
                "metadata: {name: my-job-v2_final}")
    bodies = [pipeline.compile_text(text, "s.yaml", Options(platform="ai-platform"),
                                    today=TODAY).body for _ in range(2)]
    assert bodies[0]["jobId"] == "my_job_v2_final"
    assert json.dumps(bodies[0]) == json.dumps(bodies[1])


def test_secret_env_values_never_reach_the_body() -> None:
    text = spec("  container: {image: gcr.io/p/t:1}\n  env: {TOKEN: {secret: apiToken}}\n")
    result = pipeline.compile_text(text, "s.yaml", today=TODAY)
    env = result.body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]["env"]
    assert env == [{"name": "TOKEN", "value": "<secret:trainspec:apiToken>"}]
    assert result.job.secrets == ["trainspec:apiToken"]


@pytest.mark.parametrize("key", ["apiToken", "trainspec:apiToken"])
def test_a_secret_is_a_trainspec_config_key(key: str) -> None:
    text = spec(f"  container: {{image: gcr.io/p/t:1}}\n  env: {{TOKEN: {{secret: '{key}'}}}}\n")
    result = pipeline.compile_text(text, "s.yaml", today=TODAY)
    assert result.ok and result.job.secrets == ["trainspec:apiToken"]


# Another namespace would read another provider's stack config (gcp:credentials) into the job;
# an empty key or one with characters a Pulumi config key cannot hold names no config at all.
@pytest.mark.parametrize("key", ["gcp:credentials", "aws:secretKey", "foo:bar", "Trainspec:tok",
                                 "trainspec:config:tok", ":tok", "trainspec:", "", "my key",
                                 "tok/en", "1tok"])
@pytest.mark.parametrize("platform", ["vertex", "ai-platform"])
@pytest.mark.parametrize("where,line,path", [
    pytest.param("  env: {TOKEN: {secret: '%s'}}\n", 7, "$.spec.env.TOKEN.secret", id="spec"),
    pytest.param("  pools:\n    chief:\n      env: {TOKEN: {secret: '%s'}}\n", 9,
                 "$.spec.pools.chief.env.TOKEN.secret", id="pool")])
def test_a_secret_from_another_namespace_is_a_located_error(
        key: str, platform: str, where: str, line: int, path: str) -> None:
    text = spec("  region: us-central1\n  container: {image: gcr.io/p/t:1}\n" + where % key)
    result = pipeline.compile_text(text, "s.yaml", Options(platform=platform), today=TODAY)
    found = [d for d in result.errors if d.path == path]
    assert len(found) == 1 and not result.ok, [d.format() for d in result.errors]
    assert found[0].position.line == line and "not a trainspec config key" in found[0].message
    assert "pulumi config set --secret trainspec:KEY VALUE" in found[0].hint
    # The model never names a foreign key either (the Pulumi program reads what it lists).
    assert all(s.startswith("trainspec:") for s in result.job.secrets)


@pytest.mark.parametrize("written,message", [
    ("99999999999999999999s", "longer than the APIs' maximum duration"),
    ("1.0e+20", "longer than the APIs' maximum duration"),
    ("1000000000000000", "longer than the APIs' maximum duration"),
    ("0.0000000001", "shorter than a nanosecond"),
    ("1.9999999999s", "more precise than a nanosecond"),
    ("1.9999999999", "more precise than a nanosecond"),
    ("1.00000000001m", "more precise than a nanosecond"),
])
def test_out_of_range_durations_are_located_errors(written: str, message: str) -> None:
    found = errors(spec(f"  container: {{image: gcr.io/p/t:1}}\n  scheduling: {{timeout: {written}}}\n"))
    assert len(found) == 1 and found[0].startswith("s.yaml:6:25: error: $.spec.scheduling.timeout")
    assert message in found[0]


@pytest.mark.parametrize("platform,field", [("vertex", ("jobSpec", "scheduling", "timeout")),
                                            ("ai-platform", ("trainingInput", "scheduling",
                                                             "maxRunningTime"))])
@pytest.mark.parametrize("written,sent", [("1.999999999s", "1.999999999s"),
                                          ("0.0000000001m", "0.000000006s"),
                                          ("1h0.5s", "3600.5s"), ("90", "90s")])
def test_a_duration_within_nanoseconds_is_sent_exactly(platform: str, field: tuple, written: str,
                                                       sent: str) -> None:
    text = spec(f"  region: us-central1\n  container: {{image: gcr.io/p/t:1}}\n"
                f"  scheduling: {{timeout: {written}}}\n")
    result = pipeline.compile_text(text, "s.yaml", Options(platform=platform), today=TODAY)
    assert result.ok, [d.format() for d in result.errors]
    node = result.body
    for key in field:
        node = node[key]
    assert node == sent


def test_ml_command_moves_args_into_container_args() -> None:
    text = spec("  region: us-central1\n  container: {image: gcr.io/p/t:1, command: [python, t.py],"
                " args: [--epochs, '5']}\n")
    body = pipeline.compile_text(text, "s.yaml", Options(platform="ai-platform"), today=TODAY).body
    master = body["trainingInput"]["masterConfig"]
    assert master["containerCommand"] == ["python", "t.py"]
    assert master["containerArgs"] == ["--epochs", "5"]
    assert "args" not in body["trainingInput"]


def test_a_secret_overridden_in_every_pool_is_not_required() -> None:
    text = spec("  container: {image: gcr.io/p/t:1}\n  env: {TOKEN: {secret: tok}}\n"
                "  pools:\n    chief: {env: {TOKEN: plain}}\n")
    result = pipeline.compile_text(text, "s.yaml", today=TODAY)
    assert result.ok and result.job.secrets == []
    assert "<secret:" not in json.dumps(result.body)


@pytest.mark.parametrize("meta,body,where", [
    ('metadata: {name: "job\\n"}', "", "$.metadata.name"),
    ("metadata: {name: job}", '  serviceAccount: "trainer@p.iam.gserviceaccount.com\\n"\n',
     "$.spec.serviceAccount"),
    ("metadata: {name: job}", '  pools: {chief: {tpuTopology: "2x2\\n"}}\n',
     "$.spec.pools.chief.tpuTopology"),
])
def test_a_trailing_newline_is_not_part_of_a_valid_value(meta: str, body: str,
                                                         where: str) -> None:
    """JSON Schema patterns are ECMA-262: `$` ends the text. Python's `$` also matches before
    a final newline, which let `name: "job\\n"` through, to be sent with its newline."""
    text = spec(body + "  container: {image: gcr.io/p/t:1}\n", meta)
    found = errors(text, "vertex")
    assert any(f"error: {where}: " in line and line.endswith("[value-format]") for line in found), found


def test_an_ml_job_id_with_a_trailing_newline_is_refused() -> None:
    from compiler.targets import ml_check

    assert ml_check.JOB_ID.match("job") and not ml_check.JOB_ID.match("job\n")
