"""`python.source`: a trainer's local code, packaged reproducibly and named by its content.

The pipeline stage between normalize and the targets: for each Python task with a `source`
folder, build its sdist (build.py) in the spec's repository (tree.py), put its content-addressed
URI first in the task's packages, and report what is wrong at `$.spec.python.source` (or the
pool's). Compiling only hashes the archive; the provider's Check, the Pulumi program and `local-run`
also write it (Options.package_dir). Nothing is uploaded here: the job resource's Create does
that (compiler/provider/uploads.py).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config.model import RepoConfig
from ..diagnostics import Collector
from ..model import Job, PythonPackage
from ..source.repo import CurrentFolder, Files, GitFiles

if TYPE_CHECKING:
    from .sdist import Package

__all__ = ["Upload", "resolve", "bucket_name", "cache_dir", "Files", "GitFiles", "CurrentFolder",
           "Package"]

BUCKET_HINT = ("set spec.stagingBucket, pass --staging-bucket, or `pulumi config set "
               "trainspec:stagingBucket gs://BUCKET`")
# Cloud Storage bucket names: 3-63 characters (up to 222 with dots), lower case, digits, -_.
_BUCKET = re.compile(r"^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]\Z")


@dataclass(frozen=True)
class Upload:
    """A built archive and where it goes: gs://bucket/object_name."""

    package: Package
    bucket: str
    spec_path: str  # where the source is set: $.spec.python.source or a pool's

    @property
    def uri(self) -> str:
        return self.package.uri(self.bucket)


def __getattr__(name: str) -> Any:
    """`Package` and `cache_dir`, from sdist.py on first use: building (tomllib, tar, zip) is
    imported only where a spec has a python.source (issue 23)."""
    if name in ("Package", "cache_dir"):
        from . import sdist

        return getattr(sdist, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def bucket_name(value: str | None) -> str | None:
    """`gs://NAME`, `gs://NAME/` or `NAME` → NAME; None if it is not a bucket name."""
    if not value:
        return None
    name = value.removeprefix("gs://").rstrip("/")
    return name if _BUCKET.match(name) and ".." not in name else None


def resolve(job: Job, c: Collector, files: Files | None, package_dir: str | None,
            config: RepoConfig = RepoConfig()) -> list[Upload]:
    """Build every `python.source` of `job` and put its URI first in its task's packages;
    `config` is the repo config's `packaging:`."""
    tasks = _tasks(job)
    if not tasks:
        return []
    from .sdist import BuildError, build

    files = files or Files()
    located = files.locate(job.file)
    in_repository = located is not None
    uploads: dict[tuple[str, str], Upload] = {}
    replaced: dict[int, PythonPackage] = {}
    built: dict[tuple, Package | BuildError] = {}  # a source shared by pools is built once
    for path, module_path, task in tasks:
        if id(task) in replaced:
            continue
        source = task.source or ""
        # Every problem in one run: the staging bucket, the repository and the folder's
        # package are independent, so each is reported whatever the others are.
        if not job.staging_bucket and not any(
                d.path == "$.spec.stagingBucket" and d.is_error for d in c.items):
            c.error(path, "no staging bucket to upload the package to", BUCKET_HINT,
                    code="source-staging-bucket")
        if not in_repository:
            c.error(path, "a spec read from standard input has no folder for python.source to "
                    "be relative to" if job.file.startswith("<") else
                    "the spec is in no repository (no Pulumi.yaml or .git in its folder or "
                    "above it): python.source is read only inside the spec's repository",
                    code="source-no-repository")
        # Outside one, the folder's own problems still (as if a repository held it).
        repo, spec_dir = located or files.loose_folder(job.file, source) or (None, "")
        if repo is None:
            continue
        folder = posixpath.normpath(posixpath.join(spec_dir, source))
        if source.startswith("/") or folder == ".." or folder.startswith("../"):
            c.error(path, f"{source!r} is outside the repository ({repo.root_shown})",
                    "python.source is a folder inside the spec's repository, relative to the "
                    "spec file", code="source-outside-repository")
            continue
        folder = "" if folder == "." else folder
        key = (id(repo), folder, task.module)
        if key not in built:
            try:
                built[key] = build(repo, folder, config, task.module,
                                   Path(package_dir) if package_dir and job.staging_bucket
                                   and in_repository else None)
            except BuildError as e:
                built[key] = e
        package = built[key]
        if isinstance(package, BuildError):
            for problem in package.problems:
                c.error(module_path if problem.key == "module" else path, problem.message,
                        problem.hint, code=problem.code)
            continue
        if not job.staging_bucket or not in_repository:
            continue
        upload = Upload(package, job.staging_bucket, path)
        uploads.setdefault((upload.bucket, package.object_name), upload)
        replaced[id(task)] = dataclasses.replace(task, packages=(upload.uri, *task.packages))
    if job.python is not None and id(job.python) in replaced:
        job.python = replaced[id(job.python)]
    for pool in [*job.pools.values(), *filter(None, [job.spec_chief])]:
        if id(pool.task) in replaced:
            pool.task = replaced[id(pool.task)]
    return list(uploads.values())


def reads_sources(job: Job) -> bool:
    """Whether compiling `job` reads files other than its spec and configs (python.source)."""
    return bool(_tasks(job))


def _tasks(job: Job) -> list[tuple[str, str, PythonPackage]]:
    """(where its source is set, where its module is set, task) for every Python task with a
    source."""
    found = []
    if isinstance(job.python, PythonPackage) and job.python.source is not None:
        found.append(("$.spec.python.source", "$.spec.python.module", job.python))
    for pool in job.pools.values():
        task = pool.task
        if isinstance(task, PythonPackage) and task.source is not None and task is not job.python:
            where = [f"{pool.path}.python.{key}" if key in pool.overrides else
                     f"$.spec.python.{key}" for key in ("source", "module")]
            found.append((*where, task))
    return found
