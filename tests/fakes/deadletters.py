"""The delivery DLQ in memory, as hookline.adapters.dlq.SqsDeadLetterQueue reads it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from hookline.core.deadletters import DeadLetter
from tests.fakes.clock import FakeClock
from tests.fakes.faults import Faults


@dataclass
class _Held:
    body: str
    reason: str
    hidden_until: datetime | None = None


class FakeDeadLetterQueue:
    """DeadLetterQueue: `receive` hands out up to ten visible letters (oldest first), each hidden for `hide_seconds` on
    the clock; `delete` removes the letters it names (a handle received before is enough, as SQS's)."""

    def __init__(self, clock: FakeClock) -> None:
        self._clock = clock
        self.letters: dict[str, _Held] = {}
        self.faults = Faults()
        self._next = 0

    def put(self, body: str, reason: str = "max_attempts") -> None:
        self._next += 1
        self.letters[f"m{self._next:06d}"] = _Held(body, reason)

    def receive(self, max_messages: int, hide_seconds: int) -> list[DeadLetter]:
        self.faults.check("receive")
        now = self._clock()
        visible = [(handle, held) for handle, held in self.letters.items() if held.hidden_until is None or held.hidden_until <= now]
        taken = visible[: max(1, min(10, max_messages))]
        for _, held in taken:
            held.hidden_until = now + timedelta(seconds=hide_seconds)
        return [DeadLetter(held.body, held.reason, handle) for handle, held in taken]

    def delete(self, letters: list[DeadLetter]) -> None:
        self.faults.check("delete")
        for letter in letters:
            self.letters.pop(letter.handle, None)

    def visible(self) -> int:
        now = self._clock()
        return sum(1 for held in self.letters.values() if held.hidden_until is None or held.hidden_until <= now)

    def bodies(self) -> list[str]:
        return [held.body for held in self.letters.values()]
