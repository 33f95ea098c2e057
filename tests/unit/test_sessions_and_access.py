"""Portal sessions and access, the pure rules: token shape, the session request, when a session stops working,
and what each kind of caller may do."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from hookline.core.access import Access, Principal
from hookline.core.contract.portal import CreatePortalSession
from hookline.core.customers import Customer
from hookline.core.errors import Forbidden, ValidationFailed
from hookline.core.sessions import (
    MAX_TTL_SECONDS,
    PortalSession,
    SessionRequest,
    check,
    generate_token,
    hash_token,
    is_session_token,
    made_for,
    portal_url,
    session_fields,
)
from hookline.entrypoints.api.routing import contract_error

CUSTOMER = Customer("acme", "cus-1", "Customer One", created_at="2026-11-29T12:00:00.000Z")
SESSION = PortalSession("h", "acme", "cus-1", "2026-11-29T12:00:00.000Z", 0, False, "2026-11-29T12:00:00.000Z", expires_at=2000)


def test_tokens_are_prefixed_random_and_stored_only_as_their_hash() -> None:
    tokens = {generate_token() for _ in range(50)}
    assert len(tokens) == 50 and all(is_session_token(t) and len(t) >= 4 + 43 for t in tokens)  # 32 bytes, base64url
    token = next(iter(tokens))
    assert hash_token(token) == hash_token(token) != token and token not in hash_token(token)
    assert not is_session_token("hk_producer-key")


def session_request(body: dict[str, Any]) -> SessionRequest:
    """A session request as the API takes it, or the error the API answers for it."""
    try:
        return CreatePortalSession.model_validate(body).request()
    except pydantic.ValidationError as exc:
        raise contract_error([dict(error) for error in exc.errors()]) from None


@pytest.mark.parametrize(
    ("body", "wanted"),
    [
        ({}, SessionRequest(3600, False)),
        ({"ttl_seconds": 60, "read_only": True}, SessionRequest(60, True)),
        ({"ttl_seconds": MAX_TTL_SECONDS}, SessionRequest(MAX_TTL_SECONDS)),
    ],
)
def test_a_session_request_defaults_to_an_hour_with_full_access(body: dict[str, Any], wanted: SessionRequest) -> None:
    assert session_request(body) == wanted


@pytest.mark.parametrize(
    "body",
    [
        {"ttl_seconds": 59},
        {"ttl_seconds": MAX_TTL_SECONDS + 1},
        {"ttl_seconds": "3600"},
        {"ttl_seconds": 60.5},
        {"ttl_seconds": True},
        {"read_only": "yes"},
        {"scope": "all"},
    ],
)
def test_a_bad_session_request_is_refused_naming_the_field(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationFailed, match=next(iter(body))):
        session_request(body)


@pytest.mark.parametrize(
    ("customer", "now", "refusal"),
    [
        (CUSTOMER, 1999.0, None),
        (CUSTOMER, 2000.0, "expired"),
        (Customer("acme", "cus-1", "One", created_at="2026-11-29T12:00:00.000Z", session_epoch=1), 10.0, "revoked"),
        (None, 10.0, "customer_gone"),
        (Customer("acme", "cus-1", "A new one of that uid", created_at="2026-11-30T00:00:00.000Z"), 10.0, "customer_gone"),
    ],
    ids=["valid", "expired", "revoked", "customer deleted", "uid made again"],
)
def test_a_session_works_until_it_expires_is_revoked_or_its_customer_goes(customer: Customer | None, now: float, refusal: str | None) -> None:
    assert check(SESSION, customer, now) == refusal


@pytest.mark.parametrize(
    ("customer", "made_at", "bound"),
    [
        (CUSTOMER, "2026-11-29T12:00:00.000Z", True),
        (None, "2026-11-29T12:00:00.000Z", False),
        (Customer("acme", "cus-1", "A new one of that uid", created_at="2026-11-30T00:00:00.000Z"), "2026-11-29T12:00:00.000Z", False),
        (CUSTOMER, "2026-11-28T12:00:00.000Z", False),
        (CUSTOMER, "", False),
        (Customer("acme", "cus-1", "No creation time"), "", False),
    ],
    ids=["the same", "deleted", "a newer one of the uid", "an older one's session", "no creation time named", "neither names one"],
)
def test_a_session_is_bound_to_exactly_the_customer_it_was_made_for(customer: Customer | None, made_at: str, bound: bool) -> None:
    assert made_for(customer, made_at) is bound


def test_the_portal_link_carries_the_token_in_its_fragment_only() -> None:
    assert portal_url("https://api.example.com/", "hps_x", "acme co") == "https://api.example.com/portal?t=acme%20co#token=hps_x"


PRODUCER, SESSION_A, READ_ONLY_A = Principal("acme"), Principal("acme", "a"), Principal("acme", "a", read_only=True)


@pytest.mark.parametrize(
    ("who", "access", "allowed"),
    [
        (PRODUCER, Access.PRODUCER, True),
        (PRODUCER, Access.WRITE, True),
        (SESSION_A, Access.READ, True),
        (SESSION_A, Access.WRITE, True),
        (SESSION_A, Access.PRODUCER, False),
        (READ_ONLY_A, Access.READ, True),
        (READ_ONLY_A, Access.WRITE, False),
        (READ_ONLY_A, Access.PRODUCER, False),
    ],
)
def test_who_may_use_which_route(who: Principal, access: Access, allowed: bool) -> None:
    if allowed:
        who.require(access)
    else:
        with pytest.raises(Forbidden):
            who.require(access)


T = "2026-11-29T12:00:00.000Z"


def test_a_session_sees_only_its_own_customer() -> None:
    assert PRODUCER.sees(None, T) and PRODUCER.sees("a", T) and PRODUCER.sees("b", T)
    assert SESSION_A.sees("a", T) and not SESSION_A.sees("b", T) and not SESSION_A.sees(None, T)


def test_a_session_does_not_see_what_an_earlier_customer_of_its_uid_made() -> None:
    # Given a session of customer "a" made (again) at T, after an earlier "a" was deleted
    session = Principal("acme", "a", since=T)
    # Then what "a" made from T on is its own, and what the uid named before is not; the producer sees both
    assert session.sees("a", T) and session.sees("a", "2026-11-29T12:00:00.001Z")
    assert not session.sees("a", "2026-11-29T11:59:59.999Z")
    assert PRODUCER.sees("a", "2026-11-29T11:59:59.999Z")


def test_a_session_request_with_another_field_is_unknown_field_naming_it() -> None:
    with pytest.raises(ValidationFailed) as refused:
        session_fields({"ttl_seconds": 60, "ttl": 5})
    assert (refused.value.code, "'ttl'" in refused.value.message) == ("unknown_field", True)
    session_fields({"ttl_seconds": 60, "read_only": True})  # the two it takes
