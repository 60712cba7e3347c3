"""The testing kit's assertions: a spec compiles to a request that conforms to the API's
discovery schema; a broken spec is refused with a located error; a whole repository compiles."""

from __future__ import annotations

import datetime
from pathlib import Path

import yaml

from .. import discovery, pipeline, tree
from ..options import Options
from ..targets import body_schema

# A fixed date keeps generated specs' warnings (image end of availability) reproducible.
TODAY = datetime.date(2026, 1, 15)


def to_yaml(spec: dict) -> str:
    """A spec dict as YAML text, keys in the dict's order (label and env order matter)."""
    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=1000)


def _text(spec: dict | str | bytes) -> str | bytes:
    return to_yaml(spec) if isinstance(spec, dict) else spec


def assert_compiles_conformant(spec: dict | str | bytes, options: Options = Options(),
                               file: str = "<generated>") -> pipeline.Result:
    """Compile `spec` (a dict or YAML text); fail unless it compiles without errors and the
    request body has no discovery-schema violation for its platform. Returns the Result."""
    result = pipeline.compile_text(_text(spec), file, options, TODAY)
    errors = "\n".join(d.format() for d in result.errors)
    assert result.ok, f"spec refused:\n{errors}\n--- spec ---\n{_text(spec)!s}"
    assert result.job is not None and result.body is not None
    api, schema = body_schema(result.job.platform, result.job.kind)
    found = discovery.violations(api, schema, result.body)
    assert found == [], f"{schema} violations: {found}\n--- spec ---\n{_text(spec)!s}"
    return result


def assert_refused_located(text: dict | str | bytes, options: Options = Options(),
                           file: str = "<mutated>") -> pipeline.Result:
    """Compile `text`; fail unless it is refused with at least one error carrying a line and
    column. Never raises anything but AssertionError for a compiler crash either."""
    try:
        result = pipeline.compile_text(_text(text), file, options, TODAY)
    except Exception as e:  # noqa: BLE001 - a crash is exactly what this reports
        raise AssertionError(f"compile_text raised {type(e).__name__}: {e}\n--- spec ---\n"
                             f"{_text(text)!s}") from e
    assert not result.ok, f"accepted, expected a refusal:\n{_text(text)!s}"
    assert result.errors, "refused without an error diagnostic"
    located = [d for d in result.errors if d.position is not None]
    assert located, ("no error has a line and column:\n" +
                     "\n".join(d.format() for d in result.errors))
    return result


def check_repo(path: str | Path = "specs", platform: str | None = None,
               project: str | None = None, region: str | None = None) -> list[pipeline.Result]:
    """Every *.yaml/*.yml under `path` compiles and conforms; fails listing every problem."""
    options = Options(platform=platform, project=project, region=region)
    found = tree.compile_paths([str(path)], options)  # as `validate` and the Pulumi program
    assert found.results and not found.missing, f"no spec files under {path}"
    problems = [d.format() for d in found.errors]
    for r in found.results:
        if r.ok:
            api, schema = body_schema(r.job.platform, r.job.kind)  # type: ignore[union-attr]
            problems += [f"{r.file}: {p}: {m}"
                         for p, m in discovery.violations(api, schema, r.body)]
    assert not problems, "\n".join(problems)
    return found.results

