"""A delivery batch's statistics, added up in memory and written once at the end of the batch.

So statistics cost a fraction of a write per delivery: one ADD per endpoint
and hour (hookline.adapters.dynamo.stats), whatever the batch's size.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from datetime import datetime

from hookline.core.stats import hour_of


class StatsBuffer:
    """A batch's counters, per (tenant, endpoint, hour); thread-safe, flushed once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def add(self, tenant: str, endpoint_id: str, at: datetime, counts: dict[str, int]) -> None:
        with self._lock:
            slot = self._data[(tenant, endpoint_id, hour_of(at))]
            for k, v in counts.items():
                slot[k] += v

    def drain(self) -> dict[tuple[str, str, str], dict[str, int]]:
        """Everything added so far, emptying the buffer."""
        with self._lock:
            data, self._data = self._data, defaultdict(lambda: defaultdict(int))
        return {k: dict(v) for k, v in data.items()}
