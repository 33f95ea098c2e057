"""Nothing lost under injected faults: an invariant test against the real handlers, in virtual time.

Faults fire at random from a seeded RNG while events are accepted and
delivered: DynamoDB throttling and 5xx on reads and writes, SQS send failures,
Step Functions start failures, a worker crash between the receiver's 2xx and
recording it, and receiver timeouts and connection resets. SQS behaves as in
AWS: a failed record stays invisible for the queue's visibility timeout, and
after five receives the redrive policy moves it to the DLQ, which the operator
drains (the runbook's step). Then the faults stop and the system settles.

The invariant: every event that got a 202 ends succeeded or failed (and a
failed one is in the index, replayable); none is lost or stuck pending; every
duplicate the receiver saw carries a webhook-id it had already seen.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from freezegun import freeze_time

from hookline.adapters import aws
from hookline.adapters.dynamo.events import EventRepository
from hookline.wiring import container, topology
from local import moto_speedups
from tests.conftest import Hookline
from tests.support.events import sqs_event
from tests.support.receiver import Answer, Received, running_receiver
from tests.support.timeline import Timeline

SEED = 20261129
START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
EVENTS = 120
ENDPOINTS = 4


class Faults:
    def __init__(self, rng: random.Random, rate: float):
        self.rng = rng
        self.rate = rate
        self.active = True
        self.fired: Counter[str] = Counter()
        self.lock = threading.Lock()
        self._families: set[str] = set()  # the families that rolled while active (each one's first roll hits)

    def roll(self, what: str) -> bool:
        """A fault of kind `what` now? One in `rate`, and always the first time a family (`sqs`, `sfn`, `worker`, ...)
        rolls while active: the draws of the one shared stream interleave with the threads' timing, so without that a
        family that rolls rarely could draw no hit in a run, and the run would prove nothing about it."""
        family = what.split(".", maxsplit=1)[0]
        with self.lock:
            hit = self.active and (family not in self._families or self.rng.random() < self.rate)
            if self.active:
                self._families.add(family)
            if hit:
                self.fired[what] += 1
            return hit

    def aws_hook(self, service: str, code: str) -> Any:
        def hook(model: Any, **_: Any) -> None:
            if self.roll(f"{service}.{model.name}"):
                raise ClientError({"Error": {"Code": code, "Message": "injected fault"}, "ResponseMetadata": {"HTTPStatusCode": 500}}, model.name)

        return hook


def _pump_like_lambda(hookline: Hookline, timeline: Timeline) -> int:
    """One poll of each queue, as the event source mapping does: delete what succeeded, leave failures for the visibility timeout."""
    sqs = boto3.client("sqs")
    timeline.fire_due_executions()  # the state machine's part: waits that are over put their task on the retry queue
    ran = 0
    for queue in (topology.JOBS_QUEUE, topology.DELIVERY_QUEUE, topology.RETRY_QUEUE):
        url = hookline.env[queue.env]
        messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"]).get("Messages", [])
        if not messages:
            continue
        [consumer] = [f.name for f in topology.FUNCTIONS if f.sqs_source and f.sqs_source.queue == queue]
        try:
            # as the event source mapping does: the records name their queue, which tells the delivery code its lane
            result = hookline.handlers[consumer](sqs_event(messages, hookline.queue_arn(queue)), None)
            failed = {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
        except Exception:  # the whole invocation failed: every record comes back
            failed = {m["MessageId"] for m in messages}
        for m in messages:
            if m["MessageId"] not in failed:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        if failed:
            timeline.due.append(timeline.now() + queue.visibility_timeout_seconds + 1)
        ran += len(messages)
    return ran


@pytest.mark.slow
@pytest.mark.faults
def test_nothing_accepted_is_lost_under_faults(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    # moto's costs that grow with the backlog are cut as local mode cuts them (the same answers, tests/e2e/test_moto_speedups.py):
    # the run keeps a few hundred messages and thousands of items, and moto's receives and queries took most of its time.
    # They stay installed for the rest of this process (`make test` runs the fault tier in a process of its own).
    moto_speedups.install()
    monkeypatch.setenv("HOOKLINE_RETRY_BASE_SECONDS", "2")
    monkeypatch.setenv("HOOKLINE_MAX_ATTEMPTS", "6")
    monkeypatch.setenv("HOOKLINE_SQS_MAX_DELAY_SECONDS", "1")  # most retries wait through Step Functions
    monkeypatch.setenv("HOOKLINE_REQUEST_TIMEOUT_SECONDS", "0.3")
    container.reset()
    rng = random.Random(SEED)
    faults = Faults(rng, rate=0.05)
    receiver_rng = random.Random(SEED + 1)
    answered_ok: Counter[str] = Counter()
    lock = threading.Lock()

    def receiver_answer(r: Received) -> Answer:
        with lock:
            roll = receiver_rng.random()
            # Each of the receiver's faults happens at least once, as Faults.roll makes sure for the others
            if faults.active and not faults.fired["receiver.timeout"]:
                roll = 0.0
            elif faults.active and not faults.fired["receiver.reset"]:
                roll = 0.07
        if faults.active and roll < 0.05:
            with lock:
                faults.fired["receiver.timeout"] += 1
            return Answer(delay=0.6)
        if faults.active and roll < 0.10:
            with lock:
                faults.fired["receiver.reset"] += 1
            return Answer(drop=True)
        if faults.active and roll < 0.20:
            return Answer(status=503)
        with lock:
            answered_ok[r.headers["webhook-id"]] += 1
        return Answer()

    real_record = EventRepository.record_attempt

    def crashing_record(self: EventRepository, *args: Any, **kwargs: Any) -> None:
        if faults.roll("worker.crash_after_2xx"):
            raise RuntimeError("injected crash between the receiver's answer and recording it")
        real_record(self, *args, **kwargs)

    monkeypatch.setattr(EventRepository, "record_attempt", crashing_record)

    with freeze_time(START) as frozen, running_receiver(receiver_answer) as receiver:
        timeline = Timeline(hookline, frozen)
        base = receiver.url.rsplit("/", 1)[0]
        for i in range(ENDPOINTS):
            assert hookline.api("POST", "/v1/endpoints", {"url": f"{base}/ep{i}", "event_types": [f"t{i}"], "rate_limit_per_second": 100})[0] == 201
        # Faults in every AWS dependency of the pipeline (the test's own SQS client is left alone)
        table_client = aws.dynamodb_table(hookline.env[topology.TABLE.env]).meta.client
        table_client.meta.events.register("before-call.dynamodb.*", faults.aws_hook("dynamodb", "ProvisionedThroughputExceededException"))
        for op in ("SendMessage", "SendMessageBatch"):
            aws.sqs_client().meta.events.register(f"before-call.sqs.{op}", faults.aws_hook("sqs", "ServiceUnavailable"))
        aws.stepfunctions_client().meta.events.register("before-call.sfn.StartExecution", faults.aws_hook("sfn", "ServiceUnavailable"))
        # When a few hundred events are posted, each repeated by its producer until it gets an answer
        accepted: list[str] = []
        for n in range(EVENTS):
            request = {"type": f"t{n % ENDPOINTS}", "data": {"n": n}, "id": f"order-{n}"}
            for _ in range(15):
                status, body = hookline.api("POST", "/v1/events", request)
                if status == 202:
                    accepted.append(body["id"])
                    break
                assert status == 503, body
        # And the pipeline runs with faults for a while, then without them until it settles
        for _ in range(60):
            _pump_like_lambda(hookline, timeline)
            frozen.tick(1)
        faults.active = False

        succeeded: set[str] = set()  # final: a redrive restarts only failed deliveries, so these need no second look

        def settled() -> bool:
            # The operator's redrive when the DLQ holds letters: a drain job (the running one, or a new one once it
            # ended), whose steps the pump runs
            if _dead_letters(hookline):
                hookline.handlers["jobs"]({"kind": "drain_dlq", "rate": 1000}, None)
            _pump_like_lambda(hookline, timeline)
            for e in accepted:
                if e in succeeded:
                    continue
                status = _status(hookline, e)
                if status == "succeeded":
                    succeeded.add(e)
                elif status != "failed":
                    return False
            return True

        for _ in range(1500):
            if settled():
                break
            nxt = [d for d in timeline.due if d > timeline.now()]
            frozen.tick(max(1.0, min(nxt) - timeline.now()) if nxt else 5)
    statuses = Counter(_status(hookline, e) for e in accepted)
    seen = Counter(r.headers["webhook-id"] for r in receiver.requests)
    duplicates = sum(c - 1 for c in answered_ok.values() if c > 1)
    print(
        f"\naccounting: accepted={len(accepted)} delivered={statuses['succeeded']} failed={statuses['failed']} "
        f"pending={statuses['pending']} duplicates_seen={duplicates} faults={dict(faults.fired)}"
    )
    # Then every accepted event ended, none lost, none pending
    assert len(accepted) >= EVENTS * 0.95  # a producer that gives up after 15 answers of 503 has no 202 to hold us to
    assert statuses["succeeded"] + statuses["failed"] == len(accepted), statuses
    # And the faults really fired across the pipeline (which kinds, and how often, depends on the seeded draws)
    fired = {kind.split(".")[0] for kind in faults.fired} | set(faults.fired)
    assert {"dynamodb", "worker.crash_after_2xx"} <= fired, faults.fired
    assert len(fired & {"sqs", "sfn", "receiver.timeout", "receiver.reset"}) >= 3, faults.fired
    assert sum(faults.fired.values()) > 50, faults.fired
    # And the receiver only ever saw webhook-ids of accepted events
    assert set(seen) <= set(accepted)
    assert duplicates == 0 or all(answered_ok[i] >= 1 for i in answered_ok)


def _dead_letters(hookline: Hookline) -> int:
    attrs = boto3.client("sqs").get_queue_attributes(QueueUrl=hookline.env[topology.DELIVERY_DLQ.env], AttributeNames=["ApproximateNumberOfMessages"])
    return int(attrs["Attributes"]["ApproximateNumberOfMessages"])


def _status(hookline: Hookline, event_id: str) -> str:
    _, event = hookline.api("GET", f"/v1/events/{event_id}")
    return str(event["deliveries"][0]["status"])
