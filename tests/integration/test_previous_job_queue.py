"""The previous release's job queue (named `replay`) is drained into the jobs queue by the jobs function's sweep, with
nothing lost: a message leaves the old queue only after its send to the jobs queue succeeded (issue 51)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookline.wiring import container, topology
from tests.conftest import Hookline


class SendFailsOnce:
    """The jobs queue, whose send of `body` fails the first time it is tried."""

    def __init__(self, real: Any, body: str):
        self._real = real
        self._body = body
        self.failed = 0

    def enqueue_bodies(self, bodies: list[str], delays: list[int] | None = None) -> None:
        if self._body in bodies and not self.failed:
            self.failed += 1
            raise RuntimeError("SQS refused the send")
        self._real.enqueue_bodies(bodies, delays)


class Recorded:
    """The previous release's job queue, remembering the records it handed out."""

    def __init__(self, real: Any):
        self._real = real
        self.records: list[dict[str, Any]] = []
        self.waits: list[int] = []

    def receive(self, max_messages: int, wait_seconds: int) -> list[dict[str, Any]]:
        self.waits.append(wait_seconds)
        got: list[dict[str, Any]] = self._real.receive(max_messages, wait_seconds)
        self.records.extend(got)
        return got

    def delete(self, receipt_handles: list[str]) -> None:
        self._real.delete(receipt_handles)


def _depth(hookline: Hookline, queue: topology.QueueSpec) -> tuple[str, str, str]:
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"]
    attributes = hookline.sqs.get_queue_attributes(QueueUrl=hookline.env[queue.env], AttributeNames=names)["Attributes"]
    return (attributes[names[0]], attributes[names[1]], attributes[names[2]])


def test_the_previous_job_queue_is_moved_to_the_jobs_queue_with_nothing_lost(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a customer's deletion whose first step the previous release queued on its job queue, the one it named replay
    assert hookline.api("PUT", "/v1/customers/gone", {"name": "Gone"})[0] == 201
    for i in range(2):
        hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/{i}", "customer": "gone"})
    job = hookline.api("DELETE", "/v1/customers/gone")[1]["job"]
    [step] = hookline.queued(topology.JOBS_QUEUE)
    old_url = hookline.env[topology.PREVIOUS_JOB_QUEUE.env]
    assert old_url.endswith("-replay")
    bodies = [step["Body"], json.dumps({"kind": "unknown", "n": 1}), json.dumps({"kind": "unknown", "n": 2})]
    for body in bodies:
        hookline.sqs.send_message(QueueUrl=old_url, MessageBody=body)
    # And a jobs queue whose send of one of them fails once
    flaky = SendFailsOnce(container.jobs_queue(), bodies[1])
    monkeypatch.setattr(container, "jobs_queue", lambda: flaky)
    old = Recorded(container.previous_job_messages())
    monkeypatch.setattr(container, "previous_job_messages", lambda: old)
    # When the schedule invokes the jobs function's sweep
    report = hookline.handlers["jobs"]({"kind": "sweep"}, None)
    # Then it moved the two it could send, and the third stays in the old queue (in flight until its visibility timeout)
    assert (report["previous_jobs_moved"], report["previous_jobs_failed"], flaky.failed) == (2, 1, 1)
    assert _depth(hookline, topology.PREVIOUS_JOB_QUEUE) == ("0", "1", "0")
    moved = [m["Body"] for m in hookline.queued(topology.JOBS_QUEUE)]
    assert sorted(moved) == sorted([bodies[0], bodies[2]])
    # When SQS hands it out again once the old queue's visibility timeout ends (ended here at once, as SQS ends it
    # after VisibilityTimeout seconds), and the next sweep runs
    [unsent] = [r for r in old.records if r["body"] == bodies[1]]
    hookline.sqs.change_message_visibility(QueueUrl=old_url, ReceiptHandle=unsent["receiptHandle"], VisibilityTimeout=0)
    report = hookline.handlers["jobs"]({"kind": "sweep"}, None)
    # Then it is moved too, and the old queue is empty: every message reached the jobs queue, none twice
    assert (report["previous_jobs_moved"], report["previous_jobs_failed"]) == (1, 0)
    assert _depth(hookline, topology.PREVIOUS_JOB_QUEUE) == ("0", "0", "0")
    assert [m["Body"] for m in hookline.queued(topology.JOBS_QUEUE)] == [bodies[1]]
    # And the moved step runs on the jobs queue as it would have on the old one: the customer's endpoints are deleted
    hookline.sqs.send_message(QueueUrl=hookline.env[topology.JOBS_QUEUE.env], MessageBody=bodies[0])
    hookline.drain(topology.JOBS_QUEUE)
    shown = hookline.api("GET", f"/v1/jobs/{job['id']}")[1]
    assert (shown["status"], shown["counts"]) == ("done", {"endpoints_deleted": 2})


def test_an_empty_previous_job_queue_is_left_alone_at_the_cost_of_one_short_poll(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given nothing on the previous release's job queue
    old = Recorded(container.previous_job_messages())
    monkeypatch.setattr(container, "previous_job_messages", lambda: old)
    # When the sweep runs
    report = hookline.handlers["jobs"]({"kind": "sweep"}, None)
    # Then it moves nothing and the queue stays empty
    assert (report["previous_jobs_moved"], report["previous_jobs_failed"]) == (0, 0)
    assert _depth(hookline, topology.PREVIOUS_JOB_QUEUE) == ("0", "0", "0")
    # And it asked once, without waiting: a long poll would hold every minute's sweep for nothing (and, under a frozen
    # clock, moto's wait for a message would never end)
    assert old.waits == [0]
