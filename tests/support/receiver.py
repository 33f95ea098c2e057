"""A real HTTP receiver for tests: scripted answers, every request recorded."""

from __future__ import annotations

import socket
import ssl
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


class KeepAliveReceiver:
    """Answers 200 over HTTP/1.1 keep-alive (with a cookie it must never get back), counting the connections it
    accepts, the local address each request arrived at, and each request's Cookie header.

    `idle_seconds`: like a server's keep-alive timeout (Node's is 5 s), `close_idle` closes the connections unused
    that long by `clock`, so the next send finds it closed. `answer_first_only`: a request that arrives on a
    connection that has already answered one is read and the connection closed with no answer: a server whose
    idle close crossed the request on the wire, as the sender sees it (or, `unanswered_after` seconds later, one
    that failed while working on it).
    """

    def __init__(
        self, idle_seconds: float = 0.0, clock: Callable[[], float] = time.monotonic, answer_first_only: bool = False, unanswered_after: float = 0.0
    ) -> None:
        self.connections = 0
        self.requests = 0  # every request read, answered or not
        self.arrived_at: list[str] = []  # the local address each answered request came in on: the one the sender connected to
        self.cookies: list[str | None] = []  # the Cookie header of each answered request
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._last_answer: dict[Any, float] = {}  # each open connection's socket: when it last answered, by `clock`
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # the answer's headers and body go out at once, not 40 ms apart (delayed ACK)

            def setup(self) -> None:
                super().setup()
                with receiver._lock:
                    receiver.connections += 1

            def finish(self) -> None:
                with receiver._lock:
                    receiver._last_answer.pop(self.connection, None)
                super().finish()

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                with receiver._lock:
                    receiver.requests += 1
                    answered_before = self.connection in receiver._last_answer
                if answer_first_only and answered_before:
                    time.sleep(unanswered_after)
                    self.close_connection = True
                    return
                with receiver._lock:
                    receiver.arrived_at.append(self.connection.getsockname()[0])
                    receiver.cookies.append(self.headers.get("cookie"))
                with receiver._lock:  # before the answer goes out: the sender moves on (and the clock with it) once it has it
                    receiver._last_answer[self.connection] = receiver.clock()
                self.send_response(200)
                self.send_header("set-cookie", "session=receiver-secret; Path=/")
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
                self.wfile.flush()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("0.0.0.0", 0), Handler)  # every loopback address: 127.0.0.1, 127.0.0.2, …
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]

    def close_idle(self) -> int:
        """Close the connections that have not answered for `idle_seconds` (by `clock`), as a server's keep-alive
        timeout does; how many it closed."""
        if self.idle_seconds <= 0:
            return 0
        with self._lock:
            now = self.clock()
            idle = [conn for conn, at in self._last_answer.items() if now - at >= self.idle_seconds]
            for conn in idle:
                del self._last_answer[conn]
        for conn in idle:
            try:
                conn.shutdown(socket.SHUT_RDWR)  # the handler's read ends and it closes the socket
            except OSError:
                pass
        return len(idle)


@contextmanager
def keep_alive_receiver(**options: Any) -> Iterator[KeepAliveReceiver]:
    r = KeepAliveReceiver(**options)
    with serving(r.server):
        yield r


class _TlsServer(ThreadingHTTPServer):
    """Each connection's handshake on its own thread. A refused handshake ends as a server's does: its alert sent, what
    the client sent meanwhile read, then closed (closed at once with the client's request unread, the kernel would
    answer with a reset that can overtake the alert)."""

    daemon_threads = True

    def __init__(self, handler: Any, context: ssl.SSLContext) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.context = context

    def finish_request(self, request: Any, client_address: Any) -> None:
        kept = request.dup()  # wrap_socket takes the socket over, and closes it when the handshake fails
        try:
            tls = self.context.wrap_socket(request, server_side=True)
        except OSError:
            with kept:
                kept.settimeout(2)
                try:
                    while kept.recv(4096):
                        pass
                except OSError:
                    pass
            return
        kept.close()
        super().finish_request(tls, client_address)


@contextmanager
def running_tls_receiver(cert_file: str, key_file: str, client_ca: str | None = None, answer: Callable[[Received], Answer] | None = None) -> Iterator[Receiver]:
    """A Receiver over TLS with the certificate; `client_ca`: it requires a client certificate that CA signed (mTLS),
    and refuses the handshake of a client without one."""
    r = Receiver(answer)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    if client_ca is not None:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(client_ca)
    plain, r._server = r._server, _TlsServer(r._server.RequestHandlerClass, context)
    plain.server_close()
    with serving(r._server):
        yield r
