"""Diagnostics for CI: SARIF 2.1.0 (GitHub code scanning) and GitHub workflow commands.

`validate --format sarif` writes one SARIF log whose rules are the registry (compiler/rules.yaml, loaded by
compiler/rules.py);
`--format github` prints `::error file=…,line=…,col=…,title=CODE::message` lines, which GitHub
Actions shows as annotations on the pull request's files.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import PurePosixPath
from urllib.parse import quote

from ..config.load import folders_up
from ..diagnostics import Diagnostic, printable
from ..rules import RULES, Rule
from ..version import VERSION
from .text import ordered

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://trainspec.dev"
# A diagnostic without a code still needs a rule in SARIF (GitHub keys alerts on ruleId).
UNCODED = Rule("trainspec", "error", "a problem trainspec reports without a rule code",
               "trainspec")


@functools.lru_cache(maxsize=256)
def _root(folder: str) -> str | None:
    """The folder holding `.git` at or above `folder` (absolute), None if there is none."""
    return next((f for f in folders_up(folder) if os.path.lexists(os.path.join(f, ".git"))),
                None)


def _relative(file: str, root: str | None = None) -> str | None:
    """`file` with '/', relative to `root` when given and `file` is under it, else to the
    root of the repository holding it (code scanning and annotations point into a checkout),
    else as given; None for <stdin> (no file to point at)."""
    if file.startswith("<"):
        return None
    path = os.path.abspath(file)
    for base in (root, _root(os.path.dirname(path))):
        if base is not None:
            relative = os.path.relpath(path, os.path.abspath(base))
            if relative != ".." and not relative.startswith(".." + os.sep):
                return PurePosixPath(*relative.split(os.sep)).as_posix()
    return file.replace(os.sep, "/")


def _text(d: Diagnostic) -> str:
    return f"{d.path}: {d.message}" + (f" ({d.hint})" if d.hint else "")


def _rule(rule: Rule) -> dict:
    return {
        "id": rule.code,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.summary},
        "help": {"text": f"{rule.summary}. Source: {rule.source}. See docs/rules.md of "
                         "trainspec; silence it with `ignore` in the repo config or "
                         f"`# trainspec: ignore[{rule.code}]` (docs/config.md)."},
        "defaultConfiguration": {"level": rule.severity},
    }


def sarif(diagnostics: Iterable[Diagnostic], root: str | None = None) -> dict:
    """A SARIF 2.1.0 log of `diagnostics`, each path relative to `root` if given, else to the
    root of the repository holding its file."""
    items = ordered(diagnostics)
    rules = dict(RULES)
    if any(d.code is None or d.code not in RULES for d in items):
        rules[UNCODED.code] = UNCODED
    index = {code: i for i, code in enumerate(rules)}
    results = []
    for d in items:
        code = d.code if d.code in RULES else UNCODED.code
        result: dict = {"ruleId": code, "ruleIndex": index[code], "level": d.severity,
                        "message": {"text": printable(_text(d))}}
        path = _relative(d.file, root)
        if path is not None:
            location: dict = {"artifactLocation": {"uri": quote(path, safe="/"),
                                                   "uriBaseId": "%SRCROOT%"}}
            if d.position is not None:
                location["region"] = {"startLine": d.position.line,
                                      "startColumn": d.position.column}
            result["locations"] = [{"physicalLocation": location}]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "trainspec", "version": VERSION,
                                "informationUri": INFORMATION_URI,
                                "rules": [_rule(r) for r in rules.values()]}},
            "results": results,
        }],
    }


def _data(text: str) -> str:
    # GitHub's workflow-command escaping (actions/toolkit, core/src/command.ts), then every other
    # character a log would show raw (ESC, U+2028, U+0085, bidi overrides) `printable`.
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def github(diagnostics: Iterable[Diagnostic], root: str | None = None) -> str:
    """One `::error …::message` / `::warning …::message` line per diagnostic, files relative
    to `root` (default: $GITHUB_WORKSPACE, where GitHub Actions checks the repository out;
    a file outside it, or without it, relative to the root of the repository holding it)."""
    root = root or os.environ.get("GITHUB_WORKSPACE") or None
    lines = []
    for d in ordered(diagnostics):
        props = []
        path = _relative(d.file, root)
        if path is not None:
            props.append(f"file={_property(path)}")
            if d.position is not None:
                props += [f"line={d.position.line}", f"col={d.position.column}"]
        props.append(f"title={_property(d.code or UNCODED.code)}")
        lines.append(f"::{d.severity} {','.join(props)}::{_data(_text(d))}")
    return "".join(line + "\n" for line in lines)
