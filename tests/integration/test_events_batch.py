"""Batched ingest (`POST /v1/events/batch`) through the real API handler against moto."""

from __future__ import annotations

from typing import Any

import pytest

from hookline.adapters import aws
from hookline.core.models import DeliveryTask
from hookline.wiring import container
from tests.conftest import Hookline
from tests.support.receiver import running_receiver


def _endpoint(hookline: Hookline, url: str = "https://example.com/hook", **extra: Any) -> str:
    status, body = hookline.api("POST", "/v1/endpoints", {"url": url, **extra})
    assert status == 201
    return str(body["id"])


def _count(hookline: Hookline, operation: str) -> list[int]:
    """A live counter of one SQS operation's calls."""
    calls = [0]

    def hit(**_: Any) -> None:
        calls[0] += 1

    aws.sqs_client().meta.events.register(f"before-call.sqs.{operation}", hit)
    return calls


def test_a_batch_stores_each_event_and_queues_all_tasks_in_shared_sqs_batches(hookline: Hookline) -> None:
    # Given two endpoints, one subscribed to everything and one to invoice.paid only
    every = _endpoint(hookline)
    paid = _endpoint(hookline, event_types=["invoice.paid"])
    sends = _count(hookline, "SendMessageBatch")
    events = [{"type": "invoice.paid" if i % 2 else "user.created", "data": {"n": i}} for i in range(12)]
    # When twelve events arrive in one request
    status, body = hookline.api("POST", "/v1/events/batch", {"events": events})
    # Then all are accepted, one result per event, in order
    assert status == 202
    assert (body["accepted"], body["failed"]) == (12, 0)
    assert [r["index"] for r in body["results"]] == list(range(12))
    assert [r["deliveries"] for r in body["results"]] == [2 if i % 2 else 1 for i in range(12)]
    # And their 18 tasks went out in two SQS requests, not twelve
    tasks = [DeliveryTask.from_message(m["Body"]) for m in hookline.queued(max_messages=50)]
    assert len(tasks) == 18
    assert sends[0] == 2
    assert sorted({t.endpoint_id for t in tasks}) == sorted([every, paid])
    # And each event reads back as if posted alone
    _, event = hookline.api("GET", f"/v1/events/{body['results'][1]['id']}")
    assert event["type"] == "invoice.paid"
    assert event["data"] == {"n": 1}


def test_a_repeated_batch_answers_the_same_and_creates_nothing(hookline: Hookline) -> None:
    _endpoint(hookline)
    batch = {"events": [{"type": "a.b", "data": {"n": i}, "id": f"order-{i}"} for i in range(3)]}
    first = hookline.api("POST", "/v1/events/batch", batch)
    assert first[0] == 202
    hookline.queued()  # the first batch's tasks are consumed
    # When the producer repeats the batch (e.g. after a timeout)
    again = hookline.api("POST", "/v1/events/batch", batch)
    # Then it gets the same results, and the single route agrees on each id
    assert again == first
    assert hookline.api("POST", "/v1/events", batch["events"][0]) == (202, {k: v for k, v in first[1]["results"][0].items() if k in ("id", "deliveries")})
    for result in first[1]["results"]:
        _, event = hookline.api("GET", f"/v1/events/{result['id']}")
        assert len(event["deliveries"]) == 1


def test_one_id_twice_in_a_batch_is_one_event_with_its_tasks_queued_once(hookline: Hookline) -> None:
    _endpoint(hookline)
    same = {"type": "a.b", "data": {"x": 1}, "id": "dup-1"}
    status, body = hookline.api("POST", "/v1/events/batch", {"events": [same, same]})
    assert status == 202
    assert body["results"][0]["id"] == body["results"][1]["id"]
    assert len(hookline.queued()) == 1


def test_a_conflicting_event_fails_alone_with_207(hookline: Hookline) -> None:
    # Given an event already stored under id order-9
    _endpoint(hookline)
    assert hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"v": 1}, "id": "order-9"})[0] == 202
    hookline.queued()
    # When a batch repeats that id with another body, beside a new event
    status, body = hookline.api("POST", "/v1/events/batch", {"events": [{"type": "a.b", "data": {"v": 2}, "id": "order-9"}, {"type": "a.b", "data": {}}]})
    # Then the batch answers 207: the conflict is reported for its event only, the other is accepted
    assert status == 207
    assert (body["accepted"], body["failed"]) == (1, 1)
    assert body["results"][0] == {
        "index": 0,
        "status": 409,
        "error": {"code": "idempotency_conflict", "message": "an event with this id exists with a different body"},
    }
    assert body["results"][1]["status"] == 202
    assert len(hookline.queued()) == 1


