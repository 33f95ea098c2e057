"""Fixtures for tests that run hookline's local mode in-process.

`local_hookline` starts the whole service (embedded moto server, front door,
SQS pollers, the real handlers) on free ports, once per test module, and stops
it afterwards, restoring the environment. `receiver` is a real webhook receiver
on 127.0.0.1 (local.receiver.WebhookReceiver) that verifies every request with
the official standardwebhooks library once its `secret` is set.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
import requests
from moto.server import ThreadedMotoServer

from local.receiver import WebhookReceiver
from local.run import LocalHookline, silence_werkzeug

E2E_TENANT = "acme"
E2E_KEY = "testkey123456"


def find_free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (for servers that cannot take port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def free_port() -> Callable[[], int]:
    return find_free_port


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver(port=0) as r:
        yield r


@contextmanager
def running_local_mode(**env: str) -> Iterator[LocalHookline]:
    """Local mode on free ports (port 0: the OS picks them) with the e2e key and `env` on top of its defaults."""
    hookline = LocalHookline(port=0, aws_port=0, api_keys=f"{E2E_TENANT}:{E2E_KEY}", env=env)
    hookline.start()
    try:
        yield hookline
    finally:
        hookline.stop()


@pytest.fixture(scope="module")
def local_hookline() -> Iterator[LocalHookline]:
    # Retries wait about a second instead of up to a minute.
    with running_local_mode(HOOKLINE_RETRY_BASE_SECONDS="0.5") as hookline:
        yield hookline


def local_api(hl: LocalHookline, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """One request to local mode's API with its key: the status and the JSON answer (None when empty)."""
    r = requests.request(method, f"{hl.base_url}{path}", json=body, headers={"authorization": f"Bearer {hl.api_key}"}, timeout=60)
    return r.status_code, (r.json() if r.content else None)


@pytest.fixture(scope="module")
def api_key(local_hookline: LocalHookline) -> str:
    return local_hookline.api_key


@dataclass(frozen=True)
class MotoEndpoint:
    """A bare moto server, reached through explicit clients (no environment changes)."""

    url: str
    region: str = "us-east-1"

    def session(self) -> boto3.Session:
        return boto3.Session(region_name=self.region, aws_access_key_id="testing", aws_secret_access_key="testing")

    def client(self, service: str) -> Any:
        return self.session().client(service, endpoint_url=self.url)


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[MotoEndpoint]:
    silence_werkzeug()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=find_free_port(), verbose=False)
    server.start()
    try:
        yield MotoEndpoint(f"http://127.0.0.1:{server.get_host_and_port()[1]}")
    finally:
        server.stop()
