"""trainspec's command line: flags → options → library call → reporter → exit code.

Commands hold no compiler logic. Streams are passed in so tests drive `main` directly.
The CLI never imports Pulumi (it starts fast and runs without it).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from .version import VERSION

# Each command's module is imported only when that command is parsed or run (`--help` alone
# builds them all, to list each): `--version` imports nothing else and `validate FILE` none of
# the importers, cloud clients, `diff` or `init` (benchmarks/bench_startup.py).

if TYPE_CHECKING:
    from . import diagnostics as diag
    from . import emit, pipeline, tree
    from .options import Options

from .source.files import STDIN

# 2 is `diff`'s "changes" (review.EXIT_CHANGED): a usage error must not read as a plan, so
# usage errors exit 64 (EX_USAGE, sysexits.h), never argparse's default 2.
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 64


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits EXIT_USAGE (its subcommand parsers are this class)."""

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _options(args: argparse.Namespace) -> Options:
    from .options import Options

    return Options(platform=args.platform, project=args.project, region=args.region,
                   staging_bucket=args.staging_bucket, strict=getattr(args, "strict", False))


def _report(results: list[pipeline.Result], extra: list[diag.Diagnostic], fmt: str,
            out: TextIO, err: TextIO, also: list[tuple[str, str]] | None = None) -> None:
    """Report the diagnostics in format `fmt`, and in each (format, file) of `also` to that
    file: one run, several reports (CI's annotations and its SARIF upload)."""
    from .report import REPORTERS

    # A repo config's problem is in the result of every spec under it: reported once.
    items = list(dict.fromkeys(extra + [d for r in results for d in r.diagnostics]))
    files = sorted({r.file for r in results} | {d.file for d in extra})
    for name, path in also or ():
        reporter = REPORTERS[name]
        assert reporter.diagnostics is not None, name
        with open(path, "w", encoding="utf-8") as f:
            f.write(reporter.diagnostics(items, files))
    reporter = REPORTERS[fmt]
    assert reporter.diagnostics is not None, fmt
    (err if reporter.stderr else out).write(reporter.diagnostics(items, files))


def _cache(args: argparse.Namespace):  # noqa: ANN202 - a compiler.cache.Cache or None
    """The result cache of --cache DIR (default: $TRAINSPEC_CACHE), if one is named."""
    import os

    folder = getattr(args, "cache", None) or os.environ.get("TRAINSPEC_CACHE")
    if not folder:
        return None
    from .cache import Cache

    return Cache.open(folder, _options(args))


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import tree
    from .schema.modeline import suggest as suggest_modeline
    from .source.files import shown

    if args.paths.count(STDIN) > 1:
        err.write("error: `-` (standard input) can be given once\n")
        return EXIT_USAGE
    found = tree.compile_paths(args.paths, _options(args), jobs=args.jobs, stdin=args.stdin,
                               cache=_cache(args), slim=True)
    if found.empty:
        err.write("error: " + tree.nothing_found(args.paths) + "\n")
        return EXIT_FAILED
    try:
        _report(found.results, found.missing, args.format, out, err, args.report)
    except OSError as e:
        err.write(f"error: cannot write {shown(str(e.filename))}: {shown(str(e.strerror or e))}"
                  "\n")
        return EXIT_FAILED
    if args.format == "text":
        suggest_modeline([r.file for r in found.results], err)
        err.write(f"{len(found.results)} spec(s) checked, {found.failed} with errors\n")
    return EXIT_FAILED if found.failed else EXIT_OK


