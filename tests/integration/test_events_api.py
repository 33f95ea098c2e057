"""Event ingest through the real API handler against moto: fan-out, idempotency, faults."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from hookline.adapters import aws
from hookline.core import ids
from hookline.core.models import DeliveryTask
from hookline.wiring import container
from tests.conftest import Hookline
from tests.support.events import http_event
from tests.support.receiver import running_receiver


def _endpoint(hookline: Hookline, url: str = "https://example.com/hook", tenant: str = "acme", **extra: Any) -> str:
    status, body = hookline.api("POST", "/v1/endpoints", {"url": url, **extra}, tenant=tenant)
    assert status == 201
    return str(body["id"])


def test_event_fans_out_to_matching_active_endpoints(hookline: Hookline) -> None:
    # Given endpoints: one for every type, one for invoice.paid, one for other types, one disabled, one of another tenant
    every = _endpoint(hookline)
    paid = _endpoint(hookline, event_types=["invoice.paid"])
    _endpoint(hookline, event_types=["user.created"])
    off = _endpoint(hookline)
    hookline.api("PATCH", f"/v1/endpoints/{off}", {"status": "disabled"})
    _endpoint(hookline, tenant="other")
    # When an invoice.paid event is posted
    status, body = hookline.api("POST", "/v1/events", {"type": "invoice.paid", "data": {"amount": 42}})
    # Then it is accepted with one delivery per matching endpoint; only the active ones are queued
    assert status == 202
    assert ids.is_id(body["id"], "evt")
    assert body["deliveries"] == 3
    tasks = [DeliveryTask.from_message(m["Body"]) for m in hookline.queued()]
    assert sorted(t.endpoint_id for t in tasks) == sorted([every, paid])
    assert all(t.attempt == 1 and t.event_id == body["id"] and t.tenant == "acme" for t in tasks)
    # And the tasks carry ids only, never the payload
    assert all(
        set(json.loads(t.to_message())) == {"v", "tenant", "event_id", "delivery_id", "endpoint_id", "attempt", "generation", "fresh", "version"} for t in tasks
    )
    # And the event reads back with its pending deliveries
    status, event = hookline.api("GET", f"/v1/events/{body['id']}")
    assert status == 200
    assert event["type"] == "invoice.paid"
    assert event["data"] == {"amount": 42}
    statuses = {d["endpoint_id"]: d["status"] for d in event["deliveries"]}
    # The disabled endpoint's delivery is kept, paused, until the endpoint is re-enabled: nothing is dropped
    assert statuses == {every: "pending", paid: "pending", off: "paused"}
    assert all(d["attempts"] == [] and ids.is_id(d["id"], "dlv") for d in event["deliveries"])


def test_same_id_same_body_returns_first_response_and_creates_nothing(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        # Given an accepted event whose task still waits on the queue
        _endpoint(hookline, receiver.url)
        first = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"x": 1, "y": 2}, "id": "order-1"})
        assert first[0] == 202
        # When the producer repeats it (key order does not make a different body)
        again = hookline.api("POST", "/v1/events", {"id": "order-1", "data": {"y": 2, "x": 1}, "type": "a.b"})
        # Then it gets the first response, and no second event or delivery exists
        assert again == first
        _, event = hookline.api("GET", f"/v1/events/{first[1]['id']}")
        assert len(event["deliveries"]) == 1
        # And even if the repeat re-queued the not-yet-attempted task, the receiver sees one request
        hookline.drain()
        hookline.drain()
        assert len(receiver.requests) == 1
        # And once delivered, a repeat queues nothing at all
        assert hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"x": 1, "y": 2}, "id": "order-1"}) == first
        assert hookline.queued() == []


def test_same_id_different_body_is_409(hookline: Hookline) -> None:
    _endpoint(hookline)
    status, first = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"x": 1}, "id": "order-2"})
    hookline.queued()
    status, body = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"x": 2}, "id": "order-2"})
    assert status == 409
    assert body["error"]["code"] == "idempotency_conflict"
    assert hookline.queued() == []
    _, event = hookline.api("GET", f"/v1/events/{first['id']}")
    assert event["data"] == {"x": 1}


def test_idempotency_keys_are_per_tenant(hookline: Hookline) -> None:
    a = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}, "id": "k"})[1]["id"]
    b = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"z": 1}, "id": "k"}, tenant="other")[1]["id"]
    assert a != b


def _repeat_requeue_delay(monkeypatch: pytest.MonkeyPatch, seconds: int) -> None:
    monkeypatch.setenv("HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS", str(seconds))
    container.reset()


def test_sqs_failure_answers_5xx_and_a_repeat_finishes_without_duplicates(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given two endpoints and an SQS that fails the next send, and a repeat's copies waiting 2 s in the queue
    _repeat_requeue_delay(monkeypatch, 2)
    _endpoint(hookline)
    _endpoint(hookline)
    client = aws.sqs_client()
    calls = {"n": 0}

    def fail_once(**_: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise client.exceptions.QueueDoesNotExist({"Error": {"Code": "AWS.SimpleQueueService.NonExistentQueue", "Message": "injected"}}, "SendMessageBatch")

    client.meta.events.register("before-call.sqs.SendMessageBatch", fail_once)
    request = {"type": "invoice.paid", "data": {"n": 1}, "id": "inv-77"}
    # When the event is posted
    status, body = hookline.api("POST", "/v1/events", request)
    # Then the API answers 503 with a JSON error and nothing is queued
    assert status == 503
    assert body["error"]["code"] == "unavailable"
    assert hookline.queued() == []
    # When the producer repeats the same request
    status, body = hookline.api("POST", "/v1/events", request)
    # Then it is accepted, and each delivery is queued exactly once, to be handed out after the repeat's delay
    assert status == 202
    assert body["deliveries"] == 2
    assert hookline.queued() == []
    tasks = [DeliveryTask.from_message(m["Body"]) for m in hookline.queued_once_visible(2)]
    assert len(tasks) == 2 and not any(t.fresh for t in tasks)  # copies claim their attempt
    assert len({t.delivery_id for t in tasks}) == 2
    _, event = hookline.api("GET", f"/v1/events/{body['id']}")
    assert sorted(d["id"] for d in event["deliveries"]) == sorted(t.delivery_id for t in tasks)


def test_dynamodb_failure_while_storing_deliveries_is_finished_by_a_repeat(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given an active endpoint (its delivery is only planned on the event) and a disabled one (its paused delivery is
    # written at once, for the index that re-enabling reads)
    _repeat_requeue_delay(monkeypatch, 1)
    _endpoint(hookline)
    off = _endpoint(hookline)
    hookline.api("PATCH", f"/v1/endpoints/{off}", {"status": "disabled"})
    table = aws.dynamodb_table(hookline.env["HOOKLINE_TABLE_NAME"])
    calls = {"n": 0}

    def fail_once(**_: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise table.meta.client.exceptions.ProvisionedThroughputExceededException(
                {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "injected"}}, "BatchWriteItem"
            )

    table.meta.client.meta.events.register("before-call.dynamodb.BatchWriteItem", fail_once)
    request = {"type": "a.b", "data": {}, "id": "dyn-1"}
    assert hookline.api("POST", "/v1/events", request)[0] == 503
    status, body = hookline.api("POST", "/v1/events", request)
    assert status == 202
    assert len(hookline.queued_once_visible(1)) == 1
    _, event = hookline.api("GET", f"/v1/events/{body['id']}")
    assert sorted(d["status"] for d in event["deliveries"]) == ["paused", "pending"]
    # The repeat stored the paused delivery where the disabled endpoint's backlog counts it
    assert hookline.api("GET", f"/v1/endpoints/{off}")[1]["backlog"]["paused"] == 1


def test_bad_event_input_changes_nothing(hookline: Hookline) -> None:
    _endpoint(hookline)
    cases: list[tuple[Any, str | None, int, str]] = [
        (None, "[", 400, "malformed_json"),
        ({"data": {}}, None, 422, "missing_field"),
        ({"type": "a.b"}, None, 422, "missing_field"),
        ({"type": 5, "data": {}}, None, 422, "wrong_type"),
        ({"type": "a.b", "data": [1]}, None, 422, "wrong_type"),
        ({"type": "bad type!", "data": {}}, None, 422, "validation_failed"),
        ({"type": "a.b", "data": {}, "id": "has space"}, None, 422, "validation_failed"),
        ({"type": "a.b", "data": {}, "extra": 1}, None, 422, "unknown_field"),
        ({"type": "a.b", "data": {"blob": "x" * 262_144}}, None, 413, "payload_too_large"),
    ]
    for body, raw, status, code in cases:
        got_status, got = hookline.api("POST", "/v1/events", body, raw_body=raw)
        assert (got_status, got["error"]["code"]) == (status, code), body
    assert hookline.queued() == []
    items = boto3.resource("dynamodb").Table(hookline.env["HOOKLINE_TABLE_NAME"]).scan()["Items"]
    # Only the endpoint, and its owner's count of endpoints, are stored
    assert [i for i in items if i["sk"] not in ("EP#" + i.get("id", ""), "CNT#")] == []


def test_unknown_and_foreign_events_are_404(hookline: Hookline) -> None:
    _, body = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
    assert hookline.api("GET", f"/v1/events/{body['id']}", tenant="other")[0] == 404
    assert hookline.api("GET", f"/v1/events/{ids.new_id('evt', 0)}")[0] == 404
    assert hookline.api("GET", "/v1/events/garbage")[0] == 404


def test_webhook_body_is_fixed_at_acceptance(hookline: Hookline) -> None:
    _, body = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"é": [1, 2.5, None]}})
    stored = aws.dynamodb_table(hookline.env["HOOKLINE_TABLE_NAME"]).get_item(Key={"pk": f"E#acme#{body['id']}", "sk": "EVENT"})["Item"]
    payload = json.loads(stored["body"])
    assert list(payload) == ["id", "type", "timestamp", "version", "data"]
    assert payload["id"] == body["id"]
    assert payload["data"] == {"é": [1, 2.5, None]}


def test_an_event_reads_back_by_the_id_the_producer_sent(hookline: Hookline) -> None:
    _endpoint(hookline)
    status, accepted = hookline.api("POST", "/v1/events", {"id": "order-1001", "type": "a.b", "data": {"n": 1}})
    assert status == 202
    # The producer's id (its idempotency key) reads the same event as the evt_ id hookline answered
    by_key, by_id = hookline.api("GET", "/v1/events/order-1001"), hookline.api("GET", f"/v1/events/{accepted['id']}")
    assert by_key == by_id and by_key[0] == 200 and by_key[1]["id"] == accepted["id"]
    # For the tenant that sent it only
    status, body = hookline.api("GET", "/v1/events/order-1001", tenant="other")
    assert (status, body["error"]["code"]) == (404, "not_found")


@pytest.mark.parametrize(
    ("method", "path", "status", "allow"),
    [
        ("TRACE", "/health", 405, "GET"),
        ("POST", "/health", 405, "GET"),
        ("PUT", "/v1/endpoints/ep_01kkntq2cne6s1c99tvp6dvkt6", 405, "DELETE, GET, PATCH"),
        ("GET", "/nowhere", 404, None),
    ],
)
def test_an_unknown_method_is_a_json_405_with_allow_and_an_unknown_path_a_json_404(
    hookline: Hookline, method: str, path: str, status: int, allow: str | None
) -> None:
    result = hookline.handlers["api"](http_event(method, path, None, "acme"), None)
    assert result["statusCode"] == status
    assert json.loads(result["body"])["error"]["code"] == ("method_not_allowed" if status == 405 else "not_found")
    assert (result.get("headers") or {}).get("Allow") == allow


@pytest.mark.parametrize("query", [{"since": ""}, {"until": ""}, {"limit": ""}, {"cursor": ""}])
def test_an_empty_query_value_is_a_422_not_an_absent_parameter(hookline: Hookline, query: dict[str, str]) -> None:
    ep = _endpoint(hookline)
    reads = {
        f"/v1/endpoints/{ep}/deliveries": {"since", "until", "limit", "cursor"},
        f"/v1/endpoints/{ep}/stats": {"since", "until"},
        "/v1/endpoints": {"limit", "cursor"},
    }
    for path, names in reads.items():
        status, body = hookline.api("GET", path, query=query)
        if set(query) <= names:
            assert (status, body["error"]["code"]) == (422, "validation_failed"), path
            assert "has no value" in body["error"]["message"]
        else:  # a parameter the route does not read is ignored, empty or not (its document declares no 422 for it)
            assert status == 200, (path, body)
    assert hookline.api("GET", f"/v1/endpoints/{ep}", query=query)[0] == 200


def test_an_integer_field_takes_an_integer_valued_number(hookline: Hookline) -> None:
    status, ep = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/hook", "max_concurrency": 3.0})
    assert (status, ep["max_concurrency"]) == (201, 3)
    assert hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"max_concurrency": 3.5})[0] == 422
