"""`python -m compiler init DIR`: a ready specs repository in one command, new or existing.

Writes (paths relative to DIR):

  Pulumi.yaml                       the Pulumi project with its config schema (this repository's
                                    own, renamed to DIR's name)
  __main__.py                       three lines: the program ships in the package
                                    (compiler/pulumi_program.py)
  requirements.lock                 every package trainspec[pulumi] needs, pinned with hashes:
                                    this trainspec's own lock (requirements.lock of its source)
  requirements.txt                  the line that installs this trainspec (compiler/install.py),
                                    installed after the lock, --no-build-isolation (see install)
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

Into an existing repository it adds what is missing and never overwrites (compiler/adopt.py):
each file is created, merged (.gitignore, .pre-commit-config.yaml) or left, and a file of
another's that holds the name of ours (requirements.txt, the workflow) makes it write its own
under another name. A symbolic link on the way to a file leaves it (init never writes through
one). A Pulumi.yaml or __main__.py of another program makes it write no Pulumi project (neither
file, no preview job in the workflow, no `pulumi` next steps). Every write is checked first:
a refusal (a file where a folder must go) writes nothing, and the dry run, planned by the same
code, refuses too. Nothing is written if any write fails; --dry-run writes nothing.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
from pathlib import Path
from typing import TextIO

from . import adopt, emit, install, pipeline
from .schema import validate as schemas
from .version import VERSION

TEMPLATES = Path(__file__).resolve().parent / "_templates"
EXAMPLE = "specs/example.yaml"
SCHEMA = "schemas/v1/trainspec.schema.json"
_PROJECT_NAME = re.compile(r"^[A-Za-z0-9_.-]+\Z")  # Pulumi project names


def install_command(lock: str = "requirements.lock", txt: str = "requirements.txt") -> str:
    """pip refuses an unhashed requirement (trainspec, from git or an index) beside hashed ones,
    so the locked packages and trainspec are installed in two steps; trainspec is built (from
    git) by the setuptools the lock installed, never by one pip would download unpinned."""
    return (f"pip install --require-hashes -r {lock} && "
            f"pip install --no-deps --no-build-isolation -r {txt}")


INSTALL = install_command()


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", metavar="DIR", help="folder of the repository, new or existing "
                   "(created if needed)")
    p.add_argument("--name", help="Pulumi project name (default: DIR's name)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--from", dest="source", choices=install.SOURCES, default="auto",
                     help="where requirements.txt installs trainspec from: the package index "
                          f"(trainspec[pulumi]=={VERSION}) or the git repository at tag "
                          f"{install.TAG} (at this checkout's commit while that tag does not "
                          "exist; credentials in the URL dropped); auto (default): git when "
                          "this trainspec came from git, else the index")
    how.add_argument("--requirement", metavar="LINE",
                     help="your own requirements.txt line that installs trainspec")
    p.add_argument("--dry-run", action="store_true",
                   help="show what would be created, merged and left; write nothing")


def files(name: str, requirement_line: str, comments: list[str],
          names: dict[str, str] | None = None, pulumi: bool = True) -> dict[str, str]:
    """Every file of a new repository: relative path → text. `names` renames the files that
    may belong to someone else already (adopt.NAMED: requirements, the workflow); without
    `pulumi`, no Pulumi project (Pulumi.yaml, __main__.py) and no preview job."""
    names = {**{n: n for n in adopt.NAMED}, **(names or {})}
    lock_name, txt_name = names["requirements.lock"], names["requirements.txt"]
    command = install_command(lock_name, txt_name)

    def template(file: str) -> str:
        return (TEMPLATES / file).read_text(encoding="utf-8")

    pulumi_yaml = template("Pulumi.yaml")
    assert pulumi_yaml.startswith("name: trainspec\n")
    example = template("example.yaml")
    result = pipeline.compile_text(example, EXAMPLE)
    assert result.ok, [d.format() for d in result.diagnostics]
    compiled = {"example.json": emit.dumps(result.body)}
    reqs = "\n".join([*comments, "# What trainspec needs is pinned with hashes in "
                      f"{lock_name};", f"# install both: {command}", requirement_line]) + "\n"
    pins = itertools.dropwhile(lambda line: line.startswith("#"),  # uv's header: scripts/lock
                               template("requirements.lock").splitlines(keepends=True))
    lock = "".join([f"# trainspec {VERSION}'s lock: every package trainspec[pulumi,test] needs, "
                    "pinned with\n# hashes (written by `python -m compiler init`). Install: "
                    f"{command}\n", *pins])
    workflow = template("github-workflow.yml").replace(
        "requirements.lock", lock_name).replace("requirements.txt", txt_name)
    if not pulumi:  # the preview job is the workflow's last; no stack for diff to read
        workflow = workflow[:workflow.index("\n  preview:\n") + 1]
        start = workflow.index("        env:\n          PULUMI_STACK:")
        end = workflow.index("          set +e\n", start)
        workflow = workflow[:start] + "        run: |\n" + workflow[end:]
        workflow = workflow.replace(' "${stack[@]}"', "")
    project = {"Pulumi.yaml": f"name: {name}\n" + pulumi_yaml[len("name: trainspec\n"):],
               "__main__.py": template("__main__.py")} if pulumi else {}
    return {
        **project,
        lock_name: lock,
        txt_name: reqs,
        EXAMPLE: example,
        SCHEMA: schemas.VERSIONS[schemas.CURRENT].read_text(encoding="utf-8"),
        "compiled/example.json": compiled["example.json"],
        f"compiled/{emit.MANIFEST}": emit.manifest_text(compiled),
        "trainspec.yaml": template("trainspec.yaml"),
        names[adopt.WORKFLOW]: workflow,
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
    if args.requirement:
        line, comments = args.requirement, []
    else:
        try:
            line, comments = install.requirement(args.source)
        except install.NoInstallableSource as exc:
            err.write(f"error: {exc}; nothing written\n")
            return 1
    why = install.unverified() if args.source == "auto" and not args.requirement else None
    if why and line == install.index_line()[0]:
        err.write(f"warning: {line} is unverified: trainspec {VERSION} may not be on your "
                  f"package index ({why}), and the next steps and the CI workflow install it "
                  "from there. Pass --requirement LINE with a source a CI runner can reach "
                  f"(\"{install.EXTRA} @ https://HOST/trainspec-{VERSION}-py3-none-any.whl\" "
                  f"or \"{install.EXTRA} @ git+https://HOST/OWNER/trainspec@{install.TAG}\"), or "
                  "--from git from a checkout whose origin is an http(s) or ssh URL\n")
    names = adopt.names(target)
    foreign = adopt.foreign_pulumi(target)
    steps = adopt.plan(target, files(name, line, comments, names, pulumi=not foreign))
    if foreign:
        steps[:0] = [adopt.Step(rel, "left", note="another program's: no Pulumi project written"
                                if os.path.lexists(target / rel) else "not written: no Pulumi "
                                "project here") for rel in ("Pulumi.yaml", "__main__.py")]
    failed = adopt.blocked(steps) or (None if args.dry_run else adopt.write(target, steps))
    if failed:
        err.write(f"error: {failed}; nothing written\n")
        return 1
    verb = "dry run: nothing written" if args.dry_run else "never overwriting a file"
    project = f"no Pulumi project ({foreign})" if foreign else f"Pulumi project {name!r}"
    out.write(f"{target}: {project}, trainspec {VERSION} ({verb}):\n")
    out.write(adopt.report(steps))
    out.write(f"{names['requirements.txt']}: {line}\n")
    if install.DROPPED in comments:
        out.write("note: the credentials in the git remote's URL were dropped (never written)\n")
    out.write(adopt.next_steps(target, steps, install_command(
        names["requirements.lock"], names["requirements.txt"]), foreign))
    return 0
