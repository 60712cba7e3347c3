"""The trainspec Pulumi program: one job per spec under `trainspec:specs` (a Vertex CustomJob or
HyperparameterTuningJob, or an AI Platform Training job, by spec.platform and kind).

Reads stack config, compiles every spec, and fails with every diagnostic (file:line:col)
before declaring anything if one spec is invalid: never a partial apply. Provider logic lives in
compiler/pulumi_resources/. It ships inside the package, so a specs repository's __main__.py is
three lines (compiler/_templates/__main__.py, written by `python -m compiler init`).
"""

from __future__ import annotations

import pulumi

from compiler import packaging, pipeline, tree
from compiler import pulumi_resources as jobs
from compiler.diagnostics import Diagnostic
from compiler.model import CONFIG_NAMESPACE
from compiler.options import Options
from compiler.report import format_text
from compiler.source.jsonpath import child


class Settings:
    """trainspec's stack settings, read like `pulumi config set KEY` writes them.

    A bare key lands in the Pulumi project's own namespace (``ml-jobs:protect`` in a project
    named ml-jobs); ``trainspec:KEY`` is read as well, so both spellings work whatever the project
    is called. The project's namespace wins when both are set.
    """

    def __init__(self) -> None:
        names = dict.fromkeys([pulumi.get_project(), CONFIG_NAMESPACE])
        self._configs = [pulumi.Config(n) for n in names]

    def _holder(self, key: str) -> pulumi.Config:
        # pulumi.runtime.get_config reads without the "value is a secret" warning of Config.get.
        return next((c for c in self._configs
                     if pulumi.runtime.get_config(c.full_key(key)) is not None), self._configs[-1])

    def get(self, key: str) -> str | None:
        return self._holder(key).get(key)

    def get_bool(self, key: str) -> bool | None:
        return self._holder(key).get_bool(key)

    def get_object(self, key: str):
        return self._holder(key).get_object(key)

    def get_secret(self, key: str) -> pulumi.Output | None:
        return self._holder(key).get_secret(key)

    def require_secret(self, key: str) -> pulumi.Output:
        return self._holder(key).require_secret(key)


def _secret_name(key: str) -> str:
    """``trainspec:KEY`` (how the compiler names a secret) → KEY."""
    return key.split(":", 1)[1]


def compile_specs(folder: str, options: Options) -> tuple[list[pipeline.Result], list[Diagnostic]]:
    """Every spec under `folder`, compiled, and every error found (including missing secrets)."""
    found = tree.compile_paths([folder], options)
    problems = found.errors
    if found.empty:
        problems.append(Diagnostic("$", f"no {tree.WHAT} found (trainspec:specs)", file=folder,
                                   code="no-specs"))
    results = found.results
    for r in results:
        if not r.ok:
            continue
        for key in r.job.secrets:
            if Settings().get_secret(_secret_name(key)) is None:
                problems.append(_at(r, _secret_path(r.document.data, key) or "$.spec",
                                    f"secret config {_secret_name(key)!r} is not set",
                                    f"pulumi config set --secret {_secret_name(key)} VALUE",
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


def upload(item: packaging.Upload) -> pulumi.CustomResource:
    """The object a python.source archive is uploaded to. Its name is the archive's content
    hash: a changed tree is a new object (and a new job, whose request names it); an unchanged
    one is the same object, so nothing is uploaded. Removing the last spec using it deletes it."""
    import pulumi_gcp as gcp  # only for specs with python.source: the import is slow

    assert item.package.archive is not None  # Options.package_dir is set by main()
    return gcp.storage.BucketObject(
        f"{item.bucket}/{item.package.object_name}", bucket=item.bucket,
        name=item.package.object_name, source=pulumi.FileAsset(item.package.archive),
        content_type="application/gzip")


def declare(result: pipeline.Result, keep_records: bool,
            opts: pulumi.ResourceOptions | None = None) -> pulumi.CustomResource:
    job = result.job
    resource = jobs.RESOURCES[(job.platform, job.kind)](
        job.name,
        request=result.body,
        project=job.project,
        region=job.region,
        spec_file=result.file,
        source_map=jobs.source_map(result),
        keep_job_records=keep_records,
        secret_env=secret_env(job.secrets),
        run=job.run,
        opts=opts,
    )
    exported = {"name": resource.name, "state": resource.state, "error": resource.error,
                "consoleUrl": resource.consoleUrl, "logsUrl": resource.logsUrl}
    if isinstance(resource, jobs.VertexHyperparameterTuningJob):
        exported.update(trialCount=resource.trialCount, bestTrial=resource.bestTrial)
    pulumi.export(job.name, exported)
    return resource


def service_account(project: str | None) -> pulumi.Output:
    """Optional per-stack service account that may submit jobs (roles/aiplatform.user)."""
    import pulumi_gcp as gcp  # only when asked for: the import is slow

    account = gcp.serviceaccount.Account(
        "trainspec-runner", account_id=f"trainspec-{pulumi.get_stack()}"[:30].rstrip("-"),
        display_name=f"trainspec jobs ({pulumi.get_stack()})", project=project)
    gcp.projects.IAMMember("trainspec-runner-aiplatform-user", project=account.project,
                           role="roles/aiplatform.user",
                           member=account.email.apply(lambda e: f"serviceAccount:{e}"))
    pulumi.export("serviceAccountEmail", account.email)
    return account.email


def output_bucket(name: str, project: str | None, region: str | None,
                  writer: pulumi.Output | None) -> None:
    """Optional bucket for the jobs' outputDir, with the stack's service account as writer."""
    import pulumi_gcp as gcp

    bucket = gcp.storage.Bucket("trainspec-outputs", name=name, project=project,
                                location=(region or "US").upper(),
                                uniform_bucket_level_access=True)
    if writer is not None:
        gcp.storage.BucketIAMMember("trainspec-outputs-writer", bucket=bucket.name,
                                    role="roles/storage.objectAdmin",
                                    member=writer.apply(lambda e: f"serviceAccount:{e}"))
    pulumi.export("outputBucket", bucket.name.apply(lambda n: f"gs://{n}"))


def main() -> dict[str, pulumi.CustomResource]:
    """The program; returns the declared jobs by name (for tests)."""
    config, gcp = Settings(), pulumi.Config("gcp")
    options = Options(project=gcp.get("project"), region=gcp.get("region"),
                      staging_bucket=config.get("stagingBucket"),
                      package_dir=str(packaging.cache_dir()))
    results, problems = compile_specs(config.get("specs") or "specs", options)
    options_by_job, config_problems = job_options(config, {r.job.name for r in results if r.ok})
    problems += config_problems
    if problems:
        raise pulumi.RunError(f"{len(problems)} error(s) in specs; nothing was declared:\n"
                              + format_text(problems))
    runner = service_account(gcp.get("project")) if config.get_bool("createServiceAccount") \
        else None
    if config.get("outputBucket"):
        output_bucket(config.get("outputBucket"), gcp.get("project"), gcp.get("region"), runner)
    keep = config.get_bool("keepJobRecords")
    keep = True if keep is None else keep  # run history is what users look at afterwards
    objects: dict[str, pulumi.CustomResource] = {}
    declared = {}
    for r in results:
        for item in r.uploads:
            if item.uri not in objects:
                objects[item.uri] = upload(item)
        opts = options_by_job.get(r.job.name)
        if r.uploads:  # the job is submitted only once its packages are uploaded
            opts = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(
                depends_on=[objects[u.uri] for u in r.uploads]))
        declared[r.job.name] = declare(r, keep, opts)
    return declared
