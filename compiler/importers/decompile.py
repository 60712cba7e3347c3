"""`trainspec import`: an existing job config → an equivalent trainspec spec (YAML text).

Reads gcloud `ai-platform jobs submit training --config` files, ml v1 REST bodies, gcloud
`ai custom-jobs create --config` and `ai hp-tuning-jobs create --config` files, Vertex CustomJob
and HyperparameterTuningJob REST bodies and Python SDK arguments; a tuning job (either API)
becomes `kind: HyperparameterTuningJob` with `spec.tuning`;
merges gcloud's flags the way gcloud does (flags override the file); writes the spec whose
compiled request is the source request, with a comment wherever a choice was made.
The inverse of the lowering in targets/; see docs/migration.md.
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from .. import packaging, pipeline
from ..config import plaintext as secret_check
from ..diagnostics import Collector, Diagnostic, has_errors
from ..options import Options
from ..report import format_text
from ..schema.foreign import describe
from ..source import files as safe_files
from ..source import read as source
from ..source.files import shown
from ..tuning.model import KIND as TUNING_KIND
from . import flags, gcloud, ml, render, sources, study, typed, vertex
from .spec import Draft

KIND_TEXT = {
    "ml-gcloud": "gcloud ai-platform jobs submit training --config file",
    "ml-rest": "AI Platform Training (ml v1) REST body",
    "vertex-gcloud": "gcloud ai custom-jobs create --config file (CustomJobSpec)",
    "vertex-rest": "Vertex AI CustomJob REST body",
    "vertex-hpt": "Vertex AI HyperparameterTuningJob: REST body, gcloud ai hp-tuning-jobs "
                  "create --config file or SDK arguments",
    "vertex-sdk": "Vertex AI Python SDK arguments",
}
GCLOUD_FILE = "gcloud command line"
EXIT_USAGE = 64  # EX_USAGE, as the CLI's other usage errors
# What `gcloud ... --config FILE` reads: a CustomJobSpec, or an ml v1 Job (jobId optional).
GCLOUD_CONFIG_KINDS = {"vertex": ("vertex-gcloud",), "ai-platform": ("ml-gcloud", "ml-rest")}


@dataclass
class Outcome:
    """The imported spec text (None when the source could not be imported) and diagnostics."""

    text: str | None
    kind: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.text is not None and not has_errors(self.diagnostics)


def decompile(text: bytes | str, file: str, args: argparse.Namespace | None = None,
              src: sources.Source | None = None) -> Outcome:
    """Import one config. `args` holds the gcloud flags (see `add_arguments`); `src`, when
    given, is the request already loaded (a gcloud command line without --config)."""
    ns = args or parse_flags([])
    if src is None:
        src, found = sources.load(text, file)
        if src is None or has_errors(found):
            return Outcome(None, None, found)
    typed.check(src)  # every value of the API's shape before any importer reads one
    if src.collector.failed:
        return Outcome(None, src.kind, src.collector.items)
    flags.merge(src, ns)
    if src.kind != "vertex-hpt" and ns.trial_job_only:
        src.collector.error("$", "--trial-job-only applies to a Vertex hyperparameter tuning "
                            "job config, and this is none", code="import-trial-job-only")
    if src.collector.failed:
        return Outcome(None, src.kind, src.collector.items)
    d = Draft()
    d.set("apiVersion", "trainspec/v1")
    d.set("kind", "TrainingJob")
    _name(src, ns, file, d)
    platform = ns.platform or src.api
    d.set("spec.platform", platform)
    if platform != src.api:
        source_api = "an AI Platform" if src.api == "ai-platform" else "a Vertex AI"
        d.comment("spec.platform", f"imported from {source_api} "
                  f"config; --platform {platform} asked for this target")
    if ns.project or src.project:
        d.set("spec.project", ns.project or src.project,
              ["from --project"] if ns.project else None)
    _region(src, ns, d)
    (ml if src.api == "ai-platform" else vertex).to_spec(src, d)
    if src.local_source is not None:
        out = getattr(ns, "out", None)
        notes = src.local_notes if out is None else [
            f"{src.local_source} from where gcloud ran, relative to this spec's folder (--out)"
            if n.startswith(_CWD_NOTE) else n for n in src.local_notes]
        d.set("spec.python.source", _from_spec_folder(src.local_source, out), notes)
        if src.local_staging:
            d.set("spec.stagingBucket", src.local_staging[0], [src.local_staging[1]])
    if src.kind == "vertex-hpt" and ns.trial_job_only:
        d.comment("spec", "only the trialJobSpec was imported (--trial-job-only): the studySpec "
                  "and trial counts of the tuning job were left out")
    elif src.kind == "vertex-hpt":
        study.from_vertex(src, d)
    if d.has("spec.tuning"):
        d.set("kind", TUNING_KIND)
    if src.collector.failed:
        return Outcome(None, src.kind, src.collector.items)
    data, comments = d.finish()
    inv = getattr(ns, "gcloud", None)
    origin = f"the job {file}" if getattr(ns, "job", None) else os.path.basename(file)
    header = [f"Imported by `trainspec import` from {origin}",
              f"({KIND_TEXT[src.kind]})."] if inv is None or file != GCLOUD_FILE else \
        [f"Imported by `trainspec import` from a `{inv.text}` command line."]
    if inv is not None and inv.track != "ga":
        header.append(f"gcloud {inv.track} sends the same body"
                      + (" to the v1beta1 API; trainspec submits it to v1" if inv.api == "vertex"
                         else ""))
    written = {line for lines in comments.values() for line in lines}
    header += sorted({f"{path}: {text}" for path, notes in src.notes.items() for text in notes
                      if text not in written})
    out = render.render(data, comments, header)
    items = list(src.collector.items)
    if platform == "ai-platform" and not d.has("spec.region"):
        src.collector.warning("$", "no region in the source: ai-platform needs one",
                              "pass --region, or set spec.region", code="import-no-region")
        items = list(src.collector.items)
    return Outcome(out, src.kind, items)


def _name(src: sources.Source, ns: argparse.Namespace, file: str, d: Draft) -> None:
    req = src.request
    display = req.get("displayName") if src.api == "vertex" else None
    if ns.name:
        job = getattr(ns, "job_id", None)
        d.set("metadata.name", ns.name, ["from gcloud's JOB argument" if job == ns.name
                                         else "from --name"])
    elif src.api == "ai-platform" and isinstance(req.get("jobId"), str):
        name = _sanitise(req["jobId"])
        d.set("metadata.name", name, [f"jobId {req['jobId']!r} kept as metadata.name" if
                                      name == req["jobId"] else
                                      f"jobId {req['jobId']!r} is not a valid name: sanitised"])
    elif isinstance(display, str) and display:
        name = _sanitise(display)
        d.set("metadata.name", name, src.notes.get("$.displayName"))
        if name != display:
            d.comment("metadata.name", f"displayName {display!r} is not a valid name: sanitised; "
                      "the original is kept in spec.vertex.displayName")
            d.set("spec.vertex.displayName", display)
        else:
            d.comment("metadata.name", f"displayName {display!r} kept as metadata.name")
    else:
        stem = os.path.splitext(os.path.basename(file))[0]
        d.set("metadata.name", _sanitise(stem))
        what = "jobId (gcloud's JOB argument)" if src.api == "ai-platform" else "displayName"
        d.comment("metadata.name", f"no {what} in the source: name from the file name "
                  "(pass --name to choose)")
    if display is not None and not isinstance(display, str):
        src.collector.error("$.displayName", "displayName must be a string", code="import-shape")


def _sanitise(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-_")
    if not name or not name[0].isalpha():
        name = ("job-" + name).strip("-")
    return name[:128].rstrip("-_") or "job"


def _region(src: sources.Source, ns: argparse.Namespace, d: Draft) -> None:
    tin = src.request.get("trainingInput") if src.api == "ai-platform" else None
    written = tin.get("region") if isinstance(tin, dict) else src.region
    if ns.region:
        if isinstance(tin, dict):
            tin["region"] = ns.region
        note = f"from --region (overrides {written!r} in the source)" if written and \
            written != ns.region else ("no region in the source: taken from --region"
                                       if not written and getattr(ns, "gcloud", None) is None
                                       else "from --region")
        d.set("spec.region", ns.region, [note])
    elif written is not None and not isinstance(tin, dict):
        d.set("spec.region", written)


# -- command line -----------------------------------------------------------------------

def add_arguments(p: argparse.ArgumentParser) -> None:
    """The `import` command's arguments: FILE, trainspec's own flags and gcloud's."""
    p.add_argument("path", metavar="FILE", nargs="?",
                   help="JSON or YAML config, request body or SDK dict")
    p.add_argument("--job", metavar="RESOURCE_NAME",
                   help="instead of FILE: read this job from its API (projects/P/locations/R/"
                   "customJobs/ID, .../hyperparameterTuningJobs/ID or projects/P/jobs/ID; "
                   "TRAINSPEC_API_ENDPOINT as for `status`)")
    p.add_argument("--platform", choices=("vertex", "ai-platform"),
                   help="spec.platform to write (default: the source's API)")
    p.add_argument("--out", metavar="SPEC",
                   help="write the spec to this new file (never over one), a local "
                        "python.source made relative to its folder (default: stdout, relative "
                        "to the current folder)")
    p.add_argument("--project", help="spec.project to write")
    p.add_argument("--region", help="spec.region (gcloud --region; overrides the file)")
    flags.add_arguments(p)


