"""`init` into a folder that may already be a repository: what to create, merge or leave.

Never overwrites. A missing file is created; `.gitignore` gets the lines it lacks (once);
`.pre-commit-config.yaml` gets trainspec's hooks appended when the result parses to the same
hooks plus ours (else it is left and the snippet printed: also when it is a link or not
UTF-8); a file holding the name of one of ours but not written by trainspec (a requirements.txt
without a trainspec requirement, requirements.lock, the workflow) makes ours go under another
name (NAMED); anything else that exists is left.

Nothing outside the target is read or written: a symbolic link on the way to a file (the file
itself or a folder above it) leaves that file alone, with a note; only regular files are read
(a named pipe never blocks), at most files.MAX_BYTES each. A Pulumi.yaml or __main__.py of
another program makes init write no Pulumi project (foreign_pulumi). Every write is checked
while planning (a file where a folder must go, a folder it may not write), so a dry run
predicts a refusal; a write that still fails is undone to the byte, folders it made included.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from .source import files


def _requires_trainspec(text: str) -> bool:
    """A requirements file with a line that installs trainspec (a comment naming it is not)."""
    for line in text.replace("\\\n", "").splitlines():
        line = re.split(r"\s+(?:#|-)", line.strip(), maxsplit=1)[0]  # a comment, --hash=…
        if not line or line.startswith(("#", "-")):
            continue
        try:
            if canonicalize_name(Requirement(line).name) == "trainspec":
                return True
        except InvalidRequirement:
            continue
    return False


WORKFLOW = ".github/workflows/trainspec.yml"
# Our name → the name used when a file of someone else's has it, and how ours is recognised.
NAMED: dict[str, tuple[str, Callable[[str], bool]]] = {
    "requirements.txt": ("requirements-trainspec.txt", _requires_trainspec),
    "requirements.lock": ("requirements-trainspec.lock",
                          re.compile(r"# trainspec \S+'s lock:").match),
    WORKFLOW: (".github/workflows/trainspec-specs.yml", lambda text: "python -m compiler " in text),
}
GITIGNORE, PRE_COMMIT = ".gitignore", ".pre-commit-config.yaml"
GCLOUD = ("gcloud ai custom-jobs create", "gcloud ai hp-tuning-jobs create",
          "gcloud ai-platform jobs submit training")
_SKIP = {".git", "venv", ".venv", "node_modules", "__pycache__", "compiled"}


@dataclass(frozen=True)
class Step:
    path: str
    action: str  # created | merged | left | blocked (cannot be written: the note says why)
    text: str = ""  # created: the file; merged: what is appended
    note: str = ""


def names(target: Path) -> dict[str, str]:
    """Our file names in `target`: the alternative where another file holds ours."""
    chosen = {}
    for ours, (other, is_ours) in NAMED.items():
        path = target / ours
        text = _text(path)
        chosen[ours] = other if os.path.lexists(path) and not (text and is_ours(text)) else ours
    return chosen


def foreign_pulumi(target: Path) -> str | None:
    """Why `target`'s Pulumi.yaml or __main__.py is another program's (init then writes neither
    and runs no Pulumi), or None."""
    project, main = target / "Pulumi.yaml", target / "__main__.py"
    program = _text(main)
    if os.path.lexists(main) and not (program and "compiler.pulumi_program" in program):
        return "__main__.py is another program's"
    if not os.path.lexists(project):
        return None
    try:
        config = yaml.safe_load(_text(project) or "")
    except yaml.YAMLError:
        config = None
    if not isinstance(config, dict):
        return "Pulumi.yaml is not a Pulumi project init can read"
    runtime = config.get("runtime")
    runtime = runtime.get("name") if isinstance(runtime, dict) else runtime
    if runtime != "python" or "main" in config or not os.path.lexists(main):
        return f"Pulumi.yaml is project {str(config.get('name'))!r} ({runtime or 'no runtime'})" \
            + ("" if runtime != "python" else ", not trainspec's program")
    return None


def plan(target: Path, planned: dict[str, str]) -> list[Step]:
    steps = []
    for rel, text in planned.items():
        path = target / rel
        why = _unwritable(target, rel)
        if why and why.endswith("symbolic link"):
            steps.append(Step(rel, "left", _snippet(text) if rel == PRE_COMMIT else "",
                              why + ": init never writes through one"))
        elif why:
            steps.append(Step(rel, "blocked", note=why))
        elif not os.path.lexists(path):
            steps.append(Step(rel, "created", text))
        elif rel in (GITIGNORE, PRE_COMMIT) and stat.S_ISREG(os.lstat(path).st_mode):
            old = _text(path, "surrogateescape" if rel == GITIGNORE else "strict")
            if old is None:
                steps.append(Step(rel, "left", _snippet(text) if rel == PRE_COMMIT else "",
                                  "not UTF-8 text, or unreadable"
                                  + ("; add the hooks below" if rel == PRE_COMMIT else "")))
            else:
                step = (_gitignore if rel == GITIGNORE else _pre_commit)(old, text)
                steps.append(Step(rel, "blocked", note=f"{rel} is not writable")
                             if step.action == "merged" and not os.access(path, os.W_OK)
                             else step)
        else:
            steps.append(Step(rel, "left", note="exists"))
    return steps


def blocked(steps: list[Step]) -> str | None:
    """Why the plan cannot be written (the first blocked file), or None."""
    return next((f"cannot write {s.path}: {s.note}" for s in steps if s.action == "blocked"),
                None)


def _unwritable(target: Path, rel: str) -> str | None:
    """Why `rel` under `target` must not or cannot be written: a symbolic link on the way (the
    file or a folder above it), a file where a folder must go, a folder it may not write."""
    folder = target
    parts = Path(rel).parts
    for n, part in enumerate(parts):
        path = folder / part
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            return None if os.access(folder, os.W_OK | os.X_OK) or not folder.exists() \
                else f"{_rel(folder, target)} is not writable"
        except OSError as exc:
            return f"{_rel(path, target)}: {exc.strerror or exc}"
        if stat.S_ISLNK(mode):
            return f"{_rel(path, target)} is a symbolic link"
        if n < len(parts) - 1 and not stat.S_ISDIR(mode):
            return f"{_rel(path, target)} exists and is not a folder"
        folder = path
    return None  # it exists: only a merge writes it (plan checks that it may)


def _rel(path: Path, target: Path) -> str:
    """`path` as the report names it: relative to `target`, else as it is."""
    return path.relative_to(target).as_posix() if target in path.parents else str(path)


def _gitignore(old: str, ours: str) -> Step:
    have = {line.strip() for line in old.splitlines()}
    missing = [line for line in ours.splitlines() if line.strip() not in have]
    if not missing:
        return Step(GITIGNORE, "left", note="has trainspec's lines")
    lead = "" if old.endswith("\n") or not old else "\n"
    return Step(GITIGNORE, "merged", lead + "# trainspec (python -m compiler init)\n"
                + "\n".join(missing) + "\n", "added " + ", ".join(missing))


def _pre_commit(old: str, ours: str) -> Step:
    mine = yaml.safe_load(ours)["repos"]
    ids = {hook["id"] for repo in mine for hook in repo["hooks"]}
    try:
        config = yaml.safe_load(old)
    except yaml.YAMLError:
        config = None
    repos = config.get("repos") if isinstance(config, dict) else None
    if isinstance(repos, list) and any(
            isinstance(r, dict) and isinstance(h, dict) and h.get("id") in ids
            for r in repos for h in (r.get("hooks") or [])):
        return Step(PRE_COMMIT, "left", note="has trainspec hooks")
    item = ours[ours.index("\n  - repo:") + 1:]  # the template's one list item, indent 2
    lead = "" if old.endswith("\n") else "\n"
    for indent in (2, 0, 4):  # how the existing list is indented; the first that parses right
        text = lead + "".join(line[2 - indent:] if indent < 2 else " " * (indent - 2) + line
                              for line in item.splitlines(keepends=True))
        try:
            merged = yaml.safe_load(old + text)
        except yaml.YAMLError:
            continue
        if isinstance(repos, list) and isinstance(merged, dict) and \
                merged.get("repos") == repos + mine and \
                {k: v for k, v in merged.items() if k != "repos"} == \
                {k: v for k, v in config.items() if k != "repos"}:
            return Step(PRE_COMMIT, "merged", text, "added " + ", ".join(sorted(ids)))
    return Step(PRE_COMMIT, "left", _snippet(ours),
                "not a list of repos trainspec can append to; add the hooks below")


def _snippet(ours: str) -> str:
    """What to add to a pre-commit config by hand: our template's repos."""
    return ours[ours.index("repos:"):]


