"""compiler.cloud.rest.Client against a scripted fake session, or a fake wire under requests'
transport adapter where the real AuthorizedSession must run (no network)."""

import http.client
import json

import google.auth
import google.auth.credentials
import pytest
import requests
from urllib3.exceptions import MaxRetryError, NewConnectionError, ProtocolError

from compiler.cloud import transport
from compiler.cloud.rest import ApiError, Client, ConfigError

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
        if callable(item):
            item = item()
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


# Transport failures as requests raises them: before the connection exists, and after the
# request went out (the server may have acted).
def refused():
    return requests.ConnectionError(MaxRetryError(None, "/v1", NewConnectionError(
        None, "Failed to establish a new connection: [Errno 111] Connection refused")))


def closed_before_response():
    return requests.ConnectionError(ProtocolError("Connection aborted.", http.client.RemoteDisconnected(
        "Remote end closed connection without response")))


def reset_before_response():
    return requests.ConnectionError(ProtocolError("Connection aborted.", ConnectionResetError(
        104, "Connection reset by peer")))


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("TRAINSPEC_API_ENDPOINT", "TRAINSPEC_ACCESS_TOKEN", "TRAINSPEC_REQUEST_DEADLINE"):
        monkeypatch.delenv(name, raising=False)


def client(*script, **kwargs):
    sleeps = []
    session = FakeSession(*script)
    kwargs.setdefault("token", TOKEN)
    c = Client(session=session, sleep=sleeps.append, **kwargs)
    return c, session, sleeps


class Wire:
    """Stands in for requests' HTTPAdapter.send: sees exactly what would go on the wire."""

    def __init__(self, monkeypatch, *answers):
        self.answers = list(answers)  # (status, JSON body), in order
        self.sent = []
        monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", self._send)

    def _send(self, request, **kwargs):
        if request.url.endswith("/allowedLocations"):
            # google-auth's background Regional Access Boundary lookup (impersonation): not ours.
            status, body = 404, {}
        else:
            self.sent.append(request)
            status, body = self.answers.pop(0)
        response = requests.Response()
        response.status_code, response.url, response.request = status, request.url, request
        response.headers["Content-Type"] = "application/json"
        response._content = json.dumps(body).encode()
        return response

    def auth(self):
        return [r.headers.get("Authorization") for r in self.sent]


class FakeAdc(google.auth.credentials.Credentials):
    """ADC whose every refresh mints a new token; carries a quota project like a user ADC file."""

    def __init__(self, quota_project=None):
        super().__init__()
        self.refreshes = 0
        self._quota_project_id = quota_project

    def refresh(self, request):
        self.refreshes += 1
        self.token = f"adc-token-{self.refreshes}"


def _adc(monkeypatch, credentials):
    calls = []

    def default(scopes=None):
        calls.append(scopes)
        return credentials, "adc-project"

    monkeypatch.setattr(google.auth, "default", default)
    return calls


def _forbid_adc(monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("ADC must not be loaded here")

    monkeypatch.setattr(google.auth, "default", fail)


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


def test_https_uses_adc_through_an_authorized_session(monkeypatch):
    adc = FakeAdc(quota_project="billing-project")
    calls = _adc(monkeypatch, adc)
    wire = Wire(monkeypatch, (401, {"error": {"code": 401, "status": "UNAUTHENTICATED"}}),
                (200, {"jobId": "j"}), (200, {}))
    c = Client()
    assert calls == []  # credentials are built at the first request, not before
    assert c.ml_get("projects/p/jobs/j") == {"jobId": "j"}
    c.ml_get("projects/p/jobs/j")
    assert calls == [transport.SCOPES]  # once per client
    assert wire.sent[0].url == "https://ml.googleapis.com/v1/projects/p/jobs/j"
    # The 401 made the session refresh the token and send the request again.
    assert wire.auth() == ["Bearer adc-token-1", "Bearer adc-token-2", "Bearer adc-token-2"]
    assert {r.headers.get("x-goog-user-project") for r in wire.sent} == {"billing-project"}


def test_https_custom_endpoints_use_adc_too(monkeypatch):
    _adc(monkeypatch, FakeAdc())
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "https://aiplatform-psc.p.googleapis.com/")
    wire = Wire(monkeypatch, (200, {}))
    Client().vertex_get(VERTEX_NAME)
    assert wire.sent[0].url == f"https://aiplatform-psc.p.googleapis.com/v1/{VERTEX_NAME}"
    assert wire.auth() == ["Bearer adc-token-1"]
    assert "x-goog-user-project" not in wire.sent[0].headers


