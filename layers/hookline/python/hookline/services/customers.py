"""Customers: create or replace, read, list, delete (with their endpoints), and their statistics.

Every call is tenant-scoped. Deleting a customer deletes its endpoints by a
bulk job (hookline.services.bulk, a page per step on the job queue), so a
customer with thousands of endpoints never holds the request open; the answer
names the job, whose progress `GET /v1/jobs/{id}` shows. Its events and
deliveries expire by TTL as usual.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime

from hookline.core import validation
from hookline.core.clock import iso
from hookline.core.contract import customers as contract
from hookline.core.contract.jobs import JobSummary
from hookline.core.customers import Customer, deletion_job_id
from hookline.core.errors import DependencyFailed, NotFound, Unavailable
from hookline.core.jobs import DELETE_CUSTOMER_ENDPOINTS
from hookline.core.stats import summary
from hookline.services.ports import CustomerEndpoints, CustomerReader, CustomerStore, JobStarter, StatsReader

STATS_READERS = 16  # a customer's endpoints whose statistics are read at once


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
    jobs: JobStarter
    clock: Callable[[], datetime]

    def put(self, tenant: str, uid: str, body: contract.PutCustomer) -> tuple[contract.Customer, bool]:
        """Create or replace the customer: its view, and True if it was created (201) rather than replaced (200).

        Idempotent: a PUT of what is stored already writes nothing and leaves updated_at alone.
        """
        uid = validation.customer_uid(uid)
        wanted = body.customer(tenant, uid, iso(self.clock()))
        current = self.customers.get(tenant, uid)
        if current is not None and current.same_content(wanted):
            return contract.Customer.of(current), False
        stored, created = self.customers.put(wanted)
        return contract.Customer.of(stored), created

    def get(self, tenant: str, uid: str) -> contract.Customer:
        return contract.Customer.of(require_customer(self.customers, tenant, uid))

    def list(self, tenant: str, limit: int, cursor: str | None) -> contract.CustomerPage:
        items, nxt = self.customers.page(tenant, limit, cursor)
        return contract.CustomerPage(items=[contract.Customer.of(c) for c in items], next=nxt)

    def delete(self, tenant: str, uid: str) -> contract.CustomerDeleted:
        """Delete the customer; its endpoints go by a job, started first. Its answer: the job (`{"id", "status"}`).

        The job is started before the customer is deleted, with an id derived from the customer (its uid and
        creation time), so a request that fails midway (503) can be repeated and starts no second job. The job
        deletes the endpoints made before it, none of a customer made again under the uid meanwhile.
        """
        customer = require_customer(self.customers, tenant, uid)
        try:
            job = self.jobs.start(
                tenant,
                DELETE_CUSTOMER_ENDPOINTS,
                {"customer": customer.uid, "customer_created_at": customer.created_at},
                job_id=deletion_job_id(tenant, customer.uid, customer.created_at),
            )
            self.customers.delete(tenant, customer.uid)
        except DependencyFailed as exc:
            raise Unavailable(f"the customer could not be deleted ({exc.cause}); repeat the request") from None
        return contract.CustomerDeleted(job=JobSummary.of(job))

    def stats(self, tenant: str, uid: str, since: str | None = None, until: str | None = None) -> contract.CustomerStats:
        """The customer-wide statistics over [since, until] (default: the last 24 h): its endpoints' counters added up.

        Reads the customer's endpoints from the customer-endpoints index and,
        for each, only its hourly items in the window: STATS_READERS at a time, so
        the request stays short up to the most endpoints a customer may have
        (HOOKLINE_MAX_ENDPOINTS_PER_OWNER).
        """
        customer = require_customer(self.customers, tenant, uid)
        window = {name: value for name, value in (("since", since), ("until", until)) if value is not None}
        start, end = validation.stats_window(window, self.clock())
        ids = [endpoint.id for endpoint in self.endpoints.all_of_owner(tenant, customer.uid)]
        totals: Counter[str] = Counter()
        with ThreadPoolExecutor(STATS_READERS) as pool:
            for counts in pool.map(lambda endpoint_id: self.stats_reader.window(tenant, endpoint_id, start, end), ids):
                totals.update(counts)
        return contract.CustomerStats.model_validate({"customer": customer.uid, "endpoints": len(ids), **summary(dict(totals), start, end)})
