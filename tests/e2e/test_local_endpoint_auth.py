"""Endpoint authentication end to end in local mode (issue 53): an OAuth2 endpoint against npm oauth2-mock-server,
started here with node (tests/support/node/oauth2_token_server.mjs), which counts the tokens it signs. The receiver
takes a webhook only with a bearer token that server signed and that has not expired (RS256, checked with the
server's JWKS), and a valid Standard Webhooks signature.

Every delivery goes the real way: the API front door, the delivery queue, the delivery handler, its sender.
"""

from __future__ import annotations

import base64
import json
import logging
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from local.receiver import WebhookReceiver
from local.run import LocalHookline
from tests.e2e.conftest import local_api as api
from tests.e2e.conftest import running_local_mode

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "support" / "node" / "oauth2_token_server.mjs"
DELIVERIES = 1000
BATCH = 100  # events per POST /v1/events/batch (the most one takes)
CLIENT_SECRET = "cs-Zq8w-not-for-logs"


class TokenServer:
    def __init__(self) -> None:
        node = ROOT / ".venv" / "bin" / "node"
        self._process = subprocess.Popen([str(node), str(SERVER)], cwd=SERVER.parent, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        started = json.loads(self._process.stdout.readline())
        self.issuer = str(started["issuer"]).replace("localhost", "127.0.0.1")  # the address it listens on
        self._control = f"http://127.0.0.1:{started['control']}"
        self.jwks = requests.get(f"{self.issuer}/jwks", timeout=10).json()

    @property
    def token_url(self) -> str:
        return f"{self.issuer}/token"

    def issued(self) -> int:
        return int(requests.get(f"{self._control}/state", timeout=10).json()["issued"])

    def do(self, what: str) -> None:
        requests.post(f"{self._control}/{what}", timeout=10).raise_for_status()

    def stop(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=10)


def _b64url(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def token_valid(token: str, jwks: dict[str, Any]) -> bool:
    """An RS256 JWT the token server signed (its JWKS), not expired."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers

    try:
        head, payload, signature = token.split(".")
        kid = json.loads(_b64url(head))["kid"]
        jwk = next(k for k in jwks["keys"] if k["kid"] == kid)
        key = RSAPublicNumbers(int.from_bytes(_b64url(jwk["e"])), int.from_bytes(_b64url(jwk["n"]))).public_key()
        key.verify(_b64url(signature), f"{head}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())
        return bool(json.loads(_b64url(payload))["exp"] > time.time())
    except Exception:
        return False


class TokenCheckingReceiver(WebhookReceiver):
    """A receiver behind an OAuth2 gateway: 401 without a valid bearer token of the token server."""

    def __init__(self, jwks: dict[str, Any]) -> None:
        super().__init__(port=0)
        self.jwks = jwks
        self.refused: list[str] = []

    def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> int:
        token = headers.get("authorization", "").removeprefix("Bearer ")
        if not token_valid(token, self.jwks):
            self.refused.append(headers.get("webhook-id", ""))
            return 401
        return super().handle(method, path, headers, body)


@pytest.fixture(scope="module")
def token_server() -> Iterator[TokenServer]:
    server = TokenServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def hl() -> Iterator[LocalHookline]:
    # Retries about a second apart; endpoints start at 50 in flight, so the thousand drain in seconds.
    with running_local_mode(HOOKLINE_RETRY_BASE_SECONDS="0.5", HOOKLINE_INITIAL_CONCURRENCY="50") as hookline:
        yield hookline


class _Lines(logging.Handler):
    """Every record a Powertools logger emits, as its own handler formats it (JSON: the message and every key)."""

    def __init__(self, formatter: logging.Formatter | None) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(formatter)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture(autouse=True)
def _no_secret_logged(hl: LocalHookline) -> Iterator[None]:
    """Whatever a test does, no line the functions log holds the client secret."""
    loggers = [lg for lg in logging.Logger.manager.loggerDict.values() if isinstance(lg, logging.Logger) and getattr(lg, "powertools_handler", None)]
    lines = _Lines(loggers[0].powertools_handler.formatter if loggers else None)  # type: ignore[attr-defined]
    for logger in loggers:
        logger.addHandler(lines)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeHandler(lines)
    assert [line for line in lines.lines if "delivery batch" in line], "the functions logged nothing: the check would pass vacuously"
    assert not [line for line in lines.lines if CLIENT_SECRET in line]


@pytest.fixture
def gated(token_server: TokenServer) -> Iterator[TokenCheckingReceiver]:
    with TokenCheckingReceiver(token_server.jwks) as receiver:
        yield receiver


def wait_for(condition: Any, seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if got := condition():
            return got
        time.sleep(0.25)
    raise AssertionError(f"not within {seconds} s")


def oauth2_endpoint(hl: LocalHookline, receiver: WebhookReceiver, token_server: TokenServer) -> dict[str, Any]:
    auth = {"type": "oauth2_client_credentials", "token_url": token_server.token_url, "client_id": "hookline", "client_secret": CLIENT_SECRET}
    status, made = api(hl, "POST", "/v1/endpoints", {"url": receiver.url, "auth": auth, "rate_limit_per_second": 1000, "max_concurrency": 50})
    assert status == 201, made
    receiver.secret = made["secret"]
    return dict(made)


def test_deliveries_carry_a_token_the_server_issued_and_a_thousand_fetch_a_handful(
    hl: LocalHookline, token_server: TokenServer, gated: TokenCheckingReceiver
) -> None:
    # Given an OAuth2 endpoint whose receiver takes only the token server's tokens
    ep = oauth2_endpoint(hl, gated, token_server)
    before = token_server.issued()
    # When a thousand events are sent to it
    for start in range(0, DELIVERIES, BATCH):
        status, accepted = api(hl, "POST", "/v1/events/batch", {"events": [{"type": "order.paid", "data": {"n": n}} for n in range(start, start + BATCH)]})
        assert status == 202, accepted
    # Then every one is delivered, signed and carrying a token the server issued and the receiver validated
    wait_for(lambda: len({w.headers["webhook-id"] for w in gated.received}) >= DELIVERIES, 240)
    assert all(w.verified and w.status == 200 for w in gated.received)
    # And the token server signed a handful of tokens for all of them: each delivering process asks once (one fetch
    # at a time per endpoint), then takes its own or the table's token until shortly before it expires
    assert token_server.issued() - before <= 3, token_server.issued() - before
    assert ep["auth"] == {"type": "oauth2_client_credentials", "token_url": token_server.token_url, "client_id": "hookline"}


def test_an_expired_token_is_refreshed_once_after_a_401(hl: LocalHookline, token_server: TokenServer, gated: TokenCheckingReceiver) -> None:
    # Given an endpoint whose first token is already expired when the receiver sees it (its answer says an hour)
    ep = oauth2_endpoint(hl, gated, token_server)
    token_server.do("expire-next")
    before = token_server.issued()
    # When one event is sent to it
    status, event = api(hl, "POST", "/v1/events", {"type": "order.paid", "data": {}})
    assert status == 202, event
    # Then the receiver refused the expired token once, and took the delivery with a fresh one: one attempt, succeeded
    wait_for(lambda: [w for w in gated.received if w.headers["webhook-id"] == event["id"]], 60)
    assert gated.refused == [event["id"]]
    assert token_server.issued() - before == 2
    deliveries = api(hl, "GET", f"/v1/events/{event['id']}")[1]["deliveries"]
    (delivery,) = [d for d in deliveries if d["endpoint_id"] == ep["id"]]
    assert [(a["outcome"], a["status_code"]) for a in delivery["attempts"]] == [("succeeded", 200)]


def test_the_token_endpoint_down_makes_auth_failed_attempts_that_recover(hl: LocalHookline, token_server: TokenServer, gated: TokenCheckingReceiver) -> None:
    # Given an endpoint whose token endpoint is down
    ep = oauth2_endpoint(hl, gated, token_server)
    token_server.do("down")
    try:
        status, event = api(hl, "POST", "/v1/events", {"type": "order.paid", "data": {}})
        assert status == 202, event

        def attempts() -> list[dict[str, Any]]:
            items = api(hl, "GET", f"/v1/events/{event['id']}")[1]["deliveries"]
            return [a for d in items if d["endpoint_id"] == ep["id"] for a in d["attempts"]]

        # Then its attempts fail as auth_failed and are retried
        failed = wait_for(lambda: [a for a in attempts() if a["error"] == "auth_failed"][:2] if len(attempts()) >= 2 else None, 60)
        assert [(a["outcome"], a["status_code"], a["error"]) for a in failed] == [("retrying", None, "auth_failed")] * 2
    finally:
        token_server.do("up")
    # And once it is back, a retry is delivered
    wait_for(lambda: [w for w in gated.received if w.headers["webhook-id"] == event["id"]], 60)
    last = wait_for(lambda: [a for a in attempts() if a["outcome"] == "succeeded"], 30)
    assert last[0]["status_code"] == 200
    # And no answer of the API holds the client secret
    answers = [api(hl, "GET", f"/v1/endpoints/{ep['id']}"), api(hl, "GET", "/v1/endpoints?limit=100"), api(hl, "GET", f"/v1/events/{event['id']}")]
    assert not [a for a in answers if CLIENT_SECRET in json.dumps(a)]
