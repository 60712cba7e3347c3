"""Comparing both sides of a `diff`: one entry per job, paired as `pulumi up` pairs them, and
the plan for each (`compiler.plan.decide`, the function the Pulumi provider uses)."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import emit, packaging, pipeline, targets, tree
from .. import plan as planning
from ..diagnostics import Diagnostic
from ..model import CONFIG_NAMESPACE
from ..options import Options
from ..tree import Content
from ..tuning.model import summary as tuning_summary
from .redact import spec_secrets
from .sides import Vouched, readable

EXIT_SAME, EXIT_ERROR, EXIT_CHANGED = 0, 1, 2
WORKTREE = "working tree"
# Request paths of a tuning job's search: a change there shows the search space summarised.
SEARCH_PATHS = ("studySpec", "maxTrialCount", "parallelTrialCount", "maxFailedTrialCount",
                "trainingInput.hyperparameters")


@dataclass
class Entry:
    """One spec's comparison: files and compile results on each side, and the plan."""

    old_file: str | None
    new_file: str | None
    old: pipeline.Result | None = None
    new: pipeline.Result | None = None
    plan: planning.Plan = field(default_factory=lambda: planning.Plan(planning.NONE))
    secrets: frozenset[str] = frozenset()  # secret literals of both specs, kept out of output

    @property
    def file(self) -> str:
        return self.new_file or self.old_file or ""

    @property
    def renamed(self) -> bool:
        return bool(self.old_file and self.new_file and self.old_file != self.new_file)

    @property
    def job(self) -> str:
        for r in (self.new, self.old):
            if r is not None and r.job is not None and r.job.name:
                return r.job.name
        return ""

    @property
    def platform(self) -> str:
        for r in (self.new, self.old):
            if r is not None and r.job is not None:
                return r.job.platform
        return ""

    @property
    def tuning(self) -> bool:
        return any(r is not None and r.job is not None and r.job.tuning is not None
                   for r in (self.new, self.old))

    @property
    def search(self) -> list[str]:
        """A tuning job's search space (HEAD's, else BASE's), summarised, when the job is
        created or deleted or its search changes; [] otherwise and for other jobs."""
        touched = self.plan.action in (planning.CREATE, planning.DELETE) or any(
            c.path.startswith(SEARCH_PATHS) for c in self.plan.changes)
        for r in (self.new, self.old):
            if touched and r is not None and r.ok and r.job is not None and r.job.tuning:
                return tuning_summary(r.job.tuning)
        return []

    @property
    def failed(self) -> bool:
        """The HEAD side does not compile, or `pulumi up` refuses the change: it cannot be
        applied."""
        return self.new is not None and (not self.new.ok or self.plan.refusal is not None)

    @property
    def refused(self) -> Diagnostic | None:
        """The located error of a change `pulumi up` refuses (`plan.decide`), if it does."""
        refusal = self.plan.refusal
        if refusal is None or self.new is None:
            return None
        path = self.new.origins.get(refusal.at, "")
        identity = self.new.identity
        # The one refusal today is of the jobId, written as metadata.name.
        at = identity[3] if identity is not None and path == "$.metadata.name" else None
        return refusal.diagnostic(self.new.file, path, at)

    @property
    def errors(self) -> list[Diagnostic]:
        """Why the HEAD side cannot be applied: its compile errors, or the refusal."""
        if self.new is None:
            return []
        return self.new.errors if not self.new.ok else [d for d in [self.refused] if d]

    @property
    def base_failed(self) -> bool:
        return self.old is not None and not self.old.ok

    @property
    def action(self) -> str:
        return "error" if self.failed else self.plan.action


@dataclass
class Review:
    base: str
    head: str
    specs: str
    entries: list[Entry]
    compared: int  # spec files on either side

    # Each once: a report asks several times, of every spec of the tree (`compare` made
    # the entries whole).
    @functools.cached_property
    def failed(self) -> bool:
        return any(e.failed for e in self.changed)

    @functools.cached_property
    def changed(self) -> list[Entry]:
        return [e for e in self.entries if e.failed or e.plan.action != planning.NONE]

    @functools.cached_property
    def moved(self) -> list[Entry]:
        """Specs moved to another file whose request is unchanged: nothing to apply."""
        changed = {id(e) for e in self.changed}  # once, not once per entry
        return [e for e in self.entries if e.renamed and id(e) not in changed]

    @property
    def exit_code(self) -> int:
        if self.failed:
            return EXIT_ERROR
        return EXIT_CHANGED if self.changed else EXIT_SAME


_Compiled = tuple[pipeline.Result, frozenset]


@dataclass(frozen=True)
class Side:
    """One side of a comparison: the spec files (path → content) and what the Pulumi stack
    config adds to them (defaults for project/region, and its secret entries)."""

    files: dict[str, Content | Vouched]  # a Vouched: read when its bytes are needed
    options: Options = Options()
    secrets: dict[str, Any] = field(default_factory=dict)  # config key → value (or {secure:})
    # The stack config was read (`diff --stack`): a secret the job reads must be set in it.
    stack: bool = False
    # Where the side's python.source folders are read: the working tree or a git revision.
    sources: packaging.Files | None = None


