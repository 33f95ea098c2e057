"""Dead letters, replays and visibility through the real handlers against moto."""

from __future__ import annotations

import io
import json
import logging
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from freezegun import freeze_time

from hookline.adapters.dynamo import keys
from hookline.adapters.observability import get_logger
from hookline.core import ids
from hookline.core.clock import iso
from hookline.core.models import DeliveryTask
from hookline.core.replay import REPLAY
from hookline.wiring import container, topology
from tests.conftest import Hookline
from tests.support.receiver import Answer, Received, running_receiver


def _endpoint(hookline: Hookline, url: str, tenant: str = "acme", **extra: Any) -> str:
    status, ep = hookline.api("POST", "/v1/endpoints", {"url": url, **extra}, tenant=tenant)
    assert status == 201, ep
    return str(ep["id"])


def _event(hookline: Hookline, event_type: str = "a.b", tenant: str = "acme", **data: Any) -> str:
    status, body = hookline.api("POST", "/v1/events", {"type": event_type, "data": data}, tenant=tenant)
    assert status == 202, body
    return str(body["id"])


def _delivery(hookline: Hookline, event_id: str, tenant: str = "acme") -> dict[str, Any]:
    return dict(hookline.api("GET", f"/v1/events/{event_id}", tenant=tenant)[1]["deliveries"][0])


def _until_completed(hookline: Hookline, replay_id: str, seconds: float) -> dict[str, Any]:
    """Run the pipeline until the replay reads completed (or the time is up); what it reads last."""
    deadline = time.monotonic() + seconds
    while True:
        hookline.pump()
        progress: dict[str, Any] = hookline.api("GET", f"/v1/replays/{replay_id}")[1]
        if progress["status"] == "completed" or time.monotonic() > deadline:
            return progress
        time.sleep(0.2)


class Switch:
    """A receiver answer that can be flipped from failing to healthy."""

    def __init__(self, failing: int = 500):
        self.failing: int | None = failing

    def __call__(self, _r: Received) -> Answer:
        return Answer(status=self.failing) if self.failing else Answer()


@pytest.fixture
def one_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    """A retry budget of one attempt, so a failing delivery is dead-lettered at once."""
    monkeypatch.setenv("HOOKLINE_MAX_ATTEMPTS", "1")
    container.reset()


def _console_redrive(hookline: Hookline, source: topology.QueueSpec) -> int:
    """Exactly what the console's redrive does: receive from the DLQ, send to the source queue, delete."""
    sqs = boto3.client("sqs")
    moved = 0
    while batch := sqs.receive_message(QueueUrl=hookline.env[topology.DELIVERY_DLQ.env], MaxNumberOfMessages=10).get("Messages", []):
        for m in batch:
            sqs.send_message(QueueUrl=hookline.env[source.env], MessageBody=m["Body"])
            sqs.delete_message(QueueUrl=hookline.env[topology.DELIVERY_DLQ.env], ReceiptHandle=m["ReceiptHandle"])
            moved += 1
    return moved


@pytest.mark.parametrize("source", [topology.DELIVERY_QUEUE, topology.RETRY_QUEUE])
def test_console_redrive_delivers_with_a_fresh_budget_and_sets_poison_aside(hookline: Hookline, one_attempt: None, source: topology.QueueSpec) -> None:
    answer = Switch()
    with running_receiver(answer) as receiver:
        # Given an exhausted delivery in the DLQ, and a poison message beside it
        _endpoint(hookline, receiver.url)
        event_id = _event(hookline)
        hookline.pump()
        assert _delivery(hookline, event_id)["status"] == "failed"
        boto3.client("sqs").send_message(QueueUrl=hookline.env[topology.DELIVERY_DLQ.env], MessageBody="{garbage")
        # When the receiver is fixed and an operator redrives the DLQ
        answer.failing = None
        assert _console_redrive(hookline, source) == 2
        hookline.pump()
        # Then the delivery succeeds on a manual attempt of a new generation, not dead-lettered for its old count
        d = _delivery(hookline, event_id)
        assert d["status"] == "succeeded"
        assert d["generation"] == 1
        assert [(a["number"], a["trigger"], a["status_code"]) for a in d["attempts"]] == [(1, "scheduled", 500), (2, "manual", 200)]
        assert len({r.headers["webhook-id"] for r in receiver.requests}) == 1
        # And the poison message is set aside with its reason, not looping
        [poison] = hookline.queued(topology.DELIVERY_DLQ)
        assert poison["Body"] == "{garbage"
        assert poison["MessageAttributes"]["reason"]["StringValue"] == "poison"
        # And redriving the same exhausted task twice restarts it only once
        hookline.pump()
        assert len(receiver.requests) == 2


