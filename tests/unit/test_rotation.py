"""Which previous secrets sign, and what a rotation keeps (hookline.core.rotation): table tests."""

from __future__ import annotations

import pytest

from hookline.core.rotation import MAX_LIVE_SECRETS, LiveSecret, PreviousSecret, TooManySecrets, kept_after_rotation, live_previous

DAY = 86400.0


@pytest.mark.parametrize(
    ("previous", "rotated_at", "now", "live"),
    [
        ((), None, 0.0, ()),
        # each signs until its own end, the one signing longest first; an ended one does not sign
        ((PreviousSecret("a", 100.0), PreviousSecret("b", 200.0)), 150.0, 99.9, (LiveSecret("b", 200.0), LiveSecret("a", 100.0))),
        ((PreviousSecret("a", 100.0), PreviousSecret("b", 200.0)), 150.0, 100.0, (LiveSecret("b", 200.0),)),
        # the one previous secret of the last release signs until rotated_at + the overlap
        ((PreviousSecret("old", None),), 1000.0, 1000.0 + DAY - 1, (LiveSecret("old", 1000.0 + DAY),)),
        ((PreviousSecret("old", None),), 1000.0, 1000.0 + DAY, ()),
    ],
)
def test_live_previous(previous: tuple[PreviousSecret, ...], rotated_at: float | None, now: float, live: tuple[LiveSecret, ...]) -> None:
    assert live_previous(previous, rotated_at, now, DAY) == live


@pytest.mark.parametrize(
    ("previous", "now", "kept"),
    [
        # the replaced secret signs for the overlap; an earlier live one keeps its own end; an ended one is dropped
        ((), 10.0, (LiveSecret("cur", 10.0 + DAY),)),
        ((PreviousSecret("a", 20.0),), 10.0, (LiveSecret("cur", 10.0 + DAY), LiveSecret("a", 20.0))),
        ((PreviousSecret("a", 20.0),), 20.0, (LiveSecret("cur", 20.0 + DAY),)),
        # at the most, the rotation is refused, naming the oldest's end
        (tuple(PreviousSecret(f"p{i}", 100.0 + i) for i in range(MAX_LIVE_SECRETS - 1)), 10.0, TooManySecrets(oldest_until=100.0)),
    ],
)
def test_kept_after_rotation(previous: tuple[PreviousSecret, ...], now: float, kept: object) -> None:
    assert kept_after_rotation("cur", previous, 5.0, now, DAY) == kept
