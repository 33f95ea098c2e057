"""Unqueued notes: accepted requests whose events may be stored but not all queued yet. Pure.

A request that fails (503) after it may have stored its events notes their ids on
its way out, in an unqueued note kept under the minute it was written
(hookline.core.sweeps). Past the grace period, the sweeper queues the noted events'
deliveries that are still unsent (a duplicate task, should the producer have
repeated the request meanwhile, is harmless: the attempt claim lets one copy
deliver), then drops the note.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UnqueuedNote:
    minute: str
    shard: int
    tenant: str
    token: str
    event_ids: tuple[str, ...]
