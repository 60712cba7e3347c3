"""`python -m compiler init DIR`: a ready specs repository in one command.

Writes (paths relative to DIR):

  Pulumi.yaml                       the Pulumi project with its config schema (this repository's
                                    own, renamed to DIR's name)
  __main__.py                       three lines: the program ships in the package
                                    (compiler/pulumi_program.py)
  requirements.lock                 every package trainspec[pulumi] needs, pinned with hashes:
                                    this trainspec's own lock (requirements.lock of its source)
  requirements.txt                  trainspec pinned to this version (see `requirement`),
                                    installed after the lock, --no-build-isolation (see INSTALL)
  specs/example.yaml                an example spec with the editor schema modeline
  schemas/v1/trainspec.schema.json  the schema that modeline names (this version's)
  compiled/example.json             its compiled request (+ the compile manifest), so the
                                    CI's `compile --check` passes from the first commit
  trainspec.yaml                    the repository config: where each setting lives
  .github/workflows/trainspec.yml   CI (examples/github-actions/trainspec.yml)
  .pre-commit-config.yaml           validate and check compiled output on commit
  .vscode/settings.json             VS Code: the schema for every spec under specs/ (completion,
                                    hover docs, checks; docs/editors.md)
  .vscode/extensions.json           VS Code: recommends the YAML extension that reads it
  .gitignore                        the program's virtualenv

All or nothing: if any of these files exists, nothing is written (exit 1, naming them).
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import subprocess
from pathlib import Path
from typing import TextIO

from . import emit, pipeline
from .schema import validate as schemas
from .version import VERSION

TEMPLATES = Path(__file__).resolve().parent / "_templates"
PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # a source checkout has pyproject here
EXAMPLE = "specs/example.yaml"
SCHEMA = "schemas/v1/trainspec.schema.json"
_PROJECT_NAME = re.compile(r"^[A-Za-z0-9_.-]+\Z")  # Pulumi project names
# pip refuses an unhashed requirement (trainspec, from a git commit or an index) beside hashed
# ones, so the locked packages and trainspec are installed in two steps; trainspec is built (from
# a checkout) by the setuptools the lock installed, never by one pip would download unpinned.
INSTALL = ("pip install --require-hashes -r requirements.lock && "
           "pip install --no-deps --no-build-isolation -r requirements.txt")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="folder of the new repository (created if needed)")
    p.add_argument("--name", help="Pulumi project name (default: DIR's name)")
    p.add_argument("--requirement", metavar="LINE",
                   help="the requirements.txt line that installs trainspec (default: "
                        f"trainspec[pulumi]=={VERSION}, or this source checkout)")


def requirement(root: Path = PACKAGE_ROOT) -> tuple[str, list[str]]:
    """How the new repository installs this trainspec: (requirement line, comment lines).

    An installed trainspec is pinned by version. A source checkout (pyproject.toml beside the
    package) is not on an index: it is pinned to its git commit, which pip installs from the
    local clone without a package index (``git+file://localhost/PATH@COMMIT``); with uncommitted
    changes, or outside git, to the folder itself (``file://localhost/PATH``, not a pin).
    """
    pinned = f"trainspec[pulumi]=={VERSION}"
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file() or 'name = "trainspec"' not in pyproject.read_text("utf-8"):
        return pinned, []
    where = root.absolute().as_posix()
    later = [f"# Once trainspec {VERSION} is on your package index, use instead:", f"#   {pinned}"]
    commit, dirty = _git_state(root)
    if commit and not dirty:
        return (f"trainspec[pulumi] @ git+file://localhost{where}@{commit}",
                [f"# trainspec {VERSION} from the source checkout {where}, pinned to its commit",
                 "# (pip clones it from that folder: no package index is needed for trainspec).",
                 *later])
    why = "has uncommitted changes" if commit else "is not a git repository"
    return (f"trainspec[pulumi] @ file://localhost{where}",
            [f"# trainspec {VERSION} from the source checkout {where}, which {why}: this",
             "# installs whatever that folder holds when pip runs (not a pin). Commit there and",
             "# run `python -m compiler init` again for a pin to the commit.", *later])


def _git_state(root: Path) -> tuple[str | None, bool]:
    """(HEAD commit, tracked files changed) of `root`, or (None, False) outside git."""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=30)
        if head.returncode != 0:
            return None, False
        changed = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                  "--untracked-files=no"], capture_output=True, text=True,
                                 timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None, False
    return head.stdout.strip(), bool(changed.stdout.strip()) or changed.returncode != 0


def files(name: str, requirement_line: str, comments: list[str]) -> dict[str, str]:
    """Every file of a new repository: relative path → text."""
    def template(file: str) -> str:
        return (TEMPLATES / file).read_text(encoding="utf-8")

    pulumi_yaml = template("Pulumi.yaml")
    assert pulumi_yaml.startswith("name: trainspec\n")
    example = template("example.yaml")
    result = pipeline.compile_text(example, EXAMPLE)
    assert result.ok, [d.format() for d in result.diagnostics]
    compiled = {"example.json": emit.dumps(result.body)}
    reqs = "\n".join([*comments, "# What trainspec needs is pinned with hashes in requirements.lock;",
                      f"# install both: {INSTALL}", requirement_line]) + "\n"
    pins = itertools.dropwhile(lambda line: line.startswith("#"),  # uv's header: scripts/lock
                               template("requirements.lock").splitlines(keepends=True))
    lock = "".join([f"# trainspec {VERSION}'s lock: every package trainspec[pulumi,test] needs, "
                    "pinned with\n# hashes (written by `python -m compiler init`). Install: "
                    f"{INSTALL}\n", *pins])
    return {
        "Pulumi.yaml": f"name: {name}\n" + pulumi_yaml[len("name: trainspec\n"):],
        "__main__.py": template("__main__.py"),
        "requirements.lock": lock,
        "requirements.txt": reqs,
        EXAMPLE: example,
        SCHEMA: schemas.VERSIONS[schemas.CURRENT].read_text(encoding="utf-8"),
        "compiled/example.json": compiled["example.json"],
        f"compiled/{emit.MANIFEST}": emit.manifest_text(compiled),
        "trainspec.yaml": template("trainspec.yaml"),
        ".github/workflows/trainspec.yml": template("github-workflow.yml"),
        ".pre-commit-config.yaml": template("pre-commit-config.yaml"),
        ".vscode/settings.json": template("vscode-settings.json"),
        ".vscode/extensions.json": template("vscode-extensions.json"),
        ".gitignore": template("gitignore"),
    }


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    target = Path(args.dir)
    name = args.name or target.absolute().name
    if not _PROJECT_NAME.match(name):
        err.write(f"error: {name!r} is not a Pulumi project name (letters, digits, '-', '_', "
                  "'.'): pass --name NAME\n")
        return 1
    if target.exists() and not target.is_dir():
        err.write(f"error: {target} exists and is not a folder; nothing written\n")
        return 1
    line, comments = (args.requirement, []) if args.requirement else requirement()
    planned = files(name, line, comments)
    taken = sorted(p for p in planned if os.path.lexists(target / p))
    if taken:
        err.write(f"error: {target} already has " + ", ".join(taken)
                  + "; init never overwrites a file: nothing written\n")
        return 1
    written: list[Path] = []
    made = [p for p in (target, *{(target / rel).parent for rel in planned}) if not p.exists()]
    try:
        for rel, text in planned.items():
            path = target / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "x", encoding="utf-8") as f:  # "x": never replace a file
                f.write(text)
            written.append(path)
    except OSError as exc:
        for path in written:  # all or nothing
            path.unlink(missing_ok=True)
        for folder in sorted(made, key=lambda p: len(p.parts), reverse=True):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        err.write(f"error: cannot write {exc.filename or target}: {exc.strerror or exc}; "
                  "nothing written\n")
        return 1
    out.write(f"created {target} (Pulumi project {name!r}, trainspec {VERSION}):\n")
    out.write("".join(f"  {rel}\n" for rel in planned))
    out.write(f"requirements.txt: {line}\n")
    out.write(f"next: cd {target} && git init && python3 -m venv venv && . venv/bin/activate\n"
              f"      {INSTALL}\n"
              "      pulumi login --local   # or Pulumi Cloud, or a bucket: where stack state "
              "lives\n"
              "      pulumi stack init dev && pulumi config set gcp:project PROJECT && "
              "pulumi config set gcp:region REGION\n"
              "      pulumi preview\n")
    return 0
