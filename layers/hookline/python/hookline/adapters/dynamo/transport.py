"""DynamoDB's requests sent on kept connections of hookline's own, signed here, without botocore's HTTP stack.

A DynamoDB call through boto3 costs about 1.3 ms of CPU at full speed (docs/benchmarks.md), and half of it comes
after the request is built: botocore's SigV4 signer, urllib3, http.client and its model-driven response parser.
The delivery handler makes three such writes a task, so that half was most of what stood between its CPU and
issue 28's goal. `FastSend` does that half in about a fifth of the time:

* It is a handler of botocore's `before-call` event on the Table's client, registered last. By then botocore has
  built the request: parameters checked, the resource layer's serialization and condition expressions applied,
  the endpoint resolved, the body serialized; and every earlier `before-call` handler has run (a test's injected
  fault, a stubber's answer).
* It signs the request with SigV4 (`sign`, byte for byte what botocore's signer makes: a test compares them), with
  the client's own credentials (refreshed by botocore as they expire) and the signing key kept for the day.
* It offers the signed request to `before-send`, as botocore does, so whatever answers there still answers (moto's
  in-process mock, which every offline test uses, and botocore's Stubber); else it sends it on a kept connection
  (`Connections`), reads the JSON answer, and returns botocore's (http response, parsed) pair. botocore then emits
  `after-call` (the resource layer deserializes the items) and raises the modeled error for a status of 300 and
  over, as for a request it sent itself; the error's response has the same fields (`parsed`).

What it leaves to botocore, returning None before it sends: another operation than DATA_PLANE's, a proxy, another
signature than SigV4, an endpoint with a path. What it hands to botocore after one try, after a jittered pause
(botocore then sends the request again, with its own retries and backoff, as it would have retried its own try):
a throttle or a transient error (RETRY_CODES), a 5xx, a connection that failed, an answer whose CRC32 is not the
one DynamoDB sent, a signature DynamoDB refused. A kept connection the server closed while it idled (no answer at
all) is not a try: the request goes again at once on a new connection, as urllib3 does.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import os
import random
import re
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.httpsession import get_cert_path
from botocore.parsers import ResponseParserError

from hookline.adapters import http1
from hookline.adapters.http1 import MOST_HEAD_BYTES, ClosedUnanswered

DATA_PLANE = frozenset(
    {"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems"}
)
# botocore's standard retry mode: the throttling and transient error codes it retries (botocore.retries.standard),
# and the signature errors a clock or a credential that just changed can cause: botocore's own send takes them over.
RETRY_CODES = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestThrottledException",
        "TooManyRequestsException",
        "ProvisionedThroughputExceededException",
        "TransactionInProgressException",
        "RequestLimitExceeded",
        "BandwidthLimitExceeded",
        "LimitExceededException",
        "RequestThrottled",
        "SlowDown",
        "PriorRequestNotComplete",
        "EC2ThrottledException",
        "RequestTimeout",
        "RequestTimeoutException",
        "InternalServerError",
        "InvalidSignatureException",
        "SignatureDoesNotMatch",
        "RequestTimeTooSkewed",
        "RequestExpired",
        "ExpiredTokenException",
        "UnrecognizedClientException",
    }
)
# botocore.auth.SIGNED_HEADERS_BLACKLIST: headers SigV4 leaves out of the signature
UNSIGNED_HEADERS = frozenset(
    {
        "baggage",
        "connection",
        "expect",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "traceparent",
        "tracestate",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "user-agent",
        "x-amzn-trace-id",
    }
)
IDLE_SECONDS = 50.0  # a connection idle longer is closed, not reused: AWS's endpoints close theirs after about a minute
HAND_OVER_PAUSE_SECONDS = 1.0  # the most a throttled or failed try waits before botocore's send: its first retry's bound
_DEFAULT_PORTS = {"http": 80, "https": 443}
_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy")
_BINARY_KEY = re.compile(rb'"BS?"\s*:')  # an answer that may hold a binary attribute value (or a name "B" or "BS")

Origin = tuple[str, str, int]  # scheme, host, port


class HandOver(Exception):
    """A try that botocore's own send takes over."""


@dataclass(frozen=True)
class Credentials:
    access_key: str
    secret_key: str
    token: str | None = None


