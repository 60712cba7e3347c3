"""A small REST client for Vertex AI CustomJobs and HyperparameterTuningJobs (aiplatform v1),
AI Platform Training Jobs (ml v1), and the Cloud Logging entries of their jobs (logging v2
``entries:list``).

The Pulumi dynamic providers are pickled into Pulumi state, so they build a `Client` inside each
call; a client holds no global state, and its credentials are built at its first request.

Environment (read when a client is built, only where the argument is None):
  TRAINSPEC_API_ENDPOINT      replaces every API host (the two job APIs and Cloud Logging), e.g.
                              ``http://127.0.0.1:8765`` (the emulator); http or https, an
                              optional path prefix, nothing else
  TRAINSPEC_ACCESS_TOKEN      bearer token; otherwise Application Default Credentials (ADC)
  TRAINSPEC_REQUEST_DEADLINE  seconds one call may take, retries and waits included (300)

How a call is sent (credentials, retries, the deadline) is `compiler.cloud.transport`; its
errors are `compiler.cloud.errors`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from compiler.cloud.errors import ApiError, ConfigError
from compiler.cloud.transport import Transport

__all__ = ["Client", "ApiError", "ConfigError", "CUSTOM_JOBS", "TUNING_JOBS"]

MAX_PAGES = 1000  # a server that keeps returning tokens must not loop us forever
CUSTOM_JOBS, TUNING_JOBS = "customJobs", "hyperparameterTuningJobs"  # Vertex job collections
_VERTEX_NAME = re.compile(r"^projects/[^/]+/locations/([^/]+)/"
                          r"(?:customJobs|hyperparameterTuningJobs)/[^/]+$")
_ML_NAME = re.compile(r"^projects/[^/]+/jobs/[^/]+\Z")


class Client(Transport):
    """Calls the two APIs and Cloud Logging; every method returns the parsed JSON response.
    Its arguments are `Transport`'s."""

    # --- Vertex AI CustomJob and HyperparameterTuningJob ---------------------------------------
    # `collection` is CUSTOM_JOBS or TUNING_JOBS; a job's name says which it is.

    def vertex_create(self, project: str, region: str, body: dict,
                      collection: str = CUSTOM_JOBS,
                      before_retry: Callable[[], dict | None] | None = None) -> dict:
        """Create a CustomJob (or HyperparameterTuningJob); the server assigns its name.
        `before_retry`: see `Transport._call` (the provider looks for its job again)."""
        parent = f"projects/{project}/locations/{region}"
        return self._call("POST", self._vertex_url(region, f"{parent}/{_collection(collection)}"),
                          json=body, idempotent=False, before_retry=before_retry)

    def vertex_get(self, name: str) -> dict:
        return self._call("GET", self._vertex_url(_region_of(name), name))

    def vertex_list(self, project: str, region: str, filter: str | None = None,
                    collection: str = CUSTOM_JOBS) -> dict:
        """All jobs of a collection in a location (every page), as ``{collection: [...]}``."""
        url = self._vertex_url(region, f"projects/{project}/locations/{region}/"
                                       f"{_collection(collection)}")
        return {collection: self._pages(url, collection, filter)}

    def vertex_cancel(self, name: str) -> dict:
        return self._call("POST", self._vertex_url(_region_of(name), f"{name}:cancel"), json={})

    def vertex_delete(self, name: str) -> dict:
        """Delete a job; returns the long-running Operation."""
        return self._call("DELETE", self._vertex_url(_region_of(name), name))

    # --- AI Platform Training Job (ml v1) --------------------------------------------------

    def ml_create(self, project: str, body: dict) -> dict:
        return self._call("POST", self._ml_url(f"projects/{project}/jobs"), json=body,
                          idempotent=False)

    def ml_get(self, name: str) -> dict:
        return self._call("GET", self._ml_url(_check_ml(name)))

    def ml_list(self, project: str, filter: str | None = None) -> dict:
        """All Jobs of a project (every page), as ``{"jobs": [...]}``."""
        return {"jobs": self._pages(self._ml_url(f"projects/{project}/jobs"), "jobs", filter)}

    def ml_cancel(self, name: str) -> dict:
        return self._call("POST", self._ml_url(f"{_check_ml(name)}:cancel"), json={})

    def ml_patch(self, name: str, body: dict, update_mask: str = "labels") -> dict:
        """Update a Job's labels; `body` carries ``labels`` and the ``etag`` last read."""
        return self._call("PATCH", self._ml_url(_check_ml(name)), json=body,
                          params={"updateMask": update_mask})

    # --- Cloud Logging (logging v2) ---------------------------------------------------------

    def log_entries(self, project: str, filter: str, *,
                    order_by: str = "timestamp asc") -> list[dict]:
        """Every ``entries:list`` entry of `project` matching `filter` (all pages, one deadline).

        A read (a POST only because the query is a body), so it is retried like any read.
        """
        url = f"{self.endpoint or 'https://logging.googleapis.com'}/v2/entries:list"
        until = self._monotonic() + self.deadline
        body: dict[str, Any] = {"resourceNames": [f"projects/{project}"], "filter": filter,
                                "orderBy": order_by, "pageSize": 1000}
        entries: list[dict] = []
        for _ in range(MAX_PAGES):
            page = self._call("POST", url, json=dict(body), until=until)
            entries.extend(page.get("entries", []))
            if not page.get("nextPageToken"):
                return entries
            body["pageToken"] = page["nextPageToken"]
        raise ApiError(None, f"more than {MAX_PAGES} pages", "INTERNAL", method="POST", url=url)

    # --- URLs and pages -------------------------------------------------------------------

    def _vertex_url(self, region: str, path: str) -> str:
        host = self.endpoint or f"https://{region}-aiplatform.googleapis.com"
        return f"{host}/v1/{path}"

    def _ml_url(self, path: str) -> str:
        return f"{self.endpoint or 'https://ml.googleapis.com'}/v1/{path}"

    def _pages(self, url: str, key: str, filter: str | None) -> list[dict]:
        until = self._monotonic() + self.deadline  # one deadline for all the pages
        items: list[dict] = []
        params: dict[str, str] = {"filter": filter} if filter else {}
        for _ in range(MAX_PAGES):
            page = self._call("GET", url, params=dict(params), until=until)
            items.extend(page.get(key, []))
            token = page.get("nextPageToken")
            if not token:
                return items
            params["pageToken"] = token
        raise ApiError(None, f"more than {MAX_PAGES} pages", "INTERNAL", method="GET", url=url)


def _region_of(name: str) -> str:
    match = _VERTEX_NAME.match(name)
    if not match:
        raise ValueError(f"not a CustomJob or HyperparameterTuningJob name: {name!r} (expected "
                         "projects/P/locations/R/customJobs/ID or .../hyperparameterTuningJobs/ID)")
    return match[1]


def _collection(collection: str) -> str:
    if collection not in (CUSTOM_JOBS, TUNING_JOBS):
        raise ValueError(f"not a Vertex job collection: {collection!r}")
    return collection


def _check_ml(name: str) -> str:
    if not _ML_NAME.match(name):
        raise ValueError(f"not an ml Job name: {name!r} (expected projects/P/jobs/ID)")
    return name
