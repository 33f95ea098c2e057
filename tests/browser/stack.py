"""What the browser tests and `make portal-screenshots` share: local mode tuned for a browser, and a producer's API client.

Everything a test sets up goes through the producer API (customers, endpoints,
events, portal sessions), as a producer would; the page is then driven in
Chromium against the same local stack.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import requests

from local.run import LocalHookline

TENANT = "acme"
API_KEY = "browserkey123456"
CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")

# Retries about a second apart, two attempts per delivery, no authorizer cache
# (a revoked session is refused at once), and a breaker that stays closed for
# the handful of failures a test makes (an open breaker would hold replays back).
# The delivery role is what a destination's role template trusts (GET /v1/endpoints/{id}/role-template).
DELIVERY_ROLE_ARN = "arn:aws:iam::123456789012:role/hookline-local-delivery"
BROWSER_ENV = {
    "HOOKLINE_RETRY_BASE_SECONDS": "0.2",
    "HOOKLINE_MAX_ATTEMPTS": "2",
    "HOOKLINE_AUTHORIZER_CACHE_SECONDS": "0",
    "HOOKLINE_BREAKER_THRESHOLD": "50",
    "HOOKLINE_BREAKER_WINDOW": "100",
    "HOOKLINE_BREAKER_FAILURE_RATE": "1.0",
    "HOOKLINE_DELIVERY_ROLE_ARNS": DELIVERY_ROLE_ARN,
}


def chromium_executable() -> str | None:
    """Debian's Chromium, or whatever `chromium` is on PATH (HOOKLINE_CHROMIUM overrides)."""
    override = os.environ.get("HOOKLINE_CHROMIUM")
    if override:
        return override if os.path.exists(override) else None
    for candidate in CHROMIUM_CANDIDATES:
        if os.path.exists(candidate):
            return candidate
    return shutil.which("chromium") or shutil.which("chromium-browser")


def local_stack(extra_env: dict[str, str] | None = None) -> LocalHookline:
    return LocalHookline(port=0, aws_port=0, api_keys=f"{TENANT}:{API_KEY}", env={**BROWSER_ENV, **(extra_env or {})})


def wait_until[T](probe: Callable[[], T | None], what: str, timeout: float = 20.0, interval: float = 0.2) -> T:
    """Poll `probe` until it returns something truthy; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


class ApiFailure(AssertionError):
    pass


@dataclass(frozen=True)
class Producer:
    """The producer's side of the API, with its API key."""

    base_url: str
    api_key: str

    def call(self, method: str, path: str, body: Any = None, *, token: str | None = None, expect: tuple[int, ...] = (200, 201, 202, 204)) -> Any:
        answer = requests.request(method, self.base_url + path, json=body, headers={"Authorization": f"Bearer {token or self.api_key}"}, timeout=15)
        if answer.status_code not in expect:
            raise ApiFailure(f"{method} {path} -> {answer.status_code} {answer.text[:500]}")
        return answer.json() if answer.content else None

    def settings(self, producer_name: str, allowed_origins: list[str] | None = None) -> Any:
        return self.call("PUT", "/v1/portal-settings", {"producer_name": producer_name, "allowed_origins": allowed_origins or []})

    def customer(self, uid: str, name: str, *, max_rate: float = 20.0, max_concurrency: int = 5) -> Any:
        limits = {"max_rate_per_second": max_rate, "max_concurrency": max_concurrency}
        return self.call("PUT", f"/v1/customers/{uid}", {"name": name, "limits": limits})

    def endpoint(self, customer: str, url: str, **fields: Any) -> dict[str, Any]:
        created: dict[str, Any] = self.call("POST", "/v1/endpoints", {"url": url, "customer": customer, **fields})
        return created

    def destination_endpoint(self, customer: str, destination: dict[str, Any], **fields: Any) -> dict[str, Any]:
        """An endpoint that delivers into the customer's AWS account (a queue, topic, bus, stream or bucket) instead of a URL."""
        created: dict[str, Any] = self.call("POST", "/v1/endpoints", {"destination": destination, "customer": customer, **fields})
        return created

    def get_endpoint(self, endpoint_id: str) -> dict[str, Any]:
        found: dict[str, Any] = self.call("GET", f"/v1/endpoints/{endpoint_id}")
        return found

    def event(self, customer: str, type_: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        accepted: dict[str, Any] = self.call("POST", "/v1/events", {"type": type_, "customer": customer, "data": data or {}})
        return accepted

    def deliveries(self, endpoint_id: str, status: str = "failed") -> list[dict[str, Any]]:
        page = self.call("GET", f"/v1/endpoints/{endpoint_id}/deliveries?status={status}&limit=100")
        items: list[dict[str, Any]] = page["items"]
        return items

    def session(self, customer: str, *, read_only: bool = False, ttl_seconds: int = 3600) -> dict[str, Any]:
        made: dict[str, Any] = self.call("POST", f"/v1/customers/{customer}/portal-sessions", {"read_only": read_only, "ttl_seconds": ttl_seconds})
        return made

    def revoke_sessions(self, customer: str) -> None:
        self.call("DELETE", f"/v1/customers/{customer}/portal-sessions")

    def wait_for_failed(self, endpoint_id: str, n: int, timeout: float = 30.0) -> list[dict[str, Any]]:
        """Block until `n` deliveries of the endpoint have failed for good."""

        def enough() -> list[dict[str, Any]] | None:
            found = self.deliveries(endpoint_id)
            return found if len(found) >= n else None

        return wait_until(enough, f"{n} failed deliveries of {endpoint_id}", timeout)