def test_an_explicit_token_replaces_adc_and_arguments_win(monkeypatch):
    _forbid_adc(monkeypatch)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "https://env.example.com")
    monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", "env-token")
    wire = Wire(monkeypatch, (200, {}), (200, {}), (401, {"error": {"message": "expired"}}))
    Client().ml_get("projects/p/jobs/j")
    c = Client("https://arg.example.com", "arg-token")
    c.ml_get("projects/p/jobs/j")
    # A bare token cannot be refreshed: the 401 is the answer.
    with pytest.raises(ApiError) as info:
        c.ml_get("projects/p/jobs/j")
    assert (info.value.status, info.value.message) == (401, "expired")
    assert [r.url.split("/v1/")[0] for r in wire.sent] == \
        ["https://env.example.com", "https://arg.example.com", "https://arg.example.com"]
    assert wire.auth() == ["Bearer env-token", "Bearer arg-token", "Bearer arg-token"]


@pytest.mark.parametrize("source", ["adc", "token"])
def test_impersonation_wraps_the_source_credentials(monkeypatch, source):
    if source == "adc":
        _adc(monkeypatch, FakeAdc(quota_project="billing-project"))
        source_token = "adc-token-1"
    else:
        _forbid_adc(monkeypatch)
        monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", source_token := "user-token")
    sa = "deployer@p.iam.gserviceaccount.com"
    wire = Wire(monkeypatch,
                (200, {"accessToken": "impersonated-token", "expireTime": "2099-01-01T00:00:00Z"}),
                (200, {"jobId": "j"}))
    Client(impersonate_service_account=sa).ml_get("projects/p/jobs/j")
    iam, api = wire.sent
    assert iam.url == ("https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/"
                       f"{sa}:generateAccessToken")
    assert iam.headers["Authorization"] == f"Bearer {source_token}"
    assert json.loads(iam.body)["scope"] == transport.SCOPES
    assert api.headers["Authorization"] == "Bearer impersonated-token"
    assert api.headers.get("x-goog-user-project") == \
        ("billing-project" if source == "adc" else None)


def test_credential_failures_are_api_errors_without_secrets(monkeypatch):
    monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", TOKEN)
    wire = Wire(monkeypatch, (403, {"error": {"message": f"caller {TOKEN} may not act as x"}}))
    with pytest.raises(ApiError) as info:
        Client(impersonate_service_account="x@p.iam.gserviceaccount.com").ml_get(
            "projects/p/jobs/j")
    assert info.value.status_name == "UNAUTHENTICATED" and len(wire.sent) == 1
    assert TOKEN not in str(info.value) and "[redacted]" in str(info.value)


def test_an_adc_token_echoed_by_the_server_is_scrubbed(monkeypatch):
    _adc(monkeypatch, FakeAdc())
    Wire(monkeypatch, (400, {"error": {"message": "bad header Bearer adc-token-1"}}))
    with pytest.raises(ApiError) as info:
        Client().ml_get("projects/p/jobs/j")
    assert "adc-token-1" not in str(info.value)


@pytest.mark.parametrize("endpoint", [
    "http://127.0.0.1:9", " http://127.0.0.1:9 ", "HTTP://127.0.0.1:9/", "\thttp://127.0.0.1:9\n"])
