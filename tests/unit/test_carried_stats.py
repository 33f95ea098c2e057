"""hookline.core.stats.carry: a batch's statistics ride on the write that gives its leases back; hold_over: when a hot endpoint's held counters are written."""

from __future__ import annotations

import pytest

from hookline.core.stats import HOLD_ATTEMPTS, HOLD_SECONDS, Carried, CarryOver, carry, hold_over

TEN, ELEVEN, TWELVE = "2026-11-29T10", "2026-11-29T11", "2026-11-29T12"
OK = {"attempts": 1, "succeeded": 1}


@pytest.mark.parametrize(
    ("before", "batch", "expected"),
    [
        # nothing carried yet: the batch's hour is carried, named by the write's token
        (Carried(), {TEN: OK}, CarryOver(Carried(TEN, (("attempts", 1), ("succeeded", 1)), "7"))),
        # the same hour: added to what is carried, which keeps its token
        (Carried(TEN, (("attempts", 2), ("succeeded", 2)), "3"), {TEN: OK}, CarryOver(Carried(TEN, (("attempts", 3), ("succeeded", 3)), "3"))),
        # a later hour: the carried counters are moved out, the later hour is carried under the new token
        (
            Carried(TEN, (("attempts", 2),), "3"),
            {ELEVEN: {"attempts": 1, "failed": 1}},
            CarryOver(Carried(ELEVEN, (("attempts", 1), ("failed", 1)), "7"), moved=Carried(TEN, (("attempts", 2),), "3")),
        ),
        # a batch that ran across the hour: its earlier hour is added to that hour's item, the later is carried
        (
            Carried(TEN, (("attempts", 2),), "3"),
            {TEN: OK, ELEVEN: OK},
            CarryOver(Carried(ELEVEN, (("attempts", 1), ("succeeded", 1)), "7"), moved=Carried(TEN, (("attempts", 2),), "3"), added=((TEN, OK),)),
        ),
        # a late batch of an hour before the carried one: added on its own, the carried hour stays as it is
        (Carried(ELEVEN, (("attempts", 4),), "5"), {TEN: OK}, CarryOver(Carried(ELEVEN, (("attempts", 4),), "5"), added=((TEN, OK),))),
        # no counters (a batch that sent nothing to the endpoint): nothing moves, nothing is added
        (Carried(TEN, (("attempts", 4),), "5"), {}, CarryOver(Carried(TEN, (("attempts", 4),), "5"))),
        (Carried(TEN, (("attempts", 4),), "5"), {TWELVE: {"attempts": 0}}, CarryOver(Carried(TEN, (("attempts", 4),), "5"))),
        # an empty carried hour is not moved: there is nothing to count
        (Carried(TEN, (), "5"), {ELEVEN: OK}, CarryOver(Carried(ELEVEN, (("attempts", 1), ("succeeded", 1)), "7"))),
    ],
)
def test_a_batch_is_carried_moved_or_added_by_its_hour(before: Carried, batch: dict[str, dict[str, int]], expected: CarryOver) -> None:
    assert carry(before, batch, "7") == expected


def test_every_counter_is_counted_once_whatever_the_order_of_the_hours() -> None:
    # Batches arriving in any order of hours: what is moved, added and finally carried adds up to what was counted
    batches = [{TEN: OK}, {ELEVEN: OK}, {TEN: OK}, {TEN: OK, ELEVEN: OK}, {TWELVE: OK}, {ELEVEN: OK}, {TWELVE: OK}]
    carried, written = Carried(), {TEN: 0, ELEVEN: 0, TWELVE: 0}
    for n, batch in enumerate(batches):
        over = carry(carried, batch, str(n))
        if over.moved is not None:
            written[over.moved.hour] += over.moved.as_dict()["attempts"]
        for hour, counts in over.added:
            written[hour] += counts["attempts"]
        carried = over.carried
    written[carried.hour] += carried.as_dict()["attempts"]
    assert written == {TEN: 3, ELEVEN: 3, TWELVE: 2}


@pytest.mark.parametrize(
    ("since", "attempts", "now", "due"),
    [
        (100.0, 1, 100.5, False),  # half a second, one attempt: held
        (100.0, HOLD_ATTEMPTS - 1, 100.99, False),  # just short of both
        (100.0, 1, 100.0 + HOLD_SECONDS, True),  # a second old: written, however few
        (100.0, HOLD_ATTEMPTS, 100.01, True),  # HOLD_ATTEMPTS of them: written, however young
    ],
)
def test_a_hot_endpoint_s_held_counters_are_due_at_a_second_or_at_hold_attempts(since: float, attempts: int, now: float, due: bool) -> None:
    assert hold_over(since, attempts, now) is due
