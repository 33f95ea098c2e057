"""The customers resource: a customer as PUT takes it and as the API shows it, a page of them, the answer to a
deletion (the job deleting its endpoints), and its statistics."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, RootModel

from hookline.core import customers as domain
from hookline.core.contract import fields
from hookline.core.contract.common import Answer, CheckedBody, CustomerUid, NextCursor, RequestBody, Timestamp, body_rule
from hookline.core.contract.jobs import JobSummary
from hookline.core.contract.stats import Stats
from hookline.core.errors import ValidationFailed


class CustomerMetadata(RootModel[fields.Metadata]):
    """Free string pairs for the tenant's own use: up to 32 keys of 1 to 64
    characters, values up to 512 characters (neither with control characters),
    keys and values adding up to at most 4096 bytes (UTF-8).
    """

    model_config = ConfigDict(strict=True, frozen=True)

    @classmethod
    def of(cls, pairs: tuple[tuple[str, str], ...]) -> CustomerMetadata:
        return cls(dict(pairs))

    def pairs(self) -> tuple[tuple[str, str], ...]:
        return tuple(self.root.items())


def _known_limits(data: dict[str, Any]) -> None:
    unknown = sorted(set(data) - set(CustomerLimits.model_fields))
    if unknown:
        raise ValidationFailed(f"unknown field(s) in 'limits': {', '.join(unknown)}", code="unknown_field")


class CustomerLimits(RequestBody):
    """The ceiling for each of the customer's endpoints' `rate_limit_per_second` and `max_concurrency`."""

    # 500, not 500.0: the document shows the default as JSON writes it.
    max_rate_per_second: fields.rate("limits.max_rate_per_second") = int(domain.DEFAULT_CUSTOMER_RATE_PER_SECOND)  # type: ignore[valid-type]
    max_concurrency: fields.concurrency("limits.max_concurrency") = domain.DEFAULT_CUSTOMER_CONCURRENCY  # type: ignore[valid-type]

    _known_fields = body_rule(_known_limits)

    def applied(self) -> domain.CustomerLimits:
        return domain.CustomerLimits(float(self.max_rate_per_second), self.max_concurrency)


class PutCustomer(CheckedBody):
    # The whole customer, as PUT replaces it: a field left out takes its default. (No docstring: a model's docstring
    # is its schema's description, and the document gives this one none.)

    name: fields.CustomerName
    email: fields.Email = Field(default=None, description="Where notices about the customer's endpoints go (`local@domain.tld`); null or absent, none.")
    metadata: CustomerMetadata | None = Field(default=None, description="Replaces the metadata as a whole; null or absent, none.")
    limits: CustomerLimits | None = Field(
        default=None,
        description=f"Absent or null, {domain.DEFAULT_CUSTOMER_RATE_PER_SECOND:g} per second and {domain.DEFAULT_CUSTOMER_CONCURRENCY} in flight (as high as any endpoint may be set): the most each of the customer's endpoints may be set to; a limit left out takes its default.",
    )

    def customer(self, tenant: str, uid: str, now: str) -> domain.Customer:
        """The customer this body makes (or replaces it with), stamped `now`."""
        return domain.Customer(
            tenant,
            uid,
            self.name,
            self.email,
            self.metadata.pairs() if self.metadata is not None else (),
            self.limits.applied() if self.limits is not None else domain.CustomerLimits(),
            created_at=now,
            updated_at=now,
        )


class AppliedCustomerLimits(Answer):
    """A customer's limits as they apply (the defaults filled in), as the API shows them."""

    max_rate_per_second: float
    max_concurrency: int

    @classmethod
    def of(cls, limits: domain.CustomerLimits) -> AppliedCustomerLimits:
        return cls(max_rate_per_second=limits.max_rate_per_second, max_concurrency=limits.max_concurrency)


class Customer(Answer):
    # A customer as the API shows it (no docstring: the document's schema has no description).

    uid: CustomerUid
    name: str
    email: str | None
    metadata: CustomerMetadata
    limits: AppliedCustomerLimits
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, customer: domain.Customer) -> Customer:
        return cls(
            uid=customer.uid,
            name=customer.name,
            email=customer.email,
            metadata=CustomerMetadata.of(customer.metadata),
            limits=AppliedCustomerLimits.of(customer.limits),
            created_at=customer.created_at,
            updated_at=customer.updated_at,
        )


class CustomerPage(Answer):
    # One page of the tenant's customers, in uid order.
    items: list[Customer]
    next: NextCursor


class CustomerDeleted(Answer):
    # The answer to a customer's deletion: the job deleting its endpoints.
    job: JobSummary = Field(description="The job deleting the customer's endpoints.")


class CustomerStats(Stats):
    """The customer's endpoints' statistics added up."""

    customer: CustomerUid
    endpoints: int = Field(ge=0, description="How many endpoints the customer has now (whose counters were added).")
