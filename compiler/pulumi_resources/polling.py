"""Waiting on the APIs: for a created job to appear, for a cancelled one to end."""

from __future__ import annotations

import time

from ..cloud import stopping
from ..cloud.rest import ApiError
from .provider import JobError

# After a Vertex create with an unknown outcome, how long to watch for the job to appear before
# giving up without a second POST (TRAINSPEC_CREATE_SETTLE_SECONDS overrides).
CREATE_SETTLE_SECONDS = 60.0


def ignore_precondition(call) -> None:
    try:
        call()
    except ApiError as exc:
        if not stopping.ended_first(exc):
            raise


def settle_seconds() -> float:
    return stopping.env_seconds("TRAINSPEC_CREATE_SETTLE_SECONDS", CREATE_SETTLE_SECONDS)


def poll(find, seconds: float | None = None):
    """`find()` until it returns something, with backoff, for `seconds` (None if never)."""
    deadline = time.monotonic() + (settle_seconds() if seconds is None else seconds)
    delay = 0.5
    while True:
        found = find()
        if found is not None or time.monotonic() >= deadline:
            return found
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 2, 10.0)


def wait(get_state, done: frozenset, name: str) -> str:
    """Poll until the state is in `done`, within TRAINSPEC_CANCEL_TIMEOUT seconds."""
    limit = stopping.timeout()
    deadline, delay, state = time.monotonic() + limit, 0.25, ""
    while True:
        state = get_state() or ""
        if state in done:
            return state
        if time.monotonic() + delay > deadline:
            raise JobError(f"{name} is still {state or 'not terminal'} {limit:g}s after cancel; "
                           "run the command again later (the job stays in the stack)")
        time.sleep(delay)
        delay = min(delay * 2, 10.0)
