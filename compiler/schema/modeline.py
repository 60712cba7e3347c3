"""The editor schema modeline, which `validate` suggests once per run for specs without one.

`# yaml-language-server: $schema=PATH` at the top of a spec makes VS Code (Red Hat YAML) and
every other yaml-language-server client complete, document and check it (docs/editors.md).
PATH is relative to the spec's folder and points at the schema committed in the repository
(`schemas/v1/trainspec.schema.json`, as `init` writes it): it works offline, in every clone, and
stays the version the repository pins. The schema's `$id` URL names it but is not a served file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TextIO

from ..source.files import read_bytes, shown
from .validate import CURRENT, VERSIONS

SCHEMA_IN_REPO = Path("schemas") / "v1" / "trainspec.schema.json"
# How yaml-language-server recognises a modeline (modelineUtil.ts): a comment among those that
# head the document, `# yaml-language-server: ... $schema=URL` (or `$schema: URL`).
_MODELINE = re.compile(r"^#\s+(?:yaml-language-server\s*:.*\$schema(?:=|:\s*)\S|\$schema:\s*\S)")


def has_modeline(path: str) -> bool:
    """True if the comments heading the file hold a schema modeline, or if it is no file a
    spec can be read from (validate says why; a named pipe is never opened)."""
    blob, problem = read_bytes(path)
    if blob is None or problem is not None:
        return True
    for line in blob.decode("utf-8", "replace").splitlines():
        text = line.strip()
        if _MODELINE.match(text):
            return True
        if text and not text.startswith(("#", "%", "---")):
            return False
    return False


def schema_reference(spec: str, packaged: Path) -> tuple[str, bool]:
    """(the $schema value for `spec`, whether it is a copy in the spec's repository).

    The nearest `schemas/v1/trainspec.schema.json` from the spec's folder up to its
    repository root, relative to the folder; else the packaged schema's absolute path.
    """
    folder = Path(spec).resolve().parent
    for up in (folder, *folder.parents):
        if (up / SCHEMA_IN_REPO).is_file():
            return Path(os.path.relpath(up / SCHEMA_IN_REPO, folder)).as_posix(), True
        if (up / ".git").exists():
            break
    return packaged.resolve().as_posix(), False


def note(files: list[str], packaged: Path = VERSIONS[CURRENT]) -> str | None:
    """One line suggesting the modeline for the specs among `files` that lack it, or None."""
    missing = [f for f in files if not has_modeline(f)]
    if not missing:
        return None
    first = shown(missing[0])
    reference, in_repo = schema_reference(missing[0], packaged)
    line = f"# yaml-language-server: $schema={reference}"
    if len(missing) == 1:
        head = f"note: {first} has no editor schema modeline; start it with `{line}`"
    else:
        head = (f"note: {len(missing)} specs have no editor schema modeline (first: {first}); "
                f"start each with `{line}`")
    if in_repo:
        where = f" (the path from {first}'s folder)" if len(missing) > 1 else ""
    else:
        where = (", or better a path to a copy committed as schemas/v1/trainspec.schema.json "
                 "(as `init` writes it),")
    return (f"{head}{where} for completion and checks in VS Code and other YAML editors; see "
            "trainspec's docs/editors.md")


def suggest(files: list[str], err: TextIO) -> None:
    """Write `note` to `err` when a person reads it: only on a terminal, since CI logs,
    pre-commit, editors' problem matchers and scripts read stderr too, and `--format json`
    (or any machine format) never calls this."""
    isatty = getattr(err, "isatty", None)
    if isatty is not None and isatty():
        line = note(files)
        if line:
            err.write(line + "\n")
