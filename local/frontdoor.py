"""An API Gateway HTTP API look-alike: HTTP in, payload-v2.0 Lambda events out.

For every request except `GET /health` it first runs the Lambda authorizer
(payload v2 REQUEST event, simple responses), caching its answer per
Authorization header for `authorizer_cache_seconds` as API Gateway does, then
hands the request to the API function with the authorizer's context under
`requestContext.authorizer.lambda`.
"""

from __future__ import annotations

import base64
import json
import logging
import socket
import threading
import time
import traceback
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from hookline.core.errors import envelope
from local.lambda_runtime import ACCOUNT_ID

log = logging.getLogger(__name__)

Invoke = Callable[[dict[str, Any]], Any]

API_ID = "local"
STAGE = "$default"
PROXY_ROUTE = "ANY /v1/{proxy+}"
DEFAULT_ROUTE = "$default"
PUBLIC_ROUTES = frozenset({("GET", "/health"), ("GET", "/portal")})
PORTAL_ASSET_ROUTE = "GET /portal/{name}"  # the portal page's files: public too, one path segment
IDENTITY_HEADER = "authorization"
# What the HTTP server refuses before a request reaches the pipeline (BaseHTTPRequestHandler: a request line over
# LINE_LIMIT bytes is 414; a header line over it, or more than HEADER_COUNT_LIMIT headers, 431; a request line it
# cannot parse, 400; an HTTP version it does not speak, 505), by the code of hookline's JSON error envelope.
LINE_LIMIT = 65_536  # http.server reads at most this much of the request line, and http.client (_MAXLINE) of a header line
HEADER_COUNT_LIMIT = 100  # http.client (_MAXHEADERS)
UNPARSED_ERRORS = {414: "uri_too_long", 431: "headers_too_large", 505: "http_version_not_supported"}
# After refusing a request it did not read whole, the front door reads (and drops) what the client still sends, for at
# most this long, before closing: closing a socket with unread data makes the kernel reset the connection, and a
# client that gets the reset may lose the answer it has not yet read.
LINGER_SECONDS = 2.0
LINGER_MAX_BYTES = 1 << 20
# Connections waiting to be accepted: a burst of 200 is held (socketserver's default is 5; the rest were dropped or reset).
# The OS clamps listen()'s backlog: Linux to net.core.somaxconn (4096 since kernel 5.4, 128 before), macOS to
# kern.ipc.somaxconn (128 by default), where a burst beyond that waits for the client's SYN retries.
LISTEN_BACKLOG = 256


@dataclass(frozen=True)
class IncomingRequest:
    method: str
    target: str  # path and query string, as on the request line
    headers: list[tuple[str, str]]
    body: bytes
    source_ip: str
    protocol: str = "HTTP/1.1"


@dataclass(frozen=True)
class Reply:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


def route_key(method: str, path: str) -> str:
    """The stack's routes (infra/api.py): `GET /health`, `GET /portal` and `GET /portal/{name}` (no authorizer) and `ANY /v1/{proxy+}`.

    Anything else is `$default`, which the stack routes to the api function
    without the authorizer; it answers a JSON 404, or 405 with `Allow`.
    """
    if (method, path) in PUBLIC_ROUTES:
        return f"{method} {path}"
    if method == "GET" and path.startswith("/portal/") and "/" not in path.removeprefix("/portal/") and len(path) > len("/portal/"):
        return PORTAL_ASSET_ROUTE
    if path.startswith("/v1/") and len(path) > len("/v1/"):
        return PROXY_ROUTE
    return DEFAULT_ROUTE


def _join_headers(headers: list[tuple[str, str]]) -> tuple[dict[str, str], list[str]]:
    joined: dict[str, str] = {}
    cookies: list[str] = []
    for name, value in headers:
        key = name.lower()
        if key == "cookie":
            cookies.extend(c.strip() for c in value.split(";") if c.strip())
            continue
        joined[key] = f"{joined[key]},{value}" if key in joined else value
    return joined, cookies


