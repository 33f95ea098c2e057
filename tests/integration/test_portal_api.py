"""What the portal page needs from the API, through the real handler over moto: the page and its files with their
security headers, the portal settings, who the caller is, the event types sent, the hourly series, the backlog,
newest-first deliveries and one delivery with its attempts."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from hookline.adapters.dynamo.events import EventRepository
from hookline.core import ids
from hookline.core.models import Delivery
from hookline.wiring import topology
from tests.conftest import Hookline
from tests.support.events import http_event
from tests.support.receiver import Answer, Received, running_receiver


def _raw(hookline: Hookline, path: str, query: dict[str, str] | None = None) -> dict[str, Any]:
    return dict(hookline.handlers["api"](http_event("GET", path, tenant=None, query=query), None))


def _session_context(hookline: Hookline, uid: str, **body: Any) -> dict[str, Any]:
    token = hookline.api("POST", f"/v1/customers/{uid}/portal-sessions", body)[1]["token"]
    return dict(hookline.handlers["authorizer"]({"headers": {"authorization": f"Bearer {token}"}}, None)["context"])


def _as(hookline: Hookline, context: dict[str, Any], method: str, path: str, query: dict[str, str] | None = None) -> tuple[int, Any]:
    event = http_event(method, path, tenant=None, query=query)
    event["requestContext"]["authorizer"] = {"lambda": context}
    result = hookline.handlers["api"](event, None)
    return result["statusCode"], json.loads(result["body"]) if result.get("body") else None


def test_the_page_is_served_with_a_strict_policy_and_the_producers_name_as_text(hookline: Hookline) -> None:
    # Given a producer whose name would be markup, allowing one origin to embed its portal
    settings = {"producer_name": 'Acme "<script>alert(1)</script>', "allowed_origins": ["https://app.acme.example", "http://localhost:3000"]}
    assert hookline.api("PUT", "/v1/portal-settings", settings)[0] == 200
    # When the page is asked for with the tenant's link, and without one
    page, anonymous = _raw(hookline, "/portal", {"t": "acme"}), _raw(hookline, "/portal")
    # Then it is the portal's HTML, the name escaped into its attribute, and a policy without inline code
    assert page["statusCode"] == 200 and page["headers"]["Content-Type"].startswith("text/html")
    assert 'data-producer="Acme &quot;&lt;script&gt;alert(1)&lt;/script&gt;"' in page["body"] and "<script>alert" not in page["body"]
    policy = page["headers"]["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy and "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert policy.endswith("frame-ancestors 'self' https://app.acme.example http://localhost:3000")
    assert page["headers"]["X-Content-Type-Options"] == "nosniff" and page["headers"]["Referrer-Policy"] == "no-referrer"
    # And a link naming no tenant (or another) may be framed by the page's own origin alone
    assert anonymous["headers"]["Content-Security-Policy"].endswith("frame-ancestors 'self'") and 'data-producer=""' in anonymous["body"]
    assert _raw(hookline, "/portal", {"t": "other"})["headers"]["Content-Security-Policy"].endswith("frame-ancestors 'self'")


@pytest.mark.parametrize(("name", "kind"), [("portal.js", "text/javascript"), ("portal.css", "text/css")])
def test_the_pages_files_are_served_by_name(hookline: Hookline, name: str, kind: str) -> None:
    answer = _raw(hookline, f"/portal/{name}")
    assert answer["statusCode"] == 200 and answer["headers"]["Content-Type"].startswith(kind) and len(answer["body"]) > 100
    assert answer["headers"]["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("name", ["nope.js", "index.html", "..%2f__init__.py", "portal.JS", "a.py"])
def test_anything_else_under_the_portal_is_404(hookline: Hookline, name: str) -> None:
    answer = _raw(hookline, f"/portal/{name}")
    assert answer["statusCode"] == 404 and json.loads(answer["body"])["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "body",
    [
        {"allowed_origins": ["https://app.example.com/path"]},
        {"allowed_origins": ["http://app.example.com"]},
        {"allowed_origins": ["https://*.example.com"]},
        {"allowed_origins": "https://app.example.com"},
        {"allowed_origins": [f"https://a{i}.example.com" for i in range(11)]},
        {"producer_name": "x" * 101},
        {"producer_name": "tab\there"},
        {"colour": "blue"},
    ],
)
def test_bad_portal_settings_are_422_and_change_nothing(hookline: Hookline, body: dict[str, Any]) -> None:
    assert hookline.api("PUT", "/v1/portal-settings", {"producer_name": "Acme"})[0] == 200
    before = hookline.api("GET", "/v1/portal-settings")[1]
    status, answer = hookline.api("PUT", "/v1/portal-settings", body)
    assert status == 422 and answer["error"]["message"]
    assert hookline.api("GET", "/v1/portal-settings")[1] == before


def test_a_session_learns_who_it_is_and_its_ceiling(hookline: Hookline) -> None:
    hookline.api("PUT", "/v1/portal-settings", {"producer_name": "Acme"})
    hookline.api("PUT", "/v1/customers/cus-a", {"name": "Customer A", "limits": {"max_rate_per_second": 20, "max_concurrency": 4}})
    status, me = _as(hookline, _session_context(hookline, "cus-a", read_only=True), "GET", "/v1/session")
    assert status == 200
    assert (me["kind"], me["customer"], me["read_only"], me["producer_name"]) == (
        "portal_session",
        {"uid": "cus-a", "name": "Customer A", "limits": {"max_rate_per_second": 20.0, "max_concurrency": 4}},
        True,
        "Acme",
    )
    assert me["expires_at"].endswith("Z")
    assert hookline.api("GET", "/v1/session")[1]["kind"] == "api_key"


def test_the_types_a_tenant_sent_are_listed_for_the_pick_list(hookline: Hookline) -> None:
    hookline.api("POST", "/v1/events", {"type": "invoice.paid", "data": {}})
    hookline.api("POST", "/v1/events/batch", {"events": [{"type": "invoice.created", "data": {}}, {"type": "invoice.paid", "data": {}}]})
    hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}}, tenant="other")
    assert hookline.api("GET", "/v1/event-types")[1] == {"items": [], "next": None, "sent": ["invoice.created", "invoice.paid"]}
    assert hookline.api("GET", "/v1/event-types", tenant="other")[1] == {"items": [], "next": None, "sent": ["a.b"]}
    # A registered type is listed from the catalog, and no longer among the merely sent
    assert hookline.api("PUT", "/v1/event-types/invoice.paid", {"description": "Paid"})[0] == 201
    listed = hookline.api("GET", "/v1/event-types")[1]
    assert ([t["name"] for t in listed["items"]], listed["sent"]) == (["invoice.paid"], ["invoice.created"])


def _answer(request: Received) -> Answer:
    return Answer(status=400, body=b'{"error":"unknown customer"}') if json.loads(request.body)["data"]["n"] % 2 else Answer()


def test_an_endpoint_shows_its_backlog_series_and_newest_failures_first(earned_concurrency: Hookline) -> None:
    hookline = earned_concurrency
    with running_receiver(_answer) as receiver:
        # Given an endpoint that fails every other event for good (with room for all six at once: one batch takes half of 12)
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "max_concurrency": 12, "rate_limit_per_second": 100})
        sent = [hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": n}})[1]["id"] for n in range(6)]
        hookline.pump()
    # Then its backlog counts the three failed deliveries
    assert hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["backlog"] == {"failed": 3, "paused": 0, "pending": 0, "more": False}
    # And the hourly series carries this hour's attempts and the deliveries that failed for good
    status, stats = hookline.api("GET", f"/v1/endpoints/{ep['id']}/stats", query={"series": "hour"})
    assert status == 200 and 1 <= len(stats["series"]) <= 2  # two only if the run crossed an hour
    totals = {k: sum(h[k] for h in stats["series"]) for k in ("attempts", "succeeded", "failed", "ended_failed", "ended_succeeded")}
    assert totals == {"attempts": 6, "succeeded": 3, "failed": 3, "ended_failed": 3, "ended_succeeded": 3}
    assert all(h["hour"].endswith(":00:00Z") for h in stats["series"]) and stats["attempts"] == 6
    assert hookline.api("GET", f"/v1/endpoints/{ep['id']}/stats", query={"series": "day"})[0] == 422
    # And the failed deliveries list newest first on request, oldest first by default
    newest = hookline.api("GET", f"/v1/endpoints/{ep['id']}/deliveries", query={"order": "desc"})[1]["items"]
    oldest = hookline.api("GET", f"/v1/endpoints/{ep['id']}/deliveries")[1]["items"]
    assert [d["event_id"] for d in newest] == [sent[5], sent[3], sent[1]] == [d["event_id"] for d in reversed(oldest)]
    assert hookline.api("GET", f"/v1/endpoints/{ep['id']}/deliveries", query={"order": "sideways"})[0] == 422
    # And one of them reads back with its attempts, the receiver's answer included
    one = newest[0]
    status, detail = hookline.api("GET", f"/v1/events/{one['event_id']}/deliveries/{one['id']}")
    assert status == 200 and (detail["event_type"], detail["status"], len(detail["attempts"])) == ("a.b", "failed", 1)
    assert detail["attempts"][0]["status_code"] == 400 and "unknown customer" in detail["attempts"][0]["response_body"]
    assert hookline.api("GET", f"/v1/events/{one['event_id']}/deliveries/dlv_00000000000000000000000000")[0] == 404


def test_failures_count_by_creation_hour_what_a_replay_of_that_window_restarts(hookline: Hookline) -> None:
    # Given an endpoint with failed deliveries created over three hours of yesterday (however late each failed for good)
    _, ep = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/hook"})
    table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
    events = EventRepository(table, topology.TABLE.ttl_attribute)
    created = ["2026-11-30T13:05:00.000Z", "2026-11-30T13:59:59.000Z", "2026-11-30T14:30:00.000Z", "2026-11-30T16:00:00.000Z"]
    events.create_deliveries(
        [
            Delivery(
                ids.delivery_id("acme", f"evt_{i:026d}", ep["id"], 1_796_000_000_000 + i),
                "acme",
                f"evt_{i:026d}",
                ep["id"],
                status="failed",
                created_at=at,
                updated_at="2026-11-30T20:00:00.000Z",
            )
            for i, at in enumerate(created)
        ],
        2_000_000_000,
    )
    window = {"since": "2026-11-30T00:00:00Z", "until": "2026-12-01T00:00:00Z"}
    # When the portal asks for them by hour
    status, failures = hookline.api("GET", f"/v1/endpoints/{ep['id']}/failures", query=window)
    # Then each is counted in the hour it was created, as a replay selects them
    assert status == 200 and failures["truncated"] is False and failures["total"] == 4
    assert failures["hours"] == [
        {"hour": "2026-11-30T13:00:00Z", "count": 2},
        {"hour": "2026-11-30T14:00:00Z", "count": 1},
        {"hour": "2026-11-30T16:00:00Z", "count": 1},
    ]
    # And a replay of 13:00-15:00 matches exactly the three counted there, which then leave the chart
    status, replay = hookline.api("POST", f"/v1/endpoints/{ep['id']}/replay", {"since": "2026-11-30T13:00:00Z", "until": "2026-11-30T15:00:00Z"})
    hookline.drain(topology.JOBS_QUEUE)
    assert hookline.api("GET", f"/v1/replays/{replay['id']}")[1]["matched"] == 3
    after = hookline.api("GET", f"/v1/endpoints/{ep['id']}/failures", query=window)[1]
    assert after["hours"] == [{"hour": "2026-11-30T16:00:00Z", "count": 1}]
    # And a bad window or status is refused
    assert hookline.api("GET", f"/v1/endpoints/{ep['id']}/failures", query={"status": "succeeded"})[0] == 422
    assert hookline.api("GET", f"/v1/endpoints/{ep['id']}/failures", query={"since": "2026-12-01T00:00:00Z", "until": "2026-11-30T00:00:00Z"})[0] == 422
