"""A small REST client for Vertex AI CustomJobs (aiplatform v1) and AI Platform Training Jobs
(ml v1).

The Pulumi dynamic providers are pickled into Pulumi state, so they build a `Client` inside each
call; a client holds no global state and nothing here caches credentials across clients.

Environment (read when a client is built, only where the argument is None):
  TRAINSPEC_API_ENDPOINT  replaces both API hosts, e.g. ``http://127.0.0.1:8765`` (the emulator)
  TRAINSPEC_ACCESS_TOKEN  bearer token; otherwise Application Default Credentials are used

A Google ADC token is never sent over plain http: with an ``http://`` endpoint and no explicit
token (argument or TRAINSPEC_ACCESS_TOKEN), requests carry no Authorization header at all (the
emulator accepts that). ``https://`` custom endpoints (e.g. Private Service Connect) use ADC.
"""

from __future__ import annotations

import email.utils
import os
import random
import re
import time
from collections.abc import Callable
from typing import Any

from compiler.diagnostics import TrainspecError

SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# A create may have taken effect behind a 500/502/504 (like a read timeout): only the statuses
# that mean "not processed" are retried for it.
RETRY_STATUSES_CREATE = frozenset({429, 503})
MAX_DELAY = 32.0  # cap of one backoff step, seconds
MAX_RETRY_AFTER = 60.0  # a Retry-After above this is clipped, so a call cannot hang for hours
MAX_PAGES = 1000  # a server that keeps returning tokens must not loop us forever

_HTTP_STATUS_NAMES = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
    409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL",
    501: "UNIMPLEMENTED", 502: "UNAVAILABLE", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}
_BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
_VERTEX_NAME = re.compile(r"^projects/[^/]+/locations/([^/]+)/customJobs/[^/]+$")
_ML_NAME = re.compile(r"^projects/[^/]+/jobs/[^/]+$")


class ApiError(TrainspecError):
    """A refusal by the API (or by the network, after retries), in google.rpc.Status terms."""

    def __init__(self, status: int | None, message: str, status_name: str | None = None,
                 field_violations: list[tuple[str, str]] | None = None, *,
                 method: str = "", url: str = ""):
        self.status = status
        self.message = message
        self.status_name = status_name
        self.field_violations = list(field_violations or [])
        self.method = method
        self.url = url
        super().__init__(self._text())

    def _text(self) -> str:
        code = f"HTTP {self.status}" if self.status is not None else "no response"
        text = f"{self.method} {self.url}: {code} {self.status_name or ''}".strip()
        text += f": {self.message}"
        for field, description in self.field_violations:
            text += f"\n  {field}: {description}"
        return text


