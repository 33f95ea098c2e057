"""What to do after an attempt: a pure function of the delivery and the outcome."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from hookline.classify import Classification, Outcome, Verdict, classify


@dataclass(frozen=True)
class Decision:
    status: str  # the delivery's new status: succeeded | failed | pending
    classification: Classification
    attempt_outcome: str  # what the attempt record says: succeeded | failed


def decide(attempt_number: int, outcome: Outcome, now: datetime) -> Decision:
    """This slice delivers once: 2xx succeeds, anything else fails the delivery.

    The retries issue extends this with backoff for Verdict.RETRY.
    """
    del attempt_number, now  # part of the contract the retry policy will use
    c = classify(outcome)
    if c.verdict is Verdict.SUCCESS:
        return Decision("succeeded", c, "succeeded")
    return Decision("failed", c, "failed")
