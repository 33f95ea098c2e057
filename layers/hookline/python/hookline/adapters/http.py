"""The webhook HTTP client: one POST, SSRF-guarded, pinned to the vetted address, over kept-alive connections.

The hostname is resolved once per POST, every address is checked by the SSRF
guard, and the connection goes to the vetted address, so a DNS answer that
changes between check and connect (rebinding) cannot slip through. TLS still
verifies the certificate against the hostname and sends it as SNI. Redirects
are never followed, proxies from the environment are ignored, and only the
first bytes of the response body are kept.

Connections are kept between POSTs (`ConnectionPools`), per (scheme, host, port,
vetted address): a connection is reused only to the very address the guard just
approved for this POST, and a DNS answer that changed opens a new one. A warm
Lambda instance keeps them across batches, so a busy endpoint pays its DNS, TCP
and TLS handshake once per keep-alive, not per webhook; one unused for the idle
time is closed, and at most POOL_HOSTS addresses are kept, the least recently
used closed first.

A receiver may close a kept connection sooner (Node's and Apache's servers do
after 5 s). urllib3 notices a connection closed before the next send and opens
a new one; a send that meets a kept connection closed under it (the receiver's
close on its way as the request went out: no answer, the connection gone) is
sent once more (on another kept connection or a new one, in the time the
request has left), as Go's HTTP client does for a request that carries an
idempotency key: the webhook's id is one, and receivers drop duplicates by it
(Standard Webhooks). Only a failure within RESEND_WITHIN_SECONDS of the send
counts as such a close; a send that opened a connection is never repeated.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.client import RemoteDisconnected
from http.cookiejar import DefaultCookiePolicy
from typing import Any
from urllib.parse import SplitResult, urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

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


class _PinnedAdapter(HTTPAdapter):
    """Connects to one vetted IP while TLS checks the certificate for the hostname."""

    def __init__(self, ip: str, hostname: str, connections: int = 1):
        self._ip = ip
        self._hostname = hostname
        self.connects = 0  # sockets it set out to connect (a dropped connection urllib3 reconnects counts again)
        self._connects_lock = threading.Lock()
        super().__init__(max_retries=0, pool_connections=1, pool_maxsize=connections)
        self.poolmanager.pool_classes_by_scheme = {
            "http": _counting_pool(HTTPConnectionPool, HTTPConnection, self),
            "https": _counting_pool(HTTPSConnectionPool, HTTPSConnection, self),
        }

    def connecting(self) -> None:
        _this_send.connected = True
        with self._connects_lock:
            self.connects += 1

    def build_connection_pool_key_attributes(self, request: Any, verify: Any, cert: Any = None) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
        host_params["host"] = self._ip
        if host_params.get("scheme") == "https":
            pool_kwargs["server_hostname"] = self._hostname
            pool_kwargs["assert_hostname"] = self._hostname
        return host_params, pool_kwargs


_this_send = threading.local()  # whether the send on this thread set out to connect (urllib3 connects on the sender's thread)


def _counting_pool(pool: type[HTTPConnectionPool], connection: type[HTTPConnection], adapter: _PinnedAdapter) -> type[HTTPConnectionPool]:
    """The urllib3 pool class whose connections tell the adapter, and the send on this thread, each time they set out
    to connect a socket (a TLS handshake that fails counts: it was a connection opened, and never a kept one)."""

    class Counting(connection):  # type: ignore[valid-type,misc]
        def connect(self) -> None:
            adapter.connecting()
            super().connect()

    return type(f"Counting{pool.__name__}", (pool,), {"ConnectionCls": Counting})


RESEND_WITHIN_SECONDS = 1.0  # a kept connection closed under a send fails it at once; a later failure is the receiver's
POOL_HOSTS = 256  # pinned addresses whose connections are kept at once; the least recently used beyond are closed
POOL_CONNECTIONS = 10  # connections kept per pinned address (a batch's requests to one endpoint run side by side)

PoolKey = tuple[str, str, int, str]  # scheme, hostname, port, the vetted address connected to


@dataclass
class _Pool:
    session: requests.Session
    adapter: _PinnedAdapter
    last_used: float
    in_flight: int = 0


@dataclass
class ConnectionPools:
    """Kept-alive connections per pinned address: a session (one pinned adapter) per (scheme, host, port, address).

    `idle_seconds` 0 keeps none: every POST opens and closes its own connection.
    """

    idle_seconds: float
    max_hosts: int = POOL_HOSTS
    connections: int = POOL_CONNECTIONS
    clock: Callable[[], float] = time.monotonic
    _pools: OrderedDict[PoolKey, _Pool] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closed_connections: int = 0
    resent: int = 0  # sends repeated on a new connection because the kept one was closed under them

    @contextmanager
    def session(self, key: PoolKey) -> Iterator[requests.Session]:
        """The session that connects to the key's address only, for one request."""
        if self.idle_seconds <= 0:
            with _new_session(key, 1) as (session, adapter):
                try:
                    yield session
                finally:
                    with self._lock:
                        self._closed_connections += _opened(adapter)
            return
        pool = self._acquire(key)
        try:
            yield pool.session
        finally:
            with self._lock:
                pool.in_flight -= 1
                pool.last_used = self.clock()

    def _acquire(self, key: PoolKey) -> _Pool:
        with self._lock:
            now = self.clock()
            for stale in [k for k, p in self._pools.items() if p.in_flight == 0 and now - p.last_used >= self.idle_seconds]:
                self._close(stale)
            pool = self._pools.get(key)
            if pool is None:
                session, adapter = _session(key, self.connections)
                pool = self._pools[key] = _Pool(session, adapter, now)
            self._pools.move_to_end(key)
            pool.in_flight += 1
            pool.last_used = now
            while len(self._pools) > self.max_hosts:
                oldest = next((k for k, p in self._pools.items() if p.in_flight == 0), None)
                if oldest is None:
                    break
                self._close(oldest)
            return pool

    def _close(self, key: PoolKey) -> None:
        pool = self._pools.pop(key)
        self._closed_connections += _opened(pool.adapter)
        pool.session.close()

    def count_resend(self) -> None:
        with self._lock:
            self.resent += 1

    def opened(self) -> int:
        """Connections opened so far (each a DNS-free TCP connect, and a TLS handshake for https): what pooling saves."""
        with self._lock:
            return self._closed_connections + sum(_opened(p.adapter) for p in self._pools.values())

    def kept(self) -> list[PoolKey]:
        with self._lock:
            return list(self._pools)

    def close(self) -> None:
        with self._lock:
            for key in list(self._pools):
                self._close(key)


