"""Time as data: the core takes `now` as an argument (the system clock is `hookline.adapters.system.utcnow`)."""

from __future__ import annotations

from datetime import UTC, datetime


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def iso_epoch(value: float | None) -> str | None:
    """Epoch seconds as `iso`, None kept."""
    return None if value is None else iso(datetime.fromtimestamp(value, UTC))


def parse_iso(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
