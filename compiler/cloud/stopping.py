"""Stopping a job, as the provider's delete and `trainspec cancel` both do it: cancel by the
job's resource name (either API), a cancel refused because the job has already ended is no
failure, and how long to wait for a cancelled job to stop."""

from __future__ import annotations

import os

from .jobs import is_final
from .rest import ApiError, Client

# Cancelling a real job takes seconds to minutes (its replicas are stopped); a wait gives up
# after this long (TRAINSPEC_CANCEL_TIMEOUT overrides).
CANCEL_TIMEOUT_SECONDS = 900.0


def timeout() -> float:
    """Seconds to wait for a cancelled job to stop: TRAINSPEC_CANCEL_TIMEOUT, else 900."""
    return env_seconds("TRAINSPEC_CANCEL_TIMEOUT", CANCEL_TIMEOUT_SECONDS)


def env_seconds(name: str, default: float) -> float:
    """A number of seconds from environment variable `name` (`default` if unset or not one)."""
    raw = os.environ.get(name)
    try:
        return max(0.0, float(raw)) if raw else default
    except ValueError:
        return default


def ended_first(exc: ApiError) -> bool:
    """The cancel was refused because the job reached a final state before it (between our
    read and the cancel): nothing left to stop."""
    return exc.status == 400 and exc.status_name == "FAILED_PRECONDITION"


def is_ml(name: str) -> bool:
    return "/locations/" not in name  # ml v1: projects/P/jobs/ID


def read(client: Client, name: str) -> dict:
    """The job `name` of either API (an ml job gets its `name`, which ml v1 does not return)."""
    if is_ml(name):
        return {**client.ml_get(name), "name": name}
    return client.vertex_get(name)


def request(client: Client, name: str) -> None:
    """Ask the API to cancel `name`; a job that has ended already is left as it is."""
    try:
        if is_ml(name):
            client.ml_cancel(name)
        else:
            client.vertex_cancel(name)
    except ApiError as exc:
        if not ended_first(exc):
            raise


def stopped(job: dict) -> bool:
    """A cancelled job has stopped once it is final (CANCELLING replicas still run)."""
    return is_final(job.get("state", ""))
