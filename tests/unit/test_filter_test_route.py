"""`POST /v1/filters/test`, the portal's filter tester, through the real API resolver in-process: it reads nothing (no
AWS, the network blocked; a portal session's customer, which every request of a session reads, is in memory), answers by the same pure rule delivery applies (hookline.core.filters.matches), refuses a
filter by the endpoints' rule (422 `invalid_filter`), and any key or portal session may call it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookline.core.customers import Customer
from hookline.core.errors import ValidationFailed
from hookline.core.filters import matches, parse_filter
from hookline.entrypoints import api
from hookline.services.sessions import PortalSessionService
from hookline.wiring import container
from tests.fakes.clock import FakeClock
from tests.fakes.customers import FakeCustomerStore
from tests.fakes.sessions import FakeSessionStore
from tests.support.events import http_event

ROUTE = "/v1/filters/test"
OVER_100 = {"data": {"amount": [{"numeric": [">=", 100]}]}}
EU_OR_BIG = {"$or": [{"customer": [{"prefix": "eu-"}]}, OVER_100]}
SESSION_EXPIRES = 4_102_444_800  # 2100-01-01: the session is live whatever the clock
CUS_A_MADE = "2026-11-29T12:00:00.000Z"


def _try(body: Any = None, *, caller: dict[str, Any] | None = None, raw_body: str | None = None) -> tuple[int, Any]:
    """The API's answer to the route, as API Gateway hands it the request (the producer's key unless `caller` says)."""
    event = http_event("POST", ROUTE, body, raw_body=raw_body)
    if caller is not None:
        event["requestContext"]["authorizer"] = {"lambda": caller}
    answer = api.handle(event, None)
    return answer["statusCode"], json.loads(answer["body"])


@pytest.mark.parametrize(
    ("pattern", "event"),
    [
        (OVER_100, {"type": "order.paid", "data": {"amount": 150}}),
        (OVER_100, {"type": "order.paid", "customer": "eu-1", "data": {"amount": 50}}),
        (OVER_100, {"type": "order.paid", "data": {"amount": "150"}}),  # a string is never a number
        (OVER_100, {"type": "order.paid", "data": {}}),
        (EU_OR_BIG, {"type": "order.paid", "customer": "eu-1", "data": {"amount": 5}}),
        (EU_OR_BIG, {"type": "order.paid", "customer": None, "data": {"amount": 5}}),  # a broadcast has no customer
        ({"type": [{"prefix": "invoice."}]}, {"type": "invoice.paid", "data": None}),
        ({"data": {"tags": ["vip"]}}, {"type": "user.created", "data": {"tags": ["new", "vip"]}}),
        ({"data": {"region": [{"exists": False}]}}, {"type": "user.created", "data": [1, 2]}),  # data: any JSON
    ],
)
def test_the_answer_is_the_rule_delivery_applies(pattern: dict[str, Any], event: dict[str, Any]) -> None:
    # Given a filter and a sample event; when they are tried
    status, answer = _try({"filter": pattern, "event": event})
    # Then the answer is what hookline.core.filters.matches says of them, the function delivery calls
    expected = matches(parse_filter(pattern), event["type"], event.get("customer"), event["data"])
    assert (status, answer) == (200, {"matches": expected})


def test_both_outcomes_are_answered() -> None:
    event = {"type": "order.paid", "data": {"amount": 150}}
    assert _try({"filter": OVER_100, "event": event}) == (200, {"matches": True})
    assert _try({"filter": OVER_100, "event": {**event, "data": {"amount": 99.5}}}) == (200, {"matches": False})


# Hypothesis: patterns of the grammar's parts (most valid), anything JSON of its words (mostly not), and event data.
_text = st.sampled_from(["eu-1", "EU-1", "order.paid", "a", ""])
_numbers = st.integers(-1000, 1000) | st.floats(-1e6, 1e6, allow_nan=False)
_operators = st.one_of(
    st.builds(lambda text: {"prefix": text}, _text),
    st.builds(lambda text: {"suffix": {"equals-ignore-case": text}}, _text),
    st.builds(lambda text: {"equals-ignore-case": text}, _text),
    st.builds(lambda present: {"exists": present}, st.booleans()),
    st.builds(lambda op, bound: {"numeric": [op, bound]}, st.sampled_from(["=", "<", "<=", ">", ">="]), _numbers),
    st.builds(lambda excluded: {"anything-but": excluded}, _text | _numbers | st.lists(_text, min_size=1, max_size=3)),
)
_leaves = st.lists(st.none() | st.booleans() | _numbers | _text | _operators, min_size=1, max_size=3)
_fields = st.sampled_from(["amount", "region", "tags", "nested"])
_data_patterns = st.recursive(
    st.dictionaries(_fields, _leaves, min_size=1, max_size=2), lambda inner: st.dictionaries(_fields, inner | _leaves, min_size=1, max_size=2), max_leaves=4
)
_patterns = st.fixed_dictionaries({}, optional={"type": _leaves, "customer": _leaves, "data": _data_patterns}).filter(bool)
_words = st.sampled_from(["type", "customer", "data", "amount", "$or", "prefix", "numeric", "exists", "anything-but", "wildcard"])
_scalars = st.none() | st.booleans() | _numbers | _text
_anything = st.recursive(_scalars | _words, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_words, inner, max_size=3), max_leaves=12)
_data = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_fields, inner, max_size=3), max_leaves=10)


@settings(max_examples=150, deadline=None)
@given(pattern=_patterns | _anything, data=_data, customer=st.none() | st.sampled_from(["eu-1", "EU-1", "cus-a"]))
def test_any_filter_and_event_get_the_cores_answer_or_its_refusal(pattern: Any, data: Any, customer: str | None) -> None:
    # Given any filter and event data; when they are tried
    status, answer = _try({"filter": pattern, "event": {"type": "order.paid", "customer": customer, "data": data}})
    # Then a filter the endpoints' rule refuses is that refusal, word for word, and any other is the core's answer
    try:
        parsed = parse_filter(pattern)
    except ValidationFailed as refused:
        assert (status, answer["error"]) == (422, {"code": refused.code, "message": refused.message})
        return
    assert (status, answer) == (200, {"matches": matches(parsed, "order.paid", customer, data)})


EVENT = {"type": "order.paid", "data": {"amount": 1}}
REFUSED: list[tuple[Any, str, str]] = [
    # the filter, by the endpoints' rule: the message names the bad part
    ({"filter": {"data": {"amount": 100}}, "event": EVENT}, "invalid_filter", "'filter.data.amount': must be an array of match values"),
    ({"filter": {"type": [{"wildcard": "order.*"}]}, "event": EVENT}, "invalid_filter", "'filter.type[0]': 'wildcard' is not supported"),
    ({"filter": {"detail": {"x": [1]}}, "event": EVENT}, "invalid_filter", "'filter.detail': is not a field a filter reads"),
    ({"filter": {}, "event": EVENT}, "invalid_filter", "'filter': a filter needs at least one field"),
    ({"filter": None, "event": EVENT}, "invalid_filter", "'filter': must be an object"),
    ({"filter": "amount >= 100", "event": EVENT}, "invalid_filter", "'filter': must be an object"),
    # the body, by the API's contract: unknown fields first, then the required ones, then each field
    ({"filter": OVER_100, "event": EVENT, "endpoint_id": "ep_1", "x": 1}, "unknown_field", "unknown field(s): endpoint_id, x"),
    ({"event": EVENT}, "missing_field", "'filter' is required"),
    ({"filter": OVER_100}, "missing_field", "'event' is required"),
    ({"filter": {"data": 1}}, "missing_field", "'event' is required"),
    ({"filter": OVER_100, "event": [EVENT]}, "wrong_type", "'event' must be an object"),
    ({"filter": OVER_100, "event": {**EVENT, "id": "evt_1"}}, "unknown_field", "unknown field(s): event.id"),
    ({"filter": OVER_100, "event": {"data": {}}}, "missing_field", "'event.type' is required"),
    ({"filter": OVER_100, "event": {"type": "order.paid"}}, "missing_field", "'event.data' is required"),
    ({"filter": OVER_100, "event": {**EVENT, "type": 5}}, "wrong_type", "'event.type' must be a string"),
    ({"filter": OVER_100, "event": {**EVENT, "type": "order paid"}}, "validation_failed", "'event.type' must be letters, digits"),
    ({"filter": OVER_100, "event": {**EVENT, "customer": 7}}, "wrong_type", "'event.customer' must be a string or null"),
    ({"filter": OVER_100, "event": {**EVENT, "customer": "a b"}}, "invalid_customer_uid", "'event.customer': a customer uid is 1 to 64"),
    ([OVER_100], "validation_failed", "request body must be a JSON object"),
]


@pytest.mark.parametrize(("body", "code", "says"), REFUSED)
def test_a_bad_request_is_a_422_naming_what_is_wrong(body: Any, code: str, says: str) -> None:
    status, answer = _try(body)
    assert (status, answer["error"]["code"]) == (422, code), answer
    assert answer["error"]["message"].startswith(says), answer


def test_a_body_that_is_not_json_or_too_large_is_refused_as_on_every_route() -> None:
    assert _try(raw_body="{not json")[1]["error"]["code"] == "malformed_json"
    # The limit is an event's (HOOKLINE_MAX_EVENT_BYTES, 256 KB by default): a sample event is one event
    status, answer = _try({"filter": OVER_100, "event": {"type": "a.b", "data": {"blob": "x" * 270_000}}})
    assert (status, answer["error"]["code"]) == (413, "payload_too_large")
    assert _try({"filter": OVER_100, "event": {"type": "a.b", "data": {"blob": "x" * 250_000}}}) == (200, {"matches": False})


@pytest.mark.parametrize(
    "caller",
    [
        {"tenant": "acme"},
        {"tenant": "acme", "customer": "cus-a", "read_only": False, "expires_at": SESSION_EXPIRES, "customer_since": CUS_A_MADE},
        {"tenant": "acme", "customer": "cus-a", "read_only": True, "expires_at": SESSION_EXPIRES, "customer_since": CUS_A_MADE},
    ],
    ids=["api-key", "session", "read-only-session"],
)
def test_any_key_or_portal_session_may_try_a_filter(caller: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    # Given customer cus-a in memory: a session's every request reads its customer (the only read this route makes)
    customers = FakeCustomerStore()
    customers.put(Customer("acme", "cus-a", "A", created_at=CUS_A_MADE))
    sessions = PortalSessionService(FakeSessionStore(), customers, FakeClock())
    monkeypatch.setattr(container, "session_service", lambda: sessions)
    body = {"filter": {"customer": ["cus-b"]}, "event": {"type": "a.b", "customer": "cus-b", "data": {}}}
    # Another customer's uid is only a value here: nothing of that customer is read
    assert _try(body, caller=caller) == (200, {"matches": True})


def test_no_key_or_an_expired_session_is_refused() -> None:
    body = {"filter": OVER_100, "event": EVENT}
    status, answer = _try(body, caller={})
    assert (status, answer["error"]["code"]) == (401, "unauthorized")
    status, answer = _try(body, caller={"tenant": "acme", "customer": "cus-a", "expires_at": 1})
    assert (status, answer["error"]["code"]) == (401, "session_expired")
