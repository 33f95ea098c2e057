"""Per-endpoint delivery statistics: hourly counters and a latency histogram.

The worker adds up a batch's attempts in memory and writes one ADD per
endpoint and hour at the end of the batch, so statistics cost a fraction of a
write per delivery. Percentiles come from the histogram, so each is reported as
the upper bound of its bucket.

The two health metrics of seed 000:
* first-attempt delivery rate: deliveries that succeeded on their first
  scheduled attempt, out of all first attempts;
* eventual delivery success rate: deliveries that ended succeeded, out of all
  that ended (succeeded or failed for good).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

from boto3.dynamodb.conditions import Key

# Upper bounds of the latency buckets, in ms; the last one is open-ended.
BUCKETS_MS = (10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000)
COUNTERS = ("attempts", "succeeded", "failed", "first_attempts", "first_attempt_succeeded", "ended_succeeded", "ended_failed")


def bucket(duration_ms: int) -> str:
    for i, bound in enumerate(BUCKETS_MS):
        if duration_ms <= bound:
            return f"l{i:02d}"
    return f"l{len(BUCKETS_MS):02d}"


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
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H")


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
        with self._lock:
            data, self._data = self._data, defaultdict(lambda: defaultdict(int))
        return {k: dict(v) for k, v in data.items()}


class StatsRepository:
    def __init__(self, table: Any, ttl_attribute: str = "expires_at", retention_days: int = 30):
        self._table = table
        self._ttl = ttl_attribute
        self._retention = retention_days

    def add(self, tenant: str, endpoint_id: str, hour: str, counts: dict[str, int]) -> None:
        names = {f"#c{i}": k for i, k in enumerate(counts)}
        values: dict[str, Any] = {f":c{i}": v for i, v in enumerate(counts.values())}
        expires = int((datetime.strptime(hour, "%Y-%m-%dT%H").replace(tzinfo=UTC) + timedelta(days=self._retention + 1)).timestamp())
        values[":exp"] = expires
        self._table.update_item(
            Key={"pk": f"STAT#{tenant}#{endpoint_id}", "sk": f"H#{hour}"},
            UpdateExpression="ADD " + ", ".join(f"#c{i} :c{i}" for i in range(len(counts))) + f" SET {self._ttl} = :exp",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )

    def window(self, tenant: str, endpoint_id: str, since: datetime, until: datetime) -> dict[str, int]:
        totals: dict[str, int] = defaultdict(int)
        kwargs: dict[str, Any] = {
            "KeyConditionExpression": Key("pk").eq(f"STAT#{tenant}#{endpoint_id}") & Key("sk").between(f"H#{hour_of(since)}", f"H#{hour_of(until)}")
        }
        while True:
            result = self._table.query(**kwargs)
            for item in result.get("Items", []):
                for k, v in item.items():
                    if k in COUNTERS or k.startswith("l"):
                        totals[k] += int(v)
            if "LastEvaluatedKey" not in result:
                return dict(totals)
            kwargs["ExclusiveStartKey"] = result["LastEvaluatedKey"]


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
    }
