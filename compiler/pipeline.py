"""The orchestrator: source → version → schema → normalize → target check → lower."""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from . import packaging, targets
from .config import apply as config_apply
from .config import load as config_load
from .config import plaintext as secret_check
from .config import policy
from .config.plaintext import literals, redact_diagnostic, spec_secrets
from .diagnostics import Diagnostic, Position, has_errors, sort_key
from .model import Job
from .normalize.job import normalize
from .options import Options
from .schema import validate as schemas
from .source import read as source
from .source.document import Document
from .source.files import STDIN
from .source.jsonpath import child


@dataclass
class Result:
    """The outcome for one spec file: a body if it compiled, and every diagnostic."""

    file: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    job: Job | None = None
    body: dict | None = None
    origins: dict[str, str] = field(default_factory=dict)
    document: Document | None = None
    # The job's identity, kept when `job`/`document` are dropped (worker processes):
    # (metadata.name, platform, project, where metadata.name is written, metadata.run). Set
    # for every spec that parses, errors or not: the cross-spec rules read it (`check_set`).
    identity: tuple[str, str, str | None, Position | None, str | None] | None = None
    # The archives built from python.source, each once: what `pulumi up` uploads.
    uploads: list[packaging.Upload] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.body is not None and not has_errors(self.diagnostics)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]


def compile_document(doc: Document, found: list[Diagnostic], options: Options,
                     today: datetime.date, repo: config_load.Found,
                     files: packaging.Files | None = None,
                     notes: list[Diagnostic] | tuple = ()) -> Result:
    """Compile a parsed document with its repo config `repo` (docs/config.md), which the
    entry point that reads files looks up (compile_file, compile_text, compile_stream, or
    tree.py for a tree); `found` holds the loader's diagnostics, `notes` what discovery says
    about the file (tunable, as any rule). `files` reads the python.source folders (default:
    the working tree, spec paths relative to the current folder)."""
    result = Result(doc.file, [*found, *notes], document=doc)
    options = dataclasses.replace(options, extension=repo.config.extension)
    if has_errors(found) or doc.data is None:
        return _done(_tuned(result, repo, doc, options, result.diagnostics))
    c = doc.collector()
    version = schemas.check_version(doc.data, c)
    if version is None:
        result.diagnostics += c.items
        return _done(_tuned(result, repo, doc, options, result.diagnostics))
    schema_bad = schemas.validate(doc.data, c, version)
    found_by_schema = len(c.items)
    job = normalize(doc, c, options)
    result.uploads = packaging.resolve(job, c, files, options.package_dir,
                                       repo.config.packaging)
    target = targets.PLATFORMS[job.platform].target
    targets.prepare(target, job, c, today)
    policy.check(job, repo.policies, c)
    findings = secret_check.check(doc.data, repo.policies, c)
    result.job = job
    result.identity = (job.name, job.platform, job.project, c.locate("$.metadata.name"),
                       job.run)
    # A value the schema already refused is not reported again by the semantic rules, except
    # a number YAML misread (0600, 1:30, .inf): why it is wrong beats what type it is not.
    misread = {d.path for d in c.items[found_by_schema:] if d.path in doc.suspect}
    result.diagnostics += [d for d in c.items[:found_by_schema] if d.path not in misread] + [
        d for d in c.items[found_by_schema:]
        if d.path not in schema_bad or d.path in misread or d.code == secret_check.CODE]
    _tuned(result, repo, doc, options, found + c.items[:found_by_schema])
    if not has_errors(result.diagnostics):
        result.body, result.origins = target.lower(job)
    return _done(result, findings)


def _tuned(result: Result, repo: config_load.Found, doc: Document, options: Options,
           fixed: list[Diagnostic]) -> Result:
    """The repo config's ignore/severity, inline ignores and --strict, applied; `fixed` (the
    loader's and the schema's problems) are never ignored nor softened."""
    result.diagnostics = config_apply.apply(result.diagnostics, repo, doc.ignores, doc.file,
                                            options.strict, fixed)
    return result


def compile_text(text: bytes | str, file: str = "<input>", options: Options = Options(),
                 today: datetime.date | None = None, files: packaging.Files | None = None,
                 seen: config_load.Seen | None = None,
                 repo: config_load.Found | None = None) -> Result:
    """Compile spec text named `file` (a path in `files`) with its repo config `repo`, or the
    one read here; `seen` is shared by the specs of one tree (config_load.find)."""
    doc, found = source.parse(text, file)
    return compile_document(doc, found, options, today or datetime.date.today(),
                            repo or config_load.find(doc.file, files, seen), files)


def compile_file(path: str, options: Options = Options(),
                 today: datetime.date | None = None, notes: list[Diagnostic] | tuple = (),
                 seen: config_load.Seen | None = None, data: bytes | None = None) -> Result:
    """Compile the spec file at `path` with its repo config, both read here; `seen` is
    shared by the specs of one tree (config_load.find); `data`: the file's bytes, read
    already (the result cache keys a result by the bytes compiled)."""
    doc, found = source.read(path) if data is None else source.parse(data, path)
    return compile_document(doc, found, options, today or datetime.date.today(),
                            config_load.find(doc.file, seen=seen), notes=notes)


