"""Queueing notes and the sweeper's checkpoint in memory, as hookline.adapters.dynamo.unqueued.UnqueuedNoteRepository keeps them."""

from __future__ import annotations

from datetime import datetime

from hookline.core import ids
from hookline.core.sweeps import minute_of, shard_of
from hookline.core.unqueued import UnqueuedNote
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.faults import Faults

SHARDS = 8


class FakeUnqueuedNotes:
    def __init__(self) -> None:
        self.notes: dict[tuple[str, int, str, str], UnqueuedNote] = {}
        self.last_minute: str | None = None
        self.faults = Faults()
        self._lock = new_lock()

    @atomic
    def open(self, tenant: str, event_ids: list[str], now: datetime) -> UnqueuedNote:
        self.faults.check("open")
        token = ids.new_id("unq", int(now.timestamp() * 1000))
        note = UnqueuedNote(minute_of(now), shard_of(token, SHARDS), tenant, token, tuple(event_ids))
        self.notes[(note.minute, note.shard, tenant, token)] = note
        return note

    @atomic
    def close(self, note: UnqueuedNote) -> None:
        self.faults.check("close")
        self.notes.pop((note.minute, note.shard, note.tenant, note.token), None)

    def of_minute(self, minute: str, shard: int) -> list[UnqueuedNote]:
        return sorted((n for (m, s, _, _), n in self.notes.items() if m == minute and s == shard), key=lambda n: (n.tenant, n.token))

    def checkpoint(self) -> str | None:
        return self.last_minute

    def save_checkpoint(self, minute: str) -> None:
        self.last_minute = minute
