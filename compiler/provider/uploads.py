"""The `python.source` archives of a job, uploaded by the provider before it submits the job, so
the job and its code are one resource (no pulumi-gcp, no second resource to order).

Check compiles the spec with the archive cache as `package_dir`: the archive is built (or found
built: it is content-addressed) and its URI, `gs://BUCKET/trainspec/packages/<dist>-<version>-
<sha256[:16]>.tar.gz`, is the first of the task's packageUris and is kept in the checked inputs
as `uploads`. Nothing is sent then (a preview only builds). Create uploads each archive with
`compiler.cloud.storage.ensure` (skipped when the object holds the same bytes) and only then
submits the job. Objects are never deleted: a destroy or a replace leaves them in the bucket,
since a job (this stack's, an earlier run, or another stack's with the same code) may use them;
a lifecycle rule on the staging bucket is the way to expire old archives.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from ..cloud.errors import ApiError
from ..cloud.storage import Storage, ensure
from ..packaging import cache_dir
from ..pulumi_resources.bodies import describe
from ..pulumi_resources.provider import JobError

KEY = "uploads"  # the checked input: the gs:// URIs Create uploads


def split(uri: str) -> tuple[str, str]:
    """gs://BUCKET/OBJECT → (BUCKET, OBJECT)."""
    bucket, _, name = uri.removeprefix("gs://").partition("/")
    return bucket, name


def upload_all(client: Storage, uris: list[str], folder: Path | None = None) -> list[str]:
    """Upload the archive of each URI (built in `folder`, the archive cache, by Check) unless its
    object already holds it; returns the URIs sent."""
    folder = folder or cache_dir()
    sent = []
    for uri in uris:
        bucket, name = split(uri)
        archive = folder / posixpath.basename(name)
        if not archive.is_file():
            raise JobError(f"{uri}: the archive {archive} is not there (Check builds it; was the "
                           "cache emptied meanwhile?): run `pulumi up` again")
        try:
            if ensure(client, bucket, name, archive):
                sent.append(uri)
        except ApiError as exc:
            hint = ("; does the staging bucket exist?" if exc.status == 404 else "")
            raise JobError(describe(exc, f"uploading {archive.name} to {uri}") + hint) from None
    return sent
