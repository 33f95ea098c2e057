"""Delivery statistics as numbers: what one attempt adds, and what a window of counters says.

Counters are kept per endpoint and hour; latency as a histogram of fixed
buckets, so each percentile is reported as the upper bound of its bucket.

The two health metrics a producer watches:
* first-attempt delivery rate: deliveries that succeeded on their first
  scheduled attempt, out of all first attempts;
* eventual delivery success rate: deliveries that ended succeeded, out of all
  that ended (succeeded or failed for good).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

# Upper bounds of the latency buckets, in ms; the last one is open-ended.
BUCKETS_MS = (10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000)
# `polled`: a polling endpoint's deliveries a poll moved past (its receiver has them), counted by the poll.
COUNTERS = ("attempts", "succeeded", "failed", "first_attempts", "first_attempt_succeeded", "ended_succeeded", "ended_failed", "polled")
HOUR_FORMAT = "%Y-%m-%dT%H"


def bucket(duration_ms: int) -> str:
    for i, bound in enumerate(BUCKETS_MS):
        if duration_ms <= bound:
            return f"l{i:02d}"
    return f"l{len(BUCKETS_MS):02d}"


def is_counter(name: str) -> bool:
    """A counter or a histogram bucket, as opposed to an item's other attributes."""
    return name in COUNTERS or name.startswith("l")


def percentile(histogram: dict[str, int], p: float) -> int | None:
    """The bucket bound below which `p` of the attempts fall (None without data; 30001+ for the open bucket)."""
    total = sum(histogram.values())
    if total == 0:
        return None
    rank, seen = p * total, 0
    for i in range(len(BUCKETS_MS) + 1):
        seen += histogram.get(f"l{i:02d}", 0)
        if seen >= rank:
            return BUCKETS_MS[i] if i < len(BUCKETS_MS) else BUCKETS_MS[-1] + 1
    return BUCKETS_MS[-1] + 1


