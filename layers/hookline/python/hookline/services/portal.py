"""The customer portal's server side: the tenant's portal settings, who a caller is, and the event types a tenant sent.

The page itself is static (hookline.entrypoints.portal serves it); what it
needs to know about its caller comes from `whoami`, and the producer's name
and allowed embedding origins from `page_settings`, which any link may ask for
(they are shown to customers anyway). Event types are remembered at ingest,
for the tenant, for the customer an event is addressed to, and for every
customer when broadcast, at most once per (tenant, type), (customer, type) and
broadcast type per process (the set lives in the service, which the container
keeps per process): a new pair costs one write, a known one nothing.
Remembering is best effort: an event is never refused because its type could
not be noted, and the next process notes it again. The per-customer sets are
what a portal session lists beside its endpoints' filters
(hookline.core.access.customer_event_types), never the tenant's.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hookline.core.access import Principal
from hookline.core.clock import iso
from hookline.core.contract import portal as contract
from hookline.core.errors import DependencyFailed, Unavailable
from hookline.core.portal import PortalSettings
from hookline.services.customers import require_customer
from hookline.services.ports import CustomerReader, PortalStore

_log = logging.getLogger(__name__)


SEEN_BOUND = 100_000  # pairs a process remembers having noted; past it, it forgets them all (a repeated note changes nothing)


@dataclass
class SentEventTypes:
    """The event types each tenant has sent, and each customer was sent: noted at ingest, listed for the portal's pick-list."""

    store: PortalStore
    _seen: set[tuple[str, ...]] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, tenant: str, types: Iterable[str], customer: str | None = None, made: str = "") -> None:
        """The tenant sent these types, to `customer` when it names one (None: to the tenant's own endpoints), the
        customer made at `made`: a customer made again under a deleted one's uid starts with no types noted (its
        deletion deleted them), so what this process noted for the earlier one is not taken for noted."""
        types = set(types)
        self._once(("tenant", tenant), types, lambda new: self.store.remember_types(tenant, new))
        if customer is not None:
            self._once(("customer", tenant, customer, made), types, lambda new: self.store.remember_customer_types(tenant, customer, new))

    def note_broadcast(self, tenant: str, types: Iterable[str]) -> None:
        """The tenant broadcast these types: sent to every customer."""
        types = set(types)
        self._once(("tenant", tenant), types, lambda new: self.store.remember_types(tenant, new))
        self._once(("broadcast", tenant), types, lambda new: self.store.remember_broadcast_types(tenant, new))

    def _once(self, scope: tuple[str, ...], types: set[str], remember: Callable[[set[str]], None]) -> None:
        """Write the types this process has not noted in `scope` yet, in one write; a failed write is tried again next time."""
        with self._lock:
            new = {t for t in types if (*scope, t) not in self._seen}
        if not new:
            return
        try:
            remember(new)
        except DependencyFailed as exc:
            _log.warning("event types not noted", extra={"tenant": scope[1], "cause": exc.cause})
            return
        with self._lock:
            if len(self._seen) + len(new) > SEEN_BOUND:
                self._seen.clear()
            self._seen.update((*scope, t) for t in new)

    def sent_to(self, tenant: str, customer: str) -> list[str]:
        """The types sent to the customer: addressed to it, or broadcast."""
        return self.store.types_sent_to(tenant, customer)

    def list(self, tenant: str) -> dict[str, Any]:
        return {"items": self.store.types(tenant)}


@dataclass(frozen=True)
class PortalService:
    store: PortalStore
    customers: CustomerReader
    clock: Callable[[], datetime]

    def page_settings(self, tenant: str | None) -> PortalSettings:
        """What the page shows for a link naming `tenant`: its settings, else the defaults (embedding by itself only)."""
        if tenant is None:
            return PortalSettings("")
        try:
            return self.store.settings(tenant) or PortalSettings(tenant)
        except DependencyFailed:
            return PortalSettings(tenant)  # the page still works; only embedding falls back to 'self'

    def settings(self, tenant: str) -> contract.PortalSettings:
        return contract.PortalSettings.of(self.page_settings(tenant))

    def put_settings(self, tenant: str, body: contract.PutPortalSettings) -> contract.PortalSettings:
        stored = body.settings(tenant, iso(self.clock()))
        try:
            self.store.save_settings(stored)
        except DependencyFailed:
            raise Unavailable("the portal settings could not be saved; repeat the request") from None
        return contract.PortalSettings.of(stored)

    def whoami(self, who: Principal) -> contract.SessionInfo:
        """The caller as the portal needs it: a session's customer (its name and ceiling) and whether it may change anything."""
        producer_name = self.page_settings(who.tenant).producer_name
        customer = None if who.is_producer else require_customer(self.customers, who.tenant, who.customer or "")
        return contract.SessionInfo.of(who, customer, producer_name)
