"""Cloud Storage (JSON API v1): the two calls the provider's `python.source` upload needs, and
the upload itself.

  GET  /storage/v1/b/BUCKET/o/OBJECT                                  the object's metadata
  POST /upload/storage/v1/b/BUCKET/o?uploadType=media&name=OBJECT     a simple upload

Both go through `Transport` (credentials, retries, the deadline; TRAINSPEC_API_ENDPOINT replaces
the host, so the emulator serves them too). Every upload carries an `ifGenerationMatch`
precondition, which makes it safe to retry (Google's retry strategy for Cloud Storage) and
means a concurrent writer is never overwritten silently: a new object is written only if none
exists (generation 0), a replaced one only if it is still the generation read.

References: https://cloud.google.com/storage/docs/json_api/v1/objects/get,
https://cloud.google.com/storage/docs/json_api/v1/objects/insert,
https://cloud.google.com/storage/docs/retry-strategy (preconditions make an insert idempotent).
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from urllib.parse import quote

from compiler.cloud.errors import ApiError
from compiler.cloud.transport import Transport

GOOGLE_HOST = "https://storage.googleapis.com"
CONTENT_TYPE = "application/gzip"


class Storage(Transport):
    """Object metadata and simple uploads; arguments are `Transport`'s."""

    def object_get(self, bucket: str, name: str) -> dict | None:
        """The object's metadata, or None if the API says there is no such object."""
        try:
            return self._call("GET", f"{self._host()}/storage/v1/b/{_part(bucket)}/o/{_part(name)}")
        except ApiError as exc:
            if exc.not_found:
                return None
            raise

    def object_insert(self, bucket: str, name: str, data: bytes, *, if_generation_match: int,
                      content_type: str = CONTENT_TYPE) -> dict:
        """Write `data` as the object, if its generation is `if_generation_match` (0: none)."""
        return self._call("POST", f"{self._host()}/upload/storage/v1/b/{_part(bucket)}/o",
                          params={"uploadType": "media", "name": name,
                                  "ifGenerationMatch": str(if_generation_match)},
                          data=(data, content_type))

    def _host(self) -> str:
        return self.endpoint or GOOGLE_HOST


def md5_hash(data: bytes) -> str:
    """An object's `md5Hash` as the API shows it: the base64 of the MD5 digest."""
    return base64.b64encode(hashlib.md5(data).digest()).decode()  # noqa: S324 - GCS's checksum


def ensure(client: Storage, bucket: str, name: str, archive: Path) -> bool:
    """Make gs://bucket/name hold the bytes of `archive`; True if they were uploaded.

    The name is content-addressed (it holds the sha256 of the archive's tar stream), so an
    object that exists with the same md5Hash is this archive: nothing is sent. One that exists
    with other bytes (a partial or foreign write, or the same tree compressed by another zlib)
    is replaced, at the generation read, so the job runs the code its request names; the
    archive's files are the ones its name says either way. Objects are never deleted here.
    """
    data = archive.read_bytes()
    found = client.object_get(bucket, name)
    if found is not None and found.get("md5Hash") == md5_hash(data):
        return False
    generation = int(found.get("generation", 0)) if found is not None else 0
    try:
        client.object_insert(bucket, name, data, if_generation_match=generation)
    except ApiError as exc:
        if exc.status == 412:  # written by someone else since we looked: look again
            again = client.object_get(bucket, name)
            if again is not None and again.get("md5Hash") == md5_hash(data):
                return False
        raise
    return True


def _part(text: str) -> str:
    """A bucket or object name as one URL path segment (an object's `/` too)."""
    return quote(text, safe="")