@pytest.mark.parametrize("via_env", [True, False])
def test_nothing_secret_is_sent_over_plain_http(monkeypatch, endpoint, via_env):
    _forbid_adc(monkeypatch)
    monkeypatch.setenv("TRAINSPEC_ACCESS_TOKEN", "env-token")  # not even an explicit token
    wire = Wire(monkeypatch, (200, {}), (200, {}))
    if via_env:
        monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", endpoint)
        c = Client()
    else:
        c = Client(endpoint, token="arg-token")
    c.ml_get("projects/p/jobs/j")
    c.vertex_create("p", "us-central1", {})
    assert [r.url for r in wire.sent] == [
        "http://127.0.0.1:9/v1/projects/p/jobs/j",
        "http://127.0.0.1:9/v1/projects/p/locations/us-central1/customJobs"]
    assert wire.auth() == [None, None]
    assert all(r.headers["User-Agent"] == "trainspec/0.1" for r in wire.sent)


def test_an_injected_session_gets_no_token_over_plain_http(monkeypatch):
    _forbid_adc(monkeypatch)
    monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", "http://127.0.0.1:9")
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
    assert all("Authorization" not in k["headers"] for k in session.calls)


@pytest.mark.parametrize("raw,normal", [
    ("http://127.0.0.1:9", "http://127.0.0.1:9"),
    ("  https://psc.example.com/  ", "https://psc.example.com"),
    ("HTTPS://psc.example.com:443/prefix/", "https://psc.example.com:443/prefix"),
    ("http://[::1]:8765/a/b", "http://[::1]:8765/a/b"),
    ("", None),
    ("   ", None),
])
def test_endpoints_are_normalised(raw, normal):
    assert Client(raw).endpoint == normal


@pytest.mark.parametrize("raw", [
    "ftp://127.0.0.1:9", "127.0.0.1:9", "localhost:8765", "//127.0.0.1:9", "http://",
    "http://user:s3cret@127.0.0.1:9", "http://@127.0.0.1:9", "http://127.0.0.1:9/?key=s3cret",
    "http://127.0.0.1:9?", "http://127.0.0.1:9/#s3cret", "http://127.0.0.1:s3cret",
    "http://127.0.0.1:99999",
])
@pytest.mark.parametrize("via_env", [True, False])
def test_unusable_endpoints_are_refused_by_name(monkeypatch, raw, via_env):
    if via_env:
        monkeypatch.setenv("TRAINSPEC_API_ENDPOINT", raw)
    with pytest.raises(ConfigError) as info:
        Client() if via_env else Client(raw)
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith("TRAINSPEC_API_ENDPOINT" if via_env else "endpoint")
    assert "s3cret" not in str(info.value)


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
    assert sleeps == [7.0, transport.MAX_RETRY_AFTER]


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
    assert info.value.ambiguous is False  # a definite refusal: no job was created


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
    assert info.value.not_found is False  # not the API speaking: maybe a wrong path


@pytest.mark.parametrize("response,gone", [
    (status_error(404, "NOT_FOUND", "The job does not exist."), True),
    (FakeResponse(404, text="<!DOCTYPE html><title>Error 404 (Not Found)!!1</title>",
                  headers={"Content-Type": "text/html; charset=UTF-8"}), False),
    (FakeResponse(404, text="Not Found"), False),
    (FakeResponse(404, {"error": {"message": "no such thing"}}), False),
    (FakeResponse(404, {"error": {"code": 404, "message": "x"}}), False),
    (FakeResponse(404, {"error": {"code": 400, "status": "NOT_FOUND"}}), False),
    (FakeResponse(404, {}), False),
    (status_error(400, "NOT_FOUND", "odd"), False),
    (status_error(403, "PERMISSION_DENIED", "denied"), False),
])
def test_only_the_apis_own_not_found_means_gone(response, gone):
    c, _, _ = client(response)
    with pytest.raises(ApiError) as info:
        c.vertex_get(VERTEX_NAME)
    assert info.value.not_found is gone
    if info.value.status == 404:
        assert info.value.status_name == "NOT_FOUND"  # still named after the HTTP code


def test_an_html_page_is_reported_as_such():
    c, _, _ = client(FakeResponse(404, text="<!DOCTYPE html>" + "x" * 2000,
                                  headers={"Content-Type": "text/html"}))
    with pytest.raises(ApiError) as info:
        c.vertex_get(VERTEX_NAME)
    assert "HTML page" in info.value.message and "x" * 10 not in info.value.message


