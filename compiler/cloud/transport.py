"""How `compiler.cloud.rest.Client` sends a call: settings, credentials, retries, the deadline.

Auth, like pulumi-gcp: https requests (the Google hosts by default) go through google-auth's
``AuthorizedSession``, which refreshes the token on a 401 and sends ADC's quota project as
``x-goog-user-project``. The explicit token replaces ADC; `impersonate_service_account` wraps
either in impersonated credentials. Plain http gets no credentials at all: no Authorization
header, not even an explicit token, and ADC is never loaded.

Retries: reads, cancels and patches are retried on connection failures, timeouts and HTTP 429,
500, 502, 503 and 504. A 429 that names an allocation quota (`ApiError.quota_exceeded`: the
project's GPUs, CPUs or TPU cores in use, not a request rate) is final at once: retrying
cannot help until a job ends or the limit is raised. A create is not idempotent, so it is
retried only when the request certainly did not reach the server (connect-phase failure, a
rate-limit 429). Any other failure after it may
have been sent (connection closed before the response, read timeout, a body that is not JSON,
500/502/503/504) raises
`ApiError` with ``ambiguous=True``: the job may exist, and the caller looks it up by its labels.
A deadline bounds every call; past it, `ApiError` says DEADLINE_EXCEEDED.

`ApiError.not_found` is true only for the API's own NOT_FOUND (a google.rpc.Status body), not
for a 404 page from a wrong endpoint or path. Tokens never appear in error messages.
"""

from __future__ import annotations

import email.utils
import json as _json
import os
import random
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from compiler.cloud.errors import ApiError, ConfigError, response_error

SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# A 429 means the request was refused before any work; a 503 may come from a front end after
# the backend acted (google.rpc UNAVAILABLE: "not always safe to retry non-idempotent
# operations"), so for a create it is ambiguous like 500/502/504.
RETRY_STATUSES_CREATE = frozenset({429})
DEFAULT_DEADLINE = 300.0
MAX_DELAY = 32.0  # cap of one backoff step, seconds
MAX_RETRY_AFTER = 60.0  # a Retry-After above this is clipped, so a call cannot hang for hours
HEADERS = {"User-Agent": "trainspec/0.1"}


