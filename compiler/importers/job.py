"""`trainspec import --job NAME`: the spec of a job that exists, read from its API.

The job's create-settable fields (REQUEST_FIELDS) are its create request; the server's fields
(name, state, times, outputs) and trainspec's own ownership labels are dropped; the request goes
through the REST-body importer like any other. `pulumi import` of a job (the provider's Read
with only an id) writes the same spec, so a spec written here and a job adopted there agree.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from ..cloud.rest import ApiError, Client, ConfigError
from ..model import IDENTITY_LABEL, SPEC_HASH_LABEL
from . import decompile as file_import
from . import sources
from .decompile import Outcome, decompile, parse_flags

CUSTOM, TUNING, ML = "customJobs", "hyperparameterTuningJobs", "jobs"
# The fields of a job as read that its create request had (the rest is the server's):
# CustomJob, HyperparameterTuningJob [DD-AIP], ml v1 Job [DD-ML].
REQUEST_FIELDS = {
    CUSTOM: ("displayName", "jobSpec", "labels", "encryptionSpec"),
    TUNING: ("displayName", "studySpec", "maxTrialCount", "parallelTrialCount",
             "maxFailedTrialCount", "trialJobSpec", "labels", "encryptionSpec"),
    ML: ("jobId", "trainingInput", "labels"),
}
NAME_FORMS = ("projects/P/locations/R/customJobs/ID, "
              "projects/P/locations/R/hyperparameterTuningJobs/ID or projects/P/jobs/ID")


def collection(name: str) -> str | None:
    """CUSTOM, TUNING or ML for a job's resource name; None if it names no job."""
    parts = name.split("/")
    if len(parts) == 6 and parts[0] == "projects" and parts[2] == "locations" \
            and parts[4] in (CUSTOM, TUNING) and all(parts):
        return parts[4]
    if len(parts) == 4 and parts[0] == "projects" and parts[2] == ML and all(parts):
        return ML
    return None


def read(client: Client, name: str) -> dict:
    """The job as its API returns it (GET)."""
    return client.ml_get(name) if collection(name) == ML else client.vertex_get(name)


def request(name: str, job: dict) -> dict:
    """The create request of `job` (read from `name`): its create-settable fields, without the
    labels trainspec stamps on the jobs it creates."""
    kind = collection(name)
    if kind is None:
        raise ValueError(f"{name!r} is no job's resource name (expected {NAME_FORMS})")
    body = {k: job[k] for k in REQUEST_FIELDS[kind] if k in job}
    labels = {k: v for k, v in (body.get("labels") or {}).items()
              if k not in (IDENTITY_LABEL, SPEC_HASH_LABEL)}
    if labels:
        body["labels"] = labels
    else:
        body.pop("labels", None)
    return body


def to_spec(name: str, job: dict, args: argparse.Namespace | None = None) -> Outcome:
    """The spec whose compiled request is `job`'s create request. The project (and Vertex's
    region) come from the job's name unless `args` (import's flags) set them."""
    ns = args or parse_flags([])
    ns.job = name
    body = request(name, job)
    text = json.dumps(body)
    src, found = sources.load(text, name)
    if src is None:
        return Outcome(None, None, found)
    parts = name.split("/")
    src.project = parts[1]
    if parts[2] == "locations":
        src.region = parts[3]
    return decompile(text, name, ns, src)


def fetch(name: str, client: Client | None = None) -> tuple[dict | None, str]:
    """(the job, "") or (None, why it could not be read): a bad name, an API or endpoint
    failure, said in one line."""
    if collection(name) is None:
        return None, f"--job {name!r} is no job's resource name (expected {NAME_FORMS})"
    try:
        return read(client or Client(), name), ""
    except (ApiError, ConfigError) as exc:
        return None, f"{name}: {exc}"


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """`import --job NAME [flags]` (else `import FILE`): the job's spec on stdout."""
    if getattr(args, "job", None) is None:
        return file_import.run(args, out, err)
    if args.path is not None:
        err.write("error: import takes a FILE or --job RESOURCE_NAME, not both\n")
        return file_import.EXIT_USAGE
    found, problem = fetch(args.job)
    if found is None:
        err.write(f"error: {problem}\n")
        return 1
    return file_import.report(to_spec(args.job, found, args), out, err)
