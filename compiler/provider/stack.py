"""The stack's settings as trainspec reads them (stack config, secrets, per-job Pulumi options),
and every spec of a folder compiled with every problem found: what the `Specs` component
(compiler/provider/component.py) and the Python program (compiler/pulumi_program.py) share.
"""

from __future__ import annotations

from collections.abc import Callable

import pulumi

from .. import pipeline, tree
from ..diagnostics import Diagnostic
from ..model import CONFIG_NAMESPACE
from ..options import Options
from ..source.jsonpath import child


class Settings:
    """trainspec's stack settings, with one rule for which key wins (docs/pulumi.md, "Stack
    settings"):

      * a setting is ``trainspec:KEY`` when that is set, else ``<project>:KEY`` (where a bare
        `pulumi config set KEY` writes in a project not named trainspec). Pulumi.yaml can give a
        default only to a key of the project's own namespace, so a value set as
        ``trainspec:KEY`` never loses to a default;
      * a secret (`{secret: KEY}` in a spec) is ``trainspec:KEY`` only, whatever the project is
        called: in a project named `gcp`, ``gcp:credentials`` is pulumi-gcp's, never a job's.
    """

    def __init__(self) -> None:
        names = dict.fromkeys([CONFIG_NAMESPACE, pulumi.get_project()])
        self._configs = [pulumi.Config(n) for n in names]

    def _holder(self, key: str) -> pulumi.Config:
        # pulumi.runtime.get_config reads without the "value is a secret" warning of Config.get.
        return next((c for c in self._configs
                     if pulumi.runtime.get_config(c.full_key(key)) is not None), self._configs[0])

    def get(self, key: str) -> str | None:
        return self._holder(key).get(key)

    def get_bool(self, key: str) -> bool | None:
        return self._holder(key).get_bool(key)

    def get_object(self, key: str):
        return self._holder(key).get_object(key)

    def get_secret(self, key: str) -> pulumi.Output | None:
        return self._configs[0].get_secret(key)

    def require_secret(self, key: str) -> pulumi.Output:
        return self._configs[0].require_secret(key)

    def elsewhere(self, key: str) -> str | None:
        """The full key of `key` in the project's namespace if it is set there (a secret set
        with a bare `pulumi config set --secret KEY`, which is never read)."""
        return next((c.full_key(key) for c in self._configs[1:]
                     if pulumi.runtime.get_config(c.full_key(key)) is not None), None)


def _secret_name(key: str) -> str:
    """``trainspec:KEY`` (how the compiler names a secret) → KEY."""
    return key.split(":", 1)[1]


def compile_specs(folder: str, options: Options, compile_file: Callable[[str], pipeline.Result]
                  | None = None) -> tuple[list[pipeline.Result], list[Diagnostic]]:
    """Every spec under `folder`, compiled (by `compile_file`, else the pipeline), and every
    error found (including missing secrets), with the warnings of the folder itself (a folder
    link not entered)."""
    found = tree.compile_paths([folder], options, compile_file=compile_file)
    problems = found.errors + [d for d in found.missing if not d.is_error]
    if found.empty:
        problems.append(Diagnostic("$", f"no {tree.WHAT} found (trainspec:specs)", file=folder,
                                   code="no-specs"))
    results, settings = found.results, Settings()
    for r in results:
        if not r.ok:
            continue
        for key in r.job.secrets:
            if settings.get_secret(_secret_name(key)) is None:
                other = settings.elsewhere(_secret_name(key))
                found = (f"; {other} is set, but secrets are read only from trainspec:, "
                         "whatever the project is called") if other else ""
                problems.append(_at(r, _secret_path(r.document.data, key) or "$.spec",
                                    f"secret config {key!r} is not set{found}",
                                    f"pulumi config set --secret {key} VALUE",
                                    code="secret-not-set"))
        problems += pipeline.location_errors(r)
    return results, problems


def _at(result: pipeline.Result, path: str, message: str, hint: str | None = None, *,
        code: str) -> Diagnostic:
    """An error at `path` (a missing key is positioned at its parent)."""
    return Diagnostic(path, message, file=result.file,
                      position=result.document.collector().locate(path), hint=hint, code=code)


def _secret_path(data, key: str, path: str = "$") -> str | None:
    """The JSON path of the env value `{secret: ...}` that names config `key`."""
    if isinstance(data, dict):
        secret = data.get("secret")
        if isinstance(secret, str) and key in (secret, f"trainspec:{secret}"):
            return path
        items = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return None
    for k, v in items:
        found = _secret_path(v, key, child(path, k))
        if found:
            return found
    return None


def secret_env(keys: list[str]) -> pulumi.Output | dict:
    """{config key: value} for the secret env values of one job, as one secret Output."""
    if not keys:
        return {}
    settings = Settings()
    values = {k: settings.require_secret(_secret_name(k)) for k in keys}
    return pulumi.Output.secret(pulumi.Output.all(**values))


def job_options(config: Settings, names: set[str]) -> tuple[dict, list[Diagnostic]]:
    """{job name: ResourceOptions} from `trainspec:protect` / `trainspec:retainOnDelete`.

    Each is a list of job names (metadata.name), or ["*"] for every job: `protect` makes Pulumi
    refuse to delete or replace the job; `retainOnDelete` leaves the job running when its spec
    is removed or the stack destroyed (Pulumi forgets it instead of cancelling it).
    """
    chosen: dict[str, dict[str, bool]] = {}
    problems: list[Diagnostic] = []
    for key, option in (("protect", "protect"), ("retainOnDelete", "retain_on_delete")):
        value = config.get_object(key) or []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(Diagnostic("$", f"trainspec:{key} must be a list of job names or "
                                       '["*"]', file="Pulumi stack config", code="stack-option"))
            continue
        for name in value:
            if name != "*" and name not in names:
                problems.append(Diagnostic("$", f"trainspec:{key}: no spec has metadata.name "
                                           f"{name!r}", file="Pulumi stack config",
                                           code="stack-option-job"))
        for name in names if "*" in value else set(value) & names:
            chosen.setdefault(name, {})[option] = True
    return {n: pulumi.ResourceOptions(**o) for n, o in chosen.items()}, problems
