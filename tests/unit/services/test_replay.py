"""ReplayService and its job kind over in-memory fakes, on a fake clock: the window's deliveries are restarted once
each and queued at the endpoint's rate (the SQS delays, read off the fake queue), page after page, by the bulk-job
mechanism; progress is reported; a crash anywhere in a page repeats none of it; the previous release's replays are
taken over."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from itertools import pairwise

import pytest

from hookline.core import ids
from hookline.core.contract.jobs import JobSummary, ReplayRequest
from hookline.core.errors import DependencyFailed, NotFound, ValidationFailed
from hookline.core.jobs import REPLAY_WINDOW
from hookline.core.models import DeliveryTask, Endpoint
from hookline.core.replay import ReplayWindow
from hookline.services.replay import replay_job_id
from tests.fakes.contracts import delivery
from tests.unit.services.conftest import World

WINDOW_BODY = {"since": "2026-11-29T10:00:00Z", "until": "2026-11-29T11:00:00Z"}
WINDOW = ReplayRequest.model_validate(WINDOW_BODY)
PAUSED = ReplayRequest.model_validate({**WINDOW_BODY, "status": "paused"})


def _failed(world: World, ep: Endpoint, count: int, minute: int = 0, status: str = "failed") -> list[str]:
    """`count` deliveries to `ep` that ended `status`, created a second apart from 10:<minute>."""
    made, first = [], len(world.events.rows)
    for i in range(count):
        created = (datetime.fromisoformat("2026-11-29T10:00:00+00:00") + timedelta(minutes=minute, seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        made.append(delivery(f"dlv_{first + i:05d}", f"evt_{first + i:05d}", ep.id, status=status, attempts_made=12, created_at=created))
    world.events.create_deliveries(made, 0)
    return [d.id for d in made]


def test_a_window_replay_restarts_each_failed_delivery_once_paced_at_the_endpoints_rate_across_pages(world: World) -> None:
    # Given an endpoint limited to one request every ten seconds, and 130 failed deliveries in the window
    ep = world.add_endpoint(rate_limit_per_second=0.1)
    failed = _failed(world, ep, 130)
    # When a replay of the window is started and its job's steps run as they come due
    started = world.clock()
    replay = world.replay_service().start("acme", ep.id, WINDOW)
    assert replay.job == JobSummary(id=replay_job_id("acme", replay.id), status="running")
    steps = world.run_jobs_on_clock(3 * 3600)
    # Then it took three pages (ten minutes' worth each, at 0.1/s: 60 tasks), each planned, then applied a second
    # later, and each next page planned once the last had drained at the rate
    assert [s.delay for s in steps] == [0, 1, 600, 1, 600, 1]
    # And every delivery was restarted once, as a manual attempt 13 in generation 1 tagged with the replay
    tasks = world.retry_queue.tasks()
    assert sorted(t.delivery_id for t in tasks) == sorted(failed)
    assert {(t.attempt, t.generation, t.trigger, t.replay_id) for t in tasks} == {(13, 1, "manual", replay.id)}
    assert {(d.status, d.generation, d.replay_id) for d in world.events.all_deliveries()} == {("pending", 1, replay.id)}
    # And the tasks become visible one after the other, never closer than ten seconds, across page boundaries too
    visible = sorted((s.visible_at - started).total_seconds() for s in world.retry_queue.sent if s.visible_at)
    assert len(visible) == 130 and min(b - a for a, b in pairwise(visible)) >= 10.0
    assert visible[-1] - visible[0] <= 129 * 10 + 2 * 2  # two page boundaries, a plan and an apply step each
    # And the replay reports what it matched and queued; its job is done
    shown = world.replay_service().describe("acme", replay.id)
    assert (shown.matched, shown.queued, shown.delivered, shown.failed, shown.status) == (130, 130, 0, 0, "running")
    job = world.job_runner().describe("acme", replay.job.id)
    assert (job.kind, job.status, job.counts, job.replay_id) == (REPLAY_WINDOW, "done", {"matched": 130, "queued": 130}, replay.id)


@pytest.mark.parametrize("rate", [2.0, 0.5, 3.0])
def test_one_pages_delays_keep_every_second_within_the_rate(world: World, rate: float) -> None:
    ep = world.add_endpoint(rate_limit_per_second=rate)
    _failed(world, ep, 120)
    world.replay_service().start("acme", ep.id, WINDOW)
    steps = world.run_jobs_on_clock(2)  # the first page: planned, then applied
    delays = [s.delay for s in world.retry_queue.sent]
    # A page is at most 100 tasks, their delays never decrease, and no second holds more than the rate allows
    assert len(delays) == 100
    assert all(a <= b for a, b in pairwise(delays))
    per_second = [delays.count(second) for second in range(max(delays) + 1)]
    assert max(per_second) <= max(1, rate)
    assert delays[-1] == int(99 / rate)
    # And the next page's step comes due once this page has drained at the rate
    assert len(steps) == 2
    [next_step] = world.jobs.sent
    assert next_step.delay == min(900, -(-100 // rate))


def test_progress_is_running_until_every_queued_delivery_has_ended(world: World) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    _failed(world, ep, 3)
    service = world.replay_service()
    replay = service.start("acme", ep.id, ReplayRequest.model_validate({**WINDOW_BODY, "status": "failed"}))
    assert service.describe("acme", replay.id).status == "running"
    world.run_jobs_on_clock(5)
    assert (service.describe("acme", replay.id).queued, service.describe("acme", replay.id).status) == (3, "running")
    # When the delivery side counts each replayed delivery's end
    for outcome in ("delivered", "delivered", "failed"):
        world.replays.count("acme", replay.id, outcome)
    # Then the replay is completed, with the counts
    shown = service.describe("acme", replay.id)
    assert (shown.status, shown.delivered, shown.failed) == ("completed", 2, 1)


def test_a_window_with_nothing_in_it_completes(world: World) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    _failed(world, ep, 2, minute=70)  # after the window
    replay = world.replay_service().start("acme", ep.id, WINDOW)
    world.run_jobs_on_clock(5)
    shown = world.replay_service().describe("acme", replay.id)
    assert (shown.status, shown.matched, world.retry_queue.sent) == ("completed", 0, [])


def test_only_the_window_and_the_chosen_status_are_replayed(world: World) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    inside = _failed(world, ep, 2, minute=30)
    _failed(world, ep, 2, minute=70)  # 11:10, after the window
    paused = _failed(world, ep, 2, minute=40, status="paused")
    other = world.add_endpoint()
    _failed(world, other, 2, minute=30)
    replay = world.replay_service().start("acme", ep.id, WINDOW)
    world.run_jobs_on_clock(5)
    assert sorted(t.delivery_id for t in world.retry_queue.tasks()) == inside
    replay_paused = world.replay_service().start("acme", ep.id, PAUSED)
    assert replay_paused.id != replay.id
    world.run_jobs_on_clock(5)
    assert sorted(t.delivery_id for t in world.retry_queue.tasks()) == sorted(inside + paused)


def test_the_same_request_within_a_minute_names_the_same_replay_and_a_duplicate_step_takes_no_page(world: World) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    _failed(world, ep, 5)
    service = world.replay_service()
    first = service.start("acme", ep.id, WINDOW)
    world.clock.advance(20)
    again = service.start("acme", ep.id, WINDOW)
    assert again == first
    # Its first step was queued again (the first may have been lost), and running both restarts each delivery once
    assert len(world.jobs.sent) == 2
    world.run_jobs_on_clock(5)
    assert len(world.retry_queue.sent) == 5
    assert world.replay_service().describe("acme", first.id).queued == 5
    # A minute later the same request is a new replay
    world.clock.advance(60)
    assert service.start("acme", ep.id, WINDOW).id != first.id


@pytest.mark.parametrize("dies_at", ["enqueue", "record_page"])
def test_a_page_that_dies_after_restarting_its_deliveries_is_finished_by_its_redelivery_once(world: World, dies_at: str) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    failed = _failed(world, ep, 4)
    replay = world.replay_service().start("acme", ep.id, WINDOW)
    job_id = replay.job.id
    runner = world.job_runner()
    # Given the apply (which the plan's invocation takes at once) failing after it restarted the deliveries (SQS's
    # send, or the record's count): the invocation dies with the page planned on the job
    (world.retry_queue if dies_at == "enqueue" else world.replays).faults.fail(dies_at, times=1)
    with pytest.raises(DependencyFailed):
        runner.step("acme", job_id, 0)
    assert len(world.job_store.get("acme", job_id).pending) == 4
    assert {d.generation for d in world.events.all_deliveries()} == {1}
    # When the message the plan queued for the apply comes, Then every task goes out, no delivery is restarted
    # twice, the page counts once
    [apply_step] = [json.loads(sent.body)["step"] for sent in world.jobs.sent if json.loads(sent.body)["step"] == 1]
    runner.step("acme", job_id, apply_step)
    assert sorted({t.delivery_id for t in world.retry_queue.tasks()}) == failed
    assert {d.generation for d in world.events.all_deliveries()} == {1}
    assert (world.replay_service().describe("acme", replay.id).queued, world.job_store.get("acme", job_id).status) == (4, "done")


def test_a_replay_whose_endpoint_is_deleted_is_cancelled_and_completes(world: World) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    _failed(world, ep, 3)
    replay = world.replay_service().start("acme", ep.id, WINDOW)
    world.endpoints.items.pop(("acme", ep.id))
    world.run_jobs_on_clock(5)
    assert world.job_store.get("acme", replay.job.id).status == "cancelled"
    assert world.replay_service().describe("acme", replay.id).status == "completed"


def test_the_previous_releases_replay_is_taken_over_where_it_stood(world: World) -> None:
    # Given a replay the previous release started: one page queued, the next planned on its record but not queued
    ep = world.add_endpoint(rate_limit_per_second=10)
    failed = _failed(world, ep, 250)
    rid = ids.derived_id("rpl", "acme", "the previous release's")
    window = ReplayWindow(WINDOW.since, WINDOW.until, WINDOW.status)
    world.replays.create("acme", rid, ep.id, window, "2026-11-29T12:00:00.000Z", 2_000_000_000, "")
    first, cursor = world.events.deliveries_by_status("acme", ep.id, "failed", window.since, window.until + "~", 100, None)
    second, cursor = world.events.deliveries_by_status("acme", ep.id, "failed", window.since, window.until + "~", 100, cursor)
    for d in first:  # its first page went out
        world.events.restart("acme", d.event_id, d.id, 0, ("failed",), "2026-11-29T12:00:00.000Z", rid)
    planned = [DeliveryTask.of(d, generation=1, trigger="manual", replay_id=rid).to_message() for d in second]
    item = world.replays.items[("acme", rid)]
    item.update(step=2, cursor_token=cursor, pending_tasks=planned, matched=200, queued=200)
    # When its step message reaches this release (twice: SQS delivers at least once)
    world.replay_service().adopt("acme", rid)
    world.replay_service().adopt("acme", rid)
    assert len(world.job_store.items) == 1
    world.run_jobs_on_clock(60)
    # Then the planned page goes out, the rest of the window follows, and nothing is counted twice
    assert sorted(t.delivery_id for t in world.retry_queue.tasks()) == sorted(set(failed) - {d.id for d in first})
    shown = world.replay_service().describe("acme", rid)
    assert (shown.matched, shown.queued) == (250, 250)
    assert "pending_tasks" not in world.replays.get("acme", rid)
    # And a repeat of the message starts nothing more
    world.replay_service().adopt("acme", rid)
    world.run_jobs_on_clock(60)
    assert len(world.retry_queue.sent) == 150


def test_starting_needs_an_endpoint_of_the_tenant(world: World) -> None:
    ep = world.add_endpoint()
    service = world.replay_service()
    with pytest.raises(NotFound):
        service.start("other", ep.id, WINDOW)
    assert world.jobs.sent == [] and world.replays.items == {} and world.job_store.items == {}
    with pytest.raises(NotFound):
        service.describe("acme", "rpl_nope")


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ({"since": WINDOW_BODY["until"], "until": WINDOW_BODY["since"]}, "validation_failed", "'since' must be before 'until'"),
        ({**WINDOW_BODY, "until": WINDOW_BODY["since"].replace("Z", "+00:00")}, "validation_failed", "'since' must be before 'until'"),
        ({**WINDOW_BODY, "status": "succeeded"}, "validation_failed", "'status' must be one of failed, paused"),
        ({**WINDOW_BODY, "status": None}, "validation_failed", "'status' must be one of failed, paused"),
        ({"since": WINDOW_BODY["since"]}, "missing_field", "'until' is required, as an ISO 8601 time"),
        ({"until": 1, "force": True, "again": 1}, "unknown_field", "unknown field(s): again, force"),
        ({**WINDOW_BODY, "since": 5}, "wrong_type", "'since' must be an ISO 8601 time"),
        ({**WINDOW_BODY, "since": "yesterday"}, "validation_failed", "'since' is not an ISO 8601 time"),
        ({**WINDOW_BODY, "since": "2026-11-29T10:00:00"}, "validation_failed", "'since' needs a time zone (e.g. Z)"),
        ({**WINDOW_BODY, "since": "0001-01-01T00:00:00Z"}, "validation_failed", "'since' is out of range"),
        # What today's rule reads but the document's WindowTime does not: another form, the range's first and last day
        ({**WINDOW_BODY, "since": "2026-11-29 10:00:00Z"}, "validation_failed", "'since' is not an ISO 8601 time"),
        ({**WINDOW_BODY, "since": "2026-11-29T10:00Z"}, "validation_failed", "'since' is not an ISO 8601 time"),
        ({**WINDOW_BODY, "since": "1970-01-01T05:00:00Z"}, "validation_failed", "'since' is out of range"),
        ({**WINDOW_BODY, "until": "9000-12-31T00:00:00Z"}, "validation_failed", "'until' is out of range"),
    ],
)
def test_a_window_is_refused_by_its_rules_with_their_codes_and_messages(body: dict[str, object], code: str, message: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        ReplayRequest.model_validate(body)
    assert (refused.value.code, refused.value.message) == (code, message)


def test_a_window_reads_its_times_as_utc_to_the_millisecond_and_replays_failed_deliveries_by_default() -> None:
    window = ReplayRequest.model_validate({"since": "2026-11-29T11:00:00+01:00", "until": "2026-11-29T11:00:00.5Z"})
    assert (window.since, window.until, window.status) == ("2026-11-29T10:00:00.000Z", "2026-11-29T11:00:00.500Z", "failed")
