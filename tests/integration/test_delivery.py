"""Delivery through the real SQS handler to a real HTTP receiver, against moto."""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from hookline.adapters import aws
from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.state import EndpointStateRepository
from hookline.adapters.observability import get_logger
from hookline.core.models import LAYOUT_ENDPOINT_KEYED, DeliveryTask
from hookline.core.ratelimit import in_flight
from hookline.wiring import topology
from tests.conftest import Hookline
from tests.support.receiver import Answer, Received, running_receiver


def _setup(hookline: Hookline, url: str) -> tuple[str, str]:
    status, ep = hookline.api("POST", "/v1/endpoints", {"url": url})
    assert status == 201
    return ep["id"], ep["secret"]


def test_signed_webhook_is_accepted_by_the_official_library(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        # Given an endpoint at a real receiver
        _, secret = _setup(hookline, receiver.url)
        # When an event is posted and the delivery queue drained
        _, accepted = hookline.api("POST", "/v1/events", {"type": "invoice.paid", "data": {"amount": 42, "currency": "eur"}})
        assert hookline.drain() == 1
        # Then the receiver got one POST that standardwebhooks verifies
        assert len(receiver.requests) == 1
        got = receiver.requests[0]
        payload = Webhook(secret).verify(got.body, got.headers)
        assert payload == {
            "id": accepted["id"],
            "type": "invoice.paid",
            "timestamp": payload["timestamp"],
            "version": "2026-01-01",
            "data": {"amount": 42, "currency": "eur"},
        }
        assert got.headers["webhook-id"] == accepted["id"]
        assert got.headers["content-type"] == "application/json"
        assert got.headers["user-agent"].startswith("hookline/")
        # And the event shows one succeeded delivery with one attempt
        _, event = hookline.api("GET", f"/v1/events/{accepted['id']}")
        [delivery] = event["deliveries"]
        assert delivery["status"] == "succeeded"
        [attempt] = delivery["attempts"]
        assert attempt["number"] == 1
        assert attempt["status_code"] == 200
        assert attempt["error"] is None
        assert isinstance(attempt["duration_ms"], int) and 0 <= attempt["duration_ms"] < 5_000  # a local receiver that answers at once
        assert attempt["response_body"] == "ok"


def test_client_error_fails_the_delivery_and_keeps_4kb_of_the_response(hookline: Hookline) -> None:
    with running_receiver(lambda _r: Answer(status=422, body=b"x" * 10_000)) as receiver:
        _setup(hookline, receiver.url)
        _, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        hookline.drain()
        _, event = hookline.api("GET", f"/v1/events/{accepted['id']}")
        [delivery] = event["deliveries"]
        assert delivery["status"] == "failed"
        [attempt] = delivery["attempts"]
        assert attempt["status_code"] == 422
        assert len(attempt["response_body"]) == 4096


def test_redirects_are_not_followed(hookline: Hookline) -> None:
    with running_receiver(lambda r: Answer(status=302, headers={"location": "/elsewhere"}) if r.path == "/webhook" else Answer()) as receiver:
        _setup(hookline, receiver.url)
        _, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        hookline.drain()
        assert [r.path for r in receiver.requests] == ["/webhook"]
        _, event = hookline.api("GET", f"/v1/events/{accepted['id']}")
        assert event["deliveries"][0]["status"] == "failed"
        assert "redirect" in event["deliveries"][0]["attempts"][0]["reason"]


def test_body_bytes_and_webhook_id_are_stable_across_sends(hookline: Hookline) -> None:
    with running_receiver(lambda _r: Answer(status=503)) as receiver:
        _setup(hookline, receiver.url)
        _, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"k": [1, "two"]}})
        [message] = hookline.queued()
        hookline.deliver([message])
        # A copy of the same task after its attempt was recorded is a no-op
        hookline.deliver([message])
        assert len(receiver.requests) == 1
        stored = aws.dynamodb_table(hookline.env["HOOKLINE_TABLE_NAME"]).get_item(Key={"pk": f"E#acme#{accepted['id']}", "sk": "EVENT"})["Item"]
        assert receiver.requests[0].body == stored["body"].encode()


