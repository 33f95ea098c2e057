"""Tenant isolation on every route: another tenant's ids answer exactly like ids that do not exist."""

from __future__ import annotations

from typing import Any

import pytest

from hookline.core import ids
from tests.conftest import Hookline
from tests.support.receiver import Answer, running_receiver

WINDOW = {"since": "2020-01-01T00:00:00Z", "until": "2099-01-01T00:00:00Z"}


@pytest.fixture
def owned(hookline: Hookline) -> dict[str, str]:
    """Tenant acme's endpoint, a failed delivery of an event, and a replay."""
    with running_receiver(lambda _r: Answer(status=400)) as receiver:
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        _, evt = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"secret_data": 1}})
        hookline.pump()
    _, event = hookline.api("GET", f"/v1/events/{evt['id']}")
    _, replay = hookline.api("POST", f"/v1/endpoints/{ep['id']}/replay", WINDOW)
    return {"ep": ep["id"], "evt": evt["id"], "dlv": event["deliveries"][0]["id"], "rpl": replay["id"]}


ROUTES: list[tuple[str, str, Any]] = [
    ("GET", "/v1/endpoints/{ep}", None),
    ("PATCH", "/v1/endpoints/{ep}", {"description": "mine now"}),
    ("DELETE", "/v1/endpoints/{ep}", None),
    ("POST", "/v1/endpoints/{ep}/enable", None),
    ("POST", "/v1/endpoints/{ep}/secret/rotate", None),
    ("GET", "/v1/endpoints/{ep}/deliveries", None),
    ("GET", "/v1/endpoints/{ep}/stats", None),
    ("POST", "/v1/endpoints/{ep}/replay", WINDOW),
    ("GET", "/v1/events/{evt}", None),
    ("POST", "/v1/events/{evt}/deliveries/{dlv}/retry", None),
    ("GET", "/v1/replays/{rpl}", None),
]
MISSING = {"ep": ids.new_id("ep", 0), "evt": ids.new_id("evt", 0), "dlv": ids.new_id("dlv", 0), "rpl": "rpl_0000000000000000000000000a"}


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
def test_another_tenants_ids_are_404_like_missing_ones(hookline: Hookline, owned: dict[str, str], method: str, path: str, body: Any) -> None:
    before = hookline.api("GET", f"/v1/events/{owned['evt']}")[1], hookline.api("GET", f"/v1/endpoints/{owned['ep']}")[1]
    status, answer = hookline.api(method, path.format(**owned), body, tenant="intruder")
    missing_status, missing = hookline.api(method, path.format(**MISSING), body, tenant="intruder")
    assert status == missing_status == 404
    assert answer["error"]["code"] == missing["error"]["code"] == "not_found"
    # And nothing of acme's changed
    after = hookline.api("GET", f"/v1/events/{owned['evt']}")[1], hookline.api("GET", f"/v1/endpoints/{owned['ep']}")[1]
    assert after == before


def test_lists_never_show_another_tenants_items(hookline: Hookline, owned: dict[str, str]) -> None:
    assert hookline.api("GET", "/v1/endpoints", tenant="intruder")[1] == {"items": [], "next": None}
    status, _ = hookline.api("GET", f"/v1/endpoints/{owned['ep']}/deliveries", tenant="acme")
    assert status == 200
