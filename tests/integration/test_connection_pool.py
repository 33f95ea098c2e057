"""Kept-alive connections to receivers (hookline.adapters.http.ConnectionPools), over real sockets on loopback.

A connection is reused only to the address the SSRF guard approved for that very POST: a changed DNS answer opens a
new one, and two addresses never share one. The receiver here speaks HTTP/1.1 keep-alive and counts the connections
it accepts, and the address each request arrived at.
"""

from __future__ import annotations

import ipaddress
import random
import socket
import struct
import threading
from collections.abc import Callable

from hookline.adapters.http import ConnectionPools, WebhookClient
from hookline.core.ssrf import UrlPolicy
from tests.support.receiver import Answer, KeepAliveReceiver, Received, keep_alive_receiver, running_receiver

LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"),)
POLICY = UrlPolicy(LOOPBACK, allow_http=True, allowed_ports=None)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _client(resolver: Callable[[str, int], list[str]], keepalive: float = 4.0, clock: Clock | None = None, max_hosts: int = 256) -> WebhookClient:
    client = WebhookClient(3, 5, 4096, POLICY, resolver=resolver, keepalive_seconds=keepalive)
    client.pools = ConnectionPools(keepalive, max_hosts=max_hosts, clock=clock or Clock())
    return client


def _post(client: WebhookClient, receiver: KeepAliveReceiver) -> None:
    result = client.post(f"http://hooks.example.com:{receiver.port}/webhook", b"{}", {"content-type": "application/json"})
    assert result.status_code == 200, result


def test_webhooks_to_one_address_reuse_one_connection() -> None:
    with keep_alive_receiver() as receiver:
        client = _client(lambda _h, _p: ["127.0.0.1"])
        for _ in range(5):
            _post(client, receiver)
        # Five webhooks, one connection: one TCP handshake (and one TLS handshake, for https)
        assert (receiver.connections, client.pools.opened(), len(receiver.arrived_at)) == (1, 1, 5)
        # And the kept session sends nothing a receiver set: its cookie never comes back
        assert receiver.cookies == [None] * 5


def test_a_changed_dns_answer_opens_a_new_connection_to_the_new_address_only() -> None:
    with keep_alive_receiver() as receiver:
        answers = iter([["127.0.0.1"], ["127.0.0.1"], ["127.0.0.2"], ["127.0.0.2"]])
        client = _client(lambda _h, _p: next(answers))
        for _ in range(4):
            _post(client, receiver)
        # The name moved to another address: the next webhook went there on a connection of its own, never over the
        # connection kept to the address approved before
        assert receiver.arrived_at == ["127.0.0.1", "127.0.0.1", "127.0.0.2", "127.0.0.2"]
        assert receiver.connections == client.pools.opened() == 2
        assert [key[3] for key in client.pools.kept()] == ["127.0.0.1", "127.0.0.2"]


def test_two_addresses_never_share_a_connection() -> None:
    with keep_alive_receiver() as receiver:
        turn = iter(["127.0.0.1", "127.0.0.3"] * 3)
        client = _client(lambda _h, _p: [next(turn)])
        for _ in range(6):
            _post(client, receiver)
        # Alternating addresses: each request arrived at the address approved for it, over that address's connection
        assert receiver.arrived_at == ["127.0.0.1", "127.0.0.3"] * 3
        assert receiver.connections == client.pools.opened() == 2


def test_a_connection_unused_for_the_idle_time_is_closed_and_the_oldest_address_goes_beyond_the_bound() -> None:
    with keep_alive_receiver() as receiver:
        clock = Clock()
        address = ["127.0.0.1"]
        client = _client(lambda _h, _p: list(address), keepalive=4.0, clock=clock, max_hosts=2)
        _post(client, receiver)
        clock.now += 3.9
        _post(client, receiver)  # within the idle time: the same connection
        assert receiver.connections == 1
        clock.now += 4.0
        _post(client, receiver)  # idle for 4 s: closed, and a new one opened
        assert receiver.connections == 2
        # At most two addresses are kept: a third closes the least recently used one
        for ip in ("127.0.0.2", "127.0.0.3"):
            address[:] = [ip]
            _post(client, receiver)
        assert [key[3] for key in client.pools.kept()] == ["127.0.0.2", "127.0.0.3"]
        assert client.pools.opened() == receiver.connections == 4


def test_without_keep_alive_every_webhook_opens_its_own_connection() -> None:
    with keep_alive_receiver() as receiver:
        client = _client(lambda _h, _p: ["127.0.0.1"], keepalive=0.0)
        for _ in range(3):
            _post(client, receiver)
        assert receiver.connections == client.pools.opened() == 3 and client.pools.kept() == []


