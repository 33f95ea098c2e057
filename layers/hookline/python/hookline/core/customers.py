"""The producer's customers: the level between a tenant and its endpoints.

A tenant (the holder of an API key) has customers, each named by a uid the
producer chooses. An endpoint belongs to one customer or to none (the tenant's
own endpoints), and an event addressed to a customer reaches only that
customer's endpoints. A customer's `limits` are the ceiling its endpoints'
rate and concurrency may be set to.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hookline.core import ids
from hookline.core.errors import ValidationFailed
from hookline.core.jobs import JOB
from hookline.core.models import DEFAULT_MAX_CONCURRENCY, DEFAULT_RATE_LIMIT_PER_SECOND

# By default a customer's endpoints may be set as high as any endpoint may (core.validation's bounds).
DEFAULT_CUSTOMER_RATE_PER_SECOND = 500.0
DEFAULT_CUSTOMER_CONCURRENCY = 100


@dataclass(frozen=True)
class CustomerLimits:
    """The most any one of the customer's endpoints may be set to."""

    max_rate_per_second: float = DEFAULT_CUSTOMER_RATE_PER_SECOND
    max_concurrency: int = DEFAULT_CUSTOMER_CONCURRENCY

    def ensure_within(self, rate_limit_per_second: float | None = None, max_concurrency: int | None = None) -> None:
        """Raise ValidationFailed (422 above_customer_limit, naming the ceiling) if an endpoint setting given exceeds it."""
        if rate_limit_per_second is not None and rate_limit_per_second > self.max_rate_per_second:
            raise ValidationFailed(
                f"'rate_limit_per_second' {rate_limit_per_second:g} is above the customer's ceiling of {self.max_rate_per_second:g} (limits.max_rate_per_second)",
                code="above_customer_limit",
            )
        if max_concurrency is not None and max_concurrency > self.max_concurrency:
            raise ValidationFailed(
                f"'max_concurrency' {max_concurrency} is above the customer's ceiling of {self.max_concurrency} (limits.max_concurrency)",
                code="above_customer_limit",
            )


def endpoint_limits(ceiling: CustomerLimits | None, rate_limit_per_second: float | None, max_concurrency: int | None) -> tuple[float, int]:
    """A new endpoint's rate and concurrency: as given, else the defaults; for a customer's endpoint
    (`ceiling` set) a default is lowered to the ceiling and a value given above it is refused."""
    rate = DEFAULT_RATE_LIMIT_PER_SECOND if rate_limit_per_second is None else rate_limit_per_second
    concurrency = DEFAULT_MAX_CONCURRENCY if max_concurrency is None else max_concurrency
    if ceiling is None:
        return rate, concurrency
    ceiling.ensure_within(rate_limit_per_second, max_concurrency)
    return min(rate, ceiling.max_rate_per_second), min(concurrency, ceiling.max_concurrency)


@dataclass(frozen=True)
class Customer:
    tenant: str
    uid: str  # the producer's own name for it: 1-64 of [A-Za-z0-9._:-], so never a key separator
    name: str
    email: str | None = None
    metadata: tuple[tuple[str, str], ...] = ()  # a small string map, in the order given
    limits: CustomerLimits = field(default_factory=CustomerLimits)
    created_at: str = ""
    updated_at: str = ""
    session_epoch: int = 0  # bumped to revoke every portal session made before (core.sessions); never shown

    def same_content(self, other: Customer) -> bool:
        """Equal in everything a PUT sets: a repeated PUT of it changes nothing."""
        return (self.name, self.email, dict(self.metadata), self.limits) == (other.name, other.email, dict(other.metadata), other.limits)


def deletion_job_id(tenant: str, uid: str, created_at: str) -> str:
    """The job deleting the endpoints of the customer `uid` created at `created_at`: one per customer, however often asked."""
    return ids.derived_id(JOB, tenant, "delete-customer", uid, created_at)
