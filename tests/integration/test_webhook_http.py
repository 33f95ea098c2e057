"""The webhook client's HTTP/1.1 (hookline.adapters.http) against a receiver that answers scripted bytes on loopback:
what it writes, each way an answer's body can end, what keeps a connection and what closes it, and how a failure
is classified; and over TLS, a receiver verified for the URL's hostname while connected to the pinned address."""

from __future__ import annotations

import gzip
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hookline.adapters.http import ConnectionPools, WebhookClient, request_size
from hookline.core.ssrf import UrlPolicy
from tests.support.certificates import make_certificates

POLICY = UrlPolicy((ipaddress.ip_network("127.0.0.0/8"),), allow_http=True, allowed_ports=None)
Script = Callable[[socket.socket], None]  # writes one answer (and may close, wait, drip)


@dataclass
class RawReceiver:
    """Accepts connections and answers each request with the next script; records each request's raw bytes."""

    scripts: list[Script]
    requests: list[bytes] = field(default_factory=list)
    connections: int = 0

    def serve(self, server: socket.socket, wrap: Callable[[socket.socket], socket.socket] = lambda conn: conn) -> None:
        """Accept connections until the server closes; `wrap` each (a TLS handshake), one that fails to wrap dropped."""
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            self.connections += 1
            try:
                conn = wrap(conn)
            except OSError:
                conn.close()
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        reader = conn.makefile("rb")
        with conn:
            try:
                while self.scripts:
                    head = b""
                    while not head.endswith(b"\r\n\r\n"):
                        line = reader.readline()
                        if not line:
                            return
                        head += line
                    length = next(int(h.split(b":", 1)[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:"))
                    self.requests.append(head + reader.read(length))
                    self.scripts.pop(0)(conn)
            except OSError:
                return  # the client closed the connection


@contextmanager
def raw_receiver(*scripts: Script) -> Iterator[tuple[RawReceiver, str]]:
    receiver = RawReceiver(list(scripts))
    with socket.create_server(("127.0.0.1", 0)) as server:
        threading.Thread(target=receiver.serve, args=(server,), daemon=True).start()
        yield receiver, f"http://hooks.example.com:{server.getsockname()[1]}/in/a%20b?x=1"


def answer(raw: bytes, close: bool = False, wait: float = 0.0) -> Script:
    def write(conn: socket.socket) -> None:
        time.sleep(wait)
        conn.sendall(raw)
        if close:
            conn.shutdown(socket.SHUT_RDWR)

    return write


def _client(keepalive: float = 30.0, body_limit: int = 4096, request_timeout: float = 5.0) -> WebhookClient:
    client = WebhookClient(2, request_timeout, body_limit, POLICY, resolver=lambda _h, _p: ["127.0.0.1"], keepalive_seconds=keepalive)
    client.pools = ConnectionPools(keepalive)
    return client


HEADERS = {"content-type": "application/json", "webhook-id": "msg_1", "user-agent": "hookline/test"}
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def test_the_request_is_the_post_written_whole_and_its_size_is_what_the_meter_counts() -> None:
    with raw_receiver(answer(OK)) as (receiver, url):
        result = _client().post(url, b'{"a":1}', HEADERS)
    assert (result.status_code, result.body) == (200, "ok")
    port = url.split(":")[2].split("/")[0]
    assert receiver.requests == [
        f"POST /in/a%20b?x=1 HTTP/1.1\r\nHost: hooks.example.com:{port}\r\ncontent-type: application/json\r\nwebhook-id: msg_1\r\n"
        'user-agent: hookline/test\r\nContent-Length: 7\r\n\r\n{"a":1}'.encode()
    ]
    assert request_size(url, b'{"a":1}', HEADERS) == len(receiver.requests[0])


def test_a_chunked_answer_is_read_whole_and_its_connection_kept() -> None:
    chunked = b"HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: 1\r\n\r\n"
    with raw_receiver(answer(chunked), answer(OK)) as (receiver, url):
        client = _client()
        results = [client.post(url, b"{}", HEADERS) for _ in range(2)]
    assert [(r.status_code, r.body) for r in results] == [(202, "abcde"), (200, "ok")]
    assert receiver.connections == client.pools.opened() == 1


def test_only_the_first_bytes_of_a_long_body_are_kept_and_its_connection_is_not() -> None:
    long = b"HTTP/1.1 500 Oops\r\nContent-Length: 100000\r\n\r\n" + b"x" * 100000
    with raw_receiver(answer(long), answer(OK)) as (receiver, url):
        client = _client(body_limit=10)
        results = [client.post(url, b"{}", HEADERS) for _ in range(2)]
    assert [(r.status_code, r.body) for r in results] == [(500, "x" * 10), (200, "ok")]
    assert receiver.connections == client.pools.opened() == 2  # the first was left mid-body: closed, not kept


@pytest.mark.parametrize(
    "first",
    [
        b"HTTP/1.0 200 OK\r\n\r\nto the close",  # a body that ends with the connection
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 12\r\n\r\nto the close",
        b"HTTP/1.1 200 OK\r\n\r\nto the close",  # neither a length nor chunks: to the close
    ],
)
def test_an_answer_that_ends_its_connection_is_read_and_the_next_post_opens_another(first: bytes) -> None:
    with raw_receiver(answer(first, close=True), answer(OK)) as (receiver, url):
        client = _client()
        results = [client.post(url, b"{}", HEADERS) for _ in range(2)]
    assert [(r.status_code, r.body) for r in results] == [(200, "to the close"), (200, "ok")]
    assert receiver.connections == 2 and client.pools.resent == 0


def test_an_informational_answer_is_skipped_and_headers_keep_their_names() -> None:
    raw = b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many\r\nRetry-After: 7\r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 0\r\n\r\n"
    with raw_receiver(answer(raw)) as (_receiver, url):
        result = _client().post(url, b"{}", HEADERS)
    assert (result.status_code, result.body, dict(result.headers)) == (429, "", {"Retry-After": "7", "X-A": "1, 2", "Content-Length": "0"})
    assert result.outcome.retry_after == "7"


def test_a_gzip_body_is_read_as_text() -> None:
    packed = gzip.compress(b'{"received": true}')
    raw = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(packed) + packed
    with raw_receiver(answer(raw)) as (_receiver, url):
        result = _client().post(url, b"{}", HEADERS)
    assert (result.status_code, result.body) == (200, '{"received": true}')


def test_an_answer_slower_than_the_deadline_is_a_timeout_and_so_is_a_body_that_drips_past_it() -> None:
    def drip(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n")
        for _ in range(50):
            conn.sendall(b"x")
            time.sleep(0.05)

    with raw_receiver(answer(OK, wait=2.0)) as (_receiver, url):
        slow = _client(request_timeout=0.5).post(url, b"{}", HEADERS)
    with raw_receiver(drip) as (_receiver, url):
        dripping = _client(request_timeout=0.5).post(url, b"{}", HEADERS)
    assert (slow.status_code, slow.error) == (None, "timeout")
    assert (dripping.status_code, dripping.error) == (None, "timeout")
    assert dripping.detail == "response body exceeded the request deadline"


@pytest.mark.parametrize(
    ("before", "then"),
    [
        (b"HTTP/1.1 200 OK\r\nX-Slow: ", b"y\r\nContent-Length: 0\r\n\r\n"),  # a header line dripped
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", b"0\r\n\r\n"),  # a chunk's size line dripped
    ],
    ids=["head", "chunk size"],
)
def test_a_receiver_that_drips_a_line_is_stopped_at_the_deadline(before: bytes, then: bytes) -> None:
    """Each byte arrives well within the socket's timeout, so only a deadline on every wait stops the request: the
    drip alone would take 40 s (the request's deadline is 0.5 s)."""
    stop = threading.Event()

    def drip(conn: socket.socket) -> None:
        conn.sendall(before)
        for _ in range(200):
            if stop.wait(0.2):
                return
            conn.sendall(b" ")
        conn.sendall(then)

    with raw_receiver(drip) as (_receiver, url):
        started = time.monotonic()
        result = _client(request_timeout=0.5).post(url, b"{}", HEADERS)
        took = time.monotonic() - started
        stop.set()
    assert (result.status_code, result.error) == (None, "timeout")
    assert took < 20  # far below the drip's 40 s, however busy the machine


def test_what_is_not_an_http_answer_is_a_connection_error_and_a_refused_connect_is_refused() -> None:
    with raw_receiver(answer(b"SSH-2.0-OpenSSH\r\n\r\n", close=True)) as (_receiver, url):
        garbage = _client().post(url, b"{}", HEADERS)
    with socket.create_server(("127.0.0.1", 0)) as closed:
        port = closed.getsockname()[1]
    refused = _client().post(f"http://hooks.example.com:{port}/", b"{}", HEADERS)
    assert (garbage.status_code, garbage.error) == (None, "connection_error")
    assert (refused.status_code, refused.error) == (None, "connection_refused")


def test_a_header_that_would_break_the_request_is_never_sent() -> None:
    with raw_receiver(answer(OK)) as (receiver, url):
        result = _client().post(url, b"{}", {**HEADERS, "x-evil": "a\r\nX-Injected: 1"})
    assert (result.status_code, result.error, receiver.requests) == (None, "connection_error", [])


# -- https: the pinned connection verifies the receiver's certificate for the URL's hostname ----------------------


@contextmanager
def tls_receiver(key_path: Path, cert_path: Path) -> Iterator[tuple[RawReceiver, int, list[str | None]]]:
    """A RawReceiver answering OK over TLS with the certificate; the server names (SNI) its handshakes asked for."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_path, key_path)
    asked: list[str | None] = []
    context.sni_callback = lambda _socket, name, _context: asked.append(name)  # type: ignore[assignment,func-returns-value]
    receiver = RawReceiver([answer(OK) for _ in range(4)])
    with socket.create_server(("127.0.0.1", 0)) as server:
        threading.Thread(target=receiver.serve, args=(server, lambda conn: context.wrap_socket(conn, server_side=True)), daemon=True).start()
        yield receiver, server.getsockname()[1], asked


def test_an_https_receiver_is_verified_for_the_urls_hostname_on_the_pinned_address(tmp_path: Path) -> None:
    make_certificates(tmp_path, ["hooks.example.com", "other.example.com"])
    ca_path, stranger_ca = tmp_path / "ca.pem", tmp_path / "stranger-ca.pem"  # the stranger signed neither
    key_path, cert_path = tmp_path / "hooks.example.com.key", tmp_path / "hooks.example.com.pem"
    other_key, other_cert = tmp_path / "other.example.com.key", tmp_path / "other.example.com.pem"

    def client(ca_file: Path) -> WebhookClient:
        made = _client()
        made.pools = ConnectionPools(30.0, ca_file=str(ca_file))
        return made

    with tls_receiver(key_path, cert_path) as (receiver, port, asked):
        trusting = client(ca_path)
        kept = [trusting.post(f"https://hooks.example.com:{port}/in", b"{}", HEADERS) for _ in range(2)]
        untrusting = client(stranger_ca).post(f"https://hooks.example.com:{port}/in", b"{}", HEADERS)
    with tls_receiver(other_key, other_cert) as (other, other_port, _):
        wrong_name = client(ca_path).post(f"https://hooks.example.com:{other_port}/in", b"{}", HEADERS)
    assert [(r.status_code, r.body) for r in kept] == [(200, "ok"), (200, "ok")], kept
    assert trusting.pools.opened() == 1 and asked[0] == "hooks.example.com"  # one handshake, with the hostname as SNI
    assert receiver.requests[0].startswith(f"POST /in HTTP/1.1\r\nHost: hooks.example.com:{port}\r\n".encode())
    assert (untrusting.status_code, untrusting.error) == (None, "tls_error")
    assert (wrong_name.status_code, wrong_name.error, other.requests) == (None, "tls_error", [])


def test_a_receiver_that_drips_its_tls_handshake_is_stopped_at_the_connect_timeout() -> None:
    """The server announces a 16,000-byte handshake record and sends it a byte every 0.2 s: each byte arrives within
    the socket's timeout (the connect timeout, 2 s), so only a bound on the handshake as a whole stops the request
    (the drip alone would take almost an hour). CPython's `do_handshake` gives the socket's timeout to the whole
    handshake, not to each read: this holds it to that."""
    stop = threading.Event()

    def drip(conn: socket.socket) -> None:
        with conn:
            conn.recv(4096)  # the ClientHello
            conn.sendall(b"\x16\x03\x03\x3e\x80")  # a handshake record's header: 16,000 bytes follow
            while not stop.wait(0.2):
                try:
                    conn.sendall(b"\x00")
                except OSError:
                    return

    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]

        def accept() -> None:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=drip, args=(conn,), daemon=True).start()

        threading.Thread(target=accept, daemon=True).start()
        started = time.monotonic()
        result = _client(request_timeout=30.0).post(f"https://hooks.example.com:{port}/in", b"{}", HEADERS)
        took = time.monotonic() - started
        stop.set()
    assert (result.status_code, result.error) == (None, "timeout"), result
    assert took < 20  # the connect timeout is 2 s; the request's own 30 s deadline was never the bound