def _session(key: PoolKey, connections: int) -> tuple[requests.Session, _PinnedAdapter]:
    scheme, hostname, _port, ip = key
    session = requests.Session()
    session.trust_env = False  # never route through an environment proxy
    session.cookies.set_policy(DefaultCookiePolicy(allowed_domains=[]))  # a receiver's Set-Cookie is never sent back
    adapter = _PinnedAdapter(ip, hostname, connections)
    session.mount(f"{scheme}://", adapter)
    return session, adapter


@contextmanager
def _new_session(key: PoolKey, connections: int) -> Iterator[tuple[requests.Session, _PinnedAdapter]]:
    session, adapter = _session(key, connections)
    with session:
        yield session, adapter


def _opened(adapter: _PinnedAdapter) -> int:
    """The connections the adapter's pools opened: each socket it set out to connect, a reconnect of a dropped one included."""
    return adapter.connects


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

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> HttpResult:
        started = time.monotonic()
        target = self._vet(url)
        if isinstance(target, _Refused):
            return _result(started, None, target.error, detail=target.detail)
        parts, ip, port = target
        send_headers = dict(headers)
        send_headers["Host"] = parts.netloc.rsplit("@", 1)[-1]
        key = (parts.scheme, parts.hostname or "", port, ip)
        with self.pools.session(key) as session:
            try:
                response = self._send(session, url, body, send_headers)
            except requests.exceptions.RequestException as exc:
                return _result(started, None, _error_class(exc), detail=str(exc)[:300])
            with response:
                try:
                    text = self._read_limited(response, started)
                except TimeoutError:
                    return _result(started, None, classify.TIMEOUT, detail="response body exceeded the request deadline")
                except (requests.exceptions.RequestException, OSError) as exc:
                    return _result(started, response.status_code, None, detail=str(exc)[:300])
                return _result(started, response.status_code, None, body=text, headers=dict(response.headers))

    def _send(self, session: requests.Session, url: str, body: bytes, headers: Mapping[str, str]) -> requests.Response:
        """POST once; once more when a kept connection was closed under the request, unanswered, within
        RESEND_WITHIN_SECONDS of the send (see the module's note). Both sends share the request's deadline."""

        def post(request_timeout: float) -> requests.Response:
            timeout = (self._connect_timeout, request_timeout)
            return session.post(url, data=body, headers=headers, timeout=timeout, allow_redirects=False, stream=True)

        _this_send.connected = False
        started = time.monotonic()
        try:
            return post(self._request_timeout)
        except requests.exceptions.ConnectionError as exc:
            elapsed = time.monotonic() - started
            kept = self.pools.idle_seconds > 0 and not _this_send.connected  # it went out on a kept connection, opening none
            if not (kept and elapsed <= RESEND_WITHIN_SECONDS and _closed_unanswered(exc)):
                raise
            self.pools.count_resend()
            # urllib3 dropped the dead connection: the send takes another kept one or opens one, in the time left
            return post(max(self._request_timeout - elapsed, 0.001))

    def _vet(self, url: str) -> tuple[SplitResult, str, int] | _Refused:
        """Resolve the URL's host and run every address through the SSRF guard.

        Returns (url parts, vetted ip, port), or why it may not be contacted.
        """
        parts = urlsplit(url)
        host = parts.hostname
        if parts.scheme not in ("http", "https") or not host:
            return _Refused(classify.INVALID_URL, "not an http(s) URL")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            return _Refused(classify.INVALID_URL, "bad port")
        why = self._policy.refusal(parts.scheme, host, port)
        if why:
            return _Refused(classify.SSRF_BLOCKED, why)
        try:
            addresses = self._resolve(host, port)
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

    def _read_limited(self, response: requests.Response, started: float) -> str:
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_content(chunk_size=1024):
            if time.monotonic() - started > self._request_timeout:
                raise TimeoutError
            chunks.append(chunk)
            size += len(chunk)
            if size >= self._body_limit:
                break
        return b"".join(chunks)[: self._body_limit].decode("utf-8", errors="replace")


