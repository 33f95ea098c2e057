"""Customers in memory, as hookline.adapters.dynamo.customers.CustomerRepository keeps them."""

from __future__ import annotations

from dataclasses import replace

from hookline.core.customers import Customer
from tests.fakes import paging
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.faults import Faults


class FakeCustomerStore:
    """CustomerStore (the services' port).

    Contract, as the adapter's: `put` creates or replaces and says which,
    keeping an existing customer's created_at; `delete` answers False for a
    customer that is not there; pages come in uid order, their cursors scoped
    to the tenant.
    """

    def __init__(self) -> None:
        self.items: dict[tuple[str, str], Customer] = {}
        self.faults = Faults()
        self._lock = new_lock()

    @atomic
    def put(self, customer: Customer) -> tuple[Customer, bool]:
        self.faults.check("put")
        old = self.items.get((customer.tenant, customer.uid))
        stored = customer if old is None else replace(customer, created_at=old.created_at, session_epoch=old.session_epoch)
        self.items[(customer.tenant, customer.uid)] = stored
        return stored, old is None

    def get(self, tenant: str, uid: str) -> Customer | None:
        self.faults.check("get")
        return self.items.get((tenant, uid))

    def current(self, tenant: str, uid: str) -> Customer | None:
        self.faults.check("current")
        return self.items.get((tenant, uid))

    @atomic
    def bump_session_epoch(self, tenant: str, uid: str) -> bool:
        self.faults.check("bump_session_epoch")
        old = self.items.get((tenant, uid))
        if old is None:
            return False
        self.items[(tenant, uid)] = replace(old, session_epoch=old.session_epoch + 1)
        return True

    @atomic
    def delete(self, tenant: str, uid: str) -> bool:
        self.faults.check("delete")
        return self.items.pop((tenant, uid), None) is not None

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Customer], str | None]:
        self.faults.check("page")
        mine = (c for (t, _), c in self.items.items() if t == tenant)
        return paging.page(mine, lambda c: c.uid, f"customers#{tenant}", limit, cursor)