def write(target: Path, steps: list[Step]) -> str | None:
    """Apply the plan (checked by `plan`); on any failure undo it all and return why: created
    files and folders removed, merged files cut back to their size before (their bytes)."""
    made: list[Path] = []  # folders created, outermost first
    created: list[Path] = []
    appended: list[tuple[Path, int]] = []  # a merged file, its size before
    nofollow = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        missing = [p for p in (target, *target.parents) if not p.exists()]
        target.mkdir(parents=True, exist_ok=True)
        made += reversed(missing)
        for step in steps:
            path = target / step.path
            if step.action == "created":
                _folders(target, Path(step.path).parent, made)
                # O_EXCL: never replace a file, never follow a link put there since the plan
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o666)
                created.append(path)
                with os.fdopen(fd, "wb") as f:
                    f.write(step.text.encode("utf-8", "surrogateescape"))
            elif step.action == "merged":
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | nofollow)
                with os.fdopen(fd, "wb") as f:
                    if not stat.S_ISREG(os.fstat(fd).st_mode):
                        raise OSError(errno.EINVAL, "not a regular file", str(path))
                    appended.append((path, os.fstat(fd).st_size))
                    f.write(step.text.encode("utf-8", "surrogateescape"))
    except OSError as exc:
        undo = [*(functools.partial(_truncate, path, size, nofollow) for path, size in appended),
                *(functools.partial(path.unlink, missing_ok=True) for path in created),
                *(folder.rmdir for folder in reversed(made))]
        for step in undo:
            try:
                step()
            except OSError:
                pass  # a folder not empty: something else was put there meanwhile
        where = _rel(Path(exc.filename), target) if exc.filename else str(target)
        return f"cannot write {where}: {exc.strerror or exc}"
    return None


