"""Time under the test's control: a clock that moves only when told to, and a sleep that moves it instead of waiting."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


class FakeClock:
    """For `clock: Callable[[], datetime]` (call it), `sleep` and `monotonic`; set `now` to jump.

    `sleep(seconds)` records the wait in `slept` and advances the clock by it
    at once. Like the system clock it resolves microseconds, which the
    adapters' stored epochs (kept to the millisecond or microsecond) rely on.
    """

    def __init__(self, start: datetime = START):
        self.now = start
        self._origin = start
        self.slept: list[float] = []

    def __call__(self) -> datetime:
        return self.now

    def timestamp(self) -> float:
        return self.now.timestamp()

    def monotonic(self) -> float:
        return (self.now - self._origin).total_seconds()

    def advance(self, seconds: float) -> datetime:
        if seconds < 0:
            raise ValueError("time does not go back; set `now` to jump on purpose")
        self.now += timedelta(seconds=seconds)
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(max(0.0, seconds))
