"""Pull-request review: what applying HEAD's specs does, compared with BASE's.

`python -m compiler diff BASE [HEAD]` reads the spec files of two git revisions (HEAD omitted:
the working tree, uncommitted and untracked files included), compiles both sides in memory and
reports, per spec added, removed or changed, the action `pulumi up` takes (planning.classify, the
rule the Pulumi provider uses) and a field-level diff of the compiled request.

A change of the job's location (the resolved project or region, or the platform) is a replace:
both live in the request URL, not the body, and `pulumi up` creates the job in the new place.

Secrets never reach the output: env values compile to ``<secret:KEY>`` markers, and values that
look like credentials (by env name, flag or key name, or shape) are shown as ``<redacted>``, in
field values and in diagnostics alike.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from . import packaging, pipeline, source
from . import plan as planning
from .diagnostics import Diagnostic, Position, format_text
from .normalize import Options
from .packaging.tree import TreeError, cat_file_batch
from .source import shown
from .tuning import summary as tuning_summary

EXIT_SAME, EXIT_ERROR, EXIT_CHANGED = 0, 1, 2
SPEC_SUFFIXES = (".yaml", ".yml")
WORKTREE = "working tree"
MARKER = "<!-- trainspec-diff -->"  # lets CI find and update its own PR comment
REDACTED = "<redacted>"
# Request paths of a tuning job's search: a change there shows the search space summarised.
SEARCH_PATHS = ("studySpec", "maxTrialCount", "parallelTrialCount", "maxFailedTrialCount",
                "trainingInput.hyperparameters")

DESCRIPTION = """\
Compare the compiled requests of the spec files at git revision BASE with those at HEAD
(default: the working tree, including uncommitted and untracked spec files). For each spec
added, removed or changed, print the action `pulumi up` takes and a field-level diff of the
request. A spec moved to another file with the same metadata.name and platform counts as
changed, not removed + added. Secret env values and credential-like values are redacted."""

EXIT_CODES = """\
exit status:
  0  no change: every spec compiles to the same request on both sides
  1  error: a spec on the HEAD side does not compile (located diagnostics are printed) or
     two HEAD specs name one job, git failed (unknown revision, not a repository), the
     --stack file cannot be read, or the spec folder holds no spec file on either side (a
     wrong --specs or --repo). A BASE-side spec that does not compile is reported but is
     not an error: the change may be fixing it.
  2  changes: at least one spec is created, replaced, updated or deleted
 64  usage error (an unknown flag, a missing BASE): a usage message on stderr, nothing on
     stdout; never 2, so a CI step cannot mistake it for a plan"""


class ReviewError(Exception):
    """The comparison cannot be made; the message says why."""


class GitError(ReviewError):
    """A git command failed; the message is git's own."""


class NoSpecsError(ReviewError):
    """The spec folder holds no spec file on either side."""


# -- reading both sides ---------------------------------------------------------------------

def _git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    try:
        proc = subprocess.run(["git", *args], cwd=repo, input=stdin, capture_output=True,
                              check=False)
    except OSError as e:
        raise GitError(f"cannot run git: {e}") from e
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip() or f"exit {proc.returncode}"
        raise GitError(f"git {' '.join(args[:3])}: {message}")
    return proc.stdout


def _is_spec(path: str) -> bool:
    return path.endswith(SPEC_SUFFIXES) and not any(
        part.startswith(".") for part in path.split("/")[:-1])


Content = bytes | Diagnostic  # a spec file's bytes, or why it cannot be read as one


def _unreadable(path: str, message: str, code: str | None) -> Diagnostic:
    return Diagnostic("$", message, file=shown(path), position=Position(1, 1), code=code)


def read_revision(repo: Path, ref: str, prefix: str) -> dict[str, Content]:
    """Spec files under `prefix` (a repo-relative folder) at `ref`: path → content, or why it
    is not readable as a spec (a symbolic link, a file over the size limit, a control character
    in its name)."""
    listed = _git(repo, "ls-tree", "-r", "-z", "-l", "--full-tree", ref, "--", prefix or ".")
    out: dict[str, Content] = {}
    blobs: list[str] = []
    for line in listed.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = line.partition("\t")
        if not path or not _is_spec(path):
            continue
        mode, kind, _, size = meta.split()
        if kind != "blob":
            continue
        if not path.isprintable():  # keyed as shown: a report never holds a raw line break
            out[shown(path)] = _unreadable(path, "the file name holds a control character (a "
                                           "line break?): rename it", "file-name")
        elif mode == "120000":
            out[path] = _unreadable(path, "a symbolic link: diff reads the spec files git stores, "
                                    "not what links point to", "file-type")
        elif int(size) > source.MAX_BYTES:
            out[path] = _unreadable(path, f"file is larger than {source.MAX_BYTES // 1048576} MiB "
                                    f"({size} bytes)", "file-size")
        else:
            blobs.append(path)
    if not blobs:
        return dict(sorted(out.items()))
    try:
        out.update(zip(blobs, cat_file_batch(repo, ref, blobs)))
    except TreeError as e:
        raise GitError(str(e)) from e
    return dict(sorted(out.items()))


