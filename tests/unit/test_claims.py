"""The single-flight claim's rule, table-tested (hookline.core.claims). Pure."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hookline.core.claims import claim_verdict, unsent_restart
from hookline.core.models import Delivery

NOW = 1_000.0
PENDING = Delivery("dlv_1", "acme", "evt_1", "ep_1", status="pending", attempts_made=1, generation=2)

CASES = {
    "open for the attempt": (PENDING, 2, 2, "go"),
    "paused: the task's return resumes it": (replace(PENDING, status="paused"), 2, 2, "go"),
    "an expired lease is no lease": (replace(PENDING, lease_attempt=2, lease_until=NOW - 0.001), 2, 2, "go"),
    "already recorded": (PENDING, 1, 2, "done"),
    "succeeded": (replace(PENDING, status="succeeded"), 2, 2, "done"),
    "failed": (replace(PENDING, status="failed"), 2, 2, "done"),
    "another generation": (PENDING, 2, 1, "done"),
    "the same attempt leased by another copy": (replace(PENDING, lease_attempt=2, lease_until=NOW), 2, 2, "done"),
    "an earlier attempt still being recorded": (replace(PENDING, lease_attempt=1, lease_until=NOW + 5), 2, 2, "busy"),
    "gone": (None, 2, 2, "missing"),
}


@pytest.mark.parametrize(("delivery", "number", "generation", "verdict"), CASES.values(), ids=CASES.keys())
def test_claim_verdict(delivery: Delivery | None, number: int, generation: int, verdict: str) -> None:
    assert claim_verdict(delivery, number, generation, NOW) == verdict


RESTARTED = Delivery("dlv_1", "acme", "evt_1", "ep_1", status="pending", attempts_made=12, generation=1, generation_first_attempt=13)

UNSENT_RESTARTS = {
    "restarted, its first attempt not made": (RESTARTED, 0, True),
    "any restart, when no generation is given": (replace(RESTARTED, generation=3), None, True),
    "the first attempt made": (replace(RESTARTED, attempts_made=13), 0, False),
    "restarted from another generation": (RESTARTED, 1, False),
    "never restarted: a new event's fresh task does not claim": (replace(RESTARTED, generation=0, attempts_made=0, generation_first_attempt=1), None, False),
    "paused: its endpoint's re-enable queues it": (replace(RESTARTED, status="paused"), 0, False),
    "finished": (replace(RESTARTED, status="succeeded"), 0, False),
    "gone": (None, 0, False),
}


@pytest.mark.parametrize(("delivery", "from_generation", "unsent"), UNSENT_RESTARTS.values(), ids=UNSENT_RESTARTS.keys())
def test_unsent_restart(delivery: Delivery | None, from_generation: int | None, unsent: bool) -> None:
    assert unsent_restart(delivery, from_generation) is unsent
