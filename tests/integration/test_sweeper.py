"""The sweeper through the real handlers against moto: a stored event whose queueing failed reaches its receiver once."""

from __future__ import annotations

import json

import pytest
from freezegun import freeze_time
from standardwebhooks.webhooks import Webhook

from hookline.adapters import aws
from hookline.adapters.dynamo import keys
from hookline.core.errors import DependencyFailed
from hookline.wiring import container, topology
from tests.conftest import Hookline
from tests.support.events import sqs_event
from tests.support.receiver import running_receiver


def test_a_stored_event_whose_queueing_failed_is_swept_and_delivered_once(hookline: Hookline) -> None:
    with freeze_time("2026-12-01T10:00:00Z", tick=True) as clock, running_receiver() as receiver:
        ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})[1]
        # Given an event (no id) stored while SQS refused its task: the producer gets a 503 and never repeats it
        queue = container.event_service()._queue
        real_send = queue.send

        def refusing(*args: object, **kwargs: object) -> None:
            queue.send = real_send  # type: ignore[method-assign]
            raise DependencyFailed("SQS said no", cause="ServiceUnavailable")

        queue.send = refusing  # type: ignore[method-assign]
        status, refused = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"n": 1}})
        assert (status, refused["error"]["code"]) == (503, "unavailable")
        assert hookline.queued() == []
        table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
        [stored] = [i for i in table.scan()["Items"] if i[keys.SK] == keys.EVENT_SK]
        # When the scheduled sweep runs before the grace period, Then it leaves the request alone
        assert hookline.handlers["replay"]({"kind": "sweep"}, None)["unqueued_events"] == 0
        # When it runs after the grace period, Then it queues the delivery, once
        clock.tick(container.get_settings().sweep_grace_seconds + 60)
        report = hookline.handlers["replay"]({"kind": "sweep"}, None)
        assert (report["unqueued_events"], report["queued_deliveries"]) == (1, 1)
        assert hookline.handlers["replay"]({"kind": "sweep"}, None)["unqueued_events"] == 0
        assert hookline.drain() == 1
        # And the receiver got the event once, signed
        [got] = receiver.requests
        assert Webhook(ep["secret"]).verify(got.body, got.headers)["id"] == stored["id"]
        assert json.loads(got.body)["data"] == {"n": 1}
        _, event = hookline.api("GET", f"/v1/events/{stored['id']}")
        assert event["deliveries"][0]["status"] == "succeeded"


def test_the_replay_function_runs_its_jobs_and_the_sweep_with_only_its_own_resources(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    """As Lambda runs it: the replay function's environment names only the resources it is granted (topology), so a
    job or the sweep that queues first attempts finds the delivery queue there, or fails here as it would in the cloud."""
    with running_receiver() as receiver:
        hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        assert hookline.api("POST", "/v1/events/broadcast", {"type": "a.b", "data": {}})[0] == 202
        own = {spec.env for spec in topology.REPLAY.env_resources}
        for spec in (*topology.QUEUES, *topology.TABLES, *topology.STATE_MACHINES, *topology.TOPICS):
            if spec.env not in own:
                monkeypatch.delenv(spec.env, raising=False)
        container.reset()
        messages = hookline.queued(topology.REPLAY_QUEUE)
        result = hookline.handlers["replay"](sqs_event(messages, hookline.queue_arn(topology.REPLAY_QUEUE)), None)
        assert result == {"batchItemFailures": []}
        assert hookline.handlers["replay"]({"kind": "sweep"}, None)["unqueued_events"] == 0
        # The fan-out's first attempt is on the delivery queue
        assert len(hookline.queued()) == 1


def test_the_sweep_resumes_a_job_whose_step_messages_were_lost(hookline: Hookline) -> None:
    with freeze_time("2026-12-01T10:00:00Z", tick=True) as clock:
        assert hookline.api("PUT", "/v1/customers/gone", {"name": "Gone"})[0] == 201
        for i in range(3):
            hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/{i}", "customer": "gone"})
        job = hookline.api("DELETE", "/v1/customers/gone")[1]["job"]
        assert len(hookline.queued(topology.REPLAY_QUEUE)) == 1  # its first step, taken off the queue and lost
        clock.tick(21 * 60)
        assert hookline.handlers["replay"]({"kind": "sweep"}, None)["stalled_jobs_resumed"] == 1
        hookline.drain(topology.REPLAY_QUEUE)
        shown = hookline.api("GET", f"/v1/jobs/{job['id']}")[1]
        assert (shown["status"], shown["counts"]) == ("done", {"endpoints_deleted": 3})
        assert hookline.handlers["replay"]({"kind": "sweep"}, None)["stalled_jobs_resumed"] == 0
        table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
        assert [i for i in table.scan()["Items"] if i[keys.PK] == keys.RUNNING_JOBS] == []