INSIDE = 23  # failures inside the window: two pages of the API's 20


def test_time_window_replay_delivers_exactly_the_window(hookline: Hookline) -> None:
    answer = Switch(failing=400)  # a permanent failure: it does not trip the breaker
    with running_receiver(answer) as receiver:
        ep = _endpoint(hookline, receiver.url, rate_limit_per_second=10, max_concurrency=5)
        # Given failures before, inside and after a window
        start = datetime.now(UTC).replace(microsecond=0)
        with freeze_time(start - timedelta(hours=2)):
            before = [_event(hookline, n=i) for i in range(3)]
        inside = [_event(hookline, n=i) for i in range(INSIDE)]
        with freeze_time(start + timedelta(hours=3)):
            after = [_event(hookline, n=i) for i in range(2)]
        deadline = time.monotonic() + 60
        while any(_delivery(hookline, e)["status"] != "failed" for e in before + inside + after) and time.monotonic() < deadline:
            hookline.pump()
        # The customer sees the window's failures of the window through the index, page by page
        window = {"since": iso(start - timedelta(seconds=1)), "until": iso(start + timedelta(hours=1))}
        seen: list[str] = []
        cursor = None
        while True:
            query = {"status": "failed", "limit": "20", **window} | ({"cursor": cursor} if cursor else {})
            status, page = hookline.api("GET", f"/v1/endpoints/{ep}/deliveries", query=query)
            assert status == 200, page
            seen.extend(d["event_id"] for d in page["items"])
            cursor = page["next"]
            if not cursor:
                break
        assert sorted(seen) == sorted(inside)
        # When the receiver is fixed and the customer replays the window (twice, by accident)
        answer.failing = None
        requests_before = len(receiver.requests)
        status, replay = hookline.api("POST", f"/v1/endpoints/{ep}/replay", window)
        assert status == 202
        assert replay["status"] == "running" and replay["id"].startswith("rpl_")
        assert hookline.api("POST", f"/v1/endpoints/{ep}/replay", window) == (202, replay)
        progress = _until_completed(hookline, replay["id"], 90)
        # Then exactly those were delivered, once each, and nothing outside the window was touched
        assert progress == progress | {"status": "completed", "matched": INSIDE, "queued": INSIDE, "delivered": INSIDE, "failed": 0}
        replayed = receiver.requests[requests_before:]
        assert sorted(r.headers["webhook-id"] for r in replayed) == sorted(inside)
        assert all(_delivery(hookline, e)["status"] == "succeeded" for e in inside)
        assert all(_delivery(hookline, e)["status"] == "failed" for e in before + after)
        assert all(_delivery(hookline, e)["attempts"][-1]["trigger"] == "manual" for e in inside)
        # And its paging was a bulk job, readable as one: a page is planned, then applied
        status, job = hookline.api("GET", f"/v1/jobs/{replay['job']['id']}")
        assert (status, job["kind"], job["status"], job["counts"], job["replay_id"]) == (
            200,
            "replay_window",
            "done",
            {"matched": INSIDE, "queued": INSIDE},
            replay["id"],
        )
        # And the endpoint's rate limit held during the replay: at 10 a second the 23 cannot all arrive in less than
        # 2.2 s (22 gaps of 0.1 s). A busy machine only delays a request, which lengthens the span, except the first
        # one's delay, which shortens it: a second of that is allowed. Counting the busiest second at the receiver
        # instead would read scheduling jitter as a broken limit (the exact bound is checked on a fake clock in
        # tests/unit/services/test_delivery_isolation.py)
        arrivals = sorted(r.at for r in replayed)
        assert arrivals[-1] - arrivals[0] >= (len(arrivals) - 1) / 10 - 1.0
    # And other tenants can neither see nor start replays of this endpoint
    assert hookline.api("GET", f"/v1/replays/{replay['id']}", tenant="other")[0] == 404
    assert hookline.api("POST", f"/v1/endpoints/{ep}/replay", window, tenant="other")[0] == 404


