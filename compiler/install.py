"""The `requirements.txt` line `init` writes: how a new repository (and its CI runner) installs
this trainspec. Never a path on this machine: a CI runner has neither the folder nor the clone.

  index  ``trainspec[pulumi]==VERSION``: the release on the package index
  git    ``trainspec[pulumi] @ git+URL@vVERSION``: the git repository trainspec came from, at
         its release tag (the commit when the tag is missing)

`auto` (the default) is `git` when this trainspec came from git (a source checkout with a remote,
or a pip install from a git URL: PEP 610's direct_url.json) and `index` otherwise.

A remote URL's credentials (`https://x-access-token:TOKEN@host/…`) are never written or printed:
the line keeps the URL without them (an ssh URL keeps its user name, `git@`), and says so.
"""

from __future__ import annotations

import json
import re
import subprocess
import urllib.parse
from importlib import metadata
from pathlib import Path

from .version import VERSION

PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # a source checkout has pyproject here
EXTRA = "trainspec[pulumi]"
TAG = f"v{VERSION}"
SOURCES = ("auto", "index", "git")
DROPPED = ("# The credentials in the remote URL were dropped (never written): a CI runner "
           "brings its own.")
_SCP = re.compile(r"^(?P<user>[\w.-]+)@(?P<host>[\w.-]+):(?P<path>[^/].*)\Z")  # git@host:o/r.git


class NoInstallableSource(Exception):
    """There is no URL a CI runner could install this trainspec from."""


def index_line() -> tuple[str, list[str]]:
    return f"{EXTRA}=={VERSION}", [
        f"# trainspec {VERSION} from your package index. Not there? Install it from its git",
        f"# repository at the release tag: {EXTRA} @ git+URL@{TAG} (init --from git;",
        "# a commit instead of the tag before the release is tagged)."]


def requirement(source: str = "auto", root: Path | None = None) -> tuple[str, list[str]]:
    """(requirement line, comment lines) for `source` (one of SOURCES)."""
    if source == "index":
        return index_line()
    found = _git_origin(root or PACKAGE_ROOT)
    if found is None:
        if source == "git":
            raise NoInstallableSource(
                "this trainspec came from no git remote that a CI runner can reach (a source "
                "checkout needs an http(s) or ssh `origin`; a wheel or index install has none): "
                f"pass --from index, or --requirement '{EXTRA} @ git+URL@{TAG}' (a commit "
                f"for {TAG} until that tag exists)")
        return index_line()
    url, ref, why = found
    clean = without_credentials(url)
    line = f"{EXTRA} @ git+{clean}@{ref}"
    return line, [f"# trainspec {VERSION} from its git repository, {why}.",
                  *([DROPPED] if clean != url else []),
                  f"# Once trainspec {VERSION} is on your package index, use instead:",
                  f"#   {EXTRA}=={VERSION}"]


def unverified(root: Path | None = None) -> str | None:
    """Why the index pin `auto` falls back to may name no release on any index: this trainspec
    came from a file (a wheel, an archive, a folder: PEP 610's direct_url.json without
    vcs_info) or from a checkout without a remote a CI runner can reach. None when it came from
    an index (no direct_url.json) or from a git URL."""
    root = root or PACKAGE_ROOT
    if _git_origin(root) is not None:
        return None
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and 'name = "trainspec"' in pyproject.read_text("utf-8"):
        return f"this trainspec is the checkout {root}, which has no http(s) or ssh remote"
    try:
        text = metadata.distribution("trainspec").read_text("direct_url.json")
        direct = json.loads(text or "null")
    except (metadata.PackageNotFoundError, ValueError):
        return None
    if not isinstance(direct, dict):
        return None
    return f"this trainspec was installed from {without_credentials(str(direct.get('url')))}"


def without_credentials(url: str) -> str:
    """`url` without its userinfo: none for http(s) and git (a user name alone may be a
    token: `https://TOKEN@host`), the user name only for ssh (`ssh://git@host`)."""
    parts = urllib.parse.urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    if not at:
        return url
    user = userinfo.split(":", 1)[0]
    netloc = f"{user}@{host}" if parts.scheme == "ssh" and user and ":" not in userinfo \
        else host
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def pip_url(remote: str) -> str | None:
    """A git remote as pip's VCS URL (without `git+`), or None for a local path."""
    remote = remote.strip()
    if re.match(r"^(https?|ssh|git)://", remote):
        return remote
    scp = _SCP.match(remote)
    if scp:  # pip takes ssh only as a URL
        return f"ssh://{scp['user']}@{scp['host']}/{scp['path']}"
    return None  # a folder or file:// URL: on this machine only


def _git_origin(root: Path) -> tuple[str, str, str] | None:
    """(pip URL, tag or commit, which of them) of the git repository this trainspec came from."""
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and 'name = "trainspec"' in pyproject.read_text("utf-8"):
        return _checkout_origin(root)
    return _installed_origin()


def _checkout_origin(root: Path) -> tuple[str, str, str] | None:
    remotes = _git(root, "remote").split()
    remote = "origin" if "origin" in remotes else (remotes[0] if remotes else "")
    url = pip_url(_git(root, "remote", "get-url", remote)) if remote else None
    if url is None:
        return None
    if _git(root, "rev-parse", "-q", "--verify", f"refs/tags/{TAG}^{{commit}}"):
        return url, TAG, f"its release tag {TAG}"
    commit = _git(root, "rev-parse", "HEAD")
    if not commit:
        return None
    return url, commit, (f"the commit of this checkout: it has no tag {TAG} yet (push the "
                         "commit to the remote, or tag the release: docs/releasing.md)")


def _installed_origin() -> tuple[str, str, str] | None:
    try:
        text = metadata.distribution("trainspec").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    try:
        direct = json.loads(text or "null")
    except ValueError:
        return None
    if not isinstance(direct, dict) or not isinstance(direct.get("vcs_info"), dict):
        return None
    url = pip_url(str(direct.get("url", "")))
    vcs = direct["vcs_info"]
    ref = vcs.get("requested_revision") or vcs.get("commit_id")
    if url is None or not isinstance(ref, str) or not ref:
        return None
    return url, ref, "as pip installed it here"


def _git(root: Path, *args: str) -> str:
    try:
        run = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return run.stdout.strip() if run.returncode == 0 else ""
