"""Per-endpoint delivery statistics in the data table: one item per endpoint and hour (keys.stats).

An item holds that hour's counters and latency buckets (hookline.core.stats),
and expires a day after the retention period. The endpoint's latest hour is
carried on its limiter item instead (hookline.core.stats.Carried), written with
the batch's give-back, and moved to its hour's item with one conditional ADD
when a later hour's counters arrive: the move names its counters' token, so a
move tried twice adds them once. A reader adds what the limiter item carries to
its hour unless that token was moved. Counters of a batch without a lease (a
half-open probe) and a late batch's of an earlier hour are added with one ADD.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.conditions import Key
from hookline.adapters.dynamo.ops import query_all, write_if
from hookline.adapters.dynamo.state import carried_of
from hookline.adapters.failures import translate_failures
from hookline.core.stats import HOUR_FORMAT, Carried, hour_of, is_counter

MOVED = "moved"  # on an hour's item: the tokens of the carried counters moved into it (a string set)


@translate_failures
class StatsRepository:
    def __init__(self, table: Any, ttl_attribute: str = keys.TTL, retention_days: int = 30):
        self._table = table
        self._ttl = ttl_attribute
        self._retention = retention_days

    def add(self, tenant: str, endpoint_id: str, hour: str, counts: dict[str, int]) -> None:
        self._table.update_item(**self._adding(tenant, endpoint_id, hour, counts))

    def move(self, tenant: str, endpoint_id: str, carried: Carried) -> None:
        """Add counters an endpoint's limiter item carried to their hour's item, once per token."""
        update = self._adding(tenant, endpoint_id, carried.hour, carried.as_dict())
        update["UpdateExpression"] += f", {MOVED} :token"
        update["ExpressionAttributeValues"] |= {":token": {carried.token}, ":t": carried.token}
        write_if(self._table.update_item, ConditionExpression=f"NOT contains({MOVED}, :t)", **update)  # lost: moved before

    def _adding(self, tenant: str, endpoint_id: str, hour: str, counts: dict[str, int]) -> dict[str, Any]:
        names = {f"#c{i}": k for i, k in enumerate(counts)}
        values: dict[str, Any] = {f":c{i}": v for i, v in enumerate(counts.values())}
        expires = int((datetime.strptime(hour, HOUR_FORMAT).replace(tzinfo=UTC) + timedelta(days=self._retention + 1)).timestamp())
        values[":exp"] = expires
        return {
            "Key": keys.stats(tenant, endpoint_id, hour),
            "UpdateExpression": f"SET {self._ttl} = :exp ADD " + ", ".join(f"#c{i} :c{i}" for i in range(len(counts))),
            "ExpressionAttributeNames": names,
            "ExpressionAttributeValues": values,
        }

    def window(self, tenant: str, endpoint_id: str, since: datetime, until: datetime) -> dict[str, int]:
        """The endpoint's counters added up over the hours from `since` to `until`."""
        totals: dict[str, int] = defaultdict(int)
        for _, counts in self.hours(tenant, endpoint_id, since, until):
            for k, v in counts.items():
                totals[k] += v
        return dict(totals)

    def hours(self, tenant: str, endpoint_id: str, since: datetime, until: datetime) -> list[tuple[str, dict[str, int]]]:
        """One Query of the window's hourly items and one read of the limiter item, oldest first: (hour, its
        counters) for each hour that has counters."""
        low, high = hour_of(since), hour_of(until)
        window = Key(keys.PK).eq(keys.stats_partition(tenant, endpoint_id)) & Key(keys.SK).between(keys.stats_sort(low), keys.stats_sort(high))
        # The limiter item first: counters moved after this read are in the hour's item the Query reads, with their
        # token, so they are counted once; read the other way round, a move in between would be missed
        carried = carried_of(self._table.get_item(Key=keys.limiter(tenant, endpoint_id)).get("Item"))
        found: dict[str, dict[str, int]] = {}
        moved: dict[str, set[str]] = {}
        for item in query_all(self._table, KeyConditionExpression=window):
            hour = str(item[keys.SK]).removeprefix(keys.stats_sort(""))
            found[hour] = {k: int(v) for k, v in item.items() if is_counter(k)}
            moved[hour] = set(item.get(MOVED) or ())
        if carried.counts and low <= carried.hour <= high and carried.token not in moved.get(carried.hour, set()):
            slot = found.setdefault(carried.hour, {})
            for name, value in carried.counts:
                slot[name] = slot.get(name, 0) + value
        return sorted(found.items())
