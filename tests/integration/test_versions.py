"""Payload versions and the event-type catalog through the real API and delivery handlers, against moto and a real receiver.

Each endpoint receives the event rendered at the version it is pinned to
(supplied by the producer or derived by the type's JSON Patch downgrades),
signed as exactly those bytes; a schema violation is a 422 with its pointer.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime

import pytest
from standardwebhooks.webhooks import Webhook

from hookline.wiring import topology
from tests.conftest import Hookline
from tests.support.receiver import Answer, running_receiver

INVOICE = {
    "description": "An invoice was paid",
    "versions": {
        "2026-01-01": {"schema": {"type": "object", "required": ["amount"], "properties": {"amount": {"type": "integer"}}}},
        "2026-10-01": {
            "schema": {"type": "object", "required": ["amount_cents"], "properties": {"amount_cents": {"type": "integer", "minimum": 0}}},
            "transform": [{"op": "move", "from": "/amount_cents", "path": "/amount"}],
        },
    },
}


def _endpoint(hookline: Hookline, url: str, **fields: object) -> dict:
    status, ep = hookline.api("POST", "/v1/endpoints", {"url": url, **fields})
    assert status == 201, ep
    return ep


def _versions(hookline: Hookline, default: str = "2026-10-01") -> None:
    assert hookline.api("PUT", f"/v1/versions/{default}", {"default": True})[0] == 201


def test_the_catalog_registers_lists_and_validates(hookline: Hookline) -> None:
    status, stored = hookline.api("PUT", "/v1/event-types/invoice.paid", INVOICE)
    assert status == 201 and sorted(stored["versions"]) == ["2026-01-01", "2026-10-01"]
    assert hookline.api("PUT", "/v1/event-types/invoice.paid", {**INVOICE, "deprecated": True})[0] == 200
    _, one = hookline.api("GET", "/v1/event-types/invoice.paid")
    assert one["deprecated"] is True and one["versions"]["2026-10-01"]["transform"] == INVOICE["versions"]["2026-10-01"]["transform"]
    _, listed = hookline.api("GET", "/v1/event-types")
    assert [t["name"] for t in listed["items"]] == ["invoice.paid"] and listed["items"][0]["versions"] == ["2026-01-01", "2026-10-01"]
    assert hookline.api("GET", "/v1/event-types/nope")[0] == 404
    status, bad = hookline.api("PUT", "/v1/event-types/x", {"versions": {"2026-01-01": {"schema": {"type": 5}}}})
    assert (status, bad["error"]["code"]) == (422, "invalid_schema")
    # Another tenant sees none of it.
    assert hookline.api("GET", "/v1/event-types/invoice.paid", tenant="globex")[0] == 404


def test_a_schema_violation_is_a_422_with_the_pointer_and_nothing_is_stored(hookline: Hookline) -> None:
    _versions(hookline)
    hookline.api("PUT", "/v1/event-types/invoice.paid", INVOICE)
    with running_receiver() as receiver:
        _endpoint(hookline, receiver.url)
        status, body = hookline.api("POST", "/v1/events", {"type": "invoice.paid", "id": "inv-1", "data": {"amount_cents": -1}})
        assert status == 422
        assert body["error"] | {"message": ""} == {
            "code": "schema_violation",
            "message": "",
            "pointer": "/amount_cents",
            "rule": "minimum",
            "version": "2026-10-01",
        }
        assert hookline.api("GET", "/v1/events/inv-1")[0] == 404
        assert hookline.queued() == []
        # A type the catalog does not hold is accepted as it comes.
        assert hookline.api("POST", "/v1/events", {"type": "other.thing", "data": {"amount_cents": "free-form"}})[0] == 202


def test_a_number_too_large_for_its_schema_is_that_events_422_and_its_batch_strands_nothing(hookline: Hookline) -> None:
    # Given a type whose schema asks for multiples of 0.5 (jsonschema divides by it as a float)
    _versions(hookline)
    halves = {"versions": {"2026-10-01": {"schema": {"type": "object", "properties": {"n": {"multipleOf": 0.5}}}}}}
    status, registered = hookline.api("PUT", "/v1/event-types/m.one", halves)
    assert status in (200, 201), registered
    with running_receiver() as receiver:
        _endpoint(hookline, receiver.url)
        huge = {"type": "m.one", "data": {"n": 10**400}}
        # When one event alone, and one in a batch between two good ones, carry an integer beyond a float's range
        status, single = hookline.api("POST", "/v1/events", huge)
        status_batch, batch = hookline.api(
            "POST", "/v1/events/batch", {"events": [{"type": "m.one", "data": {"n": 1}, "id": "ok-1"}, huge, {"type": "m.one", "data": {"n": 2}}]}
        )
    # Then it is a 422 schema violation, and the good events of the batch are stored and queued (none left unqueued)
    assert (status, single["error"]["code"], single["error"]["rule"]) == (422, "schema_violation", "multipleOf")
    assert (status_batch, [r["status"] for r in batch["results"]]) == (207, [202, 422, 202])
    assert len(hookline.queued()) == 2


def test_each_endpoint_gets_its_pinned_version_signed_as_the_exact_bytes(hookline: Hookline) -> None:
    hookline.api("PUT", "/v1/event-types/invoice.paid", INVOICE)
    with running_receiver() as receiver:
        # Pinned at creation to the tenant's default: the base version, then 2026-10-01 once it is the default.
        old = _endpoint(hookline, receiver.url.rstrip("/") + "/old")
        _versions(hookline)
        new = _endpoint(hookline, receiver.url.rstrip("/") + "/new")
        assert (old["version"], new["version"]) == ("2026-01-01", "2026-10-01")
        _, shown = hookline.api("GET", f"/v1/endpoints/{old['id']}")
        assert shown["version"] == "2026-01-01"  # changing the default moved nothing
        _, accepted = hookline.api("POST", "/v1/events", {"type": "invoice.paid", "data": {"amount_cents": 1250}})
        assert hookline.drain() == 2
        got = {r.path.rsplit("/", 1)[-1]: r for r in receiver.requests}
        for path, ep, version, data in (("old", old, "2026-01-01", {"amount": 1250}), ("new", new, "2026-10-01", {"amount_cents": 1250})):
            request = got[path]
            payload = Webhook(ep["secret"]).verify(request.body, request.headers)
            assert payload == {"id": accepted["id"], "type": "invoice.paid", "timestamp": payload["timestamp"], "version": version, "data": data}
            assert json.loads(request.body)["version"] == version


def test_a_retry_sends_the_same_bytes_and_a_supplied_rendering_wins(hookline: Hookline) -> None:
    hookline.api("PUT", "/v1/event-types/invoice.paid", INVOICE)
    answers = iter([Answer(status=503, headers={"retry-after": "1"}), Answer(status=200)])
    with running_receiver(lambda _r: next(answers)) as receiver:
        ep = _endpoint(hookline, receiver.url)  # pinned to 2026-01-01
        _versions(hookline)
        supplied = {"2026-01-01": {"amount": 99}}
        _, accepted = hookline.api("POST", "/v1/events", {"type": "invoice.paid", "data": {"amount_cents": 1250}, "versions": supplied})
        hookline.drain()
        deadline = time.time() + 20
        while hookline.api("GET", f"/v1/events/{accepted['id']}")[1]["deliveries"][0]["status"] == "pending" and time.time() < deadline:
            hookline.drain(topology.RETRY_QUEUE)  # the retry, after the receiver's Retry-After
            time.sleep(0.3)
        first, second = receiver.requests
        assert first.body == second.body
        assert json.loads(first.body)["data"] == {"amount": 99}
        Webhook(ep["secret"]).verify(second.body, second.headers)


def test_an_underivable_version_refuses_the_event_naming_the_endpoint(hookline: Hookline) -> None:
    hookline.api("PUT", "/v1/event-types/t", {"versions": {"2026-10-01": {"schema": {"type": "object"}}}})  # no downgrade
    with running_receiver() as receiver:
        ep = _endpoint(hookline, receiver.url)  # 2026-01-01
        _versions(hookline)
        status, body = hookline.api("POST", "/v1/events", {"type": "t", "id": "e1", "data": {}})
        assert (status, body["error"]["code"], body["error"]["version"], body["error"]["endpoint_id"]) == (422, "version_unavailable", "2026-01-01", ep["id"])
        assert hookline.api("GET", "/v1/events/e1")[0] == 404
        assert hookline.api("POST", "/v1/events", {"type": "t", "data": {}, "versions": {"2026-01-01": {"old": True}}})[0] == 202
        # A broadcast is refused the same way while an endpoint holds that version.
        status, body = hookline.api("POST", "/v1/events/broadcast", {"type": "t", "data": {}})
        assert (status, body["error"]["code"]) == (422, "version_unavailable")


def test_upgrading_sends_a_test_event_at_the_new_version_first(hookline: Hookline) -> None:
    answers = iter([Answer(status=500), Answer(status=200)])
    with running_receiver(lambda _r: next(answers)) as receiver:
        ep = _endpoint(hookline, receiver.url)
        _versions(hookline)
        status, failed = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"version": "2026-10-01"})
        assert (status, failed["error"]["code"], failed["error"]["attempt"]["status_code"]) == (424, "test_event_failed", 500)
        assert hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["version"] == "2026-01-01"
        status, upgraded = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"version": "2026-10-01"})
        assert (status, upgraded["version"]) == (200, "2026-10-01")
        tests = [Webhook(ep["secret"]).verify(r.body, r.headers) for r in receiver.requests]
        assert [(t["type"], t["version"]) for t in tests] == [("hookline.test", "2026-10-01")] * 2
        status, unknown = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"version": "2031-01-01"})
        assert (status, unknown["error"]["code"]) == (422, "unknown_version")


def test_the_usage_report_and_the_sunset_rules(hookline: Hookline, caplog: pytest.LogCaptureFixture) -> None:
    with running_receiver() as receiver:
        old = _endpoint(hookline, receiver.url)
        _versions(hookline)
        new = _endpoint(hookline, receiver.url)
        hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": 1}})
        assert hookline.drain() == 2
        _, report = hookline.api("GET", "/v1/versions")
        assert report["default"] == "2026-10-01"
        by_version = {v["version"]: v for v in report["items"]}
        for version, ep in (("2026-01-01", old), ("2026-10-01", new)):
            usage = by_version[version]["usage"]
            assert usage["endpoints"] == {"count": 1, "more": False, "ids": [ep["id"]]}
            assert usage["deliveries_7d"] == 1 and usage["last_delivery_at"] is not None
        # A sunset in the past: no new pin, but the pinned endpoint keeps receiving it, with a warning per delivery.
        status, sunset = hookline.api("PUT", "/v1/versions/2026-01-01", {"sunset_at": "2026-01-02T00:00:00Z"})
        assert (status, sunset["deprecated"]) == (200, True)
        status, refused = hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "version": "2026-01-01"})
        assert (status, refused["error"]["code"]) == (422, "version_sunset")
        status, refused = hookline.api("PATCH", f"/v1/endpoints/{new['id']}", {"version": "2026-01-01"})
        assert (status, refused["error"]["code"]) == (422, "version_sunset")
        with caplog.at_level(logging.WARNING):
            hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": 2}})
            assert hookline.drain() == 2
        warned = [r for r in caplog.records if r.getMessage() == "payload version past its sunset"]
        assert [getattr(r, "endpoint_id", None) for r in warned] == [old["id"]]
        assert len([r for r in receiver.requests if json.loads(r.body).get("version") == "2026-01-01"]) == 2
        # The default cannot be given a sunset.
        status, refused = hookline.api("PUT", "/v1/versions/2026-10-01", {"sunset_at": "2027-01-01T00:00:00Z"})
        assert (status, refused["error"]["code"]) == (422, "default_sunset")


def test_the_catalog_is_kept_by_the_process_that_reads_it_for_a_few_seconds(hookline: Hookline) -> None:
    from hookline.adapters import aws
    from hookline.adapters.dynamo.catalog import CatalogRepository
    from hookline.core.versions import event_type_of

    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    now = [100.0]
    ours, theirs = CatalogRepository(table, 5, lambda: now[0]), CatalogRepository(table, 5, lambda: now[0])
    assert ours.load("acme", ["a.b"])[1] == {} and theirs.load("acme", ["a.b"])[1] == {}
    # When this process registers the type, Then its next read has it at once; another process's, once its copy is 5 s old
    ours.put_type(event_type_of("acme", "a.b", "new", False, {}, datetime(2026, 12, 1, tzinfo=UTC), None))
    assert list(ours.load("acme", ["a.b"])[1]) == ["a.b"]
    assert theirs.load("acme", ["a.b"])[1] == {}
    now[0] += 5
    assert list(theirs.load("acme", ["a.b"])[1]) == ["a.b"]
    # And a read within the 5 s reads nothing from the table
    reads = []
    real = table.meta.client.batch_get_item
    table.meta.client.batch_get_item = lambda **kw: reads.append(kw) or real(**kw)
    try:
        theirs.load("acme", ["a.b"])
    finally:
        table.meta.client.batch_get_item = real
    assert reads == []
