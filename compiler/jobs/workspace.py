"""Which Pulumi stack a spec's job belongs to, read from the files Pulumi itself writes.

`status`, `logs` and `wait` find a job from its spec alone, through the identity the provider
stamps on it (`compiler.identity`): Pulumi organization, project, stack and `metadata.name`.
No Pulumi state is read and Pulumi is not imported:

  project       ``name:`` of the Pulumi.yaml (or Pulumi.yml) found walking up from the spec (then
                from the current folder);
  stack         ``--stack``, else ``PULUMI_STACK``, else the stack `pulumi stack select` chose for
                this project: the CLI records it in
                ``$PULUMI_HOME/workspaces/<project>-<sha1 of Pulumi.yaml's path>-workspace.json``
                (``PULUMI_HOME`` defaults to ``~/.pulumi``), per backend URL (``PULUMI_BACKEND_URL``,
                else Pulumi.yaml's ``backend.url``, else the ``current`` login of
                ``credentials.json``);
  organization  ``--org``, else the one in a qualified stack name (``ORG/STACK`` or
                ``ORG/PROJECT/STACK``, as the selected stack is recorded), else
                ``PULUMI_ORGANIZATION``, else ``organization`` (what file backends use);
  defaults      ``gcp:project`` / ``gcp:region`` from the stack's ``Pulumi.<stack>.yaml`` (in the
                project's ``stackConfigDir`` if it sets one), the defaults the program compiles
                specs with.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import TrainspecError
from ..source import read as source
from .identity import former_names

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")
DEFAULT_ORGANIZATION = "organization"  # pulumi.get_organization() on file (DIY) backends
CONFIG_KEYS = ("gcp:project", "gcp:region")
STAGING_BUCKET = "trainspec:stagingBucket"  # also read in the project's own namespace
RENAMED_FROM = "trainspec:renamedFrom"  # the provider's: the stack's former names
MAX_FILE = 1024 * 1024  # Pulumi's own files are small; never read more


class WorkspaceError(TrainspecError):
    """The spec's Pulumi project or stack cannot be determined; the message says what to do."""


@dataclass(frozen=True)
class Stack:
    """One Pulumi stack of one project: whose jobs `status`, `logs` and `wait` look at."""

    organization: str
    project: str
    name: str
    root: Path  # the folder holding Pulumi.yaml
    chosen_by: str  # --stack, PULUMI_STACK or the selected stack
    config: dict[str, str] = field(default_factory=dict)  # plain gcp:project / gcp:region

    @property
    def qualified(self) -> str:
        return f"{self.organization}/{self.project}/{self.name}"


def find_project(start: Path) -> Path | None:
    """The Pulumi.yaml (or .yml) in `start` or the nearest folder above it."""
    folder = start.absolute()
    for candidate in (folder, *folder.parents):
        for name in PROJECT_FILES:
            if (candidate / name).is_file():
                return candidate / name
    return None


def resolve(spec_file: str, *, stack: str | None = None, org: str | None = None,
            env: Mapping[str, str] | None = None, cwd: Path | None = None) -> Stack:
    """The stack a spec's job belongs to (see the module docstring); WorkspaceError if unknown."""
    env = os.environ if env is None else env
    project_file = find_project(Path(spec_file).parent) or find_project(cwd or Path.cwd())
    if project_file is None:
        raise WorkspaceError(f"{spec_file}: no Pulumi.yaml in its folder or above it, nor in the "
                             "current folder: run from the specs repository (the folder of "
                             "Pulumi.yaml)")
    settings = _read_yaml(project_file)
    project = settings.get("name")
    if not isinstance(project, str) or not project:
        raise WorkspaceError(f"{project_file}: no project `name:`")
    if stack:
        raw, chosen_by = stack, "--stack"
    elif env.get("PULUMI_STACK"):
        raw, chosen_by = env["PULUMI_STACK"], "PULUMI_STACK"
    else:
        raw = selected_stack(project_file, project, settings, env)
        chosen_by = "the selected stack (pulumi stack select)"
        if not raw:
            raise WorkspaceError(
                f"no Pulumi stack selected for project {project!r} ({project_file}): pass "
                "--stack NAME, set PULUMI_STACK, or run `pulumi stack select NAME`")
    parts = raw.split("/")
    if len(parts) > 3 or not all(parts):
        raise WorkspaceError(f"{chosen_by} {raw!r}: expected STACK, ORG/STACK or ORG/PROJECT/STACK")
    if len(parts) == 3 and parts[1] != project:
        raise WorkspaceError(f"{chosen_by} {raw!r} is a stack of project {parts[1]!r}, but "
                             f"{project_file} is project {project!r}")
    organization = (org or (parts[0] if len(parts) > 1 else None)
                    or env.get("PULUMI_ORGANIZATION") or DEFAULT_ORGANIZATION)
    name = parts[-1]
    return Stack(organization, project, name, project_file.parent, chosen_by,
                 _stack_config(project_file.parent, settings, name))


