"""The customers resource: a customer as PUT takes it and as the API shows it, a page of them, the answer to a
deletion (the job deleting its endpoints), and its statistics."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, RootModel, WithJsonSchema

from hookline.core import customers as domain
from hookline.core import text, validation
from hookline.core.contract.common import Answer, CheckedBody, CustomerUid, NextCursor, RequestBody, Timestamp, rule
from hookline.core.contract.jobs import JobSummary
from hookline.core.contract.stats import Stats

# The pattern of a customer's name as the document gives it (hookline.core.validation.validate_customer_name is the rule).
_NAME_PATTERN = r"^[^\x00-\x1F\x7F-\x9F]*[^\x00-\x20\x7F-\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000][^\x00-\x1F\x7F-\x9F]*$"


def _checked(check: Any) -> Any:
    """A rule of hookline.core.validation that refuses a value (its own code and message) and otherwise keeps it as given."""

    def keep(value: Any) -> Any:
        check(value)
        return value

    return rule(keep)


class CustomerMetadata(RootModel[dict[str, str]]):
    """Free string pairs for the tenant's own use: up to 32 keys of 1 to 64
    characters, values up to 512 characters (neither with control characters),
    keys and values adding up to at most 4096 bytes (UTF-8).
    """

    model_config = ConfigDict(
        strict=True,
        frozen=True,
        json_schema_extra={
            "maxProperties": validation.MAX_METADATA_KEYS,
            "propertyNames": {"minLength": 1, "maxLength": validation.MAX_METADATA_KEY, "pattern": text.ONE_LINE_PATTERN},
            "additionalProperties": {"type": "string", "maxLength": validation.MAX_METADATA_VALUE, "pattern": text.ONE_LINE_PATTERN},
            "examples": [{"plan": "enterprise"}],
            "description": (
                "Free string pairs for the tenant's own use: up to 32 keys of 1 to 64\n"
                "characters, values up to 512 characters (neither with control characters),\n"
                "keys and values adding up to at most 4096 bytes (UTF-8).\n"
            ),
        },
    )

    @classmethod
    def of(cls, pairs: tuple[tuple[str, str], ...]) -> CustomerMetadata:
        return cls(dict(pairs))

    def pairs(self) -> tuple[tuple[str, str], ...]:
        return tuple(self.root.items())


def _limits(value: Any) -> Any:
    """`limits` by hookline.core.validation's rule (its messages name the field, `limits.max_concurrency`), as the model
    takes it: a whole number of concurrency (5.0 is 5), a number of rate; null stays null."""
    if value is None:
        return None
    checked = validation.validate_customer_limits(value)
    return CustomerLimits(**{name: getattr(checked, name) for name in value})


class CustomerLimits(RequestBody):
    """The ceiling for each of the customer's endpoints' `rate_limit_per_second` and `max_concurrency`."""

    max_rate_per_second: float = Field(
        default=domain.DEFAULT_CUSTOMER_RATE_PER_SECOND,
        ge=0.1,
        le=validation.MAX_RATE_PER_SECOND,
        description="Deliveries per second to this endpoint, at most (hookline halves it for a while after a 429).",
        json_schema_extra={"default": 500},
    )
    max_concurrency: int = Field(
        default=domain.DEFAULT_CUSTOMER_CONCURRENCY,
        ge=1,
        le=validation.MAX_CONCURRENCY,
        description="Deliveries in flight to this endpoint at once, at most.",
    )

    def applied(self) -> domain.CustomerLimits:
        return domain.CustomerLimits(self.max_rate_per_second, self.max_concurrency)


class PutCustomer(CheckedBody):
    # The whole customer, as PUT replaces it: a field left out takes its default. (No docstring: a model's docstring
    # is its schema's description, and the document gives this one none.)

    name: Annotated[str, rule(validation.validate_customer_name)] = Field(
        min_length=1,
        max_length=validation.MAX_CUSTOMER_NAME,
        description="For humans; not only spaces, no control characters (U+0000 to U+001F, U+007F to U+009F).",
        json_schema_extra={"pattern": _NAME_PATTERN},
    )
    email: Annotated[
        str | None,
        _checked(validation.validate_email),
        WithJsonSchema({"anyOf": [{"type": "string", "format": "email", "maxLength": validation.MAX_EMAIL}, {"type": "null"}]}),
    ] = Field(default=None, description="Where notices about the customer's endpoints go (`local@domain.tld`); null or absent, none.")
    metadata: Annotated[CustomerMetadata | None, _checked(validation.validate_metadata)] = Field(
        default=None, description="Replaces the metadata as a whole; null or absent, none."
    )
    limits: Annotated[CustomerLimits | None, rule(_limits)] = Field(
        default=None,
        description="Absent or null, ten times an endpoint's defaults (100 per second, 50 in flight); a limit left out takes its default.",
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