def test_a_replay_the_previous_release_began_is_finished_by_its_job_and_counted_once(hookline: Hookline) -> None:
    answer = Switch(failing=400)
    with running_receiver(answer) as receiver:
        ep = _endpoint(hookline, receiver.url, rate_limit_per_second=20)
        events = [_event(hookline, n=i) for i in range(5)]
        deadline = time.monotonic() + 60
        while any(_delivery(hookline, e)["status"] != "failed" for e in events) and time.monotonic() < deadline:
            hookline.pump()
        # Given the record of a replay as the previous release left it: its last page planned, not yet queued
        settings = container.get_settings()
        rid = ids.derived_id(REPLAY, "acme", "previous release")
        failed = [_delivery(hookline, e) | {"event_id": e} for e in events]
        planned = [DeliveryTask("acme", d["event_id"], d["id"], ep, 2, 1, trigger="manual", replay_id=rid).to_message() for d in failed]
        since, until = min(d["created_at"] for d in failed), max(d["created_at"] for d in failed)
        legacy = {"id": rid, "endpoint_id": ep, "since": since, "until": until, "status_filter": "failed", "matched": 5, "queued": 5}
        legacy |= {"delivered": 0, "failed": 0, "done_paging": True, "step": 1, "cursor_token": "", "pending_tasks": planned, "created_at": since}
        boto3.resource("dynamodb").Table(settings.table_name).put_item(Item={**keys.replay("acme", rid), **legacy})
        # When the receiver is fixed and the previous release's step message reaches this one
        answer.failing = None
        before = len(receiver.requests)
        message = {"kind": "replay", "tenant": "acme", "replay_id": rid}
        boto3.client("sqs").send_message(QueueUrl=settings.jobs_queue_url, MessageBody=json.dumps(message))
        progress = _until_completed(hookline, rid, 60)
        # Then the planned page went out, once each, and the replay counts it once
        assert progress == progress | {"status": "completed", "matched": 5, "queued": 5, "delivered": 5, "failed": 0}
        assert sorted(r.headers["webhook-id"] for r in receiver.requests[before:]) == sorted(events)


