"""The webhook HTTP client: one POST, SSRF-guarded, pinned to the vetted address, over kept-alive connections.

The hostname is resolved once per POST, every address is checked by the SSRF
guard, and the connection goes to the vetted address, so a DNS answer that
changes between check and connect (rebinding) cannot slip through. TLS still
verifies the certificate against the hostname (the CA bundle botocore trusts)
and sends it as SNI. Redirects are never followed, no proxy is used, no cookie
is sent, and only the first `body_limit` bytes of the answer's body are read.

Connections are kept between POSTs (`ConnectionPools`), per (scheme, host, port,
vetted address): a connection is reused only to the very address the guard just
approved for this POST, and a DNS answer that changed opens a new one. A warm
Lambda instance keeps them across batches, so a busy endpoint pays its DNS, TCP
and TLS handshake once per keep-alive, not per webhook; one unused for the idle
time is closed, and at most POOL_HOSTS addresses are kept, the least recently
used closed first. A connection goes back to its pool only after an answer read
whole that lets it stay open (HTTP/1.1, no `Connection: close`).

A receiver may close a kept connection sooner (Node's and Apache's servers do
after 5 s). A kept connection with something to read while idle (the receiver's
close) is closed before a send and another taken; a send that meets a kept
connection closed under it (the receiver's close on its way as the request went
out: no answer, the connection gone) is sent once more (on another kept
connection or a new one, in the time the request has left), as Go's HTTP client
does for a request that carries an idempotency key: the webhook's id is one, and
receivers drop duplicates by it (Standard Webhooks). Only a failure within
RESEND_WITHIN_SECONDS of the send counts as such a close; a send that opened a
connection is never repeated.

The client speaks the HTTP/1.1 a webhook needs, on `socket` and `ssl` (it was
requests and urllib3, whose layers cost about a fifth of the delivery handler's
CPU: docs/benchmarks.md): a POST with a Content-Length body; an answer with a
Content-Length body, a chunked one, or one that ends with the connection; an
informational (1xx) answer skipped; a gzip or deflate body decoded (none is asked
for).
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, quote, urlsplit

from hookline.adapters import http1
from hookline.adapters.http1 import MOST_HEAD_BYTES, AnswerUnreadable, ClosedUnanswered, Head
from hookline.core import classify, ssrf
from hookline.core.responses import HttpResult

Resolver = Callable[[str, int], list[str]]


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class _Refused:
    error: str
    detail: str


RESEND_WITHIN_SECONDS = 1.0  # a kept connection closed under a send fails it at once; a later failure is the receiver's
POOL_HOSTS = 256  # pinned addresses whose connections are kept at once; the least recently used beyond are closed
POOL_CONNECTIONS = 10  # connections kept per pinned address (a batch's requests to one endpoint run side by side)

# scheme, hostname, port, the vetted address connected to, the client certificate presented ("": none)
PoolKey = tuple[str, str, int, str, str]


@dataclass(frozen=True)
class ClientCertificate:
    """A client certificate to present in the TLS handshake (an mTLS endpoint's: hookline.adapters.endpoint_auth),
    as the files ssl's load_cert_chain reads. `name` tells certificates apart: connections that presented one are
    kept for it alone."""

    name: str
    cert_file: str
    key_file: str


_CLOSED = (ClosedUnanswered, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)


class _Connection:
    """One connection to a vetted address (TLS for https, checked against the hostname)."""

    def __init__(self, key: PoolKey, connect_timeout: float, tls: Callable[[], ssl.SSLContext]):
        scheme, hostname, port, ip, _client = key
        raw = socket.create_connection((ip, port), timeout=connect_timeout)
        try:
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.socket: socket.socket = tls().wrap_socket(raw, server_hostname=hostname) if scheme == "https" else raw
        except BaseException:
            raw.close()
            raise
        self.reader = self.socket.makefile("rb")
        self.idle_since = 0.0

    def dropped(self) -> bool:
        """Whether the peer closed it (or sent what nobody asked for) while it was kept: something to read."""
        try:
            if isinstance(self.socket, ssl.SSLSocket) and self.socket.pending():
                return True
            poll = select.poll()
            poll.register(self.socket, select.POLLIN)
            return bool(poll.poll(0))
        except (OSError, ValueError):
            return True

    def close(self) -> None:
        try:
            self.reader.close()
        finally:
            self.socket.close()


@dataclass
class _Pool:
    idle: list[_Connection]
    last_used: float
    in_flight: int = 0


@dataclass
class ConnectionPools:
    """Kept-alive connections per pinned address (scheme, host, port, address), up to `connections` idle each.

    `idle_seconds` 0 keeps none: every POST opens and closes its own connection.
    """

    idle_seconds: float
    max_hosts: int = POOL_HOSTS
    connections: int = POOL_CONNECTIONS
    clock: Callable[[], float] = time.monotonic
    ca_file: str | None = None  # the CA bundle https receivers are verified against; None: botocore's (below)
    _pools: OrderedDict[PoolKey, _Pool] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _opened: int = 0
    _tls: ssl.SSLContext | None = None
    _client_tls: dict[str, ssl.SSLContext] = field(default_factory=dict)
    resent: int = 0  # sends repeated on a new connection because the kept one was closed under them

    def take(self, key: PoolKey, connect_timeout: float, client: ClientCertificate | None = None) -> tuple[_Connection, bool]:
        """A kept connection to the key's address and True, or a new one and False (OSError if it cannot connect)."""
        stale: list[_Connection] = []
        kept = None
        with self._lock:
            if self.idle_seconds > 0:
                pool = self._acquire(key, stale)
                while pool.idle and kept is None:
                    candidate = pool.idle.pop()
                    if candidate.dropped():
                        stale.append(candidate)
                    else:
                        kept = candidate
            self._opened += kept is None
        for old in stale:
            old.close()
        if kept is not None:
            return kept, True
        try:
            return _Connection(key, connect_timeout, self._tls_context if client is None else lambda: self._client_context(client)), False
        except BaseException:
            self._done(key)
            raise

    def give_back(self, key: PoolKey, connection: _Connection | None) -> None:
        """The send on the key's address is over; `connection` may carry another (None: it was closed)."""
        with self._lock:
            pool = self._pools.get(key) if self.idle_seconds > 0 else None
            if pool is not None:
                pool.in_flight -= 1
                pool.last_used = self.clock()
                if connection is not None and len(pool.idle) < self.connections:
                    connection.idle_since = pool.last_used
                    pool.idle.append(connection)
                    return
        if connection is not None:
            connection.close()

    def _done(self, key: PoolKey) -> None:
        self.give_back(key, None)

    def _acquire(self, key: PoolKey, stale: list[_Connection]) -> _Pool:
        now = self.clock()
        for old in [k for k, p in self._pools.items() if p.in_flight == 0 and now - p.last_used >= self.idle_seconds]:
            stale.extend(self._pools.pop(old).idle)
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = _Pool([], now)
        self._pools.move_to_end(key)
        pool.in_flight += 1
        pool.last_used = now
        while len(self._pools) > self.max_hosts:
            oldest = next((k for k, p in self._pools.items() if p.in_flight == 0), None)
            if oldest is None:
                break
            stale.extend(self._pools.pop(oldest).idle)
        return pool

    def _tls_context(self) -> ssl.SSLContext:
        if self._tls is None:
            # the CA bundle botocore trusts, as the DynamoDB transport does (hookline.adapters.dynamo.transport):
            # certifi's where it is installed, else botocore's own; imported here, as botocore's HTTP session brings
            # urllib3 and most of botocore, which a cold start need not import before its first delivery
            from botocore.httpsession import get_cert_path

            self._tls = ssl.create_default_context(cafile=self.ca_file or get_cert_path(True))
        return self._tls

    def _client_context(self, client: ClientCertificate) -> ssl.SSLContext:
        """A context that verifies the receiver as _tls_context does and presents the client certificate; one per
        certificate, made on its first handshake."""
        with self._lock:
            made = self._client_tls.get(client.name)
        if made is None:
            from botocore.httpsession import get_cert_path

            made = ssl.create_default_context(cafile=self.ca_file or get_cert_path(True))
            made.load_cert_chain(client.cert_file, client.key_file)
            with self._lock:
                self._client_tls[client.name] = made
        return made

    def count_resend(self) -> None:
        with self._lock:
            self.resent += 1

    def opened(self) -> int:
        """Connections opened so far (each a DNS-free TCP connect, and a TLS handshake for https): what pooling saves."""
        with self._lock:
            return self._opened

    def kept(self) -> list[PoolKey]:
        with self._lock:
            return list(self._pools)

    def close(self) -> None:
        with self._lock:
            kept = [c for p in self._pools.values() for c in p.idle]
            self._pools.clear()
        for c in kept:
            c.close()


class WebhookClient:
    def __init__(
        self,
        connect_timeout: float,
        request_timeout: float,
        body_limit: int,
        policy: ssrf.UrlPolicy | None = None,
        resolver: Resolver = system_resolver,
        keepalive_seconds: float = 0.0,
    ):
        self._connect_timeout = connect_timeout
        self._request_timeout = request_timeout
        self._body_limit = body_limit
        self._policy = policy or ssrf.UrlPolicy()
        self._resolve = resolver
        self.pools = ConnectionPools(keepalive_seconds)

    @property
    def request_timeout(self) -> float:
        return self._request_timeout

    def post(self, url: str, body: bytes, headers: Mapping[str, str], client: ClientCertificate | None = None, deadline: float | None = None) -> HttpResult:
        """One POST; `client`: the certificate to present when the receiver asks for one (https only); `deadline`: a
        time.monotonic() it must end by when that comes before its own request deadline (an attempt that makes several
        requests, an OAuth2 token's and the webhook's, shares one: hookline.adapters.endpoint_auth)."""
        started = time.monotonic()
        target = self._vet(url)
        if isinstance(target, _Refused):
            return _result(started, None, target.error, detail=target.detail)
        parts, ip, port = target
        try:
            request = _request(parts, body, headers)
        except ValueError as exc:
            return _result(started, None, classify.CONNECTION_ERROR, detail=str(exc)[:300])
        key = (parts.scheme, parts.hostname or "", port, ip, client.name if client is not None else "")
        deadline = started + self._request_timeout if deadline is None else min(deadline, started + self._request_timeout)
        try:
            connection, answer = self._send(key, request, started, deadline, client)
        except (OSError, AnswerUnreadable, ValueError) as exc:
            return _result(started, None, _error_class(exc), detail=str(exc)[:300] or type(exc).__name__)
        kept: _Connection | None = None
        try:
            text, whole = self._read_limited(connection, answer, deadline)
            kept = connection if whole and answer.keep else None
        except TimeoutError:
            return _result(started, None, classify.TIMEOUT, detail="response body exceeded the request deadline")
        except (OSError, AnswerUnreadable, ValueError, zlib.error) as exc:
            return _result(started, answer.status, None, detail=str(exc)[:300] or type(exc).__name__)
        finally:
            if kept is None:
                connection.close()
            self.pools.give_back(key, kept)
        return _result(started, answer.status, None, body=text, headers=answer.headers)

    def _send(self, key: PoolKey, request: bytes, started: float, deadline: float, client: ClientCertificate | None = None) -> tuple[_Connection, Head]:
        """POST once; once more when a kept connection was closed under the request, unanswered, within
        RESEND_WITHIN_SECONDS of the send (see the module's note). Both sends share the request's deadline. The
        connection comes back with the answer's head read; the caller gives it back."""
        for last in (False, True):
            connection, kept = self.pools.take(key, min(self._connect_timeout, max(deadline - time.monotonic(), 0.001)), client)
            sent_at = time.monotonic()
            try:
                connection.socket.settimeout(max(deadline - sent_at, 0.001))
                connection.socket.sendall(request)
                return connection, http1.read_head(_Deadlined(connection, deadline).readline)
            except BaseException as exc:
                connection.close()
                self.pools.give_back(key, None)
                closed = isinstance(exc, _CLOSED) and not isinstance(exc, TimeoutError)
                if last or not (kept and closed and time.monotonic() - sent_at <= RESEND_WITHIN_SECONDS):
                    raise
                self.pools.count_resend()
        raise AssertionError("unreachable")

    def _vet(self, url: str) -> tuple[SplitResult, str, int] | _Refused:
        """Resolve the URL's host and run every address through the SSRF guard.

        Returns (url parts, vetted ip, port), or why it may not be contacted. The host is judged and resolved as
        hookline.core.ssrf.lookup_name normalizes it, as endpoint creation judged it.
        """
        try:
            parts = urlsplit(url)
            host = parts.hostname
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError as exc:
            return _Refused(classify.INVALID_URL, str(exc)[:300])
        if parts.scheme not in ("http", "https") or not host:
            return _Refused(classify.INVALID_URL, "not an http(s) URL")
        try:
            why = self._policy.refusal(parts.scheme, host, port)
        except ValueError as exc:
            return _Refused(classify.INVALID_URL, str(exc))
        if why:
            return _Refused(classify.SSRF_BLOCKED, why)
        try:
            addresses = self._resolve(ssrf.lookup_name(host), port)
        except (OSError, UnicodeError, ValueError) as exc:
            return _Refused(classify.DNS_FAILURE, str(exc))
        if not addresses:
            return _Refused(classify.DNS_FAILURE, "no addresses")
        try:
            vetted = [str(ssrf.check(a, self._policy.allowed_networks)) for a in addresses]
        except ssrf.AddressRefused as exc:
            return _Refused(classify.SSRF_BLOCKED, str(exc))
        except ValueError as exc:
            return _Refused(classify.DNS_FAILURE, str(exc))
        return parts, vetted[0], port

    def _read_limited(self, connection: _Connection, answer: Head, deadline: float) -> tuple[str, bool]:
        """The body's first `body_limit` bytes as text, and whether the body was read to its end (a connection left
        in the middle of one is closed, not kept). TimeoutError past the request's deadline."""
        limit = self._body_limit
        decoder = _decoder(answer.headers)
        chunks: list[bytes] = []
        size = 0
        whole = True
        for chunk, last in http1.body(_Deadlined(connection, deadline), answer):
            data = decoder.decompress(chunk, limit - size) if decoder is not None else chunk
            chunks.append(data)
            size += len(data)
            if size >= limit:
                whole = last
                break
        return b"".join(chunks)[:limit].decode("utf-8", errors="replace"), whole


def request_size(url: str, body: bytes, headers: Mapping[str, str]) -> int:
    """The bytes a POST of `body` with `headers` to `url` puts on the wire (TLS aside): request line, headers, body."""
    return len(_request(urlsplit(url), body, headers))


def _request(parts: SplitResult, body: bytes, headers: Mapping[str, str]) -> bytes:
    """The POST's request line, headers and body, as bytes; ValueError for a header that would break the request."""
    target = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~") + (f"?{quote(parts.query, safe='=&%:@!$()*+,;/?-._~')}" if parts.query else "")
    lines = [f"POST {target} HTTP/1.1", f"Host: {parts.netloc.rsplit('@', 1)[-1]}"]
    for name, value in headers.items():
        if name.lower() in ("host", "content-length", "connection", "transfer-encoding"):
            continue
        if any(c in name for c in "\r\n:") or "\r" in value or "\n" in value:
            raise ValueError(f"a header that would break the request: {name!r}")
        lines.append(f"{name}: {value}")
    lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


class _Deadlined:
    """Reads of a connection's answer, every wait on the socket bounded by the time the request has left (TimeoutError
    past it). A buffered readline waits once per piece that arrives, each with the socket's whole timeout, so a
    receiver dripping its head a byte at a time would hold the request past its deadline: a line is read one wait at
    a time instead, from what the buffer holds."""

    def __init__(self, connection: _Connection, deadline: float):
        self._connection = connection
        self._deadline = deadline

    def _arm(self) -> None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        self._connection.socket.settimeout(left)

    def read(self, size: int) -> bytes:
        self._arm()
        return bytes(self._connection.reader.read1(size))

    def readline(self, most: int) -> bytes:
        """One line of at most `most` bytes (b"" at the connection's end)."""
        reader = self._connection.reader
        parts: list[bytes] = []
        size = 0
        while size < most:
            self._arm()
            held = reader.peek(1)  # what the buffer holds, after at most one wait on the socket
            if not held:
                break
            end = held.find(b"\n", 0, most - size)
            piece = reader.read(end + 1 if end >= 0 else min(len(held), most - size))  # buffered: no wait
            parts.append(piece)
            size += len(piece)
            if end >= 0:
                break
        return b"".join(parts)

    def line(self) -> bytes:
        return self.readline(MOST_HEAD_BYTES)


def _decoder(headers: Mapping[str, str]) -> Any:
    encoding = http1.header(headers, "content-encoding").lower().strip()
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    return None


def _result(started: float, status: int | None, error: str | None, **kw: Any) -> HttpResult:
    return HttpResult(status, error, int((time.monotonic() - started) * 1000), **kw)


def _error_class(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError):
        return classify.TIMEOUT
    if isinstance(exc, ssl.SSLError | ssl.CertificateError):
        return classify.TLS_ERROR
    if isinstance(exc, ConnectionRefusedError):
        return classify.CONNECTION_REFUSED
    if isinstance(exc, _CLOSED):
        return classify.CONNECTION_RESET
    return classify.CONNECTION_ERROR