def test_connection_errors_are_retried_for_reads():
    c, session, _ = client(refused(), requests.ConnectTimeout("slow"), closed_before_response(),
                           reset_before_response(), requests.ReadTimeout("slow"),
                           requests.ConnectionError("?"), FakeResponse(200, {"ok": True}),
                           max_attempts=7)
    assert c.vertex_get(VERTEX_NAME) == {"ok": True}
    assert len(session.calls) == 7


@pytest.mark.parametrize("create", [
    lambda c: c.vertex_create("p", "us-central1", {"displayName": "d"}),
    lambda c: c.ml_create("p", {"jobId": "j"}),
])
def test_a_create_is_retried_only_when_it_never_left(create):
    c, session, _ = client(refused(), requests.ConnectTimeout("slow"),
                           status_error(429, "RESOURCE_EXHAUSTED", "quota"),
                           FakeResponse(200, {"n": 1}))
    assert create(c) == {"n": 1}
    assert len(session.calls) == 4


@pytest.mark.parametrize("failure", [
    closed_before_response, reset_before_response, lambda: requests.ReadTimeout("slow"),
    lambda: requests.ConnectionError("no cause known"),
])
def test_a_create_that_may_have_arrived_is_never_retried(failure):
    # The job may have been created; a blind retry could start a second one.
    c, session, _ = client(failure(), FakeResponse(200, {}))
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "us-central1", {"displayName": "d"})
    assert (info.value.status, info.value.ambiguous) == (None, True)
    assert len(session.calls) == 1
    assert isinstance(info.value.__cause__, requests.RequestException)


def test_only_creates_are_ambiguous():
    c, _, _ = client(closed_before_response(), status_error(500, "INTERNAL", "oops"),
                     max_attempts=1)
    for _ in range(2):
        with pytest.raises(ApiError) as info:
            c.vertex_cancel(VERTEX_NAME)
        assert info.value.ambiguous is False


def test_connection_failure_after_max_attempts():
    c, session, _ = client(*[requests.ConnectionError("refused")] * 2, max_attempts=2)
    with pytest.raises(ApiError) as info:
        c.ml_list("p")
    assert info.value.status is None and info.value.status_name == "UNAVAILABLE"
    assert isinstance(info.value.__cause__, requests.ConnectionError)
    assert info.value.ambiguous is False


def test_a_create_that_never_connected_is_not_ambiguous():
    c, session, _ = client(*[refused()] * 3, max_attempts=3)
    with pytest.raises(ApiError) as info:
        c.ml_create("p", {"jobId": "j"})
    assert (info.value.status_name, info.value.ambiguous) == ("UNAVAILABLE", False)
    assert len(session.calls) == 3


def test_token_never_appears_in_errors_or_repr():
    echo = status_error(401, "UNAUTHENTICATED", f"Bad credentials: Bearer {TOKEN}",
                        [("authorization", f"token {TOKEN} is expired")])
    c, _, _ = client(echo, requests.ConnectionError(f"failed with {TOKEN}"), max_attempts=1)
    with pytest.raises(ApiError) as info:
        c.ml_get("projects/p/jobs/j")
    with pytest.raises(ApiError) as info2:
        c.ml_get("projects/p/jobs/j")
    late, session, clock = timed(deadline=1)
    session.script = [clock.after(5, requests.ReadTimeout(f"slow {TOKEN}"))]
    with pytest.raises(ApiError) as info3:
        late.ml_get("projects/p/jobs/j")
    assert info3.value.status_name == "DEADLINE_EXCEEDED"
    for text in (str(info.value), repr(info.value), info.value.message,
                 str(info.value.field_violations), str(info2.value), str(info3.value), repr(c)):
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


