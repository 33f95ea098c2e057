"""The minute buckets a sweeper reads: notes kept under the minute they are due, spread over shards. Pure.

Two kinds of note use them: unqueued notes (hookline.core.unqueued) and wait
notes (hookline.core.waits). The sweeper reads each minute once all of its
notes are past their margin, and keeps a checkpoint of the last minute it
finished, so each run reads only the minutes since.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from datetime import datetime, timedelta

MINUTE_FORMAT = "%Y-%m-%dT%H:%M"
FIRST_LOOK_BACK = timedelta(hours=1)  # how far back a sweeper with no checkpoint starts
MAX_MINUTES_PER_SWEEP = 120  # one run's bound: a sweeper that fell behind catches up over a few runs


def minute_of(moment: datetime) -> str:
    return moment.strftime(MINUTE_FORMAT)


def shard_of(token: str, shards: int) -> int:
    return hashlib.sha256(token.encode()).digest()[0] % shards


def minutes_to_sweep(checkpoint: str | None, now: datetime, grace: timedelta) -> list[str]:
    """The minutes after `checkpoint` whose notes are past the grace period, oldest first, at most MAX_MINUTES_PER_SWEEP."""
    last = (now - grace).replace(second=0, microsecond=0) - timedelta(minutes=1)
    start = datetime.strptime(checkpoint, MINUTE_FORMAT).replace(tzinfo=now.tzinfo) + timedelta(minutes=1) if checkpoint else last - FIRST_LOOK_BACK
    return list(_minutes(start, last))[:MAX_MINUTES_PER_SWEEP]


def _minutes(start: datetime, last: datetime) -> Iterator[str]:
    moment = start
    while moment <= last:
        yield minute_of(moment)
        moment += timedelta(minutes=1)