def read_worktree(root: Path, prefix: str) -> dict[str, Content]:
    """Spec files under `prefix` in the working tree, tracked or not: path → content, or why
    it cannot be read as a spec (a named pipe, a device, a link, a huge file: never opened in
    a way that blocks or reads without end)."""
    base = root / prefix if prefix else root
    out: dict[str, Content] = {}
    if not base.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            if name.endswith(SPEC_SUFFIXES):
                full = Path(dirpath) / name
                rel = full.relative_to(root).as_posix()
                if not rel.isprintable():
                    out[shown(rel)] = _unreadable(rel, "the file name holds a control character "
                                                  "(a line break?): rename it", "file-name")
                    continue
                if os.path.islink(full):
                    out[rel] = _unreadable(rel, "a symbolic link: diff reads the spec files git "
                                           "stores, not what links point to", "file-type")
                    continue
                blob, problem = source.read_bytes(str(full))
                out[rel] = blob if problem is None else _unreadable(rel, problem.message,
                                                                    problem.code)
    return dict(sorted(out.items()))


def _locate(repo: Path, specs: str) -> tuple[Path, str]:
    """The repository root and `specs` as a path relative to it."""
    root = Path(_git(repo, "rev-parse", "--show-toplevel").decode().strip())
    folder = (repo / specs).resolve()
    try:
        prefix = folder.relative_to(root.resolve()).as_posix()
    except ValueError as e:
        raise GitError(f"{specs} is not inside the git repository {root}") from e
    return root, "" if prefix == "." else prefix


# -- comparing ------------------------------------------------------------------------------

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
        """The HEAD side does not compile: the change cannot be applied."""
        return self.new is not None and not self.new.ok

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

    @property
    def failed(self) -> bool:
        return any(e.failed for e in self.entries)

    @property
    def changed(self) -> list[Entry]:
        return [e for e in self.entries if e.failed or e.plan.action != planning.NONE]

    @property
    def moved(self) -> list[Entry]:
        """Specs moved to another file whose request is unchanged: nothing to apply."""
        return [e for e in self.entries if e.renamed and e not in self.changed]

    @property
    def exit_code(self) -> int:
        if self.failed:
            return EXIT_ERROR
        return EXIT_CHANGED if self.changed else EXIT_SAME


_Compiled = tuple[pipeline.Result, frozenset]


def _compile(path: str, text: Content, options: Options,
             files: packaging.Files | None = None) -> _Compiled:
    if isinstance(text, Diagnostic):
        return pipeline.Result(text.file, [text]), frozenset()
    result = pipeline.compile_text(text, path, options, files=files)
    # Values the spec marks as secret (by env or flag name), to keep them out of diagnostics
    # even when the spec does not compile and there is no body to redact.
    found = spec_secrets(result.document.data if result.document is not None else None)
    result.document = None  # positions are in the diagnostics; the tree is not needed
    return result, found


def _entry(old_file: str | None, new_file: str | None, old: _Compiled | None,
           new: _Compiled | None) -> Entry:
    return Entry(old_file, new_file, old[0] if old else None, new[0] if new else None,
                 secrets=(old[1] if old else frozenset()) | (new[1] if new else frozenset()))


@dataclass(frozen=True)
class Side:
    """One side of a comparison: the spec files (path → content) and what the Pulumi stack
    config adds to them (defaults for project/region, and its secret entries)."""

    files: dict[str, Content]
    options: Options = Options()
    secrets: dict[str, Any] = field(default_factory=dict)  # config key → encrypted value
    # Where the side's python.source folders are read: the working tree or a git revision.
    sources: packaging.Files | None = None


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
    for path in _in_claim_order(side, before or {}):
        name = _name(side[path])
        if name is not None and name not in named:
            named[name] = path
        else:
            loose.append(path)
    return named, loose


def _in_claim_order(side: dict[str, _Compiled], before: dict[str, str]) -> list[str]:
    return sorted(side, key=lambda p: (before.get(_name(side[p]) or "") != p, p))


