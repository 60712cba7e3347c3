"""Whether the stacks a `trainspec:renamedFrom` names are gone, asked of the Pulumi CLI.

A stack renamed from X takes over X's jobs only if no stack X exists any more: `pulumi stack
rename` leaves none, while a state copied from a stack that still runs (or a stack created again
under the old name) would otherwise act on that stack's jobs. The provider plugin and the CLI
run with the user's Pulumi environment (``PULUMI_BACKEND_URL``, ``PULUMI_HOME``, credentials; the
project's folder), so ``pulumi stack ls --json --all`` answers for file and cloud backends alike;
it reads no stack, so it works while the engine holds the running stack's lock. Asked once per
process. If the answer cannot be had, the takeover is refused: never a guess.

`status` and `cancel`, which read no state, also keep a job under a former name's label only if
``pulumi stack export`` shows the stack's state holds it (`state_ids`).
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path

from . import workspace
from .identity import former_stacks

LIST = ("stack", "ls", "--json", "--all")
TIMEOUT = 120.0
WAY_OUT = ("A real rename (`pulumi stack rename`) leaves no stack of the old name; a state "
           "copied from another stack, or a stack that only wants another's jobs, must not "
           "claim them: `pulumi config rm trainspec:renamedFrom`")


def _ask(*command: str, cwd: str) -> tuple[str, str | None]:
    """(what `pulumi COMMAND` printed, why it did not answer)."""
    cli = shutil.which("pulumi")
    if cli is None:
        return "", "the Pulumi CLI (`pulumi`) is not on PATH"
    shown = f"`pulumi {' '.join(command)}`"
    try:
        proc = subprocess.run([cli, *command, "--non-interactive"], cwd=cwd, capture_output=True,
                              text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return "", f"{shown} failed: {exc}"
    if proc.returncode != 0:
        said = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return "", f"{shown} failed: {said}"
    return proc.stdout, None


@functools.cache
def _listed(cwd: str) -> tuple[frozenset[tuple[str, ...]], str | None]:
    """(the stacks the backend has, as the parts of their names; why they are unknown)."""
    printed, error = _ask(*LIST, cwd=cwd)
    if error is not None:
        return frozenset(), error
    try:
        names = [s["name"] for s in json.loads(printed)]
        return frozenset(tuple(n.split("/")) for n in names if isinstance(n, str)), None
    except (ValueError, TypeError, KeyError):
        return frozenset(), f"`pulumi {' '.join(LIST)}` printed no stack list"


def _same(former: tuple[str, str, str], listed: tuple[str, ...], project: str) -> bool:
    """`listed` (STACK: of the current project; PROJECT/STACK or ORG/PROJECT/STACK) may be
    `former`. The organization of a short name is not shown: taken as the same."""
    if len(listed) == 1:
        return former[1:] == (project, listed[0])
    return former[-len(listed):] == listed


def refusal(formers: list[tuple[str, str, str]], project: str, cwd: str) -> str | None:
    """Why `trainspec:renamedFrom`'s `formers` (organization, project, stack) may not be taken
    over from the project `project` (the folder `cwd`): None if none of them exists any more."""
    if not formers:
        return None
    listed, error = _listed(cwd)
    names = ", ".join("/".join(f) for f in formers)
    if error is not None:
        return (f"trainspec:renamedFrom names {names}, and whether that stack still exists cannot "
                f"be told ({error}): its jobs are taken over only once the Pulumi CLI shows no "
                f"stack of that name; nothing was changed. {WAY_OUT}")
    alive = ["/".join(f) for f in formers if any(_same(f, n, project) for n in listed)]
    if alive:
        return (f"trainspec:renamedFrom names {', '.join(alive)}, which still exists (`pulumi "
                "stack ls --all`): its jobs are that stack's, not this one's; nothing was "
                f"changed. {WAY_OUT}")
    return None


@functools.cache
def state_ids(stack: str, cwd: str) -> tuple[frozenset[str], str | None]:
    """(the ids of the resources in `stack`'s state, why they are unknown): ``pulumi stack
    export``, read-only. Without Pulumi's state (`trainspec status`, `cancel`), a job under a
    former name's label is this stack's only if its state holds it: two stacks may both name
    the same former one, and only the renamed one took its jobs over."""
    printed, error = _ask("stack", "export", "--stack", stack, cwd=cwd)
    if error is not None:
        return frozenset(), error
    try:
        resources = (json.loads(printed).get("deployment") or {}).get("resources") or []
        return frozenset(r["id"] for r in resources if isinstance(r.get("id"), str)), None
    except (ValueError, AttributeError):
        return frozenset(), f"`pulumi stack export --stack {stack}` printed no state"


def claimants(organization: str, project: str, stack: str, cwd: str) -> list[str]:
    """The other stacks of the project in `cwd` whose config (`Pulumi.<STACK>.yaml`) says
    they were renamed from `stack` (`trainspec:renamedFrom`): a stack created again under a
    renamed stack's old name finds the jobs the renamed one took over under its own owner
    label (a Vertex job's labels cannot change), and must leave them to it."""
    me = (organization, project, stack)
    return [other for other, config in workspace.stack_configs(Path(cwd)).items()
            if other != stack and me in former_stacks(config.get("trainspec:renamedFrom"),
                                                      organization, project, other)]


@functools.cache
def claimed_ids(organization: str, project: str, stack: str,
                cwd: str) -> tuple[frozenset[str], str | None]:
    """(the ids of the jobs the states of `claimants` hold, why they are unknown)."""
    ids: set[str] = set()
    for other in claimants(organization, project, stack, cwd):
        held, error = state_ids(other, cwd)
        if error is not None:
            return frozenset(), (f"stack {other} says it was renamed from {stack} "
                                 f"(trainspec:renamedFrom), and which jobs it took over cannot "
                                 f"be told ({error})")
        ids |= held
    return frozenset(ids), None
