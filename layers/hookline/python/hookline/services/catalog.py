"""The event-type catalog and the tenant's payload versions: register them, read them, and see who still uses a version.

`PUT /v1/event-types/{name}` registers a type's schemas and downgrade
transforms per version (hookline.core.versions); ingest checks and renders
events with them. `PUT /v1/versions/{version}` adds a version, sets or clears
its sunset, or makes it the default; the change is conditional on the
catalog's revision and retried on a concurrent one. `GET /v1/versions` shows,
for the producer, each version's pinned endpoints (a bounded count and the
first ids), its deliveries over the last seven days and the last one's time:
what to check before turning a version off. A portal session sees the list
without the usage, which spans every customer, and of the event types only
those its customer sees (hookline.services.access.AccessGuard.event_types).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from hookline.core import validation
from hookline.core.access import names_page
from hookline.core.contract.catalog import (
    EventTypeEntry,
    EventTypePage,
    EventTypeSummary,
    PayloadVersion,
    PutEventType,
    PutVersion,
    VersionList,
    VersionUsage,
)
from hookline.core.errors import Conflict, NotFound, ValidationFailed
from hookline.core.versions import PayloadVersion as Version
from hookline.core.versions import VersionCatalog, event_type_of, version_name
from hookline.services.ports import CatalogStore, SentTypes, VersionPins, VersionUsageReader

PINNED_COUNT_BOUND = 1000  # endpoints counted per version, at most ("more": at least that many)
PINNED_IDS_SHOWN = 20
USAGE_DAYS = 7
SAVE_TRIES = 3


@dataclass(frozen=True)
class CatalogService:
    store: CatalogStore
    pins: VersionPins
    usage: VersionUsageReader
    sent: SentTypes
    clock: Callable[[], datetime]

    # -- event types ------------------------------------------------------------------

    def put_type(self, tenant: str, name: str, body: PutEventType) -> tuple[EventTypeEntry, bool]:
        """Register or replace an event type; its public form, and whether it was new."""
        if not validation.EVENT_TYPE.fullmatch(name):
            raise ValidationFailed("an event type's name must be letters, digits and _.:/- (up to 128 characters)")
        existing = self.store.get_type(tenant, name)
        event_type = event_type_of(tenant, name, body.description, body.deprecated, body.type_versions(), self.clock(), existing)
        self.store.put_type(event_type)
        return EventTypeEntry.of(event_type), existing is None

    def get_type(self, tenant: str, name: str) -> EventTypeEntry:
        found = self.store.get_type(tenant, name) if validation.EVENT_TYPE.fullmatch(name) else None
        if found is None:
            raise NotFound(f"event type {name[:128]} is not in the catalog", code="event_type_not_found")
        return EventTypeEntry.of(found)

    def list_types(self, tenant: str, limit: int, cursor: str | None, only: frozenset[str] | None = None) -> EventTypePage:
        """A page of `limit` of the catalog, each type with its version names (its schemas: `GET /v1/event-types/{name}`).

        The first page also lists, in `sent`, the types the tenant has sent that the catalog does not hold: the
        portal's pick-list offers both. With `only` (a portal session's types), the catalog's types among them and,
        in `sent`, the rest.
        """
        if only is not None:
            return self._list_only(tenant, limit, cursor, only)
        page, nxt = self.store.types_page(tenant, limit, cursor)
        sent: list[str] | None = None
        if cursor is None:
            noted = list(self.sent.list(tenant)["items"])
            _, registered = self.store.load(tenant, noted)  # on any page, not only this one: a bounded read (the sent set holds 1,000 at most)
            sent = [t for t in noted if t not in registered]
        return EventTypePage(items=[EventTypeSummary.of(t) for t in page], next=nxt, sent=sent)

    def _list_only(self, tenant: str, limit: int, cursor: str | None, only: frozenset[str]) -> EventTypePage:
        """A page of the catalog's types among `only`, paged in name order in memory: `only` is bounded (a customer's
        endpoint filters and the sets of types sent, at most 1,000 each) and read in one cached BatchGetItem per 100."""
        _, registered = self.store.load(tenant, sorted(only))
        names, nxt = names_page(registered, limit, cursor)
        sent = sorted(only - registered.keys()) if cursor is None else None
        return EventTypePage(items=[EventTypeSummary.of(registered[n]) for n in names], next=nxt, sent=sent)

    # -- versions ---------------------------------------------------------------------

    def put_version(self, tenant: str, version: str, body: PutVersion | None = None) -> tuple[PayloadVersion, bool]:
        """Add a version, set or clear its sunset, or make it the default; its public form, and whether it was new."""
        version_name(version)
        change = body if body is not None else PutVersion()
        for _ in range(SAVE_TRIES):
            catalog = self.store.get_versions(tenant)
            current = catalog.get(version)
            changed = catalog.put(version, change.sunset(current), change.default, self.clock())
            if self.store.save_versions(changed):
                stored = changed.get(version)
                assert stored is not None
                return PayloadVersion.of(stored, changed.default), current is None
        raise Conflict("the versions changed meanwhile, repeatedly; repeat the request", code="versions_changed")

    def versions(self, tenant: str, with_usage: bool) -> VersionList:
        catalog = self.store.get_versions(tenant)
        items = [PayloadVersion.of(v, catalog.default, self._usage(tenant, v) if with_usage else None) for v in catalog.versions]
        return VersionList(default=catalog.default, items=items)

    def versions_catalog(self, tenant: str) -> VersionCatalog:
        return self.store.get_versions(tenant)

    def _usage(self, tenant: str, version: Version) -> VersionUsage:
        ids, more = self.pins.pinned(tenant, version.name, PINNED_COUNT_BOUND)
        since = (self.clock() - timedelta(days=USAGE_DAYS - 1)).strftime("%Y-%m-%d")
        deliveries, last_at = self.usage.usage(tenant, version.name, since)
        return VersionUsage.of(ids, more, PINNED_IDS_SHOWN, deliveries, last_at)
