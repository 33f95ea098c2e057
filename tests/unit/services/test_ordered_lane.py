"""The ordered lane's rule over fakes (hookline.services.delivery.ordered): one endpoint's records in order, up to the
first that must wait; that one is held for its wait and the ones behind it let go, all of them kept on the queue; a
fault holds the same way; poison is set aside and holds nothing; the line head names the delivery that waits."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import pytest

from hookline.core.models import DeliveryTask, LineHead
from hookline.core.reports import HELD, DeliveryReport
from hookline.services.delivery.ordered import LineRecord, OrderedLane
from hookline.services.delivery.worker import DeliveryWorker

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def task(n: int) -> DeliveryTask:
    return DeliveryTask("acme", f"evt_{n}", f"dlv_{n}", "ep_1", ordered=True)


def record(n: int, received_before: bool = False, body: str | None = None) -> LineRecord:
    return LineRecord(f"m{n}", f"rh{n}", task(n).to_message() if body is None else body, received_before)


@dataclass
class Worker:
    """Answers each delivery as scripted by its event id: a report's outcome and path; `boom` raises."""

    script: dict[str, tuple[str, str]] = field(default_factory=dict)
    boom: set[str] = field(default_factory=set)
    delivered: list[str] = field(default_factory=list)
    set_aside_bodies: list[str] = field(default_factory=list)

    def resolve_ordered(self, received: DeliveryTask, received_before: bool) -> DeliveryTask | None:
        if received.event_id in self.boom:
            raise RuntimeError("DynamoDB is down")
        return received

    def deliver(self, t: DeliveryTask, plan: Any = None) -> DeliveryReport:
        self.delivered.append(t.event_id)
        outcome, path = self.script.get(t.event_id, ("succeeded", ""))
        return DeliveryReport(t, outcome, 503 if outcome == "retrying" else 200, None, 3, "503 is retryable", 7.5 if path == HELD else None, path)

    def set_aside(self, body: str, reason: str) -> None:
        self.set_aside_bodies.append(body)


@dataclass
class Holds:
    held: list[tuple[str, float]] = field(default_factory=list)
    let_go_handles: list[str] = field(default_factory=list)

    def hold(self, receipt_handle: str, seconds: float) -> None:
        self.held.append((receipt_handle, seconds))

    def let_go(self, receipt_handles: list[str]) -> None:
        self.let_go_handles.extend(receipt_handles)


@dataclass
class Heads:
    heads: dict[str, LineHead] = field(default_factory=dict)
    moved: list[str] = field(default_factory=list)

    def held(self, head: LineHead, expires_at: int) -> None:
        self.heads[head.endpoint_id] = head

    def moved_on(self, tenant: str, endpoint_id: str, delivery_id: str) -> None:
        self.moved.append(delivery_id)
        if endpoint_id in self.heads and self.heads[endpoint_id].delivery_id == delivery_id:
            del self.heads[endpoint_id]

    def head(self, tenant: str, endpoint_id: str) -> LineHead | None:
        return self.heads.get(endpoint_id)


def lane(worker: Worker, holds: Holds, heads: Heads) -> OrderedLane:
    return OrderedLane(cast(DeliveryWorker, worker), holds, heads, lambda: NOW, fault_hold_seconds=30, retention_days=30)


def test_the_first_delivery_that_must_wait_holds_itself_and_keeps_the_ones_behind_it() -> None:
    worker, holds, heads = Worker(script={"evt_2": ("retrying", HELD)}), Holds(), Heads()
    out = lane(worker, holds, heads).run([record(1), record(2), record(3), record(4)])
    # 1 went, 2 failed and waits: 3 and 4 are never sent, all three stay on the queue, in order
    assert worker.delivered == ["evt_1", "evt_2"]
    assert out.kept == ["m2", "m3", "m4"]
    # 2 is held for its retry's wait, and the ones behind it let go at once, to come out after it
    assert holds.held == [("rh2", 7.5)]
    assert holds.let_go_handles == ["rh3", "rh4"]
    # And the endpoint's line head names 2, its next attempt and when
    head = heads.head("acme", "ep_1")
    assert head is not None
    assert (head.delivery_id, head.attempt, head.outcome, head.status_code, head.next_at) == ("dlv_2", 2, "retrying", 503, "2026-12-03T12:00:07.500Z")


def test_a_line_that_flows_keeps_nothing_and_writes_no_head() -> None:
    worker, holds, heads = Worker(), Holds(), Heads()
    out = lane(worker, holds, heads).run([record(1), record(2)])
    assert (worker.delivered, out.kept, holds.held, heads.heads, heads.moved) == (["evt_1", "evt_2"], [], [], {}, [])


def test_the_held_delivery_that_ends_drops_the_head_and_lets_the_next_go() -> None:
    worker, holds, heads = Worker(script={"evt_2": ("retrying", HELD)}), Holds(), Heads()
    lane(worker, holds, heads).run([record(2), record(3)])
    # When 2 comes back (received before) and succeeds, the head goes and 3 follows in the same batch
    worker.script.clear()
    out = lane(worker, holds, heads).run([record(2, received_before=True), record(3, received_before=True)])
    assert worker.delivered[-2:] == ["evt_2", "evt_3"]
    assert (out.kept, heads.heads) == ([], {})


def test_a_fault_holds_the_record_a_short_while_and_nothing_behind_it_overtakes_it() -> None:
    worker, holds, heads = Worker(boom={"evt_2"}), Holds(), Heads()
    out = lane(worker, holds, heads).run([record(1), record(2), record(3)])
    assert worker.delivered == ["evt_1"]
    assert out.kept == ["m2", "m3"]
    assert list(out.failed) == ["m2"]
    assert (holds.held, holds.let_go_handles) == ([("rh2", 30)], ["rh3"])


def test_poison_is_set_aside_and_holds_nothing() -> None:
    worker, holds, heads = Worker(), Holds(), Heads()
    out = lane(worker, holds, heads).run([record(1, body="not a task"), record(2)])
    assert worker.set_aside_bodies == ["not a task"]
    assert worker.delivered == ["evt_2"]
    assert (out.kept, out.poison) == ([], [("m1", "MalformedTask")])


def test_the_ordered_lane_refuses_a_hop_rather_than_dropping_the_tasks() -> None:
    # Its waits hold the message (schedule answers HELD): a hop asked of it is a wiring fault, never a silent drop
    from hookline.adapters.queues import OrderedScheduler

    with pytest.raises(RuntimeError, match="nothing hops on it"):
        OrderedScheduler(sqs=object(), dead_letter_queue_url="").hop([], [])
