"""Customers in the data table: one item per customer under its tenant's customer partition (keys.customer).

`put` is one UpdateItem that creates or replaces the customer and says which
it did, so repeating it is safe and a concurrent create cannot be lost; the
creation time of an existing customer is kept. A customer's endpoints are
endpoint items (adapters.dynamo.endpoints), not part of this item.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import Any

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.conditions import Attr, Key
from hookline.adapters.dynamo.ops import query_page, transact_write, write_if
from hookline.adapters.failures import translate_failures
from hookline.core.customers import Customer, CustomerLimits


@translate_failures
class CustomerRepository:
    def __init__(self, table: Any):
        self._table = table

    @staticmethod
    def from_item(item: dict[str, Any]) -> Customer:
        limits = item.get("limits") or {}
        defaults = CustomerLimits()
        return Customer(
            tenant=item["tenant"],
            uid=item["uid"],
            name=item["name"],
            email=item.get("email"),
            metadata=tuple((str(k), str(v)) for k, v in (item.get("metadata") or {}).items()),
            limits=CustomerLimits(
                max_rate_per_second=float(limits.get("max_rate_per_second", defaults.max_rate_per_second)),
                max_concurrency=int(limits.get("max_concurrency", defaults.max_concurrency)),
            ),
            created_at=item.get("created_at", ""),
            updated_at=item.get("updated_at", ""),
            session_epoch=int(item.get("session_epoch", 0)),
        )

    def put(self, customer: Customer) -> tuple[Customer, bool]:
        """Create the customer or replace its fields; the customer as stored, and True if it was created.

        `customer.created_at` is used only when it is created.
        """
        names = {"#t": "tenant", "#u": "uid", "#n": "name", "#m": "metadata", "#l": "limits", "#c": "created_at", "#at": "updated_at", "#e": "email"}
        values: dict[str, Any] = {
            ":t": customer.tenant,
            ":u": customer.uid,
            ":n": customer.name,
            ":m": dict(customer.metadata),
            ":l": {"max_rate_per_second": Decimal(str(customer.limits.max_rate_per_second)), "max_concurrency": customer.limits.max_concurrency},
            ":c": customer.created_at,
            ":at": customer.updated_at,
        }
        update = "SET #t = :t, #u = :u, #n = :n, #m = :m, #l = :l, #at = :at, #c = if_not_exists(#c, :c)"
        if customer.email is None:
            update += " REMOVE #e"
        else:
            update += ", #e = :e"
            values[":e"] = customer.email
        old = self._table.update_item(
            Key=keys.customer(customer.tenant, customer.uid),
            UpdateExpression=update,
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=values,
            ReturnValues="ALL_OLD",
        ).get("Attributes")
        if not old:
            return customer, True
        return replace(customer, created_at=old.get("created_at", customer.created_at), session_epoch=int(old.get("session_epoch", 0))), False

    def get(self, tenant: str, uid: str) -> Customer | None:
        item = self._table.get_item(Key=keys.customer(tenant, uid)).get("Item")
        return self.from_item(item) if item else None

    def current(self, tenant: str, uid: str) -> Customer | None:
        """`get`, strongly consistent: what a portal session's every request is checked against."""
        item = self._table.get_item(Key=keys.customer(tenant, uid), ConsistentRead=True).get("Item")
        return self.from_item(item) if item else None

    def bump_session_epoch(self, tenant: str, uid: str) -> bool:
        """Revoke every portal session of the customer made so far (one write); False if there is no such customer.

        `put` never writes `session_epoch`, so replacing a customer keeps its sessions' standing.
        """
        bumped = write_if(
            self._table.update_item,
            Key=keys.customer(tenant, uid),
            UpdateExpression="ADD session_epoch :one",
            ConditionExpression=Attr(keys.PK).exists(),
            ExpressionAttributeValues={":one": 1},
        )
        return bumped is not None

    def delete(self, tenant: str, uid: str) -> bool:
        """False if there was no such customer. The event types sent to its uid (keys.customer_event_types) go with it,
        in the same transaction: a customer made again under the uid does not see what was sent to this one."""
        refused = transact_write(
            self._table,
            {"Delete": {"Key": keys.customer(tenant, uid), "ConditionExpression": f"attribute_exists({keys.PK})"}},
            {"Delete": {"Key": keys.customer_event_types(tenant, uid)}},
        )
        return not refused

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Customer], str | None]:
        """A page of the tenant's customers in uid order, and the cursor to the next (None at the end)."""
        partition = keys.customer_partition(tenant)
        condition = Key(keys.PK).eq(partition) & Key(keys.SK).begins_with(keys.CUSTOMER_PREFIX)
        items, nxt = query_page(self._table, limit, cursor, partition, KeyConditionExpression=condition)
        return [self.from_item(i) for i in items], nxt
