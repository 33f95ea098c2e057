"""The customer portal's server side: the tenant's portal settings, who a caller is, and the event types a tenant sent.

The page itself is static (hookline.entrypoints.portal serves it); what it
needs to know about its caller comes from `whoami`, and the producer's name
and allowed embedding origins from `page_settings`, which any link may ask for
(they are shown to customers anyway). Event types are remembered at ingest,
at most once per tenant and type per process (the set lives in the service,
which the container keeps per process): a new type costs one write, a known
one nothing. Remembering is best effort: an event is never refused because
its type could not be noted, and the next process notes it again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from hookline.core.access import Principal
from hookline.core.clock import iso, iso_epoch
from hookline.core.errors import DependencyFailed, Unavailable
from hookline.core.portal import PortalSettings, portal_settings_put
from hookline.services.customers import require_customer
from hookline.services.ports import CustomerReader

_log = logging.getLogger(__name__)


class PortalStore(Protocol):
    def settings(self, tenant: str) -> PortalSettings | None: ...

    def save_settings(self, settings: PortalSettings) -> None: ...

    def remember_types(self, tenant: str, types: set[str]) -> None: ...

    def types(self, tenant: str) -> list[str]: ...


@dataclass
class SentEventTypes:
    """The event types each tenant has sent: noted at ingest, listed for the portal's pick-list."""

    store: PortalStore
    _seen: set[tuple[str, str]] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, tenant: str, types: Iterable[str]) -> None:
        with self._lock:
            new = {t for t in types if (tenant, t) not in self._seen}
        if not new:
            return
        try:
            self.store.remember_types(tenant, new)
        except DependencyFailed as exc:
            _log.warning("event types not noted", extra={"tenant": tenant, "cause": exc.cause})
            return
        with self._lock:
            self._seen.update((tenant, t) for t in new)

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

    def settings(self, tenant: str) -> dict[str, Any]:
        return self.page_settings(tenant).public()

    def put_settings(self, tenant: str, body: dict[str, Any]) -> dict[str, Any]:
        name, origins = portal_settings_put(body)
        stored = PortalSettings(tenant, name, origins, iso(self.clock()))
        try:
            self.store.save_settings(stored)
        except DependencyFailed:
            raise Unavailable("the portal settings could not be saved; repeat the request") from None
        return stored.public()

    def whoami(self, who: Principal) -> dict[str, Any]:
        """The caller as the portal needs it: a session's customer (its name and ceiling) and whether it may change anything."""
        producer_name = self.page_settings(who.tenant).producer_name
        if who.is_producer:
            return {"kind": "api_key", "tenant": who.tenant, "customer": None, "read_only": False, "expires_at": None, "producer_name": producer_name}
        customer = require_customer(self.customers, who.tenant, who.customer or "")
        return {
            "kind": "portal_session",
            "tenant": who.tenant,
            "customer": {"uid": customer.uid, "name": customer.name, "limits": customer.limits.public()},
            "read_only": who.read_only,
            "expires_at": iso_epoch(who.expires_at),
            "producer_name": producer_name,
        }
