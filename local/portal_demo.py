"""`make run`'s portal demo: a customer with one healthy and one failing endpoint, and a working portal link.

Two receivers run on 127.0.0.1 in this process: one answers 200, the other
400 until `recover_after_seconds` have passed (then 200), so the portal shows a
failing endpoint whose failures can be replayed once it recovers. Everything
is made through the API, as a producer would: the customer, its endpoints,
a few events, and a portal session whose link is printed.

A step that fails raises `DemoFailed` (the receivers stopped first), whose
message is one line: the request and the API's error code and message, e.g.
`POST /v1/endpoints answered 422 forbidden_url: 'url' is not allowed: loopback
address`. `refusal()` says beforehand why the API's URL policy would refuse
the receivers (plain http on 127.0.0.1), so local mode can skip the demo and
say why instead of trying.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import requests

from hookline.core.ssrf import UrlPolicy
from local.receiver import WebhookReceiver

DEMO_CUSTOMER = "demo-customer"
EVENT_TYPES = ("invoice.paid", "invoice.created", "customer.updated")
DEFAULT_RECOVERY_SECONDS = 120.0
RECEIVER_HOST = "127.0.0.1"  # where WebhookReceiver listens
CALL_TIMEOUT_SECONDS = 10
FIRST_ATTEMPTS_SECONDS = 20.0  # `make run` waits at most this long for the demo's first attempts before its banner
QUIET_SECONDS = 2.0  # no new attempt for this long: the first burst is over


class DemoFailed(Exception):
    """A step of the demo failed; the message is one line: the request, and the API's error code and message (or why no answer came)."""


def refusal(policy: UrlPolicy) -> str | None:
    """Why the API would refuse the demo's receivers under `policy` (plain http, on 127.0.0.1, on ports the OS picks), or None."""
    if not policy.allow_http:
        return "HOOKLINE_ALLOW_HTTP is off, and the demo's receivers are plain http"
    if policy.allowed_ports is not None:
        ports = ",".join(str(p) for p in sorted(policy.allowed_ports))
        return f"HOOKLINE_ALLOWED_PORTS={ports} leaves out the ports the demo's receivers get from the OS"
    why = policy.refusal("http", RECEIVER_HOST, 0)  # any port passes here
    if why is None:
        return None
    networks = ",".join(str(n) for n in policy.allowed_networks)
    return f"HOOKLINE_ALLOW_PRIVATE_NETWORKS={networks} leaves out {RECEIVER_HOST} ({why}), where the demo's receivers listen"


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
    events: list[str] = field(default_factory=list)

    def progress(self, base_url: str, api_key: str) -> tuple[int, int]:
        """(attempts made, deliveries not yet attempted) over the demo's events, both endpoints."""
        deliveries = [d for e in self.events for d in _call(base_url, api_key, "GET", f"/v1/events/{e}")["deliveries"]]
        return sum(len(d["attempts"]) for d in deliveries), sum(1 for d in deliveries if not d["attempts"])

    def wait_first_attempts(self, base_url: str, api_key: str, seconds: float) -> None:
        """Wait, at most `seconds`, until the first burst of the demo's attempts is over: every delivery attempted, or
        no new attempt for QUIET_SECONDS after the first (the breaker holds the failing endpoint's rest back). Their log lines then come
        before the banner; later retries are logged after it."""
        deadline = time.monotonic() + seconds
        count, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            try:
                attempts, unattempted = self.progress(base_url, api_key)
            except DemoFailed:
                return  # the banner matters more than the order of the lines
            if unattempted == 0:
                return
            if attempts != count:
                count, since = attempts, time.monotonic()
            elif attempts and time.monotonic() - since >= QUIET_SECONDS:
                return
            time.sleep(0.25)

    def stop(self) -> None:
        self.healthy.stop()
        self.failing.stop()


def _one_line(text: str, limit: int = 300) -> str:
    return " ".join(text.split())[:limit]


def api_error(answer: requests.Response) -> str:
    """`<code>: <message>` from the API's error envelope ({"error": {"code", "message"}}), else the start of the body."""
    try:
        error = answer.json()["error"]
        return _one_line(f"{error['code']}: {error['message']}")
    except (ValueError, KeyError, TypeError):
        return _one_line(answer.text) or answer.reason or "no body"


def _call(base_url: str, key: str, method: str, path: str, body: Any = None) -> Any:
    try:
        answer = requests.request(method, base_url + path, json=body, headers={"Authorization": f"Bearer {key}"}, timeout=CALL_TIMEOUT_SECONDS)
    except requests.RequestException as exc:
        raise DemoFailed(f"{method} {path} got no answer: {_one_line(f'{type(exc).__name__}: {exc}')}") from exc
    if answer.status_code >= 400:
        raise DemoFailed(f"{method} {path} answered {answer.status_code} {api_error(answer)}")
    return answer.json() if answer.content else None


def seed(base_url: str, api_key: str, *, events: int = 12, recover_after_seconds: float = DEFAULT_RECOVERY_SECONDS, ttl_seconds: int = 86400) -> PortalDemo:
    """Make the demo customer, its two endpoints and `events` events for it; returns the portal link and the receivers.

    Raises DemoFailed (one line: the request and the API's answer) when a step fails, its receivers stopped.
    """
    healthy = WebhookReceiver(port=0)
    failing = RecoveringReceiver(time.time() + recover_after_seconds)
    demo = PortalDemo("", healthy, failing)
    try:
        healthy.start()
        failing.start()
        _call(base_url, api_key, "PUT", "/v1/portal-settings", {"producer_name": "hookline demo"})
        _call(base_url, api_key, "PUT", f"/v1/customers/{DEMO_CUSTOMER}", {"name": "Demo Customer", "email": "ops@demo-customer.example"})
        for name, receiver, description in (("healthy", healthy, "Billing service"), ("failing", failing, "CRM sync (failing)")):
            created = _call(base_url, api_key, "POST", "/v1/endpoints", {"url": receiver.url, "customer": DEMO_CUSTOMER, "description": description})
            receiver.secret = created["secret"]
            demo.endpoints[name] = created["id"]
        for i in range(events):
            kind = EVENT_TYPES[i % len(EVENT_TYPES)]
            accepted = _call(base_url, api_key, "POST", "/v1/events", {"type": kind, "customer": DEMO_CUSTOMER, "data": {"n": i, "amount": 1000 + i}})
            demo.events.append(accepted["id"])
        demo.link = _call(base_url, api_key, "POST", f"/v1/customers/{DEMO_CUSTOMER}/portal-sessions", {"ttl_seconds": ttl_seconds})["url"]
    except BaseException:
        demo.stop()
        raise
    return demo
