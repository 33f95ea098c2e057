"""Unit tests never touch the network: no AWS (moto or real), no receivers, no DNS.

Every test here gets `no_network`: connecting an internet socket, resolving a
name or calling `socket.create_connection` raises NetworkBlocked. The exception
is deliberately not an OSError, so code that turns connection errors into
results (the HTTP sender does) cannot mistake it for a receiver being down, and
any attempt that something swallows anyway fails the test at teardown.
Unix-domain sockets stay allowed: they are not the network.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

_REAL_CONNECT = socket.socket.connect
_REAL_CONNECT_EX = socket.socket.connect_ex


class NetworkBlocked(RuntimeError):
    """A unit test tried to reach the network."""


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Yields the list of blocked attempts; a test that provokes one on purpose clears it."""
    attempts: list[str] = []

    def refuse(what: str) -> NetworkBlocked:
        attempts.append(what)
        return NetworkBlocked(f"unit tests may not use the network: {what}")

    def connect(self: socket.socket, address: Any) -> None:
        if self.family == socket.AF_UNIX:
            return _REAL_CONNECT(self, address)
        raise refuse(f"connect {address!r}")

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family == socket.AF_UNIX:
            return _REAL_CONNECT_EX(self, address)
        raise refuse(f"connect_ex {address!r}")

    def create_connection(address: Any, *_: Any, **__: Any) -> socket.socket:
        raise refuse(f"create_connection {address!r}")

    def getaddrinfo(host: Any, port: Any, *_: Any, **__: Any) -> list[Any]:
        raise refuse(f"getaddrinfo {host!r}:{port!r}")

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "create_connection", create_connection)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    yield attempts
    if attempts:
        pytest.fail(f"a unit test reached for the network (blocked, but something swallowed it): {attempts}", pytrace=False)
