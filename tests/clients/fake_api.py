"""A fake hookline API for the client's tests: an HTTP server on 127.0.0.1 (port 0) in a thread.

It answers from a script (one `Answer` per request, in order), or from a `responder` once the
script is used up, and records every request it got.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: Any = field(default_factory=dict)  # JSON, or bytes as they are
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (a slow server, for timeouts)


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # names lowercased
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class FakeApi:
    def __init__(self) -> None:
        self.script: list[Answer] = []
        self.responder: Callable[[Request], Answer] = lambda _: Answer()
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def answer(self, *answers: Answer) -> FakeApi:
        self.script.extend(answers)
        return self

    def respond(self, request: Request) -> Answer:
        with self._lock:
            self.requests.append(request)
            scripted = self.script.pop(0) if self.script else None
        return scripted if scripted is not None else self.responder(request)

    def start(self) -> FakeApi:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(api: FakeApi) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        wbufsize = -1  # headers and body in one write, flushed after each request (no Nagle delay on keep-alive)

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
            request = Request(self.command, parts.path, query, {k.lower(): v for k, v in self.headers.items()}, body)
            answer = api.respond(request)
            if answer.delay:
                time.sleep(answer.delay)
            raw = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
            try:
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                pass

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def do_PUT(self) -> None:
            self._serve()

        def do_DELETE(self) -> None:
            self._serve()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextmanager
def fake_api() -> Iterator[FakeApi]:
    api = FakeApi().start()
    try:
        yield api
    finally:
        api.stop()