def selected_stack(project_file: Path, project: str, settings: dict,
                   env: Mapping[str, str]) -> str | None:
    """The stack `pulumi stack select` recorded for this project and the current backend."""
    home = Path(env.get("PULUMI_HOME") or Path(env.get("HOME") or Path.home()) / ".pulumi")
    # The CLI names the file after the project file's absolute path (Go filepath.Abs).
    paths = {str(project_file.absolute()), str(project_file.resolve())}
    for path in sorted(paths):
        digest = hashlib.sha1(path.encode()).hexdigest()  # noqa: S324 - Pulumi's file naming
        data = _read_json(home / "workspaces" / f"{project}-{digest}-workspace.json")
        if not data:
            continue
        stacks = data.get("stacks")
        if isinstance(stacks, dict) and stacks:
            url = _backend_url(settings, home, env)
            chosen = stacks.get(url) if url else None
            if isinstance(chosen, str) and chosen:
                return chosen
            continue
        legacy = data.get("stack")  # workspace.json files of older CLIs
        if isinstance(legacy, str) and legacy:
            return legacy
    return None


def _backend_url(settings: dict, home: Path, env: Mapping[str, str]) -> str | None:
    if env.get("PULUMI_BACKEND_URL"):
        return env["PULUMI_BACKEND_URL"]
    backend = settings.get("backend")
    if isinstance(backend, dict) and isinstance(backend.get("url"), str):
        return backend["url"]
    current = _read_json(home / "credentials.json").get("current")
    return current if isinstance(current, str) else None


def _config_dir(root: Path, settings: dict) -> Path:
    folder = settings.get("stackConfigDir")
    return root / folder if isinstance(folder, str) and folder else root


def stack_configs(root: Path) -> dict[str, dict]:
    """{stack: its `config` mapping} for every `Pulumi.<STACK>.yaml` of the project in `root`
    (its `stackConfigDir` honoured), read as safely as a spec; one that cannot be read is left
    out."""
    try:
        base = _config_dir(root, _read_yaml(root / "Pulumi.yaml", missing_ok=True))
    except WorkspaceError:
        return {}
    found = {}
    for path in sorted(base.glob("Pulumi.*.yaml")):
        try:
            config = _read_yaml(path).get("config")
        except WorkspaceError:
            continue
        if isinstance(config, dict):
            found[path.name[len("Pulumi."):-len(".yaml")]] = config
    return found


def _stack_config(root: Path, settings: dict, stack: str) -> dict[str, str]:
    config = _read_yaml(_config_dir(root, settings) / f"Pulumi.{stack}.yaml",
                        missing_ok=True).get("config")
    if not isinstance(config, dict):
        return {}
    found = {k: v for k, v in config.items() if k in CONFIG_KEYS + (STAGING_BUCKET,)
             and isinstance(v, str) and v}
    # `pulumi config set stagingBucket X` writes the project's namespace, which the program
    # reads when trainspec:stagingBucket is not set (compiler.provider.stack.Settings).
    own = config.get(f"{settings.get('name')}:stagingBucket")
    if isinstance(own, str) and own and STAGING_BUCKET not in found:
        found[STAGING_BUCKET] = own
    renamed = former_names(config.get(RENAMED_FROM))
    if renamed:  # the stack's former names: its jobs may still carry their owner labels
        found[RENAMED_FROM] = json.dumps(renamed)
    return found


def _read_yaml(path: Path, missing_ok: bool = False) -> dict:
    """A YAML mapping, parsed as safely as a spec (bounded size, expansion and depth)."""
    try:
        with open(path, "rb") as f:
            blob = f.read(MAX_FILE + 1)
    except FileNotFoundError:
        if missing_ok:
            return {}
        raise WorkspaceError(f"{path}: no such file") from None
    except OSError as exc:
        raise WorkspaceError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(blob) > MAX_FILE:
        raise WorkspaceError(f"{path}: larger than {MAX_FILE // 1024} KiB")
    doc, problems = source.parse(blob, str(path))
    errors = [d for d in problems if d.is_error]
    if errors:
        raise WorkspaceError(errors[0].format())
    return doc.data if isinstance(doc.data, dict) else {}


def _read_json(path: Path) -> dict:
    try:
        with open(path, "rb") as f:
            data = json.loads(f.read(MAX_FILE))
    except (OSError, ValueError):
        return {}  # no selection recorded, or not one we can read: the caller says what to do
    return data if isinstance(data, dict) else {}
