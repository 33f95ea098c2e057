"""What to do around an attempt: pure functions of (state, outcome, now, randomness).

`decide` runs after an attempt: succeed, fail for good, or retry after a
delay (backoff, or the receiver's Retry-After, which also pauses the whole
endpoint; while it is paused, `core.planning` puts its tasks off without a
request and without using up an attempt).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from hookline.core.backoff import BackoffPolicy, RandomSource, parse_retry_after
from hookline.core.classify import Classification, Outcome, Verdict, classify


@dataclass(frozen=True)
class RetryPolicy:
    backoff: BackoffPolicy
    max_attempts: int  # every attempt counts, the first included
    max_age_seconds: float  # no attempt is scheduled later than this after the event


@dataclass(frozen=True)
class Decision:
    status: str  # the delivery's new status: succeeded | failed | pending
    classification: Classification
    attempt_outcome: str  # what the attempt record says: succeeded | failed | retrying
    retry_in_seconds: float | None = None
    pause_endpoint_seconds: float | None = None
    disable_endpoint: str = ""  # why the answer disables the endpoint (hookline.core.classify); "": it does not
    exhausted: str | None = None  # max_attempts | max_age, when retries ran out


def decide(
    attempt_number: int,
    created_at: datetime,
    outcome: Outcome,
    now: datetime,
    policy: RetryPolicy,
    rng: RandomSource,
) -> Decision:
    c = classify(outcome)
    if c.verdict is Verdict.SUCCESS:
        return Decision("succeeded", c, "succeeded")
    if c.verdict is Verdict.PERMANENT:
        return Decision("failed", c, "failed", disable_endpoint=c.disable_endpoint)
    if c.disable_endpoint:
        # The endpoint is disabled by this answer: the retry finds it disabled and parks the delivery until it is
        # enabled again, whatever is left of its budget, so fixing the access loses nothing.
        delay = policy.backoff.delay(attempt_number, rng)
        return Decision("pending", c, "retrying", retry_in_seconds=delay, disable_endpoint=c.disable_endpoint)
    asked = parse_retry_after(outcome.retry_after, now)
    if asked is not None:
        delay = policy.backoff.honour_retry_after(asked, rng)
        pause: float | None = delay
    else:
        delay = policy.backoff.delay(attempt_number, rng, rate_limited=outcome.status_code == 429)
        pause = None
    if attempt_number >= policy.max_attempts:
        return Decision("failed", c, "failed", pause_endpoint_seconds=pause, exhausted="max_attempts")
    age_at_next = (now - created_at).total_seconds() + delay
    if age_at_next > policy.max_age_seconds:
        return Decision("failed", c, "failed", pause_endpoint_seconds=pause, exhausted="max_age")
    return Decision("pending", c, "retrying", retry_in_seconds=delay, pause_endpoint_seconds=pause)
