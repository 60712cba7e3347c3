"""compiler.cloud.rest.Client against a scripted fake session (no network)."""

import json

import pytest
import requests

from compiler.cloud import rest
from compiler.cloud.rest import ApiError, Client

TOKEN = "ya29.super-secret-token"
VERTEX_NAME = "projects/p/locations/europe-west4/customJobs/123"


class FakeResponse:
    def __init__(self, status=200, payload=None, headers=None, text=None):
        self.status_code = status
        self.headers = headers or {}
        self.text = text if text is not None else json.dumps(payload if payload is not None else {})
        self.content = self.text.encode()
        self.reason = "reason"

    def json(self):
        return json.loads(self.text)


class FakeSession:
    """Answers requests from a script; each entry is a FakeResponse or an exception."""

    def __init__(self, *script):
        self.script = list(script)
        self.calls = []

    def request(self, method, url, *, json=None, params=None, headers=None, timeout=None):
        self.calls.append({"method": method, "url": url, "json": json, "params": params,
                           "headers": headers, "timeout": timeout})
        item = self.script.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


def status_error(code, status, message, violations=()):
    error = {"code": code, "status": status, "message": message}
    if violations:
        error["details"] = [
            {"@type": "type.googleapis.com/google.rpc.DebugInfo", "detail": "x"},
            {"@type": "type.googleapis.com/google.rpc.BadRequest",
             "fieldViolations": [{"field": f, "description": d} for f, d in violations]}]
    return FakeResponse(code, {"error": error})


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    monkeypatch.delenv("TRAINSPEC_API_ENDPOINT", raising=False)
    monkeypatch.delenv("TRAINSPEC_ACCESS_TOKEN", raising=False)


def client(*script, **kwargs):
    sleeps = []
    session = FakeSession(*script)
    kwargs.setdefault("token", TOKEN)
    c = Client(session=session, sleep=sleeps.append, **kwargs)
    return c, session, sleeps


def test_default_hosts_are_regional_vertex_and_global_ml():
    c, session, _ = client(FakeResponse(200, {"name": VERTEX_NAME}), FakeResponse(200, {}),
                           FakeResponse(200, {"jobId": "j"}))
    c.vertex_create("p", "us-central1", {"displayName": "d"})
    c.vertex_get(VERTEX_NAME)
    c.ml_get("projects/p/jobs/j")
    urls = [call["url"] for call in session.calls]
    assert urls == [
        "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/"
        "customJobs",
        f"https://europe-west4-aiplatform.googleapis.com/v1/{VERTEX_NAME}",
        "https://ml.googleapis.com/v1/projects/p/jobs/j",
    ]
    assert session.calls[0]["json"] == {"displayName": "d"}
    assert session.calls[0]["headers"]["Authorization"] == f"Bearer {TOKEN}"


def test_endpoint_and_token_from_environment(monkeypatch):
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "http://127.0.0.1:9/")
    monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", "env-token")
    session = FakeSession(FakeResponse(), FakeResponse(), FakeResponse())
    c = Client(session=session)
    c.vertex_cancel(VERTEX_NAME)
    c.ml_cancel("projects/p/jobs/j")
    c.vertex_delete(VERTEX_NAME)
    assert [(k["method"], k["url"]) for k in session.calls] == [
        ("POST", f"http://127.0.0.1:9/v1/{VERTEX_NAME}:cancel"),
        ("POST", "http://127.0.0.1:9/v1/projects/p/jobs/j:cancel"),
        ("DELETE", f"http://127.0.0.1:9/v1/{VERTEX_NAME}"),
    ]
    assert all(k["headers"]["Authorization"] == "Bearer env-token" for k in session.calls)


def test_arguments_win_over_environment(monkeypatch):
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", "env-token")
    c, session, _ = client(FakeResponse(), endpoint="http://127.0.0.1:10", token="arg-token")
    c.ml_get("projects/p/jobs/j")
    assert session.calls[0]["url"].startswith("http://127.0.0.1:10/v1/")
    assert session.calls[0]["headers"]["Authorization"] == "Bearer arg-token"


def test_application_default_credentials_when_no_token(monkeypatch):
    import google.auth

    seen = {}

    class Credentials:
        token = None

        def refresh(self, request):
            seen["request"] = request
            self.token = "adc-token"

    def fake_default(scopes=None):
        seen["scopes"] = scopes
        return Credentials(), "project"

    monkeypatch.setattr(google.auth, "default", fake_default)
    session = FakeSession(FakeResponse(), FakeResponse())
    c = Client(session=session)
    c.ml_get("projects/p/jobs/j")
    c.ml_get("projects/p/jobs/j")
    assert seen["scopes"] == ["https://www.googleapis.com/auth/cloud-platform"]
    assert type(seen["request"]).__module__ == "google.auth.transport.requests"
    assert [k["headers"]["Authorization"] for k in session.calls] == ["Bearer adc-token"] * 2


