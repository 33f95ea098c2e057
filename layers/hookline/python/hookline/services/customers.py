"""Customers: create or replace, read, list, delete (with their endpoints), and their statistics.

Every call is tenant-scoped. Deleting a customer deletes its endpoints: the
first page in the request, the rest in a paged job on the job queue (the
replay function runs it, a page per message), so a customer with thousands of
endpoints never holds the request open. Its events and deliveries expire by
TTL as usual.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hookline.core import validation
from hookline.core.clock import iso
from hookline.core.customers import Customer
from hookline.core.errors import DependencyFailed, NotFound, Unavailable
from hookline.core.stats import summary
from hookline.services.ports import CustomerEndpoints, CustomerReader, CustomerStore, JobQueue, StatsReader

DELETE_JOB = "delete_customer_endpoints"
DELETE_PAGE = 100  # endpoints deleted per request, and per job step


def require_customer(customers: CustomerReader, tenant: str, uid: str) -> Customer:
    """The tenant's customer `uid`; 404 customer_not_found if there is none (a malformed uid names none either)."""
    customer = customers.get(tenant, uid) if validation.CUSTOMER_UID.fullmatch(uid) else None
    if customer is None:
        raise NotFound(f"customer {uid[:64]} not found", code="customer_not_found")
    return customer


@dataclass(frozen=True)
class CustomerService:
    customers: CustomerStore
    endpoints: CustomerEndpoints
    stats_reader: StatsReader
    jobs: JobQueue
    clock: Callable[[], datetime]

    def put(self, tenant: str, uid: str, body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """Create or replace the customer: its view, and True if it was created (201) rather than replaced (200).

        Idempotent: a PUT of what is stored already writes nothing and leaves updated_at alone.
        """
        uid = validation.customer_uid(uid)
        data = validation.customer_put(body)
        now = iso(self.clock())
        wanted = Customer(tenant, uid, data.name, data.email, data.metadata, data.limits, created_at=now, updated_at=now)
        current = self.customers.get(tenant, uid)
        if current is not None and current.same_content(wanted):
            return current.public(), False
        stored, created = self.customers.put(wanted)
        return stored.public(), created

    def get(self, tenant: str, uid: str) -> dict[str, Any]:
        return require_customer(self.customers, tenant, uid).public()

    def list(self, tenant: str, limit: int, cursor: str | None) -> dict[str, Any]:
        items, nxt = self.customers.page(tenant, limit, cursor)
        return {"items": [c.public() for c in items], "next": nxt}

    def delete(self, tenant: str, uid: str) -> None:
        """Delete the customer and its endpoints: a page of them now, the rest by a queued job.

        The customer goes last, so a request that fails midway (503,
        unavailable) can be repeated. The job carries the customer's creation time and stops if
        the uid has been created again meanwhile.
        """
        customer = require_customer(self.customers, tenant, uid)
        try:
            self.delete_endpoints(tenant, customer.uid, customer.created_at, None)
            self.customers.delete(tenant, customer.uid)
        except DependencyFailed as exc:
            raise Unavailable(f"the customer could not be deleted ({exc.cause}); repeat the request") from None

    def delete_endpoints(self, tenant: str, uid: str, created_at: str, cursor: str | None) -> None:
        """Delete a page of the customer's endpoints from `cursor`, and queue the job for the next page if there is one.

        Repeatable: a page deleted twice deletes nothing more; a duplicate job
        repeats a page and queues a next step that does the same.
        """
        current = self.customers.get(tenant, uid)
        if current is not None and current.created_at != created_at:
            return  # the uid names a new customer now: its endpoints are not the old one's
        page, nxt = self.endpoints.page_of_owner(tenant, uid, DELETE_PAGE, cursor)
        for endpoint in page:
            self.endpoints.delete(tenant, endpoint.id)
        if nxt:
            job = {"kind": DELETE_JOB, "tenant": tenant, "customer": uid, "created_at": created_at, "cursor": nxt}
            self.jobs.send_bodies([json.dumps(job, separators=(",", ":"))])

    def stats(self, tenant: str, uid: str, query: dict[str, str]) -> dict[str, Any]:
        """The customer-wide statistics over [since, until] (default: the last 24 h): its endpoints' counters added up.

        Reads the customer's endpoints from the customer-endpoints index and,
        for each, only its hourly items in the window.
        """
        customer = require_customer(self.customers, tenant, uid)
        since, until = validation.stats_window(query, self.clock())
        totals: Counter[str] = Counter()
        endpoints = 0
        for endpoint in self.endpoints.all_of_owner(tenant, customer.uid):
            totals.update(self.stats_reader.window(tenant, endpoint.id, since, until))
            endpoints += 1
        return {"customer": customer.uid, "endpoints": endpoints, **summary(dict(totals), since, until)}
