"""`trainspec cancel PATH`: the kill switch that needs no Pulumi. Every job still running of the
specs under PATH, in their stack, is cancelled at once; then all are waited for together until
each has stopped (a cancelled job's replicas run until it is final).

Which jobs: found as `status` finds them (`track.locate`): the jobs labelled with the owner
label of the spec's resource in the stack (`compiler.jobs.identity`, the label the provider
stamps; every run of the spec), the label checked again on each job the API returns. So a job
of another stack or Pulumi project, or one trainspec did not start, is never touched: the same
rule as the provider's delete. Jobs of specs no longer under PATH are not found (`pulumi
destroy` stops those).

Exit: 0 every job stopped (or none was running), 1 bad input (located errors, nothing sent) or
a cancel the API refused, 2 jobs still stopping at `--timeout`, 130 interrupted.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor
from typing import TextIO

from ..cloud import jobs as api
from ..cloud import stopping
from ..cloud.rest import ApiError
from . import track, watch


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders")
    p.add_argument("--dry-run", action="store_true",
                   help="list the jobs that would be cancelled; cancel nothing")
    p.add_argument("--no-wait", action="store_true",
                   help="exit once every cancel is accepted, without waiting for the jobs to stop")
    p.add_argument("--timeout", type=watch.duration_arg, metavar="DURATION",
                   help="stop waiting after DURATION with exit 2 (default: "
                        "TRAINSPEC_CANCEL_TIMEOUT seconds, else 15m)")
    p.add_argument("--interval", type=watch.duration_arg, default=2.0, metavar="DURATION",
                   help="time between reads while waiting (default 2s)")
    watch._common(p)


@watch._guard
def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Cancel every running job of the specs under PATH, concurrently, and wait for them."""
    found, _ = watch._find(args.paths, args, err)
    running = [(f, job) for f in found for job in f.jobs
               if not api.is_final(job.get("state", ""))]
    stacks = sorted({f.stack.qualified for f in found})
    verb = "would cancel" if args.dry_run else "cancelling"
    out.write(f"stack {', '.join(stacks)}: {len(running)} running job(s) of "
              f"{len(found)} spec(s)\n")
    for f, job in running:
        out.write(f"{verb} {f.name} ({f.result.file}): {job['name']} "
                  f"{api.short_state(job.get('state', ''))}\n")
    if args.dry_run or not running:
        if args.dry_run:
            out.write("dry run: nothing was cancelled\n")
        return watch.EXIT_OK
    out.flush()

    clients = watch.Clients()
    start = watch.monotonic()
    with ThreadPoolExecutor(max_workers=min(watch.CONCURRENCY, len(running))) as pool:
        def cancel(item: tuple[track.Found, dict]) -> str | None:
            f, job = item
            if job.get("state", "").endswith("CANCELLING"):
                return None  # cancelled already: only waited for
            try:
                stopping.request(clients.get(), job["name"])
            except ApiError as exc:
                return f"error: {f.result.file}: {f.name}: cancelling {job['name']}: {exc}"
            return None

        outcomes = list(pool.map(cancel, running))  # per job: its refusal, or None
        refused = [e for e in outcomes if e]
        for line in refused:
            err.write(line + "\n")
        pending = [item for item, e in zip(running, outcomes, strict=True) if not e]
        if args.no_wait:
            out.write(f"cancel requested for {len(pending)} job(s)\n")
            return watch.EXIT_FAILED if refused else watch.EXIT_OK
        limit = stopping.timeout() if args.timeout is None else args.timeout
        left = _wait(pending, pool, clients, args.interval, start + limit, start, out)
    took = track.human_seconds(watch.monotonic() - start)
    if left:
        names = ", ".join(f"{f.name} ({api.short_state(job.get('state', ''))})"
                          for f, job in left)
        err.write(f"timeout after {track.human_seconds(limit)}: still stopping: {names}\n")
        return watch.EXIT_TIMEOUT
    out.write(f"stopped {len(pending)} job(s) ({took})\n")
    return watch.EXIT_FAILED if refused else watch.EXIT_OK


def _wait(pending: list[tuple[track.Found, dict]], pool: ThreadPoolExecutor, clients: watch.Clients,
          interval: float, deadline: float, start: float,
          out: TextIO) -> list[tuple[track.Found, dict]]:
    """Read every job not yet stopped, all at once, each `interval`, until all have stopped or
    `deadline`; report each change. Returns the jobs still not stopped."""
    last = {job["name"]: api.short_state(job.get("state", "")) for _, job in pending}
    left = list(pending)
    while left:
        now = watch.monotonic()
        if now >= deadline:
            return left
        watch.sleep(min(interval, deadline - now))

        def read(item: tuple[track.Found, dict]) -> tuple[track.Found, dict]:
            f, job = item
            try:
                return f, stopping.read(clients.get(), job["name"])
            except ApiError as exc:
                if exc.not_found:  # deleted meanwhile: nothing runs
                    return f, {**job, "state": "CANCELLED"}
                raise

        fresh = list(pool.map(read, left))
        elapsed = track.human_seconds(watch.monotonic() - start)
        for f, job in fresh:
            state = api.short_state(job.get("state", ""))
            if last.get(job["name"]) != state:
                out.write(f"[{elapsed:>7}] {f.name}: {last.get(job['name'])} → {state}\n")
                last[job["name"]] = state
        out.flush()
        left = [(f, job) for f, job in fresh if not stopping.stopped(job)]
    return left
