"""`status`, `logs` and `wait`: what became of the jobs a repository's specs describe.

Each finds a spec's job from the spec alone (`compiler.track`, `compiler.workspace`): no Pulumi
state, the same auth and endpoint rules as the providers (`compiler.cloud.rest.Client`).
Bad input (a missing or invalid spec, no Pulumi stack) is reported as located errors and exit
1 before any API call; no command leaves a traceback, and Ctrl-C stops quietly (exit 130).
`status`'s text table is table.py.
"""

from __future__ import annotations

import argparse
import datetime
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TextIO

from .. import durations, pipeline, tree
from ..cloud import jobs as api
from ..cloud.rest import ApiError, Client, ConfigError
from ..report import format_text
from . import former, track
from . import log as joblog
from . import table as status_table
from .identity import IDENTITY_LABEL, former_stacks
from .workspace import RENAMED_FROM, Stack, WorkspaceError, resolve

EXIT_OK, EXIT_FAILED, EXIT_TIMEOUT, EXIT_INTERRUPTED = 0, 1, 2, 130
CONCURRENCY = 64  # API calls in flight at once (look-ups; `cancel`'s cancels and reads)
# The clock, replaceable in tests (so that `--follow` and `wait` run in milliseconds).
sleep: Callable[[float], None] = time.sleep
monotonic: Callable[[], float] = time.monotonic


def utcnow() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


class Stop(Exception):
    """A command cannot go on; `code` is its exit status, the message already printed."""

    def __init__(self, code: int):
        super().__init__(code)
        self.code = code


# --- arguments ---------------------------------------------------------------------------------

def duration_arg(text: str) -> float:
    """argparse type: 2h, 30m, 90s, 1h30m or seconds."""
    seconds = durations.parse(text)
    if seconds is None or seconds <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration (e.g. 90s, 30m, 2h, 1h30m)")
    return float(seconds)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--stack", metavar="NAME", help="whose jobs: STACK, ORG/STACK or "
                   "ORG/PROJECT/STACK (default: PULUMI_STACK, else the stack selected with "
                   "`pulumi stack select` for the spec's Pulumi project)")
    p.add_argument("--org", metavar="ORG", help="Pulumi organization (default: from a qualified "
                   "stack name, else PULUMI_ORGANIZATION, else 'organization' as on file backends)")
    p.add_argument("--project", help="GCP project for specs that set none (default: the "
                   "stack's gcp:project)")
    p.add_argument("--region", help="region for specs that set none (default: the stack's "
                   "gcp:region)")


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="the job of each spec: state, times, failure, links")
    p.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders")
    p.add_argument("--format", choices=("text", "json"), default="text")
    _common(p)
    p.set_defaults(run=cmd_status)

    p = sub.add_parser("logs", help="a spec's job log lines from Cloud Logging; --follow until "
                       "it ends")
    p.add_argument("path", metavar="SPEC", help="one spec file")
    p.add_argument("--follow", "-f", action="store_true",
                   help="keep printing until the job ends; exit 0 if it succeeded, 1 if not")
    p.add_argument("--since", type=duration_arg, metavar="DURATION",
                   help="only lines of the last DURATION (1h, 30m); default: since the job began")
    p.add_argument("--replica", metavar="NAME", help="one replica: chief, worker, "
                   "parameterServer, reductionServer, evaluator, ROLE-INDEX (worker-1), a task name "
                   "(workerpool1-0) or service")
    p.add_argument("--interval", type=duration_arg, default=5.0, metavar="DURATION",
                   help="with --follow: time between polls (default 5s)")
    _common(p)
    p.set_defaults(run=cmd_logs)

    p = sub.add_parser("wait", help="block until every spec's job is final; exit 0 all "
                       "succeeded, 1 any failed or cancelled, 2 on timeout")
    p.add_argument("paths", nargs="+", metavar="PATH", help="spec files or folders")
    p.add_argument("--timeout", type=duration_arg, metavar="DURATION",
                   help="give up after DURATION (2h, 30m, 90s) with exit 2 (default: no limit)")
    p.add_argument("--interval", type=duration_arg, default=15.0, metavar="DURATION",
                   help="time between polls (default 15s)")
    _common(p)
    p.set_defaults(run=cmd_wait)


# --- shared ------------------------------------------------------------------------------------

class Clients(threading.local):
    """One REST client per worker thread (a session is not shared between threads)."""

    client: Client | None = None

    def get(self) -> Client:
        if self.client is None:
            self.client = Client()
        return self.client