def cmd_compile(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import emit, pipeline

    target = Path(args.path)
    if args.path == STDIN and args.out:
        err.write("error: --out compiles a folder; a spec from standard input (-) is printed\n")
        return EXIT_USAGE
    if args.path != STDIN and (target.is_dir() or args.out):
        return _compile_tree(args, out, err)
    if args.format != "text" or args.report:
        err.write("error: --format and --report are for a tree (with --out)\n")
        return EXIT_USAGE
    result = pipeline.compile_path(args.path, _options(args), args.stdin)
    _report([result], [], "text", out, err)
    if not result.ok:
        return EXIT_FAILED
    out.write(emit.dumps(result.body))
    return EXIT_OK


def _compile_tree(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from . import emit, tree

    if not args.out:
        err.write("error: compiling a folder needs --out OUTDIR\n")
        return EXIT_USAGE
    root = Path(args.path)
    base = root if root.is_dir() else root.parent
    outdir = Path(args.out)
    if args.check:
        from .gitstate import vouched

        outputs: emit.Stale | emit.Staging = emit.Stale(
            outdir, vouched(args.out, lambda name: name.endswith(".json")))
    else:
        outputs = emit.Staging(outdir)

    def each(r: pipeline.Result) -> None:  # written (or checked) as it comes, then dropped
        if r.ok:
            outputs.add(emit.output_name(r.file, base), r.body, r.file)  # type: ignore[arg-type]

    with outputs:  # a Staging not committed is removed, whatever happens
        found = tree.compile_paths([args.path], _options(args), jobs=args.jobs,
                                   cache=_cache(args), each=each)
        return _outputs_done(args, found, outputs, base, out, err)


def _outputs_done(args: argparse.Namespace, found: tree.Tree,
                  outputs: emit.Stale | emit.Staging, base: Path, out: TextIO,
                  err: TextIO) -> int:
    """What `compile --out` says and does once the tree compiled (its outputs staged or
    compared): nothing moves into OUTDIR unless every spec compiled and every name is safe."""
    from . import emit, tree
    from .source.files import shown

    if found.empty:
        err.write(f"error: {tree.nothing_found([args.path])}; nothing written\n")
        return EXIT_FAILED
    results = found.results
    try:
        _report(results, found.missing, args.format, out, err, args.report)
    except OSError as e:
        err.write(f"error: cannot write {shown(str(e.filename))}: {shown(str(e.strerror or e))}"
                  "\n")
        return EXIT_FAILED
    if found.failed:
        err.write(f"error: {found.failed} spec(s) failed; nothing written to "
                  f"{shown(args.out)}\n")
        return EXIT_FAILED
    sources = outputs.names  # output name → the first spec file that compiles to it
    for r in results:
        name = emit.output_name(r.file, base)
        if not emit.safe_name(name):
            err.write(f"error: {shown(r.file)}: its output name {name!r} is not one trainspec "
                      f"writes (hidden part or control character); nothing written to "
                      f"{shown(args.out)}\n")
            return EXIT_FAILED
        if sources[name] != r.file:
            err.write(f"error: {shown(sources[name])} and {shown(r.file)} both compile to "
                      f"{shown(name)}; rename one; "
                      f"nothing written to {shown(args.out)}\n")
            return EXIT_FAILED
    blocked = emit.check_names(Path(args.out), outputs.names)
    if blocked:
        err.write("".join(shown(line) + "\n" for line in blocked))
        err.write(f"error: {shown(args.out)} cannot be written safely; nothing written\n")
        return EXIT_FAILED
    if isinstance(outputs, emit.Stale):
        stale = outputs.lines()
        for line in stale:
            err.write(shown(line) + "\n")
        if stale:
            command = shlex.join(["python", "-m", "compiler", "compile", args.path, "--out",
                                  args.out])
            err.write(f"error: {shown(args.out)} is stale: run `{shown(command)}` and commit "
                      "the result\n")
            return EXIT_FAILED
        err.write(f"{len(outputs.names)} compiled request(s) in {shown(args.out)} are up to "
                  "date\n")
        return EXIT_OK
    try:
        outputs.commit()
    except emit.OutsideOut as e:
        err.write(f"error: {shown(str(e))}; nothing written\n")
        return EXIT_FAILED
    except OSError as e:
        err.write(f"error: cannot write {shown(str(e.filename or args.out))}: "
                      f"{shown(str(e.strerror or e))}\n")
        return EXIT_FAILED
    err.write(f"compiled {len(outputs.names)} spec(s) into {shown(args.out)}\n")
    return EXIT_OK


def cmd_explain(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if getattr(args, "last_run", False):
        from .jobs import watch  # noqa: PLC0415 - only --last-run asks the API

        return watch.cmd_explain_last_run(args, out, err)
    from . import explain, pipeline

    result = pipeline.compile_path(args.path, _options(args), args.stdin)
    _report([result], [], "text", out, err)
    if result.job is None or not result.ok:
        return EXIT_FAILED
    out.write(explain.render(result))
    return EXIT_OK


def cmd_quota(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import dataclasses  # noqa: PLC0415

    from . import pipeline, quota, tree  # noqa: PLC0415 - only this command reads quotas
    from .diagnostics import TrainspecError  # noqa: PLC0415

    compile_file, stacks = None, {}
    if args.stack:  # as `status`: the stack's gcp:project/gcp:region, and its jobs
        from .jobs import workspace  # noqa: PLC0415

        def compile_file(f: str, *_: Any, **__: Any) -> pipeline.Result:
            folder = Path(f).parent
            stacks[folder] = stacks.get(folder) or workspace.resolve(f, stack=args.stack,
                                                                     org=args.org)
            options = dataclasses.replace(_options(args), project=args.project or stacks[
                folder].config.get("gcp:project"), region=args.region or stacks[
                folder].config.get("gcp:region"))
            return pipeline.compile_file(f, options)
    try:
        found = tree.compile_paths(args.paths, _options(args), compile_file=compile_file) \
            if compile_file else tree.compile_paths(args.paths, _options(args))
    except TrainspecError as exc:  # no Pulumi project or stack
        err.write(f"error: {exc}\n")
        return EXIT_FAILED
    if found.empty:
        err.write("error: " + tree.nothing_found(args.paths) + "\n")
        return EXIT_FAILED
    _report(found.results, found.missing, "text", out, err)
    if found.failed:
        return EXIT_FAILED
    deployed = None
    if args.stack:
        deployed = _deployed(found.results, stacks, out)
    return quota.run(found.results, out, err, strict=args.strict, stack=deployed)


def _deployed(results: list[pipeline.Result], stacks: dict, out: TextIO) -> Any:
    """What the stack's jobs hold already (quota.Deployed), found as `status` finds them; None
    (one line says why) when they cannot be read."""
    from . import quota  # noqa: PLC0415
    from .catalog.quotas import PLATFORMS  # noqa: PLC0415
    from .cloud.errors import ApiError, ConfigError  # noqa: PLC0415
    from .cloud.rest import Client  # noqa: PLC0415
    from .jobs import track  # noqa: PLC0415

    mine = [r for r in results if r.job is not None and r.job.platform in PLATFORMS
            and r.job.project and r.job.region]
    try:
        client = Client()
        return quota.deployed(track.locate(r, stacks[Path(r.file).parent], client)
                              for r in mine)
    except (ApiError, ConfigError) as exc:
        out.write(f"the stack's jobs were not read ({' '.join(str(exc).split())}): its own "
                  "running jobs count as in use\n")
        return None


def cmd_emulator(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .cloud import emulator

    return emulator.main(args.rest)


def _cancel_arguments(p: argparse.ArgumentParser) -> None:
    from .jobs import cancel

    cancel.add_arguments(p)


def cmd_cancel(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from .jobs import cancel

    return cancel.run(args, out, err)


def _platform_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--platform", choices=("vertex", "ai-platform"),
                   help="compile for this API instead of spec.platform")
    p.add_argument("--project", help="project for specs that set none")
    p.add_argument("--region", help="region for specs that set none")
    p.add_argument("--staging-bucket", metavar="gs://BUCKET",
                   help="bucket for python.source archives, for specs that set no stagingBucket")


def _command(sub: argparse._SubParsersAction, name: str,
             add_arguments: Callable[[argparse.ArgumentParser], None] | str,
             run: Callable[[argparse.Namespace, TextIO, TextIO], int] | str,
             platform: bool = False, strict: bool = False, texts: bool = False,
             **kwargs: Any) -> None:
    """A command whose module declares its own arguments and runs it. `add_arguments` and
    `run` are functions or "module:function" names (relative to compiler), imported only if
    the parser being built holds this command (`_wanted`).
    `texts`: the module's DESCRIPTION and EXIT_CODES are the command's description and epilog."""
    if not _wanted(sub, name):
        return
    add_arguments, run = _resolve(add_arguments), _resolve(run)
    if texts:
        module = import_module(add_arguments.__module__)
        kwargs.update(description=module.DESCRIPTION, epilog=module.EXIT_CODES,
                      formatter_class=argparse.RawDescriptionHelpFormatter)
    p = sub.add_parser(name, **kwargs)
    add_arguments(p)
    if platform:
        _platform_flags(p)
    if strict:
        _strict_flag(p)
    p.set_defaults(run=run)


def _resolve(where: Callable | str) -> Callable:
    """A function, or the function named "module:function" (a module of compiler)."""
    if callable(where):
        return where
    module, _, function = where.partition(":")
    return getattr(import_module(module, __package__), function)


def _wanted(sub: argparse._SubParsersAction, *names: str) -> bool:
    """Whether the parser being built holds the command(s) `names` (see `parser`)."""
    only = getattr(sub, "only", "")
    return only == "" or only in names


def _strict_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strict", action="store_true",
                   help="report every warning as an error (after the repo config's severity)")


def _jobs_flag(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--jobs", type=int, default=0,
                   help=f"worker processes{what} (default: one per core for large trees)")


def _validate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="spec files or folders; - reads one spec from standard input")
    _format_flags(p)
    _jobs_flag(p, "")
    _cache_flag(p)


def _format_flags(p: argparse.ArgumentParser, what: str = "") -> None:
    from .report import DIAGNOSTICS, choices, help_text

    p.add_argument("--format", choices=choices(DIAGNOSTICS), default="text",
                   help=help_text(DIAGNOSTICS) + what)
    p.add_argument("--report", action="append", type=_report_arg, default=[],
                   metavar="FORMAT=FILE", help="also write the report in FORMAT to FILE "
                   f"(repeatable; {', '.join(choices(DIAGNOSTICS))}), from the same run")


def _report_arg(text: str) -> tuple[str, str]:
    """argparse type of --report: FORMAT=FILE."""
    from .report import DIAGNOSTICS, choices

    name, _, path = text.partition("=")
    if name not in choices(DIAGNOSTICS) or not path:
        raise argparse.ArgumentTypeError(f"{text!r} is not FORMAT=FILE with FORMAT one of "
                                         f"{', '.join(choices(DIAGNOSTICS))}")
    return name, path


def _cache_flag(p: argparse.ArgumentParser, what: str = "") -> None:
    p.add_argument("--cache", metavar="DIR", help=f"read and store each spec's result{what} in "
                   "DIR, keyed by its content, its configs and trainspec's (default: "
                   "$TRAINSPEC_CACHE; none if unset); docs/speed.md")


def _compile_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="FILE|DIR", help="a spec, a folder (with --out), or - for "
                   "standard input")
    p.add_argument("--out", metavar="OUTDIR", help="write one JSON per spec under OUTDIR")
    p.add_argument("--check", action="store_true",
                   help="with --out: fail if OUTDIR differs from what would be written")
    _format_flags(p, " (of a tree, with --out: CI's one run validates and checks)")
    _jobs_flag(p, " for a tree")
    _cache_flag(p, " (of a tree, with --out)")


def _explain_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="FILE", help="a spec, or - for standard input")
    p.add_argument("--last-run", action="store_true",
                   help="also the spec's last job in the stack (as `status` finds it): how long "
                   "it ran × the rate (asks the API)")
    p.add_argument("--stack", metavar="NAME", help="with --last-run: whose jobs (as `status`)")
    p.add_argument("--org", metavar="ORG", help="with --last-run: Pulumi organization (as "
                   "`status`)")


# Every command's name: what `parser` needs to know that a word of argv names one.
COMMANDS = ("validate", "compile", "explain", "diff", "import", "status", "logs", "wait",
            "cancel", "local-run", "init", "prices", "quota", "rules", "emulator")


def parser(command: str | None = "") -> argparse.ArgumentParser:
    """The CLI's parser: with every command (`command` ""), only `command`'s (its module alone
    is imported), or none (None: `--version`, or no command, whose usage error names none)."""
    top = _Parser(prog="trainspec", description="Validate, compile and apply "
                                  "training-job specs for Vertex AI and AI Platform Training.")
    top.add_argument("--version", action="version", version=f"trainspec {VERSION}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    if command is None:
        return top
    sub.only = command  # type: ignore[attr-defined]  # read by _wanted

    _command(sub, "validate", _validate_arguments, cmd_validate, platform=True, strict=True,
             help="check specs; report every problem as file:line:col")
    _command(sub, "compile", _compile_arguments, cmd_compile, platform=True, strict=True,
             help="print the API request body of a spec (or --out a tree)")
    _command(sub, "explain", _explain_arguments, cmd_explain, platform=True, strict=True,
             help="summarise a spec: pools, machines, defaults applied")
    _command(sub, "diff", ".diff:add_arguments", ".diff:cmd_diff", platform=True, strict=True,
             texts=True, help="what applying HEAD's specs does, compared with BASE")
    _command(sub, "import", ".importers.decompile:add_arguments", ".importers.job:run",
             help="print a trainspec spec equivalent to a gcloud config, REST body or SDK dict, "
             "or to a job that exists (--job)")
    if _wanted(sub, "status", "logs", "wait"):
        _resolve(".jobs.watch:add_commands")(sub)
    _command(sub, "cancel", _cancel_arguments, cmd_cancel,
             help="the kill switch without Pulumi: cancel every running job of the specs under "
             "PATH in their stack, at once, and wait until they have stopped",
             description="Cancel every running job of the specs under PATH in their stack "
             "(only jobs carrying that stack's owner label, as `status` finds them), all at "
             "once, then wait until each has stopped.",
             epilog="exit status: 0 every job stopped (or none was running), 1 bad input or a "
             "cancel refused, 2 still stopping at --timeout, 130 interrupted")
    _command(sub, "local-run", ".localrun:add_arguments", ".localrun:run", platform=True,
             help="run the trainer of a python.source spec here, as a replica of its job would "
             "(a container spec: print its docker run)",
             usage="%(prog)s SPEC [--pool ROLE] [--output DIR] [-- ARGS...]")
    _command(sub, "init", ".scaffold:add_arguments", ".scaffold:run",
             help="write a ready specs repository: Pulumi project, example spec, CI, "
             "pre-commit; never overwrites a file")

    _command(sub, "prices", ".prices:add_arguments", ".prices:run",
             help="the price catalog explain, diff and the cost policies read: refresh it")
    _command(sub, "quota", ".quota:add_arguments", cmd_quota, platform=True, strict=True,
             texts=True,
             help="whether the projects' Vertex AI quotas (GPUs, TPU cores, vCPUs per region) "
             "can hold every job of the specs at once: limits and usage read from the APIs")
    _command(sub, "rules", ".ruledoc:add_arguments", ".ruledoc:run",
             help="list the rule codes diagnostics end with (docs/rules.md)")

    if _wanted(sub, "emulator"):
        p = sub.add_parser("emulator", help="serve a local emulator of both REST APIs and Cloud "
                           "Logging", add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)
        p.set_defaults(run=cmd_emulator)
    return top


def _command_word(argv: list[str]) -> str | None:
    """The parser `main` needs for `argv`: its command's alone, all ("") for help or a word that
    names no command (the error lists them), none (None) for `--version` or no command."""
    for word in argv:
        if word in ("-h", "--help"):
            return ""
        if not word.startswith("-"):
            return word if word in COMMANDS else ""
    return None


def _worker_died() -> tuple[type[BaseException], ...]:
    """tree.WorkerDied, if the command ran imported the tree (nothing else raises it)."""
    tree = sys.modules.get(f"{__package__}.tree")
    return (tree.WorkerDied, tree.ChangedWhileRead) if tree is not None else ()


def main(argv: list[str] | None = None, out: TextIO | None = None,
         err: TextIO | None = None, stdin: BinaryIO | None = None) -> int:
    """Run one command; `stdin` (bytes) is what `-` reads (default: the process's stdin)."""
    out, err = out or sys.stdout, err or sys.stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["emulator"]:
        args = argparse.Namespace(run=cmd_emulator, rest=argv[1:])
    elif argv[:1] == ["import"] and "--" in argv:
        cut = argv.index("--")  # import [--platform P] [--name N] -- gcloud WORDS...
        args = argparse.Namespace(run=_resolve(".importers.decompile:run"), own=argv[1:cut],
                                  gcloud_words=argv[cut + 1:])
    elif argv[:1] == ["local-run"] and "--" in argv:
        cut = argv.index("--")  # local-run SPEC [flags] -- the trainer's extra args
        args = parser("local-run").parse_args(argv[:cut])
        args.extra = argv[cut + 1:]
    else:
        args = parser(_command_word(argv)).parse_args(argv)
    args.stdin = stdin if stdin is not None else sys.stdin.buffer
    try:
        return args.run(args, out, err)
    except _worker_died() as e:
        err.write(f"error: {e}; nothing written\n")
        return EXIT_FAILED
    except KeyboardInterrupt:
        err.write("interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_FAILED
    except ModuleNotFoundError as e:  # a dependency missing from this environment: say which
        if (e.name or "").partition(".")[0] == "compiler":
            raise
        err.write(f"error: this environment lacks the package that provides '{e.name}', which "
                  "trainspec needs: install trainspec with its dependencies (pip install "
                  "--require-hashes -r requirements.lock, then pip install --no-deps "
                  "--no-build-isolation -e .), or run it from the venv that has them\n")
        return EXIT_FAILED
