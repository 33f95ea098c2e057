"""Per-endpoint delivery statistics in the data table: one item per endpoint and hour (keys.stats).

An item holds that hour's counters and latency buckets (hookline.core.stats),
each batch's added with one ADD, and expires a day after the retention period.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

from boto3.dynamodb.conditions import Key

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.ops import query_all
from hookline.adapters.failures import translate_failures
from hookline.core.stats import HOUR_FORMAT, hour_of, is_counter


@translate_failures
class StatsRepository:
    def __init__(self, table: Any, ttl_attribute: str = keys.TTL, retention_days: int = 30):
        self._table = table
        self._ttl = ttl_attribute
        self._retention = retention_days

    def add(self, tenant: str, endpoint_id: str, hour: str, counts: dict[str, int]) -> None:
        names = {f"#c{i}": k for i, k in enumerate(counts)}
        values: dict[str, Any] = {f":c{i}": v for i, v in enumerate(counts.values())}
        expires = int((datetime.strptime(hour, HOUR_FORMAT).replace(tzinfo=UTC) + timedelta(days=self._retention + 1)).timestamp())
        values[":exp"] = expires
        self._table.update_item(
            Key=keys.stats(tenant, endpoint_id, hour),
            UpdateExpression="ADD " + ", ".join(f"#c{i} :c{i}" for i in range(len(counts))) + f" SET {self._ttl} = :exp",
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
        )

    def window(self, tenant: str, endpoint_id: str, since: datetime, until: datetime) -> dict[str, int]:
        """The endpoint's counters added up over the hours from `since` to `until`."""
        totals: dict[str, int] = defaultdict(int)
        for _, counts in self.hours(tenant, endpoint_id, since, until):
            for k, v in counts.items():
                totals[k] += v
        return dict(totals)

    def hours(self, tenant: str, endpoint_id: str, since: datetime, until: datetime) -> list[tuple[str, dict[str, int]]]:
        """One Query of the window's hourly items, oldest first: (hour, its counters) for each hour that has an item."""
        window = Key(keys.PK).eq(keys.stats_partition(tenant, endpoint_id)) & Key(keys.SK).between(
            keys.stats_sort(hour_of(since)), keys.stats_sort(hour_of(until))
        )
        out = []
        for item in query_all(self._table, KeyConditionExpression=window):
            out.append((str(item[keys.SK]).removeprefix(keys.stats_sort("")), {k: int(v) for k, v in item.items() if is_counter(k)}))
        return out
