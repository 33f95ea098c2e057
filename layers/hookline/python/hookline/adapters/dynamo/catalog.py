"""Payload versions and the event-type catalog in the data table (keys.versions, keys.event_type), and each
version's daily deliveries (keys.version_usage).

A tenant's versions are one item, changed conditionally on its `revision`, so
two concurrent changes never lose one. An event type's versions (schemas and
transforms) are kept as one JSON string: JSON Schema holds numbers DynamoDB's
number type would alter (floats), and the catalog is read whole anyway. Both
are read with every accepted request, in one BatchGetItem, eventually
consistent, and kept for `cache_seconds` (HOOKLINE_CATALOG_CACHE_SECONDS) by
the process: a change applies to the events the other processes accept that
many seconds later, and at once in the process that made it.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.conditions import Attr, Key
from hookline.adapters.dynamo.ops import batch_get, query_page, write_if
from hookline.adapters.failures import translate_failures
from hookline.core.versions import EventType, PayloadVersion, TypeVersion, VersionCatalog

Item = dict[str, Any]
DAY_FORMAT = "%Y-%m-%d"


def versions_item(catalog: VersionCatalog) -> Item:
    return {
        **keys.versions(catalog.tenant),
        "tenant": catalog.tenant,
        "default": catalog.default,
        "versions": [{"name": v.name, "created_at": v.created_at, **({"sunset_at": v.sunset_at} if v.sunset_at else {})} for v in catalog.registered],
        "revision": catalog.revision + 1,
    }


def versions_from(tenant: str, item: Item | None) -> VersionCatalog:
    if not item:
        return VersionCatalog(tenant)
    registered = tuple(PayloadVersion(str(v["name"]), v.get("sunset_at"), str(v.get("created_at", ""))) for v in item.get("versions", []))
    return VersionCatalog(tenant, default=str(item["default"]), registered=registered, revision=int(item.get("revision", 0)))


def type_item(event_type: EventType) -> Item:
    spec = {v: tv.public() for v, tv in event_type.versions.items()}
    return {
        **keys.event_type(event_type.tenant, event_type.name),
        "tenant": event_type.tenant,
        "name": event_type.name,
        "description": event_type.description,
        "deprecated": event_type.deprecated,
        "versions": json.dumps(spec, separators=(",", ":"), sort_keys=True),
        "created_at": event_type.created_at,
        "updated_at": event_type.updated_at,
    }


def type_from(item: Item) -> EventType:
    spec: dict[str, Any] = json.loads(item.get("versions") or "{}")
    versions = {
        v: TypeVersion(schema=s.get("schema"), transform=tuple(s["transform"]) if s.get("transform") is not None else None) for v, s in sorted(spec.items())
    }
    return EventType(
        tenant=str(item["tenant"]),
        name=str(item["name"]),
        description=str(item.get("description", "")),
        deprecated=bool(item.get("deprecated", False)),
        versions=versions,
        created_at=str(item.get("created_at", "")),
        updated_at=str(item.get("updated_at", "")),
    )


_MISSING = object()


@translate_failures
class CatalogRepository:
    def __init__(self, table: Any, cache_seconds: float = 0.0, clock: Callable[[], float] = time.monotonic):
        self._table = table
        self._cache_seconds = cache_seconds
        self._clock = clock
        self._cache: dict[tuple[str, str], tuple[float, Any]] = {}  # (tenant, sort key) -> (read at, item or _MISSING)
        self._lock = threading.Lock()

    def load(self, tenant: str, type_names: Iterable[str]) -> tuple[VersionCatalog, dict[str, EventType]]:
        sort_keys = [keys.VERSIONS_SK, *(keys.event_type(tenant, n)[keys.SK] for n in dict.fromkeys(type_names))]
        now = self._clock()
        with self._lock:
            held = {
                sk: self._cache[(tenant, sk)][1] for sk in sort_keys if (tenant, sk) in self._cache and now - self._cache[(tenant, sk)][0] < self._cache_seconds
            }
        missing = [sk for sk in sort_keys if sk not in held]
        if missing:
            found = {str(i[keys.SK]): i for i in batch_get(self._table, [{keys.PK: keys.catalog_partition(tenant), keys.SK: sk} for sk in missing])}
            with self._lock:
                if len(self._cache) > 10_000:
                    self._cache.clear()
                for sk in missing:
                    held[sk] = found.get(sk, _MISSING)
                    self._cache[(tenant, sk)] = (now, held[sk])
        items = {sk: item for sk, item in held.items() if item is not _MISSING}
        types = (type_from(i) for sk, i in items.items() if sk.startswith(keys.TYPE_PREFIX))
        return versions_from(tenant, items.get(keys.VERSIONS_SK)), {t.name: t for t in types}

    def _forget(self, tenant: str) -> None:
        """What this process changed applies to its next read at once."""
        with self._lock:
            for key in [k for k in self._cache if k[0] == tenant]:
                del self._cache[key]

    def get_type(self, tenant: str, name: str) -> EventType | None:
        item = self._table.get_item(Key=keys.event_type(tenant, name), ConsistentRead=True).get("Item")
        return type_from(item) if item else None

    def put_type(self, event_type: EventType) -> None:
        self._table.put_item(Item=type_item(event_type))
        self._forget(event_type.tenant)

    def types_page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[EventType], str | None]:
        partition = keys.catalog_partition(tenant)
        condition = Key(keys.PK).eq(partition) & Key(keys.SK).begins_with(keys.TYPE_PREFIX)
        items, nxt = query_page(self._table, limit, cursor, partition, KeyConditionExpression=condition)
        return [type_from(i) for i in items], nxt

    def get_versions(self, tenant: str) -> VersionCatalog:
        return versions_from(tenant, self._table.get_item(Key=keys.versions(tenant), ConsistentRead=True).get("Item"))

    def save_versions(self, catalog: VersionCatalog) -> bool:
        condition = Attr(keys.PK).not_exists() if catalog.revision == 0 else Attr("revision").eq(catalog.revision)
        saved = write_if(self._table.put_item, Item=versions_item(catalog), ConditionExpression=condition) is not None
        self._forget(catalog.tenant)
        return saved


@translate_failures
class VersionUsageRepository:
    """Deliveries per version and day: each batch's added with one ADD, kept for the retention period."""

    def __init__(self, table: Any, ttl_attribute: str = keys.TTL, retention_days: int = 30):
        self._table = table
        self._ttl = ttl_attribute
        self._retention = retention_days

    def add(self, tenant: str, version: str, day: str, count: int, last_at: str) -> None:
        expires = int((datetime.strptime(day, DAY_FORMAT).replace(tzinfo=UTC) + timedelta(days=self._retention + 1)).timestamp())
        self._table.update_item(
            Key=keys.version_usage(tenant, version, day),
            UpdateExpression=f"ADD deliveries :n SET last_at = :t, {self._ttl} = :exp",
            ExpressionAttributeValues={":n": count, ":t": last_at, ":exp": expires},
        )

    def usage(self, tenant: str, version: str, since_day: str) -> tuple[int, str | None]:
        partition = keys.version_usage_partition(tenant, version)
        newest_first = self._table.query(KeyConditionExpression=Key(keys.PK).eq(partition), ScanIndexForward=False, Limit=8).get("Items", [])
        last_at = str(newest_first[0]["last_at"]) if newest_first else None
        since = keys.version_usage(tenant, version, since_day)[keys.SK]
        return sum(int(i.get("deliveries", 0)) for i in newest_first if str(i[keys.SK]) >= since), last_at
