"""What the parts of the emulator share: the APIs' schema names and job states, the refusal
(a google.rpc.Status body), request-body parsing, and the API's spellings of times and etags."""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import re
from typing import Any

VERTEX_SCHEMA = "GoogleCloudAiplatformV1CustomJob"
TUNING_SCHEMA = "GoogleCloudAiplatformV1HyperparameterTuningJob"
# Vertex collection → (state key, create schema, resource type in messages)
COLLECTIONS = {"customJobs": ("vertex", VERTEX_SCHEMA, "CustomJob"),
               "hyperparameterTuningJobs": ("tuning", TUNING_SCHEMA, "HyperparameterTuningJob")}
ML_SCHEMA = "GoogleCloudMlV1__Job"
VERTEX_STEPS = ("JOB_STATE_QUEUED", "JOB_STATE_PENDING", "JOB_STATE_RUNNING",
                "JOB_STATE_SUCCEEDED")
ML_STEPS = ("QUEUED", "PREPARING", "RUNNING", "SUCCEEDED")
HOLD_LABEL, HOLD_VALUE = "emulator-hold", "running"
RESULT_LABEL, RESULT_FAILED = "emulator-result", "failed"
ML_JOB_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,127}\Z")
ID_BASE = 1_000_000_000_000_000_000  # Vertex job IDs are large decimal numbers
_BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"
SECTIONS = ("vertex", "tuning", "ml", "operations")
MAX_BODY_BYTES = 4 * 1024 * 1024  # a request body; a CustomJob is a few KiB
MAX_UPLOAD_BYTES = 256 * 1024 * 1024  # an uploaded object (Cloud Storage takes up to 5 TiB)
REQUEST_TIMEOUT = 30.0  # seconds a connection may stay silent (slow clients never hold a thread)


class Refusal(Exception):
    """A request the API refuses; renders as a google.rpc.Status body."""

    def __init__(self, code: int, status: str, message: str,
                 violations: list[tuple[str, str]] | None = None):
        super().__init__(message)
        self.code, self.status, self.message = code, status, message
        self.violations = violations or []

    def body(self) -> dict:
        error: dict[str, Any] = {"code": self.code, "message": self.message,
                                 "status": self.status}
        if self.violations:
            error["details"] = [{"@type": _BAD_REQUEST, "fieldViolations": [
                {"field": f, "description": d} for f, d in self.violations]}]
        return {"error": error}


def invalid(violations: list[tuple[str, str]]) -> Refusal:
    return Refusal(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", violations)


VERTEX_TERMINAL = frozenset({"JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED"})


MAX_JSON_DEPTH = 64  # deeper than any request body; like Google's frontends, refuse, don't recurse


def _not_json(constant: str) -> Any:
    # Python's json module reads NaN/Infinity; JSON (and Google's front ends) do not.
    raise ValueError(f"Unexpected token {constant!r}: not JSON")


def parse_body(body: bytes) -> dict:
    try:
        value = json.loads(body or b"{}", parse_constant=_not_json)
    except ValueError as exc:
        raise Refusal(400, "INVALID_ARGUMENT", f"Invalid JSON payload received. {exc}") from exc
    except RecursionError as exc:
        raise Refusal(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Nested too deeply.") \
            from exc
    if not isinstance(value, dict):
        raise Refusal(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Expected an object.")
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise Refusal(400, "INVALID_ARGUMENT", "Invalid JSON payload received. Nested too deeply.")
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return value


def web_access(name: str, tasks: list[str], region: str) -> dict[str, str]:
    """Interactive-shell URIs per replica (the real ones are opaque hosts per node)."""
    return {t: f"https://{hashlib.sha256(f'{name}/{t}'.encode()).hexdigest()[:16]}-dot-"
               f"{region}.aiplatform-training.googleusercontent.com" for t in tasks}


def etag(name: str, version: int) -> str:
    return base64.b64encode(hashlib.sha256(f"{name}#{version}".encode()).digest()[:9]).decode()


def rfc3339(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