def test_a_connection_the_receiver_closed_when_idle_is_noticed_and_a_new_one_opened() -> None:
    clock = Clock()
    with keep_alive_receiver(idle_seconds=5.0, clock=clock) as receiver:
        client = _client(lambda _h, _p: ["127.0.0.1"], keepalive=30.0, clock=clock)
        _post(client, receiver)
        clock.now += 4.9
        assert receiver.close_idle() == 0
        _post(client, receiver)  # the receiver kept it: reused
        assert receiver.connections == 1
        clock.now += 5.0
        assert receiver.close_idle() == 1  # the receiver's keep-alive ended first: it closed the connection
        _post(client, receiver)  # the client sees it closed before sending and opens a new one
        assert (receiver.connections, receiver.requests, client.pools.opened()) == (2, 3, 2)
        assert client.pools.resent == 0


def test_a_send_that_meets_a_kept_connection_closed_under_it_is_sent_once_more_on_a_new_one() -> None:
    with keep_alive_receiver(answer_first_only=True) as receiver:
        client = _client(lambda _h, _p: ["127.0.0.1"], keepalive=30.0)
        _post(client, receiver)
        # The kept connection is closed as the second request arrives, unanswered: sent again on a new connection
        _post(client, receiver)
        assert (receiver.connections, receiver.requests, len(receiver.arrived_at), client.pools.resent) == (2, 3, 2, 1)


def test_a_send_on_a_new_connection_that_is_closed_unanswered_is_not_repeated() -> None:
    def drop(_r: Received) -> Answer:
        return Answer(drop=True)

    with running_receiver(drop) as receiver:
        client = _client(lambda _h, _p: ["127.0.0.1"], keepalive=30.0)
        result = client.post(receiver.url, b"{}", {"content-type": "application/json"})
        # A fresh connection's close may mean the receiver took the webhook: the attempt fails, the policy retries it
        assert (result.status_code, result.error, len(receiver.requests), client.pools.resent) == (None, "connection_reset", 1, 0)


def test_a_send_whose_new_tls_connection_is_reset_in_its_handshake_is_not_repeated() -> None:
    """The connection was the send's own (a TLS handshake reset by the peer): no kept connection closed under it."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        accepted: list[int] = []

        def reset_each() -> None:
            for _ in range(2):
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                accepted.append(1)
                conn.recv(1024)  # the ClientHello
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                conn.close()  # a reset, not a close

        thread = threading.Thread(target=reset_each, daemon=True)
        thread.start()
        client = _client(lambda _h, _p: ["127.0.0.1"], keepalive=30.0)
        result = client.post(f"https://hooks.example.com:{server.getsockname()[1]}/webhook", b"{}", {"content-type": "application/json"})
        assert result.status_code is None and result.error in ("connection_reset", "tls_error", "connection_error")
        assert (len(accepted), client.pools.resent, client.pools.opened()) == (1, 0, 1)


def test_a_kept_connection_that_fails_later_than_a_close_would_is_not_repeated() -> None:
    """A kept connection that dies a while into the request is the receiver's failure, not an idle close."""
    with keep_alive_receiver(answer_first_only=True, unanswered_after=1.2) as receiver:
        client = _client(lambda _h, _p: ["127.0.0.1"], keepalive=30.0)
        _post(client, receiver)
        result = client.post(f"http://hooks.example.com:{receiver.port}/webhook", b"{}", {"content-type": "application/json"})
        assert (result.status_code, result.error, client.pools.resent, receiver.requests) == (None, "connection_reset", 0, 2)


def test_the_handshake_benchmark_counts_one_connection_per_gap_longer_than_the_connections_life() -> None:
    """bench/measurement/connections.py: the same arrivals replayed here; each instance opens a connection on its first send and
    after every idle gap of at least the shorter of the client's keep-alive and the receiver's, and the receiver
    counts exactly those."""
    from bench.measurement import connections

    rate, instances, keepalive, seconds = 1.0, 2, 30.0, 60.0
    life = connections.lifetime(keepalive, connections.RECEIVER_IDLE_SECONDS)
    assert life == connections.RECEIVER_IDLE_SECONDS
    rng = random.Random(f"{connections.SEED}:{rate}:{instances}")
    last: dict[int, float] = {}
    expected, now, sent = 0, 0.0, 0
    while (now := now + rng.expovariate(rate)) < seconds:
        k = rng.randrange(instances)
        expected += k not in last or now - last[k] >= life
        last[k], sent = now, sent + 1
    with keep_alive_receiver(idle_seconds=connections.RECEIVER_IDLE_SECONDS) as receiver:
        found = connections.one(rate, instances, keepalive, receiver, seconds=seconds)
    assert (found["webhooks"], found["handshakes"], found["resent"]) == (sent, expected, 0)
    assert 0 < expected < sent
