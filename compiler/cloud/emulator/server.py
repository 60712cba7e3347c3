"""The emulator over HTTP: a threaded server, its limits (body size, silent clients), and the
`python -m compiler emulator` command."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .common import MAX_BODY_BYTES, MAX_UPLOAD_BYTES, REQUEST_TIMEOUT, Refusal
from .core import Emulator
from .quotas import parse_quota


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "trainspec-emulator"
    disable_nagle_algorithm = True  # headers and body go out in two writes; don't stall on ACKs

    def setup(self) -> None:
        # A socket timeout (StreamRequestHandler applies `timeout`): a client that stops
        # sending mid-request is dropped instead of holding a thread forever.
        self.timeout = self.server.request_timeout
        super().setup()

    def _serve(self) -> None:
        limit = self.server.max_body
        if self.path.startswith("/upload/"):  # an object's bytes, not a job's JSON
            limit = max(limit, MAX_UPLOAD_BYTES)
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        refusal = None
        if self.headers.get("Transfer-Encoding"):
            refusal = Refusal(411, "INVALID_ARGUMENT", "Send the body with a Content-Length.")
        elif length < 0:
            refusal = Refusal(400, "INVALID_ARGUMENT", "Bad Content-Length.")
        elif length > limit:
            # Refused before reading: the body never reaches memory.
            refusal = Refusal(413, "INVALID_ARGUMENT",
                              f"Request payload size exceeds the limit: {limit} bytes.")
        if refusal is not None:
            self.close_connection = True  # the unread body must not be read as a request
            status, payload = refusal.code, refusal.body()
        else:
            try:
                body = self.rfile.read(length) if length else b""
            except TimeoutError:
                self.close_connection = True
                return
            if len(body) < length:  # the client hung up mid-body
                self.close_connection = True
                return
            # An upload's Content-Type is the object's (JSON calls need none).
            extra = ({"content_type": self.headers.get("Content-Type")}
                     if self.path.startswith("/upload/") else {})
            status, payload = self.server.emulator.handle(self.command, self.path, body, **extra)
        if isinstance(payload, str):
            data, kind = payload.encode(), "text/html; charset=UTF-8"
        else:
            data = json.dumps(payload, indent=2, allow_nan=False).encode()
            kind = "application/json; charset=UTF-8"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _serve

    def log_message(self, format: str, *args: Any) -> None:
        # Only the request line and status are logged, never headers (they carry the token).
        if self.server.emulator.log:
            self.server.emulator.log(f"{self.address_string()} {format % args}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    max_body = MAX_BODY_BYTES
    request_timeout = REQUEST_TIMEOUT

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that times out or hangs up is not an emulator failure: one line, no trace.
        exc = sys.exc_info()[1]
        if isinstance(exc, (TimeoutError, ConnectionError)):
            return
        super().handle_error(request, client_address)


def make_server(host: str = "127.0.0.1", port: int = 0, *, max_body: int = MAX_BODY_BYTES,
                request_timeout: float = REQUEST_TIMEOUT, **options: Any) -> ThreadingHTTPServer:
    """A bound, not yet serving, HTTP server around `Emulator(**options)`; ``.url`` is its base.
    Request bodies over `max_body` bytes get 413; a connection silent for `request_timeout`
    seconds is closed."""
    server = _Server((host, port), _Handler)
    server.max_body, server.request_timeout = max_body, request_timeout
    server.emulator = Emulator(**options)  # type: ignore[attr-defined]
    server.url = f"http://{host}:{server.server_address[1]}"  # type: ignore[attr-defined]
    return server


def serve(host: str = "127.0.0.1", port: int = 0, **options: Any):
    """Start an emulator in a daemon thread; returns (server, thread).

    ``server.url`` is the base URL, ``server.emulator`` the `Emulator`; stop with
    ``server.shutdown(); server.server_close()``. `options` are `Emulator` arguments.
    """
    server = make_server(host, port, **options)
    # A short poll interval makes shutdown() quick in tests.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name="trainspec-emulator", daemon=True)
    thread.start()
    return server, thread


def main(argv: list[str] | None = None) -> int:
    """CLI: ``python -m compiler emulator --port PORT [...]``; serves until interrupted."""
    parser = argparse.ArgumentParser(
        prog="trainspec emulator",
        description="Serve a local emulator of the Vertex AI CustomJob and "
                    "HyperparameterTuningJob and AI Platform Training Job REST APIs, of Cloud "
                    "Logging entries:list for their jobs, and of the Cloud Storage calls that "
                    "upload python.source archives. Point trainspec at it with "
                    "TRAINSPEC_API_ENDPOINT.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--state", metavar="FILE", help="persist jobs in this JSON file")
    parser.add_argument("--step-seconds", type=float, default=2.0,
                        help="seconds per state step; 0 = jobs succeed at once")
    parser.add_argument("--cancel-seconds", type=float, metavar="SECONDS",
                        help="how long a cancelled job stays CANCELLING (default: one step)")
    parser.add_argument("--fail-429", type=float, default=0.0, metavar="RATE",
                        help="refuse this fraction of requests with 429 RESOURCE_EXHAUSTED")
    parser.add_argument("--fail-503", type=float, default=0.0, metavar="RATE",
                        help="refuse this fraction of requests with 503 UNAVAILABLE")
    parser.add_argument("--seed", type=int, help="seed of the fault-injection RNG")
    parser.add_argument("--quiet", action="store_true", help="do not log requests")
    parser.add_argument("--bucket", action="append", default=[], metavar="NAME",
                        help="a Cloud Storage bucket that exists (repeatable): python.source "
                             "archives are uploaded to it")
    parser.add_argument("--quota", action="append", default=[], metavar="METRIC@REGION=LIMIT[:USED]",
                        help="an allocation quota (repeatable), e.g. custom_model_training_"
                             "nvidia_a100_gpus@us-central1=8:2 (8 allowed, 2 used outside the "
                             "emulator): served to `trainspec quota`, and a create over it gets "
                             "the real 429 RESOURCE_EXHAUSTED")
    args = parser.parse_args(argv)
    try:
        quotas = {(n, r): (limit, used) for n, r, limit, used in map(parse_quota, args.quota)}
    except ValueError as exc:
        parser.error(str(exc))
    server = make_server(
        args.host, args.port, state_file=args.state, progress_seconds=args.step_seconds,
        cancel_seconds=args.cancel_seconds,
        fault_rate_429=args.fail_429, fault_rate_503=args.fail_503, seed=args.seed,
        buckets=[b.removeprefix("gs://").rstrip("/") for b in args.bucket], quotas=quotas,
        log=None if args.quiet else lambda line: print(line, file=sys.stderr, flush=True))
    print(f"trainspec emulator listening on {server.url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        server.emulator.close()
    return 0


