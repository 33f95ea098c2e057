"""Retries whose wait in Step Functions never ended, over the fakes: the sweeper re-queues each once its note is overdue,
the delivery then goes out once (a late original included), and nothing else is re-queued.

The worker, its scheduler's notes and the sweeper share one event store and one fake clock: the pipeline plays SQS and
the state machine (a wait it `lose_waits` never puts its task back, as a stopped execution), the sweeper's retry queue
is handed back to the pipeline as SQS would hand it to the retry function.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime

from hookline.core.clock import iso
from hookline.core.models import Delivery, DeliveryTask, Event, webhook_body
from hookline.core.responses import HttpResult
from hookline.core.settings import Settings
from hookline.core.waits import waiting
from hookline.services.sweeper import OverdueRetries
from tests.fakes.contracts import endpoint
from tests.fakes.delivery import DeliveryRig, delivery_rig
from tests.fakes.events import FakeEventStore
from tests.fakes.outside import FakeSender, answering, scripted
from tests.fakes.queues import FakeQueue
from tests.fakes.waits import SHARDS, FakeWaitNotes
from tests.unit.services.pipeline import Pipeline

MARGIN = 900.0
# Every retry waits in Step Functions: after attempt n, between 1,000 x 2^(n-1) and twice that (equal jitter), over SQS's 900 s.
LONG_WAITS = Settings(retry_base_seconds=1000.0, retry_jitter="equal", max_attempts=3)


@dataclass
class Rig:
    rig: DeliveryRig
    pipe: Pipeline
    retry_queue: FakeQueue
    task: DeliveryTask

    def sweeper(self, max_notes: int = 1000) -> OverdueRetries:
        return OverdueRetries(self.rig.scheduler.notes, self.rig.events, self.retry_queue, self.rig.clock, MARGIN, SHARDS, max_notes)

    def sweep(self) -> dict[str, int]:
        """One scheduled run; what it re-queued goes to the pipeline, as the retry queue hands it to the retry function."""
        report = self.sweeper().sweep()
        for task in self.retry_queue.tasks():
            self.pipe.submit(task)
        self.retry_queue.sent.clear()
        return report

    def delivery(self) -> Delivery:
        return self.pipe.delivery(self.task)

    def at(self, moment: float) -> None:
        """The clock at `moment`, or left where it is if it is there already."""
        self.rig.clock.advance(max(0.0, moment - self.rig.clock.timestamp()))


def _rig(*answers: HttpResult) -> Rig:
    rig = delivery_rig(http=FakeSender(scripted(*answers) if answers else answering(500)), settings=LONG_WAITS)
    pipe = Pipeline(rig)
    task = pipe.event(pipe.endpoint(endpoint()), 0)
    return Rig(rig, pipe, FakeQueue(rig.clock), task)


FAIL, OK = HttpResult(500, None, 5, body="no"), HttpResult(200, None, 5, body="ok")


def test_a_retry_whose_wait_never_ends_is_re_queued_after_the_margin_and_delivered_once() -> None:
    r = _rig(FAIL, OK)
    # Given attempt 1 failed and its retry went to wait in Step Functions, noted, and the wait was then stopped
    r.pipe.lose_waits = True
    r.pipe.run(1)
    [lost] = r.pipe.lost
    assert (lost.attempt, lost.fresh) == (2, False) and lost.wait_until > r.rig.clock.timestamp() + 900
    assert r.rig.scheduler.notes.waiting() == [lost]
    # When the sweeper runs short of the margin past its due time, Then it leaves the note alone
    r.at(lost.wait_until + MARGIN - 1)
    assert r.sweep()["overdue_retries_requeued"] == 0 and len(r.rig.scheduler.notes.notes) == 1
    # When it runs once the margin has passed (within the minute the note is due in), Then it re-queues the attempt, once
    r.at(lost.wait_until + MARGIN + 60)
    report = r.sweep()
    assert (report["overdue_retries_requeued"], report["wait_notes"]) == (1, 1)
    assert r.rig.scheduler.notes.notes == {}
    r.rig.clock.advance(60)
    assert r.sweep()["overdue_retries_requeued"] == 0
    # And the retry function delivers it: two attempts, one webhook
    r.pipe.run(1)
    assert (r.delivery().status, r.delivery().attempts_made) == ("succeeded", 2)
    assert [s.webhook_id for s in r.pipe.sent] == [r.task.event_id] * 2
    # And when the stopped wait's task turns up after all (a wait merely late), Then it finds its attempt made and sends nothing
    r.pipe.submit(lost)
    r.pipe.run(1)
    assert r.pipe.reports[-1].outcome == "skipped" and len(r.pipe.sent) == 2


def test_a_late_wait_and_the_re_queued_copy_at_once_send_the_attempt_once() -> None:
    r = _rig(FAIL, OK)
    r.pipe.lose_waits = True
    r.pipe.run(1)
    [lost] = r.pipe.lost
    r.at(lost.wait_until + MARGIN + 60)
    assert r.sweep()["overdue_retries_requeued"] == 1
    # When the state machine's own copy arrives in the same moment as the sweeper's, Then one claims the attempt and the other drops
    r.pipe.submit(lost)
    r.pipe.run(1)
    assert len(r.pipe.sent) == 2 and r.delivery().status == "succeeded"
    assert sorted(rep.outcome for rep in r.pipe.reports[-2:]) == ["skipped", "succeeded"]


def test_a_retry_that_runs_out_of_attempts_after_a_lost_wait_is_dead_lettered() -> None:
    r = _rig()  # the receiver always fails; 3 attempts at most
    r.pipe.lose_waits = True
    for attempt in (2, 3):
        r.pipe.run(1)
        lost = r.pipe.lost[-1]
        assert lost.attempt == attempt
        r.at(lost.wait_until + MARGIN + 60)
        assert r.sweep()["overdue_retries_requeued"] == 1
    r.pipe.run(1)
    # Then every attempt was made, and the task rests on the DLQ, never nowhere
    assert (r.delivery().status, r.delivery().attempts_made, len(r.pipe.sent)) == ("failed", 3, 3)
    [(dead, reason, _)] = r.rig.scheduler.dead
    assert (dead.delivery_id, reason) == (r.task.delivery_id, "max_attempts")


def test_a_wait_that_ends_drops_its_note_on_arrival_and_the_sweeper_finds_nothing() -> None:
    r = _rig(FAIL, OK)
    r.pipe.run(5000)
    assert r.delivery().status == "succeeded"
    assert r.rig.scheduler.waits and r.rig.scheduler.notes.notes == {}
    r.rig.clock.advance(MARGIN + 3600)
    report = r.sweep()
    assert report["wait_minutes"] > 0 and (report["wait_notes"], report["overdue_retries_requeued"]) == (0, 0)


def test_a_task_out_of_its_wait_that_hops_while_its_endpoint_is_paused_is_not_re_queued() -> None:
    r = _rig(FAIL, OK)
    r.pipe.run(1)
    [waits] = r.rig.scheduler.waits
    # Given the endpoint paused well past the retry's due time and margin (a Retry-After): the task arrives and hops through SQS
    r.rig.endpoints.pause(r.task.tenant, r.task.endpoint_id, waits.wait_until + MARGIN + 1800)
    r.pipe.run(waits.wait_until + MARGIN + 120 - r.rig.clock.timestamp())
    assert r.delivery().attempts_made == 1 and any(rep.outcome == "deferred" for rep in r.pipe.reports)
    # When the sweeper runs past the note's margin, Then it finds no note: the task arrived, it is in SQS's hands
    assert r.sweep()["overdue_retries_requeued"] == 0
    # And the delivery goes out once the pause is over, once
    r.pipe.run(3600)
    assert r.delivery().status == "succeeded" and len(r.pipe.sent) == 2


def test_a_note_left_behind_by_a_failed_drop_is_dropped_without_a_copy() -> None:
    r = _rig(FAIL, OK)
    # Given the note could not be dropped when the task arrived (a DynamoDB error): the attempt went ahead regardless
    r.rig.scheduler.notes.faults.fail("close", times=1)
    r.pipe.run(5000)
    assert r.delivery().status == "succeeded" and len(r.rig.scheduler.notes.notes) == 1
    # When the sweeper comes to it, Then it sees the attempt made: it drops the note and queues nothing
    [note] = r.rig.scheduler.notes.waiting()
    r.at(note.wait_until + MARGIN + 60)
    assert (r.sweep()["overdue_retries_requeued"], r.rig.scheduler.notes.notes) == (0, {})


def test_a_delivery_replayed_or_expired_while_its_retry_waited_is_not_re_queued() -> None:
    r = _rig(FAIL, OK)
    r.pipe.lose_waits = True
    r.pipe.run(1)
    [lost] = r.pipe.lost
    # Given the delivery restarted as a new generation meanwhile (its own tasks carry it on)
    now = iso(r.rig.clock())
    assert r.rig.events.restart(r.task.tenant, r.task.event_id, r.task.delivery_id, 0, ("pending",), now) is not None
    r.at(lost.wait_until + MARGIN + 60)
    assert r.sweep()["overdue_retries_requeued"] == 0 and r.rig.scheduler.notes.notes == {}
    # And a note whose event has expired is dropped too
    gone = replace(lost, event_id="evt_expired", delivery_id="dlv_expired")
    r.rig.scheduler.notes.open(gone)
    r.rig.clock.advance(60)
    r.rig.scheduler.notes.last_minute = None  # the sweeper looks an hour back again
    assert r.sweep()["overdue_retries_requeued"] == 0 and r.rig.scheduler.notes.notes == {}


def test_a_backlog_of_overdue_notes_is_worked_off_a_bounded_run_at_a_time_without_losing_one() -> None:
    # Given 25 deliveries whose second attempt waited in Step Functions, due in two minutes, and every wait lost
    events, notes, queue = FakeEventStore(), FakeWaitNotes(), FakeQueue()
    due = datetime(2026, 11, 29, 12, 30, tzinfo=UTC)
    for i in range(25):
        event = Event(f"evt_{i:02d}", "acme", "a.b", iso(due), webhook_body(f"evt_{i:02d}", "a.b", iso(due), {}), "h")
        task = events.add(event, Delivery(f"dlv_{i:02d}", "acme", f"evt_{i:02d}", "ep_1", attempts_made=1, created_at=iso(due)))
        notes.open(waiting(task, int(due.timestamp()) + (0 if i < 15 else 60)))
    clock = _Clock(due.timestamp() + MARGIN + 180)
    sweeper = OverdueRetries(notes, events, queue, clock, MARGIN, SHARDS, max_notes=10)
    # When the sweeper runs three times, ten notes at most each
    # Then each run takes its bound, and the checkpoint moves only past a minute it finished: 12:30 holds 15 notes, 12:31 ten
    runs = []
    for _ in range(3):
        report = sweeper.sweep()
        runs.append((report["overdue_retries_requeued"], notes.checkpoint()))
    assert runs == [(10, "2026-11-29T12:29"), (10, "2026-11-29T12:30"), (5, "2026-11-29T12:32")]
    # And every task was queued exactly once, as a claiming copy of its attempt, and every note is gone
    assert sorted(t.delivery_id for t in queue.tasks()) == [f"dlv_{i:02d}" for i in range(25)]
    assert all(t.attempt == 2 and not t.fresh and not t.wait_until for t in queue.tasks())
    assert notes.notes == {}


class _Clock:
    def __init__(self, epoch: float) -> None:
        self.now = datetime.fromtimestamp(epoch, UTC)

    def __call__(self) -> datetime:
        return self.now