class Transport:
    """Sends one call with credentials, retries and a deadline; returns the parsed JSON.

    `session` replaces the HTTP session (tests): it is used as given, without credentials.
    `sleep` and `monotonic` are the clock, injectable so tests need not wait.
    """

    def __init__(self, endpoint: str | None = None, token: str | None = None, *,
                 impersonate_service_account: str | None = None, timeout: float = 30,
                 deadline: float | None = None, max_attempts: int = 6, backoff: float = 0.5,
                 sleep: Callable[[float], None] = time.sleep,
                 monotonic: Callable[[], float] = time.monotonic, session: Any = None):
        if endpoint is None:
            self.endpoint = _parse_endpoint(os.environ.get("TRAINSPEC_API_ENDPOINT"),
                                            "TRAINSPEC_API_ENDPOINT")
        else:
            self.endpoint = _parse_endpoint(endpoint, "endpoint")
        if token is None:
            token = os.environ.get("TRAINSPEC_ACCESS_TOKEN") or None
        token = (token or "").strip() or None  # a trailing newline from a file or `echo`
        if token and any(c.isspace() or not c.isprintable() for c in token):
            raise ConfigError("TRAINSPEC_ACCESS_TOKEN (or token): not a bearer token "
                              "(it contains spaces or control characters)")
        if deadline is None:
            raw = os.environ.get("TRAINSPEC_REQUEST_DEADLINE")
            self.deadline = _seconds(raw, "TRAINSPEC_REQUEST_DEADLINE") if raw else DEFAULT_DEADLINE
        else:
            self.deadline = _seconds(deadline, "deadline")
        self._token = token
        self.impersonate_service_account = impersonate_service_account or None
        # Any Google credential is a secret: never put one on the wire in clear text.
        self._plain_http = self.endpoint is not None and self.endpoint.startswith("http://")
        self.timeout = timeout
        self.max_attempts = max(1, max_attempts)
        self.backoff = backoff
        self._sleep = sleep
        self._monotonic = monotonic
        self._session = session
        self._credentials: list[Any] = []  # built with the session; their tokens are scrubbed

    def __repr__(self) -> str:
        return f"{type(self).__name__}(endpoint={self.endpoint!r})"

    def _call(self, method: str, url: str, *, json: Any = None, params: dict | None = None,
              idempotent: bool = True, until: float | None = None,
              data: tuple[bytes, str] | None = None,
              before_retry: Callable[[], dict | None] | None = None) -> dict:
        """`data`: a raw body instead of JSON, as (bytes, its Content-Type). `before_retry` runs
        before each attempt after the first; what it returns instead of None is the answer,
        and nothing more is sent (a create that finds its job already made)."""
        import requests  # noqa: PLC0415 - keep `import compiler` fast
        from google.auth.exceptions import GoogleAuthError  # noqa: PLC0415

        if until is None:
            until = self._monotonic() + self.deadline
        if json is not None:
            try:  # requests would raise InvalidJSONError mid-call; say why, send nothing
                _json.dumps(json, allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise ApiError(None, f"the request body is not JSON ({exc}); nothing was sent",
                               "INVALID_ARGUMENT", method=method, url=url) from None
        failure: ApiError | None = None
        for attempt in range(1, self.max_attempts + 1):
            last = attempt == self.max_attempts
            left = until - self._monotonic()
            if left <= 0:
                raise self._expired(method, url, failure)
            if before_retry is not None and attempt > 1:
                found = before_retry()
                if found is not None:
                    return found
            retry_after = None
            try:
                headers = dict(HEADERS, **({"Content-Type": data[1]} if data else {}))
                response = self._transport().request(
                    method, url, json=json, params=params, headers=headers,
                    **({"data": data[0]} if data else {}),
                    timeout=min(self.timeout, left), **self._auth_deadline(left))
                payload = response.json() if response.status_code < 300 and response.content \
                    else None
            except (requests.ConnectionError, requests.Timeout,
                    requests.exceptions.ChunkedEncodingError) as exc:
                failure = ApiError(None, self._scrub(f"{type(exc).__name__}: {exc}"),
                                   "UNAVAILABLE", method=method, url=url,
                                   ambiguous=not idempotent and not _never_sent(exc))
                expired = self._monotonic() >= until
                if expired or failure.ambiguous or last:
                    raise (self._expired(method, url, failure) if expired else failure) from exc
            except GoogleAuthError as exc:
                raise ApiError(None, self._scrub(f"credentials: {exc}"), "UNAUTHENTICATED",
                               method=method, url=url) from exc
            except (requests.RequestException, ValueError) as exc:
                # An answer that is not JSON, a header requests refuses, ...: one scrubbed line,
                # and for a create an unknown outcome (the server may have acted).
                raise ApiError(None, self._scrub(f"{type(exc).__name__}: {exc}"), "UNKNOWN",
                               method=method, url=url, ambiguous=not idempotent) from None
            else:
                if response.status_code < 300:
                    return payload if payload is not None else {}
                failure = response_error(method, url, response, idempotent, self._scrub)
                retry = RETRY_STATUSES if idempotent else RETRY_STATUSES_CREATE
                if response.status_code not in retry or last or failure.quota_exceeded:
                    raise failure
                retry_after = response.headers.get("Retry-After")
            delay = self._delay(attempt, retry_after)
            if self._monotonic() + delay >= until:  # no time left for another attempt
                raise self._expired(method, url, failure)
            self._sleep(delay)
        raise AssertionError("unreachable")

    def _auth_deadline(self, left: float) -> dict:
        """AuthorizedSession's own bound on token refreshes and retries within one request."""
        from google.auth.transport.requests import AuthorizedSession  # noqa: PLC0415

        return {"max_allowed_time": left} if isinstance(self._session, AuthorizedSession) else {}

    def _transport(self) -> Any:
        if self._session is None:
            import requests  # noqa: PLC0415

            self._session = requests.Session() if self._plain_http else self._authorized()
        return self._session

    def _authorized(self) -> Any:
        """An AuthorizedSession with the explicit token or ADC, impersonated if asked."""
        import google.auth  # noqa: PLC0415 - only https needs credentials
        from google.auth import impersonated_credentials, transport  # noqa: PLC0415
        from google.auth.transport.requests import AuthorizedSession  # noqa: PLC0415
        from google.oauth2.credentials import Credentials  # noqa: PLC0415

        if self._token:
            credentials = Credentials(self._token)
        else:
            credentials, _ = google.auth.default(scopes=SCOPES)
        self._credentials = [credentials]
        if self.impersonate_service_account:
            credentials = impersonated_credentials.Credentials(
                source_credentials=credentials, target_principal=self.impersonate_service_account,
                target_scopes=SCOPES, quota_project_id=getattr(credentials, "quota_project_id", None))
            self._credentials.append(credentials)
        # A bare token cannot be refreshed: its 401 is the answer, not a failed refresh.
        static = self._token and not self.impersonate_service_account
        return AuthorizedSession(credentials, refresh_status_codes=() if static else
                                 transport.DEFAULT_REFRESH_STATUS_CODES)

    def _expired(self, method: str, url: str, last: ApiError | None) -> ApiError:
        text = f"gave up at the deadline of {self.deadline:g} s"
        return ApiError(None, text + (f" (last: {last._summary()})" if last else ""),
                        "DEADLINE_EXCEEDED", method=method, url=url,
                        ambiguous=bool(last and last.ambiguous))

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        hinted = _parse_retry_after(retry_after)
        if hinted is not None:
            return min(hinted, MAX_RETRY_AFTER)
        # Exponential backoff with jitter, so many clients refused together do not retry in step.
        step = min(MAX_DELAY, self.backoff * 2 ** (attempt - 1))
        return step * (0.5 + random.random() / 2)

    def _scrub(self, text: str) -> str:
        for secret in (self._token, *(getattr(c, "token", None) for c in self._credentials)):
            if secret:
                text = text.replace(secret, "[redacted]")
        return text


def _parse_endpoint(raw: str | None, name: str) -> str | None:
    """``scheme://host[:port][/prefix]`` with a lowercase scheme and no trailing slash."""
    raw = (raw or "").strip()
    if not raw:
        return None
    # The value is never echoed: user info or a query could hold a secret.
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise ConfigError(f"{name}: not a valid URL (bad host or port)") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{name} must be an http:// or https:// URL with a host, e.g. "
                          f"http://127.0.0.1:8765 (got scheme {scheme or 'none'!r})")
    if "@" in parts.netloc or parts.query or parts.fragment or raw.endswith(("?", "#")):
        raise ConfigError(f"{name} must not contain user info, a query or a fragment")
    return f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def _seconds(value: Any, name: str) -> float:
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = 0.0
    if not seconds > 0 or seconds == float("inf"):
        raise ConfigError(f"{name} must be a positive number of seconds, not {value!r}")
    return seconds


def _never_sent(exc: BaseException) -> bool:
    """Whether a transport failure happened while connecting, before any byte of the request."""
    import requests  # noqa: PLC0415
    from urllib3.exceptions import ConnectTimeoutError  # noqa: PLC0415 - NewConnectionError too

    # requests wraps urllib3's MaxRetryError, whose `reason` is the failure itself.
    pending = [exc]
    for _ in range(20):  # a chain is a few links long; never loop on a cyclic one
        if not pending:
            break
        current = pending.pop()
        if isinstance(current, (requests.ConnectTimeout, ConnectTimeoutError)):
            return True
        links = (getattr(current, "reason", None), *current.args[:1], current.__cause__)
        pending += [link for link in links if isinstance(link, BaseException)]
    return False


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
