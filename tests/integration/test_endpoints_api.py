"""Endpoint routes through the real API handler against moto."""

from __future__ import annotations

import re
from typing import Any

import pytest
from botocore.exceptions import ClientError

from hookline.adapters import aws
from hookline.adapters.dynamo import keys
from hookline.core import ids
from hookline.wiring import container, topology
from tests.conftest import Hookline


def test_create_endpoint_returns_secret_once(hookline: Hookline) -> None:
    # Given / When a tenant registers an endpoint
    status, body = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/hook", "event_types": ["invoice.paid"], "description": "billing"})
    # Then it is created active with a whsec_ secret shown only now
    assert status == 201
    assert ids.is_id(body["id"], "ep")
    assert body["url"] == "https://example.com/hook"
    assert body["event_types"] == ["invoice.paid"]
    assert body["status"] == "active"
    assert re.match(r"^whsec_[A-Za-z0-9+/=]{32}$", body["secret"])
    assert body["created_at"].endswith("Z")
    # And reading it back never shows the secret
    status, got = hookline.api("GET", f"/v1/endpoints/{body['id']}")
    assert status == 200
    assert "secret" not in got
    assert got["description"] == "billing"


def test_event_types_default_to_every_type(hookline: Hookline) -> None:
    status, body = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/a"})
    assert status == 201
    assert body["event_types"] == []


def test_list_is_paged_with_cursor(hookline: Hookline) -> None:
    # Given five endpoints
    created = {hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/{i}"})[1]["id"] for i in range(5)}
    # When listing two at a time
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        query = {"limit": "2"} | ({"cursor": cursor} if cursor else {})
        status, page = hookline.api("GET", "/v1/endpoints", query=query)
        assert status == 200
        assert len(page["items"]) <= 2
        seen.extend(i["id"] for i in page["items"])
        pages += 1
        cursor = page["next"]
        if not cursor:
            break
    # Then every endpoint shows exactly once, over several pages
    assert sorted(seen) == sorted(created)
    assert pages >= 3


def test_list_rejects_bad_limit_and_foreign_cursor(hookline: Hookline) -> None:
    for i in range(3):
        hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/{i}"}, tenant="other")
    _, page = hookline.api("GET", "/v1/endpoints", tenant="other", query={"limit": "1"})
    # Another tenant's cursor is refused rather than leaking its items
    status, body = hookline.api("GET", "/v1/endpoints", query={"cursor": page["next"]})
    assert status == 422
    assert body["error"]["code"] == "invalid_cursor"
    status, body = hookline.api("GET", "/v1/endpoints", query={"limit": "0"})
    assert status == 422
    status, body = hookline.api("GET", "/v1/endpoints", query={"limit": "abc"})
    assert status == 422


def test_patch_and_delete(hookline: Hookline) -> None:
    _, ep = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/a"})
    status, body = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"url": "https://example.org/b", "event_types": ["a.b"], "status": "disabled"})
    assert status == 200
    assert body["url"] == "https://example.org/b"
    assert body["event_types"] == ["a.b"]
    assert body["status"] == "disabled"
    status, body = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"status": "active"})
    assert body["status"] == "active"
    assert "disabled_reason" not in body
    status, body = hookline.api("DELETE", f"/v1/endpoints/{ep['id']}")
    assert status == 204
    status, body = hookline.api("GET", f"/v1/endpoints/{ep['id']}")
    assert status == 404
    status, body = hookline.api("DELETE", f"/v1/endpoints/{ep['id']}")
    assert status == 404


def test_other_tenants_endpoints_are_404(hookline: Hookline) -> None:
    # Given an endpoint of tenant acme
    _, ep = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/a"})
    # Then tenant other cannot read, change, delete or list it, exactly as if it did not exist
    for method, body in (("GET", None), ("PATCH", {"description": "x"}), ("DELETE", None)):
        status, err = hookline.api(method, f"/v1/endpoints/{ep['id']}", body, tenant="other")
        missing_status, missing = hookline.api(method, f"/v1/endpoints/{ids.new_id('ep', 0)}", body, tenant="other")
        assert status == missing_status == 404
        assert err["error"]["code"] == missing["error"]["code"] == "not_found"
    _, page = hookline.api("GET", "/v1/endpoints", tenant="other")
    assert page == {"items": [], "next": None}
    # And the endpoint is unchanged
    _, still = hookline.api("GET", f"/v1/endpoints/{ep['id']}")
    assert still["description"] == ""


@pytest.mark.parametrize(
    ("body", "raw", "status", "code"),
    [
        (None, "{not json", 400, "malformed_json"),
        (None, "", 400, "malformed_json"),
        ([1, 2], None, 422, "validation_failed"),
        ({}, None, 422, "missing_field"),
        ({"url": 42}, None, 422, "wrong_type"),
        ({"url": "ftp://example.com/x"}, None, 422, "invalid_url"),
        ({"url": "not a url"}, None, 422, "invalid_url"),
        ({"url": "https://user:pw@example.com/"}, None, 422, "invalid_url"),
        ({"url": "https://example.com/" + "a" * 2100}, None, 422, "invalid_url"),
        ({"url": "http://169.254.169.254/latest"}, None, 422, "forbidden_url"),
        ({"url": "https://example.com", "event_types": "x"}, None, 422, "wrong_type"),
        ({"url": "https://example.com", "colour": "red"}, None, 422, "unknown_field"),
    ],
)
def test_bad_endpoint_input_changes_nothing(hookline: Hookline, body: object, raw: str | None, status: int, code: str) -> None:
    got_status, got = hookline.api("POST", "/v1/endpoints", body, raw_body=raw)
    assert got_status == status
    assert got["error"]["code"] == code
    assert got["error"]["message"]
    assert hookline.api("GET", "/v1/endpoints")[1]["items"] == []


