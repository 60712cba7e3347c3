"""The provider compiles each spec once per operation (compiler/provider/compiled.py): the
`Specs` component's compile is the one each job's Check uses, and a changed spec, option or
repo config compiles again. The source map is kept once in a job's state (an input only)."""

from __future__ import annotations

import pytest
from job_specs import vertex

from compiler import pipeline
from compiler.options import Options
from compiler.packaging import cache_dir
from compiler.provider import compiled, jobs, server

URN = "urn:pulumi:dev::acme::trainspec:index:Specs$trainspec:index:VertexCustomJob::bert"
# As the component compiles the folder in the provider (its Check builds archives in the cache).
OPTIONS = Options(project="acme-test", region="us-central1", package_dir=str(cache_dir()))


@pytest.fixture
def compiles(monkeypatch, tmp_path):
    """The files pipeline.compile_file compiled, in order (the cache starts empty)."""
    seen: list[str] = []
    real = pipeline.compile_file

    def counted(path, options=Options(), *args, **kwargs):
        seen.append(path)
        return real(path, options, *args, **kwargs)

    monkeypatch.setattr(pipeline, "compile_file", counted)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()  # the repository's root: no config above it is read
    compiled.clear()
    yield seen
    compiled.clear()


def test_check_uses_the_component_s_compile(compiles, tmp_path):
    (tmp_path / "bert.yaml").write_text(vertex())
    first = compiled.compile_file("bert.yaml", OPTIONS)
    checked = jobs.check(jobs.token("VertexCustomJob"), URN, {},
                         {"specFile": "bert.yaml", "project": "acme-test",
                          "region": "us-central1"}, jobs.Config())
    assert checked.failures == [] and checked.inputs["request"] == first.body
    assert compiles == ["bert.yaml"]  # the Check found the component's result


def test_a_changed_spec_option_or_config_compiles_again(compiles, tmp_path):
    spec = tmp_path / "bert.yaml"
    spec.write_text(vertex())
    compiled.compile_file("bert.yaml", OPTIONS)
    compiled.compile_file("bert.yaml", OPTIONS)
    assert len(compiles) == 1
    spec.write_text(vertex(steps=7))
    assert "7" in str(compiled.compile_file("bert.yaml", OPTIONS).body)
    compiled.compile_file("bert.yaml", Options(project="acme-other", region="us-central1",
                                                 package_dir=str(cache_dir())))
    (tmp_path / "trainspec.yaml").write_text("ignore: [no-such-rule]\n")
    compiled.compile_file("bert.yaml", OPTIONS)
    assert len(compiles) == 4


def test_a_caller_changing_its_result_leaves_the_kept_one_alone(compiles, tmp_path):
    (tmp_path / "bert.yaml").write_text(vertex())
    mine = compiled.compile_file("bert.yaml", OPTIONS)
    mine.diagnostics = mine.diagnostics + ["a tree's note"]
    assert "a tree's note" not in compiled.compile_file("bert.yaml", OPTIONS).diagnostics


def test_the_source_map_is_not_an_output():
    outs = {"request": {"displayName": "bert"}, "sourceMap": {"*": {"at": "bert.yaml:6:1"}},
            "name": "projects/p/locations/r/customJobs/1"}
    encoded = server.Servicer._outs(outs, set())
    assert set(encoded.keys()) == {"request", "name"}
