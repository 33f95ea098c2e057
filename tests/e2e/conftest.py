"""Fixtures for tests that run hookline's local mode in-process.

`local_hookline` starts the whole service (embedded moto server, front door,
SQS pollers, real handlers) on free ports, once per test module, and stops it
afterwards, restoring the environment. `Receiver` is a real webhook receiver
on 127.0.0.1 that verifies every request with the official standardwebhooks
library.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer
from standardwebhooks.webhooks import Webhook

from local.run import LocalHookline, silence_werkzeug

TEST_TENANT = "acme"
TEST_KEY = "testkey123456"


def free_port() -> int:
    """A TCP port that was free a moment ago (for servers that cannot take port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ReceivedWebhook:
    path: str
    headers: dict[str, str]
    body: bytes
    verified: bool
    error: str = ""


@dataclass
class Receiver:
    """A webhook receiver: verifies with `secret` (once set) and answers `status` (401 if unverified)."""

    secret: str | None = None
    status: int = 200
    received: list[ReceivedWebhook] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/webhook"

    def handle(self, path: str, headers: dict[str, str], body: bytes) -> int:
        verified, error = False, "no secret set"
        if self.secret is not None:
            try:
                Webhook(self.secret).verify(body, headers)
                verified, error = True, ""
            except Exception as exc:  # WebhookVerificationError, or ValueError on a malformed header
                error = repr(exc)
        self.received.append(ReceivedWebhook(path, headers, body, verified, error))
        self.arrived.set()
        return self.status if verified else 401


def _receiver_handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            status = receiver.handle(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            self.send_response(status)
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            return None

    return Handler


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _receiver_handler(r))
    server.daemon_threads = True
    r.server = server
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield r
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture(scope="module")
def local_hookline() -> Iterator[LocalHookline]:
    hookline = LocalHookline(port=0, aws_port=0, api_keys=f"{TEST_TENANT}:{TEST_KEY}")
    hookline.start()
    try:
        yield hookline
    finally:
        hookline.stop()


@dataclass(frozen=True)
class MotoEndpoint:
    url: str
    region: str = "us-east-1"

    def client(self, service: str) -> Any:
        return boto3.client(
            service, endpoint_url=self.url, region_name=self.region, aws_access_key_id="testing", aws_secret_access_key="testing"
        )

    def session(self) -> boto3.Session:
        return boto3.Session(region_name=self.region, aws_access_key_id="testing", aws_secret_access_key="testing")


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[MotoEndpoint]:
    """A bare moto server on a free port, for component tests (no environment changes)."""
    silence_werkzeug()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        yield MotoEndpoint(f"http://127.0.0.1:{server.get_host_and_port()[1]}")
    finally:
        server.stop()
