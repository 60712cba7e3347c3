"""The REST client's errors, in google.rpc.Status terms, and how an HTTP answer becomes one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compiler.diagnostics import TrainspecError

DEFINITE_5XX = frozenset({501})  # UNIMPLEMENTED: nothing was done
_HTTP_STATUS_NAMES = {
    400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
    409: "ABORTED", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL",
    501: "UNIMPLEMENTED", 502: "UNAVAILABLE", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}
_BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


class ConfigError(TrainspecError, ValueError):
    """An unusable client setting (endpoint, deadline), naming the variable or argument."""


class ApiError(TrainspecError):
    """A refusal by the API (or by the network, after retries), in google.rpc.Status terms.

    `ambiguous`: a create failed after it may have reached the server, so the job may exist.
    `body_status`: the ``status`` of a google.rpc.Status body, None if the body was not one.
    """

    def __init__(self, status: int | None, message: str, status_name: str | None = None,
                 field_violations: list[tuple[str, str]] | None = None, *,
                 method: str = "", url: str = "", ambiguous: bool = False,
                 body_status: str | None = None):
        self.status = status
        self.message = message
        self.status_name = status_name
        self.field_violations = list(field_violations or [])
        self.method = method
        self.url = url
        self.ambiguous = ambiguous
        self.body_status = body_status
        super().__init__(self._text())

    @property
    def not_found(self) -> bool:
        """The API's own NOT_FOUND: the resource is gone (not a wrong endpoint or path)."""
        return self.status == 404 and self.body_status == "NOT_FOUND"

    def _summary(self) -> str:
        code = f"HTTP {self.status}" if self.status is not None else "no response"
        return f"{code} {self.status_name or ''}".strip() + f": {self.message}"

    def _text(self) -> str:
        text = f"{self.method} {self.url}: {self._summary()}"
        for field, description in self.field_violations:
            text += f"\n  {field}: {description}"
        return text


def response_error(method: str, url: str, response: Any, idempotent: bool,
                   scrub: Callable[[str], str]) -> ApiError:
    """The ApiError of an HTTP answer that is not a success; `scrub` hides credentials in the
    texts it quotes."""
    status = response.status_code
    try:
        payload = response.json()
    except ValueError:
        payload = {}
    error = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(error, dict):
        error = {"message": str(error)} if error else {}
    body_status = error.get("status") if error.get("code") == status else None
    if body_status is None and error.get("code") == status == 404 and any(
            isinstance(e, dict) and e.get("reason") == "notFound" for e in error.get("errors") or []):
        body_status = "NOT_FOUND"  # Cloud Storage's JSON API says it as errors[].reason
    if "html" in response.headers.get("Content-Type", "") and not error:
        message = f"{response.reason}: an HTML page, not an API answer (wrong endpoint?)"
    else:
        message = error.get("message") or response.text[:500] or response.reason or ""
    violations = [
        (v.get("field", ""), scrub(v.get("description", "")))
        for detail in error.get("details", []) or []
        if isinstance(detail, dict) and detail.get("@type") == _BAD_REQUEST
        for v in detail.get("fieldViolations", []) or []
    ]
    return ApiError(status, scrub(str(message)),
                    error.get("status") or _HTTP_STATUS_NAMES.get(status), violations,
                    method=method, url=url, body_status=body_status,
                    ambiguous=not idempotent and status >= 500 and status not in DEFINITE_5XX)