def _find(paths: list[str], args: argparse.Namespace,
          err: TextIO) -> tuple[list[track.Found], Client]:
    """Every spec under `paths` with its jobs; bad input → located errors and Stop(1)."""
    stacks: dict[Path, Stack] = {}  # one look-up per folder of specs

    def compile_for(f: str) -> pipeline.Result:
        folder = Path(f).parent
        try:
            stack = stacks.get(folder) or resolve(f, stack=args.stack, org=args.org)
        except WorkspaceError as exc:
            err.write(f"error: {exc}\n")
            raise Stop(EXIT_FAILED) from None
        refused = former.refusal(former_stacks(
            stack.config.get(RENAMED_FROM), stack.organization, stack.project, stack.name),
            stack.project, str(stack.root))
        if refused:  # its former names' jobs are not this stack's: nothing is looked up
            err.write(f"error: stack {stack.qualified}: {refused}\n")
            raise Stop(EXIT_FAILED)
        stacks[folder] = stack
        return track.compile_for(f, stack, args.project, args.region)

    found = tree.compile_paths(paths, compile_file=compile_for)
    if found.empty:
        err.write("error: " + tree.nothing_found(paths) + "\n")
        raise Stop(EXIT_FAILED)
    problems = found.errors + [d for r in found.results for d in pipeline.location_errors(r)]
    results = [(r, stacks[Path(r.file).parent]) for r in found.results]
    if problems:
        err.write(format_text(problems) + "\n")
        raise Stop(EXIT_FAILED)
    try:
        client, clients = Client(), Clients()
        # Each spec's jobs are one list call: many specs are looked up side by side.
        with ThreadPoolExecutor(max_workers=max(1, min(CONCURRENCY, len(results)))) as pool:
            found = list(pool.map(lambda rs: track.locate(*rs, clients.get()), results))
        for f in found:
            _only_taken_over(f, err)
        return found, client
    except (ApiError, ConfigError) as exc:
        err.write(f"error: {exc}\n")
        raise Stop(EXIT_FAILED) from None


def _only_taken_over(found: track.Found, err: TextIO) -> None:
    """Keep a job under a former name's owner label (`trainspec:renamedFrom`) only if this
    stack's state holds it: another stack may name the same former one (compiler.jobs.former).
    Drop a job under this stack's own label that a stack renamed from this one took over (this
    stack was made again under the renamed one's old name): it is that stack's."""
    if found.jobs:
        stack = found.stack
        held, error = former.claimed_ids(stack.organization, stack.project, stack.name,
                                         str(stack.root))
        if error is not None:
            err.write(f"error: stack {stack.qualified}: {error}; nothing was done\n")
            raise Stop(EXIT_FAILED)
        found.jobs = [j for j in found.jobs if j.get("name") not in held]
    taken = [j for j in found.jobs if (j.get("labels") or {}).get(IDENTITY_LABEL) != found.owner]
    if not taken:
        return
    ids, error = former.state_ids(found.stack.qualified, str(found.stack.root))
    if error is not None:
        err.write(f"error: stack {found.stack.qualified}: whether {found.name}'s jobs under "
                  f"trainspec:renamedFrom's owner label are this stack's cannot be told "
                  f"({error}); nothing was done\n")
        raise Stop(EXIT_FAILED)
    found.jobs = [j for j in found.jobs if j not in taken or j.get("name") in ids]


def _guard(command: Callable[..., int]) -> Callable[..., int]:
    """Stop → its exit code; Ctrl-C → 130 without a word; API failures → one line, exit 1."""
    def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
        try:
            return command(args, out, err)
        except Stop as stop:
            return stop.code
        except KeyboardInterrupt:
            out.flush()
            return EXIT_INTERRUPTED
        except (ApiError, ConfigError) as exc:
            err.write(f"error: {exc}\n")
            return EXIT_FAILED
    run.__doc__ = command.__doc__
    return run


# --- status ------------------------------------------------------------------------------------

