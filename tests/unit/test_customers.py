"""Customers in the core: what a PUT body may hold (its model, hookline.core.contract.customers; a 422 naming the
rule otherwise, as the API answers it), and the ceiling a customer's limits put on its endpoints."""

from __future__ import annotations

import re
from typing import Any

import pydantic
import pytest

from hookline.core import validation
from hookline.core.contract.customers import Customer as CustomerAnswer
from hookline.core.contract.customers import PutCustomer
from hookline.core.customers import DEFAULT_CUSTOMER_CONCURRENCY, DEFAULT_CUSTOMER_RATE_PER_SECOND, Customer, CustomerLimits, endpoint_limits
from hookline.core.errors import ValidationFailed
from hookline.core.models import DEFAULT_MAX_CONCURRENCY, DEFAULT_RATE_LIMIT_PER_SECOND
from hookline.entrypoints.api.routing import contract_error


def _put(body: dict[str, Any]) -> Customer:
    """The customer a PUT body makes, or the error the API answers for it."""
    try:
        return PutCustomer.model_validate(body).customer("acme", "acme-co", "")
    except pydantic.ValidationError as exc:
        raise contract_error([dict(error) for error in exc.errors()]) from None


def test_a_minimal_body_takes_the_defaults_ten_times_an_endpoints() -> None:
    data = _put({"name": "Acme Corp"})
    assert (data.name, data.email, data.metadata) == ("Acme Corp", None, ())
    assert data.limits == CustomerLimits(DEFAULT_CUSTOMER_RATE_PER_SECOND, DEFAULT_CUSTOMER_CONCURRENCY)


def test_a_full_body_is_kept_as_given() -> None:
    body = {
        "name": "Acme",
        "email": "ops+hooks@acme.example.com",
        "metadata": {"plan": "pro", "id": "42"},
        "limits": {"max_rate_per_second": 2.5, "max_concurrency": 3},
    }
    data = _put(body)
    assert (data.email, data.metadata, data.limits) == ("ops+hooks@acme.example.com", (("plan", "pro"), ("id", "42")), CustomerLimits(2.5, 3))


@pytest.mark.parametrize("uid", ["a", "A" * 64, "cus_01.x:y-z", "0"])
def test_uids_of_the_allowed_alphabet_pass(uid: str) -> None:
    assert validation.customer_uid(uid) == uid


@pytest.mark.parametrize("uid", ["", "A" * 65, "a#b", "a/b", "a b", "é", 7, None])
def test_other_uids_are_refused(uid: Any) -> None:
    with pytest.raises(ValidationFailed):
        validation.customer_uid(uid)


BAD_BODIES: list[tuple[dict[str, Any], str, str]] = [
    ({}, "missing_field", "'name' is required"),
    ({"name": ""}, "validation_failed", "'name' must be 1 to 256"),
    ({"name": "   "}, "validation_failed", "not only spaces"),
    ({"name": "x" * 257}, "validation_failed", "'name' must be 1 to 256"),
    ({"name": "a\nb"}, "validation_failed", "control characters"),
    ({"name": 5}, "wrong_type", "'name' must be a string"),
    ({"name": "a", "plan": "pro"}, "unknown_field", "plan"),
    ({"name": "a", "email": "nobody"}, "invalid_email", "'email'"),
    ({"name": "a", "email": "a@b"}, "invalid_email", "'email'"),
    ({"name": "a", "email": "a@b.com, c@d.com"}, "invalid_email", "'email'"),
    ({"name": "a", "email": "a@b.com\r\nBcc: c@d.com"}, "invalid_email", "'email'"),
    ({"name": "a", "email": "x" * 250 + "@b.com"}, "invalid_email", "'email'"),
    ({"name": "a", "email": 1}, "wrong_type", "'email'"),
    ({"name": "a", "metadata": []}, "wrong_type", "'metadata'"),
    ({"name": "a", "metadata": {"k": 1}}, "wrong_type", "string value"),
    ({"name": "a", "metadata": {"": "v"}}, "validation_failed", "metadata key"),
    ({"name": "a", "metadata": {"k" * 65: "v"}}, "validation_failed", "metadata key"),
    ({"name": "a", "metadata": {"k": "v" * 513}}, "validation_failed", "longer than 512"),
    ({"name": "a", "metadata": {f"k{i}": "v" for i in range(33)}}, "validation_failed", "more than 32"),
    ({"name": "a", "metadata": {f"k{i}": "v" * 500 for i in range(9)}}, "validation_failed", "the limit is 4096"),
    ({"name": "a", "limits": 5}, "wrong_type", "'limits'"),
    ({"name": "a", "limits": {"rate": 5}}, "unknown_field", "rate"),
    ({"name": "a", "limits": {"max_rate_per_second": 0}}, "validation_failed", "'limits.max_rate_per_second' must be between 0.1 and 10000"),
    ({"name": "a", "limits": {"max_rate_per_second": True}}, "wrong_type", "'limits.max_rate_per_second'"),
    ({"name": "a", "limits": {"max_concurrency": 101}}, "validation_failed", "'limits.max_concurrency' must be between 1 and 100"),
    ({"name": "a", "limits": {"max_concurrency": 2.5}}, "wrong_type", "'limits.max_concurrency'"),
]