def compile_stream(stream: BinaryIO, options: Options = Options(),
                   today: datetime.date | None = None) -> Result:
    """Compile the spec read from a binary stream (stdin: the `-` path), named <stdin>, with
    the config of the current folder."""
    doc, found = source.read_stream(stream)
    return compile_document(doc, found, options, today or datetime.date.today(),
                            config_load.find(doc.file))


def compile_path(path: str, options: Options = Options(), stdin: BinaryIO | None = None,
                 today: datetime.date | None = None) -> Result:
    """`compile_file`, or `compile_stream(stdin)` for the path `-`."""
    if path == STDIN and stdin is not None:
        return compile_stream(stdin, options, today)
    return compile_file(path, options, today)


def location_errors(result: Result) -> list[Diagnostic]:
    """Where a compiled job goes, if it cannot be known: without a project (or a region) there
    is no URL to send it to, or to look it up at. For the Pulumi program and status/logs/wait."""
    if not result.ok or result.job is None:
        return []
    collector = result.document.collector() if result.document is not None else None
    found = []
    for key in ("project", "region"):
        if not getattr(result.job, key):
            at = collector.locate(f"$.spec.{key}") if collector else None
            found.append(Diagnostic("$.spec", f"no {key}: set spec.{key} or `pulumi config set "
                                    f"gcp:{key} ...`", file=result.file, position=at,
                                    code="job-location"))
    return found


def secret_errors(result: Result, is_set: Callable[[str], bool],
                  elsewhere: Callable[[str], str | None]) -> list[Diagnostic]:
    """`secret-not-set` for each secret config key (``trainspec:KEY``) the job reads that
    `is_set` says is not set; `elsewhere(KEY)` names where else the stack sets it (the
    project's namespace: never read). For the Pulumi program and `diff --stack` alike."""
    if not result.ok or result.job is None:
        return []
    collector = result.document.collector() if result.document is not None else None
    found = []
    for key in result.job.secrets:
        if is_set(key):
            continue
        bare = key.split(":", 1)[1]
        other = elsewhere(bare)
        also = (f"; {other} is set, but secrets are read only from trainspec:, whatever the "
                "project is called") if other else ""
        path = _secret_path(result.document.data if result.document is not None else None,
                            key) or "$.spec"
        found.append(Diagnostic(path, f"secret config {key!r} is not set{also}",
                                file=result.file,
                                position=collector.locate(path) if collector else None,
                                hint=f"pulumi config set {key} VALUE --secret",
                                code="secret-not-set"))
    return found


def _secret_path(data, key: str, path: str = "$") -> str | None:
    """The JSON path of the env value `{secret: ...}` that names config `key`."""
    if isinstance(data, dict):
        secret = data.get("secret")
        if isinstance(secret, str) and key in (secret, f"trainspec:{secret}"):
            return path
        items = data.items()
    elif isinstance(data, list):
        items = enumerate(data)
    else:
        return None
    for k, v in items:
        found = _secret_path(v, key, child(path, k))
        if found:
            return found
    return None


def check_set(results: list[Result]) -> list[Diagnostic]:
    """Rules across the specs of one tree (one Pulumi stack): each job has its own resource
    name (metadata.name) and, on ai-platform, its own (project, jobId). Every spec that parses
    takes part, with its own errors or not: every problem is said in one run."""
    found: list[Diagnostic] = []
    names: dict[str, str] = {}
    job_ids: dict[tuple[str | None, str], str] = {}
    for r in results:
        if r.identity is None or not r.identity[0] or r.identity[1] not in targets.PLATFORMS:
            continue
        name, platform, project, at, run = r.identity
        if name in names:
            found.append(Diagnostic("$.metadata.name", f"job name {name!r} is already used by "
                                    f"{names[name]}", file=r.file, position=at,
                                    hint="each spec of a tree is one job: rename one",
                                    code="duplicate-job-name"))
            continue
        names[name] = r.file
        job_id = targets.PLATFORMS[platform].job_id
        if job_id is not None:
            # ml v1 jobIds fold '-' into '_': `a-b` and `a_b` would be the same job.
            key = (project, job_id(name, run))
            if key in job_ids:
                found.append(Diagnostic(
                    "$.metadata.name", f"AI Platform jobId {key[1]!r}"
                    + (f" in project {project!r}" if project else "")
                    + f" is already used by {job_ids[key]}", file=r.file, position=at,
                    hint="ml v1 jobIds replace '-' by '_': rename metadata.name",
                    code="duplicate-job-id"))
            job_ids.setdefault(key, r.file)
    return found


def _done(result: Result, findings: list[secret_check.Finding] | None = None) -> Result:
    """`result` with its diagnostics unique, sorted and never quoting a secret of the spec
    (what plaintext-secret flags, by name, is named there once; no other message shows it).
    `findings`: what the plaintext-secret check found in the spec, if it ran."""
    data = result.document.data if result.document is not None else None
    secrets = literals(findings) if findings is not None else \
        spec_secrets(data) if data is not None else frozenset()
    unique: dict[tuple, Diagnostic] = {}
    for d in result.diagnostics:
        if d.file == result.file:  # a config's own are redacted when reported
            d = redact_diagnostic(d, secrets, pairs=False)
        unique.setdefault((d.path, d.message, d.severity), d)
    result.diagnostics = sorted(unique.values(), key=sort_key)
    return result