def _compile(side: Side, keep: dict[str, str] | None = None,
             shared: tree.Shared | None = None, check_secrets: bool = False,
             given: Mapping[str, pipeline.Result] | None = None) -> dict[str, _Compiled]:
    """The side's tree compiled (`tree.compile_contents`: the cross-spec rules of `validate`
    and the Pulumi program), each result with the values its spec marks as secret: they are
    kept out of diagnostics even when the spec does not compile and there is no body to
    redact. `shared`: what the other side compiled (a spec alike on both is compiled once).
    `check_secrets`: the side `pulumi up` applies, whose jobs' secrets must be set.
    `given`: path → its result, compiled already (before the cross-spec rules)."""
    found = tree.compile_contents(side.files, side.options, files=side.sources, keep=keep,
                                  shared=shared, given=given)
    out: dict[str, _Compiled] = {}
    for path, result in zip(side.files, found.results):
        if check_secrets and side.stack:  # `pulumi up` refuses it: so does `diff --stack`
            result.diagnostics += pipeline.secret_errors(
                result, lambda key: key in side.secrets, lambda bare: _elsewhere(side, bare))
        secrets = spec_secrets(result.document.data if result.document is not None else None)
        result.document = None  # positions are in the diagnostics; the tree is not needed
        out[path] = (result, secrets)
    return out


def _elsewhere(side: Side, bare: str) -> str | None:
    """The config key other than ``trainspec:KEY`` that sets `bare` (never read for a secret)."""
    return next((k for k in side.secrets if k.split(":", 1)[-1] == bare
                 and not k.startswith(f"{CONFIG_NAMESPACE}:")), None)


def _entry(old_file: str | None, new_file: str | None, old: _Compiled | None,
           new: _Compiled | None) -> Entry:
    return Entry(old_file, new_file, old[0] if old else None, new[0] if new else None,
                 secrets=(old[1] if old else frozenset()) | (new[1] if new else frozenset()))


def _name(compiled: _Compiled) -> str | None:
    """The Pulumi resource a spec maps to: its job name (metadata.name), if it has one."""
    job = compiled[0].job
    return job.name if job is not None and job.name else None


