"""`init` into a folder that may already be a repository: what to create, merge or leave.

Never overwrites. A missing file is created; `.gitignore` gets the lines it lacks (once);
`.pre-commit-config.yaml` gets trainspec's hooks appended when the result parses to the same
hooks plus ours (else it is left and the snippet printed); a file holding the name of one of
ours but not written by trainspec (requirements.txt, requirements.lock, the workflow) makes
ours go under another name (NAMED); anything else that exists is left.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

WORKFLOW = ".github/workflows/trainspec.yml"
# Our name → the name used when a file of someone else's has it, and how ours is recognised.
NAMED = {
    "requirements.txt": ("requirements-trainspec.txt", "trainspec"),
    "requirements.lock": ("requirements-trainspec.lock", "# trainspec "),
    WORKFLOW: (".github/workflows/trainspec-specs.yml", "python -m compiler "),
}
GITIGNORE, PRE_COMMIT = ".gitignore", ".pre-commit-config.yaml"
GCLOUD = ("gcloud ai custom-jobs create", "gcloud ai hp-tuning-jobs create",
          "gcloud ai-platform jobs submit training")
_SKIP = {".git", "venv", ".venv", "node_modules", "__pycache__", "compiled"}


@dataclass(frozen=True)
class Step:
    path: str
    action: str  # created | merged | left
    text: str = ""  # created: the file; merged: what is appended
    note: str = ""


def names(target: Path) -> dict[str, str]:
    """Our file names in `target`: the alternative where another file holds ours."""
    chosen = {}
    for ours, (other, mark) in NAMED.items():
        path = target / ours
        chosen[ours] = other if path.is_file() and mark not in _read(path) else ours
    return chosen


def plan(target: Path, planned: dict[str, str]) -> list[Step]:
    steps = []
    for rel, text in planned.items():
        path = target / rel
        if not os.path.lexists(path):
            steps.append(Step(rel, "created", text))
        elif rel == GITIGNORE and path.is_file():
            steps.append(_gitignore(_read(path), text))
        elif rel == PRE_COMMIT and path.is_file():
            steps.append(_pre_commit(_read(path), text))
        else:
            steps.append(Step(rel, "left", note="exists"))
    return steps


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
    return Step(PRE_COMMIT, "left", ours[ours.index("repos:"):],
                "not a list of repos trainspec can append to; add the hooks below")


def write(target: Path, steps: list[Step]) -> str | None:
    """Apply the plan; on any failure undo it all and return why."""
    done: list[tuple[Path, str | None]] = []  # path, its text before (None: created)
    made = [p for p in (target, *{(target / s.path).parent for s in steps}) if not p.exists()]
    try:
        for step in steps:
            path = target / step.path
            if step.action == "created":
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "x", encoding="utf-8") as f:  # "x": never replace a file
                    done.append((path, None))
                    f.write(step.text)
            elif step.action == "merged":
                before = _read(path)
                with open(path, "a", encoding="utf-8") as f:
                    done.append((path, before))
                    f.write(step.text)
    except OSError as exc:
        for path, before in reversed(done):
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_text(before, encoding="utf-8")
        for folder in sorted(made, key=lambda p: len(p.parts), reverse=True):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        return f"cannot write {exc.filename or target}: {exc.strerror or exc}"
    return None


def report(steps: list[Step]) -> str:
    lines = [f"  {s.action:<8} {s.path}" + (f" ({s.note})" if s.note else "") for s in steps]
    for s in steps:
        if s.action == "left" and s.text:
            lines += [f"{s.path}: add trainspec's hooks to your repos:",
                      *("  " + line for line in s.text.splitlines())]
    return "\n".join(lines) + "\n"


def next_steps(target: Path, steps: list[Step], install: str) -> str:
    """The commands still to run, for the repository found (git or not, venv or not, gcloud
    scripts to import, hooks to add by hand)."""
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
    lines += ["pulumi login --local   # or Pulumi Cloud, or a bucket: where stack state lives",
              "pulumi stack init dev && pulumi config set gcp:project PROJECT && "
              "pulumi config set gcp:region REGION",
              "pulumi preview"]
    return "next: " + "\n      ".join(lines) + "\n"


def gcloud_scripts(target: Path, limit: int = 2000) -> list[str]:
    """Files under `target` (not venvs or .git) that run a gcloud training-job command."""
    found = []
    for n, (folder, dirs, files) in enumerate(os.walk(target)):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP)
        if n > limit:
            break
        for file in sorted(files):
            path = Path(folder) / file
            if path.suffix in {".sh", ".bash", ".zsh", ""} and \
                    any(command in _read(path, 1 << 20) for command in GCLOUD):
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


def _read(path: Path, limit: int = 1 << 22) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(limit)
    except OSError:
        return ""