def compare(old: dict[str, Content] | Side, new: dict[str, Content] | Side,
            options: Options = Options()) -> list[Entry]:
    """One entry per job on either side, paired as `pulumi up` pairs them: by the Pulumi
    resource it maps to (metadata.name), not by file. A spec moved to another file, or two
    files swapped, is the same job; two files naming one job on the HEAD side is an error.
    Files without a name (they do not parse) are paired by path."""
    old = old if isinstance(old, Side) else Side(old, options)
    new = new if isinstance(new, Side) else Side(new, options)
    cache: dict[tuple, _Compiled] = {}

    def compiled(path: str, content: Content, side: Side) -> _Compiled:
        # The same spec text compiles alike on both sides unless its python.source differs.
        key = (path, content if isinstance(content, bytes) else id(content), side.options,
               id(side.sources))
        if key not in cache:
            cache[key] = _compile(path, content, side.options, side.sources)
        return cache[key]

    olds = {p: compiled(p, c, old) for p, c in old.files.items()}
    news = {p: compiled(p, c, new) for p, c in new.files.items()}
    old_named, old_loose = _by_identity(olds)
    # Two HEAD specs with one job name: Pulumi refuses the duplicate resource, so must we. The
    # file that had the name on the BASE side keeps it; the other one is the error.
    clashes: dict[str, list[Diagnostic]] = {}
    order = _in_claim_order(news, old_named)
    for d in pipeline.check_set([news[p][0] for p in order]):
        clashes.setdefault(d.file, []).append(d)
    for p, (r, found) in news.items():
        if r.file in clashes:
            news[p] = (dataclasses.replace(r, diagnostics=r.diagnostics + clashes[r.file]), found)
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
    entries.sort(key=lambda e: (e.file, e.old_file or ""))
    return entries


SECRET_CHANGE = "stack secret "  # a Change path: a secret config value the job reads changed


def _plan(e: Entry, changed_secrets: set[str] = frozenset()) -> planning.Plan:
    # A BASE side that did not compile was never applied: compare against "no job".
    old_body = e.old.body if e.old is not None and e.old.ok else None
    new_body = e.new.body if e.new is not None and e.new.ok else None
    if e.failed:
        return planning.Plan(planning.NONE)
    old_platform = e.old.job.platform if old_body is not None and e.old.job else None
    found = planning.classify(e.platform, old_body, new_body, old_platform,
                              old_location=_location(e.old), new_location=_location(e.new),
                              old_run=_run(e.old), new_run=_run(e.new))
    if old_body is None or new_body is None:
        return found
    # The provider replaces a job whose secret env value changed: it would run with the old one.
    secrets = sorted(set(e.new.job.secrets if e.new.job else ()) & changed_secrets)
    if not secrets:
        return found
    where = [c for c in found.changes if c.path in planning.LOCATION_PATHS]
    return planning.Plan(planning.REPLACE, where + [
        planning.Change(SECRET_CHANGE + key, "<secret>", "<secret: its ciphertext changed>")
        for key in secrets] + [c for c in found.changes if c not in where])


def _run(r: pipeline.Result | None) -> str | None:
    return r.job.run if r is not None and r.ok and r.job is not None else None


def _location(r: pipeline.Result | None) -> tuple[str | None, str | None] | None:
    """The job's resolved (project, region): spec.project/region, else --project/--region."""
    if r is None or not r.ok or r.job is None:
        return None
    return (r.job.project, r.job.region)


_STACK_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def _read_file(root: Path, ref: str | None, path: str) -> Content | None:
    """One file at `ref` (None: the working tree), None if it is not there."""
    if ref is None:
        full = root / path
        if not os.path.lexists(full):
            return None
        blob, problem = source.read_bytes(str(full))
        return blob if problem is None else _unreadable(path, problem.message, problem.code)
    return read_revision(root, ref, path).get(path)


def stack_side(root: Path, ref: str | None, path: str,
               options: Options) -> tuple[Options, dict[str, Any]] | None:
    """What stack config file `path` (Pulumi.NAME.yaml) at `ref` adds to the specs, as the
    Pulumi program reads it: `gcp:project` / `gcp:region` are defaults for specs without their
    own (`options` given on the command line win), and its secret entries (`{secure: ...}`),
    compared between the sides. None if the file is not there."""
    content = _read_file(root, ref, path)
    if content is None:
        return None
    if isinstance(content, Diagnostic):
        raise StackError(content.format())
    doc, found = source.parse(content, path)
    errors = [d for d in found if d.is_error]
    config = doc.data.get("config") if isinstance(doc.data, dict) else None
    if errors or not isinstance(config if config is not None else {}, dict):
        raise StackError(format_text(errors) if errors else f"{path}: 'config' is not a mapping")
    config = config or {}

    def text(key: str) -> str | None:
        value = config.get(key)
        return value if isinstance(value, str) and value else None

    chosen = Options(platform=options.platform, project=options.project or text("gcp:project"),
                     region=options.region or text("gcp:region"),
                     staging_bucket=options.staging_bucket or text("trainspec:stagingBucket"))
    secrets = {k: v for k, v in config.items() if isinstance(v, dict) and "secure" in v}
    return chosen, secrets


