"""The REST client's errors, in google.rpc.Status terms, and how an HTTP answer becomes one."""

from __future__ import annotations

import re
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
_QUOTA_FAILURE = "type.googleapis.com/google.rpc.QuotaFailure"
# An allocation quota (what running jobs hold at once) refusing a create, as aiplatform v1 says
# it: `429 RESOURCE_EXHAUSTED "The following quota metrics exceed quota limits:
# aiplatform.googleapis.com/custom_model_training_nvidia_l4_gpus"` (no details; bodies quoted in
# GoogleCloudPlatform/stable-diffusion-on-gcp#12, vertex-ai-samples#700 and #3479). A rate
# limit says "Quota exceeded for quota metric '...' and limit '... per minute ...'" instead.
_ALLOCATION = re.compile(r"quota metrics exceed quota limits:\s*(?P<metrics>[\w./, -]+)")
# ml v1 says it with a google.rpc.QuotaFailure: "The request for 2 K80 accelerators exceeds the
# allowed maximum of 0 A100, ..." (training-data-analyst#2284).
_ML_ALLOCATION = "exceeds the allowed maximum"


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
                 body_status: str | None = None, quota_violations: list[str] | None = None):
        self.status = status
        self.message = message
        self.status_name = status_name
        self.field_violations = list(field_violations or [])
        self.method = method
        self.url = url
        self.ambiguous = ambiguous
        self.body_status = body_status
        self.quota_violations = list(quota_violations or [])
        super().__init__(self._text())

    @property
    def quota_metrics(self) -> list[str]:
        """The allocation-quota metrics a 429 names (``aiplatform.googleapis.com/...``)."""
        if self.status != 429:
            return []
        match = _ALLOCATION.search(self.message)
        names = re.split(r"[,\s]+", match["metrics"]) if match else []
        return [n.rstrip(".") for n in names if "/" in n]

    @property
    def quota_exceeded(self) -> bool:
        """A 429 that says an allocation quota is used up: no retry can succeed until a job
        ends or the limit is raised (a rate limit, which waiting cures, is not one)."""
        return self.status == 429 and bool(
            self.quota_metrics or any(_ML_ALLOCATION in v for v in self.quota_violations))

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
    quota = [scrub(str(v.get("description", "")))
             for detail in error.get("details", []) or []
             if isinstance(detail, dict) and detail.get("@type") == _QUOTA_FAILURE
             for v in detail.get("violations", []) or [] if isinstance(v, dict)]
    return ApiError(status, scrub(str(message)),
                    error.get("status") or _HTTP_STATUS_NAMES.get(status), violations,
                    method=method, url=url, body_status=body_status, quota_violations=quota,
                    ambiguous=not idempotent and status >= 500 and status not in DEFINITE_5XX)
