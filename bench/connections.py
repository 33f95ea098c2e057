"""Connections opened per webhook for one endpoint at a steady rate: the real webhook client and its pools, over
real sockets, with the pools' idle time on a simulated clock.

Webhooks to the endpoint arrive as a Poisson process at `rate` a second, each handed to one of `instances` warm
Lambda instances at random (SQS hands a batch to whichever is free); each instance has its own
`hookline.adapters.http.ConnectionPools`, kept alive for `HOOKLINE_KEEPALIVE_SECONDS`. The receiver speaks HTTP/1.1
keep-alive and counts the connections it accepts: those are the handshakes. The clock only moves the pools' idle
time, so 300 simulated seconds take a second or two, and the count cannot depend on how busy the machine is.

Beside it, the model: an instance sees the endpoint at rate/instances a second, so a send finds its connection
closed (a gap longer than the keep-alive) with probability exp(-keep-alive x rate / instances).
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
from tests.support.receiver import keep_alive_receiver

RATES = (1.0, 5.0)  # webhooks a second to the one endpoint
INSTANCES = (1, 2, 4)  # warm instances its tasks spread over; 2 is the cost section's "two batches at once"
SECONDS = 300.0  # simulated
SEED = 28
GOAL_RATE, GOAL_INSTANCES = 1.0, 2  # the goal's row: an endpoint at 1 webhook a second, over two instances
_POLICY = UrlPolicy((ipaddress.ip_network("127.0.0.0/8"),), allow_http=True, allowed_ports=None)


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def one(rate: float, instances: int, keepalive: float, url: str, connections: Callable[[], int], seconds: float = SECONDS) -> dict[str, Any]:
    """Handshakes per webhook for one endpoint at `rate` over `instances` instances."""
    rng, clock = random.Random(f"{SEED}:{rate}:{instances}"), _Clock()
    clients = []
    for _ in range(instances):
        client = WebhookClient(3, 5, 4096, _POLICY, resolver=lambda _h, _p: ["127.0.0.1"], keepalive_seconds=keepalive)
        client.pools = ConnectionPools(keepalive, clock=clock)
        clients.append(client)
    before, sent = connections(), 0
    try:
        while (at := clock.now + rng.expovariate(rate)) < seconds:
            clock.now = at
            result = rng.choice(clients).post(url, b"{}", {"content-type": "application/json"})
            assert result.status_code == 200, result
            sent += 1
    finally:
        for client in clients:
            client.pools.close()
    opened = connections() - before
    return {
        "rate_per_second": rate,
        "instances": instances,
        "webhooks": sent,
        "handshakes": opened,
        "per_webhook": round(opened / sent, 4),
        "model": round(math.exp(-keepalive * rate / instances), 4),
    }


def measure(progress: Callable[[str], None] = lambda _s: None) -> dict[str, Any]:
    keepalive = Settings().keepalive_seconds
    rows = []
    with keep_alive_receiver() as receiver:
        url = f"http://hooks.example.com:{receiver.port}/webhook"
        for rate in RATES:
            for instances in INSTANCES:
                rows.append(one(rate, instances, keepalive, url, lambda: receiver.connections))
        progress("done")
    goal = next(r for r in rows if (r["rate_per_second"], r["instances"]) == (GOAL_RATE, GOAL_INSTANCES))
    return {"keepalive_seconds": keepalive, "simulated_seconds": SECONDS, "rows": rows, "goal_row": goal}
