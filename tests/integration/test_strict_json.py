"""JSON that would change meaning is refused, through the real API handler (issue 50, finding 4): a key named twice,
a number a double cannot hold as written, a control character in a field people read."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest

from hookline.adapters import aws
from tests.conftest import Hookline

ENDPOINT = "ep_01kkntq2cnt8b8hz3pj95wjvcc"  # never created: the body is read before the route looks for it


# (method, path, body naming a key twice): every route that reads a body, at the top level and nested.
TWICE: list[tuple[str, str, str, str]] = [
    ("POST", "/v1/events", '{"type":"a.b","data":{},"customer":"org_1","customer":"org_2"}', "customer"),
    ("POST", "/v1/events", '{"type":"a.b","data":{"order":{"amount":1,"amount":2}}}', "amount"),
    ("POST", "/v1/events/batch", '{"events":[{"type":"a.b","data":{},"type":"c.d"}]}', "type"),
    ("POST", "/v1/events/broadcast", '{"type":"a.b","data":{"x":[{"y":1,"y":1}]}}', "y"),
    ("POST", "/v1/endpoints", '{"url":"https://example.com/a","url":"https://example.com/b"}', "url"),
    ("POST", "/v1/endpoints", '{"url":"https://example.com/a","headers":{"X-A":"1","X-A":"2"}}', "X-A"),
    ("PATCH", f"/v1/endpoints/{ENDPOINT}", '{"description":"a","description":"b"}', "description"),
    ("POST", f"/v1/endpoints/{ENDPOINT}/replay", '{"since":"2026-01-01T00:00:00Z","since":"2026-01-02T00:00:00Z"}', "since"),
    ("PUT", "/v1/customers/org_1", '{"name":"A","metadata":{"plan":"a","plan":"b"}}', "plan"),
    ("POST", "/v1/customers/org_1/portal-sessions", '{"read_only":false,"read_only":true}', "read_only"),
    ("PUT", "/v1/portal-settings", '{"producer_name":"A","producer_name":"B"}', "producer_name"),
    ("PUT", "/v1/event-types/a.b", '{"versions":{"2026-01-01":{"schema":{"type":"object","type":"array"}}}}', "type"),
    ("POST", "/v1/filters/test", '{"filter":{"type":["a.b"]},"filter":{}}', "filter"),
]


@pytest.mark.parametrize(("method", "path", "raw", "key"), TWICE)
def test_a_key_named_twice_is_malformed_json_naming_it(hookline: Hookline, method: str, path: str, raw: str, key: str) -> None:
    # When a body names a key twice in one object (JSON parsers disagree on which one counts)
    status, body = hookline.api(method, path, raw_body=raw)
    # Then it is refused before anything reads it, naming the key
    assert (status, body["error"]["code"]) == (400, "malformed_json"), body
    assert f"{key!r}" in body["error"]["message"]


def test_an_event_naming_its_customer_twice_routes_nowhere(hookline: Hookline) -> None:
    # Given a customer with an endpoint
    assert hookline.api("PUT", "/v1/customers/org_2", {"name": "Two"})[0] in (200, 201)
    assert hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/hook", "customer": "org_2"})[0] == 201
    # When an event names `customer` twice, the second the endpoint's
    status, _ = hookline.api("POST", "/v1/events", raw_body='{"type":"a.b","data":{},"customer":"org_1","customer":"org_2"}')
    # Then it is refused, and nothing is queued
    assert status == 400
    assert hookline.queued() == []


@pytest.mark.parametrize(
    ("literal", "pointer"),
    [
        ("1e-400", "/data/amount"),  # underflows to 0
        ("-2e-324", "/data/amount"),  # below the smallest subnormal
        ("1e400", "/data/amount"),  # overflows
        ("1.7976931348623159e308", "/data/amount"),  # rounds to the largest double, not this
        ("0.1000000000000000000001", "/data/amount"),  # more digits than a double keeps
        ("12345678901234567890.5", "/data/amount"),
    ],
)
def test_a_number_that_would_change_is_422_naming_its_pointer(hookline: Hookline, literal: str, pointer: str) -> None:
    status, body = hookline.api("POST", "/v1/events", raw_body=f'{{"type":"a.b","data":{{"amount":{literal}}}}}')
    assert (status, body["error"]["code"]) == (422, "validation_failed"), body
    assert pointer in body["error"]["message"] and literal in body["error"]["message"]
    assert hookline.queued() == []


def test_the_pointer_names_a_nested_number_and_escapes_its_keys(hookline: Hookline) -> None:
    raw = '{"type":"a.b","data":{"lines":[{"unit/price":1.5},{"unit/price":1e-400}]}}'
    status, body = hookline.api("POST", "/v1/events", raw_body=raw)
    assert status == 422
    assert "/data/lines/1/unit~1price" in body["error"]["message"]


def test_a_number_field_of_a_resource_is_checked_alike(hookline: Hookline) -> None:
    status, body = hookline.api("POST", "/v1/endpoints", raw_body='{"url":"https://example.com/a","rate_limit_per_second":1e-400}')
    assert (status, body["error"]["code"]) == (422, "validation_failed")
    assert "/rate_limit_per_second" in body["error"]["message"]


def _stored_data(hookline: Hookline, event_id: str) -> tuple[str, Any]:
    item = aws.dynamodb_table(hookline.env["HOOKLINE_TABLE_NAME"]).get_item(Key={"pk": f"E#acme#{event_id}", "sk": "EVENT"})["Item"]
    return str(item["body"]), json.loads(item["body"], parse_float=Decimal, parse_int=Decimal)["data"]


def test_numbers_a_double_holds_are_delivered_with_their_value(hookline: Hookline) -> None:
    # Given numbers at the edges of what is kept: doubles at their limits, written in any form that reads back as
    # the same double, and an integer longer than DynamoDB's 38 digits (kept exactly: `data` is stored as text)
    given = {
        "smallest": "5e-324",
        "largest": "1.7976931348623157e308",
        "digits": "0.30000000000000004",
        "zeros": "1.50",
        "exponent": "1E2",
        "zero": "0e-400",
        "negative_zero": "-0.0",
        "integer": "123456789012345678901234567890123456789012",
    }
    raw = '{"type":"a.b","data":{' + ",".join(f'"{k}":{v}' for k, v in given.items()) + "}}"
    # When the event is sent
    status, accepted = hookline.api("POST", "/v1/events", raw_body=raw)
    assert status == 202, accepted
    # Then the webhook's body carries each with the value it was given
    _, data = _stored_data(hookline, accepted["id"])
    assert data == {k: Decimal(v) for k, v in given.items()}


def test_nul_in_data_is_delivered_as_given(hookline: Hookline) -> None:
    # `data` is the producer's payload: JSON escapes NUL, the signature covers the bytes, DynamoDB keeps the text
    status, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"note": "a\x00b\x85c"}})
    assert status == 202
    text, data = _stored_data(hookline, accepted["id"])
    assert data == {"note": "a\x00b\x85c"}
    assert "\\u0000" in text


def _event_type(hookline: Hookline, description: str) -> tuple[int, Any]:
    return hookline.api("PUT", "/v1/event-types/a.b", {"description": description})


def _endpoint(hookline: Hookline, description: str) -> tuple[int, Any]:
    return hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/a", "description": description})


def _customer_name(hookline: Hookline, name: str) -> tuple[int, Any]:
    return hookline.api("PUT", "/v1/customers/org_1", {"name": name})


def _metadata(hookline: Hookline, value: str) -> tuple[int, Any]:
    return hookline.api("PUT", "/v1/customers/org_1", {"name": "A", "metadata": {"plan": value}})


def _producer_name(hookline: Hookline, name: str) -> tuple[int, Any]:
    return hookline.api("PUT", "/v1/portal-settings", {"producer_name": name})


FIELDS = {"endpoint description": _endpoint, "event type description": _event_type, "customer name": _customer_name}
FIELDS |= {"customer metadata value": _metadata, "producer name": _producer_name}
MULTI_LINE = {"endpoint description", "event type description"}


@pytest.mark.parametrize("field", sorted(FIELDS))
@pytest.mark.parametrize(("char", "what"), [("\x00", "NUL"), ("\x1b", "ESC"), ("\r", "CR"), ("\x7f", "DEL"), ("\x85", "NEL (C1)"), ("\x9b", "CSI (C1)")])
def test_a_control_character_in_a_field_people_read_is_422(hookline: Hookline, field: str, char: str, what: str) -> None:
    status, body = FIELDS[field](hookline, f"before{char}after")
    assert (status, body["error"]["code"]) == (422, "validation_failed"), (what, body)
    assert "control characters" in body["error"]["message"]
    assert f"U+{ord(char):04X}" in body["error"]["message"]


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_tab_and_line_feed_pass_in_descriptions_only(hookline: Hookline, field: str) -> None:
    status, body = FIELDS[field](hookline, "first line\n\tsecond line")
    if field in MULTI_LINE:
        assert status in (200, 201), body
    else:
        assert (status, body["error"]["code"]) == (422, "validation_failed")