class StackError(ReviewError):
    """The stack config file cannot be read."""


def review(repo: Path, base: str, head: str | None, specs: str = "specs",
           options: Options = Options(), merge_base: bool = False,
           stack: str | None = None) -> Review:
    """Compare the specs under `specs` at `base` with those at `head` (None: working tree).

    `stack`: also read `Pulumi.<stack>.yaml` (in the --repo folder, the Pulumi project) on
    both sides, as `pulumi up` would: its gcp:project / gcp:region apply to specs without
    their own, and a changed secret a job reads replaces that job."""
    root, prefix = _locate(repo, specs)
    if merge_base:
        base = _git(root, "merge-base", base, head or "HEAD").decode().strip()
    old = read_revision(root, base, prefix)
    new = read_worktree(root, prefix) if head is None else read_revision(root, head, prefix)
    if not old and not new:
        folder = root / prefix if prefix else root
        sides = f"at {base}" + ("" if head == base else
                                f" or {'in the working tree' if head is None else 'at ' + head}")
        missing = f" ({folder} does not exist)" if head is None and not folder.is_dir() else ""
        raise NoSpecsError(f"no spec files (*.yaml, *.yml) in {prefix or '.'}/ {sides}{missing}; "
                           "pass the spec folder with --specs DIR (relative to --repo DIR)")
    old_sources = packaging.GitFiles(root, base)
    new_sources = packaging.Files(root) if head is None else packaging.GitFiles(root, head)
    old_side, new_side = Side(old, options, sources=old_sources), Side(new, options,
                                                                       sources=new_sources)
    if stack is not None:
        if not _STACK_NAME.match(stack):
            raise StackError(f"{stack!r} is not a stack name (letters, digits, '-', '_', '.')")
        project_dir = _locate(repo, ".")[1]
        path = f"{project_dir}/Pulumi.{stack}.yaml" if project_dir else f"Pulumi.{stack}.yaml"
        before, after = stack_side(root, base, path, options), stack_side(root, head, path,
                                                                           options)
        if before is None and after is None:
            raise StackError(f"no {path} at {base} or "
                             f"{'in the working tree' if head is None else 'at ' + head}")
        if before is not None:
            old_side = Side(old, *before, sources=old_sources)
        if after is not None:
            new_side = Side(new, *after, sources=new_sources)
    return Review(base, head or WORKTREE, prefix or ".", compare(old_side, new_side),
                  len(set(old) | set(new)))


# -- redaction ------------------------------------------------------------------------------

_SECRET_WORDS = (r"secret|token|passw(?:or)?d|passwd|pwd|api[_-]?key|access[_-]?key|"
                 r"private[_-]?key|credential|auth|webhook|"
                 # "pass" and "dsn" as words: DB_PASS, --db-pass, SENTRY_DSN; not bypass, passes
                 r"(?<![a-z])pass(?![a-z])|(?<![a-z])dsn(?![a-z])|"
                 # "key" as a word of the name: api_key, --key, sshKey, SSH_KEY; not monkey
                 r"(?-i:(?<![A-Za-z])(?:key|Key|KEY)|(?<=[a-z])Key|(?<=[A-Z])KEY)(?![a-z])")