def _forbid_adc(monkeypatch):
    import google.auth

    def fail(*args, **kwargs):
        raise AssertionError("ADC must not be fetched for a plain-http endpoint")

    monkeypatch.setattr(google.auth, "default", fail)


@pytest.mark.parametrize("via_env", [True, False])
def test_no_adc_token_is_sent_over_plain_http(monkeypatch, via_env):
    _forbid_adc(monkeypatch)
    session = FakeSession(FakeResponse(), FakeResponse())
    if via_env:
        monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "http://127.0.0.1:9")
        c = Client(session=session)
    else:
        c = Client("HTTP://127.0.0.1:9", session=session)
    c.ml_get("projects/p/jobs/j")
    c.vertex_create("p", "us-central1", {})
    assert [k["url"].lower().startswith("http://127.0.0.1:9/v1/") for k in session.calls] == \
        [True, True]
    assert all("Authorization" not in k["headers"] for k in session.calls)
    assert all(k["headers"]["User-Agent"] == "trainspec/0.1" for k in session.calls)


def test_an_explicit_token_is_still_sent_over_plain_http(monkeypatch):
    _forbid_adc(monkeypatch)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", "env-token")
    session = FakeSession(FakeResponse())
    Client(session=session).ml_get("projects/p/jobs/j")
    assert session.calls[0]["headers"]["Authorization"] == "Bearer env-token"


def test_https_custom_endpoints_keep_using_adc(monkeypatch):
    import google.auth

    class Credentials:
        token = None

        def refresh(self, request):
            self.token = "adc-token"

    monkeypatch.setattr(google.auth, "default", lambda scopes=None: (Credentials(), "p"))
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "https://aiplatform-psc.p.googleapis.com")
    session = FakeSession(FakeResponse())
    Client(session=session).vertex_get(VERTEX_NAME)
    assert session.calls[0]["url"] == f"https://aiplatform-psc.p.googleapis.com/v1/{VERTEX_NAME}"
    assert session.calls[0]["headers"]["Authorization"] == "Bearer adc-token"


def test_retries_transient_statuses_with_growing_backoff():
    c, session, sleeps = client(status_error(503, "UNAVAILABLE", "busy"),
                                status_error(429, "RESOURCE_EXHAUSTED", "quota"),
                                FakeResponse(502, text="<html>bad gateway</html>"),
                                FakeResponse(500, {}),
                                FakeResponse(200, {"jobId": "j"}), backoff=1.0)
    assert c.ml_get("projects/p/jobs/j") == {"jobId": "j"}
    assert len(session.calls) == 5
    # Jitter keeps each delay within [step/2, step] of 1, 2, 4, 8 seconds.
    for delay, step in zip(sleeps, [1, 2, 4, 8], strict=True):
        assert step / 2 <= delay <= step


def test_retry_after_is_honoured():
    c, _, sleeps = client(FakeResponse(429, {}, headers={"Retry-After": "7"}),
                          FakeResponse(503, {}, headers={"Retry-After": "100000"}),
                          FakeResponse(200, {}))
    c.ml_get("projects/p/jobs/j")
    assert sleeps == [7.0, rest.MAX_RETRY_AFTER]


def test_gives_up_after_max_attempts():
    script = [status_error(503, "UNAVAILABLE", "busy")] * 3
    c, session, sleeps = client(*script, max_attempts=3)
    with pytest.raises(ApiError) as info:
        c.vertex_get(VERTEX_NAME)
    assert (info.value.status, info.value.status_name, info.value.message) == \
        (503, "UNAVAILABLE", "busy")
    assert len(session.calls) == 3 and len(sleeps) == 2


@pytest.mark.parametrize("code", [400, 401, 403, 404, 409])
def test_no_retry_on_other_client_errors(code):
    c, session, sleeps = client(status_error(code, "X", "no"))
    with pytest.raises(ApiError) as info:
        c.ml_create("p", {"jobId": "j"})
    assert info.value.status == code and len(session.calls) == 1 and sleeps == []


def test_field_violations_are_parsed():
    c, _, _ = client(status_error(400, "INVALID_ARGUMENT", "Request contains an invalid argument.",
                                  [("job_spec.worker_pool_specs[0].machine_spec.machine_type",
                                    "Required.")]))
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "us-central1", {})
    error = info.value
    assert error.status_name == "INVALID_ARGUMENT"
    assert error.field_violations == [
        ("job_spec.worker_pool_specs[0].machine_spec.machine_type", "Required.")]
    assert "machine_spec.machine_type: Required." in str(error)


