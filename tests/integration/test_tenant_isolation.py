"""Tenant isolation on every route: another tenant's ids (endpoints, events, deliveries, replays, customers)
answer exactly like ids that do not exist, and change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from hookline.core import ids
from hookline.wiring import topology
from tests.conftest import Hookline
from tests.support.receiver import Answer, running_receiver

WINDOW = {"since": "2020-01-01T00:00:00Z", "until": "2099-01-01T00:00:00Z"}


@pytest.fixture
def owned(hookline: Hookline) -> dict[str, str]:
    """Tenant acme's endpoint, a failed delivery of an event, a replay, a customer with an endpoint, and a broadcast fanned out."""
    hookline.api("PUT", "/v1/customers/globex", {"name": "Globex", "email": "ops@globex.example.com"})
    hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/globex", "customer": "globex"})
    with running_receiver(lambda _r: Answer(status=400)) as receiver:
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        _, evt = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"secret_data": 1}})
        hookline.pump()
    _, event = hookline.api("GET", f"/v1/events/{evt['id']}")
    _, replay = hookline.api("POST", f"/v1/endpoints/{ep['id']}/replay", WINDOW)
    _, broadcast = hookline.api("POST", "/v1/events/broadcast", {"type": "a.b", "data": {"secret_data": 2}, "id": "to-all"})
    hookline.drain(topology.JOBS_QUEUE)  # its fan-out: deliveries stored and queued, none sent
    _, shown = hookline.api("GET", f"/v1/events/{broadcast['id']}")
    return {
        "ep": ep["id"],
        "evt": evt["id"],
        "dlv": event["deliveries"][0]["id"],
        "rpl": replay["id"],
        "cus": "globex",
        "bc": broadcast["id"],
        "bc_dlv": shown["deliveries"][0]["id"],
    }


ROUTES: list[tuple[str, str, Any]] = [
    ("GET", "/v1/endpoints/{ep}", None),
    ("PATCH", "/v1/endpoints/{ep}", {"description": "mine now"}),
    ("DELETE", "/v1/endpoints/{ep}", None),
    ("POST", "/v1/endpoints/{ep}/enable", None),
    ("POST", "/v1/endpoints/{ep}/secret/rotate", None),
    ("GET", "/v1/endpoints/{ep}/secret", None),
    ("POST", "/v1/endpoints/{ep}/test", None),
    ("GET", "/v1/endpoints/{ep}/deliveries", None),
    ("GET", "/v1/endpoints/{ep}/stats", None),
    ("POST", "/v1/endpoints/{ep}/replay", WINDOW),
    ("GET", "/v1/events/{evt}", None),
    ("GET", "/v1/events/{bc}", None),
    ("POST", "/v1/events/{bc}/deliveries/{bc_dlv}/retry", None),
    ("POST", "/v1/events/{evt}/deliveries/{dlv}/retry", None),
    ("GET", "/v1/replays/{rpl}", None),
    ("GET", "/v1/customers/{cus}", None),
    ("GET", "/v1/customers/{cus}/stats", None),
    ("POST", "/v1/customers/{cus}/portal-sessions", {"read_only": True}),
    ("DELETE", "/v1/customers/{cus}/portal-sessions", None),
    ("DELETE", "/v1/customers/{cus}", None),
]
MISSING = {
    "ep": ids.new_id("ep", 0),
    "evt": ids.new_id("evt", 0),
    "dlv": ids.new_id("dlv", 0),
    "rpl": "rpl_0000000000000000000000000a",
    "cus": "nobody",
    "bc": ids.new_id("evt", 0),
    "bc_dlv": ids.new_id("dlv", 0),
}


def _acme(hookline: Hookline, owned: dict[str, str]) -> Any:
    """Everything of acme's these tests aim at, as acme reads it."""
    return (
        hookline.api("GET", f"/v1/events/{owned['evt']}")[1],
        hookline.api("GET", f"/v1/events/{owned['bc']}")[1],
        hookline.api("GET", f"/v1/endpoints/{owned['ep']}")[1],
        hookline.api("GET", f"/v1/customers/{owned['cus']}")[1],
        hookline.api("GET", "/v1/endpoints", query={"customer": owned["cus"]})[1],
    )


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
def test_another_tenants_ids_are_404_like_missing_ones(hookline: Hookline, owned: dict[str, str], method: str, path: str, body: Any) -> None:
    before = _acme(hookline, owned)
    status, answer = hookline.api(method, path.format(**owned), body, tenant="intruder")
    missing_status, missing = hookline.api(method, path.format(**MISSING), body, tenant="intruder")
    assert status == missing_status == 404
    assert answer["error"]["code"] == missing["error"]["code"] == ("customer_not_found" if "{cus}" in path else "not_found")
    # And nothing of acme's changed
    assert _acme(hookline, owned) == before


