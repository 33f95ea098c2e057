"""A delivery batch's statistics, added up in memory and written once at the end of the batch.

So statistics cost a fraction of a write per delivery: an endpoint's ride on the
write that gives its concurrency leases back (hookline.core.stats.Carried), and
the rest (an endpoint the batch held no lease for) take one ADD per endpoint and
hour (hookline.adapters.dynamo.stats), whatever the batch's size; and one per
payload version and day for the versions' usage report.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from functools import partial

from hookline.core.clock import iso
from hookline.core.stats import hour_of
from hookline.services.delivery.ports import StatsSink, VersionUsageSink

_log = logging.getLogger(__name__)


class StatsBuffer:
    """A batch's counters, per (tenant, endpoint, hour); thread-safe, written once per batch to `sink` (None: not kept)."""

    def __init__(self, sink: StatsSink | None = None, usage: VersionUsageSink | None = None) -> None:
        self._sink = sink
        self._usage = usage
        self._lock = threading.Lock()
        self._data: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self._versions: dict[tuple[str, str, str], tuple[int, datetime]] = {}

    def add_version(self, tenant: str, version: str, at: datetime) -> None:
        """One delivery sent at `version`."""
        with self._lock:
            key = (tenant, version, at.strftime("%Y-%m-%d"))
            count, last = self._versions.get(key, (0, at))
            self._versions[key] = (count + 1, max(last, at))

    def add(self, tenant: str, endpoint_id: str, at: datetime, counts: dict[str, int]) -> None:
        with self._lock:
            slot = self._data[(tenant, endpoint_id, hour_of(at))]
            for k, v in counts.items():
                slot[k] += v

    def take(self, tenant: str, endpoint_id: str) -> dict[str, dict[str, int]]:
        """One endpoint's counters added so far, by hour, taken out of the buffer (its give-back writes them)."""
        with self._lock:
            hours = [key for key in self._data if key[:2] == (tenant, endpoint_id)]
            return {key[2]: dict(self._data.pop(key)) for key in hours}

    def drain(self) -> dict[tuple[str, str, str], dict[str, int]]:
        """Everything added so far, emptying the buffer."""
        with self._lock:
            data, self._data = self._data, defaultdict(lambda: defaultdict(int))
        return {k: dict(v) for k, v in data.items()}

    def writes(self) -> list[Callable[[], None]]:
        """One write per (tenant, endpoint, hour) and per (tenant, version, day) added up so far, emptying the buffer; each logs its own failure."""
        with self._lock:
            versions, self._versions = self._versions, {}
        work: list[Callable[[], None]] = [partial(self._write, key, counts) for key, counts in self.drain().items()] if self._sink is not None else []
        if self._usage is not None:
            work += [partial(self._write_usage, key, *value) for key, value in versions.items()]
        return work

    def _write_usage(self, key: tuple[str, str, str], count: int, last: datetime) -> None:
        assert self._usage is not None
        tenant, version, day = key
        try:
            self._usage.add(tenant, version, day, count, iso(last))
        except Exception:  # like the statistics, best effort
            _log.exception("version usage not written", extra={"tenant": tenant, "version": version})

    def _write(self, key: tuple[str, str, str], counts: dict[str, int]) -> None:
        assert self._sink is not None
        tenant, endpoint_id, hour = key
        try:
            self._sink.add(tenant, endpoint_id, hour, counts)
        except Exception:  # statistics are best effort; a delivery never fails for them
            _log.exception("statistics not written", extra={"tenant": tenant, "endpoint_id": endpoint_id})