def test_replay_request_validation(hookline: Hookline) -> None:
    ep = _endpoint(hookline, "https://example.com/x")
    for body, code in (
        ({"until": "2026-01-01T00:00:00Z"}, 422),
        ({"since": "yesterday", "until": "2026-01-01T00:00:00Z"}, 422),
        ({"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, 422),
        ({"since": "2026-01-01T00:00:00Z", "until": "2026-01-02T00:00:00Z", "status": "succeeded"}, 422),
        ({"since": "2026-01-01T00:00:00Z", "until": "2026-01-02T00:00:00Z", "extra": 1}, 422),
    ):
        assert hookline.api("POST", f"/v1/endpoints/{ep}/replay", body)[0] == code, body
    assert hookline.api("GET", "/v1/replays/rpl_nope")[0] == 404
    assert (
        boto3.client("sqs").get_queue_attributes(QueueUrl=hookline.env[topology.JOBS_QUEUE.env], AttributeNames=["ApproximateNumberOfMessages"])["Attributes"][
            "ApproximateNumberOfMessages"
        ]
        == "0"
    )


def test_dlq_drain_job_by_the_replay_function_filters_and_is_idempotent(hookline: Hookline, one_attempt: None) -> None:
    answer = Switch()
    with running_receiver(answer) as receiver:
        base = receiver.url.rsplit("/", 1)[0]
        mine = _endpoint(hookline, base + "/mine", event_types=["m"])
        _endpoint(hookline, base + "/other", event_types=["o"])
        ours = [_event(hookline, "m", n=i) for i in range(2)]
        theirs = _event(hookline, "o")
        hookline.pump()
        boto3.client("sqs").send_message(QueueUrl=hookline.env[topology.DELIVERY_DLQ.env], MessageBody="not a task")
        answer.failing = None
        # When an operator drains the DLQ for one endpoint, twice
        first = hookline.drain_dlq(endpoint_id=mine, rate=50)
        second = hookline.drain_dlq(endpoint_id=mine, rate=50)
        assert (first["counts"]["moved"], first["counts"]["poison"], first["counts"]["skipped"]) == (2, 1, 1)
        assert second["counts"]["moved"] == 0 and second["id"] != first["id"]  # a new drain: the first had ended
        # And a duplicate of one drained task reaches the retry queue too
        task = DeliveryTask("acme", ours[0], _delivery(hookline, ours[0])["id"], mine, 1, 0, dead_lettered="max_attempts")
        boto3.client("sqs").send_message(QueueUrl=hookline.env[topology.RETRY_QUEUE.env], MessageBody=task.to_message())
        hookline.pump()
        # Then the endpoint's deliveries are replayed once each; the other endpoint's stays dead-lettered
        assert all(_delivery(hookline, e)["status"] == "succeeded" for e in ours)
        assert _delivery(hookline, theirs)["status"] == "failed"
        replayed = [r.headers["webhook-id"] for r in receiver.requests if r.path == "/mine" and r.at]
        assert sorted(replayed) == sorted(ours * 2)  # one failure each, then one manual success each
        # And the DLQ still holds the other endpoint's task and the poison message (hidden until the drain's receive times out)
        attrs = boto3.client("sqs").get_queue_attributes(QueueUrl=hookline.env[topology.DELIVERY_DLQ.env], AttributeNames=["All"])["Attributes"]
        assert int(attrs["ApproximateNumberOfMessages"]) + int(attrs["ApproximateNumberOfMessagesNotVisible"]) == 2


def test_a_bad_direct_invocation_of_the_replay_function_is_answered_with_an_error(hookline: Hookline) -> None:
    invoke = hookline.handlers["jobs"]
    for payload, code in (
        (["not", "an", "object"], "bad_request"),
        ({"kind": "nothing"}, "bad_request"),
        ({"kind": "drain_dlq", "rate": 0}, "validation_failed"),
        ({"kind": "drain_dlq", "rate": True}, "validation_failed"),
        ({"kind": "drain_dlq", "colour": "red"}, "unknown_field"),
        ({"kind": "job", "job_id": "job_nope"}, "job_not_found"),
    ):
        answer = invoke(payload, None)
        assert answer["error"]["code"] == code and answer["error"]["message"], (payload, answer)
    # And a refused drain started nothing
    assert hookline.queued(topology.JOBS_QUEUE) == []


def test_manual_retry_of_one_delivery(hookline: Hookline) -> None:
    answer = Switch(failing=400)
    with running_receiver(answer) as receiver:
        _endpoint(hookline, receiver.url)
        event_id = _event(hookline)
        hookline.pump()
        dlv = _delivery(hookline, event_id)["id"]
        answer.failing = None
        status, body = hookline.api("POST", f"/v1/events/{event_id}/deliveries/{dlv}/retry")
        assert (status, body["status"], body["generation"]) == (202, "pending", 1)
        # A repeat before its attempt is made queues it again in the same generation (the attempt is still made
        # once: both copies claim it); another tenant cannot retry it
        status, again = hookline.api("POST", f"/v1/events/{event_id}/deliveries/{dlv}/retry")
        assert (status, again["generation"]) == (202, 1)
        assert hookline.api("POST", f"/v1/events/{event_id}/deliveries/{dlv}/retry", tenant="other")[0] == 404
        hookline.pump()
        d = _delivery(hookline, event_id)
        assert d["status"] == "succeeded"
        assert [(a["status_code"], a["trigger"]) for a in d["attempts"]] == [(400, "scheduled"), (200, "manual")]
        assert len(receiver.requests) == 2


def test_stats_and_health_rates(hookline: Hookline) -> None:
    answers = iter([Answer(status=400)] * 3)
    with running_receiver(lambda _r: next(answers, Answer())) as receiver:
        ep = _endpoint(hookline, receiver.url)
        failed = [_event(hookline, n=i) for i in range(3)]
        hookline.pump()
        ok = [_event(hookline, n=i) for i in range(5)]
        hookline.pump()
        assert len(receiver.requests) == 8
    assert all(_delivery(hookline, e)["status"] == "failed" for e in failed)
    status, stats = hookline.api("GET", f"/v1/endpoints/{ep}/stats")
    assert status == 200
    assert (stats["attempts"], stats["succeeded"], stats["failed"]) == (8, 5, 3)
    assert stats["first_attempt_delivery_rate"] == 0.625
    assert stats["eventual_delivery_success_rate"] == 0.625
    assert stats["latency_ms"]["p50"] is not None and stats["latency_ms"]["p99"] >= stats["latency_ms"]["p50"]
    # A window without traffic is empty, and bad windows are refused
    empty = hookline.api("GET", f"/v1/endpoints/{ep}/stats", query={"since": "2020-01-01T00:00:00Z", "until": "2020-01-02T00:00:00Z"})[1]
    assert empty["attempts"] == 0 and empty["first_attempt_delivery_rate"] is None
    assert hookline.api("GET", f"/v1/endpoints/{ep}/stats", query={"since": "nope"})[0] == 422
    assert hookline.api("GET", f"/v1/endpoints/{ep}/stats", tenant="other")[0] == 404
    assert len(ok) == 5


def test_logs_carry_correlation_ids_and_never_a_secret(hookline: Hookline) -> None:
    # Given the service's log lines, formatted exactly as Powertools writes them
    buffer = io.StringIO()
    capture = logging.StreamHandler(buffer)
    capture.setFormatter(get_logger().registered_formatter)
    logging.getLogger("hookline").addHandler(capture)
    try:
        hookline.add_api_key("acme", "hk_log_test_key_123")
        with running_receiver(lambda _r: Answer(status=503)) as receiver:
            status, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
            assert status == 201
            event_id = _event(hookline)
            hookline.pump()
            hookline.handlers["authorizer"]({"headers": {"authorization": "Bearer hk_log_test_key_123"}}, None)
    finally:
        logging.getLogger("hookline").removeHandler(capture)
    out = buffer.getvalue()
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    attempts = [entry for entry in lines if entry.get("message") == "delivery attempt"]
    assert attempts, out
    for entry in attempts:
        assert entry["event_id"] == event_id
        assert entry["endpoint_id"] == ep["id"]
        assert entry["tenant"] == "acme"
        assert entry["delivery_id"].startswith("dlv_")
    assert ep["secret"] not in out
    assert ep["secret"].removeprefix("whsec_") not in out
    assert "hk_log_test_key_123" not in out


def test_two_copies_a_drain_moves_of_one_task_send_one_request(hookline: Hookline) -> None:
    """Two drains at once, or one that crashed between its send and its delete, leave two copies on the retry queue."""
    with running_receiver() as receiver:
        _endpoint(hookline, receiver.url)
        _event(hookline)
        # Given a new event's task (fresh: its first receive writes no claim) that hookline failed to process until
        # SQS dead-lettered it, in the DLQ twice
        [message] = hookline.queued()
        assert DeliveryTask.from_message(message["Body"]).fresh
        sqs = boto3.client("sqs")
        for _ in range(2):
            sqs.send_message(QueueUrl=hookline.env[topology.DELIVERY_DLQ.env], MessageBody=message["Body"])
        # When the drain moves both, Then neither copy is fresh: each claims, and the receiver sees one request
        assert hookline.drain_dlq(rate=50)["counts"]["moved"] == 2
        moved = [DeliveryTask.from_message(m["Body"]) for m in hookline.queued(topology.RETRY_QUEUE)]
        assert len(moved) == 2 and not any(t.fresh for t in moved)
        for m in moved:
            sqs.send_message(QueueUrl=hookline.env[topology.RETRY_QUEUE.env], MessageBody=m.to_message())
        hookline.pump()
        assert len(receiver.requests) == 1