class Client:
    """Calls the two APIs; every method returns the parsed JSON response."""

    def __init__(self, endpoint: str | None = None, token: str | None = None, *,
                 timeout: float = 30, max_attempts: int = 6, backoff: float = 0.5,
                 sleep: Callable[[float], None] = time.sleep, session: Any = None):
        if endpoint is None:
            endpoint = os.environ.get("TRAINSPEC_API_ENDPOINT") or None
        if token is None:
            token = os.environ.get("TRAINSPEC_ACCESS_TOKEN") or None
        self.endpoint = endpoint.rstrip("/") if endpoint else None
        self._token = token
        # An ADC token is a real Google credential: never put it on the wire in clear text.
        self._anonymous = token is None and bool(self.endpoint) and \
            self.endpoint.lower().startswith("http://")
        self.timeout = timeout
        self.max_attempts = max(1, max_attempts)
        self.backoff = backoff
        self._sleep = sleep
        self._session = session

    def __repr__(self) -> str:
        return f"Client(endpoint={self.endpoint!r})"

    # --- Vertex AI CustomJob -------------------------------------------------------------

    def vertex_create(self, project: str, region: str, body: dict) -> dict:
        """Create a CustomJob; the server assigns its name."""
        parent = f"projects/{project}/locations/{region}"
        return self._call("POST", self._vertex_url(region, f"{parent}/customJobs"), json=body,
                          idempotent=False)

    def vertex_get(self, name: str) -> dict:
        return self._call("GET", self._vertex_url(_region_of(name), name))

    def vertex_list(self, project: str, region: str, filter: str | None = None) -> dict:
        """All CustomJobs of a location (every page), as ``{"customJobs": [...]}``."""
        url = self._vertex_url(region, f"projects/{project}/locations/{region}/customJobs")
        return {"customJobs": self._pages(url, "customJobs", filter)}

    def vertex_cancel(self, name: str) -> dict:
        return self._call("POST", self._vertex_url(_region_of(name), f"{name}:cancel"), json={})

    def vertex_delete(self, name: str) -> dict:
        """Delete a CustomJob; returns the long-running Operation."""
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

    # --- plumbing -------------------------------------------------------------------------

    def _vertex_url(self, region: str, path: str) -> str:
        host = self.endpoint or f"https://{region}-aiplatform.googleapis.com"
        return f"{host}/v1/{path}"

    def _ml_url(self, path: str) -> str:
        return f"{self.endpoint or 'https://ml.googleapis.com'}/v1/{path}"

    def _pages(self, url: str, key: str, filter: str | None) -> list[dict]:
        items: list[dict] = []
        params: dict[str, str] = {"filter": filter} if filter else {}
        for _ in range(MAX_PAGES):
            page = self._call("GET", url, params=dict(params))
            items.extend(page.get(key, []))
            token = page.get("nextPageToken")
            if not token:
                return items
            params["pageToken"] = token
        raise ApiError(None, f"more than {MAX_PAGES} pages", "INTERNAL", method="GET", url=url)

    def _call(self, method: str, url: str, *, json: Any = None, params: dict | None = None,
              idempotent: bool = True) -> dict:
        import requests  # noqa: PLC0415 - keep `import compiler` fast

        if self._session is None:
            self._session = requests.Session()
        headers = {"User-Agent": "trainspec/0.1"}
        if not self._anonymous:
            headers["Authorization"] = f"Bearer {self._access_token()}"
        for attempt in range(1, self.max_attempts + 1):
            last = attempt == self.max_attempts
            try:
                response = self._session.request(method, url, json=json, params=params,
                                            headers=headers, timeout=self.timeout)
            except (requests.ConnectionError, requests.Timeout) as exc:
                # A read timeout on a create is ambiguous (the job may exist): retrying a Vertex
                # create could start a second job, so only connect-phase failures are retried.
                ambiguous = isinstance(exc, requests.ReadTimeout) and not idempotent
                if last or ambiguous:
                    raise ApiError(None, self._scrub(f"{type(exc).__name__}: {exc}"),
                                   "UNAVAILABLE", method=method, url=url) from exc
                self._sleep(self._delay(attempt, None))
                continue
            if response.status_code < 300:
                return response.json() if response.content else {}
            retry = RETRY_STATUSES if idempotent else RETRY_STATUSES_CREATE
            if response.status_code not in retry or last:
                raise self._error(method, url, response)
            self._sleep(self._delay(attempt, response.headers.get("Retry-After")))
        raise AssertionError("unreachable")

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        hinted = _parse_retry_after(retry_after)
        if hinted is not None:
            return min(hinted, MAX_RETRY_AFTER)
        # Exponential backoff with jitter, so many clients refused together do not retry in step.
        step = min(MAX_DELAY, self.backoff * 2 ** (attempt - 1))
        return step * (0.5 + random.random() / 2)

    def _access_token(self) -> str:
        if self._token is None:
            import google.auth  # noqa: PLC0415 - only needed without an explicit token
            import google.auth.transport.requests  # noqa: PLC0415

            credentials, _ = google.auth.default(scopes=SCOPES)
            credentials.refresh(google.auth.transport.requests.Request())
            self._token = credentials.token
        return self._token

    def _scrub(self, text: str) -> str:
        return text.replace(self._token, "[redacted]") if self._token else text

    def _error(self, method: str, url: str, response: Any) -> ApiError:
        status = response.status_code
        try:
            payload = response.json()
        except ValueError:
            payload = {}
        error = payload.get("error") if isinstance(payload, dict) else None
        if not isinstance(error, dict):
            error = {"message": str(error)} if error else {}
        message = error.get("message") or response.text[:500] or response.reason or ""
        violations = [
            (v.get("field", ""), self._scrub(v.get("description", "")))
            for detail in error.get("details", []) or []
            if isinstance(detail, dict) and detail.get("@type") == _BAD_REQUEST
            for v in detail.get("fieldViolations", []) or []
        ]
        return ApiError(status, self._scrub(str(message)),
                        error.get("status") or _HTTP_STATUS_NAMES.get(status), violations,
                        method=method, url=url)


def _region_of(name: str) -> str:
    match = _VERTEX_NAME.match(name)
    if not match:
        raise ValueError(f"not a CustomJob name: {name!r} "
                         "(expected projects/P/locations/R/customJobs/ID)")
    return match[1]


def _check_ml(name: str) -> str:
    if not _ML_NAME.match(name):
        raise ValueError(f"not an ml Job name: {name!r} (expected projects/P/jobs/ID)")
    return name


def _parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