def test_tuning_jobs_are_a_collection_of_their_own():
    c, session, _ = client(FakeResponse(200, {"name": "n"}),
                           FakeResponse(200, {"hyperparameterTuningJobs": [{"n": 1}]}),
                           FakeResponse(200, {}), FakeResponse(200, {}), FakeResponse(200, {}))
    name = "projects/p/locations/europe-west4/hyperparameterTuningJobs/7"
    c.vertex_create("p", "europe-west4", {"displayName": "x"}, "hyperparameterTuningJobs")
    assert c.vertex_list("p", "europe-west4", None, "hyperparameterTuningJobs") == {
        "hyperparameterTuningJobs": [{"n": 1}]}
    c.vertex_get(name)
    c.vertex_cancel(name)
    c.vertex_delete(name)
    assert [(k["method"], k["url"]) for k in session.calls] == [
        ("POST", "https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/"
                 "europe-west4/hyperparameterTuningJobs"),
        ("GET", "https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/"
                "europe-west4/hyperparameterTuningJobs"),
        ("GET", f"https://europe-west4-aiplatform.googleapis.com/v1/{name}"),
        ("POST", f"https://europe-west4-aiplatform.googleapis.com/v1/{name}:cancel"),
        ("DELETE", f"https://europe-west4-aiplatform.googleapis.com/v1/{name}")]


@pytest.mark.parametrize("call", [
    lambda c: c.vertex_get("projects/p/jobs/j"),
    lambda c: c.vertex_delete("customJobs/1"),
    lambda c: c.ml_get(VERTEX_NAME),
    lambda c: c.vertex_get("projects/p/locations/r/trainingPipelines/1"),
    lambda c: c.vertex_create("p", "r", {}, "trainingPipelines"),
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
    assert info.value.ambiguous is True and info.value.not_found is False


def test_create_is_retried_after_429_and_a_503_is_an_unknown_outcome():
    # A 503 may come from a front end after the backend acted: a create must look, not retry.
    c, session, _ = client(status_error(429, "RESOURCE_EXHAUSTED", "quota"),
                           status_error(503, "UNAVAILABLE", "busy"), FakeResponse(200, {"name": "n"}))
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "us-central1", {"displayName": "d"})
    assert (info.value.status, info.value.ambiguous) == (503, True)
    assert len(session.calls) == 2
    c, session, _ = client(status_error(503, "UNAVAILABLE", "busy"), FakeResponse(200, {"n": 1}))
    assert c.vertex_get(VERTEX_NAME) == {"n": 1}  # reads are retried as before


def test_a_token_with_a_newline_is_trimmed_and_a_bad_one_never_echoed():
    c, session, _ = client(FakeResponse(200, {}), endpoint="https://example.test", token="tok\n")
    assert c._token == "tok"
    with pytest.raises(ConfigError) as info:
        Client(endpoint="https://example.test", token="ya29.SECRET PART")
    assert "ya29" not in str(info.value)


def test_an_answer_that_is_not_json_is_one_scrubbed_error():
    c, _, _ = client(FakeResponse(200, text="<html>ok</html>"))
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "us-central1", {"displayName": "d"})
    assert info.value.ambiguous is True  # a 200 whose body we cannot read: the job may exist


class Clock:
    """A monotonic clock that only moves when the client sleeps or a test says so."""

    def __init__(self):
        self.now = 1000.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    def after(self, seconds, item):
        """A script item that takes `seconds` of the clock before it happens."""
        def later():
            self.now += seconds
            return item
        return later


def timed(*script, deadline=10, **kwargs):
    clock = Clock()
    session = FakeSession(*script)
    c = Client(token=TOKEN, session=session, deadline=deadline, sleep=clock.sleep,
               monotonic=clock, max_attempts=50, **kwargs)
    return c, session, clock


@pytest.mark.parametrize("create", [False, True])
def test_deadline_bounds_retries_backoff_and_attempt_timeouts(create):
    busy = FakeResponse(429, {}, headers={"Retry-After": "3"})  # retried for a create too
    c, session, clock = timed(*[busy] * 10)
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "r", {}) if create else c.vertex_get(VERTEX_NAME)
    error = info.value
    assert (error.status, error.status_name, error.ambiguous) == (None, "DEADLINE_EXCEEDED", False)
    assert "10 s" in error.message and "HTTP 429" in error.message
    # Each attempt's timeout is the time left; no sleep would end past the deadline.
    assert [k["timeout"] for k in session.calls] == [10, 7, 4, 1]
    assert clock.sleeps == [3, 3, 3]


