"""A user's gcloud command line → the config file it names and the flags it sets, as gcloud reads them.

`python -m compiler import -- gcloud ai custom-jobs create ...` (or `gcloud ai hp-tuning-jobs
create ...`, `gcloud ai-platform jobs submit training JOB ...`): the words are parsed the way
gcloud 528 parses them (flag tables per command and release track, `--flag=value` /
`--flag value`, list and dict values with gcloud's `^DELIM^` escape, global flags anywhere) and
refused where gcloud refuses them, with gcloud's reason. What the flags then do to the request
is `flags.merge`, shared with `import FILE`. Here: the grammar (commands, tracks, global
flags, `--flag=value` / `--flag value`, `--`); gcloud_tables.py holds which flags each command
takes, gcloud_values.py how one value is read, gcloud_checks.py what gcloud refuses in a whole
command. The recorded cases in tests/golden-import/ check them against the real gcloud.
"""

from __future__ import annotations

import argparse

from .. import suggest
from .gcloud_checks import check_ml, check_tuning, check_vertex
from .gcloud_tables import (
    ML_BOOL,
    ML_VALUE,
    ML_VALUE_PRE_GA,
    TUNING_VALUE,
    VERTEX_BOOL,
    VERTEX_VALUE,
)
from .gcloud_values import GcloudError, set_flag
from .invocation import ML_COMMAND, TUNING_COMMAND, VERTEX_COMMAND, Invocation

TRACKS = ("alpha", "beta")
# gcloud's global flags: none changes the request body except --project (the URL's project).
GLOBAL_VALUE = frozenset({"--project", "--account", "--billing-project", "--configuration",
                          "--flatten", "--format", "--trace-token", "--verbosity",
                          "--access-token-file", "--impersonate-service-account"})
GLOBAL_BOOL = frozenset({"--quiet", "-q", "--log-http", "--no-log-http", "--user-output-enabled",
                         "--no-user-output-enabled"})
GLOBAL_REFUSED = {"--help": "prints help and sends nothing", "-h": "prints help and sends nothing",
                  "--flags-file": "reads more flags from a file; write them on the command line"}


def parse(words: list[str]) -> Invocation:
    """Parse a gcloud command line (starting with the word `gcloud`); GcloudError if gcloud
    would refuse it before sending anything."""
    if words[:1] != ["gcloud"]:
        raise GcloudError("expected a gcloud command line after `--` (it starts with `gcloud`)")
    rest = list(words[1:])
    project, positional, options = _split(rest)
    track = "ga"
    if positional[:1] and positional[0] in TRACKS:
        track = positional.pop(0)
    if tuple(positional[:3]) == VERTEX_COMMAND:
        inv, extra = Invocation("vertex", track), positional[3:]
    elif tuple(positional[:3]) == TUNING_COMMAND:
        inv, extra = Invocation("vertex", track, tuning=True), positional[3:]
    elif tuple(positional[:4]) == ML_COMMAND:
        inv, extra = Invocation("ai-platform", track), positional[4:]
    else:
        shown = " ".join(positional[:4]) or "(no command)"
        raise GcloudError(f"`gcloud {shown}` is not a training job command trainspec imports",
                          ) from None
    inv.project = project
    value_flags, bool_flags = (TUNING_VALUE, VERTEX_BOOL) if inv.tuning else (
        VERTEX_VALUE, VERTEX_BOOL) if inv.api == "vertex" else (
        ML_VALUE | (ML_VALUE_PRE_GA if track != "ga" else frozenset()), ML_BOOL)
    _options(inv, options, value_flags, bool_flags)
    if inv.api == "ai-platform":
        if len(extra) > 1:
            raise GcloudError(f"unrecognized arguments: {' '.join(extra[1:])}")
        if not extra:
            raise GcloudError("argument JOB: must be specified")
        inv.job = extra[0]
        inv.config = inv.values.get("--config")  # type: ignore[assignment]
    elif extra:
        raise GcloudError(f"unrecognized arguments: {' '.join(extra)}")
    (check_tuning if inv.tuning else check_vertex if inv.api == "vertex" else check_ml)(inv)
    return inv


def _split(words: list[str]) -> tuple[str | None, list[str], list[tuple[str, str | None]]]:
    """(--project, positional words, [(flag, value or None)]) with global flags removed."""
    project: str | None = None
    positional: list[str] = []
    options: list[tuple[str, str | None]] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            options.append(("--", None))
            options.extend(("", w) for w in words[i:])
            break
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        name, eq, value = word.partition("=")
        if name in GLOBAL_REFUSED:
            raise GcloudError(f"{name} {GLOBAL_REFUSED[name]}")
        if name in GLOBAL_BOOL:
            continue
        if name in GLOBAL_VALUE:
            if not eq:
                if i >= len(words) or words[i].startswith("-"):
                    raise GcloudError(f"argument {name}: expected one argument")
                value, i = words[i], i + 1
            if name == "--project":
                project = value
            continue
        if not eq and i < len(words) and not words[i].startswith("-") and \
                not _is_bool_name(name):
            value, eq, i = words[i], "=", i + 1
        options.append((name, value if eq else None))
    return project, positional, options


def _is_bool_name(name: str) -> bool:
    bare = name[5:] if name.startswith("--no-") else name[2:]
    return f"--{bare}" in VERTEX_BOOL | ML_BOOL


def _options(inv: Invocation, options: list[tuple[str, str | None]],
             value_flags: frozenset[str], bool_flags: frozenset[str]) -> None:
    unknown: list[str] = []
    for i, (name, value) in enumerate(options):
        if name == "--":
            if inv.api != "ai-platform":
                raise GcloudError("unrecognized arguments: -- "
                                  + " ".join(v or "" for _, v in options[i + 1:]))
            inv.user_args = [v or "" for _, v in options[i + 1:]]
            return
        if name in bool_flags or (name.startswith("--no-") and "--" + name[5:] in bool_flags):
            if value is not None:
                raise GcloudError(f"argument {name}: ignored explicit argument {value!r}")
            inv.values[name.replace("--no-", "--")] = not name.startswith("--no-")
            continue
        if name not in value_flags:
            close = suggest.close(name, sorted(value_flags | bool_flags))
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            pre_ga = inv.api == "ai-platform" and name in ML_VALUE_PRE_GA
            unknown.append(name + (" (only in gcloud beta and alpha)" if pre_ga else hint))
            continue
        if value is None:
            raise GcloudError(f"argument {name}: expected one argument")
        set_flag(inv.values, name, value)
    if unknown:
        raise GcloudError("unrecognized arguments: " + ", ".join(unknown))


def namespace(inv: Invocation, base: argparse.Namespace) -> argparse.Namespace:
    """`import`'s flags namespace (see flags.add_arguments) filled from the invocation."""
    ns = argparse.Namespace(**vars(base))
    for flag, value in inv.values.items():
        setattr(ns, flag[2:].replace("-", "_"), value)
    if inv.user_args is not None:
        ns.args = inv.user_args
    if inv.job is not None and not ns.name:
        ns.name = inv.job
    ns.job_id = inv.job
    ns.project = ns.project or inv.project
    ns.gcloud = inv
    return ns
