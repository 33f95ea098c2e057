"""The sweeper: deliveries stored but never queued are found and queued (hookline.core.intents).

A scheduled run (EventBridge Scheduler in the stack, a timer in local mode) reads
the notes of each minute past the grace period since its checkpoint: one Query per
minute and shard, so its cost follows the minutes, not the data, and a note exists
only for a request that failed after it may have stored its events. For
each note it queues the noted events' deliveries that are still pending and never
attempted, then drops the note. It reports how many events it found so (the
`UnqueuedFound` metric, with an alarm): in a healthy stack none.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from hookline.core.intents import Intent, minutes_to_sweep
from hookline.services.events import EventService

_log = logging.getLogger(__name__)


class IntentStore(Protocol):
    def of_minute(self, minute: str, shard: int) -> list[Intent]: ...

    def close(self, intent: Intent) -> None: ...

    def checkpoint(self) -> str | None: ...

    def save_checkpoint(self, minute: str) -> None: ...


class StalledJobs(Protocol):
    def resume_stalled(self) -> int: ...


@dataclass(frozen=True)
class Sweeper:
    intents: IntentStore
    events: EventService
    clock: Callable[[], datetime]
    grace_seconds: float
    shards: int
    jobs: StalledJobs | None = None  # resumes running jobs whose chain of steps was lost

    def sweep(self) -> dict[str, Any]:
        """One run: the minutes due since the checkpoint; what it found and queued."""
        now = self.clock()
        minutes = minutes_to_sweep(self.intents.checkpoint(), now, timedelta(seconds=self.grace_seconds))
        found = queued = notes = 0
        for minute in minutes:
            for shard in range(self.shards):
                for intent in self.intents.of_minute(minute, shard):
                    notes += 1
                    for event_id in intent.event_ids:
                        n = self.events.queue_unsent(intent.tenant, event_id)
                        if n:
                            found += 1
                            queued += n
                            _log.warning("stored event found unqueued", extra={"tenant": intent.tenant, "event_id": event_id, "deliveries": n})
                    self.intents.close(intent)
            self.intents.save_checkpoint(minute)  # a run that dies mid-way goes on from the last minute it finished
        resumed = self.jobs.resume_stalled() if self.jobs is not None else 0
        return {"minutes": len(minutes), "notes": notes, "unqueued_events": found, "queued_deliveries": queued, "stalled_jobs_resumed": resumed}
