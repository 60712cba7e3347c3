"""Build a source folder's sdist, named by its content: `<dist>-<version>-<sha256[:16]>.tar.gz`.

The archive is a valid sdist (`<dist>-<version>/PKG-INFO` plus the project's files), so pip and
the prebuilt training containers install it as they would one made by `python -m build`.
trainspec builds it itself, in pure Python and offline (no build backend runs: the name and
version are read, see metadata.py), which is what makes it reproducible.
"""

from __future__ import annotations

import os
import posixpath
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config.model import RepoConfig
from ..rules import Problem
from ..source.repo import DIR, LINK, Repo, TreeError
from . import archive, collect, metadata

OBJECT_PREFIX = "trainspec/packages"
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
METADATA_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
MIB = 1024 * 1024
_SECRET_HINT = "add it to .gitignore, or allow it in trainspec.yaml packaging.allowSecretFiles"


@dataclass(frozen=True)
class Package:
    """A built trainer archive. `archive` is the local file, when one was written."""

    name: str
    version: str
    dist: str
    sha256: str  # of the uncompressed tar stream
    files: int
    size: int  # bytes of the packaged files, uncompressed
    source: str  # the source folder, as messages show it
    archive: str | None = None

    @property
    def file_name(self) -> str:
        return f"{self.dist}-{self.version}-{self.sha256[:16]}.tar.gz"

    @property
    def object_name(self) -> str:
        return f"{OBJECT_PREFIX}/{self.file_name}"

    def uri(self, bucket: str) -> str:
        return f"gs://{bucket}/{self.object_name}"


@dataclass
class BuildError(Exception):
    """Why a source folder cannot be packaged: each problem with its rule code, a hint (or
    None) and the python key it is about ("source" or "module")."""

    problems: list[Problem]

    def __str__(self) -> str:
        return "; ".join(p.message for p in self.problems)


def build(repo: Repo, source: str, config: RepoConfig, module: str | None,
          out_dir: Path | None = None, mtime: int | None = None) -> Package:
    """Package folder `source` (relative to the repository root). With `out_dir`, the archive
    is written there (atomically, under its final name); without, it is only hashed."""
    try:
        return _build(repo, source, config, module, out_dir, mtime)
    except TreeError as e:
        raise BuildError([Problem("source-unreadable", "source", str(e))]) from e


def _build(repo: Repo, source: str, config: RepoConfig, module: str | None,
           out_dir: Path | None, mtime: int | None) -> Package:
    shown = repo.shown(source)
    entry = repo.entry(source)
    if entry is None or entry.kind != DIR:
        parts = source.split("/")
        link = next((p for p in ("/".join(parts[:i]) for i in range(1, len(parts) + 1))
                     if (e := repo.entry(p)) is not None and e.kind == LINK), None)
        what = ("is a symbolic link (name the folder itself)" if link == source else
                f"is reached through a symbolic link ({repo.shown(link)}): name the folder "
                "itself" if link else "does not exist" if entry is None else "is not a folder")
        raise BuildError([Problem("source-folder", "source", f"{shown} {what}", "python.source is "
                                  "a folder holding pyproject.toml or setup.py, relative to the "
                                  "spec file")])
    found = collect.collect(repo, source, config.allow_secret_files)
    if found.too_many:
        raise BuildError([Problem("source-file-count", "source", f"{shown} holds more than "
                                  f"{collect.MAX_FILES} files to package", "ignore data, "
                                  "outputs and environments in .gitignore")])
    problems = [Problem(code, "source", message, _SECRET_HINT if code == "source-secret-file"
                        else None) for code, message in found.problems]
    total = sum(e.size for e in found.files.values())
    if total > config.max_size_mib * MIB:
        top = ", ".join(f"{posixpath.join(shown, p)} ({_size(s)})"
                        for p, s in collect.largest(found.files))
        problems.append(Problem("source-size", "source", f"the files to package total "
                                f"{_size(total)}, over the {config.max_size_mib} MiB limit; "
                                f"largest: {top}", "ignore data and outputs in .gitignore, or "
                                "raise packaging.maxSizeMiB in trainspec.yaml"))
    for name in METADATA_FILES:
        if name in found.files and found.files[name].size > metadata.MAX_METADATA_FILE:
            problems.append(Problem("source-metadata", "source", f"{shown}/{name} is larger "
                                    f"than {metadata.MAX_METADATA_FILE // 1024} KiB"))
    if problems:
        raise BuildError(problems)
    repo.prefetch([e.path for e in found.files.values()])
    # Each file is read once: the bytes checked (metadata, secrets) are the bytes archived.
    secrets: list[Problem] = []
    check = _Checked(repo, source, {}, collect.allowing(config.allow_secret_files), secrets)
    blobs = {name: check.read(name, found.files[name].path) for name in METADATA_FILES
             if name in found.files}
    if secrets:
        raise BuildError(secrets)
    check.blobs = blobs
    try:
        meta = metadata.read(blobs)
    except metadata.MetadataError as e:
        raise BuildError([Problem("source-metadata", "source", f"{shown}: {e}",
                                  None if blobs else _layout_hint(shown, module))]) from e
    if module is not None:
        _check_module(module, meta, found.files, shown)
    members = [(path, e.executable, check.reader(path, e.path))
               for path, e in found.files.items()]
    members.append(("PKG-INFO", False, lambda: metadata.pkg_info(meta)))
    members.sort(key=lambda m: m[0].encode("utf-8", "surrogateescape"))
    prefix = f"{meta.dist}-{meta.version}"
    when = archive.source_date_epoch() if mtime is None else mtime
    written = None
    if out_dir is None:
        sha = archive.write(prefix, members, None, when)
        if secrets:
            raise BuildError(secrets)
    else:
        out_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".building-", dir=out_dir)
        try:
            with os.fdopen(fd, "wb") as f:
                sha = archive.write(prefix, members, f, when)
            if secrets:
                raise BuildError(secrets)
            written = str(out_dir / f"{prefix}-{sha[:16]}.tar.gz")
            os.replace(tmp, written)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return Package(meta.name, meta.version, meta.dist, sha, len(found.files), total, shown,
                   written)


