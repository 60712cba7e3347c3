"""A fault-injecting HTTP/1.1 proxy for tests: the network failure no fake session reproduces.

`FaultProxy(upstream)` listens on 127.0.0.1 and forwards every request to `upstream` (a base URL,
e.g. the emulator's). For requests its `match(method, path)` predicate selects, it forwards the
request, reads the upstream answer, then closes the client's connection without sending it: the
server has acted, the client has no answer ("connection closed before the response").
``drop="first"`` swallows only the first matching answer, ``drop="every"`` all of them,
``drop="none"`` none. While `throttle` is a number of seconds, matching requests are not
forwarded at all: each is answered 429 RESOURCE_EXHAUSTED with ``Retry-After: <throttle>``, as a
front end shedding load does (`refused` counts them); set it back to None to let them through.

    with FaultProxy(server.url) as proxy:
        Client(endpoint=proxy.url).vertex_create(...)   # raises; the job exists upstream
        proxy.forwarded, proxy.matched, proxy.dropped  # counters

Request bodies must carry a Content-Length (requests always sends one for ``json=``).
"""

from __future__ import annotations

import http.client
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

# Hop-by-hop headers, and the ones the proxy sets itself (RFC 9110 section 7.6.1).
_NOT_RELAYED = frozenset({"connection", "keep-alive", "proxy-connection", "te", "trailer",
                          "transfer-encoding", "upgrade", "host", "content-length"})


def creates(method: str, path: str) -> bool:
    """Job creates: POST to a Vertex ``.../customJobs`` or an ml ``.../jobs`` collection."""
    return method == "POST" and path.split("?", 1)[0].endswith(("/customJobs", "/jobs"))


class FaultProxy:
    def __init__(self, upstream: str, match: Callable[[str, str], bool] = creates,
                 drop: str = "first"):
        if drop not in ("first", "every", "none"):
            raise ValueError(f"drop must be 'first', 'every' or 'none', not {drop!r}")
        base = urlsplit(upstream)
        self._host, self._port, self._prefix = base.hostname, base.port, base.path.rstrip("/")
        self.match, self.drop = match, drop
        self.forwarded = 0  # requests forwarded upstream
        self.matched = 0  # of those, the ones `match` selected
        self.dropped = 0  # answers swallowed
        self.throttle: float | None = None  # Retry-After of the 429 matching requests get
        self.refused = 0  # requests answered 429 while throttled, never forwarded
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.proxy = self  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> FaultProxy:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _forward(self, method: str, path: str, headers: dict, body: bytes | None):
        """The upstream answer (status, reason, headers, body) and whether to swallow it."""
        with self._lock:
            if self.throttle is not None and self.match(method, path):
                self.refused += 1
                return 429, "Too Many Requests", [("Retry-After", f"{self.throttle:g}"), (
                    "Content-Type", "application/json; charset=UTF-8")], _QUOTA, False
        conn = http.client.HTTPConnection(self._host, self._port, timeout=30)
        try:
            conn.request(method, self._prefix + path, body=body, headers=headers)
            answer = conn.getresponse()
            data = answer.read()
        finally:
            conn.close()
        with self._lock:
            self.forwarded += 1
            drop = self.match(method, path)
            if drop:
                self.matched += 1
                drop = self.drop == "every" or (self.drop == "first" and self.dropped == 0)
                self.dropped += drop
        return answer.status, answer.reason, answer.getheaders(), data, drop


_QUOTA = (b'{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", '
          b'"message": "Quota exceeded (fault proxy)."}}')


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _relay(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _NOT_RELAYED}
        status, reason, answer_headers, data, drop = self.server.proxy._forward(  # type: ignore[attr-defined]
            self.command, self.path, headers, body)
        if drop:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # the client went away first
            return
        self.send_response_only(status, reason)
        for key, value in answer_headers:
            if key.lower() not in _NOT_RELAYED:
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _relay

    def log_message(self, format: str, *args: object) -> None:
        pass  # tests read the counters, not a log
