"""Notes of retries waiting in Step Functions, and the sweeper's checkpoint for them, in memory, as
hookline.adapters.dynamo.waits.RetryWaitRepository keeps them: keyed by due minute, shard and attempt."""

from __future__ import annotations

from hookline.core.models import DeliveryTask
from hookline.core.sweeps import shard_of
from hookline.core.waits import due_minute
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.faults import Faults
from tests.fakes.paging import page

SHARDS = 8

NoteKey = tuple[str, int, str]  # (due minute, shard, <tenant>#<event>#<delivery>#g<n>#a<n>)


def note_key(task: DeliveryTask) -> NoteKey:
    return due_minute(task), shard_of(task.delivery_id, SHARDS), f"{task.tenant}#{task.event_id}#{task.delivery_id}#g{task.generation}#a{task.attempt}"


class FakeWaitNotes:
    """RetryWaitNotes (the sweeper's port) and the scheduler's WaitNotes (open, close)."""

    def __init__(self) -> None:
        self.notes: dict[NoteKey, DeliveryTask] = {}
        self.last_minute: str | None = None
        self.pages_read = 0
        self.faults = Faults()
        self._lock = new_lock()

    @atomic
    def open(self, task: DeliveryTask) -> None:
        self.faults.check("open")
        assert task.wait_until, "a note is of a waiting task"
        self.notes[note_key(task)] = task

    @atomic
    def close(self, tasks: list[DeliveryTask]) -> None:
        self.faults.check("close")
        for task in tasks:
            if task.wait_until:
                self.notes.pop(note_key(task), None)

    def due_page(self, minute: str, shard: int, limit: int, cursor: str | None) -> tuple[list[DeliveryTask], str | None]:
        self.faults.check("due_page")
        self.pages_read += 1
        noted = [(sk, task) for (m, s, sk), task in self.notes.items() if m == minute and s == shard]
        rows, following = page(noted, lambda row: row[0], f"{minute}#{shard}", limit, cursor)
        return [task for _, task in rows], following

    def checkpoint(self) -> str | None:
        return self.last_minute

    def save_checkpoint(self, minute: str) -> None:
        self.last_minute = minute

    def waiting(self) -> list[DeliveryTask]:
        return list(self.notes.values())
