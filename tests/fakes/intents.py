"""Queueing notes and the sweeper's checkpoint in memory, as hookline.adapters.dynamo.intents.IntentRepository keeps them."""

from __future__ import annotations

from datetime import datetime

from hookline.core import ids
from hookline.core.intents import Intent, minute_of, shard_of
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.faults import Faults

SHARDS = 8


class FakeIntentStore:
    def __init__(self) -> None:
        self.notes: dict[tuple[str, int, str, str], Intent] = {}
        self.last_minute: str | None = None
        self.faults = Faults()
        self._lock = new_lock()

    @atomic
    def open(self, tenant: str, event_ids: list[str], now: datetime) -> Intent:
        self.faults.check("open")
        token = ids.new_id("unq", int(now.timestamp() * 1000))
        note = Intent(minute_of(now), shard_of(token, SHARDS), tenant, token, tuple(event_ids))
        self.notes[(note.minute, note.shard, tenant, token)] = note
        return note

    @atomic
    def close(self, intent: Intent) -> None:
        self.faults.check("close")
        self.notes.pop((intent.minute, intent.shard, intent.tenant, intent.token), None)

    def of_minute(self, minute: str, shard: int) -> list[Intent]:
        return sorted((n for (m, s, _, _), n in self.notes.items() if m == minute and s == shard), key=lambda n: (n.tenant, n.token))

    def checkpoint(self) -> str | None:
        return self.last_minute

    def save_checkpoint(self, minute: str) -> None:
        self.last_minute = minute
