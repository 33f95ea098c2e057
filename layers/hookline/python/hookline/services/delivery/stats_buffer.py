"""A delivery batch's statistics, added up in memory and written once at the end of the batch.

So statistics cost a fraction of a write per delivery: an endpoint's ride on the
write that gives its concurrency leases back (hookline.core.stats.Carried), and
the rest (an endpoint the batch held no lease for) take one ADD per endpoint and
hour (hookline.adapters.dynamo.stats), whatever the batch's size; and one per
payload version and day for the versions' usage report.

A hot endpoint this process paces by a token lease (hookline.core.leases) is the
exception: its counters and its version usage are held here across batches, and
written once due (hookline.core.stats.hold_over), or carried on the give-back of
the lease; not once per batch, which at thousands of deliveries a second would
put the batch rate on one statistics item and one version-use item.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from functools import partial

from hookline.core.clock import iso
from hookline.core.stats import hold_over, hour_of, version_use_due
from hookline.services.delivery.ports import StatsSink, VersionUsageSink

_log = logging.getLogger(__name__)

Held = Callable[[str, str], bool]  # (tenant, endpoint id): whether this process holds the endpoint's counters across batches


def _nothing_held(_tenant: str, _endpoint_id: str) -> bool:
    return False


class StatsBuffer:
    """Counters per (tenant, endpoint, hour) and version use per (tenant, version, day); thread-safe. Counters are
    written at the end of each batch to `sink` (None: not kept), but for the endpoints held across batches; version use
    to `usage` at most once every VERSION_USE_HOLD_SECONDS per (tenant, version, day) (hookline.core.stats)."""

    def __init__(self, sink: StatsSink | None = None, usage: VersionUsageSink | None = None) -> None:
        self._sink = sink
        self._usage = usage
        self._lock = threading.Lock()
        self._data: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self._versions: dict[tuple[str, str, str], tuple[int, datetime]] = {}
        self._versions_written: dict[tuple[str, str, str], float] = {}  # per (tenant, version, day): when last written
        self._since: dict[tuple[str, str], tuple[float, int]] = {}  # per endpoint: its oldest unwritten attempt, and how many since

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
            self._note(tenant, endpoint_id, at, counts.get("attempts", 0))

    def _note(self, tenant: str, endpoint_id: str, at: datetime, attempts: int) -> None:
        since, count = self._since.get((tenant, endpoint_id), (at.timestamp(), 0))
        self._since[(tenant, endpoint_id)] = (min(since, at.timestamp()), count + attempts)

    def take(self, tenant: str, endpoint_id: str) -> dict[str, dict[str, int]]:
        """One endpoint's counters added so far, by hour, taken out of the buffer (its give-back writes them)."""
        with self._lock:
            hours = [key for key in self._data if key[:2] == (tenant, endpoint_id)]
            return {key[2]: dict(self._data.pop(key)) for key in hours}

    def _take_due(self, now: float | None, held: Held) -> tuple[dict[tuple[str, str, str], dict[str, int]], dict[tuple[str, str, str], tuple[int, datetime]]]:
        """What is to be written now, taken out of the buffer: the counters by (tenant, endpoint, hour), and the version
        use by (tenant, version, day). Without `now`, everything. With it, the endpoints `held` keep their counters
        until due (hookline.core.stats.hold_over), and a version's use written in the last VERSION_USE_HOLD_SECONDS waits
        until they are over (version_use_due)."""
        with self._lock:
            kept = {key for key, (since, count) in self._since.items() if now is not None and held(*key) and not hold_over(since, count, now)}
            data = {k: dict(v) for k, v in self._data.items() if k[:2] not in kept}
            for key in data:
                del self._data[key]
            self._since = {key: value for key, value in self._since.items() if key in kept}
            due = [k for k in self._versions if now is None or version_use_due(self._versions_written.get(k), now)]
            usage = {k: self._versions.pop(k) for k in due}
            if now is not None:
                # Only the recent ones matter: an older write no longer holds anything back
                self._versions_written = {k: t for k, t in self._versions_written.items() if not version_use_due(t, now)}
                self._versions_written.update(dict.fromkeys(due, now))
        return data, usage

    def writes(self, now: float | None = None, held: Held = _nothing_held) -> list[Callable[[], None]]:
        """One write per (tenant, endpoint, hour) and per (tenant, version, day) added up so far, emptying the buffer;
        each logs its own failure. With `now`, the endpoints `held` (this process paces them by a token lease) keep
        theirs until they are due (hookline.core.stats.hold_over), and a version's use written within the last
        VERSION_USE_HOLD_SECONDS waits until they are over (version_use_due). Without it, everything (a flush)."""
        data, usage = self._take_due(now, held)
        work: list[Callable[[], None]] = [partial(self._write, key, counts) for key, counts in data.items() if counts] if self._sink is not None else []
        if self._usage is not None:
            work += [partial(self._write_usage, key, *value) for key, value in usage.items()]
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
