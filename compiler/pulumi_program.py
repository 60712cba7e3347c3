"""The trainspec Pulumi program: one job per spec under `trainspec:specs` (a Vertex CustomJob or
HyperparameterTuningJob, or an AI Platform Training job, by spec.platform and kind).

Reads stack config, compiles every spec, and fails with every diagnostic (file:line:col)
before declaring anything if one spec is invalid: never a partial apply. The jobs are the
trainspec provider's (compiler/provider/: the `Specs` component, served by the plugin
`pulumi-resource-trainspec`); a stack created with the dynamic providers of trainspec 0.1
(compiler/pulumi_resources/, kept for their state) moves over by aliases. It ships inside the
package, so a specs repository's __main__.py is three lines (compiler/_templates/__main__.py,
written by `python -m compiler init`).
"""

from __future__ import annotations

import os

import pulumi

from compiler import packaging
from compiler.provider.stack import Settings, compile_specs, job_options, secret_env

__all__ = ["main", "Settings", "compile_specs", "job_options", "secret_env"]


def upload(item: packaging.Upload) -> pulumi.CustomResource:
    """The object a python.source archive is uploaded to. Its name is the archive's content
    hash: a changed tree is a new object (and a new job, whose request names it); an unchanged
    one is the same object, so nothing is uploaded. Never deleted (`retain_on_delete`): another
    stack's job may run the same archive, and a later release drops this resource (the job
    resource uploads its archive itself, compiler/provider/uploads.py) without deleting it."""
    import pulumi_gcp as gcp  # only for specs with python.source: the import is slow

    assert item.package.archive is not None  # Options.package_dir is set by main()
    return gcp.storage.BucketObject(
        f"{item.bucket}/{item.package.object_name}", bucket=item.bucket,
        name=item.package.object_name, source=pulumi.FileAsset(item.package.archive),
        content_type="application/gzip", opts=pulumi.ResourceOptions(retain_on_delete=True))


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
    """The program; returns the declared jobs by name (for tests).

    The jobs are the trainspec provider's (`trainspec:index:Specs` and its job resources, the
    same component a YAML program declares, whose Create uploads a python.source archive
    itself); this program adds what needs pulumi-gcp: the python.source objects its stacks
    already hold (kept for them, see `upload`), and the optional service account and bucket.
    """
    from .provider.component import Specs, compile_folder, stack_options
    from .provider.jobs import Config

    config = Settings()
    provider_config = Config()  # defaults come from gcp:project / gcp:region, as before
    options = stack_options(provider_config, str(packaging.cache_dir()))
    results = compile_folder(config.get("specs") or "specs", options)
    gcp = pulumi.Config("gcp")
    runner = service_account(gcp.get("project")) if config.get_bool("createServiceAccount") \
        else None
    if config.get("outputBucket"):
        output_bucket(config.get("outputBucket"), gcp.get("project"), gcp.get("region"), runner)
    objects: dict[str, pulumi.CustomResource] = {}
    depends: dict[str, list[pulumi.Resource]] = {}
    # Against another endpoint (the emulator) pulumi-gcp would upload to Google's Cloud Storage,
    # or fail without its plugin: the job resource uploads to that endpoint itself.
    google = not (pulumi.Config("trainspec").get("endpoint")  # the provider's, as it reads it
                  or os.environ.get("TRAINSPEC_API_ENDPOINT"))
    for r in results:
        for item in r.uploads if google else ():
            if item.uri not in objects:
                objects[item.uri] = upload(item)
        # The job is submitted only once its packages are uploaded.
        depends[r.job.name] = [objects[u.uri] for u in r.uploads if u.uri in objects]
    specs = Specs("specs", results, provider_config, depends_on=depends, options=options,
                  register_jobs=False)
    # One stack output for every job (`pulumi stack output jobs`), not one per job: the state
    # is saved after every step, so its size per job is paid once per job per step.
    pulumi.export("jobs", specs.jobs)
    return specs.resources
