"""The repository config, `trainspec.yaml` at the repository root: its one key, `packaging`.

```yaml
packaging:
  allowSecretFiles: [tests/fixtures/*.pem]   # .gitignore-style patterns, from the repo root
  maxSizeMiB: 100                            # the limit on a trainer's packaged files
```

Unknown keys and wrong types are located errors in trainspec.yaml. A file of comments only (what
`init` writes) sets nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import source
from ..diagnostics import Diagnostic
from ..suggest import did_you_mean
from .tree import FILE, Repo

FILE_NAME = "trainspec.yaml"
DEFAULT_MAX_MIB = 100
LIMIT_MAX_MIB = 10 * 1024  # a 10 GiB trainer is not a trainer
KEYS = {"packaging": {"allowSecretFiles", "maxSizeMiB"}}


@dataclass(frozen=True)
class RepoConfig:
    allow_secret_files: tuple[str, ...] = ()
    max_size_mib: int = DEFAULT_MAX_MIB


def read(repo: Repo) -> tuple[RepoConfig, list[Diagnostic]]:
    """The repository's trainspec.yaml (defaults if there is none) and its problems."""
    entry = repo.entry(FILE_NAME)
    if entry is None:
        return RepoConfig(), []
    shown = repo.shown(FILE_NAME)
    if entry.kind != FILE or entry.size > source.MAX_BYTES:
        return RepoConfig(), [Diagnostic("$", "not a regular file of at most 1 MiB", file=shown,
                                         code="repo-config")]
    doc, found = source.parse(repo.read(FILE_NAME), shown)
    if doc.data is None and all(d.code == "empty-document" for d in found):
        return RepoConfig(), []
    errors = [d for d in found if d.is_error]
    if errors:
        return RepoConfig(), errors
    c = doc.collector()
    data = doc.data if isinstance(doc.data, dict) else {}
    if not isinstance(doc.data, dict):
        c.error("$", "trainspec.yaml must be a mapping (packaging: {...})",
                code="repo-config")
    for key in data:
        if key not in KEYS:
            c.error(source.child("$", str(key)), f"unknown key {key!r}",
                    did_you_mean(str(key), KEYS) or "trainspec.yaml has one key: packaging",
                    key=True, code="repo-config")
    packaging = data.get("packaging", {})
    if not isinstance(packaging, dict):
        c.error("$.packaging", "packaging must be a mapping (allowSecretFiles, maxSizeMiB)",
                code="repo-config")
        packaging = {}
    for key in packaging:
        if key not in KEYS["packaging"]:
            c.error(source.child("$.packaging", str(key)), f"unknown key {key!r}",
                    did_you_mean(str(key), KEYS["packaging"]) or "allowSecretFiles, maxSizeMiB",
                    key=True, code="repo-config")
    allow = packaging.get("allowSecretFiles", [])
    if not isinstance(allow, list) or not all(isinstance(p, str) and p for p in allow):
        c.error("$.packaging.allowSecretFiles", "a list of .gitignore-style patterns (paths "
                "from the repository root)", "e.g. [tests/fixtures/*.pem]",
                code="repo-config")
        allow = []
    limit = packaging.get("maxSizeMiB", DEFAULT_MAX_MIB)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= LIMIT_MAX_MIB \
            or "$.packaging.maxSizeMiB" in doc.suspect:
        c.error("$.packaging.maxSizeMiB", f"a whole number of MiB from 1 to {LIMIT_MAX_MIB}, "
                f"not {limit!r}", code="repo-config")
        limit = DEFAULT_MAX_MIB
    return RepoConfig(tuple(allow), limit), c.items
