"""The Cloud Storage routes of the emulator: what the provider's python.source upload calls.

  GET  /storage/v1/b/BUCKET/o/OBJECT                  objects.get (metadata)
  POST /upload/storage/v1/b/BUCKET/o?uploadType=media&name=OBJECT[&ifGenerationMatch=N]
                                                      objects.insert, a simple upload

Buckets are not created through the API: they exist when the emulator is started with them
(``--bucket NAME``, `Emulator(buckets=...)`). What Cloud Storage refuses is refused: a missing
bucket or object is a 404 (``reason: notFound``), a missing `name` a 400, an unmet
`ifGenerationMatch` a 412 (``conditionNotMet``). Errors have the JSON API's shape
(``{"error": {"code", "message", "errors": [{"domain", "reason", "message"}]}}``), not
google.rpc.Status. Only the metadata of an object is kept (its bytes are hashed, not stored),
so media downloads (`alt=media`) and other upload types answer 501.
"""

from __future__ import annotations

import base64
import hashlib

from .common import Refusal, rfc3339


class StorageRefusal(Refusal):
    """A refusal in the Cloud Storage JSON API's error shape."""

    def __init__(self, code: int, reason: str, message: str):
        super().__init__(code, reason, message)
        self.reason = reason

    def body(self) -> dict:
        return {"error": {"code": self.code, "message": self.message, "errors": [
            {"domain": "global", "reason": self.reason, "message": self.message}]}}


class StorageApi:
    """objects.get and objects.insert (part of `Emulator`); state["buckets"], state["objects"]."""

    def add_bucket(self, name: str) -> None:
        """Make bucket `name` exist (kept in --state, like the jobs)."""
        with self._lock:
            if name in self.state["buckets"]:
                return
            self.state["buckets"][name] = {"name": name, "timeCreated": rfc3339(self.clock())}
            self._save(("buckets", name))

    def _object_get(self, m, query, body) -> dict:
        if "alt" in query and query["alt"] != ["json"]:
            raise StorageRefusal(501, "notImplemented", "The emulator keeps object metadata "
                                 "only: alt=media is not served.")
        self._bucket(m["b"])
        found = self.state["objects"].get(f"{m['b']}/{m['o']}")
        if found is None:
            raise StorageRefusal(404, "notFound", f"No such object: {m['b']}/{m['o']}")
        return found

    def _object_insert(self, m, query, body) -> dict:
        if query.get("uploadType") != ["media"]:
            raise StorageRefusal(501, "notImplemented", "The emulator serves uploadType=media "
                                 "only.")
        name = (query.get("name") or [""])[0]
        if not name:
            raise StorageRefusal(400, "required", "Required")
        self._bucket(m["b"])
        key = f"{m['b']}/{name}"
        old = self.state["objects"].get(key)
        wanted = (query.get("ifGenerationMatch") or [None])[0]
        if wanted is not None:
            if not wanted.isdigit():
                raise StorageRefusal(400, "invalid", f"Invalid value for ifGenerationMatch: "
                                     f"{wanted}")
            if int(wanted) != (int(old["generation"]) if old else 0):
                raise StorageRefusal(412, "conditionNotMet", "At least one of the "
                                     "pre-conditions you specified did not hold.")
        # A generation is the write's time in microseconds, as Cloud Storage's are (and later
        # than the one it replaces); job ids are not touched.
        generation = max(int(self.clock() * 1_000_000), int(old["generation"]) + 1 if old else 1)
        now = rfc3339(self.clock())
        obj = {
            "kind": "storage#object", "id": f"{key}/{generation}",
            "name": name, "bucket": m["b"], "generation": str(generation),
            "metageneration": "1", "contentType": (query.get("contentType") or [
                self._content_type or "application/octet-stream"])[0],
            "size": str(len(body)),
            "md5Hash": base64.b64encode(hashlib.md5(body).digest()).decode(),  # noqa: S324
            "timeCreated": old["timeCreated"] if old else now, "updated": now,
        }
        self.state["objects"][key] = obj
        self._save(("objects", key))
        return obj

    def _bucket(self, name: str) -> None:
        if name not in self.state["buckets"]:
            raise StorageRefusal(404, "notFound", "The specified bucket does not exist.")
