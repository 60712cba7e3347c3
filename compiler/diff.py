"""The `diff` command: its arguments, reading and comparing both sides, the report, the exit."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import TextIO

from . import packaging
from .options import Options
from .report import REPORTERS, REVIEW, choices, format_text, help_text
from .report.review import head_errors
from .review import alike
from .review.compare import EXIT_ERROR, WORKTREE, Review, Side, compare
from .review.sides import (
    NoSpecsError,
    ReviewError,
    StackError,
    Vouched,
    blob_id,
    git,
    list_revision,
    locate,
    read_blobs,
    read_revision,
    read_worktree,
    stack_side,
)

DESCRIPTION = """\
Compare the compiled requests of the spec files at git revision BASE with those at HEAD
(default: the working tree, including uncommitted and untracked spec files). For each spec
added, removed or changed, print the action `pulumi up` takes and a field-level diff of the
request. A spec moved to another file with the same metadata.name and platform counts as
changed, not removed + added. Secret env values and credential-like values are redacted."""

EXIT_CODES = """\
exit status:
  0  no change: every spec compiles to the same request on both sides
  1  error: a spec on the HEAD side does not compile (located diagnostics are printed),
     `pulumi up` would refuse a change (an AI Platform job changed without a new
     metadata.run: a located error with its code and hint), two HEAD specs name one job,
     git failed (unknown revision, not a repository), the --stack file cannot be read, or
     the spec folder holds no spec file on either side (a wrong --specs or --repo). A
     BASE-side spec that does not compile is reported but is not an error: the change may
     be fixing it.
  2  changes: at least one spec is created, replaced, updated or deleted
 64  usage error (an unknown flag, a missing BASE): a usage message on stderr, nothing on
     stdout; never 2, so a CI step cannot mistake it for a plan"""
CACHE_ENV = "TRAINSPEC_CACHE"  # compiler/cache.py's ENV (not imported: the CLI starts fast)
_STACK_NAME = re.compile(r"^[A-Za-z0-9_.-]+\Z")


def review(repo: Path, base: str, head: str | None, specs: str = "specs",
           options: Options = Options(), merge_base: bool = False,
           stack: str | None = None, incremental: bool = True,
           cache: str | None = None) -> Review:
    """Compare the specs under `specs` at `base` with those at `head` (None: working tree).

    `stack`: also read `Pulumi.<stack>.yaml` (in the --repo folder, the Pulumi project) on
    both sides, as `pulumi up` would: its gcp:project / gcp:region apply to specs without
    their own, and a changed secret a job reads replaces that job. `incremental`: a spec
    alike on both sides is read and compiled once, and takes part in the comparison of the
    others only where they involve it (review/alike.py); False compiles both sides in full
    (the same report: tests/test_diff_incremental.py). `cache`: the result cache's folder
    (--cache), read and filled for the specs alike on both sides when HEAD is the working
    tree and --repo's git root is the current folder (spec paths as `validate specs` gives
    them)."""
    root, prefix = locate(repo, specs)
    if merge_base:
        base = git(root, "merge-base", base, head or "HEAD").decode().strip()
    old_sources = packaging.GitFiles(root, base)
    old, ids = list_revision(root, base, prefix, old_sources.whole)
    cached = bool(cache and incremental and head is None and Path.cwd().resolve() == root.resolve())
    # With the result cache, a spec git vouches is BASE's blob needs no read to be answered;
    # but with --stack, each is read to see if its job reads a stack secret (compare._quiet:
    # a cached result holds no model), so git is not asked.
    vouch = cached and stack is None
    new = read_worktree(root, prefix, ids if vouch else None) if head is None \
        else read_revision(root, head, prefix)
    same = {p for p, blob in ids.items() if incremental and (isinstance(new.get(p), Vouched) or (
        isinstance(new.get(p), bytes) and blob_id(new[p]) == blob))}  # type: ignore[arg-type]
    old.update(read_blobs(root, base, [p for p in ids if p not in same]))
    old = dict(sorted({**old, **{p: new[p] for p in same}}.items()))
    if not old and not new:
        folder = root / prefix if prefix else root
        sides = f"at {base}" + ("" if head == base else
                                f" or {'in the working tree' if head is None else 'at ' + head}")
        missing = f" ({folder} does not exist)" if head is None and not folder.is_dir() else ""
        raise NoSpecsError(f"no spec files (*.yaml, *.yml) in {prefix or '.'}/ {sides}{missing}; "
                           "pass the spec folder with --specs DIR (relative to --repo DIR)")
    new_sources = packaging.Files(root) if head is None else packaging.GitFiles(root, head)
    old_side, new_side = Side(old, options, sources=old_sources), Side(new, options,
                                                                       sources=new_sources)
    if stack is not None:
        if not _STACK_NAME.match(stack):
            raise StackError(f"{stack!r} is not a stack name (letters, digits, '-', '_', '.')")
        project_dir = locate(repo, ".")[1]
        path = f"{project_dir}/Pulumi.{stack}.yaml" if project_dir else f"Pulumi.{stack}.yaml"
        before, after = stack_side(root, base, path, options), stack_side(root, head, path,
                                                                           options)
        if before is None and after is None:
            raise StackError(f"no {path} at {base} or "
                             f"{'in the working tree' if head is None else 'at ' + head}")
        if before is not None:
            old_side = Side(old, *before, sources=old_sources)
        if after is not None:
            new_side = Side(new, *after, sources=new_sources, stack=True)
    results = None
    if cached:
        from .cache import Cache

        results = Cache.open(cache, new_side.options)  # type: ignore[arg-type]
    known = alike.known(old_side, new_side, results) if incremental else None
    return Review(base, head or WORKTREE, prefix or ".", compare(old_side, new_side, known),
                  len(set(old) | set(new)))


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
    p.add_argument("--format", choices=choices(REVIEW), default="text",
                   help=help_text(REVIEW))
    p.add_argument("--cache", metavar="DIR", help="read and store the result of each spec "
                   "alike on both sides in DIR, as validate does (default: $TRAINSPEC_CACHE; "
                   "none if unset); docs/speed.md")


def cmd_diff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    options = Options(platform=getattr(args, "platform", None),
                      project=getattr(args, "project", None),
                      region=getattr(args, "region", None),
                      staging_bucket=getattr(args, "staging_bucket", None),
                      strict=getattr(args, "strict", False))
    try:
        rv = review(Path(getattr(args, "repo", ".")), args.base, args.head,
                    getattr(args, "specs", "specs"), options,
                    getattr(args, "merge_base", False), getattr(args, "stack", None),
                    cache=getattr(args, "cache", None) or os.environ.get(CACHE_ENV))
    except ReviewError as e:
        problems = e.problems if isinstance(e, StackError) else ()
        err.write(f"error: {format_text(problems) if problems else e}\n")
        if "unknown revision" in str(e) or "Not a valid object name" in str(e):
            err.write("hint: fetch the revision first (in CI: actions/checkout with "
                      "fetch-depth: 0)\n")
        return EXIT_ERROR
    out.write(REPORTERS[args.format].review(rv))
    if rv.failed and args.format != "text":  # the report went to a file: show why in the log
        for e in rv.entries:
            if e.failed:
                err.write(format_text(head_errors(e)) + "\n")
    return rv.exit_code