def test_connection_refused_is_recorded_as_an_error_class(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        url = receiver.url
    _setup(hookline, url)  # the receiver is gone: nothing listens there now
    _, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
    hookline.drain()
    _, event = hookline.api("GET", f"/v1/events/{accepted['id']}")
    attempt = event["deliveries"][0]["attempts"][0]
    assert attempt["status_code"] is None
    assert attempt["error"] == "connection_refused"


def test_private_address_is_refused_without_a_request(hookline: Hookline, monkeypatch: Any) -> None:
    with running_receiver() as receiver:
        _setup(hookline, receiver.url)
        # Given a cloud-like configuration with no private networks allowed
        monkeypatch.setenv("HOOKLINE_ALLOW_PRIVATE_NETWORKS", "")
        from hookline.wiring import container

        container.reset()
        _, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        hookline.drain()
        assert receiver.requests == []
        _, event = hookline.api("GET", f"/v1/events/{accepted['id']}")
        assert event["deliveries"][0]["attempts"][0]["error"] == "ssrf_blocked"
        assert event["deliveries"][0]["status"] == "failed"


def _race(hookline: Hookline, copies: list[dict[str, Any]]) -> tuple[list[Received], list[dict[str, Any]], str]:
    """Each copy of a task in a batch of its own, all at once, against a receiver that answers after a second."""
    gate = threading.Event()

    def slow(_r: Received) -> Answer:
        gate.wait(5)
        return Answer()

    with running_receiver(slow) as receiver:
        _setup(hookline, receiver.url)
        _, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        [message] = hookline.queued()
        results: list[dict[str, Any]] = []
        threads = [threading.Thread(target=lambda c=c: results.append(hookline.deliver([{**message, **c}]))) for c in copies]
        for t in threads:
            t.start()
        threading.Timer(1.0, gate.set).start()
        for t in threads:
            t.join(10)
        return receiver.requests, results, accepted["id"]


def test_two_concurrent_redeliveries_of_a_task_send_one_request(hookline: Hookline) -> None:
    # Given two workers running the same task at the same moment, each handed it again by SQS (a crashed worker had it)
    again = {"Attributes": {"ApproximateReceiveCount": "2"}}
    requests, results, _ = _race(hookline, [again, again])
    # Then both claim the attempt, the receiver sees one request, and neither batch fails
    assert len(requests) == 1
    assert all(r == {"batchItemFailures": []} for r in results)


def test_two_first_receives_of_one_task_at_once_may_both_send_with_one_webhook_id(hookline: Hookline) -> None:
    """The price of writing no claim on a task's first receive (README, "Guarantees"): SQS handing one message to
    two consumers at once sends it twice, as the same webhook, which at-least-once allows and receivers deduplicate."""
    requests, results, event_id = _race(hookline, [{}, {}])
    assert len(requests) == 2 and len({r.headers["webhook-id"] for r in requests}) == 1
    assert all(r == {"batchItemFailures": []} for r in results)
    # And the delivery records the attempt once
    _, event = hookline.api("GET", f"/v1/events/{event_id}")
    [delivery] = event["deliveries"]
    assert (delivery["status"], len(delivery["attempts"])) == ("succeeded", 1)


def test_two_copies_of_a_task_in_one_batch_claim_once(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        # Given two copies of the same task in one batch (an idempotent repeat re-queued it)
        _setup(hookline, receiver.url)
        hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        [message] = hookline.queued()
        twin = {**message, "MessageId": message["MessageId"] + "-twin"}
        claims: list[str] = []
        client = aws.dynamodb_table(hookline.env[topology.TABLE.env]).meta.client
        client.meta.events.register("before-parameter-build.dynamodb.UpdateItem", lambda params, **_: claims.append(params["UpdateExpression"]))
        # When the batch runs
        result = hookline.deliver([message, twin])
        # Then one copy runs; being the event's fresh task on its first receive it writes no claim; one request is sent, and nothing fails
        assert sum("lease_attempt = :n" in u for u in claims) == 0
        assert len(receiver.requests) == 1
        assert result == {"batchItemFailures": []}


def test_deleted_endpoint_fails_the_delivery(hookline: Hookline) -> None:
    ep_id, _ = _setup(hookline, "https://example.com/hook")
    _, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
    hookline.api("DELETE", f"/v1/endpoints/{ep_id}")
    hookline.drain()
    _, event = hookline.api("GET", f"/v1/events/{accepted['id']}")
    assert event["deliveries"][0]["status"] == "failed"
    assert event["deliveries"][0]["attempts"][0]["error"] == "endpoint_deleted"


def test_poison_message_is_set_aside_without_failing_the_batch(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        _setup(hookline, receiver.url)
        hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        [good] = hookline.queued()
        # When a batch holds a good task, garbage, and a task for a delivery that does not exist
        ghost = DeliveryTask("acme", "evt_01m8m00000000000000000000", "dlv_01m8m00000000000000000000", "ep_01m8m00000000000000000000").to_message()
        result = hookline.deliver([good, {"MessageId": "bad-1", "Body": "not json"}, {"MessageId": "bad-2", "Body": ghost}])
        # Then nothing fails (no loop), the good one is delivered, and both poison messages rest in the DLQ with why
        assert result == {"batchItemFailures": []}
        assert len(receiver.requests) == 1
        dead = hookline.queued(topology.DELIVERY_DLQ)
        reasons = sorted(m["MessageAttributes"]["detail"]["StringValue"] for m in dead)
        assert [m["MessageAttributes"]["reason"]["StringValue"] for m in dead] == ["poison", "poison"]
        assert reasons[0].startswith("delivery not found")
        assert reasons[1].startswith("not a delivery task")


def _is_event(key: dict[str, Any]) -> bool:
    sk = key["sk"]
    return (sk.get("S") if isinstance(sk, dict) else sk) == "EVENT"


def _reads_events(params: dict[str, Any]) -> bool:
    return any(_is_event(k) for keys in params.get("RequestItems", {}).values() for k in keys["Keys"])


def _reads_earlier_deliveries(params: dict[str, Any]) -> bool:
    """A read that asks for a delivery where the previous release kept it (its event's partition): a claim's, never the bodies'."""
    keys_ = [k for keys in params.get("RequestItems", {}).values() for k in keys["Keys"]]
    return any((k["sk"].get("S") if isinstance(k["sk"], dict) else k["sk"]).startswith(keys.DELIVERY_PREFIX) for k in keys_)


def _spy(hookline: Hookline, operation: str, fail: bool = False) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    client = aws.dynamodb_table(hookline.env[topology.TABLE.env]).meta.client

    def record(params: dict[str, Any], **_: Any) -> None:
        calls.append(params)
        if fail and _reads_events(params) and not _reads_earlier_deliveries(params):
            raise client.exceptions.ProvisionedThroughputExceededException(
                {"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "injected"}}, operation
            )

    client.meta.events.register(f"before-parameter-build.dynamodb.{operation}", record)
    return calls


def test_a_batch_reads_its_event_bodies_in_one_request(earned_concurrency: Hookline) -> None:
    hookline = earned_concurrency
    with running_receiver() as receiver:
        # Given ten queued tasks for one endpoint that takes ten at once (one batch takes half of a limit of 20)
        assert hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "max_concurrency": 20})[0] == 201
        for i in range(10):
            hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": i}})
        gets, batch_gets = _spy(hookline, "GetItem"), _spy(hookline, "BatchGetItem")
        # When they run as one batch
        assert hookline.deliver(hookline.queued()) == {"batchItemFailures": []}
        # Then the ten bodies came from one batch read, not ten single reads
        assert len(receiver.requests) == 10
        assert len([p for p in batch_gets if _reads_events(p)]) == 1
        assert not [p for p in gets if _is_event(p["Key"])]


def test_a_failed_batch_read_of_bodies_falls_back_to_one_read_per_task(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        _setup(hookline, receiver.url)
        for i in range(3):
            hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": i}})
        batch_gets = _spy(hookline, "BatchGetItem", fail=True)
        gets = _spy(hookline, "GetItem")
        # When the batch read of the bodies fails, each task reads its own, strongly consistent, and still delivers;
        # having read no delivery it claims, and its claim first reads the event (with the key the previous release
        # kept a delivery at, in one request) to write the delivery's item
        assert hookline.deliver(hookline.queued()) == {"batchItemFailures": []}
        assert len(receiver.requests) == 3
        body_reads = [p for p in gets if _is_event(p["Key"])]
        claim_reads = [p for p in batch_gets if _reads_events(p) and _reads_earlier_deliveries(p)]
        assert len(body_reads) == len(claim_reads) == 3
        assert all(p["ConsistentRead"] for p in body_reads) and all(r["ConsistentRead"] for p in claim_reads for r in p["RequestItems"].values())


def _log_lines(run: Callable[[], object]) -> list[dict[str, Any]]:
    buffer = io.StringIO()
    capture = logging.StreamHandler(buffer)
    capture.setFormatter(get_logger().registered_formatter)
    logging.getLogger("hookline").addHandler(capture)
    try:
        run()
    finally:
        logging.getLogger("hookline").removeHandler(capture)
    return [json.loads(line) for line in buffer.getvalue().splitlines() if line.startswith("{")]


@pytest.mark.parametrize("log_successes", [False, True])
def test_a_batch_logs_its_summary_and_each_attempt_that_did_not_succeed(hookline: Hookline, monkeypatch: pytest.MonkeyPatch, log_successes: bool) -> None:
    if log_successes:
        monkeypatch.setenv("HOOKLINE_LOG_SUCCESSES", "true")
    with running_receiver(lambda r: Answer(status=503 if b'"fail"' in r.body else 200)) as receiver:
        _setup(hookline, receiver.url)
        hookline.api("POST", "/v1/events/batch", {"events": [{"type": "a.b", "data": {"n": n}} for n in range(3)] + [{"type": "a.b", "data": {"fail": 1}}]})
        messages = hookline.queued()
        lines = _log_lines(lambda: hookline.deliver(messages))
    attempts = [line for line in lines if line["message"] == "delivery attempt"]
    # A failure always has its line; the successes only when asked (local mode asks)
    assert sorted(a["outcome"] for a in attempts) == (["retrying", "succeeded", "succeeded", "succeeded"] if log_successes else ["retrying"])
    [summary] = [line for line in lines if line["message"] == "delivery batch"]
    assert (summary["records"], summary["outcomes"], summary["failed_records"], summary["endpoints"]) == (4, {"retrying": 1, "succeeded": 3}, 0, 1)


def test_a_first_success_is_recorded_with_one_write_to_the_delivery(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        _setup(hookline, receiver.url)
        _, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        messages = hookline.queued()
        writes: list[tuple[str, str]] = []

        def seen(op: str) -> Callable[..., None]:
            def record(params: dict[str, Any], **_: Any) -> None:
                key = params.get("Key") or params.get("Item") or {}
                pk, sk = (v.get("S", "") if isinstance(v, dict) else str(v) for v in (key.get(keys.PK, ""), key.get(keys.SK, "")))
                writes.append((op, "delivery" if keys.layout_of(pk) == LAYOUT_ENDPOINT_KEYED and sk.startswith("dlv_") else keys.collection_member(sk)[0]))

            return record

        client = aws.dynamodb_table(hookline.env[topology.TABLE.env]).meta.client
        for op in ("PutItem", "UpdateItem"):
            client.meta.events.register(f"before-parameter-build.dynamodb.{op}", seen(op))
        hookline.deliver(messages)
    # The fresh task claims nothing; the success goes onto the delivery item with its status: no attempt item
    of_the_delivery = [(op, kind) for op, kind in writes if kind in ("delivery", "attempt")]
    assert of_the_delivery == [("UpdateItem", "delivery")]
    _, event = hookline.api("GET", f"/v1/events/{accepted['id']}")
    [delivery] = event["deliveries"]
    assert (delivery["status"], [a["status_code"] for a in delivery["attempts"]]) == ("succeeded", [200])


def test_a_batchs_tasks_beyond_its_endpoints_concurrency_go_under_its_leases_one_after_another(hookline: Hookline) -> None:
    """A lease is a slot, not a request (hookline.core.planning.under_lease): of six tasks to an endpoint that takes
    two at once, the batch's grant sends two and the four the limit deferred wait for those leases, each sent once a
    request under one has ended with a 2xx: all six in one invocation, never more than two at the receiver."""
    busy, most, lock = [0], [0], threading.Lock()

    def answer(_received: Received) -> Answer:
        with lock:
            busy[0] += 1
            most[0] = max(most[0], busy[0])
        try:
            return Answer(delay=0.05)
        finally:
            with lock:
                busy[0] -= 1

    with running_receiver(answer) as receiver:
        # max_concurrency under the initial concurrency: the adaptive limit is at its ceiling from the start
        status, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "max_concurrency": 2, "rate_limit_per_second": 50})
        assert status == 201
        hookline.api("POST", "/v1/events/batch", {"events": [{"type": "a.b", "data": {"n": n}} for n in range(6)]})
        assert hookline.deliver(hookline.queued()) == {"batchItemFailures": []}
        assert len({r.headers["webhook-id"] for r in receiver.requests}) == 6  # each event once
        assert not hookline.queued()  # none deferred
    assert most[0] <= 2
    # And both leases went back: the endpoint has nothing in flight
    limiter = EndpointStateRepository(aws.dynamodb_table(hookline.env[topology.TABLE.env])).limiter("acme", ep["id"])
    assert in_flight(limiter, time.time()) == 0
