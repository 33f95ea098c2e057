"""Portal sessions through the real authorizer and API over moto, behind local mode's gateway (API Gateway's
authorizer cache included): a revoked session stops within the cache bound, an expired one at once, and no
token ever reaches a log line."""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any
from unittest.mock import ANY

import freezegun
import pytest

from hookline.adapters import aws
from hookline.adapters.dynamo import keys
from hookline.core.settings import MAX_AUTHORIZER_CACHE_SECONDS, Settings, SettingsError
from hookline.wiring import topology
from infra.api import ACCESS_LOG_FORMAT
from local.frontdoor import AuthDecision, Gateway, IncomingRequest, parse_authorizer_result
from local.mail import render
from tests.conftest import Hookline

API_KEY = "hk_producer_of_acme"


class Monotonic:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _gateway(hookline: Hookline, clock: Monotonic) -> Gateway:
    api, authorizer = hookline.handlers["api"], hookline.handlers["authorizer"]
    return Gateway(
        lambda event: api(event, None),
        lambda event: authorizer(event, None),
        region="us-east-1",
        authorizer_cache_seconds=MAX_AUTHORIZER_CACHE_SECONDS,
        clock=clock,
    )


def _call(gateway: Gateway, token: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    raw = b"" if body is None else json.dumps(body).encode()
    request = IncomingRequest(method, path, [("authorization", f"Bearer {token}"), ("content-type", "application/json")], raw, "127.0.0.1")
    reply = gateway.handle(request, "127.0.0.1:8787")
    return reply.status, (json.loads(reply.body) if reply.body else None)


@pytest.fixture
def gateway(hookline: Hookline) -> tuple[Gateway, Monotonic]:
    hookline.add_api_key("acme", API_KEY)
    clock = Monotonic()
    gw = _gateway(hookline, clock)
    assert _call(gw, API_KEY, "PUT", "/v1/customers/cus-a", {"name": "A"})[0] == 201
    return gw, clock


def test_a_session_link_opens_the_portal_page_of_this_api(gateway: tuple[Gateway, Monotonic]) -> None:
    gw, _ = gateway
    status, issued = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions", {"ttl_seconds": 600})
    assert status == 201 and issued["url"] == f"http://127.0.0.1:8787/portal?t=acme#token={issued['token']}"
    assert _call(gw, issued["token"], "GET", "/v1/endpoints")[0] == 200


def test_a_revoked_session_is_refused_once_the_authorizer_cache_lets_go(gateway: tuple[Gateway, Monotonic]) -> None:
    gw, clock = gateway
    # Given a session in use, so its authorizer answer is cached
    token = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions", {})[1]["token"]
    assert _call(gw, token, "GET", "/v1/endpoints")[0] == 200
    # When the producer revokes the customer's sessions
    assert _call(gw, API_KEY, "DELETE", "/v1/customers/cus-a/portal-sessions")[0] == 204
    # Then a fresh authorization refuses it at once, and the cached one lasts no longer than the bound
    assert gw.authorizer({"headers": {"authorization": f"Bearer {token}"}}) == {"isAuthorized": False}
    clock.now += MAX_AUTHORIZER_CACHE_SECONDS - 1
    assert _call(gw, token, "GET", "/v1/endpoints")[0] == 200  # API Gateway's cache: the stated bound
    clock.now += 1.001
    status, answer = _call(gw, token, "GET", "/v1/endpoints")
    assert status == 401 and answer["error"]["code"] == "unauthorized"
    # And a session issued after the revocation works
    fresh = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions", {})[1]["token"]
    assert _call(gw, fresh, "GET", "/v1/endpoints")[0] == 200


def test_an_expired_session_is_refused_at_once_even_while_cached(gateway: tuple[Gateway, Monotonic]) -> None:
    gw, _ = gateway
    start = datetime.now(UTC)
    with freezegun.freeze_time(start) as frozen:
        token = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions", {"ttl_seconds": 60})[1]["token"]
        assert _call(gw, token, "GET", "/v1/endpoints")[0] == 200
        frozen.move_to(start + timedelta(seconds=60))
        # The authorizer's answer is still cached; the API checks the expiry itself
        status, answer = _call(gw, token, "GET", "/v1/endpoints")
        assert (status, answer["error"]["code"]) == (401, "session_expired")
        gw.cache.clear()
        assert _call(gw, token, "GET", "/v1/endpoints")[0] == 401


def test_a_deleted_customers_sessions_stop(gateway: tuple[Gateway, Monotonic]) -> None:
    gw, _ = gateway
    token = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions")[1]["token"]
    assert _call(gw, API_KEY, "DELETE", "/v1/customers/cus-a")[0] == 202
    assert _call(gw, API_KEY, "PUT", "/v1/customers/cus-a", {"name": "A again"})[0] == 201
    assert gw.authorizer({"headers": {"authorization": f"Bearer {token}"}}) == {"isAuthorized": False}


def test_a_deleted_customers_session_is_refused_while_its_answer_is_cached(gateway: tuple[Gateway, Monotonic]) -> None:
    gw, clock = gateway
    # Given a session in use, so its authorizer answer is cached
    token = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions")[1]["token"]
    assert _call(gw, token, "GET", "/v1/session")[0] == 200
    # When the customer is deleted and made again under its uid, well within the cache's lifetime
    assert _call(gw, API_KEY, "DELETE", "/v1/customers/cus-a")[0] == 202
    time.sleep(0.002)  # a later millisecond: creation times are kept to it
    assert _call(gw, API_KEY, "PUT", "/v1/customers/cus-a", {"name": "A again"})[0] == 201
    clock.now += 1
    # Then the cached answer no longer works: the API reads the customer on every request of a session
    status, answer = _call(gw, token, "GET", "/v1/session")
    assert (status, answer["error"]["code"]) == (401, "unauthorized") and "no longer exists" in answer["error"]["message"]
    # And the new customer's own session works through the same cache
    fresh = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions")[1]["token"]
    assert _call(gw, fresh, "GET", "/v1/session")[1]["customer"]["name"] == "A again"


def test_a_session_request_costs_one_consistent_read_of_its_customer_and_a_producers_none(hookline: Hookline, gateway: tuple[Gateway, Monotonic]) -> None:
    gw, _ = gateway
    token = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions")[1]["token"]
    for key in (token, API_KEY):
        assert _call(gw, key, "GET", "/v1/endpoints")[0] == 200  # the authorizer's answer is cached
    reads: list[dict[str, Any]] = []
    client = aws.dynamodb_table(hookline.env[topology.TABLE.env]).meta.client
    client.meta.events.register("before-parameter-build.dynamodb.GetItem", lambda params, **_: reads.append(params))
    # When the session and the producer each list their endpoints again
    assert _call(gw, token, "GET", "/v1/endpoints")[0] == 200
    session_reads, reads[:] = list(reads), []
    assert _call(gw, API_KEY, "GET", "/v1/endpoints")[0] == 200
    # Then the session read its customer strongly consistent, once; the producer did not
    customer_key = {name: {"S": value} for name, value in keys.customer("acme", "cus-a").items()}
    assert [r for r in session_reads if r["Key"] == customer_key and r.get("ConsistentRead")] == [
        {"TableName": ANY, "Key": customer_key, "ConsistentRead": True}
    ]
    assert not [r for r in reads if r["Key"] == customer_key]


def _previous_release_answer(gw: Gateway, token: str) -> None:
    """Cache for `token` what the previous release's authorizer answered: its context had no `customer_since`."""
    decision = parse_authorizer_result(gw.authorizer({"headers": {"authorization": f"Bearer {token}"}}))
    assert decision.authorized
    gw.cache.put(f"Bearer {token}", AuthDecision(True, {k: v for k, v in decision.context.items() if k != "customer_since"}))


def test_a_cached_answer_of_the_previous_release_works_for_its_customer_and_no_other(gateway: tuple[Gateway, Monotonic]) -> None:
    gw, _ = gateway
    # Given a session whose cached answer the previous release's authorizer gave (no customer_since: an upgrade)
    token = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions")[1]["token"]
    _previous_release_answer(gw, token)
    # Then it works while its customer is the one it was made for: an upgrade locks no session out
    assert _call(gw, token, "GET", "/v1/endpoints")[0] == 200
    # And once the customer is deleted and made again under its uid, it is refused though the answer is still cached
    assert _call(gw, API_KEY, "DELETE", "/v1/customers/cus-a")[0] == 202
    time.sleep(0.002)
    assert _call(gw, API_KEY, "PUT", "/v1/customers/cus-a", {"name": "A again"})[0] == 201
    assert _call(gw, token, "GET", "/v1/endpoints")[0] == 401
    # And an answer cached for one customer's session cannot be borrowed by another customer's token
    assert _call(gw, API_KEY, "PUT", "/v1/customers/cus-b", {"name": "B"})[0] == 201
    other = _call(gw, API_KEY, "POST", "/v1/customers/cus-b/portal-sessions")[1]["token"]
    mine = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions")[1]["token"]
    _previous_release_answer(gw, mine)
    gw.cache.put(f"Bearer {other}", gw.cache.get(f"Bearer {mine}"))  # type: ignore[arg-type]
    assert _call(gw, other, "GET", "/v1/endpoints")[0] == 401


def test_no_token_reaches_any_log_line(gateway: tuple[Gateway, Monotonic], caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    gw, clock = gateway
    caplog.set_level(logging.DEBUG)
    # Given every path a token takes: issued, used on each kind of route, refused, revoked, then used again
    token = _call(gw, API_KEY, "POST", "/v1/customers/cus-a/portal-sessions", {"read_only": True})[1]["token"]
    answers = [
        _call(gw, token, "GET", "/v1/endpoints"),
        _call(gw, token, "POST", "/v1/endpoints", {"url": "https://example.com/x"}),
        _call(gw, token, "POST", "/v1/events", {"type": "a.b", "data": {}}),
        _call(gw, token, "GET", "/v1/endpoints/not-an-id"),
        _call(gw, token + "x", "GET", "/v1/endpoints"),
    ]
    assert [status for status, _ in answers] == [200, 403, 403, 404, 401]
    _call(gw, API_KEY, "DELETE", "/v1/customers/cus-a/portal-sessions")
    clock.now += MAX_AUTHORIZER_CACHE_SECONDS + 1
    assert _call(gw, token, "GET", "/v1/endpoints")[0] == 401
    # Then neither the token nor its secret part is in any log record or anything printed
    printed = capsys.readouterr()
    logged = "\n".join(r.getMessage() + json.dumps(r.__dict__, default=str) for r in caplog.records)
    secret_part = token.removeprefix("hps_")
    for text in (printed.out, printed.err, logged):
        assert secret_part not in text
    # (and the capture is not empty: the SDK's own debug lines, the requests to DynamoDB included, are in it)
    assert any(r.name.startswith("botocore") for r in caplog.records) and "GetItem" in logged
    # And API Gateway's access log never records the Authorization header
    assert "authorization" not in ACCESS_LOG_FORMAT.lower() and "header" not in ACCESS_LOG_FORMAT.lower()


def test_local_mode_prints_an_emails_portal_link_without_its_token() -> None:
    message = SimpleNamespace(
        destinations={"ToAddresses": ["ops@a.example"]},
        subject="Webhook endpoint disabled",
        body="Hello\nPortal: http://127.0.0.1:8787/portal?t=acme#token=hps_SECRETPART\n",
    )
    shown = render(message)
    assert "SECRETPART" not in shown and "http://127.0.0.1:8787/portal?t=acme#token=" in shown


def test_the_authorizer_cache_can_not_outlast_the_revocation_bound() -> None:
    assert Settings().authorizer_cache_seconds == MAX_AUTHORIZER_CACHE_SECONDS == 60
    with pytest.raises(SettingsError, match="HOOKLINE_AUTHORIZER_CACHE_SECONDS"):
        Settings.from_env({"HOOKLINE_AUTHORIZER_CACHE_SECONDS": "300"})
