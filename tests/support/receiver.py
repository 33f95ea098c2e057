"""A real HTTP receiver for tests: scripted answers, every request recorded."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float


@dataclass
class Answer:
    status: int = 200
    body: bytes = b"ok"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False  # close the connection without answering (a reset, as the sender sees it)


class Receiver:
    def __init__(self, answer: Callable[[Received], Answer] | None = None):
        self.requests: list[Received] = []
        self._answer = answer or (lambda _r: Answer())
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                got = Received(self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length), time.time())
                with receiver._lock:
                    receiver.requests.append(got)
                answer = receiver._answer(got)
                if answer.delay:
                    time.sleep(answer.delay)
                if answer.drop:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                self.send_response(answer.status)
                for k, v in answer.headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/webhook"

    def answer_with(self, answer: Callable[[Received], Answer]) -> None:
        self._answer = answer


@contextmanager
def serving(server: ThreadingHTTPServer) -> Iterator[None]:
    """The server answering on a thread of its own while the block runs, then shut down and closed."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def running_receiver(answer: Callable[[Received], Answer] | None = None) -> Iterator[Receiver]:
    r = Receiver(answer)
    with serving(r._server):
        yield r
