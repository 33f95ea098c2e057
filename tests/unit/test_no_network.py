"""The unit tier's network block (tests/unit/conftest.py) really blocks, loudly, and only the network."""

from __future__ import annotations

import http.client
import socket
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.unit.conftest import NetworkBlocked

UNIT = Path(__file__).parent


def _raw_connect() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.connect(("127.0.0.1", 9))


def _raw_connect_ex() -> None:
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
        s.connect_ex(("::1", 9))


@pytest.mark.parametrize(
    "reach",
    [
        _raw_connect,
        _raw_connect_ex,
        lambda: socket.create_connection(("127.0.0.1", 9), timeout=1),
        lambda: socket.getaddrinfo("example.com", 443),
        lambda: http.client.HTTPConnection("127.0.0.1", 9, timeout=1).request("GET", "/"),
        lambda: urllib.request.urlopen("http://example.com/", timeout=1),
    ],
    ids=["connect", "connect_ex", "create_connection", "getaddrinfo", "http.client", "urllib"],
)
def test_every_way_out_raises_network_blocked(reach: Callable[[], Any], no_network: list[str]) -> None:
    # When a unit test reaches for the network, Then it gets NetworkBlocked, not a connection error that code might handle
    with pytest.raises(NetworkBlocked):
        reach()
    assert len(no_network) == 1
    no_network.clear()  # provoked on purpose: do not fail this test at teardown


def test_network_blocked_is_not_an_os_error() -> None:
    # Code that turns OSError into "the receiver is down" (the HTTP sender does) must not swallow the block
    assert not issubclass(NetworkBlocked, OSError)


def test_a_swallowed_attempt_is_still_recorded_for_the_teardown_check(no_network: list[str]) -> None:
    # Given code that hides every exception
    try:
        socket.create_connection(("10.0.0.1", 80))
    except Exception:  # what careless code does; the fixture must still see the attempt
        pass
    # Then the attempt is on record, and the fixture would fail the test at teardown
    assert no_network == ["create_connection ('10.0.0.1', 80)"]
    no_network.clear()


def test_unix_sockets_still_work() -> None:
    # Positive control: the block is aimed at the network, not at every socket
    left, right = socket.socketpair()
    with left, right:
        left.sendall(b"ping")
        assert right.recv(4) == b"ping"


def test_unix_domain_connect_still_works(tmp_path: Path) -> None:
    path = str(tmp_path / "s")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        server.bind(path)
        server.listen(1)
        client.connect(path)
        conn, _ = server.accept()
        with conn:
            client.sendall(b"ok")
            assert conn.recv(2) == b"ok"


def test_no_unit_test_imports_moto_or_boto3() -> None:
    # The unit tier is pure and service tests over in-memory fakes; moto belongs to tests/integration
    offenders = [
        str(path.relative_to(UNIT))
        for path in UNIT.rglob("*.py")
        for line in path.read_text().splitlines()
        if line.lstrip().startswith(("import moto", "from moto", "import boto3", "from boto3", "import botocore", "from botocore"))
    ]
    assert offenders == []