def hour_of(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(HOUR_FORMAT)


def attempt_counts(succeeded: bool, duration_ms: int, first: bool, ended: str) -> dict[str, int]:
    """The counters one attempt adds. `ended` is the delivery's status if it ended here, else ''."""
    counts = {"attempts": 1, "succeeded" if succeeded else "failed": 1, bucket(duration_ms): 1}
    if first:
        counts["first_attempts"] = 1
        if succeeded:
            counts["first_attempt_succeeded"] = 1
    if ended == "succeeded":
        counts["ended_succeeded"] = 1
    elif ended == "failed":
        counts["ended_failed"] = 1
    return counts


def add_up(hours: Iterable[dict[str, int]]) -> dict[str, int]:
    """Hourly counters added up into a window's totals."""
    totals: dict[str, int] = {}
    for counts in hours:
        for name, value in counts.items():
            totals[name] = totals.get(name, 0) + value
    return totals


def hour_counts(hour: str, counts: dict[str, int]) -> dict[str, Any]:
    """One hour of a series: its start (ISO-8601 UTC) and its attempt and delivery counters."""
    start = datetime.strptime(hour, HOUR_FORMAT).replace(tzinfo=UTC).isoformat().replace("+00:00", "Z")
    return {"hour": start, **{name: counts.get(name, 0) for name in ("attempts", "succeeded", "failed", "ended_succeeded", "ended_failed")}}


def success_rate(totals: dict[str, int]) -> float:
    """The share of the attempts counted in `totals` that succeeded; 1.0 when there were none."""
    attempts = totals.get("attempts", 0)
    return round(totals.get("succeeded", 0) / attempts, 4) if attempts else 1.0


def summary(totals: dict[str, int], since: datetime, until: datetime) -> dict[str, Any]:
    histogram = {k: v for k, v in totals.items() if k.startswith("l")}
    first, ended = totals.get("first_attempts", 0), totals.get("ended_succeeded", 0) + totals.get("ended_failed", 0)
    return {
        "since": since.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "until": until.astimezone(UTC).isoformat().replace("+00:00", "Z"),
        "granularity": "hour",
        "attempts": totals.get("attempts", 0),
        "succeeded": totals.get("succeeded", 0),
        "failed": totals.get("failed", 0),
        "latency_ms": {"p50": percentile(histogram, 0.50), "p95": percentile(histogram, 0.95), "p99": percentile(histogram, 0.99)},
        "first_attempt_delivery_rate": round(totals.get("first_attempt_succeeded", 0) / first, 4) if first else None,
        "eventual_delivery_success_rate": round(totals.get("ended_succeeded", 0) / ended, 4) if ended else None,
        **({"polled": totals["polled"]} if totals.get("polled") else {}),
    }


Counts = Mapping[str, int]


@dataclass(frozen=True)
class Carried:
    """An endpoint's statistics of its latest hour, carried on its limiter item: the write that gives a batch's
    concurrency leases back adds the batch's counters there, so statistics cost no write of their own.

    `token` names this hour's counters on that item: when a later hour's arrive, they are moved to their hour's
    statistics item once (hookline.adapters.dynamo.stats), whoever moves them and however often it is tried."""

    hour: str = ""
    counts: tuple[tuple[str, int], ...] = ()
    token: str = ""

    def as_dict(self) -> dict[str, int]:
        return dict(self.counts)


@dataclass(frozen=True)
class CarryOver:
    """A batch's counters for one endpoint folded into what its limiter item carries (`carry`)."""

    carried: Carried  # what the item carries after the write
    moved: Carried | None = None  # the counters it carried of an earlier hour: moved to that hour's item before the write
    added: tuple[tuple[str, dict[str, int]], ...] = field(default=())  # a late batch's counters of hours before the carried one: added to their items


def _sum(a: Counts, b: Counts) -> tuple[tuple[str, int], ...]:
    out = dict(a)
    for name, value in b.items():
        out[name] = out.get(name, 0) + value
    return tuple(sorted((k, v) for k, v in out.items() if v))


# A process that paces a hot endpoint by a token lease (hookline.core.leases) holds the endpoint's counters across its
# batches instead of writing them per batch: one ADD per batch would put the batch rate on one statistics item (500 a
# second at 5,000 deliveries a second in batches of ten, more with smaller batches). It writes them once they are a
# second old (a lease's length) or count HOLD_ATTEMPTS attempts, whichever comes first: at most a write per process a
# second, or one per HOLD_ATTEMPTS deliveries (91 a second at the 10,000/s rate cap). A process that stops running
# batches altogether (a Lambda instance never invoked again) loses what it holds: fewer than HOLD_ATTEMPTS attempts.
HOLD_SECONDS = 1.0
HOLD_ATTEMPTS = 100


def hold_over(since: float, attempts: int, now: float) -> bool:
    """Whether counters a process has held since `since` (epoch seconds), counting `attempts`, are due to be written."""
    return attempts >= HOLD_ATTEMPTS or now - since >= HOLD_SECONDS


# A payload version's daily use (keys.version_usage) is one item per tenant, version and day, shared by all of the
# tenant's endpoints at that version: written once per batch, a tenant at 10,000 deliveries a second in batches of ten
# would put 1,000 writes a second on it, DynamoDB's most for one partition. A process writes a version's use at once
# when it wrote none of it in the last VERSION_USE_HOLD_SECONDS (so a version used is never shown unused, and its
# last use is at most that late), and otherwise holds it until then: the item takes at most one write per process
# every that many seconds (450 + 300 delivery and retry instances of the xlarge profile: 375 a second). A process
# never invoked again loses what it held: at most that many seconds of its count of deliveries.
VERSION_USE_HOLD_SECONDS = 2.0


def version_use_due(last_written: float | None, now: float) -> bool:
    """Whether a process that last wrote a version's use at `last_written` (epoch seconds; None: not lately) writes
    what it holds of it now."""
    return last_written is None or now - last_written >= VERSION_USE_HOLD_SECONDS


def carry(before: Carried, batch: Mapping[str, Counts], token: str) -> CarryOver:
    """Fold a batch's counters, by hour, into the carried ones. The latest hour is carried: the counters carried of
    an earlier hour are moved out, and a batch's counters of an hour before the carried one (a batch that ran across
    the hour) are added to their hour's item. `token` names a newly carried hour (the version of the write)."""
    hours = sorted(h for h, counts in batch.items() if any(counts.values()))
    latest = max([before.hour, *hours]) if hours else before.hour
    if latest == before.hour:
        carried = Carried(before.hour, _sum(before.as_dict(), batch.get(latest, {})), before.token)
        moved = None
    else:
        carried = Carried(latest, _sum({}, batch[latest]), token)
        moved = before if before.counts else None
    added = tuple((h, dict(_sum({}, batch[h]))) for h in hours if h != latest)
    return CarryOver(carried, moved, added)