def test_retry_after_beyond_the_deadline_gives_up_at_once():
    c, session, clock = timed(FakeResponse(429, {}, headers={"Retry-After": "3600"}), deadline=30)
    with pytest.raises(ApiError) as info:
        c.ml_get("projects/p/jobs/j")
    assert info.value.status_name == "DEADLINE_EXCEEDED" and "30 s" in info.value.message
    assert clock.sleeps == [] and len(session.calls) == 1


@pytest.mark.parametrize("create", [False, True])
def test_an_attempt_cut_short_by_the_deadline(create):
    c, session, clock = timed()
    session.script = [FakeResponse(429, {}, headers={"Retry-After": "2"}),
                      clock.after(8, requests.ReadTimeout("slow"))]
    with pytest.raises(ApiError) as info:
        c.vertex_create("p", "r", {}) if create else c.vertex_get(VERTEX_NAME)
    # A create that was sent when time ran out may have created the job.
    assert (info.value.status_name, info.value.ambiguous) == ("DEADLINE_EXCEEDED", create)
    assert [k["timeout"] for k in session.calls] == [10, 8]


def test_the_attempt_timeout_is_capped_by_the_client_timeout():
    c, session, _ = timed(FakeResponse(503, {}), FakeResponse(200, {}), deadline=300, timeout=30)
    c.ml_get("projects/p/jobs/j")
    assert [k["timeout"] for k in session.calls] == [30, 30]


def test_list_pages_share_one_deadline():
    c, session, clock = timed(deadline=10)
    session.script = [clock.after(4, FakeResponse(200, {"jobs": [1], "nextPageToken": "a"})),
                      clock.after(4, FakeResponse(200, {"jobs": [2], "nextPageToken": "b"})),
                      FakeResponse(200, {"jobs": [3]})]
    assert c.ml_list("p") == {"jobs": [1, 2, 3]}
    assert [k["timeout"] for k in session.calls] == [10, 6, 2]


def test_deadline_comes_from_argument_environment_or_default(monkeypatch):
    assert Client().deadline == transport.DEFAULT_DEADLINE == 300
    monkeypatch.setenv("TRAINSPEC_REQUEST_DEADLINE", "45.5")
    assert Client().deadline == 45.5
    assert Client(deadline=5).deadline == 5
    for bad in ("soon", "0", "-1", "nan", "inf"):
        monkeypatch.setenv("TRAINSPEC_REQUEST_DEADLINE", bad)
        with pytest.raises(ConfigError, match="^TRAINSPEC_REQUEST_DEADLINE"):
            Client()
    with pytest.raises(ConfigError, match="^deadline"):
        Client(deadline=0)




def test_log_entries_posts_to_cloud_logging_and_follows_page_tokens():
    c, session, _ = client(FakeResponse(200, {"entries": [{"n": 1}], "nextPageToken": "t1"}),
                           FakeResponse(503, {}),  # a read: retried
                           FakeResponse(200, {"entries": [{"n": 2}]}))
    f = 'resource.type="ml_job" AND resource.labels.job_id="42"'
    assert c.log_entries("p", f) == [{"n": 1}, {"n": 2}]
    assert [k["url"] for k in session.calls] == ["https://logging.googleapis.com/v2/entries:list"] * 3
    assert [k["method"] for k in session.calls] == ["POST"] * 3
    assert session.calls[0]["json"] == {"resourceNames": ["projects/p"], "filter": f,
                                        "orderBy": "timestamp asc", "pageSize": 1000}
    assert session.calls[2]["json"]["pageToken"] == "t1"
    assert "pageToken" not in session.calls[0]["json"]  # each page's body is its own copy


def test_log_entries_use_the_custom_endpoint():
    session = FakeSession(FakeResponse(200, {}))
    c = Client(endpoint="http://127.0.0.1:9/prefix", session=session)
    assert c.log_entries("p", "") == []
    assert session.calls[0]["url"] == "http://127.0.0.1:9/prefix/v2/entries:list"