@pytest.mark.parametrize(("body", "code", "says"), BAD_BODIES)
def test_bad_bodies_are_refused_with_a_code_and_a_message_naming_the_field(body: dict[str, Any], code: str, says: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        _put(body)
    assert refused.value.code == code
    assert says in refused.value.message


@pytest.mark.parametrize(
    ("rate", "concurrency", "says"),
    [
        (None, None, None),
        (20.0, 8, None),
        (20.5, None, "'rate_limit_per_second' 20.5 is above the customer's ceiling of 20 (limits.max_rate_per_second)"),
        (None, 9, "'max_concurrency' 9 is above the customer's ceiling of 8 (limits.max_concurrency)"),
    ],
)
def test_the_ceiling_names_the_limit_an_endpoint_exceeds(rate: float | None, concurrency: int | None, says: str | None) -> None:
    if says is None:
        CustomerLimits(20.0, 8).ensure_within(rate, concurrency)
        return
    with pytest.raises(ValidationFailed, match=re.escape(says)) as refused:
        CustomerLimits(20.0, 8).ensure_within(rate, concurrency)
    assert refused.value.code == "above_customer_limit"


@pytest.mark.parametrize(
    ("ceiling", "rate", "concurrency", "settings"),
    [
        (None, None, None, (DEFAULT_RATE_LIMIT_PER_SECOND, DEFAULT_MAX_CONCURRENCY)),
        (None, 400.0, 90, (400.0, 90)),
        (CustomerLimits(), None, None, (DEFAULT_RATE_LIMIT_PER_SECOND, DEFAULT_MAX_CONCURRENCY)),
        # A ceiling below the defaults lowers them: an endpoint created without limits always fits
        (CustomerLimits(2.0, 1), None, None, (2.0, 1)),
        (CustomerLimits(2.0, 1), 1.5, None, (1.5, 1)),
    ],
)
def test_a_new_endpoints_limits_are_the_given_or_the_defaults_under_the_ceiling(
    ceiling: CustomerLimits | None, rate: float | None, concurrency: int | None, settings: tuple[float, int]
) -> None:
    assert endpoint_limits(ceiling, rate, concurrency) == settings


def test_a_new_endpoints_limits_above_the_ceiling_are_refused() -> None:
    with pytest.raises(ValidationFailed, match="above the customer's ceiling of 2"):
        endpoint_limits(CustomerLimits(2.0, 1), 3.0, None)


def test_same_content_ignores_the_stamps_and_the_metadata_order() -> None:
    one = Customer("acme", "c", "C", metadata=(("a", "1"), ("b", "2")), created_at="x", updated_at="x")
    other = Customer("acme", "c", "C", metadata=(("b", "2"), ("a", "1")), created_at="y", updated_at="z")
    assert one.same_content(other)
    assert not one.same_content(Customer("acme", "c", "C", email="a@b.co"))
    assert CustomerAnswer.of(one).metadata.root == {"a": "1", "b": "2"}
