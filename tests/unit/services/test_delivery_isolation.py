"""The DeliveryWorker over in-memory fakes in virtual time: per-endpoint isolation, as the rules promise.

These replace the rule-level checks that tests/integration/test_isolation.py
made through moto, a real receiver and the wall clock (breaker cooldowns and
probes, rate and concurrency limits across invocations, the quiet hot path,
the half-open race); that file keeps a short run proving the same wiring.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from itertools import pairwise

import pytest

from hookline.core import notifications
from hookline.core.breaker import Breaker
from hookline.core.models import DeliveryTask, Endpoint
from hookline.core.responses import HttpResult
from hookline.core.settings import Settings
from tests.fakes.contracts import endpoint
from tests.fakes.delivery import DeliveryRig, delivery_rig
from tests.fakes.outside import FakeSender, Request, scripted
from tests.unit.services.pipeline import Pipeline, most_in_any_window

GOOD, BAD = "https://good.example.com/hook", "https://bad.example.com/hook"
OK, UNAVAILABLE = HttpResult(200, None, 9, body="ok"), HttpResult(503, None, 9)


def by_url(request: Request) -> HttpResult:
    return UNAVAILABLE if request.url == BAD else OK


def _attempts(rig: DeliveryRig, endpoint_id: str) -> int:
    return sum(d.attempts_made for d in rig.events.all_deliveries() if d.endpoint_id == endpoint_id)


def test_a_failing_endpoint_trips_then_only_probes_once_per_cooldown_while_a_healthy_one_is_untouched() -> None:
    # Given a healthy endpoint and one that always answers 503, their tasks in the same batches
    rig = delivery_rig(FakeSender(by_url))
    pipe = Pipeline(rig)
    good, bad = pipe.endpoint(endpoint("ep_good", url=GOOD)), pipe.endpoint(endpoint("ep_bad", url=BAD))
    good_tasks = []
    for i in range(20):
        good_tasks.append(pipe.event(good, i))
        pipe.event(bad, i)
    # When 40 virtual minutes pass
    pipe.run(40 * 60)
    # Then every healthy delivery succeeded on its first attempt
    assert [(pipe.delivery(t).status, pipe.delivery(t).attempts_made) for t in good_tasks] == [("succeeded", 1)] * 20
    # And the failing endpoint's breaker opened once, after the threshold (plus what its batch had already been granted)
    breaker = rig.states.breaker("acme", "ep_bad")
    assert breaker.trips == 1 and breaker.open_since is not None
    assert rig.notify.kinds().count(notifications.CIRCUIT_OPENED) == 1
    hits = pipe.sent_to(bad)
    before = [t for t in hits if t <= breaker.open_since]
    probes = [t for t in hits if t > breaker.open_since]
    assert 10 <= len(before) <= 10 + 4
    # And from then on it saw only probes: the first a minute after it opened, then each 5 minutes after the one before
    gaps = [b - a for a, b in pairwise([breaker.open_since, *probes])]
    assert gaps[0] >= 60.0 and all(gap >= 300.0 for gap in gaps[1:]), gaps
    assert len(probes) == 8  # 40 minutes: at 1, 6, 11, ... 36 minutes (the old growing cooldown sent 15, its last gap 8 minutes)
    assert breaker.cooldown_seconds == pytest.approx(300.0, abs=1.0)
    assert len([p for p in pipe.planned if p.task.endpoint_id == "ep_bad" and p.plan.kind == "probe"]) == len(probes)
    # And every other task of it was put off without a request and without using up an attempt
    deferred = {r.reason for r in pipe.reports if r.task.endpoint_id == "ep_bad" and r.outcome == "deferred"}
    # (before the breaker opened, each batch's 503s also halved its adaptive concurrency limit, deferring the rest)
    assert deferred == {"circuit open", "circuit half-open: probing", "endpoint rate or concurrency limit"}
    assert _attempts(rig, "ep_bad") == len(hits)


def test_a_probe_that_succeeds_closes_the_breaker_and_the_backlog_drains() -> None:
    # Given an endpoint that fails its first eleven requests (the threshold, then the first probe), then recovers
    rig = delivery_rig(FakeSender(scripted(*[UNAVAILABLE] * 11, OK)))
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint(max_concurrency=1))
    tasks = [pipe.event(ep, i) for i in range(20)]
    # When three virtual hours pass
    pipe.run(3 * 3600)
    # Then the second probe closed the breaker, the recovery was announced, and every delivery succeeded
    assert rig.states.breaker("acme", ep.id).state == "closed"
    assert rig.notify.kinds() == [notifications.CIRCUIT_OPENED, notifications.RECOVERED]
    assert {pipe.delivery(t).status for t in tasks} == {"succeeded"}
    assert [p.plan.kind for p in pipe.planned].count("probe") == 2


def _limited_run(rate: float, concurrency: int, events: int, batch_size: int, seconds: float) -> tuple[DeliveryRig, Pipeline, Endpoint, list[DeliveryTask]]:
    """`events` events to one endpoint with these limits, taken by three invocations at a time for `seconds`."""
    rig = delivery_rig()
    pipe = Pipeline(rig, batch_size=batch_size, invocations=3)
    ep = pipe.endpoint(endpoint(rate_limit_per_second=rate, max_concurrency=concurrency))
    tasks = [pipe.event(ep, i) for i in range(events)]
    pipe.run(seconds)
    return rig, pipe, ep, tasks


def test_the_rate_limit_holds_across_concurrent_invocations() -> None:
    # Given an endpoint limited to 5 requests a second (and no tighter concurrency), and 50 events at once,
    # When three invocations at a time take batches of ten until everything is delivered
    _, pipe, _, tasks = _limited_run(rate=5, concurrency=100, events=50, batch_size=10, seconds=120)
    # Then every event was delivered exactly once
    assert sorted(s.webhook_id for s in pipe.sent) == sorted(t.event_id for t in tasks)
    assert {pipe.delivery(t).status for t in tasks} == {"succeeded"}
    # And the send times the invocations were granted, across all of them, never put more than 5 in any second
    granted = [p.plan.step.send_at for p in pipe.planned if p.plan.kind == "go"]
    assert most_in_any_window(granted) <= 5
    # And each request left no earlier than its grant (the worker waits for it), so no second saw more than 5 requests
    assert most_in_any_window([s.at for s in pipe.sent]) <= 5
    sent_at = {s.webhook_id: s.at for s in pipe.sent}
    assert all(sent_at[p.task.event_id] >= p.plan.step.send_at for p in pipe.planned if p.plan.kind == "go")
    # And invocations planning side by side did share the limit: a later one in a round was held back by an earlier one's grants
    held_back = [p for p in pipe.planned if p.plan.kind == "defer" and p.plan.step.reason == "endpoint rate or concurrency limit"]
    assert {p.round for p in held_back} & {p.round for p in pipe.planned if p.plan.kind == "go"}


def test_the_concurrency_limit_holds_across_concurrent_invocations_and_leases_come_back_at_the_batch_end() -> None:
    # Given an endpoint allowed 2 requests at once (and a generous rate), and 20 events taken in batches of five
    rig, pipe, ep, tasks = _limited_run(rate=500, concurrency=2, events=20, batch_size=5, seconds=300)
    # Then no round of side-by-side invocations was granted more than 2 sends
    per_round: dict[int, int] = defaultdict(int)
    for p in pipe.planned:
        per_round[p.round] += p.plan.kind == "go"
    assert max(per_round.values()) == 2
    # And everything was delivered, because each batch gave its leases back when it ended (not after the 120 s lease)
    assert {pipe.delivery(t).status for t in tasks} == {"succeeded"}
    assert pipe.sent[-1].at - pipe.sent[0].at < 120
    assert rig.states.limiter("acme", ep.id).leases == ()


def test_the_leases_of_an_invocation_that_died_free_their_slots_when_they_expire() -> None:
    rig = delivery_rig(lease_seconds=120)
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint(rate_limit_per_second=500, max_concurrency=2))
    tasks = [pipe.event(ep, i) for i in range(3)]
    # Given an invocation that took both slots and died before it sent or released anything
    assert [p.kind for p in rig.worker.plan(tasks).values()] == ["go", "go", "defer"]
    # Then the slots stay taken while the leases live, and are free once they have expired
    rig.clock.advance(119)
    assert [p.kind for p in rig.worker.plan(tasks).values()] == ["defer"] * 3
    rig.clock.advance(2)
    assert [p.kind for p in rig.worker.plan(tasks).values()] == ["go", "go", "defer"]


def test_a_healthy_hot_path_writes_no_breaker_state_but_a_failure_does() -> None:
    rig = delivery_rig(FakeSender(by_url))
    pipe = Pipeline(rig)
    good = pipe.endpoint(endpoint("ep_good", url=GOOD, rate_limit_per_second=500, max_concurrency=100))
    bad = pipe.endpoint(endpoint("ep_bad", url=BAD))
    # When a healthy endpoint takes 100 deliveries
    for i in range(100):
        pipe.event(good, i)
    pipe.run(30)
    assert len(pipe.sent_to(good)) == 100
    # Then its breaker was never written (its limiter was: the grants)
    assert [kind for kind, endpoint_id, _ in rig.states.writes if endpoint_id == good.id] == ["limiter"] * len(
        [w for w in rig.states.writes if w[1] == good.id]
    )
    assert ("breaker", good.id) not in {(kind, endpoint_id) for kind, endpoint_id, _ in rig.states.writes}
    # And the same record of writes does show a breaker write when an endpoint fails
    pipe.event(bad, 0)
    pipe.run(1)
    assert ("breaker", bad.id) in {(kind, endpoint_id) for kind, endpoint_id, _ in rig.states.writes}


def test_a_retry_after_pauses_the_whole_endpoint_without_requests_until_it_ends() -> None:
    rig = delivery_rig(FakeSender(scripted(HttpResult(503, None, 9, headers={"Retry-After": "120"}), OK)))
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    first = pipe.event(ep, 0)
    pipe.run(1)
    # Given the receiver asked for two minutes of quiet
    paused_until = rig.endpoints.get("acme", ep.id).paused_until
    assert paused_until is not None and 120 <= paused_until - pipe.sent[0].at <= 123
    # When more events come meanwhile
    later = [pipe.event(ep, i) for i in range(1, 5)]
    pipe.run(60)
    # Then none is sent before the pause ends, each put off without using an attempt
    assert len(pipe.sent) == 1
    assert {r.reason for r in pipe.reports if r.outcome == "deferred"} == {"endpoint paused by Retry-After"}
    assert {pipe.delivery(t).attempts_made for t in later} == {0}
    # And after it, everything is delivered, the first event on its second attempt
    pipe.run(600)
    assert min(pipe.sent_to(ep)[1:]) >= paused_until
    assert [(pipe.delivery(t).status, pipe.delivery(t).attempts_made) for t in [first, *later]] == [("succeeded", 2)] + [("succeeded", 1)] * 4


def test_a_disabled_endpoints_tasks_are_parked_without_a_request_and_flow_once_it_is_enabled() -> None:
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint(status="disabled", disabled_reason="manual"))
    tasks = [pipe.event(ep, i) for i in range(3)]
    pipe.run(60)
    assert pipe.sent == [] and rig.scheduler.scheduled == []
    assert {pipe.delivery(t).status for t in tasks} == {"paused"}
    assert [d.id for d in rig.events.deliveries_by_status("acme", ep.id, "paused")[0]] == [t.delivery_id for t in tasks]
    # When it is enabled and its paused deliveries' tasks come back (as EndpointService.enable queues them)
    rig.endpoints.add(replace(ep, status="active", disabled_reason=None))
    for t in tasks:
        pipe.submit(t)
    pipe.run(60)
    assert {pipe.delivery(t).status for t in tasks} == {"succeeded"}


def test_an_endpoint_failing_past_the_disable_threshold_is_disabled_and_its_tasks_parked() -> None:
    # Given an endpoint that never recovers, and a disable threshold of 15 minutes
    rig = delivery_rig(FakeSender(lambda _r: UNAVAILABLE), settings=Settings(disable_after_seconds=900))
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    tasks = [pipe.event(ep, i) for i in range(12)]
    pipe.run(2 * 3600)
    # Then it was disabled as failing, announced, and what was left of its work is parked, not dropped
    got = rig.endpoints.get("acme", ep.id)
    assert (got.status, got.disabled_reason) == ("disabled", "failing")
    assert rig.notify.kinds()[:1] == [notifications.CIRCUIT_OPENED] and notifications.DISABLED in rig.notify.kinds()
    assert {pipe.delivery(t).status for t in tasks} == {"paused"}
    disabled_at = next(p.at for p in pipe.planned if p.plan.kind == "park")
    assert max(pipe.sent_to(ep)) <= disabled_at


def test_of_fifty_invocations_on_a_half_open_endpoint_exactly_one_probes() -> None:
    rig = delivery_rig()
    pipe = Pipeline(rig, batch_size=1, invocations=50)
    ep = pipe.endpoint(endpoint(rate_limit_per_second=500, max_concurrency=100))
    # Given a breaker whose cooldown has just ended
    now = rig.clock.timestamp()
    opened = Breaker(state="open", consecutive_failures=10, open_until=now - 1, open_since=now - 100, cooldown_seconds=60, trips=1, version=1)
    assert rig.states.save_breaker("acme", ep.id, opened, 0)
    tasks = [pipe.event(ep, i) for i in range(50)]
    # When 50 invocations take one task each, side by side
    pipe.round()
    # Then exactly one of them probed, the 49 others were put off, and the probe's success closed the breaker
    kinds = [p.plan.kind for p in pipe.planned]
    assert (kinds.count("probe"), kinds.count("defer")) == (1, 49)
    assert len(pipe.sent) == 1
    assert rig.states.breaker("acme", ep.id).state == "closed"
    assert sum(pipe.delivery(t).attempts_made for t in tasks) == 1


def test_a_busy_steady_endpoint_earns_concurrency_once_per_round_trip_from_its_answers() -> None:
    # Given an endpoint with a ceiling of 50 that answers in 40 ms, and 60 events taken in batches of ten
    rig = delivery_rig(FakeSender(lambda _r: HttpResult(200, None, 40, body="ok")))
    pipe = Pipeline(rig, batch_size=10)
    ep = pipe.endpoint(endpoint(rate_limit_per_second=500, max_concurrency=50))
    tasks = [pipe.event(ep, i) for i in range(60)]
    first = rig.clock.timestamp()
    pipe.run(600)
    # Then everything was delivered, and the limiter learned the 40 ms baseline from the batches' answers
    assert {pipe.delivery(t).status for t in tasks} == {"succeeded"}
    limiter = rig.states.limiter("acme", ep.id)
    assert limiter.rtt_long == pytest.approx(0.040) and limiter.rtt_short == pytest.approx(0.040)
    assert limiter.observed_at >= first and limiter.changed_at >= first
    # And the limit rose from the initial 5 (a new endpoint's), each batch granted after the last change raising it once
    assert 5 < limiter.concurrency_limit <= 50
    granted = [sum(p.plan.kind == "go" for p in pipe.planned if p.round == r) for r in sorted({p.round for p in pipe.planned})]
    assert granted[0] == 5 and max(granted) > 5