_CLOSED_WHILE_IDLE = (ClosedUnanswered, BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class Connection:
    """One HTTP/1.1 connection (TLS for https): a request written whole, its answer read whole as
    hookline.adapters.http1 reads one (it is the `http1.Reading` of its own answers)."""

    def __init__(self, origin: Origin, connect_timeout: float, read_timeout: float, tls: ssl.SSLContext | None):
        scheme, host, port = origin
        raw = socket.create_connection((host, port), timeout=connect_timeout)
        try:
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._socket = tls.wrap_socket(raw, server_hostname=host) if scheme == "https" and tls is not None else raw
        except BaseException:
            raw.close()
            raise
        self._socket.settimeout(read_timeout)
        self._reader = self._socket.makefile("rb")
        self.idle_since = 0.0

    def exchange(self, head: bytes, body: bytes) -> tuple[int, dict[str, str], bytes, bool]:
        """Send a request's `head` (request line and headers, ending in a blank line) and `body`; the answer's
        status, headers (lower-case names), body, and whether the connection may carry another request."""
        self._socket.sendall(head + body)
        answer = http1.read_head(self._reader.readline)
        whole = b"".join(piece for piece, _ in http1.body(self, answer))
        return answer.status, {k.lower(): v for k, v in answer.headers.items()}, whole, answer.keep

    def read(self, size: int) -> bytes:
        return self._reader.read1(size)

    def line(self) -> bytes:
        return self._reader.readline(MOST_HEAD_BYTES)

    def close(self) -> None:
        self._reader.close()
        self._socket.close()


@dataclass
class Connections:
    """Kept HTTP/1.1 connections per origin (scheme, host, port), the most recently used first: each carries one
    request at a time, goes back after a whole answer, and is closed after IDLE_SECONDS idle or when `most_idle`
    others already wait."""

    connect_timeout: float
    read_timeout: float
    most_idle: int
    clock: Callable[[], float] = time.monotonic
    opened: int = 0  # connections opened so far
    _idle: dict[Origin, list[Connection]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _tls: ssl.SSLContext | None = None

    def take(self, origin: Origin) -> tuple[Connection, bool]:
        """A kept connection to `origin` and True, or a new one and False."""
        now = self.clock()
        stale: list[Connection] = []
        kept = None
        with self._lock:
            idle = self._idle.get(origin, [])
            while idle:
                candidate = idle.pop()
                if now - candidate.idle_since <= IDLE_SECONDS:
                    kept = candidate
                    break
                stale.append(candidate)
            if kept is None:
                self.opened += 1
        for old in stale:
            old.close()
        if kept is not None:
            return kept, True
        if origin[0] == "https" and self._tls is None:
            # botocore's bundle: AWS_CA_BUNDLE when set, else its own (certifi's); a certificate it refuses fails the
            # try, and botocore's send, with the client's own `verify`, takes it over
            self._tls = ssl.create_default_context(cafile=os.environ.get("AWS_CA_BUNDLE") or get_cert_path(True))
        return Connection(origin, self.connect_timeout, self.read_timeout, self._tls), False

    def give_back(self, origin: Origin, connection: Connection) -> None:
        connection.idle_since = self.clock()
        with self._lock:
            idle = self._idle.setdefault(origin, [])
            if len(idle) < self.most_idle:
                idle.append(connection)
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            kept, self._idle = [c for idle in self._idle.values() for c in idle], {}
        for c in kept:
            c.close()


@dataclass(frozen=True)
class Target:
    """What a request's URL says to the transport: where to connect, the Host header SigV4 signs (botocore's:
    lowercase, the port only if not the scheme's default), and whether it is a URL the transport sends to (http or
    https, a path of "/", no query)."""

    origin: Origin
    host: str
    sendable: bool


@functools.lru_cache(maxsize=64)
def target(url: str) -> Target:
    parts = urlsplit(url)
    host = str(parts.hostname)
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None and parts.port != _DEFAULT_PORTS.get(parts.scheme):
        host = f"{host}:{parts.port}"
    sendable = parts.scheme in _DEFAULT_PORTS and parts.path in ("", "/") and not parts.query
    port = parts.port or _DEFAULT_PORTS.get(parts.scheme, 0)
    return Target((parts.scheme, str(parts.hostname), port), host, sendable)


class SigningKeys:
    """SigV4 signing keys, derived once per (day, secret, region, service) and kept for the day."""

    def __init__(self) -> None:
        self._keys: dict[tuple[str, str, str, str], bytes] = {}

    def key(self, day: str, secret: str, region: str, service: str) -> bytes:
        wanted = (day, secret, region, service)
        key = self._keys.get(wanted)
        if key is None:
            key = hmac.digest(f"AWS4{secret}".encode(), day.encode(), "sha256")
            for part in (region, service, "aws4_request"):
                key = hmac.digest(key, part.encode(), "sha256")
            if len(self._keys) > 8:  # yesterday's and a rotated secret's
                self._keys.clear()
            self._keys[wanted] = key
        return key


def sign(
    headers: dict[str, str], url: str, body: bytes, credentials: Credentials, region: str, service: str, amz_date: str, keys: SigningKeys
) -> dict[str, str]:
    """`headers` with SigV4's Host, X-Amz-Date, X-Amz-Security-Token and Authorization for a POST of `body` to
    `url` (a path of "/", no query) at `amz_date` (YYYYMMDDTHHMMSSZ): botocore's SigV4Auth, the same bytes."""
    signed = {k: v for k, v in headers.items() if k.lower() not in ("authorization", "x-amz-date", "x-amz-security-token", "host")}
    signed["X-Amz-Date"] = amz_date
    if credentials.token:
        signed["X-Amz-Security-Token"] = credentials.token
    canonical = {k.lower(): " ".join(v.split()) for k, v in signed.items() if k.lower() not in UNSIGNED_HEADERS}
    canonical["host"] = target(url).host
    names = sorted(canonical)
    signed_names = ";".join(names)
    request = "\n".join(("POST", "/", "", *(f"{n}:{canonical[n]}" for n in names), "", signed_names, hashlib.sha256(body).hexdigest()))
    day = amz_date[:8]
    scope = f"{day}/{region}/{service}/aws4_request"
    to_sign = f"AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{hashlib.sha256(request.encode()).hexdigest()}"
    signature = hmac.new(keys.key(day, credentials.secret_key, region, service), to_sign.encode(), "sha256").hexdigest()
    signed["Authorization"] = f"AWS4-HMAC-SHA256 Credential={credentials.access_key}/{scope}, SignedHeaders={signed_names}, Signature={signature}"
    return signed


def _binary(value: Any) -> Any:
    """DynamoDB JSON with its binary attribute values ({"B": base64}, {"BS": [base64, ...]}) as bytes, as botocore's
    parser gives them. Only an attribute value is a dict of one "B" key to a string (or "BS" to strings): a map's
    attribute named B holds an attribute value (a dict), a table named B a list or a dict."""
    if isinstance(value, dict):
        if len(value) == 1:
            if isinstance(b := value.get("B"), str):
                return {"B": base64.b64decode(b)}
            if isinstance(bs := value.get("BS"), list) and all(isinstance(v, str) for v in bs):
                return {"BS": [base64.b64decode(v) for v in bs]}
        return {k: _binary(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_binary(v) for v in value]
    return value


def parsed(status: int, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    """The answer as botocore's JSON parser gives it: the body's fields; for an error, its code and message under
    "Error" beside the error's own fields (a failed condition's "Item"); the ResponseMetadata."""
    try:
        fields: dict[str, Any] = json.loads(body) if body else {}
    except ValueError as exc:
        if status >= 500:
            raise HandOver(f"an unreadable {status} answer") from exc
        raise ResponseParserError(f"DynamoDB's answer is not JSON: {body[:80]!r}") from exc
    if _BINARY_KEY.search(body):
        fields = _binary(fields)
    metadata = {"RequestId": headers.get("x-amzn-requestid", ""), "HTTPStatusCode": status, "HTTPHeaders": headers, "RetryAttempts": 0}
    if status < 300:
        return {**fields, "ResponseMetadata": metadata}
    code = str(fields.pop("__type", "") or status)
    code = code.split(":", 1)[0].rsplit("#", 1)[-1]
    message = fields.get("message", fields.get("Message", ""))
    return {**fields, "Error": {"Code": code, "Message": message}, "ResponseMetadata": metadata}


class FastSend:
    """botocore's `before-call` handler that sends a DynamoDB client's data-plane requests itself (the module's text)."""

    def __init__(self, client: Any, connections: Connections, pause: Callable[[float], None] = time.sleep, now: Callable[[], datetime] | None = None):
        self._client = client
        self._connections = connections
        self._pause = pause
        self._now = now or (lambda: datetime.now(UTC))
        self._keys = SigningKeys()
        self.sent = 0  # requests it sent itself (answered by the endpoint or by a `before-send` handler)
        self.handed_over = 0  # tries botocore's own send took over
        self._counting = threading.Lock()  # a batch's tasks count from many threads at once

    def __call__(self, model: Any, params: dict[str, Any], request_signer: Any, context: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]] | None:
        url = params.get("url", "")
        if model.name not in DATA_PLANE or context.get("auth_type") not in (None, "v4") or self._proxied():
            return None
        to = target(url)
        if not to.sendable:
            return None
        signing = context.get("signing") or {}
        region = signing.get("region") or self._client.meta.region_name
        service = signing.get("signing_name") or self._client.meta.service_model.signing_name
        frozen = request_signer.get_auth_instance(service, region, "v4").credentials
        if frozen is None:
            return None  # botocore raises NoCredentialsError
        body = params["body"] if isinstance(params["body"], bytes) else str(params["body"]).encode()
        credentials = Credentials(frozen.access_key, frozen.secret_key, frozen.token)
        headers = sign(dict(params["headers"]), url, body, credentials, region, service, self._now().strftime("%Y%m%dT%H%M%SZ"), self._keys)
        headers["Content-Length"] = str(len(body))
        prepared = AWSPreparedRequest("POST", url, headers, body, stream_output=False)
        _, answer = self._client.meta.events.emit_until_response(
            f"before-send.{self._client.meta.service_model.service_id.hyphenize()}.{model.name}", request=prepared
        )
        try:
            if answer is not None:
                status, answer_headers, answer_body = answer.status_code, {k.lower(): v for k, v in answer.headers.items()}, answer.content
            else:
                status, answer_headers, answer_body = self._send(to.origin, headers, body)
            result = self._checked(status, answer_headers, answer_body)
        except HandOver:
            with self._counting:
                self.handed_over += 1
            self._pause(random.random() * HAND_OVER_PAUSE_SECONDS)
            return None
        with self._counting:
            self.sent += 1
        response = AWSResponse(url, status, answer_headers, None)
        response._content = answer_body
        return response, result

    def close(self) -> None:
        """Close the connections it keeps."""
        self._connections.close()

    @property
    def connections(self) -> Connections:
        return self._connections

    def _proxied(self) -> bool:
        return bool(self._client.meta.config.proxies) or any(os.environ.get(v) for v in _PROXY_VARIABLES)

    def _checked(self, status: int, headers: dict[str, str], body: bytes) -> dict[str, Any]:
        crc = headers.get("x-amz-crc32")
        if crc is not None and zlib.crc32(body) != int(crc):
            raise HandOver("the answer's CRC32 does not match")
        if status >= 500:
            raise HandOver(f"a {status} answer")
        result = parsed(status, headers, body)
        if status >= 300 and result["Error"]["Code"] in RETRY_CODES:
            raise HandOver(result["Error"]["Code"])
        return result

    def _send(self, origin: Origin, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], bytes]:
        head = _head(headers)
        while True:
            try:
                connection, kept = self._connections.take(origin)
            except OSError as exc:
                raise HandOver(type(exc).__name__) from exc
            try:
                status, answer_headers, answer_body, keep = connection.exchange(head, body)
            except _CLOSED_WHILE_IDLE as exc:
                connection.close()
                if kept:
                    continue  # the server closed it while it idled: no try yet
                raise HandOver(type(exc).__name__) from exc
            except (OSError, ValueError) as exc:
                connection.close()
                raise HandOver(type(exc).__name__) from exc
            if keep:
                self._connections.give_back(origin, connection)
            else:
                connection.close()
            return status, answer_headers, answer_body


def _head(headers: dict[str, str]) -> bytes:
    """A POST to "/" with `headers`: its request line and header lines, as bytes."""
    lines = ["POST / HTTP/1.1"]
    for name, value in headers.items():
        if "\r" in value or "\n" in value or "\r" in name or "\n" in name:
            raise ValueError(f"a header with a line break: {name!r}")
        lines.append(f"{name}: {value}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