def test_a_failed_sqs_chunk_fails_its_events_and_a_repeat_delivers_each_once(earned_concurrency: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    hookline = earned_concurrency
    monkeypatch.setenv("HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS", "1")  # the repeat's copies wait a second in the queue
    container.reset()
    with running_receiver() as receiver:
        # Given one endpoint (limits high enough for 25 requests at once) and an SQS that fails the second send of the batch
        _endpoint(hookline, receiver.url, rate_limit_per_second=100, max_concurrency=20)
        client = aws.sqs_client()
        calls = {"n": 0}

        def fail_second(**_: Any) -> None:
            calls["n"] += 1
            if calls["n"] == 2:
                raise client.exceptions.QueueDoesNotExist(
                    {"Error": {"Code": "AWS.SimpleQueueService.NonExistentQueue", "Message": "injected"}}, "SendMessageBatch"
                )

        client.meta.events.register("before-call.sqs.SendMessageBatch", fail_second)
        batch = {"events": [{"type": "a.b", "data": {"n": i}, "id": f"ev-{i}"} for i in range(15)]}
        # When the batch is posted
        status, body = hookline.api("POST", "/v1/events/batch", batch)
        # Then the first ten are accepted and the five whose tasks were not queued answer 503
        assert status == 207
        assert [r["status"] for r in body["results"]] == [202] * 10 + [503] * 5
        assert body["results"][10]["error"]["code"] == "unavailable"
        # When the producer repeats the whole batch
        status, again = hookline.api("POST", "/v1/events/batch", batch)
        assert status == 202
        assert [r["id"] for r in again["results"][:10]] == [r["id"] for r in body["results"][:10]]
        # Then every event is delivered exactly once: the ten whose first tasks got out, and the five whose copies came
        # after the delay (the ten's copies find their attempts made and send nothing)
        hookline.pump_until(lambda: len(receiver.requests) >= 15)
        hookline.drain()
        assert sorted(r.body for r in receiver.requests) == sorted({r.body for r in receiver.requests})
        assert len(receiver.requests) == 15


def test_bad_batches_are_refused_whole_and_change_nothing(hookline: Hookline) -> None:
    _endpoint(hookline)
    good = {"type": "a.b", "data": {}}
    cases: list[tuple[Any, int, str, str]] = [
        ({}, 422, "missing_field", "'events' is required"),
        ({"events": good}, 422, "wrong_type", "'events' must be a JSON array"),
        ({"events": []}, 422, "validation_failed", "1 to 100"),
        ({"events": [good] * 101}, 422, "validation_failed", "1 to 100"),
        ({"events": [good, good, {"type": "a.b"}]}, 422, "missing_field", "events[2]: 'data' is required"),
        ({"events": [good, "x"]}, 422, "wrong_type", "events[1] must be a JSON object"),
        ({"events": [good], "dry_run": True}, 422, "unknown_field", "dry_run"),
        ({"events": [good, {"type": "a.b", "data": {"blob": "x" * 300_000}}]}, 413, "payload_too_large", "events[1]"),
        ({"events": [{"type": "a.b", "data": {"blob": "x" * 200_000}}] * 25}, 413, "payload_too_large", "limit is 4194304"),
    ]
    for body, status, code, words in cases:
        got_status, got = hookline.api("POST", "/v1/events/batch", body)
        assert (got_status, got["error"]["code"]) == (status, code), body if len(str(body)) < 200 else words
        assert words in got["error"]["message"]
    assert hookline.queued() == []
    _, page = hookline.api("GET", "/v1/endpoints")
    assert len(page["items"]) == 1


def test_a_batch_that_gets_nothing_through_answers_503_like_the_single_route(hookline: Hookline) -> None:
    # Given DynamoDB refusing the endpoint read
    _endpoint(hookline)
    table = aws.dynamodb_table(hookline.env["HOOKLINE_TABLE_NAME"])

    def throttle(**_: Any) -> None:
        raise table.meta.client.exceptions.ProvisionedThroughputExceededException(
            {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "injected"}}, "Query"
        )

    table.meta.client.meta.events.register("before-call.dynamodb.Query", throttle)
    # When a batch is posted
    status, body = hookline.api("POST", "/v1/events/batch", {"events": [{"type": "a.b", "data": {}, "id": "x-1"}]})
    # Then it is a plain 503 that clients retry, and nothing was queued
    assert status == 503
    assert body["error"]["code"] == "unavailable"
    assert hookline.queued() == []


def test_entries_sqs_refuses_are_sent_again_and_the_batch_is_accepted(hookline: Hookline) -> None:
    # Given an SQS that refuses one entry of the first SendMessageBatch (a partial failure)
    _endpoint(hookline)
    client = aws.sqs_client()
    calls = {"n": 0}

    def refuse_one(http_response: Any, parsed: dict[str, Any], **_: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 1 and parsed.get("Successful"):
            parsed["Failed"] = [{"Id": parsed["Successful"][0]["Id"], "SenderFault": False, "Code": "InternalError", "Message": "injected"}]

    client.meta.events.register("after-call.sqs.SendMessageBatch", refuse_one)
    # When three events arrive in a batch
    status, body = hookline.api("POST", "/v1/events/batch", {"events": [{"type": "a.b", "data": {"n": i}} for i in range(3)]})
    # Then the refused entry went again: all are accepted, each task queued (the first copy may exist twice, which the claim absorbs)
    assert status == 202, body
    assert calls["n"] == 2
    tasks = {m["Body"] for m in hookline.queued()}
    assert len(tasks) == 3
