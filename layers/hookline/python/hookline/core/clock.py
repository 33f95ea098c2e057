"""Time as data: the core takes `now` as an argument (the system clock is `hookline.adapters.system.utcnow`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import overload

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def iso(moment: datetime) -> str:
    """UTC, RFC 3339, to the millisecond. The year has four digits even before 1000 (strftime's `%Y` writes `324`)."""
    m = moment.astimezone(UTC)
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}.{m.microsecond // 1000:03d}Z"


@overload
def iso_epoch(value: float) -> str: ...
@overload
def iso_epoch(value: None) -> None: ...
def iso_epoch(value: float | None) -> str | None:
    """Epoch seconds as `iso`, None kept."""
    return None if value is None else iso(datetime.fromtimestamp(value, UTC))


def epoch_ms(moment: datetime) -> int:
    """Epoch milliseconds, exactly the millisecond `iso` writes (float seconds times 1,000 can land a millisecond short)."""
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
