"""The notes of retries waiting in Step Functions, against moto: the DynamoDB repository keeps the same contract as the
in-memory fake the service tests trust, and the scheduler notes a wait before it starts it and drops it on arrival."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from hookline.adapters.dynamo.waits import RetryWaitRepository
from hookline.adapters.queues import TaskScheduler
from hookline.core.errors import DependencyFailed
from hookline.core.models import DeliveryTask
from hookline.core.sweeps import shard_of
from hookline.core.waits import waiting
from hookline.wiring import topology
from local.resources import create_table
from tests.fakes.waits import SHARDS, FakeWaitNotes

DUE = int(datetime(2026, 11, 29, 12, 30, 10, tzinfo=UTC).timestamp())
MINUTE = "2026-11-29T12:30"


@pytest.fixture(params=["fake", "dynamodb"])
def notes(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "fake":
        yield FakeWaitNotes()
        return
    request.getfixturevalue("aws")
    name = create_table(boto3.client("dynamodb"), topology.TABLE, "waits")
    yield RetryWaitRepository(boto3.resource("dynamodb").Table(name))


def _task(n: int, due: int = DUE, **changes: Any) -> DeliveryTask:
    return waiting(DeliveryTask("acme", f"evt_{n}", f"dlv_{n:03d}", "ep_1", attempt=2, **changes), due)


def _same_shard(count: int, shard: int = 0) -> list[DeliveryTask]:
    """Tasks whose notes share one partition (due minute and shard)."""
    return [t for t in (_task(n) for n in range(200)) if shard_of(t.delivery_id, SHARDS) == shard][:count]


def test_a_note_reads_back_as_the_waiting_task_under_its_due_minute_and_shard(notes: Any) -> None:
    task = _task(1, generation=2, version="2025-06-01", replay_id="rpl_1", trigger="manual")
    notes.open(task)
    shard = shard_of(task.delivery_id, SHARDS)
    [back], cursor = notes.due_page(MINUTE, shard, 100, None)
    assert cursor is None
    assert (back, back.wait_until, back.fresh, back.version, back.replay_id, back.trigger) == (task, DUE, False, "2025-06-01", "rpl_1", "manual")
    # And no other minute or shard holds it
    assert notes.due_page("2026-11-29T12:31", shard, 100, None) == ([], None)
    assert notes.due_page(MINUTE, (shard + 1) % SHARDS, 100, None) == ([], None)


def test_a_minute_is_paged_and_its_notes_dropped_one_by_one(notes: Any) -> None:
    tasks = _same_shard(5)
    for t in tasks:
        notes.open(t)
    # A second wait of one attempt in the same minute is the same note
    notes.open(waiting(tasks[0], DUE + 20))
    pages, cursor = [], None
    while True:
        page, cursor = notes.due_page(MINUTE, 0, 2, cursor)
        pages.append([t.delivery_id for t in page])
        if cursor is None:
            break
    assert [len(p) for p in pages] == [2, 2, 1]
    assert sorted(d for p in pages for d in p) == sorted(t.delivery_id for t in tasks)
    # Dropping some (one of them twice, one never noted, one not waiting at all) leaves exactly the others
    notes.close([tasks[0], tasks[1], tasks[1], _task(999), replace_wait(tasks[2], 0)])
    left, _ = notes.due_page(MINUTE, 0, 100, None)
    assert sorted(t.delivery_id for t in left) == sorted(t.delivery_id for t in tasks[2:])
    notes.close([])


def replace_wait(task: DeliveryTask, wait_until: int) -> DeliveryTask:
    return DeliveryTask.from_message(json.dumps({**json.loads(task.to_message()), "wait_until": wait_until}))


def test_the_checkpoint_starts_empty_and_keeps_the_last_minute_saved(notes: Any) -> None:
    assert notes.checkpoint() is None
    notes.save_checkpoint(MINUTE)
    notes.save_checkpoint("2026-11-29T12:31")
    assert notes.checkpoint() == "2026-11-29T12:31"


# -- the scheduler: note, then wait; drop on arrival ------------------------------------------------------------------


@pytest.fixture
def scheduler(aws: None) -> tuple[TaskScheduler, RetryWaitRepository, Any]:
    sqs, sfn = boto3.client("sqs"), boto3.client("stepfunctions")
    retry = sqs.create_queue(QueueName="retry")["QueueUrl"]
    dlq = sqs.create_queue(QueueName="dlq")["QueueUrl"]
    machine = sfn.create_state_machine(
        name="retry-wait", definition=json.dumps(topology.RETRY_WAIT.definition(retry, dlq)), roleArn="arn:aws:iam::123456789012:role/x"
    )["stateMachineArn"]
    repo = RetryWaitRepository(boto3.resource("dynamodb").Table(create_table(boto3.client("dynamodb"), topology.TABLE, "sched")))
    return TaskScheduler(sqs, sfn, retry, dlq, machine, 900, waits=repo), repo, sfn


NOW = datetime(2026, 11, 29, 12, 0, 0, 250_000, tzinfo=UTC)


def _noted(repo: RetryWaitRepository, task: DeliveryTask) -> list[DeliveryTask]:
    return repo.due_page(MINUTE, shard_of(task.delivery_id, SHARDS), 100, None)[0]


def test_a_long_retry_is_noted_then_waits_as_a_claiming_task_and_its_arrival_drops_the_note(scheduler: tuple[TaskScheduler, RetryWaitRepository, Any]) -> None:
    tasks, repo, sfn = scheduler
    task = DeliveryTask("acme", "evt_1", "dlv_001", "ep_1", attempt=2, fresh=True)
    # When a retry 1,810 s away is scheduled
    assert tasks.schedule(task, 1809.5, NOW) == "stepfunctions"
    # Then it waits in Step Functions as a claiming task carrying its due second, and the same task is noted under that minute
    [execution] = sfn.list_executions(stateMachineArn=tasks._machine)["executions"]
    waiting_input = json.loads(sfn.describe_execution(executionArn=execution["executionArn"])["input"])
    waits = DeliveryTask.from_message(waiting_input["task"])
    assert (execution["name"], waits.fresh, waits.wait_until, waiting_input["until"]) == ("dlv_001-g0-a2", False, DUE, "2026-11-29T12:30:10.000Z")
    assert _noted(repo, task) == [task]
    # When a batch receives it (with others that did not wait), Then its note is gone
    tasks.arrived([waits, DeliveryTask("acme", "evt_2", "dlv_002", "ep_1")])
    assert _noted(repo, task) == []
    # And a short retry goes through SQS, noted nowhere and carrying no due second
    assert tasks.schedule(waits, 0, NOW) == "sqs"
    [message] = boto3.client("sqs").receive_message(QueueUrl=tasks._retry_url)["Messages"]
    assert DeliveryTask.from_message(message["Body"]).wait_until == 0


def test_a_wait_that_cannot_start_is_noted_all_the_same(scheduler: tuple[TaskScheduler, RetryWaitRepository, Any]) -> None:
    tasks, repo, sfn = scheduler
    task = DeliveryTask("acme", "evt_1", "dlv_001", "ep_1", attempt=2)

    def refuse(**_: Any) -> None:
        raise ClientError({"Error": {"Code": "ThrottlingException", "Message": "slow down"}, "ResponseMetadata": {"HTTPStatusCode": 400}}, "StartExecution")

    sfn.meta.events.register("before-call.states.StartExecution", refuse)
    with pytest.raises(DependencyFailed):
        tasks.schedule(task, 1809.5, NOW)
    # The caller's batch fails and SQS runs the attempt again; should it never, the note is there for the sweeper
    assert _noted(repo, task) == [task]


def test_two_deferrals_of_one_attempt_each_wait(scheduler: tuple[TaskScheduler, RetryWaitRepository, Any]) -> None:
    tasks, _, sfn = scheduler
    task = DeliveryTask("acme", "evt_1", "dlv_001", "ep_1", attempt=2)
    # A retry's wait, then (the endpoint paused for long by a Retry-After) the same attempt deferred twice beyond two hours
    tasks.schedule(task, 1809.5, NOW)
    tasks.schedule(task, 3 * 3600, NOW, deferred=True)
    tasks.schedule(task, 4 * 3600, NOW, deferred=True)
    names = sorted(e["name"] for e in sfn.list_executions(stateMachineArn=tasks._machine)["executions"])
    # Then each is an execution of its own: a deferral's name carries its due second, so it never collides with a closed wait
    start = math.ceil(NOW.timestamp())  # Step Functions waits to the whole second: rounded up
    assert names == sorted(["dlv_001-g0-a2", f"dlv_001-g0-a2-d{start + 3 * 3600}", f"dlv_001-g0-a2-d{start + 4 * 3600}"])