@dataclass
class _Checked:
    """Reads each file of the archive once and checks the bytes read for secrets (an allowed
    path excepted) and the open file for other names (a hard link made after the listing),
    adding each problem found to `found`."""

    repo: Repo
    source: str
    blobs: dict[str, bytes]  # already read: the metadata files
    allowed: Any
    found: list[Problem]

    def reader(self, rel: str, path: str) -> Callable[[], bytes]:
        return lambda: self.blobs[rel] if rel in self.blobs else self.read(rel, path)

    def read(self, rel: str, path: str) -> bytes:
        data, links = self.repo.read_file(path)
        member = posixpath.join(self.source, rel) if self.source else rel
        if links > 1:
            code, message = collect.hard_link(self.repo.shown(path), links)
            self.found.append(Problem(code, "source", message))
        kind = collect.secret_content(data)
        if kind and not (self.allowed and self.allowed.match_file(member)):
            code, message = collect.secret(self.repo.shown(member), kind)
            self.found.append(Problem(code, "source", message, _SECRET_HINT))
        return data


def _check_module(module: str, meta: metadata.Metadata, files: dict, shown: str) -> None:
    if not _MODULE.match(module):
        raise BuildError([Problem("source-module-name", "module", f"{module!r} is not a module "
                                  "name", "dotted Python identifiers, e.g. trainer.task")])
    candidates = metadata.module_files(module, meta.package_dir)
    if any(c in files for c in candidates):
        return
    tops = sorted({p.split("/")[0] for p in files if p.endswith(".py") and "/" in p}
                  | {p[:-3] for p in files if p.endswith(".py") and "/" not in p
                     and p != "setup.py"})
    raise BuildError([Problem("source-module-missing", "module", f"module {module!r} is not in "
                              f"the package built from {shown}: none of "
                              f"{', '.join(candidates[:2])}, ... is there", "its top-level "
                              f"modules and packages: {', '.join(tops[:8]) or 'none'}")])


def _layout_hint(shown: str, module: str | None) -> str:
    """What a folder without package metadata needs (gcloud's autopackaging copies a folder into
    an image as it is; trainspec builds an sdist that the executor image pip-installs)."""
    top = (module or "trainer").split(".")[0]
    code = f"{shown}/{(module or 'trainer.task').replace('.', '/')}.py"
    return (f"add {shown}/pyproject.toml beside the package, with [project] name and version and "
            f"[tool.setuptools] packages = [\"{top}\"], the code in {code}: the "
            "executor image pip-installs the sdist trainspec builds from the folder")


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def cache_dir(env: dict[str, str] | None = None) -> Path:
    """Where `pulumi up` and `local-run` keep built archives (content-addressed, so a stale one
    is never picked): TRAINSPEC_CACHE_DIR, else $XDG_CACHE_HOME/trainspec/packages, else
    ~/.cache/trainspec/packages, else a folder in the system's temporary directory."""
    env = os.environ if env is None else env
    if env.get("TRAINSPEC_CACHE_DIR"):
        return Path(env["TRAINSPEC_CACHE_DIR"])
    base = env.get("XDG_CACHE_HOME") or (os.path.join(env["HOME"], ".cache")
                                         if env.get("HOME") else None)
    if base:
        return Path(base) / "trainspec" / "packages"
    return Path(tempfile.gettempdir()) / f"trainspec-packages-{os.getuid()}"
