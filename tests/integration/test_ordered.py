"""Ordered endpoints end to end over moto: the tasks go to the ordered lane (an SQS FIFO queue, the endpoint its message
group), drained as Lambda's FIFO event source drains it (local mode's poller), and a delivery that must wait holds its
own message, and so the line behind it, until it succeeds or is given up."""

from __future__ import annotations

import json
import threading
from typing import Any

import boto3
import pytest

from hookline.wiring import container, topology
from tests.conftest import Hookline
from tests.support.receiver import Answer, Received, running_receiver


@pytest.fixture
def fast_retries(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> Hookline:
    """Retries within a second or two (the backoff's ceiling after attempt n is 2^n s), so a held line moves on soon."""
    monkeypatch.setenv("HOOKLINE_RETRY_BASE_SECONDS", "1")
    container.reset()
    return hookline


def number(request: Received) -> int:
    return int(json.loads(request.body)["data"]["n"])


def ordered_endpoint(hookline: Hookline, url: str) -> dict[str, Any]:
    status, endpoint = hookline.api("POST", "/v1/endpoints", {"url": url, "ordered": True})
    assert status == 201, endpoint
    assert endpoint["ordered"] is True
    return endpoint


def ingest(hookline: Hookline, *numbers: int) -> list[str]:
    """One request: a single event, or a batch of them, in this order."""
    if len(numbers) == 1:
        status, answer = hookline.api("POST", "/v1/events", {"type": "order.paid", "data": {"n": numbers[0]}})
        assert status == 202, answer
        return [answer["id"]]
    status, answer = hookline.api("POST", "/v1/events/batch", {"events": [{"type": "order.paid", "data": {"n": n}} for n in numbers]})
    assert status == 202, answer
    return [r["id"] for r in answer["results"]]


def delivery(hookline: Hookline, event_id: str) -> dict[str, Any]:
    status, event = hookline.api("GET", f"/v1/events/{event_id}")
    assert status == 200, event
    [only] = event["deliveries"]
    return dict(only)


def test_a_receiver_failing_event_3_twice_sees_1_2_3_3_3_4_5(fast_retries: Hookline) -> None:
    hookline = fast_retries
    lock = threading.Lock()
    failures_left = {3: 2}

    def answer(request: Received) -> Answer:
        with lock:
            n = number(request)
            if failures_left.get(n, 0):
                failures_left[n] -= 1
                return Answer(status=503)
        return Answer()

    with running_receiver(answer) as receiver:
        endpoint = ordered_endpoint(hookline, receiver.url)
        # Ingest in several requests, the lane drained between them: 3 fails while 4 and 5 are already queued behind it
        ids = ingest(hookline, 1, 2)
        hookline.pump()
        ids += ingest(hookline, 3, 4)
        hookline.pump()
        # While 3 waits for its retry, the endpoint shows what holds its line
        line = hookline.api("GET", f"/v1/endpoints/{endpoint['id']}")[1]["line"]
        assert (line["event_id"], line["delivery_id"], line["outcome"], line["status_code"]) == (ids[2], delivery(hookline, ids[2])["id"], "retrying", 503)
        ids += ingest(hookline, 5)
        hookline.pump_until(lambda: all(delivery(hookline, i)["status"] == "succeeded" for i in ids), seconds=60)
        assert [number(r) for r in receiver.requests] == [1, 2, 3, 3, 3, 4, 5]
    # Every task went through the ordered lane, the endpoint its message group; 3's log shows its two failures
    assert [a["status_code"] for a in delivery(hookline, ids[2])["attempts"]] == [503, 503, 200]
    # And once it went through, nothing holds the line
    shown = hookline.api("GET", f"/v1/endpoints/{endpoint['id']}")[1]
    assert (shown["ordered"], shown["line"]) == (True, None)


def test_a_delivery_given_up_lets_the_next_one_go_and_waits_on_the_ordered_dead_letter_queue(fast_retries: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    hookline = fast_retries
    monkeypatch.setenv("HOOKLINE_MAX_ATTEMPTS", "2")
    container.reset()
    with running_receiver(lambda r: Answer(status=500 if number(r) == 2 else 200)) as receiver:
        ordered_endpoint(hookline, receiver.url)
        ids = ingest(hookline, 1, 2, 3)
        hookline.pump_until(lambda: delivery(hookline, ids[2])["status"] == "succeeded", seconds=60)
        assert [number(r) for r in receiver.requests] == [1, 2, 2, 3]
    assert delivery(hookline, ids[1])["status"] == "failed"
    # The given-up task waits for an operator on the lane's own FIFO dead-letter queue, in the endpoint's group
    sqs = boto3.client("sqs")
    [letter] = sqs.receive_message(QueueUrl=hookline.env[topology.ORDERED_DLQ.env], AttributeNames=["All"], MessageAttributeNames=["All"])["Messages"]
    assert json.loads(letter["Body"])["delivery_id"] == delivery(hookline, ids[1])["id"]
    assert letter["MessageAttributes"]["reason"]["StringValue"] == "max_attempts"


def test_ordered_is_fixed_at_creation_and_checked(hookline: Hookline) -> None:
    status, body = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/hook", "ordered": "yes"})
    assert (status, body["error"]["code"]) == (422, "wrong_type"), body
    status, endpoint = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/hook"})
    assert (status, endpoint["ordered"]) == (201, False)
    status, body = hookline.api("PATCH", f"/v1/endpoints/{endpoint['id']}", {"ordered": True})
    assert status == 422, body
    assert hookline.api("GET", f"/v1/endpoints/{endpoint['id']}")[1]["ordered"] is False
