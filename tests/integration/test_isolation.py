"""Per-endpoint isolation through the real handlers against moto: breakers, limits, disable and recovery."""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from freezegun import freeze_time

from hookline.adapters import aws
from hookline.adapters.dynamo.state import EndpointStateRepository
from hookline.core.breaker import Breaker
from hookline.wiring import container, topology
from tests.conftest import Hookline
from tests.support.events import sqs_event
from tests.support.receiver import Answer, Received, running_receiver
from tests.support.timeline import Timeline

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _endpoint(hookline: Hookline, url: str, **extra: Any) -> dict[str, Any]:
    status, ep = hookline.api("POST", "/v1/endpoints", {"url": url, **extra})
    assert status == 201, ep
    return ep


def _event(hookline: Hookline, event_type: str = "a.b", data: dict[str, Any] | None = None) -> str:
    status, body = hookline.api("POST", "/v1/events", {"type": event_type, "data": data or {}})
    assert status == 202, body
    return str(body["id"])


def _deliveries(hookline: Hookline, event_id: str) -> list[dict[str, Any]]:
    return list(hookline.api("GET", f"/v1/events/{event_id}")[1]["deliveries"])


def _states() -> EndpointStateRepository:
    return EndpointStateRepository(aws.dynamodb_table(container.get_settings().table_name))


def _pump_until(hookline: Hookline, done: Any, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        hookline.pump()
        if done():
            return
        time.sleep(0.2)
    raise AssertionError("did not settle in time")


def test_endpoint_settings_are_validated_and_shown(hookline: Hookline) -> None:
    ep = _endpoint(hookline, "https://example.com/a", rate_limit_per_second=5, max_concurrency=2)
    assert (ep["rate_limit_per_second"], ep["max_concurrency"]) == (5, 2)
    status, body = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"max_concurrency": 3})
    assert (status, body["max_concurrency"], body["rate_limit_per_second"]) == (200, 3, 5)
    for bad in ({"rate_limit_per_second": 0}, {"rate_limit_per_second": "fast"}, {"max_concurrency": 0}, {"max_concurrency": 1.5}, {"max_concurrency": 1000}):
        status, err = hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", bad)
        assert status == 422, bad
        assert err["error"]["code"] in ("validation_failed", "wrong_type")
    _, got = hookline.api("GET", f"/v1/endpoints/{ep['id']}")
    assert (got["max_concurrency"], got["rate_limit_per_second"]) == (3, 5)
    assert got["health"] == {
        "circuit": {"state": "closed", "consecutive_failures": 0, "open_until": None, "trips": 0},
        "success_rate": 1.0,
        "attempts": 0,  # what the rate is over: none yet
        "last_error": None,
        "last_error_at": None,
        "effective_rate_per_second": 5.0,
        # a new endpoint starts at 5 in flight, here capped by its ceiling of 3; no answer yet, so no latency
        "concurrency": {"limit": 3, "ceiling": 3, "latency_ms": None, "lane": "first"},
        "last_email": None,  # no email to a customer about it yet
    }