# Requests that name a customer in their body or query: another tenant's customer is an unknown one.
NAMING_A_CUSTOMER: list[tuple[str, str, Any, dict[str, str] | None]] = [
    ("POST", "/v1/endpoints", {"url": "https://example.com/intruder", "customer": "{cus}"}, None),
    ("GET", "/v1/endpoints", None, {"customer": "{cus}"}),
    ("POST", "/v1/events", {"type": "a.b", "data": {}, "customer": "{cus}"}, None),
]


@pytest.mark.parametrize(("method", "path", "body", "query"), NAMING_A_CUSTOMER, ids=[f"{m} {p} {b or q}" for m, p, b, q in NAMING_A_CUSTOMER])
def test_naming_another_tenants_customer_is_404_like_a_missing_one(
    hookline: Hookline, owned: dict[str, str], method: str, path: str, body: Any, query: dict[str, str] | None
) -> None:
    before = _acme(hookline, owned)
    answers = []
    for uid in (owned["cus"], MISSING["cus"]):
        fill = {k: v.replace("{cus}", uid) if isinstance(v, str) else v for k, v in (body or {}).items()}
        asked = {k: v.replace("{cus}", uid) for k, v in (query or {}).items()}
        answers.append(hookline.api(method, path, fill or None, tenant="intruder", query=asked or None))
    assert [(status, got["error"]["code"]) for status, got in answers] == [(404, "customer_not_found")] * 2
    assert _acme(hookline, owned) == before


def test_a_batch_event_for_another_tenants_customer_is_refused_alone(hookline: Hookline, owned: dict[str, str]) -> None:
    before = _acme(hookline, owned)
    events = [{"type": "a.b", "data": {}, "customer": owned["cus"]}, {"type": "a.b", "data": {}}]
    status, answer = hookline.api("POST", "/v1/events/batch", {"events": events}, tenant="intruder")
    assert (status, [r["status"] for r in answer["results"]]) == (207, [404, 202])
    assert _acme(hookline, owned) == before


def test_putting_another_tenants_customer_uid_makes_a_customer_of_ones_own(hookline: Hookline, owned: dict[str, str]) -> None:
    before = _acme(hookline, owned)
    status, created = hookline.api("PUT", f"/v1/customers/{owned['cus']}", {"name": "Not Globex"}, tenant="intruder")
    assert (status, created["name"], created["email"]) == (201, "Not Globex", None)
    assert hookline.api("GET", "/v1/endpoints", tenant="intruder", query={"customer": owned["cus"]})[1] == {"items": [], "next": None}
    assert _acme(hookline, owned) == before


def test_lists_never_show_another_tenants_items(hookline: Hookline, owned: dict[str, str]) -> None:
    assert hookline.api("GET", "/v1/endpoints", tenant="intruder")[1] == {"items": [], "next": None}
    assert hookline.api("GET", "/v1/customers", tenant="intruder")[1] == {"items": [], "next": None}
    status, _ = hookline.api("GET", f"/v1/endpoints/{owned['ep']}/deliveries", tenant="acme")
    assert status == 200


def test_another_tenants_broadcast_with_the_same_id_reaches_none_of_the_tenants_endpoints(hookline: Hookline, owned: dict[str, str]) -> None:
    before = _acme(hookline, owned)
    # When another tenant broadcasts with acme's idempotency key and body
    status, answer = hookline.api("POST", "/v1/events/broadcast", {"type": "a.b", "data": {"secret_data": 2}, "id": "to-all"}, tenant="intruder")
    hookline.drain(topology.JOBS_QUEUE)
    # Then it is a broadcast of its own, over none of acme's endpoints, and nothing of acme's changed
    assert (status, answer["id"] != owned["bc"]) == (202, True)
    shown = hookline.api("GET", f"/v1/events/{answer['id']}", tenant="intruder")[1]
    assert (shown["broadcast"]["endpoints_scanned"], shown["deliveries"]) == (0, [])
    assert [m for m in hookline.queued(max_messages=100) if answer["id"] in m["Body"]] == []
    assert _acme(hookline, owned) == before