def test_non_json_error_body_still_gives_status_name():
    c, _, _ = client(FakeResponse(404, text="Not Found"))
    with pytest.raises(ApiError) as info:
        c.ml_get("projects/p/jobs/j")
    assert (info.value.status_name, info.value.message) == ("NOT_FOUND", "Not Found")


def test_connection_errors_are_retried():
    c, session, _ = client(requests.ConnectionError("refused"), requests.ConnectTimeout("slow"),
                           requests.ReadTimeout("slow"), FakeResponse(200, {"ok": True}))
    assert c.vertex_get(VERTEX_NAME) == {"ok": True}
    assert len(session.calls) == 4


def test_read_timeout_on_create_is_not_retried():
    # The job may have been created; a blind retry could start a second Vertex job.
    c, session, _ = client(requests.ReadTimeout("slow"), FakeResponse(200, {}))
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "us-central1", {"displayName": "d"})
    assert info.value.status is None and len(session.calls) == 1


def test_connection_failure_after_max_attempts():
    c, session, _ = client(*[requests.ConnectionError("refused")] * 2, max_attempts=2)
    with pytest.raises(ApiError) as info:
        c.ml_list("p")
    assert info.value.status is None and info.value.status_name == "UNAVAILABLE"
    assert isinstance(info.value.__cause__, requests.ConnectionError)


def test_token_never_appears_in_errors_or_repr():
    echo = status_error(401, "UNAUTHENTICATED", f"Bad credentials: Bearer {TOKEN}",
                        [("authorization", f"token {TOKEN} is expired")])
    c, _, _ = client(echo, requests.ConnectionError(f"failed with {TOKEN}"), max_attempts=1)
    with pytest.raises(ApiError) as info:
        c.ml_get("projects/p/jobs/j")
    with pytest.raises(ApiError) as info2:
        c.ml_get("projects/p/jobs/j")
    for text in (str(info.value), repr(info.value), info.value.message,
                 str(info.value.field_violations), str(info2.value), repr(c)):
        assert TOKEN not in text
    assert "[redacted]" in info.value.message


def test_lists_follow_page_tokens():
    c, session, _ = client(FakeResponse(200, {"customJobs": [{"n": 1}], "nextPageToken": "t1"}),
                           FakeResponse(200, {"customJobs": [{"n": 2}], "nextPageToken": "t2"}),
                           FakeResponse(200, {}))
    result = c.vertex_list("p", "us-central1", filter='labels.team="a"')
    assert result == {"customJobs": [{"n": 1}, {"n": 2}]}
    assert [k["params"] for k in session.calls] == [
        {"filter": 'labels.team="a"'},
        {"filter": 'labels.team="a"', "pageToken": "t1"},
        {"filter": 'labels.team="a"', "pageToken": "t2"},
    ]


def test_ml_patch_sends_update_mask_and_etag():
    c, session, _ = client(FakeResponse(200, {"jobId": "j", "labels": {"a": "b"}}))
    c.ml_patch("projects/p/jobs/j", {"labels": {"a": "b"}, "etag": "abc="})
    call = session.calls[0]
    assert (call["method"], call["params"], call["json"]) == \
        ("PATCH", {"updateMask": "labels"}, {"labels": {"a": "b"}, "etag": "abc="})


@pytest.mark.parametrize("call", [
    lambda c: c.vertex_get("projects/p/jobs/j"),
    lambda c: c.vertex_delete("customJobs/1"),
    lambda c: c.ml_get(VERTEX_NAME),
])
def test_malformed_names_are_refused_before_any_request(call):
    c, session, _ = client()
    with pytest.raises(ValueError):
        call(c)
    assert session.calls == []


@pytest.mark.parametrize("code", [500, 502, 504])
def test_create_is_not_retried_after_an_ambiguous_server_error(code):
    # The job may exist behind a 500/502/504; a blind retry could start a second Vertex job.
    c, session, _ = client(status_error(code, "INTERNAL", "oops"), FakeResponse(200, {}))
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "us-central1", {"displayName": "d"})
    assert info.value.status == code and len(session.calls) == 1


def test_create_is_retried_after_429_and_503():
    c, session, _ = client(status_error(429, "RESOURCE_EXHAUSTED", "quota"),
                           status_error(503, "UNAVAILABLE", "busy"), FakeResponse(200, {"name": "n"}))
    assert c.vertex_create("p", "us-central1", {"displayName": "d"}) == {"name": "n"}
    assert len(session.calls) == 3