def parse_flags(argv: list[str]) -> argparse.Namespace:
    """Flags as `import` parses them, without FILE: for library callers and tests."""
    p = argparse.ArgumentParser(prog="trainspec import", add_help=False)
    add_arguments(p)
    return p.parse_args(["-", *argv])


def import_gcloud(words: list[str], own: list[str]) -> Outcome:
    """`import [--platform P] [--name N] -- gcloud ...`: the spec for a gcloud command line.
    Only the config file the command names (--config) is read."""
    base = _own_flags(own)
    if base is None:
        return _refused("before `--` only --platform vertex|ai-platform, --name NAME and --out "
                        "SPEC are taken; gcloud's flags go after `--`", code="import-own-flags")
    try:
        inv = gcloud.parse(words)
    except gcloud.GcloudError as e:
        return _refused(str(e))
    ns = gcloud.namespace(inv, parse_flags([]))
    ns.platform, ns.name, ns.out = base.platform, base.name or ns.name, base.out
    if inv.config is None and "--config" in inv.values:
        inv.config = str(inv.values["--config"])
    if inv.config is None:
        req = {"jobSpec": {}} if inv.api == "vertex" else {"trainingInput": {}}
        kind = "vertex-gcloud" if inv.api == "vertex" else "ml-gcloud"
        src = sources.Source(kind, inv.api, req, Collector(GCLOUD_FILE))
        return decompile("", GCLOUD_FILE, ns, src)
    blob, problem = safe_files.read_bytes(inv.config)  # a pipe, a device, a huge file: refused
    if problem is not None:
        return Outcome(None, None, [problem])
    src, found = sources.load(blob, inv.config)
    if src is None or has_errors(found):
        return Outcome(None, None, found)
    doc, _ = source.parse(blob, inv.config)
    raw = doc.data if isinstance(doc.data, dict) else {}
    # SDK arguments are snake_case (trial_job_spec, worker_pool_specs): not what gcloud reads.
    snake = src.kind == "vertex-sdk" or (src.kind == "vertex-hpt" and not (
        "trialJobSpec" in raw or "studySpec" in raw))
    kinds = ("vertex-hpt",) if inv.tuning else GCLOUD_CONFIG_KINDS[inv.api]
    if snake or src.kind not in kinds:
        want = ("a HyperparameterTuningJob (studySpec, trialJobSpec, ...)" if inv.tuning else
                "a CustomJobSpec (workerPoolSpecs, ...)" if inv.api == "vertex" else
                "an ml v1 Job (trainingInput, ...)")
        return _refused(f"--config {inv.config}: {inv.text} reads {want}, not "
                        + ("snake_case keys: gcloud passes them on as unknown fields and the "
                           "API refuses the request (write "
                           + ("studySpec, trialJobSpec" if inv.tuning else
                              "workerPoolSpecs, machineSpec") + ", ...)"
                           if snake else str(describe(raw) or src.kind)),
                        file=inv.config)
    return decompile(blob, inv.config, ns, src)