def _result(started: float, status: int | None, error: str | None, **kw: Any) -> HttpResult:
    return HttpResult(status, error, int((time.monotonic() - started) * 1000), **kw)


_CLOSED = (RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError)


def _closed_unanswered(exc: BaseException) -> bool:
    """Whether the error is the peer's close or reset of the connection (urllib3 wraps it in its ProtocolError)."""
    todo, visited = [exc], set()
    while todo:
        error = todo.pop()
        if id(error) in visited:
            continue
        visited.add(id(error))
        if isinstance(error, _CLOSED):
            return True
        todo.extend(a for a in error.args if isinstance(a, BaseException))
        todo.extend(e for e in (error.__cause__, error.__context__) if e is not None)
    return False


def _error_class(exc: requests.exceptions.RequestException) -> str:
    if isinstance(exc, requests.exceptions.Timeout):
        return classify.TIMEOUT
    if isinstance(exc, requests.exceptions.SSLError):
        return classify.TLS_ERROR
    text = repr(exc).lower()
    if "refused" in text:
        return classify.CONNECTION_REFUSED
    if "reset" in text or "aborted" in text or "remotedisconnected" in text:
        return classify.CONNECTION_RESET
    if "timed out" in text or "timeout" in text:
        return classify.TIMEOUT
    return classify.CONNECTION_ERROR