@_guard
def cmd_status(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """For each spec, the job it maps to and what that job says."""
    found, _ = _find(args.paths, args, err)
    now = utcnow()
    views = [track.view(f, now) for f in found]
    if args.format == "json":
        out.write(json.dumps({"jobs": views}, indent=2) + "\n")
    else:
        out.write(status_table.render(views))
    return EXIT_OK


# --- explain --last-run ------------------------------------------------------------------------

@_guard
def cmd_explain_last_run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """`explain FILE --last-run`: explain, then the spec's last job (the newest of its stack,
    as `status` finds it): how long it ran × the rate."""
    from .. import cost, explain  # noqa: PLC0415

    if args.path == "-":
        err.write("error: --last-run finds the job of a spec file, not of standard input\n")
        return EXIT_FAILED
    (found,), _ = _find([args.path], args, err)
    out.write(explain.render(found.result))
    job, estimate = found.job, cost.of_result(found.result)
    if job is None or estimate is None:
        out.write(f"  {'last run':<24} none: no job of this spec in stack "
                  f"{found.stack.qualified}\n")
        return EXIT_OK
    out.write(cost.last_run(estimate, job["name"], api.short_state(job.get("state", "")),
                            track.duration(job, utcnow())) + "\n")
    return EXIT_OK


# --- logs --------------------------------------------------------------------------------------

@_guard
def cmd_logs(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """A spec's job log lines; with --follow, until the job ends (exit: its outcome)."""
    if Path(args.path).is_dir():
        err.write(f"error: {args.path} is a folder: `logs` shows the job of one spec file\n")
        return EXIT_FAILED
    (found,), client = _find([args.path], args, err)
    spec = found.result.file
    if found.job is None:
        err.write(f"error: {spec}: {found.name!r} has no job in stack "
                  f"{found.stack.qualified} yet: `pulumi up` submits it\n")
        return EXIT_FAILED
    replica = None
    if args.replica:
        replica = track.replica_filter(found.platform, args.replica)
        if replica is None:
            err.write(f"error: --replica {args.replica!r}: expected one of "
                      f"{', '.join(track.replica_choices(found.platform))}\n")
            return EXIT_FAILED
    job = found.job
    err.write(f"{found.name}: {job['name']} ({api.short_state(job.get('state', ''))})\n")
    if not found.current:
        err.write("note: the spec changed since this job was submitted\n")
    created = track.parse_time(job.get("createTime")) or utcnow()
    since = utcnow() - datetime.timedelta(seconds=args.since) if args.since else created
    reader = joblog.LogReader(client, found, since, replica)
    watched = False  # whether the job ended while we followed it
    while True:
        state = job.get("state", "")
        final = api.is_final(state)
        for entry in reader.read():
            out.write(joblog.log_line(found.platform, entry, job) + "\n")
        out.flush()
        if not args.follow:
            return EXIT_OK
        if final:
            break
        watched = True
        sleep(args.interval)
        job = track.refresh(found, client)
    if watched:
        # Lines logged just before the end can reach Cloud Logging after the state changed.
        sleep(args.interval)
        for entry in reader.read():
            out.write(joblog.log_line(found.platform, entry, job) + "\n")
    verdict = api.short_state(state)
    message = api.message(job)
    err.write(f"{found.name}: {verdict}" + (f": {message}" if message and not
                                             api.succeeded(state) else "") + "\n")
    return EXIT_OK if api.succeeded(state) else EXIT_FAILED


# --- wait --------------------------------------------------------------------------------------

@_guard
def cmd_wait(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Block until every spec's job is final; print each state change with the time elapsed."""
    found, client = _find(args.paths, args, err)
    absent = [f for f in found if f.job is None]
    if absent:
        for f in absent:
            err.write(f"error: {f.result.file}: {f.name!r} has no job in stack "
                      f"{f.stack.qualified} yet: `pulumi up` submits it\n")
        return EXIT_FAILED
    start = monotonic()
    last: dict[int, str] = {}

    def report(i: int, f: track.Found) -> None:
        state = api.short_state(f.job.get("state", ""))
        if last.get(i) != state:
            before = f"{last[i]} → " if i in last else ""
            elapsed = track.human_seconds(monotonic() - start)
            note = "" if f.current or i in last else "  (an earlier version of the spec)"
            out.write(f"[{elapsed:>7}] {f.name}: {before}{state}{note}\n")
            out.flush()
            last[i] = state

    for i, f in enumerate(found):
        report(i, f)
    while True:
        open_jobs = [(i, f) for i, f in enumerate(found) if not api.is_final(f.job["state"])]
        if not open_jobs:
            break
        left = None if args.timeout is None else args.timeout - (monotonic() - start)
        if left is not None and left <= 0:
            names = ", ".join(f"{f.name} ({api.short_state(f.job['state'])})" for _, f in open_jobs)
            err.write(f"timeout after {track.human_seconds(args.timeout)}: still running: "
                      f"{names}\n")
            return EXIT_TIMEOUT
        sleep(args.interval if left is None else min(args.interval, left))
        for i, f in open_jobs:
            track.refresh(f, client)
            report(i, f)
    failed = [f for f in found if not api.succeeded(f.job["state"])]
    total = track.human_seconds(monotonic() - start)
    if failed:
        err.write(f"{len(failed)} of {len(found)} job(s) did not succeed:\n")
        for f in failed:
            message = api.message(f.job)
            err.write(f"  {f.name} ({f.result.file}): {api.short_state(f.job['state'])}"
                      + (f": {message}" if message else "") + "\n")
        return EXIT_FAILED
    out.write(f"all {len(found)} job(s) succeeded ({total})\n")
    return EXIT_OK
