"""Connections opened per webhook for one endpoint at a steady rate: the real webhook client and its pools, over
real sockets, with the pools' idle time on a simulated clock.

Webhooks to the endpoint arrive as a Poisson process at `rate` a second, each handed to one of `instances` warm
Lambda instances at random (SQS hands a batch to whichever is free); each instance has its own
`hookline.adapters.http.ConnectionPools`, kept alive for `HOOKLINE_KEEPALIVE_SECONDS`. The receiver speaks HTTP/1.1
keep-alive, closes a connection unused for `RECEIVER_IDLE_SECONDS` (as Node's, uvicorn's and Apache's servers do by
default, the shortest common keep-alive timeout; nginx keeps one 75 s, AWS's load balancers 60 s), and counts the
connections it accepts: those are the handshakes. The clock only moves the pools' and the receiver's idle time, so
300 simulated seconds take a second or two, and the count cannot depend on how busy the machine is.

Beside it, the model: an instance sees the endpoint at rate/instances a second, and a connection lives for the
shorter of the two idle times, so a send finds none with probability exp(-min(keep-alive, receiver's) x rate / instances).
"""

from __future__ import annotations

import ipaddress
import math
import random
from collections.abc import Callable
from typing import Any

from hookline.adapters.http import ConnectionPools, WebhookClient
from hookline.core.settings import Settings
from hookline.core.ssrf import UrlPolicy
from tests.support.receiver import KeepAliveReceiver, keep_alive_receiver

RATES = (1.0, 5.0)  # webhooks a second to the one endpoint
INSTANCES = (1, 2, 4)  # warm instances its tasks spread over; 2 is the cost section's "two batches at once"
SECONDS = 300.0  # simulated
SEED = 28
RECEIVER_IDLE_SECONDS = 5.0  # the receiver closes a connection unused this long (Node's, uvicorn's and Apache's default)
GOAL_RATE, GOAL_INSTANCES = 1.0, 2  # the goal's row: an endpoint at 1 webhook a second, over two instances
_POLICY = UrlPolicy((ipaddress.ip_network("127.0.0.0/8"),), allow_http=True, allowed_ports=None)


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def lifetime(keepalive: float, receiver_idle: float = RECEIVER_IDLE_SECONDS) -> float:
    """How long an unused connection lives: the sender's keep-alive or the receiver's, whichever ends first."""
    return min(keepalive, receiver_idle) if receiver_idle > 0 else keepalive


def one(rate: float, instances: int, keepalive: float, receiver: KeepAliveReceiver, seconds: float = SECONDS) -> dict[str, Any]:
    """Handshakes per webhook for one endpoint at `rate` over `instances` instances."""
    rng, clock = random.Random(f"{SEED}:{rate}:{instances}"), _Clock()
    receiver.clock = clock
    url = f"http://hooks.example.com:{receiver.port}/webhook"
    clients = []
    for _ in range(instances):
        client = WebhookClient(3, 5, 4096, _POLICY, resolver=lambda _h, _p: ["127.0.0.1"], keepalive_seconds=keepalive)
        client.pools = ConnectionPools(keepalive, clock=clock)
        clients.append(client)
    before, resent, sent = receiver.connections, 0, 0
    try:
        while (at := clock.now + rng.expovariate(rate)) < seconds:
            clock.now = at
            receiver.close_idle()
            result = rng.choice(clients).post(url, b"{}", {"content-type": "application/json"})
            assert result.status_code == 200, result
            sent += 1
    finally:
        for client in clients:
            resent += client.pools.resent
            client.pools.close()
    opened = receiver.connections - before
    return {
        "rate_per_second": rate,
        "instances": instances,
        "webhooks": sent,
        "handshakes": opened,
        "per_webhook": round(opened / sent, 4),
        "resent": resent,  # sends that met a connection the receiver had closed under them, sent again on a new one
        "model": round(math.exp(-lifetime(keepalive, receiver.idle_seconds) * rate / instances), 4),
    }


def measure(progress: Callable[[str], None] = lambda _s: None) -> dict[str, Any]:
    keepalive = Settings().keepalive_seconds
    rows = []
    with keep_alive_receiver(idle_seconds=RECEIVER_IDLE_SECONDS) as receiver:
        for rate in RATES:
            for instances in INSTANCES:
                rows.append(one(rate, instances, keepalive, receiver))
        progress("done")
    goal = next(r for r in rows if (r["rate_per_second"], r["instances"]) == (GOAL_RATE, GOAL_INSTANCES))
    return {
        "keepalive_seconds": keepalive,
        "receiver_idle_seconds": RECEIVER_IDLE_SECONDS,
        "simulated_seconds": SECONDS,
        "rows": rows,
        "goal_row": goal,
    }
