"""`trainspec:index:Specs`: a folder of specs as one resource, in any Pulumi language.

The provider constructs it (the engine calls Construct; the provider registers the jobs through
the engine's resource monitor, as a program would). It does what the Python program did: every
spec compiled, and every error (with missing secrets and bad `protect`/`retainOnDelete`
settings) reported before anything is declared; then one job per spec, named by its
metadata.name, with its secret env values from stack config, and its outputs in `jobs`.
"""

from __future__ import annotations

import pulumi

from .. import pulumi_program as program
from ..diagnostics import format_text
from ..options import Options
from .jobs import Config, resource_type, token
from .sdk import JOBS

TYPE = token("Specs")
# The types a job had under the dynamic providers (before 0.2): aliases keep its state and job.
OLD_TYPE_PREFIX = "pulumi-python:dynamic/trainspec:"


class Specs(pulumi.ComponentResource):
    jobs: pulumi.Output[dict]

    def __init__(self, name: str, path: str, config: Config,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        settings, gcp = program.Settings(), pulumi.Config("gcp")
        options = Options(project=config.project or gcp.get("project"),
                          region=config.region or gcp.get("region"),
                          staging_bucket=settings.get("stagingBucket"))
        results, problems = program.compile_specs(path, options)
        by_job, more = program.job_options(settings, {r.job.name for r in results if r.ok})
        problems += more
        problems += [program._at(r, "$.spec.python.source", "python.source archives are not "
                                 "uploaded by the trainspec provider yet",
                                 "apply this spec with trainspec's Python program",
                                 code="provider-python-source")
                     for r in results if r.ok and r.uploads]
        if problems:
            raise pulumi.RunError(f"{len(problems)} error(s) in specs; nothing was declared:\n"
                                  + format_text(problems))
        super().__init__(TYPE, name, None, opts)
        keep = settings.get_bool("keepJobRecords")
        keep = config.keep_job_records if keep is None else keep
        exported = {}
        for r in results:
            job = r.job
            wanted = resource_type(job.platform, job.kind)
            stack, project = pulumi.get_stack(), pulumi.get_project()
            # This resource is also: a job declared by the dynamic providers' program, or
            # imported with `pulumi import` (top-level resources), and a job of another kind
            # here (a changed spec.kind or platform).
            top = [f"{OLD_TYPE_PREFIX}{t.rsplit(':', 1)[1]}" for t in JOBS] + list(JOBS)
            aliases = [f"urn:pulumi:{stack}::{project}::{t}::{job.name}" for t in top] + [
                pulumi.Alias(type_=t) for t in JOBS if t != wanted]
            opts = pulumi.ResourceOptions.merge(by_job.get(job.name), pulumi.ResourceOptions(
                parent=self, aliases=aliases))
            resource = JOBS[wanted](
                job.name, spec_file=r.file, project=job.project, region=job.region,
                keep_job_records=True if keep is None else keep,
                secret_env=program.secret_env(job.secrets),
                organization=pulumi.get_organization(), opts=opts)
            exported[job.name] = {k: getattr(resource, k) for k in (
                "name", "state", "error", "consoleUrl", "logsUrl", *(
                    ("trialCount", "bestTrial") if job.kind != "TrainingJob"
                    and job.platform == "vertex" else ()))}
        self.jobs = pulumi.Output.from_input(exported)
        self.register_outputs({"jobs": self.jobs})
