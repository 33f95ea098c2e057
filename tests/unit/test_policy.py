"""Decisions after an attempt and before one, table-tested. Pure."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hookline.core.backoff import BackoffPolicy
from hookline.core.classify import Outcome
from hookline.core.policy import RetryPolicy, decide
from tests.unit.test_backoff import Fixed

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
POLICY = RetryPolicy(backoff=BackoffPolicy(base_seconds=30, cap_seconds=21_600, jitter="full"), max_attempts=12, max_age_seconds=259_200)


@pytest.mark.parametrize(
    ("outcome", "status", "attempt_outcome", "retries", "disable"),
    [
        (Outcome(200), "succeeded", "succeeded", False, False),
        (Outcome(500), "pending", "retrying", True, False),
        (Outcome(429), "pending", "retrying", True, False),
        (Outcome(408), "pending", "retrying", True, False),
        (Outcome(error="timeout"), "pending", "retrying", True, False),
        (Outcome(error="connection_refused"), "pending", "retrying", True, False),
        (Outcome(400), "failed", "failed", False, False),
        (Outcome(401), "failed", "failed", False, False),
        (Outcome(403), "failed", "failed", False, False),
        (Outcome(404), "failed", "failed", False, False),
        (Outcome(422), "failed", "failed", False, False),
        (Outcome(302), "failed", "failed", False, False),
        (Outcome(410), "failed", "failed", False, True),
        (Outcome(error="ssrf_blocked"), "failed", "failed", False, False),
    ],
)
def test_decision_table(outcome: Outcome, status: str, attempt_outcome: str, retries: bool, disable: bool) -> None:
    d = decide(1, NOW, outcome, NOW, POLICY, Fixed(0.5))
    assert (d.status, d.attempt_outcome, d.retry_in_seconds is not None, bool(d.disable_endpoint)) == (status, attempt_outcome, retries, disable)


def test_retry_delay_follows_the_backoff() -> None:
    d = decide(3, NOW, Outcome(503), NOW, POLICY, Fixed(0.5))
    assert d.retry_in_seconds == 120  # half of the 240 s ceiling after attempt 3
    assert d.pause_endpoint_seconds is None


def test_429_without_retry_after_backs_off_steeper() -> None:
    plain = decide(3, NOW, Outcome(503), NOW, POLICY, Fixed(1.0))
    limited = decide(3, NOW, Outcome(429), NOW, POLICY, Fixed(1.0))
    assert limited.retry_in_seconds == 810
    assert plain.retry_in_seconds == 240


def test_retry_after_sets_the_delay_and_pauses_the_endpoint() -> None:
    d = decide(2, NOW, Outcome(429, retry_after="5"), NOW, POLICY, Fixed(0.0))
    assert d.retry_in_seconds == 5
    assert d.pause_endpoint_seconds == 5
    http_date = decide(2, NOW, Outcome(503, retry_after="Sun, 29 Nov 2026 12:01:00 GMT"), NOW, POLICY, Fixed(0.0))
    assert http_date.retry_in_seconds == 60
    garbage = decide(2, NOW, Outcome(429, retry_after="later"), NOW, POLICY, Fixed(1.0))
    assert garbage.pause_endpoint_seconds is None
    assert garbage.retry_in_seconds == 270


def test_exhaustion_by_attempts_counts_the_first() -> None:
    assert decide(11, NOW, Outcome(500), NOW, POLICY, Fixed(0.5)).status == "pending"
    last = decide(12, NOW, Outcome(500), NOW, POLICY, Fixed(0.5))
    assert (last.status, last.exhausted, last.retry_in_seconds) == ("failed", "max_attempts", None)


def test_exhaustion_by_age() -> None:
    created = NOW - timedelta(seconds=259_200 - 100)
    assert decide(4, created, Outcome(500), NOW, POLICY, Fixed(0.0)).status == "pending"  # 1 s < 100 s left
    late = decide(4, created, Outcome(500), NOW, POLICY, Fixed(1.0))  # 480 s would overshoot
    assert (late.status, late.exhausted) == ("failed", "max_age")


def test_an_answer_that_disables_its_endpoint_keeps_the_delivery_whatever_its_budget() -> None:
    """Access denied at a destination: the delivery is retried (and so parked on the disabled endpoint), even on its
    last attempt and past its age, so fixing the access and enabling the endpoint loses nothing."""
    denied = Outcome(error="aws.AccessDenied")
    last = decide(POLICY.max_attempts, NOW - timedelta(days=30), denied, NOW, POLICY, Fixed(0.5))
    assert (last.status, last.attempt_outcome, last.exhausted, last.disable_endpoint) == ("pending", "retrying", None, "access_denied")
    assert last.retry_in_seconds is not None
    gone = decide(1, NOW, Outcome(410), NOW, POLICY, Fixed(0.5))
    assert (gone.status, gone.disable_endpoint) == ("failed", "gone")
