"""Find and read a spec's repo config: every problem a located error, never a traceback.

From the spec's folder up to the repository's root (the folder holding `.git`, else the
filesystem root; nothing above it is read), each folder with a `trainspec.yaml` or a
pyproject.toml with `[tool.trainspec]` holds a config; both in one folder is an error. The
nearest config is the spec's config (ignore, severity, overrides, extensions, packaging);
the `policy` of every one of them applies, so that a nested config can add guardrails but
never drop the root's (policy.py combines them). A spec at a git revision
(`diff BASE`) reads the configs at that revision.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import posixpath
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..diagnostics import Diagnostic, Position
from ..source import files as safe_files
from ..source.repo import FILE, LINK, Files, GitFiles, GitRepo
from .check import CODE, parse_pyproject, parse_yaml
from .model import NONE, Config, Policy

FILE_NAME = "trainspec.yaml"
_UNTOLD = "trainspec cannot tell whether it has [tool.trainspec]"
PYPROJECT = "pyproject.toml"


@dataclass(frozen=True)
class Found:
    """A spec's config, the spec's path relative to the config's folder (posix; what
    `overrides` paths match), the problems of every config found, and the policy of each
    config found with the file that sets it, the repository's root first."""

    config: Config = NONE
    spec: str = ""
    problems: tuple[Diagnostic, ...] = ()
    policies: tuple[tuple[Policy, str], ...] = ()


def _found(layers: list[Found]) -> Found:
    """The nearest config (`layers[0]`, one Found per folder with a config, nearest first)
    with the problems and policies of all of them."""
    if not layers:
        return Found()
    return dataclasses.replace(
        layers[0], problems=tuple(d for layer in layers for d in layer.problems),
        policies=tuple((layer.config.policy, layer.config.file) for layer in reversed(layers)
                       if layer.config.file))


Seen = dict[str, tuple[bool, bool, bool]]  # folder → whether it holds each config file


def find(spec_file: str, files: Files | None = None, seen: Seen | None = None) -> Found:
    """The repo config of `spec_file` (a path relative to `files.base`, or the current
    folder; `<stdin>` is looked up from that folder, other `<names>` have none).

    `seen` is what the folders hold, shared by the specs of one tree (tree.py): a tree is
    read at one moment, and 2,000 specs in 20 folders need 20 lookups, not 2,000."""
    if isinstance(files, GitFiles):
        return _find_git(spec_file, files)
    base = os.path.abspath((files.base if files is not None else None) or ".")
    if spec_file == safe_files.STDIN_NAME:
        start = base
    elif spec_file.startswith("<"):
        return Found()
    else:
        start = os.path.dirname(os.path.join(base, spec_file))
    layers = []
    for folder in folders_up(start):
        yaml_path, toml_path = os.path.join(folder, FILE_NAME), os.path.join(folder, PYPROJECT)
        has_yaml, has_toml, has_git = _entries(folder, seen)
        toml = _fs_pyproject(toml_path, base) if has_toml else None
        if has_yaml or toml is not None:
            spec = "" if spec_file.startswith("<") else \
                os.path.relpath(os.path.join(base, spec_file), folder).replace(os.sep, "/")
            shown = safe_files.shown(os.path.relpath(yaml_path, base))
            if has_yaml and toml is not None and not os.path.islink(toml_path):
                layers.append(Found(NONE, spec, (_both(shown, toml[0].file),)))
            else:  # (a linked pyproject.toml beside a trainspec.yaml: its error only)
                config, problems = _fs_yaml(yaml_path, base) if has_yaml else toml
                if has_yaml and toml is not None:
                    problems += toml[1]
                layers.append(Found(dataclasses.replace(config, folder=folder), spec, problems))
        if has_git:
            break
    return _found(layers)


def _entries(folder: str, seen: Seen | None) -> tuple[bool, bool, bool]:
    """Whether `folder` holds trainspec.yaml, pyproject.toml, .git (links count)."""
    if seen is not None and folder in seen:
        return seen[folder]
    found = tuple(os.path.lexists(os.path.join(folder, name))
                  for name in (FILE_NAME, PYPROJECT, ".git"))
    if seen is not None:
        seen[folder] = found  # type: ignore[assignment]
    return found  # type: ignore[return-value]


def folders_up(folder: str) -> Iterator[str]:
    """`folder` (absolute) and each folder above it, up to the filesystem root."""
    yield folder
    while os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
        yield folder


