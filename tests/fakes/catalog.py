"""Payload versions, the event-type catalog and version usage in memory, as hookline.adapters.dynamo.catalog keeps them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import replace

from hookline.core.versions import EventType, VersionCatalog
from tests.fakes import paging
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.faults import Faults


class FakeCatalog:
    """CatalogStore (the services' port).

    Contract, as the adapter's: a tenant that stored no versions has
    BASE_VERSION alone (revision 0); `save_versions` stores only if the stored
    revision is still the one the catalog was read at, and stores it one
    higher; `load` leaves out types not in the catalog; pages of types come in
    name order, their cursors scoped to the tenant.
    """

    def __init__(self) -> None:
        self.versions: dict[str, VersionCatalog] = {}
        self.types: dict[tuple[str, str], EventType] = {}
        self.faults = Faults()
        self._lock = new_lock()

    def load(self, tenant: str, type_names: Iterable[str]) -> tuple[VersionCatalog, dict[str, EventType]]:
        self.faults.check("load")
        found = {n: self.types[(tenant, n)] for n in type_names if (tenant, n) in self.types}
        return self.get_versions(tenant), found

    def get_versions(self, tenant: str) -> VersionCatalog:
        return self.versions.get(tenant) or VersionCatalog(tenant)

    def get_type(self, tenant: str, name: str) -> EventType | None:
        self.faults.check("get_type")
        return self.types.get((tenant, name))

    @atomic
    def put_type(self, event_type: EventType) -> None:
        self.faults.check("put_type")
        self.types[(event_type.tenant, event_type.name)] = event_type

    def types_page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[EventType], str | None]:
        self.faults.check("types_page")
        mine = (t for (owner, _), t in self.types.items() if owner == tenant)
        return paging.page(mine, lambda t: t.name, f"types#{tenant}", limit, cursor)

    @atomic
    def save_versions(self, catalog: VersionCatalog) -> bool:
        self.faults.check("save_versions")
        if self.get_versions(catalog.tenant).revision != catalog.revision:
            return False
        self.versions[catalog.tenant] = replace(catalog, revision=catalog.revision + 1)
        return True


class FakeVersionUsage:
    """VersionUsageReader and the delivery side's sink: deliveries per (tenant, version, day), and the last one's time."""

    def __init__(self) -> None:
        self.days: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
        self.last: dict[tuple[str, str, str], str] = {}
        self.faults = Faults()
        self._lock = new_lock()

    @atomic
    def add(self, tenant: str, version: str, day: str, count: int, last_at: str) -> None:
        self.faults.check("add")
        per_day = self.days[(tenant, version)]
        per_day[day] = per_day.get(day, 0) + count
        self.last[(tenant, version, day)] = last_at

    def usage(self, tenant: str, version: str, since_day: str) -> tuple[int, str | None]:
        self.faults.check("usage")
        per_day = self.days.get((tenant, version), {})
        newest = max(per_day, default=None)
        return sum(n for d, n in per_day.items() if d >= since_day), self.last.get((tenant, version, newest)) if newest else None
