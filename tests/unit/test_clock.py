"""The one time format every answer and item uses (hookline.core.clock.iso): RFC 3339 in UTC, to the millisecond."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from hookline.core.clock import iso, iso_epoch, parse_iso


@pytest.mark.parametrize(
    ("moment", "shown"),
    [
        (datetime(2026, 3, 14, 9, 26, 53, 589_999, tzinfo=UTC), "2026-03-14T09:26:53.589Z"),
        (datetime(2026, 3, 14, 10, 26, 53, tzinfo=timezone(timedelta(hours=1))), "2026-03-14T09:26:53.000Z"),
        # strftime's %Y writes 324 for the year 324: not RFC 3339, and what a producer's sunset_at may name
        (datetime(324, 7, 28, 10, 9, 5, tzinfo=timezone(timedelta(hours=8, minutes=36))), "0324-07-28T01:33:05.000Z"),
        (datetime(1, 1, 2, tzinfo=UTC), "0001-01-02T00:00:00.000Z"),
    ],
)
def test_iso_is_rfc_3339_utc_to_the_millisecond(moment: datetime, shown: str) -> None:
    assert iso(moment) == shown
    assert parse_iso(shown) == moment.astimezone(UTC).replace(microsecond=moment.microsecond // 1000 * 1000)


def test_epoch_seconds_read_as_the_same_format() -> None:
    assert iso_epoch(0.0) == "1970-01-01T00:00:00.000Z"
    assert iso_epoch(None) is None