_SECRET_NAME = re.compile(f"({_SECRET_WORDS})", re.IGNORECASE)
_SECRET_SHAPES = [re.compile(p) for p in (
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key id
    r"\bAIza[0-9A-Za-z_-]{35}\b",  # Google API key
    r"\bgh[pousr]_[A-Za-z0-9]{30,}\b",  # GitHub token
    r"\bgithub_pat_[A-Za-z0-9_]{30,}\b",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b",  # Slack token
    r"\bsk-[A-Za-z0-9_-]{20,}\b",  # OpenAI-style secret key
    r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.",  # JWT
    r"\bya29\.[A-Za-z0-9_-]{20,}",  # Google OAuth access token
    r"\bhttps://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+",  # webhook
    r"://[^/\s:@]+:[^/\s@]+@",  # URL with a password
)]
# The same shapes, for hiding only the secret part of a longer text (a diagnostic, a command).
_SECRET_SPANS = [re.compile(p, re.DOTALL) for p in (
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
    *(p.pattern for p in _SECRET_SHAPES[1:-1]),
)]
_URL_PASSWORD = re.compile(r"(://[^/\s:@'\"]+:)[^/\s@'\"]+@")
# Secrets after a visible prefix, kept so a reader sees what was hidden: an HTTP credential
# (Authorization: Bearer …), a token as a URL's user (a Sentry DSN, https://TOKEN@host) and a
# `-p VALUE` (mysql, psql and friends take the password so).
_SECRET_AFTER = [re.compile(p, re.IGNORECASE) for p in (
    r"\b((?:proxy-)?authorization\s*[:=]\s*(?:(?:bearer|basic|token|digest|negotiate)\s+)?)"
    r"(?!<redacted>)[^\s\"',;]+",
    r"\b(bearer\s+)(?!<redacted>)[A-Za-z0-9._~+/=-]{8,}",
    r"(://)(?!<redacted>)[A-Za-z0-9_-]{16,}(?=@)",
    r"(?<!\S)(-p(?:=|\s+))(?!<redacted>)(?=[^\s-])\S+",
)]
# key=value and --flag=value (or --flag VALUE) inside a text, the key naming a secret:
# api_key=XYZ, --token=abc, password=..., ?access_token=...&
_SECRET_PAIR = re.compile(
    r"(?<![\w.-])(-{0,2}[A-Za-z0-9_.-]*(?:" + _SECRET_WORDS + r")[A-Za-z0-9_.-]*)"
    r"(=|(?<=[A-Za-z0-9_])\s+(?=[^\s-]))(?:(?!<redacted>)[^\s\"'&;,)\]}]+)", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"^<secret:[^>]+>$")
_FLAG = re.compile(r"^(-{1,2}[A-Za-z0-9_.-]+)(=)(.*)$", re.DOTALL)
_MIN_LITERAL = 4  # shorter secret literals are not scrubbed from free text (too many false hits)


def looks_secret(value: str) -> bool:
    """True for strings shaped like a credential (keys, tokens, URLs with passwords)."""
    return any(p.search(value) for p in _SECRET_SHAPES)


def redact_text(text: str, literals: Iterable[str] = ()) -> str:
    """`text` with the secret parts replaced by ``<redacted>``: credential shapes, URL
    passwords, ``key=value`` / ``--flag=value`` / ``--flag VALUE`` pairs whose key names a
    secret, and any of `literals` (values a spec marks as secret by name)."""
    for value in sorted(set(literals), key=len, reverse=True):
        if len(value) >= _MIN_LITERAL and not _PLACEHOLDER.match(value):
            text = text.replace(value, REDACTED)
    for pattern in _SECRET_SPANS:
        text = pattern.sub(REDACTED, text)
    text = _URL_PASSWORD.sub(lambda m: f"{m.group(1)}{REDACTED}@", text)
    for pattern in _SECRET_AFTER:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)

    def pair(m: re.Match) -> str:
        # `--flag VALUE` only for dashed flags: "the token expired" is prose, not a pair.
        if m.group(2) != "=" and not m.group(1).startswith("-"):
            return m.group(0)
        return f"{m.group(1)}{'=' if m.group(2) == '=' else ' '}{REDACTED}"
    return _SECRET_PAIR.sub(pair, text)


def _redact_args(items: list) -> list:
    out, hide_next = [], False
    for item in items:
        if not isinstance(item, str):
            out.append(item)
            hide_next = False
            continue
        m = _FLAG.match(item)
        if hide_next and not item.startswith("-"):
            out.append(REDACTED)
        elif m and _secret_flag(m.group(1)) and m.group(3):
            out.append(f"{m.group(1)}={REDACTED}")
        else:
            out.append(_redact(item))
        hide_next = bool(item.startswith("-") and not m and _secret_flag(item))
    return out


def _secret_flag(flag: str) -> bool:
    """A flag whose value is a secret: its name says so (--db-password, --api-key), or -p."""
    return flag == "-p" or bool(_SECRET_NAME.search(flag))


