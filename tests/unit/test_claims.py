"""The single-flight claim's rule, table-tested (hookline.core.claims). Pure."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hookline.core.claims import claim_verdict
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
