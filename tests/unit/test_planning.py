"""The core planner and health rules as tables: endpoint state in, plan (or new state) out, deferrals within their bounds."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from hookline.core.breaker import Breaker
from hookline.core.classify import Classification, Outcome, Verdict
from hookline.core.config import breaker_config, limiter_config
from hookline.core.health import EndpointChange, breaker_after, endpoint_after, limiter_after, should_disable
from hookline.core.planning import (
    LIMIT_SPREAD,
    LIMITED,
    MAX_OPEN_SPREAD,
    PROBING_SPREAD,
    TO_RETRY_LANE,
    Gate,
    GroupPlan,
    Step,
    gave_up,
    leases_held,
    plan_group,
    under_lease,
    waits_for_lease,
)
from hookline.core.policy import Decision
from hookline.core.ratelimit import Limiter
from hookline.core.rules import EndpointRules
from hookline.core.settings import Settings
from tests.fakes.randomness import FixedRandom

NOW = 1_795_953_600.0
CFG = EndpointRules(
    breaker=replace(breaker_config(Settings()), threshold=3, cooldown_seconds=60, probe_lease_seconds=60),
    limiter=limiter_config(Settings(), lease_seconds=120),
    disable_after_seconds=3600,
    retry_after_jitter_seconds=3.0,
    busy_retry_seconds=5.0,
)
OPEN = Breaker(state="open", consecutive_failures=10, open_until=NOW + 40, open_since=NOW - 20, cooldown_seconds=60, trips=1, version=2)
DUE = Breaker(state="open", consecutive_failures=10, open_until=NOW - 1, open_since=NOW - 61, cooldown_seconds=60, trips=1, version=2)
PROBING = Breaker(state="half_open", probe_until=NOW + 20, open_since=NOW - 61, cooldown_seconds=60, version=3)
GATE = Gate(active=True, paused_until=None, rate_per_second=10, max_concurrency=5)

# name: (gate, breaker, limiter, tasks) -> (step kinds, reasons of the deferrals, what to write, disable)
PLANS: dict[str, tuple[tuple[Gate | None, Breaker, Limiter, int], tuple[list[str], set[str], str, bool]]] = {
    "endpoint deleted: each task goes ahead and records it": ((None, Breaker(), Limiter(), 2), (["go", "go"], set(), "", False)),
    "disabled: every task parked": ((Gate(False, None, 10, 5), OPEN, Limiter(), 3), (["park"] * 3, set(), "", False)),
    "closed, within limits: all granted, one limiter write": ((GATE, Breaker(), Limiter(), 3), (["go"] * 3, set(), "limiter", False)),
    "more tasks than concurrency: the rest wait for a slot": (
        (GATE, Breaker(), Limiter(), 8),
        (["go"] * 5 + ["defer"] * 3, {"endpoint rate or concurrency limit"}, "limiter", False),
    ),
    "every slot leased: nothing granted, nothing written": (
        (GATE, Breaker(), Limiter(leases=(NOW + 60,) * 5, version=4), 2),
        (["defer"] * 2, {"endpoint rate or concurrency limit"}, "", False),
    ),
    "paused by Retry-After: all deferred": (
        (Gate(True, NOW + 30, 10, 5), Breaker(), Limiter(), 2),
        (["defer"] * 2, {"endpoint paused by Retry-After"}, "", False),
    ),
    "breaker open: all deferred until the cooldown ends": ((GATE, OPEN, Limiter(), 3), (["defer"] * 3, {"circuit open"}, "", False)),
    "cooldown over: one probe (its lease written), the rest wait": (
        (GATE, DUE, Limiter(), 3),
        (["probe", "defer", "defer"], {"circuit half-open: probing"}, "breaker", False),
    ),
    "another worker probing: all come back shortly": ((GATE, PROBING, Limiter(), 2), (["defer"] * 2, {"circuit half-open: probing"}, "", False)),
    "outage past the disable threshold: disable and park": (
        (GATE, Breaker(state="open", open_until=NOW - 1, open_since=NOW - 3600, cooldown_seconds=60, version=9), Limiter(), 2),
        (["park"] * 2, set(), "", True),
    ),
}


@pytest.mark.parametrize("name", list(PLANS))
def test_plan_group(name: str) -> None:
    (gate, breaker, limiter, tasks), (kinds, reasons, write, disable) = PLANS[name]
    plan = plan_group(gate, breaker, limiter, tasks, NOW, CFG, FixedRandom(0.5))
    assert [s.kind for s in plan.steps] == kinds
    assert {s.reason for s in plan.steps if s.kind == "defer"} == reasons
    assert ("breaker" if plan.breaker else "limiter" if plan.limiter else "") == write
    assert plan.disable == disable


def test_a_probe_writes_a_leased_half_open_breaker_one_version_up() -> None:
    plan = plan_group(GATE, DUE, Limiter(), 1, NOW, CFG, FixedRandom(0.0))
    assert plan.breaker == Breaker(**{**DUE.__dict__, "state": "half_open", "probe_until": NOW + 60, "version": 3})


def test_grants_are_paced_within_the_horizon_and_hold_one_lease_each() -> None:
    plan = plan_group(Gate(True, None, 5, 100), Breaker(), Limiter(), 10, NOW, CFG, FixedRandom(0.0))
    sends = [s.send_at for s in plan.steps if s.kind == "go"]
    # 5/s with a 10% margin: one every 0.22 s, as far as the 1 s horizon
    assert sends == pytest.approx([NOW, NOW + 0.22, NOW + 0.44, NOW + 0.66, NOW + 0.88])
    assert leases_held(plan.steps) == {NOW + 120: 5}
    assert plan.limiter is not None and plan.limiter.leases == (NOW + 120,) * 5 and plan.limiter.version == 1


# Each kind of deferral waits at least until its cause ends, and at most its spread longer (FixedRandom 0 and 1 are the bounds).
DEFERRALS: dict[str, tuple[Gate, Breaker, Limiter, int, float, float]] = {
    # name: (gate, breaker, limiter, index of a deferred step, shortest, longest)
    "circuit open": (GATE, OPEN, Limiter(), 0, 40.0, 40.0 + min(MAX_OPEN_SPREAD, 0.1 * 60)),
    "probing": (GATE, DUE, Limiter(), 1, 5.0, 5.0 + PROBING_SPREAD),
    "limit": (Gate(True, None, 5, 100), Breaker(), Limiter(), 9, 1.1 - 0.0, 1.1 + LIMIT_SPREAD),
}


@pytest.mark.parametrize("name", list(DEFERRALS))
def test_deferrals_wait_for_their_cause_plus_a_bounded_spread(name: str) -> None:
    gate, breaker, limiter, index, shortest, longest = DEFERRALS[name]
    low = plan_group(gate, breaker, limiter, 10, NOW, CFG, FixedRandom(0.0)).steps[index]
    high = plan_group(gate, breaker, limiter, 10, NOW, CFG, FixedRandom(1.0)).steps[index]
    assert low.kind == high.kind == "defer"
    assert low.defer_seconds == pytest.approx(shortest)
    assert high.defer_seconds == pytest.approx(longest)


def test_a_retry_after_pause_defers_to_its_end_plus_jitter() -> None:
    paused = Gate(True, NOW + 30, 10, 5)
    low = plan_group(paused, Breaker(), Limiter(), 1, NOW, CFG, FixedRandom(0.0)).steps[0]
    high = plan_group(paused, Breaker(), Limiter(), 1, NOW, CFG, FixedRandom(1.0)).steps[0]
    assert (low.defer_seconds, high.defer_seconds) == pytest.approx((30.0, 30.0 + CFG.retry_after_jitter_seconds))


def test_giving_up_under_contention_defers_everything_as_the_limiter_would() -> None:
    last = GroupPlan((Step("go", send_at=NOW), Step("go", send_at=NOW + 0.11), Step("defer", defer_seconds=0.2)), limiter=Limiter(version=1), retry_in=0.33)
    plan = gave_up(last, FixedRandom(1.0))
    assert [(s.kind, s.defer_seconds, s.reason) for s in plan.steps] == [("defer", 0.33 + LIMIT_SPREAD, "endpoint rate or concurrency limit")] * 3
    assert plan.write is None


HEALTH = CFG
OK, DOWN, SLOW, GONE = Outcome(200), Outcome(503), Outcome(429), Outcome(None, "timeout")

# name: (breaker, outcome, was_probe) -> (event, consecutive failures after, written)
AFTER: dict[str, tuple[tuple[Breaker, Outcome, bool], tuple[str, int | None, bool]]] = {
    "success on a pristine breaker: nothing to write": ((Breaker(), OK, False), ("", None, False)),
    "a 4xx says nothing": ((Breaker(), Outcome(404), False), ("", None, False)),
    "a 5xx counts": ((Breaker(), DOWN, False), ("", 1, True)),
    "a timeout counts": ((Breaker(), GONE, False), ("", 1, True)),
    "the threshold opens it": ((Breaker(consecutive_failures=2, recent="00", version=2), SLOW, False), ("opened", 3, True)),
    "a success after failures resets the count": ((Breaker(consecutive_failures=2, recent="00", version=2), OK, False), ("", 0, True)),
    "a failed probe reopens it": ((PROBING, DOWN, True), ("reopened", 0, True)),
    "a probe that answers closes it": ((PROBING, Outcome(404), True), ("recovered", 0, True)),
    "a straggler while open changes nothing": ((OPEN, DOWN, False), ("", None, False)),
}


@pytest.mark.parametrize("name", list(AFTER))
def test_breaker_after_an_attempt(name: str) -> None:
    (breaker, outcome, was_probe), (event, failures, written) = AFTER[name]
    change = breaker_after(breaker, outcome, NOW, HEALTH, was_probe)
    assert (change is not None) == written
    if change is not None:
        assert change.event == event
        assert change.state.consecutive_failures == failures
        assert change.state.version == breaker.version + 1


@pytest.mark.parametrize(("outcome", "slowed"), [(SLOW, True), (DOWN, False), (OK, False)])
def test_only_a_429_slows_the_limiter(outcome: Outcome, slowed: bool) -> None:
    after = limiter_after(Limiter(version=3), outcome, 10.0, NOW, HEALTH)
    assert (after is not None) == slowed
    if after is not None:
        assert (after.effective_rate, after.adjusted_at, after.version) == (5.0, NOW, 4)


def _reopened(open_since: float) -> Any:
    probing = Breaker(state="half_open", probe_until=NOW + 20, open_since=open_since, cooldown_seconds=60, version=3)
    return breaker_after(probing, DOWN, NOW, HEALTH, True)


def test_a_reopening_past_the_disable_threshold_disables() -> None:
    assert should_disable(_reopened(NOW - 3600), NOW, HEALTH)
    assert not should_disable(_reopened(NOW - 3599), NOW, HEALTH)
    opened = breaker_after(Breaker(consecutive_failures=2, recent="00"), DOWN, NOW, HEALTH, False)
    assert opened is not None and not should_disable(opened, NOW + 10_000, HEALTH)  # only a failed probe decides it


def _decision(pause: float | None = None, gone: bool = False) -> Decision:
    verdict = Verdict.PERMANENT if gone else Verdict.RETRY
    return Decision(
        "failed" if gone else "pending",
        Classification(verdict, "x", "gone" if gone else ""),
        "failed" if gone else "retrying",
        None if gone else 10.0,
        pause,
        "gone" if gone else "",
    )


# name: (decision, transition) -> what changes on the endpoint
ENDPOINT: dict[str, tuple[tuple[Decision, Any], EndpointChange]] = {
    "an ordinary retry changes nothing": ((_decision(), None), EndpointChange()),
    "a Retry-After pauses the whole endpoint": ((_decision(pause=120.0), None), EndpointChange(pause_until=NOW + 120.0)),
    "a 410 disables it as gone": ((_decision(gone=True), None), EndpointChange(disable="gone")),
    "a failed probe past the threshold disables it as failing": ((_decision(), _reopened(NOW - 3600)), EndpointChange(disable="failing")),
    "a failed probe within the threshold leaves it": ((_decision(), _reopened(NOW - 60)), EndpointChange()),
}


@pytest.mark.parametrize("name", list(ENDPOINT))
def test_what_an_answer_changes_on_the_endpoint(name: str) -> None:
    (decision, transition), expected = ENDPOINT[name]
    assert endpoint_after(decision, transition, NOW, CFG) == expected


# -- lanes: an endpoint that holds workers is served from the retry lane ----------------------

TIMING_OUT = Breaker(consecutive_failures=1, timeouts=1, last_error="timeout", last_failure_at=NOW - 5, recent="0", version=1)
FAILING_FAST = Breaker(consecutive_failures=1, last_error="503", last_failure_at=NOW - 5, recent="0", version=1)
SLOW_LIMITER = Limiter(concurrency_limit=5.0, rtt_short=0.9, rtt_long=0.9)

# name: (breaker, limiter, first lane) -> step kinds
LANES: dict[str, tuple[tuple[Breaker, Limiter, bool], list[str]]] = {
    "a timing-out endpoint's first attempts go to the retry lane": ((TIMING_OUT, Limiter(), True), ["defer", "defer"]),
    "on the retry lane it is sent as usual": ((TIMING_OUT, Limiter(), False), ["go", "go"]),
    "a fast failure (503) holds no worker: sent from the first lane": ((FAILING_FAST, Limiter(), True), ["go", "go"]),
    "a slow receiver (900 ms baseline) goes to the retry lane": ((Breaker(), SLOW_LIMITER, True), ["defer", "defer"]),
    "a due probe is made from the retry lane, not the first": ((DUE, Limiter(), True), ["defer", "defer"]),
    "the retry lane takes the probe": ((DUE, Limiter(), False), ["probe", "defer"]),
    "a healthy endpoint is served where it arrives": ((Breaker(), Limiter(), True), ["go", "go"]),
}


@pytest.mark.parametrize("name", list(LANES))
def test_lanes(name: str) -> None:
    (breaker, limiter, first_lane), kinds = LANES[name]
    plan = plan_group(GATE, breaker, limiter, 2, NOW, CFG, FixedRandom(0.5), first_lane)
    assert [s.kind for s in plan.steps] == kinds
    if kinds == ["defer", "defer"]:
        # at once (plus at most a second's spread), using no attempt, with a reason that says why
        assert all(s.defer_seconds <= LIMIT_SPREAD and s.reason == TO_RETRY_LANE for s in plan.steps)


def test_a_probe_takes_its_place_in_the_pace() -> None:
    # A probe is sent outside the limiter: its answer moves the next grant one interval (1.1 / rate) past it
    after = limiter_after(Limiter(tat=NOW - 100, version=3), OK, 10.0, NOW, HEALTH, was_probe=True)
    assert after is not None and after.tat == pytest.approx(NOW + 0.11) and after.version == 4


# --- a lease is a slot: a batch's task the limiter deferred goes under the batch's own lease once a request under it ends ---

LIMITED_STEP = Step("defer", defer_seconds=1.4, reason=LIMITED)
HELD = Limiter(tat=NOW - 1, leases=(NOW + 60,) * 5, version=7)  # the batch's 5 leases: every slot of GATE's ceiling of 5

# name: (gate, breaker, the waiting step, the answer under the lease) -> goes under the lease
UNDER_LEASE: dict[str, tuple[tuple[Gate | None, Breaker, Step, int | None], bool]] = {
    "a 2xx: the next task goes under that lease": ((GATE, Breaker(), LIMITED_STEP, 200), True),
    "a 503: the receiver is struggling, the task waits as planned": ((GATE, Breaker(), LIMITED_STEP, 503), False),
    "a 429: the same": ((GATE, Breaker(), LIMITED_STEP, 429), False),
    "no answer (a timeout): the same": ((GATE, Breaker(), LIMITED_STEP, None), False),
    "the breaker opened meanwhile": ((GATE, OPEN, LIMITED_STEP, 200), False),
    "paused by a Retry-After meanwhile": ((Gate(True, NOW + 30, 10, 5), Breaker(), LIMITED_STEP, 200), False),
    "disabled meanwhile": ((Gate(False, None, 10, 5), Breaker(), LIMITED_STEP, 200), False),
    "endpoint deleted": ((None, Breaker(), LIMITED_STEP, 200), False),
    "a task deferred for another reason": ((GATE, Breaker(), Step("defer", defer_seconds=5.0, reason="circuit half-open: probing"), 200), False),
}


@pytest.mark.parametrize("name", list(UNDER_LEASE))
def test_a_deferred_task_goes_under_the_batchs_lease_only_after_a_success(name: str) -> None:
    (gate, breaker, waiting, answered), goes = UNDER_LEASE[name]
    step, limiter = under_lease(gate, breaker, HELD, waiting, NOW + 60, answered, NOW, CFG)
    if not goes:
        assert (step, limiter) == (waiting, None)
        return
    assert limiter is not None
    assert (step.kind, step.send_at, step.lease_expiry, step.reused) == ("go", NOW, NOW + 60, True)
    assert limiter.leases == HELD.leases and limiter.tat > HELD.tat  # the pace moves on; no lease taken or given back
    # what the batch gives back is still the 5 leases it was granted: the reused step holds none of its own
    assert leases_held([Step("go", send_at=NOW, lease_expiry=NOW + 60)] * 5 + [step]) == {NOW + 60: 5}
    assert waits_for_lease(waiting)


def test_only_limiter_deferrals_wait_for_a_lease() -> None:
    plan = plan_group(GATE, Breaker(), Limiter(), 8, NOW, CFG, FixedRandom(0.5))
    assert [waits_for_lease(s) for s in plan.steps] == [False] * 5 + [True] * 3
