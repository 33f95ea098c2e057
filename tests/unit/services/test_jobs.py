"""The bulk-job mechanism over the fakes: start, steps, progress, resume, and what a step that fails or repeats does."""

from __future__ import annotations

import json

import pytest

from hookline.core.errors import NotFound
from hookline.core.jobs import Job, StepResult
from hookline.services.jobs import JobRunner, JobStepEarly
from tests.fakes.clock import FakeClock
from tests.fakes.jobs import FakeJobStore
from tests.fakes.queues import FakeQueue


class Pages:
    """A kind over a list: `size` items a step; it records each page it was asked for."""

    def __init__(self, items: int, size: int = 10) -> None:
        self.items, self.size, self.asked = items, size, []

    def step(self, job: Job, now: object) -> StepResult:
        start = int(job.cursor or 0)
        self.asked.append(start)
        end = min(self.items, start + self.size)
        return StepResult(counts={"done": end - start}, cursor=str(end) if end < self.items else None, next_in=3)


def _runner(kind: Pages) -> tuple[JobRunner, FakeJobStore, FakeQueue]:
    clock = FakeClock()
    store, queue = FakeJobStore(), FakeQueue(clock)
    return JobRunner(store, queue, {"pages": kind}, clock), store, queue


def _run(runner: JobRunner, queue: FakeQueue, max_steps: int = 100) -> int:
    """The job queue as SQS hands it out: a step that fails because it came early is handed out again later."""
    ran = 0
    while queue.sent and ran < max_steps:
        sent = queue.sent.pop(0)
        message = json.loads(sent.body)
        try:
            runner.step(message["tenant"], message["job_id"], message.get("step"))
        except JobStepEarly:
            queue.sent.append(sent)
        ran += 1
    return ran


def test_a_job_pages_through_its_work_a_step_a_message_and_shows_its_progress() -> None:
    kind = Pages(25)
    runner, _, queue = _runner(kind)
    job = runner.start("acme", "pages", {"what": "items"})
    assert runner.describe("acme", job.id).status == "running" and len(queue.sent) == 1
    assert _run(runner, queue) == 3
    assert kind.asked == [0, 10, 20]
    shown = runner.describe("acme", job.id)
    assert (shown.status, shown.steps, shown.counts, runner.find("acme", job.id).params["what"]) == ("done", 3, {"done": 25}, "items")


def test_the_next_step_waits_as_its_kind_asks() -> None:
    runner, _, queue = _runner(Pages(25))
    runner.start("acme", "pages", {})
    first = json.loads(queue.sent.pop(0).body)
    runner.step("acme", first["job_id"], first["step"])
    assert [s.delay for s in queue.sent] == [3]


def test_a_duplicate_step_message_takes_no_page_twice() -> None:
    kind = Pages(15)
    runner, _, queue = _runner(kind)
    job = runner.start("acme", "pages", {})
    queue.sent.append(queue.sent[0])  # SQS hands the first step out twice
    _run(runner, queue)
    assert kind.asked == [0, 10] and runner.describe("acme", job.id).counts == {"done": 15}


def test_two_runs_of_one_step_at_once_count_its_page_once() -> None:
    kind = Pages(15)
    runner, store, queue = _runner(kind)
    job = runner.start("acme", "pages", {})
    read = store.get("acme", job.id)
    # Given a twin of the first step that read the job at step 0 and finished its page meanwhile
    assert store.advance(read, read.advanced("10", {"done": 10}, "t"))
    original_get = store.get
    store.get = lambda tenant, job_id: read  # type: ignore[method-assign]  # this run still sees step 0
    runner.step("acme", job.id)
    store.get = original_get  # type: ignore[method-assign]
    # Then this run's advance lost: its page is not counted again, and of the two step-1 messages the later one ends
    assert store.get("acme", job.id).counts == {"done": 10}
    _run(runner, queue)
    assert kind.asked == [0, 10] and runner.describe("acme", job.id).counts == {"done": 15}


