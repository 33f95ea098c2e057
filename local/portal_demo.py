"""`make run`'s portal demo: a customer with one healthy and one failing endpoint, and a working portal link.

Two receivers run on 127.0.0.1 in this process: one answers 200, the other
400 until `recover_after_seconds` have passed (then 200), so the portal shows a
failing endpoint whose failures can be replayed once it recovers. Everything
is made through the API, as a producer would: the customer, its endpoints,
a few events, and a portal session whose link is printed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import requests

from local.receiver import WebhookReceiver

DEMO_CUSTOMER = "demo-customer"
EVENT_TYPES = ("invoice.paid", "invoice.created", "customer.updated")
DEFAULT_RECOVERY_SECONDS = 120.0


class RecoveringReceiver(WebhookReceiver):
    """A receiver that fails (400) until a moment, then answers 200."""

    def __init__(self, recover_at: float):
        super().__init__(port=0, status=400)
        self.recover_at = recover_at

    def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> int:
        if time.time() >= self.recover_at:
            self.status = 200
        return super().handle(method, path, headers, body)


@dataclass
class PortalDemo:
    link: str
    healthy: WebhookReceiver
    failing: RecoveringReceiver
    endpoints: dict[str, str] = field(default_factory=dict)

    def stop(self) -> None:
        self.healthy.stop()
        self.failing.stop()


def _call(base_url: str, key: str, method: str, path: str, body: Any = None) -> Any:
    answer = requests.request(method, base_url + path, json=body, headers={"Authorization": f"Bearer {key}"}, timeout=10)
    answer.raise_for_status()
    return answer.json() if answer.content else None


def seed(base_url: str, api_key: str, *, events: int = 12, recover_after_seconds: float = DEFAULT_RECOVERY_SECONDS, ttl_seconds: int = 86400) -> PortalDemo:
    """Make the demo customer, its two endpoints and `events` events for it; returns the portal link and the receivers."""
    healthy = WebhookReceiver(port=0)
    failing = RecoveringReceiver(time.time() + recover_after_seconds)
    healthy.start()
    failing.start()
    demo = PortalDemo("", healthy, failing)
    _call(base_url, api_key, "PUT", "/v1/portal-settings", {"producer_name": "hookline demo"})
    _call(base_url, api_key, "PUT", f"/v1/customers/{DEMO_CUSTOMER}", {"name": "Demo Customer", "email": "ops@demo-customer.example"})
    for name, receiver, description in (("healthy", healthy, "Billing service"), ("failing", failing, "CRM sync (failing)")):
        created = _call(base_url, api_key, "POST", "/v1/endpoints", {"url": receiver.url, "customer": DEMO_CUSTOMER, "description": description})
        receiver.secret = created["secret"]
        demo.endpoints[name] = created["id"]
    for i in range(events):
        kind = EVENT_TYPES[i % len(EVENT_TYPES)]
        _call(base_url, api_key, "POST", "/v1/events", {"type": kind, "customer": DEMO_CUSTOMER, "data": {"n": i, "amount": 1000 + i}})
    demo.link = _call(base_url, api_key, "POST", f"/v1/customers/{DEMO_CUSTOMER}/portal-sessions", {"ttl_seconds": ttl_seconds})["url"]
    return demo