def _refused(message: str, file: str = GCLOUD_FILE, code: str = "gcloud-refuses") -> Outcome:
    return Outcome(None, None, [Diagnostic("$", message, file=file, code=code)])


def _own_flags(words: list[str]) -> argparse.Namespace | None:
    """trainspec's own flags before `--` (--platform, --name, --out), or None if anything
    else."""
    ns = argparse.Namespace(platform=None, name=None, out=None)
    i = 0
    while i < len(words):
        key, eq, value = words[i].partition("=")
        if key not in ("--platform", "--name", "--out"):
            return None
        if not eq:
            if i + 1 >= len(words):
                return None
            value, i = words[i + 1], i + 1
        setattr(ns, key[2:], value)
        i += 1
    return ns if ns.platform in (None, "vertex", "ai-platform") else None


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """`python -m compiler import FILE [flags]` or `import -- gcloud ...`: spec on stdout,
    problems on stderr."""
    if getattr(args, "gcloud_words", None) is not None:
        outcome = import_gcloud(args.gcloud_words, args.own)
        target = getattr(_own_flags(args.own), "out", None)
    elif args.path is None:
        err.write("error: import takes a FILE or --job RESOURCE_NAME\n")
        return EXIT_USAGE
    else:
        blob, problem = safe_files.read_bytes(args.path)  # a pipe, a device, a huge file: refused
        if problem is not None:
            err.write(problem.format() + "\n")
            return 1
        outcome = decompile(blob, args.path, args)
        target = args.out
    return report(outcome, out, err, target)


