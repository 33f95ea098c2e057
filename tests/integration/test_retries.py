"""Retries through the real handlers against moto, in virtual time where the waits are long."""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from freezegun import freeze_time
from moto import mock_aws

from hookline.core.clock import parse_iso
from hookline.core.config import retry_policy
from hookline.core.models import DeliveryTask
from hookline.wiring import container, topology
from tests.conftest import Hookline
from tests.support.receiver import Answer, Received, running_receiver
from tests.support.timeline import Timeline

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _endpoint(hookline: Hookline, url: str) -> dict[str, Any]:
    status, ep = hookline.api("POST", "/v1/endpoints", {"url": url})
    assert status == 201
    return ep


def _event(hookline: Hookline, data: dict[str, Any] | None = None) -> str:
    status, body = hookline.api("POST", "/v1/events", {"type": "a.b", "data": data or {}})
    assert status == 202
    return str(body["id"])


def _delivery(hookline: Hookline, event_id: str) -> dict[str, Any]:
    _, event = hookline.api("GET", f"/v1/events/{event_id}")
    return dict(event["deliveries"][0])


def _wait_notes(hookline: Hookline) -> list[dict[str, Any]]:
    """The notes of retries waiting in Step Functions (a scan: the test's view)."""
    table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
    return [i for i in table.scan()["Items"] if str(i["pk"]).startswith("WAIT#")]


def _queue_depth(hookline: Hookline, queue: topology.QueueSpec) -> int:
    attrs = boto3.client("sqs").get_queue_attributes(QueueUrl=hookline.env[queue.env], AttributeNames=["All"])["Attributes"]
    return int(attrs["ApproximateNumberOfMessages"]) + int(attrs["ApproximateNumberOfMessagesDelayed"])


@pytest.mark.parametrize("code", [400, 401, 403, 404, 422])
def test_client_errors_get_exactly_one_attempt(hookline: Hookline, code: int) -> None:
    with running_receiver(lambda _r: Answer(status=code)) as receiver:
        _endpoint(hookline, receiver.url)
        event_id = _event(hookline)
        hookline.pump()
        delivery = _delivery(hookline, event_id)
        assert delivery["status"] == "failed"
        assert len(delivery["attempts"]) == 1
        assert "not retried" in delivery["attempts"][0]["reason"]
        assert len(receiver.requests) == 1
        assert _queue_depth(hookline, topology.RETRY_QUEUE) == 0


def test_timeouts_and_refused_connections_are_retried(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKLINE_REQUEST_TIMEOUT_SECONDS", "0.3")
    container.reset()
    with running_receiver(lambda _r: Answer(delay=1.0)) as slow:
        _endpoint(hookline, slow.url)
        with running_receiver() as gone:
            refused_url = gone.url
        _endpoint(hookline, refused_url)
        event_id = _event(hookline)
        hookline.pump()
    _, event = hookline.api("GET", f"/v1/events/{event_id}")
    errors = sorted(d["attempts"][0]["error"] for d in event["deliveries"])
    assert errors == ["connection_refused", "timeout"]
    assert all(d["status"] == "pending" and d["attempts"][0]["outcome"] == "retrying" for d in event["deliveries"])
    # Both second attempts wait on the retry queue, never on the first-attempt queue
    assert _queue_depth(hookline, topology.RETRY_QUEUE) == 2
    assert _queue_depth(hookline, topology.DELIVERY_QUEUE) == 0


def test_410_disables_the_endpoint_until_it_is_re_enabled(hookline: Hookline) -> None:
    with running_receiver(lambda _r: Answer(status=410)) as receiver:
        ep = _endpoint(hookline, receiver.url)
        event_id = _event(hookline)
        hookline.pump()
        assert _delivery(hookline, event_id)["status"] == "failed"
        _, got = hookline.api("GET", f"/v1/endpoints/{ep['id']}")
        assert (got["status"], got["disabled_reason"]) == ("disabled", "gone")
        # New events are not sent to it: they wait, paused
        paused = _event(hookline)
        hookline.pump()
        assert _delivery(hookline, paused)["status"] == "paused"
        assert len(receiver.requests) == 1
        # Until the customer re-enables it
        receiver.answer_with(lambda _r: Answer(status=200))
        assert hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"status": "active"})[1]["status"] == "active"
        again = _event(hookline)
        hookline.pump()
        assert _delivery(hookline, again)["status"] == "succeeded"


