"""Endpoint routes through the real API handler against moto."""

from __future__ import annotations

import re

import pytest

from hookline.core import ids
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