def _truncate(path: Path, size: int, flags: int) -> None:
    fd = os.open(path, os.O_WRONLY | flags)
    try:
        os.ftruncate(fd, size)
    finally:
        os.close(fd)


def _folders(target: Path, rel: Path, made: list[Path]) -> None:
    """Make each missing folder of `rel` under `target`, one at a time: a link or a file where
    a folder must go (put there since the plan) is an error, never followed."""
    folder = target
    for part in rel.parts:
        folder = folder / part
        try:
            os.mkdir(folder)
            made.append(folder)
        except FileExistsError:
            if not stat.S_ISDIR(os.lstat(folder).st_mode):
                raise NotADirectoryError(errno.ENOTDIR, "not a folder (or a link)",
                                         str(folder)) from None


def report(steps: list[Step]) -> str:
    lines = [f"  {s.action:<8} {s.path}" + (f" ({s.note})" if s.note else "") for s in steps]
    for s in steps:
        if s.action == "left" and s.text:
            lines += [f"{s.path}: add trainspec's hooks to your repos:",
                      *("  " + line for line in s.text.splitlines())]
    return "\n".join(lines) + "\n"


def next_steps(target: Path, steps: list[Step], install: str, foreign: str | None = None) -> str:
    """The commands still to run, for the repository found (git or not, venv or not, gcloud
    scripts to import, hooks to add by hand, another program's Pulumi project: `foreign`)."""
    cd = [] if target.absolute() == Path.cwd().absolute() else [f"cd {target}"]
    git = [] if _inside_git(target) else ["git init"]
    venv = ". venv/bin/activate" if (target / "venv" / "bin").is_dir() else \
        "python3 -m venv venv && . venv/bin/activate"
    lines = [" && ".join([*cd, *git, venv]), install]
    by_hand = any(s.path == PRE_COMMIT and s.action == "left" and s.text for s in steps)
    if by_hand:
        lines.append(f"# add the hooks printed above to {PRE_COMMIT}, then: "
                     "pip install pre-commit && pre-commit install")
    else:
        lines.append("pip install pre-commit && pre-commit install   # the hooks: validate, "
                     "compiled")
    scripts = gcloud_scripts(target)
    if scripts:
        lines += ["# your gcloud jobs (" + ", ".join(scripts[:5]) + (", ..." if len(scripts) > 5
                                                                    else "") + "), one spec each:",
                  "python -m compiler import --out specs/NAME.yaml -- gcloud ai custom-jobs create ...",
                  "python -m compiler validate specs && python -m compiler compile specs --out "
                  "compiled"]
    if foreign:
        sub = target / "infra" / "trainspec"
        lines += [f"# no Pulumi here ({foreign}): to apply the specs, a Pulumi project of "
                  "their own in a subfolder:", f"python -m compiler init {sub}"
                  "   # its stack setting trainspec:specs names the specs folder"]
    else:
        lines += ["pulumi login --local   # or Pulumi Cloud, or a bucket: where stack state lives",
                  "pulumi stack init dev && pulumi config set gcp:project PROJECT && "
                  "pulumi config set gcp:region REGION",
                  "pulumi preview"]
    return "next: " + "\n      ".join(lines) + "\n"


def gcloud_scripts(target: Path, limit: int = 2000) -> list[str]:
    """Files under `target` (not venvs or .git) that run a gcloud training-job command."""
    found = []
    for n, (folder, dirs, names) in enumerate(os.walk(target)):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP)
        if n > limit:
            break
        for file in sorted(names):
            path = Path(folder) / file
            if path.suffix in {".sh", ".bash", ".zsh", ""} and \
                    any(command in (_text(path, "replace") or "") for command in GCLOUD):
                found.append(path.relative_to(target).as_posix())
    return found


def _inside_git(target: Path) -> bool:
    folder = target if target.is_dir() else target.absolute().parent
    while not folder.is_dir():
        folder = folder.parent
    try:
        run = subprocess.run(["git", "-C", str(folder), "rev-parse", "--is-inside-work-tree"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return run.stdout.strip() == "true"


def _text(path: Path, errors: str = "strict") -> str | None:
    """The text of `path` if it is a regular file (not a link, a pipe, a device) of at most
    files.MAX_BYTES bytes that decodes, else None."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
    except OSError:
        return None
    data, problem = files.read_bytes(str(path))
    if data is None or problem is not None or len(data) > files.MAX_BYTES:
        return None
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError:
        return None