def _by_identity(side: dict[str, _Compiled],
                 before: dict[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """Job name → the file defining it, and the files paired by path instead: no name (did
    not parse), or another file with an already used name. Of several files with one name,
    the one at the path the name had `before` (the BASE side) keeps it, else the first."""
    named: dict[str, str] = {}
    loose: list[str] = []
    before = before or {}
    for path in sorted(side, key=lambda p: (before.get(_name(side[p]) or "") != p, p)):
        name = _name(side[path])
        if name is not None and name not in named:
            named[name] = path
        else:
            loose.append(path)
    return named, loose


def compare(old: Side, new: Side,
            known: Mapping[str, pipeline.Result] | None = None) -> list[Entry]:
    """One entry per job on either side, paired as `pulumi up` pairs them: by the Pulumi
    resource it maps to (metadata.name), not by file. A spec moved to another file, or two
    files swapped, is the same job; two files naming one job on the HEAD side is an error
    (the file that had the name on the BASE side keeps it). Files without a name (they do not
    parse) are paired by path.

    `known`: path → the one result of a spec alike on both sides (`alike.known`). Of those,
    one that compiles, whose job reads no stack secret and whose name and jobId no other spec
    on either side has is an entry with nothing to do: it takes no part in the pairing or the
    cross-spec rules of the others, so they are run without it."""
    shared: tree.Shared = {}
    quiet: dict[str, pipeline.Result] = {}
    given: tuple[dict[str, pipeline.Result], dict[str, pipeline.Result]] = ({}, {})
    if known:
        quiet, given = _quiet(old, new, known, shared)
    # The specs compared: each read now if only its blob id was known (sides.Vouched).
    old = dataclasses.replace(old, files={p: readable(c) for p, c in old.files.items()
                                          if p not in quiet})
    new = dataclasses.replace(new, files={p: readable(c) for p, c in new.files.items()
                                          if p not in quiet})
    olds = _compile(old, shared=shared, given=given[0])
    old_named, old_loose = _by_identity(olds)
    news = _compile(new, keep=old_named, shared=shared, check_secrets=True, given=given[1])
    new_named, new_loose = _by_identity(news, old_named)
    pairs = {name: (old_named.get(name), new_named.get(name))
             for name in sorted(set(old_named) | set(new_named))}
    # A file that does not parse on one side keeps its path's pairing on the other.
    for path in old_loose:
        name = _name(news[path]) if path in news else None
        if name is not None and pairs[name][0] is None and pairs[name][1] == path \
                and _name(olds[path]) is None:
            pairs[name] = (path, path)
    paired_old = {o for o, _ in pairs.values() if o}
    paired_new = {n for _, n in pairs.values() if n}
    loose = sorted({p for p in old_loose if p not in paired_old}
                   | {p for p in new_loose if p not in paired_new})
    entries = [_entry(o, n, olds.get(o) if o else None, news.get(n) if n else None)
               for o, n in list(pairs.values())
               + [(p if p in old.files and p not in paired_old else None,
                   p if p in new.files and p not in paired_new else None) for p in loose]]
    changed = {k for k in set(old.secrets) | set(new.secrets)
               if old.secrets.get(k) != new.secrets.get(k)}
    for e in entries:
        e.plan = _plan(e, changed)
    entries += [Entry(p, p, r, r) for p, r in quiet.items()]  # the same job, the same request
    entries.sort(key=lambda e: (e.file, e.old_file or ""))
    return entries


def _quiet(old: Side, new: Side, known: Mapping[str, pipeline.Result], shared: tree.Shared
           ) -> tuple[dict[str, pipeline.Result],
                      tuple[dict[str, pipeline.Result], dict[str, pipeline.Result]]]:
    """The `known` results with nothing to do (`compare`), and each side's results of its
    other specs (compiled here, before the cross-spec rules: their names and jobIds say which
    known spec they involve). A known result without its document (from the result cache)
    that is not quiet is compiled again in full with its side."""
    # A python.source spec's result is HEAD's only: its folder is read from each side's files.
    sided = {p for p, r in known.items() if r.uploads or (
        r.job is not None and packaging.reads_sources(r.job))}
    results = []
    for side, skip in ((old, set(known) - sided), (new, set(known))):
        rest = {p: readable(c) for p, c in side.files.items() if p not in skip}
        results.append(dict(zip(rest, tree.compile_each(rest, side.options, files=side.sources,
                                                         shared=shared))))
    held = Counter(k for r in [*results[0].values(), *results[1].values(), *known.values()]
                   for k in _keys(r))
    quiet = {p: r for p, r in known.items() if r.ok and _keys(r) and p not in sided
             and all(held[k] == 1 for k in _keys(r)) and not (new.stack and _unset_secret(
                 r, readable(new.files[p]), new))}
    again = {p: r for p, r in known.items() if p not in quiet and r.document is not None}
    return quiet, ({**results[0], **{p: r for p, r in again.items() if p not in sided}},
                   {**results[1], **again})


def _keys(r: pipeline.Result) -> list[tuple]:
    """What the cross-spec rules and the pairing compare of a spec: its job name and, on a
    platform whose client chooses the job id (ml v1), its (project, jobId)."""
    if r.identity is None or not r.identity[0]:
        return []
    name, platform, project, _, run = r.identity
    found: list[tuple] = [("name", name)]
    target = targets.PLATFORMS.get(platform)
    if target is not None and target.job_id is not None:
        found.append(("id", project, target.job_id(name, run)))
    return found


def _unset_secret(r: pipeline.Result, content: Content, side: Side) -> bool:
    """Whether the job of `r` reads a stack secret that `side`'s stack config does not set
    (`diff --stack` reports it: `pipeline.secret_errors`); one whose secrets are all set has
    nothing to do. The secrets a job reads are its model's, or, for a cached result (no
    model), the `<secret:KEY>` env values of its request (model.EnvVar: every secret a job
    reads is one, on ml v1 env is refused), read only if its spec may name one: any such value
    that is not a set key's marker counts as unset."""
    if r.job is not None:
        return any(key not in side.secrets for key in r.job.secrets)
    text = content.lower() if isinstance(content, bytes) else b""
    if b"secret" not in text and b"\\" not in text:  # a YAML escape may spell the key
        return False
    body = emit.unparsed_text(r.body) if r.body is not None else ""
    for at in _MARKER.finditer(body):
        value = json.decoder.scanstring(body, at.start() + 1)[0]
        key = value[len("<secret:"):-1] if value.endswith(">") else None
        if key is None or key not in side.secrets:
            return True
    return False


_MARKER = re.compile(r'"<secret:')  # a JSON string starting as model.secret_placeholder's


SECRET_CHANGE = planning.SECRET_CHANGE


def _plan(e: Entry, changed_secrets: set[str] = frozenset()) -> planning.Plan:
    # A BASE side that did not compile was never applied: compare against "no job".
    old_body = e.old.body if e.old is not None and e.old.ok else None
    new_body = e.new.body if e.new is not None and e.new.ok else None
    if e.new is not None and not e.new.ok:
        return planning.Plan(planning.NONE)
    old_platform = e.old.job.platform if old_body is not None and e.old.job else None
    # The provider replaces a job whose secret env value changed: it would run with the old one.
    secrets = sorted(set(e.new.job.secrets if new_body is not None and e.new.job else ())
                     & changed_secrets)
    return planning.decide(e.platform, old_body, new_body, old_platform,
                           old_location=_location(e.old), new_location=_location(e.new),
                           old_run=_run(e.old), new_run=_run(e.new), changed_secrets=secrets)


def _run(r: pipeline.Result | None) -> str | None:
    return r.job.run if r is not None and r.ok and r.job is not None else None


def _location(r: pipeline.Result | None) -> tuple[str | None, str | None] | None:
    """The job's resolved (project, region): spec.project/region, else --project/--region."""
    if r is None or not r.ok or r.job is None:
        return None
    return (r.job.project, r.job.region)


