"""Circuit breaker transitions, table-tested. Pure."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise

import pytest

from hookline.core.breaker import Breaker, admit, health, outage_seconds, record
from hookline.core.classify import Outcome
from hookline.core.config import breaker_config
from hookline.core.settings import Settings

DEFAULTS = breaker_config(Settings())
CFG = replace(DEFAULTS, threshold=3, cooldown_seconds=60, probe_interval_seconds=300, window=10, failure_rate=0.9, probe_lease_seconds=30)


@pytest.mark.parametrize(
    ("outcome", "verdict"),
    [
        (Outcome(200), "success"),
        (Outcome(500), "failure"),
        (Outcome(503), "failure"),
        (Outcome(429), "failure"),
        (Outcome(error="timeout"), "failure"),
        (Outcome(error="connection_refused"), "failure"),
        (Outcome(400), "neutral"),
        (Outcome(404), "neutral"),
        (Outcome(410), "neutral"),
        (Outcome(error="ssrf_blocked"), "neutral"),
    ],
)
def test_health_of_an_outcome(outcome: Outcome, verdict: str) -> None:
    assert health(outcome) == verdict


def test_success_on_a_healthy_breaker_writes_nothing() -> None:
    assert record(Breaker(), "success", 0, CFG) is None
    assert record(Breaker(), "neutral", 0, CFG) is None


def test_threshold_consecutive_failures_open_it() -> None:
    b = Breaker()
    for i in range(2):
        t = record(b, "failure", i, CFG)
        assert t is not None and t.state.state == "closed"
        b = t.state
    t = record(b, "failure", 2, CFG)
    assert t is not None
    assert (t.event, t.state.state, t.state.open_until, t.state.trips, t.state.open_since) == ("opened", "open", 62, 1, 2)


def test_a_success_resets_the_consecutive_count() -> None:
    b = record(record(Breaker(), "failure", 0, CFG).state, "failure", 1, CFG).state  # type: ignore[union-attr]
    t = record(b, "success", 2, CFG)
    assert t is not None and t.state.consecutive_failures == 0
    assert record(t.state, "failure", 3, CFG).state.state == "closed"  # type: ignore[union-attr]


def test_failure_rate_over_the_window_opens_it() -> None:
    cfg = replace(DEFAULTS, threshold=100, window=10, failure_rate=0.9)
    b = Breaker()
    pattern = ["failure"] * 4 + ["success"] + ["failure"] * 5  # 9 of 10 failed, never 100 in a row
    events = []
    for i, v in enumerate(pattern):
        t = record(b, v, i, cfg)  # type: ignore[arg-type]
        assert t is not None
        b, events = t.state, [*events, t.event]
    assert events[-1] == "opened"


def test_only_the_success_that_ends_a_streak_is_written() -> None:
    t = record(Breaker(), "failure", 0, CFG)
    assert t is not None
    t2 = record(t.state, "success", 1, CFG)
    assert t2 is not None and t2.state.consecutive_failures == 0 and t2.state.recent == "01"
    assert t2.state.is_pristine
    # The successes after it change nothing, so a busy healthy endpoint's breaker is not written again
    assert record(t2.state, "success", 2, CFG) is None


def test_a_failure_long_after_the_last_one_starts_a_fresh_history() -> None:
    b = Breaker(recent="0" * 8 + "1", last_failure_at=0.0)
    near = record(b, "failure", CFG.history_seconds, CFG)
    far = record(b, "failure", CFG.history_seconds + 1, CFG)
    assert near is not None and near.state.recent == "0" * 8 + "10"
    assert far is not None and far.state.recent == "0"


def test_a_failure_rate_counts_a_run_of_successes_once() -> None:
    """Nine failures between single successes trip it (90 %), however long each success run was."""
    cfg = replace(DEFAULTS, threshold=100, window=10, failure_rate=0.9)
    b, events = Breaker(), []
    for i, v in enumerate(["failure"] * 4 + ["success"] * 30 + ["failure"] * 5):
        t = record(b, v, i, cfg)  # type: ignore[arg-type]
        if t is not None:
            b, events = t.state, [*events, t.event]
    assert events[-1] == "opened" and b.recent == "0000" + "1" + "00000"


def _opened() -> Breaker:
    b = Breaker()
    for i in range(3):
        b = record(b, "failure", 100 + i, CFG).state  # type: ignore[union-attr]
    return b


def test_open_breaker_makes_deliveries_wait_until_the_cooldown_ends() -> None:
    b = _opened()
    a = admit(b, 110, CFG)
    assert (a.verdict, a.wait_seconds) == ("wait", 52)


def test_after_cooldown_exactly_one_probe_holds_a_lease() -> None:
    b = _opened()
    a = admit(b, 200, CFG)
    assert a.verdict == "probe" and a.state is not None
    leased = a.state
    assert (leased.state, leased.probe_until, leased.version) == ("half_open", 230, b.version + 1)
    other = admit(leased, 205, CFG)
    assert (other.verdict, other.wait_seconds) == ("wait", 25)
    # A crashed prober's lease runs out and another may probe
    assert admit(leased, 231, CFG).verdict == "probe"


def test_probe_success_closes_probe_failure_reopens_until_the_interval_after_the_probe() -> None:
    leased = admit(_opened(), 200, CFG).state
    assert leased is not None
    closed = record(leased, "success", 201, CFG, was_probe=True)
    assert closed is not None and closed.event == "recovered" and closed.state.state == "closed" and closed.state.trips == 1
    assert record(leased, "neutral", 201, CFG, was_probe=True).event == "recovered"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("taken", "answered", "open_until"),
    [
        # a probe taken at 200 that fails at once: the next one is due 300 s after it was taken
        (200, 201, 500),
        # one that timed out (answered 13 s later): still 300 s after it was taken, its deadline is not added
        (200, 213, 500),
        # however long the outage has lasted (it began at 102): 5 minutes, not a share of it
        (86_400, 86_410, 86_700),
    ],
)
def test_a_failed_probe_reopens_until_the_interval_after_it_was_taken(taken: float, answered: float, open_until: float) -> None:
    leased = admit(_opened(), taken, CFG).state
    assert leased is not None
    t = record(leased, "failure", answered, CFG, was_probe=True)
    assert t is not None and t.event == "reopened"
    assert (t.state.state, t.state.open_until, t.state.cooldown_seconds) == ("open", open_until, open_until - answered)


def test_a_receiver_that_stays_down_gets_at_most_12_probes_an_hour_and_a_recovery_waits_at_most_the_interval() -> None:
    # Given an endpoint down for 6 hours, each probe taken the moment the breaker lets one through
    b, t, probes = _opened(), 0.0, []
    t = b.open_until or 0.0
    while t < 102 + 6 * 3600:
        a = admit(b, t, CFG)
        assert a.verdict == "probe" and a.state is not None
        probes.append(t)
        reopened = record(a.state, "failure", t + 10, CFG, was_probe=True)  # each one times out
        assert reopened is not None
        b, t = reopened.state, reopened.state.open_until or 0.0
    # Then no hour holds more than 12 of them (3600 / 300)
    assert max(sum(1 for p in probes if start <= p < start + 3600) for start in probes) == 12
    # And the gaps are all the interval: a receiver back just after a failed probe is probed again 300 s later
    assert {round(q - p, 6) for p, q in pairwise(probes)} == {300.0}


def test_outage_length_counts_from_the_first_opening() -> None:
    b = _opened()
    assert outage_seconds(b, 1000) == 1000 - 102
    leased = admit(b, 200, CFG).state
    reopened = record(leased, "failure", 201, CFG, was_probe=True)  # type: ignore[arg-type]
    assert reopened is not None and outage_seconds(reopened.state, 5000) == 5000 - 102
    assert outage_seconds(Breaker(), 5000) == 0


def test_stragglers_while_open_change_nothing() -> None:
    b = _opened()
    assert record(b, "failure", 120, CFG) is None
    assert record(b, "success", 120, CFG) is None


def test_last_error_is_kept_for_the_endpoints_health() -> None:
    failed = record(Breaker(), "failure", 0, CFG, error="503")
    assert failed is not None
    ended = record(failed.state, "success", 1, CFG)
    assert ended is not None and (ended.state.last_error, ended.state.consecutive_failures) == ("503", 0)


def test_timeouts_open_the_breaker_sooner_than_other_failures() -> None:
    cfg = replace(DEFAULTS, threshold=10, timeout_threshold=3, window=50)
    b = Breaker()
    for i in range(2):
        t = record(b, "failure", 100 + i, cfg, error="timeout")
        assert t is not None and t.event == ""
        b = t.state
    assert b.timeouts == 2
    # a 503 in between starts the timeout count again, without ending the failure streak
    t503 = record(b, "failure", 103, cfg, error="503")
    assert t503 is not None and t503.state.timeouts == 0 and t503.state.consecutive_failures == 3
    # the third timeout in a row opens it, seven failures before the threshold
    opened = record(b, "failure", 103, cfg, error="timeout")
    assert opened is not None and opened.event == "opened" and opened.state.consecutive_failures == 3
