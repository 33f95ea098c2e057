"""A conditional write of versioned state (a breaker, a limiter) that lost the race to another writer.

A refused conditional write costs the same write units whether or not it says what beat it, and asked to
(ReturnValuesOnConditionCheckFailure=ALL_OLD) DynamoDB returns the item as it is with the refusal, at no read
units: the next proposal is made from that state instead of from a consistent read of it
(hookline.services.cas.compare_and_swap)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lost[S]:
    """A save refused because the version was no longer the one read. `current`: the state that is there now, as
    the refusal returned it; None when it did not (read it again). False in a condition, like the refusal it is."""

    current: S | None = None

    def __bool__(self) -> bool:
        return False