@pytest.mark.faults  # a 50-thread race: it runs in the fault tier's process of its own, not beside another test in a worker
def test_fifty_workers_on_a_half_open_endpoint_send_exactly_one_probe(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    # The probe's lease (2 x the request deadline) outlives the test's hold on the probe, however slow the machine.
    monkeypatch.setenv("HOOKLINE_REQUEST_TIMEOUT_SECONDS", "60")
    container.reset()
    finished = threading.Semaphore(0)

    def probe_answer(_r: Received) -> Answer:
        # Hold the probe open until the 49 other invocations are done (at most 90 s), so all of them race it.
        deadline = time.monotonic() + 90
        for _ in range(49):
            if not finished.acquire(timeout=max(0.0, deadline - time.monotonic())):
                break
        return Answer()

    with running_receiver() as warm:
        # (a first delivery imports and builds everything lazily, so the race below is about the breaker alone)
        _endpoint(hookline, warm.url, event_types=["warm.up"])
        _event(hookline, "warm.up")
        hookline.pump()
        assert len(warm.requests) == 1
    with running_receiver(probe_answer) as receiver:
        # Given an endpoint whose breaker's cooldown has just ended
        ep = _endpoint(hookline, receiver.url, rate_limit_per_second=500, max_concurrency=100, event_types=["a.b"])
        now = time.time()
        opened = Breaker(state="open", consecutive_failures=10, open_until=now - 1, open_since=now - 100, cooldown_seconds=60, trips=1, version=1)
        assert _states().save_breaker("acme", ep["id"], opened, 0)
        for i in range(50):
            _event(hookline, data={"n": i})
        messages = hookline.queued(max_messages=50)
        assert len(messages) == 50
        # When 50 invocations of the retry function (a probe is made from the retry lane) take one task each, all at once
        barrier = threading.Barrier(50)
        retry_arn = hookline.queue_arn(topology.RETRY_QUEUE)

        def run(message: dict[str, Any]) -> None:
            barrier.wait()
            hookline.handlers["retry"](sqs_event([message], retry_arn), None)
            finished.release()

        threads = [threading.Thread(target=run, args=(m,)) for m in messages]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        # Then exactly one probe reached the receiver, it closed the breaker, and the 49 others were put off
        assert len(receiver.requests) == 1
        assert _states().breaker("acme", ep["id"]).state == "closed"
        attrs = boto3.client("sqs").get_queue_attributes(QueueUrl=hookline.env[topology.RETRY_QUEUE.env], AttributeNames=["All"])["Attributes"]
        assert int(attrs["ApproximateNumberOfMessages"]) + int(attrs["ApproximateNumberOfMessagesDelayed"]) == 49


def test_a_failing_endpoint_trips_and_probes_while_healthy_ones_deliver_and_their_hot_path_writes_no_breaker(hookline: Hookline) -> None:
    """The wiring of isolation end to end, in virtual time (the rules themselves: tests/unit/services/test_delivery_isolation.py)."""
    breaker_writes: list[str] = []

    def spy(params: dict[str, Any], **_: Any) -> None:
        key = params.get("Key") or params.get("Item") or {}
        if str(key.get("pk", "")).startswith("BRK#"):
            breaker_writes.append(str(key["pk"]))

    table_client = aws.dynamodb_table(hookline.env[topology.TABLE.env]).meta.client
    for op in ("PutItem", "UpdateItem", "DeleteItem"):
        table_client.meta.events.register(f"before-parameter-build.dynamodb.{op}", spy)

    def answer(r: Received) -> Answer:
        return Answer(status=503) if r.path.startswith("/bad") else Answer()

    with freeze_time(START) as frozen, running_receiver(answer) as receiver:
        timeline = Timeline(hookline, frozen)
        base = receiver.url.rsplit("/", 1)[0]
        # Given two healthy endpoints and one that always fails, each subscribed to its own event type
        healthy = [_endpoint(hookline, f"{base}/good{i}", event_types=[f"good{i}"])["id"] for i in range(2)]
        failing = _endpoint(hookline, f"{base}/bad", event_types=["bad"])["id"]
        good_events = [_event(hookline, f"good{i}", {"k": k}) for i in range(2) for k in range(3)]
        for k in range(12):
            _event(hookline, "bad", {"k": k})

        def failing_hits() -> tuple[list[float], list[float]]:
            opened_at = _states().breaker("acme", failing).open_since
            hits = sorted(r.at for r in receiver.requests if r.path == "/bad")
            return [t for t in hits if opened_at is None or t <= opened_at], [t for t in hits if opened_at is not None and t > opened_at]

        # When the pipeline runs until the failing endpoint has tripped and probed twice
        timeline.run(lambda: len(failing_hits()[1]) >= 2, max_seconds=3600)
    # Then every healthy delivery succeeded on its first attempt
    for e in good_events:
        [d] = _deliveries(hookline, e)
        assert (d["status"], [a["number"] for a in d["attempts"]]) == ("succeeded", [1])
    # And the failing endpoint saw its threshold of attempts (plus what was in flight), then one probe per cooldown
    # (60 s each, until a fifth of the outage is longer)
    breaker = _states().breaker("acme", failing)
    before, probes = failing_hits()
    assert breaker.trips == 1 and breaker.open_since is not None
    assert 10 <= len(before) <= 10 + 4
    gaps = [b - a for a, b in zip([breaker.open_since, *probes], probes, strict=False)]
    assert gaps[0] >= 60 and gaps[1] >= 60, gaps
    # And the breaker was written for the failing endpoint (so the spy sees breaker writes) and never for a healthy one
    assert [w for w in breaker_writes if failing in w] != []
    assert [w for w in breaker_writes if any(h in w for h in healthy)] == []


def _notifications(hookline: Hookline) -> list[dict[str, Any]]:
    sqs = boto3.client("sqs")
    url = sqs.get_queue_url(QueueName="ops-notifications")["QueueUrl"]
    got = []
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        for m in batch:
            got.append(json.loads(json.loads(m["Body"])["Message"]))
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return got


def _subscribe_ops_queue(hookline: Hookline) -> None:
    sqs = boto3.client("sqs")
    url = sqs.create_queue(QueueName="ops-notifications")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    boto3.client("sns").subscribe(TopicArn=hookline.env[topology.NOTIFICATIONS.env], Protocol="sqs", Endpoint=arn)


def test_full_cycle_auto_disable_paused_backlog_and_recovery(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOOKLINE_DISABLE_AFTER_SECONDS", "900")
    container.reset()
    _subscribe_ops_queue(hookline)
    broken = {"on": True}
    with freeze_time(START) as frozen, running_receiver(lambda _r: Answer(status=503) if broken["on"] else Answer()) as receiver:
        timeline = Timeline(hookline, frozen)
        ep = _endpoint(hookline, receiver.url)
        early = [_event(hookline, data={"n": i}) for i in range(12)]
        # When the endpoint fails for longer than the disable threshold
        timeline.run(lambda: hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["status"] == "disabled", max_seconds=7200)
        _, got = hookline.api("GET", f"/v1/endpoints/{ep['id']}")
        # Then its breaker opened, probes failed, and it was disabled as failing
        assert got["disabled_reason"] == "failing"
        assert got["health"]["circuit"]["trips"] == 1
        assert got["health"]["last_error"] == "503"
        assert got["health"]["success_rate"] == 0.0
        assert got["health"]["attempts"] >= len(early)  # each early event's attempts, probes and retries: all of them failed
        kinds = [n["type"] for n in _notifications(hookline)]
        assert "endpoint.circuit_opened" in kinds and "endpoint.disabled" in kinds
        # And nothing was dropped: in-flight deliveries are parked and new events are stored paused
        later = [_event(hookline, data={"late": i}) for i in range(3)]
        hookline.pump()
        timeline.run(lambda: all(_deliveries(hookline, e)[0]["status"] == "paused" for e in early + later), max_seconds=7200)
        # When the receiver is fixed and the customer re-enables the endpoint
        broken["on"] = False
        before = len(receiver.requests)
        status, enabled = hookline.api("POST", f"/v1/endpoints/{ep['id']}/enable")
        assert status == 200, enabled
        assert enabled["status"] == "active"
        assert enabled["requeue"]["status"] == "running"  # the job moves the 15 paused deliveries, a page per step
        assert receiver.requests[before].headers["webhook-id"] == enabled["test"]["webhook_id"]
        # Then the paused backlog drains and every event is delivered
        timeline.run(lambda: all(_deliveries(hookline, e)[0]["status"] == "succeeded" for e in early + later), max_seconds=3600)
        assert "endpoint.recovered" in [n["type"] for n in _notifications(hookline)]
        _, healthy = hookline.api("GET", f"/v1/endpoints/{ep['id']}")
        assert healthy["health"]["circuit"]["state"] == "closed"


def test_enable_fails_with_424_while_the_receiver_still_fails(hookline: Hookline) -> None:
    with running_receiver(lambda _r: Answer(status=500)) as receiver:
        ep = _endpoint(hookline, receiver.url)
        hookline.api("PATCH", f"/v1/endpoints/{ep['id']}", {"status": "disabled"})
        status, body = hookline.api("POST", f"/v1/endpoints/{ep['id']}/enable")
        assert status == 424
        assert body["error"]["code"] == "test_event_failed"
        assert body["error"]["attempt"]["status_code"] == 500
        assert hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["status"] == "disabled"
        assert hookline.api("POST", f"/v1/endpoints/{ep['id']}/enable", tenant="other")[0] == 404


def test_a_429_lowers_the_effective_rate_which_then_recovers(hookline: Hookline) -> None:
    answers = iter([Answer(status=429)])
    with freeze_time(START) as frozen, running_receiver(lambda _r: next(answers, Answer())) as receiver:
        ep = _endpoint(hookline, receiver.url, rate_limit_per_second=10)
        _event(hookline)
        hookline.pump()
        rate = hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["health"]["effective_rate_per_second"]
        assert rate == 5.0
        frozen.tick(20)
        assert 5.0 < hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["health"]["effective_rate_per_second"] < 10.0
        frozen.tick(600)
        assert hookline.api("GET", f"/v1/endpoints/{ep['id']}")[1]["health"]["effective_rate_per_second"] == 10.0
        assert len(receiver.requests) == 1


def test_a_long_open_circuit_parks_its_tasks_in_sqs_hops_not_step_functions(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        # Given an endpoint whose breaker stays open for another hour
        ep = _endpoint(hookline, receiver.url)
        now = time.time()
        opened = Breaker(state="open", consecutive_failures=10, open_until=now + 3600, open_since=now - 60, cooldown_seconds=3600, trips=7, version=1)
        assert _states().save_breaker("acme", ep["id"], opened, 0)
        starts: list[str] = []
        aws.stepfunctions_client().meta.events.register("before-parameter-build.sfn.StartExecution", lambda params, **_: starts.append(params["name"]))
        sends: list[int] = []
        aws.sqs_client().meta.events.register("before-parameter-build.sqs.SendMessage", lambda params, **_: sends.append(params.get("DelaySeconds", 0)))
        _event(hookline)
        # When its task comes up
        hookline.drain()
        # Then nothing is sent and the task waits on the retry queue for the longest SQS delay, to be planned again then;
        # no Step Functions execution (two transitions, $50 per million) is started for it
        assert receiver.requests == []
        assert sends == [900]
        assert starts == []


@pytest.mark.parametrize(("hops_up_to", "starts"), [("7200", 2), ("21600", 0)])
def test_a_deferral_longer_than_the_hop_limit_waits_in_step_functions(
    hookline: Hookline, monkeypatch: pytest.MonkeyPatch, hops_up_to: str, starts: int
) -> None:
    # (with the default bound, six hours, the same four hours hop through the retry queue instead)
    monkeypatch.setenv("HOOKLINE_SQS_HOPS_UP_TO_SECONDS", hops_up_to)
    container.reset()
    with running_receiver(lambda _r: Answer(status=503, headers={"Retry-After": "14400"})) as receiver:
        # Given an endpoint that asks for four hours of quiet
        _endpoint(hookline, receiver.url)
        started: list[str] = []
        aws.stepfunctions_client().meta.events.register("before-parameter-build.sfn.StartExecution", lambda params, **_: started.append(params["name"]))
        _event(hookline)
        hookline.drain()
        assert len(receiver.requests) == 1
        # When a second event's task comes up during the pause
        _event(hookline)
        hookline.drain()
        # Then that deferral, beyond eight SQS hops, waits in Step Functions (as does the first event's retry), or hops
        assert len(receiver.requests) == 1
        assert len(started) == starts


def test_a_timing_out_endpoint_is_served_from_the_retry_lane_and_a_busy_one_earns_concurrency(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        slow, fast = _endpoint(hookline, receiver.url + "/slow", event_types=["slow.x"]), _endpoint(hookline, receiver.url + "/fast", event_types=["fast.x"])
        # Given an endpoint whose last answer was a timeout (its breaker still closed)
        timing_out = Breaker(consecutive_failures=1, timeouts=1, last_error="timeout", last_failure_at=time.time(), recent="0")
        assert _states().save_breaker("acme", slow["id"], timing_out, 0)
        assert hookline.api("GET", f"/v1/endpoints/{slow['id']}")[1]["health"]["concurrency"]["lane"] == "retry"
        # When its event and a healthy endpoint's arrive on the delivery queue and the delivery function runs
        _event(hookline, "slow.x")
        for n in range(8):
            _event(hookline, "fast.x", {"n": n})
        assert hookline.drain(topology.DELIVERY_QUEUE) == 9
        # Then the healthy endpoint got its first 5 (a new endpoint starts at 5 in flight) and the timing-out one nothing:
        # its task went to the retry queue at once, using no attempt, and so did the healthy endpoint's other three
        assert sorted(r.path for r in receiver.requests) == ["/webhook/fast"] * 5
        # and that busy batch (5 in flight of a limit of 5, steady) raised the healthy endpoint's limit from its answers
        first_batch = _states().limiter("acme", fast["id"])
        assert first_batch.concurrency_limit > 5 and first_batch.rtt_long > 0 and first_batch.leases == ()
        time.sleep(2.2)  # deferred by at most a second's spread, rounded up to whole DelaySeconds
        deferred = hookline.queued(topology.RETRY_QUEUE)
        assert len(deferred) == 4 and all(json.loads(m["Body"])["attempt"] == 1 for m in deferred)
        # When the retry function runs them (eventSourceARN: the retry queue)
        hookline.handlers["retry"](sqs_event(deferred, hookline.queue_arn(topology.RETRY_QUEUE)), None)
        # Then the timing-out endpoint is sent its webhook from the retry lane, and the healthy one the rest
        assert sorted(r.path for r in receiver.requests) == ["/webhook/fast"] * 8 + ["/webhook/slow"]
    # And the endpoint shows what it learned (how the retry batch moved the limit depends on this machine's timing)
    concurrency = hookline.api("GET", f"/v1/endpoints/{fast['id']}")[1]["health"]["concurrency"]
    assert concurrency["latency_ms"] is not None and concurrency["lane"] == "first" and concurrency["ceiling"] == 50
    assert _states().limiter("acme", fast["id"]).leases == ()