_CWD_NOTE = "relative to where gcloud ran"  # the importers' note, said otherwise with --out


def _from_spec_folder(source: str, spec: str | None) -> str:
    """gcloud reads a local package path from the current folder; a spec's python.source is
    read from the spec's folder."""
    if spec is None or os.path.isabs(source):
        return source
    return Path(os.path.relpath(source, os.path.dirname(os.path.abspath(spec)))).as_posix()


def report(outcome: Outcome, out: TextIO, err: TextIO, target: str | None = None) -> int:
    """The imported spec on `out` (or in the new file `target`), problems on `err`; the exit
    code."""
    if outcome.diagnostics:
        err.write(format_text(outcome.diagnostics) + "\n")
    if not outcome.ok:
        return 1
    assert outcome.text is not None
    if target is None:
        out.write(outcome.text)
    else:
        try:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            with open(target, "x", encoding="utf-8") as f:  # "x": never replace a file
                f.write(outcome.text)
        except OSError as exc:
            err.write(f"error: cannot write {shown(target)}: {exc.strerror or exc}; import never "
                      "overwrites a file\n")
            return 1
        err.write(f"wrote {shown(target)}\n")
    # A python.source is checked where the spec is saved (stdout: as if in the current folder).
    check = pipeline.compile_text(outcome.text, target or "<imported spec>", Options(),
                                  files=None if target else packaging.CurrentFolder())
    # The spec keeps a secret as the config wrote it; the warning says where it belongs.
    secrets = [d for d in check.diagnostics if d.code == secret_check.CODE and not d.is_error]
    if secrets:
        err.write(format_text(secrets) + "\n")
    if check.errors:
        err.write(f"warning: the imported spec does not validate ({len(check.errors)} "
                  "problem(s)); `validate` will report:\n" + format_text(check.errors) + "\n")
    return 0
