"""The per-endpoint circuit breaker: pure decisions over (state, outcome, now).

closed ──(threshold consecutive health failures, fewer if they are timeouts, or
the failure rate over the window)──▶ open ──(cooldown over)──▶ half_open: one
probe at a time, held by a lease that expires, so a crashed prober cannot wedge
the endpoint. A probe that succeeds closes the breaker; one that fails reopens
it until `probe_interval_seconds` after that probe was taken (`reopen_until`).

The probe schedule, and why it is the only one. Two promises hold for an
outage of any length: a receiver that stays down gets at most 12 probes in any
hour, and a recovered one gets its probe within 5 minutes. Probes are taken at
least P apart (a probe is taken only once the breaker's `open_until` has passed,
and a failed one sets it P after its own taking), so any hour holds at most
3600 / P of them: 12 needs P ≥ 300 s. A receiver back at time R, just after a
probe taken at a found it down, is probed next at a + P + d, where d is how long
after `open_until` the endpoint's next task comes to take the probe; so it waits
at most P + d, and its first success comes one request later. Any gap between
probes longer than 300 s breaks the second promise for a recovery inside it, and
13 probes less than an hour apart break the first, so once the first probe has
failed the gaps are all exactly P = 300 s (`HOOKLINE_BREAKER_PROBE_INTERVAL_SECONDS`):
a growing cooldown (a share of the outage so far, as before) put up to an hour
between a recovery and its probe. The bound is 300 s + d + one request, never
300 s exactly: d and the request are above zero. Anchoring the next probe to
the failed probe's taking (not its answer) keeps a timed-out probe's deadline
out of it. The first cooldown after opening (`cooldown_seconds`, 60 s) is
shorter: a blip is noticed within a minute, and 60 + 11 × 300 s still fits 12
probes into the first hour.

Health failures are timeouts, connection errors, 5xx and 429; other 4xx say
nothing about the endpoint's health. The hot path stays free: a success on a
closed breaker with no failure streak returns no new state, so nothing is
written. The breaker records every failure and the success that ends a streak,
not the successes after it, so a healthy endpoint's breaker is written about
once per failure, however much traffic follows. The failure-rate rule counts
those recorded outcomes (a run of successes counts once), and forgets them
once no failure has been seen for `history_seconds`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from hookline.core.classify import TIMEOUT, TRANSIENT_ERRORS, Outcome

BreakerState = Literal["closed", "open", "half_open"]
Health = Literal["success", "failure", "neutral"]
HISTORY = 100  # recorded outcomes kept; the trip rule looks at the last `window` of them


@dataclass(frozen=True)
class BreakerConfig:
    """The breaker's rules. Every knob a deployment sets comes from `Settings` (hookline.core.config.breaker_config)
    and has no default here, so the two can never disagree."""

    threshold: int
    cooldown_seconds: float
    probe_interval_seconds: float  # a failed probe reopens the breaker until this long after it was taken
    window: int
    failure_rate: float
    probe_lease_seconds: float
    timeout_threshold: int  # consecutive timeouts that open it: each one held a worker for the whole deadline
    history_seconds: float = 3600.0  # a failure this long after the previous one starts a fresh history


@dataclass(frozen=True)
class Breaker:
    state: BreakerState = "closed"
    consecutive_failures: int = 0
    timeouts: int = 0  # how many of the consecutive failures in a row were timeouts
    open_until: float | None = None  # epoch seconds
    open_since: float | None = None  # start of the current unbroken outage
    cooldown_seconds: float = 0.0  # the cooldown of the latest opening
    trips: int = 0
    probe_until: float | None = None  # the half-open probe's lease
    recent: str = ""  # the last HISTORY recorded outcomes: "0" each failure, "1" the success that ended a streak
    last_error: str = ""
    last_failure_at: float | None = None
    version: int = 0

    @property
    def is_pristine(self) -> bool:
        """Closed with no failure streak: a success changes nothing, so nothing is written."""
        return self.state == "closed" and self.consecutive_failures == 0

    @property
    def holds_workers(self) -> bool:
        """Its latest answers cost a worker the whole deadline: a streak ending in a timeout, or the breaker not closed."""
        return self.state != "closed" or (self.consecutive_failures > 0 and self.last_error == TIMEOUT)


def health(outcome: Outcome) -> Health:
    """What an attempt's outcome says about the endpoint's health."""
    if outcome.status_code is None:
        return "failure" if (outcome.error in TRANSIENT_ERRORS) else "neutral"
    code = outcome.status_code
    if 200 <= code <= 299:
        return "success"
    if code == 429 or 500 <= code <= 599:
        return "failure"
    return "neutral"


@dataclass(frozen=True)
class Admission:
    """Before an attempt: go, wait (no request, no attempt used), or go as the probe."""

    verdict: Literal["go", "wait", "probe"]
    wait_seconds: float = 0.0
    state: Breaker | None = None  # the state to write (the probe's lease) when taking the probe


def admit(b: Breaker, now: float, cfg: BreakerConfig) -> Admission:
    if b.state == "closed":
        return Admission("go")
    if b.state == "open" and b.open_until is not None and now < b.open_until:
        return Admission("wait", b.open_until - now)
    if b.state == "half_open" and b.probe_until is not None and now < b.probe_until:
        # Someone else is probing; come back when its lease would have run out.
        return Admission("wait", b.probe_until - now)
    leased = replace(b, state="half_open", probe_until=now + cfg.probe_lease_seconds, version=b.version + 1)
    return Admission("probe", state=leased)


@dataclass(frozen=True)
class Transition:
    state: Breaker
    event: Literal["opened", "reopened", "recovered", ""] = ""


def record(b: Breaker, verdict: Health, now: float, cfg: BreakerConfig, was_probe: bool = False, error: str = "") -> Transition | None:
    """After an attempt: the new state to write, or None when nothing changes."""
    if was_probe and b.state == "half_open":
        if verdict == "failure":
            until = reopen_until(b, now, cfg)
            reopened = replace(
                b,
                state="open",
                open_until=until,
                cooldown_seconds=until - now,
                probe_until=None,
                last_error=error,
                last_failure_at=now,
                version=b.version + 1,
            )
            return Transition(reopened, "reopened")
        # Any answer but a health failure proves the endpoint is reachable again.
        recent = (b.recent + "1")[-HISTORY:]
        return Transition(Breaker(trips=b.trips, recent=recent, last_error=b.last_error, last_failure_at=b.last_failure_at, version=b.version + 1), "recovered")
    if b.state != "closed":
        return None  # stragglers sent before the breaker opened change nothing
    if verdict == "neutral":
        return None
    if verdict == "success":
        if b.is_pristine:
            return None
        return Transition(replace(b, consecutive_failures=0, timeouts=0, recent=(b.recent + "1")[-HISTORY:], version=b.version + 1))
    fresh = b.last_failure_at is not None and now - b.last_failure_at > cfg.history_seconds
    recent = ("" if fresh else b.recent) + "0"
    recent = recent[-HISTORY:]
    failures = b.consecutive_failures + 1
    considered = recent[-cfg.window :]
    rate_tripped = len(considered) >= cfg.window and considered.count("0") / len(considered) >= cfg.failure_rate
    timeouts = b.timeouts + 1 if error == TIMEOUT else 0
    if failures >= cfg.threshold or rate_tripped or timeouts >= cfg.timeout_threshold:
        opened = Breaker(
            state="open",
            consecutive_failures=failures,
            timeouts=timeouts,
            open_until=now + cfg.cooldown_seconds,
            open_since=b.open_since or now,
            cooldown_seconds=cfg.cooldown_seconds,
            trips=b.trips + 1,
            recent=recent,
            last_error=error,
            last_failure_at=now,
            version=b.version + 1,
        )
        return Transition(opened, "opened")
    return Transition(replace(b, consecutive_failures=failures, timeouts=timeouts, recent=recent, last_error=error, last_failure_at=now, version=b.version + 1))


def reopen_until(b: Breaker, now: float, cfg: BreakerConfig) -> float:
    """Until when a failed probe, answered at `now`, reopens the breaker: `probe_interval_seconds` after the probe was
    taken (its lease began then: `probe_until - probe_lease_seconds`), never before `now`.

    Probes are then taken at least the interval apart, whatever the outage's length and however long a probe took
    to fail (a timeout's whole deadline), so a receiver that stays down gets at most 3600 / interval an hour, and a
    recovered one is probed within the interval of the last failed probe (plus how long the endpoint's next task
    takes to come back): the module's docstring has the arithmetic.
    """
    taken = now if b.probe_until is None else min(now, b.probe_until - cfg.probe_lease_seconds)
    return max(now, taken + cfg.probe_interval_seconds)


def outage_seconds(b: Breaker, now: float) -> float:
    """How long the endpoint has been continuously unhealthy (open or probing)."""
    if b.state == "closed" or b.open_since is None:
        return 0.0
    return now - b.open_since