def test_a_step_that_fails_changes_nothing_and_its_redelivery_finishes() -> None:
    kind = Pages(15)
    runner, store, queue = _runner(kind)
    job = runner.start("acme", "pages", {})
    store.faults.fail("advance", times=1)
    message = queue.sent[0]
    with pytest.raises(Exception, match="advance"):
        _run(runner, queue)
    assert store.get("acme", job.id).step == 0  # its next step is queued already, and comes early
    queue.sent.append(message)  # SQS delivers the failed one again
    _run(runner, queue)
    assert runner.describe("acme", job.id).counts == {"done": 15} and runner.describe("acme", job.id).status == "done"


def test_a_step_whose_next_cannot_be_queued_fails_unadvanced_and_its_redelivery_finishes() -> None:
    kind = Pages(25)
    runner, store, queue = _runner(kind)
    job = runner.start("acme", "pages", {})
    first = queue.sent[0]
    queue.faults.fail("enqueue", times=1)  # the next step's message cannot be queued: the step fails before its advance
    with pytest.raises(Exception, match=r"ServiceUnavailable|enqueue"):
        _run(runner, queue)
    assert store.get("acme", job.id).step == 0  # not advanced, so the redelivered step takes the page again
    queue.sent.append(first)  # SQS hands the failed step out again
    _run(runner, queue)
    assert kind.asked[-3:] == [0, 10, 20] and runner.describe("acme", job.id).counts == {"done": 25}


def test_a_resumed_job_runs_one_chain_though_the_old_one_was_alive() -> None:
    kind = Pages(60)
    runner, _, queue = _runner(kind)
    job = runner.start("acme", "pages", {})
    runner.resume("acme", job.id)  # the old chain's message is still there
    assert len(queue.sent) == 2
    _run(runner, queue)
    assert kind.asked == [0, 10, 20, 30, 40, 50]  # each page once, and never two chains at once
    assert runner.describe("acme", job.id).counts == {"done": 60}


def test_resume_queues_a_running_job_again_and_leaves_a_finished_one() -> None:
    runner, _, queue = _runner(Pages(15))
    job = runner.start("acme", "pages", {})
    queue.sent.clear()  # its chain lost (the message dead-lettered)
    assert runner.resume("acme", job.id).status == "running" and len(queue.sent) == 1
    _run(runner, queue)
    assert runner.resume("acme", job.id).status == "done" and queue.sent == []
    with pytest.raises(NotFound):
        runner.resume("acme", "job_nope")
    with pytest.raises(NotFound):
        runner.describe("other", job.id)  # another tenant's


def test_a_job_of_a_kind_this_release_does_not_know_is_left_for_the_release_that_does_then_cancelled() -> None:
    runner, store, queue = _runner(Pages(1))
    job = runner.start("acme", "mystery", {})
    # Its step, handed to this release mid-deploy, is consumed without failing (nothing reaches the job queue's DLQ),
    # and the job is left as it is
    queue.sent.clear()
    runner.step("acme", job.id, 0)
    assert store.get("acme", job.id) == job
    # This release's sweeper leaves it for the release that runs it: no step queued, though it has not moved for 30 min
    runner.clock.advance(1800)  # type: ignore[attr-defined]
    assert runner.resume_stalled() == 0 and queue.sent == [] and store.get("acme", job.id) == job
    # An hour on, the release that runs it is gone (rolled back): the job is cancelled, not retried forever
    runner.clock.advance(1800)  # type: ignore[attr-defined]
    runner.resume_stalled()
    assert (store.get("acme", job.id).status, store.running(), queue.sent) == ("cancelled", [], [])


def test_a_derived_id_starts_one_job_however_often_asked() -> None:
    runner, store, queue = _runner(Pages(30))
    first = runner.start("acme", "pages", {}, job_id="job_same")
    again = runner.start("acme", "pages", {}, job_id="job_same")
    assert first.id == again.id == "job_same" and len(store.items) == 1
    _run(runner, queue)
    assert runner.start("acme", "pages", {}, job_id="job_same").status == "done" and queue.sent == []
