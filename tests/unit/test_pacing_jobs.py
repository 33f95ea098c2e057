"""core.jobs.paced: how a bulk job's page is spread over SQS delays at an endpoint's rate. Pure."""

from __future__ import annotations

import pytest

from hookline.core.jobs import paced


@pytest.mark.parametrize(
    ("count", "rate", "delays", "next_in"),
    [
        (5, 2.0, [0, 0, 1, 1, 2], 3),  # two a second; the next step waits until the last has gone out
        (3, 0.5, [0, 2, 4], 6),  # under one a second: whole seconds apart
        (4, 100.0, [0, 0, 0, 0], 1),  # all within the first second
        (0, 5.0, [], 0),  # nothing to send: no wait
    ],
)
def test_a_page_is_spread_at_the_rate(count: int, rate: float, delays: list[int], next_in: int) -> None:
    assert paced(count, rate) == (delays, next_in)


def test_no_second_holds_more_than_the_rate() -> None:
    delays, _ = paced(100, 7.0)
    assert max(delays.count(second) for second in set(delays)) == 7