class Hostile:
    """Seed 004's receiver: per webhook-id, first 500, then 429 with Retry-After: 5, then 200."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = defaultdict(int)
        self.lock = threading.Lock()

    def __call__(self, r: Received) -> Answer:
        with self.lock:
            self.seen[r.headers["webhook-id"]] += 1
            n = self.seen[r.headers["webhook-id"]]
        if n == 1:
            return Answer(status=500)
        if n == 2:
            return Answer(status=429, headers={"retry-after": "5"})
        return Answer(status=200)


def test_hostile_receiver_pauses_the_whole_endpoint(hookline: Hookline) -> None:
    with freeze_time(START) as frozen, running_receiver(Hostile()) as receiver:
        timeline = Timeline(hookline, frozen)
        # Given three events for one endpoint
        ep = _endpoint(hookline, receiver.url)
        event_ids = [_event(hookline, {"n": i}) for i in range(3)]

        # When the pipeline runs until every delivery is done
        def done() -> bool:
            return all(_delivery(hookline, e)["status"] != "pending" for e in event_ids)

        timeline.run(done, max_seconds=3600)
        # Then each event took three attempts and succeeded, with one webhook-id throughout
        by_id: dict[str, list[Received]] = defaultdict(list)
        for r in receiver.requests:
            by_id[r.headers["webhook-id"]].append(r)
        assert sorted(by_id) == sorted(event_ids)
        assert all(len(rs) == 3 for rs in by_id.values())
        for e in event_ids:
            d = _delivery(hookline, e)
            assert d["status"] == "succeeded"
            assert [a["status_code"] for a in d["attempts"]] == [500, 429, 200]
        # And after every 429, no request at all reached the endpoint for 5 s: other deliveries waited too
        times = sorted(r.at for r in receiver.requests)
        for r in receiver.requests:
            if by_id[r.headers["webhook-id"]].index(r) == 1:  # a 429 answer
                assert not [t for t in times if r.at < t < r.at + 5], "a request reached the paused endpoint"
        assert ep["id"]


@pytest.mark.parametrize("hops_up_to", ["21600", "0"])
def test_whole_schedule_to_exhaustion_ends_in_the_dlq(hookline: Hookline, monkeypatch: pytest.MonkeyPatch, hops_up_to: str) -> None:
    # Given the default schedule, its waits over 900 s hopping through the retry queue (the default) or in Step Functions
    monkeypatch.setenv("HOOKLINE_SQS_HOPS_UP_TO_SECONDS", hops_up_to)
    container.reset()
    settings = container.get_settings()
    backoff = retry_policy(settings).backoff
    with freeze_time(START) as frozen, running_receiver(lambda _r: Answer(status=503)) as receiver:
        timeline = Timeline(hookline, frozen)
        ep = _endpoint(hookline, receiver.url)
        event_id = _event(hookline)
        timeline.run(lambda: _delivery(hookline, event_id)["status"] != "pending", max_seconds=4 * 86_400)
        delivery = _delivery(hookline, event_id)
        # Then all twelve attempts were made, the last one giving up
        assert delivery["status"] == "failed"
        attempts = delivery["attempts"]
        assert [a["number"] for a in attempts] == list(range(1, 13))
        assert len(receiver.requests) == 12
        assert "gave up: max_attempts" in attempts[-1]["reason"]
        # And every wait lies within the schedule: (0, min(cap, base x 2^n)] after attempt n, +1 s for SQS's whole seconds
        at = [parse_iso(a["at"]).timestamp() for a in attempts]
        for n in range(1, 12):
            gap = at[n] - at[n - 1]
            assert 1 <= gap <= backoff.ceiling(n) + 1, (n, gap)
        assert all(d <= settings.sqs_max_delay_seconds for d in timeline.sqs_delays)
        if hops_up_to != "0":
            # And no wait went through the state machine: those over 900 s hopped, each hop at most 900 s, and no
            # attempt ran before its task's due time (a hop that arrived early was queued again for the rest)
            assert timeline.executions == []
            hopped = {attempt for attempt, _, _ in timeline.dues}
            assert hopped, "no wait hopped"
            assert any(sum(1 for a, _, _ in timeline.dues if a == n) > 1 for n in hopped), "no wait took more than one hop"
            for attempt, due, _ in timeline.dues:
                assert at[attempt - 1] >= due, (attempt, at[attempt - 1], due)
        else:
            # And waits above the SQS limit went through Step Functions, the others through SQS DelaySeconds
            assert timeline.executions, "no wait went through the state machine"
            assert timeline.dues == []
            names = [e["name"] for e in timeline.executions]
            assert len(names) == len(set(names))
            assert all(n.startswith(delivery["id"]) for n in names)
        # And each of those waits was noted for the sweeper, and its note dropped when its task came back
        assert all(DeliveryTask.from_message(e["task"]).wait_until == e["until"] for e in timeline.executions)
        assert _wait_notes(hookline) == []
        # And the task rests in the DLQ with why
        [dead] = hookline.queued(topology.DELIVERY_DLQ)
        attrs = {k: v["StringValue"] for k, v in dead["MessageAttributes"].items()}
        assert attrs["reason"] == "max_attempts"
        assert attrs["last_status_code"] == "503"
        assert attrs["attempts"] == "12"
        assert attrs["endpoint_id"] == ep["id"]
        assert DeliveryTask.from_message(dead["Body"]).delivery_id == delivery["id"]


def test_a_task_that_outlives_max_age_is_dead_lettered(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKLINE_MAX_AGE_SECONDS", "600")
    container.reset()
    with freeze_time(START) as frozen, running_receiver(lambda _r: Answer(status=500)) as receiver:
        timeline = Timeline(hookline, frozen)
        _endpoint(hookline, receiver.url)
        event_id = _event(hookline)
        timeline.run(lambda: _delivery(hookline, event_id)["status"] != "pending", max_seconds=3600)
        delivery = _delivery(hookline, event_id)
        assert "gave up: max_age" in delivery["attempts"][-1]["reason"]
        assert len(delivery["attempts"]) < 12
        [dead] = hookline.queued(topology.DELIVERY_DLQ)
        assert dead["MessageAttributes"]["reason"]["StringValue"] == "max_age"


def test_long_wait_runs_through_the_state_machine_for_real(monkeypatch: pytest.MonkeyPatch) -> None:
    """The state machine's definition really executes under moto: Wait, then SQS SendMessage."""
    from tests.conftest import TEST_ENV

    for k, v in TEST_ENV.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.setenv("HOOKLINE_SQS_MAX_DELAY_SECONDS", "1")
    monkeypatch.setenv("HOOKLINE_SQS_HOPS_UP_TO_SECONDS", "0")
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
        from local.lambda_runtime import load_handler
        from local.resources import provision

        container.reset()
        env = provision()
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        container.reset()
        hookline = Hookline(env=env, handlers={spec.name: load_handler(spec)[1] for spec in topology.FUNCTIONS})
        answers = iter([Answer(status=503, headers={"retry-after": "2"}), Answer(status=200)])
        with running_receiver(lambda _r: next(answers)) as receiver:
            _endpoint(hookline, receiver.url)
            event_id = _event(hookline)
            hookline.pump()
            # The 2 s wait exceeds the 1 s SQS limit: a state machine execution holds the task
            sfn = boto3.client("stepfunctions")
            [machine] = sfn.list_state_machines()["stateMachines"]
            [execution] = sfn.list_executions(stateMachineArn=machine["stateMachineArn"])["executions"]
            assert json.loads(sfn.describe_execution(executionArn=execution["executionArn"])["input"])["task"]
            deadline = time.time() + 20
            while _delivery(hookline, event_id)["status"] == "pending" and time.time() < deadline:
                hookline.drain(topology.RETRY_QUEUE)
                time.sleep(0.3)
            delivery = _delivery(hookline, event_id)
            assert delivery["status"] == "succeeded"
            assert [a["status_code"] for a in delivery["attempts"]] == [503, 200]
            assert len({r.headers["webhook-id"] for r in receiver.requests}) == 1
            # And the wait's note went when its task came back: the sweeper has nothing to queue again
            assert _wait_notes(hookline) == []
    container.reset()
