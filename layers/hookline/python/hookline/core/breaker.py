"""The per-endpoint circuit breaker: pure decisions over (state, outcome, now).

closed ──(threshold consecutive health failures, fewer if they are timeouts, or
the failure rate over the window)──▶ open ──(cooldown over)──▶ half_open: one
probe at a time, held by a lease that expires, so a crashed prober cannot wedge
the endpoint. A probe that succeeds closes the breaker; one that fails reopens
it for a share of the outage so far (at least the cooldown, at most the
maximum), so the first probe after a recovery comes within that share of the
outage's length.

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
    max_cooldown_seconds: float
    window: int
    failure_rate: float
    probe_lease_seconds: float
    # A failed probe reopens the breaker for this share of the outage so far (at least `cooldown_seconds`,
    # at most `max_cooldown_seconds`): recovery is noticed within a fifth of the outage's length, with
    # probes growing sparser as it lasts (about 30 in a 5-day outage).
    cooldown_fraction: float
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
            cooldown = reopen_cooldown(b, now, cfg)
            reopened = replace(
                b,
                state="open",
                open_until=now + cooldown,
                cooldown_seconds=cooldown,
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


def reopen_cooldown(b: Breaker, now: float, cfg: BreakerConfig) -> float:
    """How long a failed probe reopens the breaker: a share of the outage so far, within [cooldown, max_cooldown].

    Doubling per failed probe would put the next probe as far past a recovery as the outage had lasted;
    a fixed share bounds that delay to `cooldown_fraction` of the outage.
    """
    outage = now - (b.open_since if b.open_since is not None else now)
    return min(max(cfg.cooldown_seconds, cfg.cooldown_fraction * outage), cfg.max_cooldown_seconds)


def outage_seconds(b: Breaker, now: float) -> float:
    """How long the endpoint has been continuously unhealthy (open or probing)."""
    if b.state == "closed" or b.open_since is None:
        return 0.0
    return now - b.open_since