def build_http_event(request: IncomingRequest, *, region: str, domain: str) -> dict[str, Any]:
    """The API Gateway HTTP API payload-v2.0 event for one request (no authorizer context yet)."""
    split = urlsplit(request.target)
    path = unquote(split.path) or "/"
    raw_query = split.query
    headers, cookies = _join_headers(request.headers)
    headers.setdefault("x-forwarded-proto", "http")  # API Gateway sets it (https there); portal links are built from it
    query: dict[str, str] = {}
    for name, value in parse_qsl(raw_query, keep_blank_values=True):
        query[name] = f"{query[name]},{value}" if name in query else value
    now = time.time()
    key = route_key(request.method, path)
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": key,
        "rawPath": path,
        "rawQueryString": raw_query,
        "headers": headers,
        "requestContext": {
            "accountId": ACCOUNT_ID,
            "apiId": API_ID,
            "domainName": domain,
            "domainPrefix": domain.split(".", 1)[0],
            "http": {
                "method": request.method,
                "path": path,
                "protocol": request.protocol,
                "sourceIp": request.source_ip,
                "userAgent": headers.get("user-agent", ""),
            },
            "requestId": str(uuid.uuid4()),
            "routeKey": key,
            "stage": STAGE,
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "isBase64Encoded": False,
    }
    if cookies:
        event["cookies"] = cookies
    if query:
        event["queryStringParameters"] = query
    if key == PROXY_ROUTE:
        event["pathParameters"] = {"proxy": path[len("/v1/") :]}
    if request.body:
        try:
            event["body"] = request.body.decode("utf-8")
        except UnicodeDecodeError:
            event["body"] = base64.b64encode(request.body).decode("ascii")
            event["isBase64Encoded"] = True
    return event


def build_authorizer_event(http_event: dict[str, Any], identity: str, *, region: str) -> dict[str, Any]:
    """The HTTP API Lambda-authorizer payload-v2 REQUEST event for an HTTP event."""
    ctx = http_event["requestContext"]
    route_arn = f"arn:aws:execute-api:{region}:{ACCOUNT_ID}:{API_ID}/{STAGE}/{ctx['http']['method']}{http_event['rawPath']}"
    event: dict[str, Any] = {
        "version": "2.0",
        "type": "REQUEST",
        "routeArn": route_arn,
        "identitySource": [identity],
        "routeKey": http_event["routeKey"],
        "rawPath": http_event["rawPath"],
        "rawQueryString": http_event["rawQueryString"],
        "headers": dict(http_event["headers"]),
        "requestContext": {k: v for k, v in ctx.items() if k != "authorizer"},
        "stageVariables": {},
    }
    for optional in ("cookies", "queryStringParameters", "pathParameters"):
        if optional in http_event:
            event[optional] = http_event[optional]
    return event


def _json_reply(status: int, payload: dict[str, Any], extra: list[tuple[str, str]] | None = None) -> Reply:
    return Reply(status, [("content-type", "application/json"), *(extra or [])], json.dumps(payload).encode())


def error_reply(status: int, code: str, message: str) -> Reply:
    return _json_reply(status, envelope(code, message))


def lambda_result_to_reply(result: Any) -> Reply:
    """Turn an HTTP API payload-v2 Lambda result into an HTTP reply, as API Gateway does."""
    if not (isinstance(result, dict) and "statusCode" in result):
        # API Gateway infers a 200 JSON response from anything else.
        return Reply(200, [("content-type", "application/json")], json.dumps(result).encode())
    headers: list[tuple[str, str]] = [(str(k), str(v)) for k, v in (result.get("headers") or {}).items()]
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers.extend((str(name), str(v)) for v in values)
    headers.extend(("set-cookie", str(c)) for c in result.get("cookies") or [])
    body = result.get("body")
    if body is None:
        raw = b""
    elif result.get("isBase64Encoded"):
        raw = base64.b64decode(body)
    else:
        raw = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode()
    return Reply(int(result["statusCode"]), headers, raw)


@dataclass(frozen=True)
class AuthDecision:
    authorized: bool
    context: dict[str, Any]


def parse_authorizer_result(result: Any) -> AuthDecision:
    """Simple responses ({"isAuthorized", "context"}); IAM-policy answers are understood too."""
    if not isinstance(result, dict):
        raise ValueError(f"authorizer returned {type(result).__name__}, not an object")
    context = result.get("context") or {}
    if "isAuthorized" in result:
        return AuthDecision(result["isAuthorized"] is True, dict(context))
    policy = result.get("policyDocument")
    if isinstance(policy, dict):
        statements = policy.get("Statement") or []
        allowed = any(s.get("Effect") == "Allow" for s in statements) and not any(s.get("Effect") == "Deny" for s in statements)
        return AuthDecision(allowed, dict(context))
    raise ValueError("authorizer answer has neither isAuthorized nor policyDocument")


class AuthorizerCache:
    def __init__(self, ttl_seconds: float, clock: Callable[[], float] = time.monotonic):
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._entries: dict[str, tuple[float, AuthDecision]] = {}
        self._lock = threading.Lock()

    def get(self, identity: str) -> AuthDecision | None:
        if self.ttl_seconds <= 0:
            return None
        with self._lock:
            entry = self._entries.get(identity)
            if entry is None:
                return None
            if entry[0] < self._clock():
                del self._entries[identity]
                return None
            return entry[1]

    def put(self, identity: str, decision: AuthDecision) -> None:
        if self.ttl_seconds <= 0:
            return
        with self._lock:
            self._entries[identity] = (self._clock() + self.ttl_seconds, decision)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