def _both(yaml_shown: str, toml_shown: str) -> Diagnostic:
    return Diagnostic("$", f"two repo configs in one folder: {yaml_shown} and [tool.trainspec] "
                      f"in {toml_shown}", file=yaml_shown, position=Position(1, 1),
                      hint="keep one of them", code=CODE)


def _stat_key(path: str) -> tuple:
    try:
        info = os.stat(path)
    except OSError:
        return ()
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def _fs_yaml(path: str, base: str) -> tuple[Config, tuple[Diagnostic, ...]]:
    return _fs_yaml_cached(path, safe_files.shown(os.path.relpath(path, base)), _stat_key(path))


@functools.lru_cache(maxsize=64)
def _fs_yaml_cached(path: str, shown: str, _stat: tuple) -> tuple[Config, tuple[Diagnostic, ...]]:
    if os.path.islink(path):  # it could point anywhere: nothing outside the repository is read
        return NONE, (_link(shown),)
    blob, problem = safe_files.read_bytes(path)
    if problem is not None:
        return NONE, (dataclasses.replace(problem, file=shown, code=CODE),)
    return parse_yaml(blob or b"", shown)


def _link(shown: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic("$", "a symbolic link: the repo config is a regular file", file=shown,
                      position=Position(1, 1), hint=hint, code=CODE)


def _fs_pyproject(path: str, base: str) -> tuple[Config, tuple[Diagnostic, ...]] | None:
    shown = safe_files.shown(os.path.relpath(path, base))
    if os.path.islink(path):  # it could point anywhere, and might hide a [tool.trainspec]
        return NONE, (_link(shown, _UNTOLD),)
    return _fs_pyproject_cached(path, shown, _stat_key(path))


@functools.lru_cache(maxsize=64)
def _fs_pyproject_cached(path: str, shown: str,
                         _stat: tuple) -> tuple[Config, tuple[Diagnostic, ...]] | None:
    blob, problem = safe_files.read_bytes(path)
    if problem is not None and "larger than" in problem.message:
        # Too big to read, so it might hide a [tool.trainspec]: never silently no config.
        return Config(file=shown), (dataclasses.replace(
            problem, file=shown, hint=_UNTOLD, code=CODE),)
    if problem is not None:
        return None  # not a regular file: another tool's business, and never read
    return parse_pyproject(blob or b"", shown)


# -- at a git revision ------------------------------------------------------------------------

_GIT_CACHE: weakref.WeakKeyDictionary[GitRepo, dict[str, Any]] = weakref.WeakKeyDictionary()


def _find_git(spec_file: str, files: GitFiles) -> Found:
    folder = posixpath.normpath(posixpath.dirname(spec_file) or ".")
    folder = "" if folder == "." else folder
    if folder.startswith(".."):
        return Found()
    repo, cache = files.whole, _GIT_CACHE.setdefault(files.whole, {})
    layers = []
    while True:
        yaml_path, toml_path = posixpath.join(folder, FILE_NAME), posixpath.join(folder, PYPROJECT)
        has_yaml = repo.entry(yaml_path) is not None
        toml = _git_read(repo, toml_path, cache, parse_pyproject) \
            if repo.entry(toml_path) is not None else None
        if has_yaml or toml is not None:
            spec = posixpath.relpath(spec_file, folder or ".")
            if has_yaml and toml is not None and toml[0].file:
                layers.append(Found(NONE, spec, (_both(repo.shown(yaml_path), toml[0].file),)))
            else:  # (a linked pyproject.toml beside a trainspec.yaml: its error only)
                config, problems = _git_read(repo, yaml_path, cache, parse_yaml) if has_yaml \
                    else toml  # type: ignore[misc]
                if has_yaml and toml is not None:
                    problems += toml[1]
                layers.append(Found(dataclasses.replace(config, folder=folder), spec, problems))
        if not folder:
            return _found(layers)
        folder = posixpath.dirname(folder)


def _git_read(repo: GitRepo, path: str, cache: dict, parse: Any) -> Any:
    if path not in cache:
        entry, shown = repo.entry(path), repo.shown(path)
        if entry is None or entry.kind != FILE or entry.size > safe_files.MAX_BYTES:
            # A linked or too big pyproject.toml might hide a [tool.trainspec], as on disk.
            cache[path] = None if parse is parse_pyproject and entry is not None and \
                entry.kind not in (LINK, FILE) else (NONE, (Diagnostic(
                    "$", "not a regular file of at most 1 MiB", file=shown, code=CODE,
                    hint=_UNTOLD if parse is parse_pyproject else None),))
        else:
            cache[path] = parse(repo.read(path), shown)
    return cache[path]