def test_unknown_route_and_missing_tenant(hookline: Hookline) -> None:
    status, body = hookline.api("GET", "/v1/nope")
    assert status == 404
    assert body["error"]["code"] == "not_found"
    status, body = hookline.api("GET", "/v1/endpoints", tenant=None)
    assert status == 401
    assert body["error"]["code"] == "unauthorized"


def test_health_needs_no_tenant(hookline: Hookline) -> None:
    assert hookline.api("GET", "/health", tenant=None) == (200, {"status": "ok"})


def test_an_owner_past_its_most_endpoints_gets_409_and_a_delete_makes_room(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKLINE_MAX_ENDPOINTS_PER_OWNER", "2")
    container.reset()
    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    # Given customer A with two endpoints, and two of the tenant's own whose count a release before the count never
    # kept (its item removed: the first create of this release counts them)
    assert hookline.api("PUT", "/v1/customers/A", {"name": "A"})[0] == 201
    first = [hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/a{i}", "customer": "A"})[1]["id"] for i in range(2)]
    own = [hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/own{i}"})[1]["id"] for i in range(2)]
    table.delete_item(Key=keys.owned_endpoints("acme", None))
    container.reset()  # a new process: nothing of the owners' counts in memory
    # When a third is created for each
    status, refused = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/a2", "customer": "A"})
    own_status, own_refused = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/own2"})
    # Then each is 409 endpoint_limit_reached, and nothing was stored
    assert (status, refused["error"]["code"], own_status, own_refused["error"]["code"]) == (409, "endpoint_limit_reached", 409, "endpoint_limit_reached")
    assert "customer A" in refused["error"]["message"] and "(2)" in refused["error"]["message"]
    listed = hookline.api("GET", "/v1/endpoints", query={"limit": "100"})[1]["items"]
    assert sorted(e["id"] for e in listed) == sorted(first + own)
    # And another customer is not held to A's count
    assert hookline.api("PUT", "/v1/customers/B", {"name": "B"})[0] == 201
    assert hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/b0", "customer": "B"})[0] == 201
    # And once one of A's is deleted, A may have another, and not one more
    assert hookline.api("DELETE", f"/v1/endpoints/{first[0]}")[0] == 204
    assert hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/a2", "customer": "A"})[0] == 201
    assert hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/a3", "customer": "A"})[0] == 409
    assert int(table.get_item(Key=keys.owned_endpoints("acme", "A"))["Item"]["endpoints"]) == 2


def _conflicting(table: Any, times: int) -> dict[str, int]:
    """The next `times` TransactWriteItems are cancelled as DynamoDB cancels one that another transaction on the same
    items beat (botocore does not retry it)."""
    left = {"n": times}

    def conflict(**_: Any) -> None:
        if left["n"] > 0:
            left["n"] -= 1
            reasons = [{"Code": "None"}, {"Code": "TransactionConflict"}]
            raise ClientError({"Error": {"Code": "TransactionCanceledException", "Message": "injected"}, "CancellationReasons": reasons}, "TransactWriteItems")

    table.meta.client.meta.events.register("before-call.dynamodb.TransactWriteItems", conflict, unique_id="test-conflict")
    return left


def test_a_create_another_transaction_cancelled_is_tried_again_and_one_that_keeps_losing_is_503(hookline: Hookline) -> None:
    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    try:
        # Given the owner's count being written by others: the first two tries are cancelled
        left = _conflicting(table, 2)
        # When an endpoint is created, Then the third try lands
        status, created = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/a"})
        assert (status, left["n"]) == (201, 0)
        # And when every try is cancelled, the answer is 503 (repeat the request), and nothing is stored
        left["n"] = 100
        status, refused = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/b"})
        assert (status, refused["error"]["code"]) == (503, "unavailable")
        status, deleted = hookline.api("DELETE", f"/v1/endpoints/{created['id']}")
        assert (status, deleted["error"]["code"]) == (503, "unavailable")
    finally:
        table.meta.client.meta.events.unregister("before-call.dynamodb.TransactWriteItems", unique_id="test-conflict")
    assert [e["id"] for e in hookline.api("GET", "/v1/endpoints")[1]["items"]] == [created["id"]]


def test_a_count_the_previous_release_left_high_is_corrected_at_the_next_refusal(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKLINE_MAX_ENDPOINTS_PER_OWNER", "2")
    container.reset()
    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    # Given two of the tenant's own endpoints, and one of them deleted as the previous release deletes (no count)
    made = [hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/{i}"})[1]["id"] for i in range(2)]
    table.delete_item(Key=keys.endpoint("acme", made[0]))
    assert int(table.get_item(Key=keys.owned_endpoints("acme", None))["Item"]["endpoints"]) == 2
    # When one more is created, Then it is, on the count corrected to the one endpoint there was
    assert hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/2"})[0] == 201
    assert int(table.get_item(Key=keys.owned_endpoints("acme", None))["Item"]["endpoints"]) == 2
    # And the next one is refused: the owner has its two
    assert hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/3"})[0] == 409