class Gateway:
    """The request pipeline (authorizer, then API), independent of the HTTP server."""

    def __init__(self, api: Invoke, authorizer: Invoke, *, region: str, authorizer_cache_seconds: float, clock: Callable[[], float] = time.monotonic):
        self.api = api
        self.authorizer = authorizer
        self.region = region
        self.cache = AuthorizerCache(authorizer_cache_seconds, clock)

    def handle(self, request: IncomingRequest, domain: str) -> Reply:
        event = build_http_event(request, region=self.region, domain=domain)
        # $default (no other route matches) goes to the api function unauthorized, as in the stack: a JSON 404 or 405.
        if (request.method, event["rawPath"]) not in PUBLIC_ROUTES and event["routeKey"] not in (PORTAL_ASSET_ROUTE, DEFAULT_ROUTE):
            identity = event["headers"].get(IDENTITY_HEADER, "").strip()
            if not identity:
                return error_reply(401, "unauthorized", "Missing Authorization header.")
            decision = self.cache.get(identity)
            if decision is None:
                try:
                    decision = parse_authorizer_result(self.authorizer(build_authorizer_event(event, identity, region=self.region)))
                except Exception:
                    log.error("authorizer failed:\n%s", traceback.format_exc())
                    return error_reply(500, "internal_error", "Internal Server Error")
                self.cache.put(identity, decision)
            if not decision.authorized:
                return error_reply(401, "unauthorized", "Invalid, expired or revoked API key or portal session.")
            event["requestContext"]["authorizer"] = {"lambda": decision.context}
        try:
            result = self.api(event)
        except Exception:
            log.error("api function failed:\n%s", traceback.format_exc())
            return error_reply(500, "internal_error", "Internal Server Error")
        try:
            return lambda_result_to_reply(result)
        except Exception:
            log.error("api function returned a malformed response: %r", result)
            return error_reply(502, "internal_error", "Internal Server Error")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _GatewayServer

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():  # trailers
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        request = IncomingRequest(
            method=self.command,
            target=self.path,
            headers=list(self.headers.items()),
            body=self._read_body(),
            source_ip=self.client_address[0],
            protocol=self.request_version,
        )
        domain = self.headers.get("host") or f"127.0.0.1:{self.server.server_address[1]}"
        with self.server.in_flight:  # local mode's pollers hold off their next batch meanwhile (local.priority)
            reply = self.server.gateway.handle(request, domain)
        self.send_response(reply.status)
        names = {name.lower() for name, _ in reply.headers}
        for name, value in reply.headers:
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        if "content-type" not in names and reply.body:
            self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def do_PUT(self) -> None:
        self._handle()

    def do_PATCH(self) -> None:
        self._handle()

    def do_DELETE(self) -> None:
        self._handle()

    def do_OPTIONS(self) -> None:
        self._handle()

    def do_HEAD(self) -> None:
        self._handle()

    def __getattr__(self, name: str) -> Any:
        """Any other method (TRACE, CONNECT, a made-up one) goes through the pipeline too, which answers it in
        hookline's JSON shape, where BaseHTTPRequestHandler would send an HTML 501."""
        if name.startswith("do_"):
            return self._handle
        raise AttributeError(name)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """What BaseHTTPRequestHandler refuses itself (UNPARSED_ERRORS) is answered in hookline's JSON error envelope,
        where it would send an HTML page; the connection is then closed, after the rest of the request is read."""
        reason = message or self.responses.get(code, ("Bad Request",))[0]
        log.warning("front door refused a request from %s: %d %s", self.address_string(), code, reason)
        reply = error_reply(code, UNPARSED_ERRORS.get(code, "bad_request"), f"{reason} ({explain})" if explain and explain != reason else reason)
        self.send_response(code)
        self.send_header("connection", "close")
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(reply.body)
        self.close_connection = True
        self._linger()

    def _linger(self) -> None:
        """Half-close, then read what the client still sends until it closes (or LINGER_SECONDS, LINGER_MAX_BYTES)."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(LINGER_SECONDS)
            drained = 0
            while drained < LINGER_MAX_BYTES:
                chunk = self.connection.recv(65536)
                if not chunk:
                    return
                drained += len(chunk)
        except OSError:
            return

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)


class _GatewayServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = LISTEN_BACKLOG
    in_flight: AbstractContextManager[Any]
    gateway: Gateway


class FrontDoor:
    """The HTTP server on 127.0.0.1 in a background thread."""

    def __init__(self, gateway: Gateway, *, host: str = "127.0.0.1", port: int = 0, in_flight: AbstractContextManager[Any] | None = None):
        self.gateway = gateway
        self._server = _GatewayServer((host, port), _Handler)
        self._server.gateway = gateway
        self._server.in_flight = in_flight or nullcontext()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="hookline-frontdoor", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()
