"""The benchmark's receiver: realistic response bodies (200 B on success, 1 KB on failure), in a thread or a process of its own.

    python -m bench.measurement.receiver --port 9000 --status 503   # what `bench.models.duration` starts for its CPU runs

The local receiver (`local.receiver`) answers 17 bytes; a real receiver's body is
longer, and hookline stores up to `HOOKLINE_RESPONSE_BODY_LIMIT_BYTES` of it on
every attempt, so the body size is billed in DynamoDB writes and storage.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SUCCESS_BODY_BYTES = 200
FAILURE_BODY_BYTES = 1024


def reply_body(status: int) -> bytes:
    """A JSON body of SUCCESS_BODY_BYTES (2xx) or FAILURE_BODY_BYTES (anything else), as receivers answer."""
    size = SUCCESS_BODY_BYTES if 200 <= status < 300 else FAILURE_BODY_BYTES
    head = {"ok": status < 300, "status": status, "request_id": "req_0123456789abcdef"}
    if status >= 300:
        head["error"] = "upstream unavailable"
    text = json.dumps({**head, "detail": ""})
    return json.dumps({**head, "detail": "x" * (size - len(text))}).encode()


class _Server(ThreadingHTTPServer):
    request_queue_size = 256
    daemon_threads = True


class BenchReceiver:
    """An HTTP server on 127.0.0.1 answering `status` with a realistic body; counts requests and the bytes they carried."""

    def __init__(self, status: int = 200, delay_seconds: float = 0.0, port: int = 0) -> None:
        self.status = status
        self.delay_seconds = delay_seconds
        self.received: list[int] = []  # the status answered, per request
        self.types: set[str] = set()  # the event types of the webhooks that arrived
        self.request_bytes = 0  # request line, headers and body, as sent
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", port), _handler_for(self))
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/webhook"

    def answer(self, request_bytes: int, event_type: str = "") -> int:
        with self._lock:
            status = self.status
            self.received.append(status)
            self.request_bytes += request_bytes
            self.types.add(event_type)
        if self.delay_seconds > 0:
            time.sleep(self.delay_seconds)
        return status

    def __enter__(self) -> BenchReceiver:
        self._thread = threading.Thread(target=self._server.serve_forever, name="bench-receiver", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server.server_close()


def _event_type(body: bytes) -> str:
    """The webhook's event type ("" for a body that is not one)."""
    try:
        found = json.loads(body)
    except ValueError:
        return ""
    return str(found.get("type", "")) if isinstance(found, dict) else ""


def _handler_for(receiver: BenchReceiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # The answer leaves in one write, as a real server's does: unbuffered, its headers and its body went out in
        # two, and the body waited for the client's delayed ACK of the headers (Nagle's algorithm): 40 ms a POST,
        # and the client's thread woke from that wait on a cold core.
        wbufsize = -1
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            head = len(self.requestline) + 2 + sum(len(k) + len(v) + 4 for k, v in self.headers.items()) + 2
            status = receiver.answer(head + len(body), _event_type(body))
            reply = reply_body(status)
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.measurement.receiver")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--status", type=int, default=200)
    args = parser.parse_args(argv)
    server = BenchReceiver(status=args.status, port=args.port)
    try:
        server._server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