def _redact(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        if set(value) >= {"name", "value"} and isinstance(value.get("value"), str):
            env = dict(value)  # an env entry: hide the value when the name says it is secret
            if not _PLACEHOLDER.match(env["value"]) and (
                    _SECRET_NAME.search(str(env["name"])) or looks_secret(env["value"])):
                env["value"] = REDACTED
            else:
                env["value"] = _redact(env["value"])
            return env
        return {k: _redact(v, k) for k, v in value.items()}
    if isinstance(value, list):
        if key in _ARG_KEYS:
            return _redact_args(value)
        return [_redact(v) for v in value]
    if isinstance(value, str) and not _PLACEHOLDER.match(value):
        return REDACTED if looks_secret(value) else redact_text(value)
    return value


_ARG_KEYS = ("args", "command", "containerArgs", "containerCommand")


def redact(body: dict | None) -> dict | None:
    """A copy of a request body with credential-like values replaced by ``<redacted>``."""
    return None if body is None else _redact(body)


def spec_secrets(data: Any) -> frozenset[str]:
    """The string values of a parsed spec that redaction hides by name (an env variable naming
    a secret, the value after ``--password`` in args), for scrubbing free text."""
    found: set[str] = set()

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if key == "env" and isinstance(v, str) and _SECRET_NAME.search(str(k)):
                    found.add(v)
                walk(v, str(k))
        elif isinstance(value, list):
            if key in _ARG_KEYS:
                hidden = _redact_args([v if isinstance(v, str) else str(v) for v in value])
                found.update(str(v) for v, h in zip(value, hidden, strict=True) if h == REDACTED)
            for v in value:
                walk(v)
    walk(data)
    return frozenset(v for v in found if not _PLACEHOLDER.match(v))


def redact_diagnostic(d: Diagnostic, literals: Iterable[str] = ()) -> Diagnostic:
    """A copy of `d` whose message and hint are redacted like field values."""
    literals = tuple(literals)
    return dataclasses.replace(
        d, message=redact_text(d.message, literals),
        hint=None if d.hint is None else redact_text(d.hint, literals))


def _nodes(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    # Paths spelled as plan.changes spells them.
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, f"{path}[{i}]")


def redacted_changes(e: Entry) -> list[planning.Change]:
    """The plan's changes with every value taken from the redacted bodies."""
    old = dict(_nodes(redact(e.old.body) if e.old is not None and e.old.ok else {}))
    new = dict(_nodes(redact(e.new.body) if e.new is not None and e.new.ok else {}))
    return [c if _not_body(c) else
            planning.Change(c.path, old.get(c.path) if c.kind != "added" else None,
                            new.get(c.path) if c.kind != "removed" else None, c.kind)
            for c in e.plan.changes]


def _not_body(c: planning.Change) -> bool:
    """A change of where the job runs, of its run, or of a secret it reads: not a body path."""
    return c.path in planning.NON_BODY_PATHS or c.path.startswith(SECRET_CHANGE)


# -- reporting ------------------------------------------------------------------------------

def _value(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(value, list) and value:
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, value


def _by_name(items: list) -> dict[str, Any] | None:
    """Env-style lists ([{name, value}...]) keyed by name, for a diff that survives inserts."""
    if not all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in items):
        return None
    keyed = {i["name"]: i for i in items}
    return keyed if len(keyed) == len(items) else None


def _refine(c: planning.Change) -> list[planning.Change]:
    """Display detail for one plan change: whole subtrees become leaf lines."""
    if c.kind == "added":
        return [planning.Change(p, None, v, "added") for p, v in _leaves(c.new, c.path)]
    if c.kind == "removed":
        return [planning.Change(p, v, None, "removed") for p, v in _leaves(c.old, c.path)]
    if isinstance(c.old, list) and isinstance(c.new, list):
        old_keyed, new_keyed = _by_name(c.old), _by_name(c.new)
        if old_keyed is not None and new_keyed is not None:
            found = planning.changes({f"[name={k}]": v for k, v in old_keyed.items()},
                                     {f"[name={k}]": v for k, v in new_keyed.items()}, "")
            found = [planning.Change(c.path + f.path.lstrip("."), f.old, f.new, f.kind)
                     for f in found]
        else:
            n = min(len(c.old), len(c.new))
            found = planning.changes(c.old[:n], c.new[:n], c.path)
            found += [planning.Change(f"{c.path}[{i}]", v, None, "removed")
                      for i, v in enumerate(c.old[n:], n)]
            found += [planning.Change(f"{c.path}[{i}]", None, v, "added")
                      for i, v in enumerate(c.new[n:], n)]
        refined = [r for f in found for r in _refine(f)]
        return refined or [c]  # only the order changed (env order is meaningful)
    return [c]


def display_changes(e: Entry) -> list[planning.Change]:
    """The entry's changes as leaf lines, redacted; a redacted value that changed still shows."""
    out = []
    for c in redacted_changes(e):
        if _not_body(c):
            out.append(c)
            continue
        out += _refine(c) or [c]
    return out


def _change_lines(c: planning.Change) -> list[str]:
    """Unified-diff style lines: `- path: old`, `+ path: new`."""
    if c.path == "platform":
        return [f"- platform: {c.old}", f"+ platform: {c.new}"]
    lines = []
    if c.kind != "added":
        lines.append(f"- {c.path}: {_value(c.old)}")
    if c.kind != "removed":
        lines.append(f"+ {c.path}: {_value(c.new)}")
    return lines


def _title(e: Entry) -> str:
    moved = f"{e.old_file} → {e.new_file}" if e.renamed else e.file
    kind = ", tuning job" if e.tuning else ""
    return f"{moved} (job {e.job or '?'}, {e.platform or '?'}{kind})"


def _errors(r: pipeline.Result, secrets: Iterable[str] = ()) -> list[Diagnostic]:
    """The result's errors, redacted like field values (a message may quote a value)."""
    return [redact_diagnostic(d, secrets) for d in r.diagnostics if d.is_error]


def render_text(rv: Review) -> str:
    head = f"trainspec diff {rv.base} → {rv.head} ({rv.specs})"
    moved = [f"moved, same request: {e.old_file} → {e.new_file}" for e in rv.moved]
    if not rv.changed:
        return "\n".join([head, f"no changes: {rv.compared} spec file(s) compile to the same "
                          "requests", *moved]) + "\n"
    out = [head, ""]
    for e in rv.changed:
        out.append(_title(e))
        if e.failed:
            out.append("  error: the spec does not compile on the HEAD side")
            out += ["  " + line for line in format_text(_errors(e.new, e.secrets)).splitlines()]
        else:
            out.append(f"  {e.plan.description}")
            for c in display_changes(e):
                out += ["    " + line for line in _change_lines(c)]
            if e.search:
                out.append("  search space" + (" (before)" if e.new is None else ""))
                out += ["    " + redact_text(line, e.secrets) for line in e.search]
        if e.base_failed:
            out.append("  note: the spec did not compile on the BASE side:")
            out += ["  " + line for line in format_text(_errors(e.old, e.secrets)).splitlines()]
        out.append("")
    out += moved + [_summary_line(rv)]
    return "\n".join(out) + "\n"


def _summary_line(rv: Review) -> str:
    counts: dict[str, int] = {}
    for e in rv.changed:
        counts[e.action] = counts.get(e.action, 0) + 1
    parts = [f"{counts[a]} {a}" for a in ("create", "replace", "update", "delete", "error")
             if a in counts]
    return f"{len(rv.changed)} of {rv.compared} spec file(s) changed: " + ", ".join(parts)


_ACTION_LABEL = {"create": "🟢 create", "replace": "🟠 replace", "update": "🔵 update in place",
                 "delete": "🔴 delete", "error": "❌ error"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _fence(body: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


COMMENT_LIMIT = 65_536  # characters in a GitHub comment body; longer ones are refused


def render_markdown(rv: Review, limit: int = COMMENT_LIMIT) -> str:
    """A PR comment. Longer than `limit`, it is summarised (whole table rows, no per-spec
    details, a count of what is left out), never cut mid-table: GitHub refuses longer ones."""
    head = [MARKER, f"### trainspec diff: `{rv.base}` → `{rv.head}`", ""]
    moved = [f"- moved, same request: `{e.old_file}` → `{e.new_file}`" for e in rv.moved]
    if not rv.changed:
        text = "\n".join(head + [f"No changes: {rv.compared} spec file(s) compile to the same "
                                 "requests."] + moved) + "\n"
        if len(text) <= limit:
            return text
        return "\n".join(head + [f"No changes: {rv.compared} spec file(s) compile to the same "
                                 f"requests; {len(rv.moved)} moved to another file."]) + "\n"
    table = ["| Spec | Job | Platform | Action |", "|---|---|---|---|"]
    for e in rv.changed:
        spec = f"`{e.old_file}` → `{e.new_file}`" if e.renamed else f"`{e.file}`"
        table.append(f"| {_cell(spec)} | {_cell(e.job or '?')} | {e.platform or '?'} | "
                     f"{_ACTION_LABEL[e.action]} |")
    details = []
    for e in rv.changed:
        if e.failed:
            body = format_text(_errors(e.new, e.secrets))
            what, lang = "error: does not compile", ""
        else:
            lines = [line for c in display_changes(e) for line in _change_lines(c)]
            lines += [f"# {redact_text(line, e.secrets)}" for line in e.search]
            body, what, lang = "\n".join(lines), e.plan.description, "diff"
        if e.base_failed:
            body += "\n# the BASE side did not compile:\n" + format_text(_errors(e.old, e.secrets))
        fence = _fence(body)
        details += [f"<details><summary><code>{_html(e.file)}</code>: {_html(what)}</summary>",
                    "", f"{fence}{lang}", body, fence, "", "</details>", ""]
    text = "\n".join(head + table + ["", *moved, _summary_line(rv), ""] + details)
    if len(text) <= limit:
        return text
    out = head + [_summary_line(rv), "", f"_This report is {len(text):,} characters, more than a "
                  f"GitHub comment takes ({limit:,}): a summary without per-spec details. "
                  "`python -m compiler diff` prints them all (see the job log)._", ""]
    tail = ([f"{len(rv.moved)} spec(s) moved to another file with the same request."]
            if rv.moved else [])
    reserve = len(f"… and {len(table)} more spec(s), not listed here.") + 4 + sum(
        len(line) + 1 for line in tail)
    used = sum(len(line) + 1 for line in out)
    shown_rows = 0
    for row in table:
        if used + len(row) + 1 > limit - reserve:
            break
        out.append(row)
        used += len(row) + 1
        shown_rows += 1
    if shown_rows <= 2:  # not even one row: no table at all
        out = out[:len(out) - shown_rows]
        shown_rows = 2
    left = len(table) - shown_rows
    out.append("")
    if left:
        out.append(f"… and {left} more spec(s), not listed here.")
    return "\n".join(out + tail) + "\n"


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_json(rv: Review) -> str:
    specs = []
    for e in rv.changed:
        item: dict[str, Any] = {
            "file": e.file, "oldFile": e.old_file, "newFile": e.new_file, "job": e.job or None,
            "platform": e.platform or None, "action": e.action,
            "description": None if e.failed else e.plan.description,
            "changes": [] if e.failed else [
                {"path": c.path, "kind": c.kind, "old": c.old, "new": c.new}
                for c in display_changes(e)],
            "errors": [d.to_json() for d in _errors(e.new, e.secrets)] if e.failed else [],
            "searchSpace": [redact_text(line, e.secrets) for line in e.search],
            "baseErrors": ([d.to_json() for d in _errors(e.old, e.secrets)]
                           if e.base_failed else []),
        }
        specs.append(item)
    summary = {a: sum(e.action == a for e in rv.changed)
               for a in ("create", "replace", "update", "delete", "error")}
    report = {"base": rv.base, "head": rv.head, "specs": rv.specs, "compared": rv.compared,
              "changed": len(rv.changed), "ok": not rv.failed, "exitCode": rv.exit_code,
              "summary": summary, "entries": specs,
              "moved": [{"oldFile": e.old_file, "newFile": e.new_file} for e in rv.moved]}
    return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


RENDER = {"text": render_text, "markdown": render_markdown, "json": render_json}


# -- command --------------------------------------------------------------------------------

def add_arguments(p: argparse.ArgumentParser) -> None:
    """The `diff` command's own arguments (the CLI adds --platform/--project/--region)."""
    p.add_argument("base", metavar="BASE", help="git revision to compare from (origin/main)")
    p.add_argument("head", metavar="HEAD", nargs="?",
                   help="git revision to compare to (default: the working tree)")
    p.add_argument("--specs", default="specs", metavar="DIR",
                   help="folder holding the spec files, relative to --repo (default: specs)")
    p.add_argument("--repo", default=".", metavar="DIR",
                   help="a folder inside the git repository (default: current folder)")
    p.add_argument("--merge-base", action="store_true",
                   help="compare from the merge base of BASE and HEAD, as a pull request does")
    p.add_argument("--stack", metavar="NAME",
                   help="read Pulumi.NAME.yaml (in --repo) on both sides, as `pulumi up` does: "
                   "gcp:project/gcp:region for specs without their own, secret changes")
    p.add_argument("--format", choices=tuple(RENDER), default="text",
                   help="text (default), markdown (a PR comment) or json")


def cmd_diff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    options = Options(platform=getattr(args, "platform", None),
                      project=getattr(args, "project", None),
                      region=getattr(args, "region", None),
                      staging_bucket=getattr(args, "staging_bucket", None))
    try:
        rv = review(Path(getattr(args, "repo", ".")), args.base, args.head,
                    getattr(args, "specs", "specs"), options,
                    getattr(args, "merge_base", False), getattr(args, "stack", None))
    except ReviewError as e:
        err.write(f"error: {e}\n")
        if "unknown revision" in str(e) or "Not a valid object name" in str(e):
            err.write("hint: fetch the revision first (in CI: actions/checkout with "
                      "fetch-depth: 0)\n")
        return EXIT_ERROR
    out.write(RENDER[args.format](rv))
    if rv.failed and args.format != "text":  # the report went to a file: show why in the log
        for e in rv.entries:
            if e.failed:
                err.write(format_text(_errors(e.new, e.secrets)) + "\n")
    return rv.exit_code
