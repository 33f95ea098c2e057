"""Endpoint content filters (hookline.core.filters): EventBridge event patterns over {"type", "customer", "data"}.

The operators are checked with the examples of EventBridge's own documentation
(https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html and the pages on
content filtering and arrays), every refusal of `parse_filter` names its path, and a property test runs
generated patterns and events through moto's EventBridge matcher (a dev-only oracle) as well.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from hookline.core.errors import ValidationFailed
from hookline.core.filters import (
    LARGEST,
    MAX_DEPTH,
    MAX_FILTER_BYTES,
    MAX_MATCH_VALUES,
    MAX_STRING_LENGTH,
    EventFilter,
    matches,
    parse_filter,
)

# An EventBridge example's `detail` becomes the event's data; the pattern's `detail` becomes `data`.
Example = tuple[str, dict[str, Any], Any, bool]


def data_filter(fields: dict[str, Any]) -> EventFilter:
    return parse_filter({"data": fields})


def passes(pattern: dict[str, Any], data: Any, event_type: str = "invoice.paid", customer: str | None = "cus_1") -> bool:
    return matches(parse_filter(pattern), event_type, customer, data)


# (name, pattern over data, the event's data, whether it matches)
DOCUMENTED: list[Example] = [
    # Numeric matching: the documentation's example pattern and event
    (
        "numeric: the documented example matches",
        {"c-count": [{"numeric": [">", 0, "<=", 5]}], "d-count": [{"numeric": ["<", 10]}], "x-limit": [{"numeric": ["=", 3.018e2]}]},
        {"c-count": 5, "d-count": 3, "x-limit": 301.8},
        True,
    ),
    ("numeric: the range's lower bound is exclusive", {"c-count": [{"numeric": [">", 0, "<=", 5]}]}, {"c-count": 0}, False),
    ("numeric: the range's upper bound is inclusive", {"c-count": [{"numeric": [">", 0, "<=", 5]}]}, {"c-count": 5}, True),
    ("numeric: above the range", {"c-count": [{"numeric": [">", 0, "<=", 5]}]}, {"c-count": 5.5}, False),
    ("numeric: >= takes its bound", {"n": [{"numeric": [">=", 10]}]}, {"n": 10}, True),
    ("numeric: < excludes its bound", {"n": [{"numeric": ["<", 10]}]}, {"n": 10}, False),
    ("numeric: = compares by value", {"n": [{"numeric": ["=", 3]}]}, {"n": 3.0}, True),
    ("numeric: a range written upper bound first", {"n": [{"numeric": ["<", 10, ">=", 0]}]}, {"n": 0}, True),
    ("numeric: a numeric string is no number", {"c-count": [{"numeric": [">", 0]}]}, {"c-count": "5"}, False),
    ("numeric: a boolean is no number", {"c-count": [{"numeric": [">", 0]}]}, {"c-count": True}, False),
    # Prefix, suffix and their ignore-case forms
    ("prefix: the documented time", {"time": [{"prefix": "2017-10-02"}]}, {"time": "2017-10-02T18:43:48Z"}, True),
    ("prefix: another day", {"time": [{"prefix": "2017-10-02"}]}, {"time": "2017-10-03T18:43:48Z"}, False),
    ("prefix: a number is no string", {"code": [{"prefix": "4"}]}, {"code": 404}, False),
    ("prefix ignoring case", {"service": [{"prefix": {"equals-ignore-case": "EventB"}}]}, {"service": "eventbridge"}, True),
    ("prefix ignoring case, another word", {"service": [{"prefix": {"equals-ignore-case": "EventB"}}]}, {"service": "lambda"}, False),
    ("prefix is case-sensitive", {"service": [{"prefix": "EventB"}]}, {"service": "eventbridge"}, False),
    ("suffix: the documented .png", {"FileName": [{"suffix": ".png"}]}, {"FileName": "image.png"}, True),
    ("suffix: another extension", {"FileName": [{"suffix": ".png"}]}, {"FileName": "image.jpg"}, False),
    ("suffix ignoring case", {"FileName": [{"suffix": {"equals-ignore-case": ".png"}}]}, {"FileName": "IMAGE.PNG"}, True),
    ("suffix is case-sensitive", {"FileName": [{"suffix": ".png"}]}, {"FileName": "IMAGE.PNG"}, False),
    # Equals, ignoring case; empty strings and null are values
    ("equals-ignore-case", {"name": [{"equals-ignore-case": "alice"}]}, {"name": "ALICE"}, True),
    ("equals-ignore-case is still equality", {"name": [{"equals-ignore-case": "alice"}]}, {"name": "alicia"}, False),
    ("an empty string matches an empty string", {"eventVersion": [""]}, {"eventVersion": ""}, True),
    ("an empty string is not a missing field", {"eventVersion": [""]}, {}, False),
    ("null matches null", {"responseElements": [None]}, {"responseElements": None}, True),
    ("null is not a missing field", {"responseElements": [None]}, {"other": 1}, False),
    ("null is not an empty string", {"responseElements": [None]}, {"responseElements": ""}, False),
    ("exact numbers compare by value", {"price": [100]}, {"price": 100.0}, True),
    ("an exact number is no string", {"price": [100]}, {"price": "100"}, False),
    ("true is not 1", {"flag": [True]}, {"flag": 1}, False),
    ("true matches true", {"flag": [True]}, {"flag": True}, True),
    # Anything-but: a value, a list, a prefix, a suffix, ignoring case
    ("anything-but a string", {"state": [{"anything-but": "initializing"}]}, {"state": "stopped"}, True),
    ("anything-but the very string", {"state": [{"anything-but": "initializing"}]}, {"state": "initializing"}, False),
    ("anything-but a number", {"x-limit": [{"anything-but": 123}]}, {"x-limit": 456}, True),
    ("anything-but the very number", {"x-limit": [{"anything-but": 123}]}, {"x-limit": 123.0}, False),
    ("anything-but a list of strings", {"state": [{"anything-but": ["stopped", "overloaded"]}]}, {"state": "running"}, True),
    ("anything-but one of the list", {"state": [{"anything-but": ["stopped", "overloaded"]}]}, {"state": "overloaded"}, False),
    ("anything-but a list of numbers", {"x-limit": [{"anything-but": [100, 200, 300]}]}, {"x-limit": 150}, True),
    ("anything-but one of the numbers", {"x-limit": [{"anything-but": [100, 200, 300]}]}, {"x-limit": 200}, False),
    ("anything-but a prefix", {"state": [{"anything-but": {"prefix": "init"}}]}, {"state": "running"}, True),
    ("anything-but the prefix", {"state": [{"anything-but": {"prefix": "init"}}]}, {"state": "initializing"}, False),
    ("anything-but a suffix", {"FileName": [{"anything-but": {"suffix": ".txt"}}]}, {"FileName": "notes.md"}, True),
    ("anything-but the suffix", {"FileName": [{"anything-but": {"suffix": ".txt"}}]}, {"FileName": "notes.txt"}, False),
    ("anything-but ignoring case", {"state": [{"anything-but": {"equals-ignore-case": ["Stopped", "OverLoaded"]}}]}, {"state": "running"}, True),
    (
        "anything-but ignoring case, in another case",
        {"state": [{"anything-but": {"equals-ignore-case": ["Stopped", "OverLoaded"]}}]},
        {"state": "STOPPED"},
        False,
    ),
    ("anything-but never matches a missing field", {"state": [{"anything-but": "initializing"}]}, {"other": "x"}, False),
    ("anything-but never matches an object", {"state": [{"anything-but": "initializing"}]}, {"state": {"name": "x"}}, False),
    # Exists
    ("exists true: present", {"state": [{"exists": True}]}, {"state": "running"}, True),
    ("exists true: null is present", {"state": [{"exists": True}]}, {"state": None}, True),
    ("exists true: absent", {"state": [{"exists": True}]}, {"other": 1}, False),
    ("exists true: only leaves exist", {"state": [{"exists": True}]}, {"state": {"name": "x"}}, False),
    ("exists false: absent", {"c-count": [{"exists": False}]}, {"d-count": 3}, True),
    ("exists false: present", {"c-count": [{"exists": False}]}, {"c-count": 3}, False),
    ("exists false: data that is no object has no fields", {"c-count": [{"exists": False}]}, "text", True),
    ("exists false: an empty array holds no value", {"c-count": [{"exists": False}]}, {"c-count": []}, True),
    # And: every field must match; nested objects
    ("and: both fields", {"Location": ["New York"], "Day": ["Monday"]}, {"Location": "New York", "Day": "Monday"}, True),
    ("and: one field differs", {"Location": ["New York"], "Day": ["Monday"]}, {"Location": "New York", "Day": "Tuesday"}, False),
    ("or within a leaf: any value", {"PaymentType": ["Credit", "Debit"]}, {"PaymentType": "Debit"}, True),
    ("a nested field", {"instance": {"state": ["terminated"]}}, {"instance": {"state": "terminated", "id": "i-1"}}, True),
    ("a nested field that differs", {"instance": {"state": ["terminated"]}}, {"instance": {"state": "running"}}, False),
    ("a nested field under a scalar", {"instance": {"state": ["terminated"]}}, {"instance": "terminated"}, False),
    # $or
    ("$or: the second alternative", {"$or": [{"Location": ["New York"]}, {"Day": ["Monday"]}]}, {"Location": "Boston", "Day": "Monday"}, True),
    ("$or: no alternative", {"$or": [{"Location": ["New York"]}, {"Day": ["Monday"]}]}, {"Location": "Boston", "Day": "Sunday"}, False),
    (
        "$or: the documented numeric alternatives",
        {"$or": [{"c-count": [{"numeric": [">", 0, "<=", 5]}]}, {"d-count": [{"numeric": ["<", 10]}]}, {"x-limit": [{"numeric": ["=", 3.018e2]}]}]},
        {"c-count": 50, "d-count": 50, "x-limit": 301.8},
        True,
    ),
    ("$or beside a field: both hold", {"source": ["aws.ec2"], "$or": [{"a": [1]}, {"b": [2]}]}, {"source": "aws.ec2", "b": 2}, True),
    ("$or beside a field: the field fails", {"source": ["aws.ec2"], "$or": [{"a": [1]}, {"b": [2]}]}, {"source": "aws.s3", "b": 2}, False),
    ("$or nested in a field", {"detail": {"$or": [{"a": [1]}, {"b": [2]}]}}, {"detail": {"a": 1}}, True),
    # Arrays in the event: any element
    (
        "arrays: the documented resources intersect",
        {"resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-b188560f", "arn:aws:ec2:us-east-1:111122223333:instance/i-b188560f"]},
        {"resources": ["arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup", "arn:aws:ec2:us-east-1:123456789012:instance/i-b188560f"]},
        True,
    ),
    ("arrays: no common element", {"resources": ["a", "b"]}, {"resources": ["c", "d"]}, False),
    ("arrays: a numeric range on any element", {"sizes": [{"numeric": [">", 10]}]}, {"sizes": [1, 2, 30]}, True),
    ("arrays: a prefix on any element", {"tags": [{"prefix": "env:"}]}, {"tags": ["team:a", "env:prod"]}, True),
    ("arrays: anything-but on any element", {"tags": [{"anything-but": "a"}]}, {"tags": ["a", "b"]}, True),
    ("arrays: anything-but when every element is excluded", {"tags": [{"anything-but": "a"}]}, {"tags": ["a", "a"]}, False),
    ("arrays of objects are looked through", {"items": {"sku": ["B-2"]}}, {"items": [{"sku": "A-1"}, {"sku": "B-2"}]}, True),
    ("arrays of objects: no element has it", {"items": {"sku": ["C-3"]}}, {"items": [{"sku": "A-1"}, {"sku": "B-2"}]}, False),
]


@pytest.mark.parametrize(("pattern", "data", "expected"), [case[1:] for case in DOCUMENTED], ids=[case[0] for case in DOCUMENTED])
def test_documented_operators(pattern: dict[str, Any], data: Any, expected: bool) -> None:
    # Given a documented pattern over the event's data
    event_filter = data_filter(pattern)
    # When an event with that data is matched, then the answer is EventBridge's
    assert matches(event_filter, "invoice.paid", "cus_1", data) is expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [({"amount": 150}, True), ({"amount": 100}, True), ({"amount": 50}, False), ({"currency": "eur"}, False), ({"amount": "150"}, False), (None, False)],
    ids=["150", "exactly 100", "50", "amount missing", "the string 150", "no data"],
)
def test_the_issues_example_amount_at_least_100(data: Any, expected: bool) -> None:
    # Given the issue's filter: amounts of at least 100
    event_filter = parse_filter({"data": {"amount": [{"numeric": [">=", 100]}]}})
    # When events are matched, then only a number of 100 or more passes
    assert matches(event_filter, "invoice.paid", None, data) is expected


@pytest.mark.parametrize(
    ("pattern", "event_type", "customer", "expected"),
    [
        ({"type": ["invoice.paid"]}, "invoice.paid", None, True),
        ({"type": ["invoice.paid"]}, "invoice.failed", None, False),
        ({"type": [{"prefix": "invoice."}]}, "invoice.failed", None, True),
        ({"customer": [None]}, "invoice.paid", None, True),
        ({"customer": [None]}, "invoice.paid", "cus_1", False),
        ({"customer": [{"exists": True}]}, "invoice.paid", None, True),
        ({"customer": [{"anything-but": "cus_1"}]}, "invoice.paid", "cus_2", True),
        ({"type": ["invoice.paid"], "customer": ["cus_1"]}, "invoice.paid", "cus_2", False),
        ({"$or": [{"type": ["invoice.paid"]}, {"customer": ["cus_1"]}]}, "invoice.failed", "cus_1", True),
        ({"$or": [{"type": ["invoice.paid"]}, {"customer": ["cus_1"]}]}, "invoice.failed", "cus_2", False),
    ],
)
def test_type_and_customer_are_fields_of_the_document(pattern: dict[str, Any], event_type: str, customer: str | None, expected: bool) -> None:
    # Given a pattern over the event's type and customer, when an event is matched, then they are read as fields
    assert passes(pattern, {"amount": 1}, event_type, customer) is expected


def test_a_filter_is_frozen_hashable_and_equal_by_meaning() -> None:
    # Given the same pattern written with its fields in two orders
    one = parse_filter({"type": ["invoice.paid"], "data": {"amount": [{"numeric": [">", 0, "<=", 5]}], "currency": ["eur"]}})
    other = parse_filter({"data": {"currency": ["eur"], "amount": [{"numeric": ["<=", 5, ">", 0]}]}, "type": ["invoice.paid"]})
    # Then they are one filter, hashable, and each gives its pattern back as JSON
    assert one == other
    assert len({one, other}) == 1
    assert one.to_json() == {"type": ["invoice.paid"], "data": {"amount": [{"numeric": [">", 0, "<=", 5]}], "currency": ["eur"]}}
    with pytest.raises(AttributeError):
        one.root = other.root  # type: ignore[misc]
    # And a boolean is never the number Python finds it equal to
    assert parse_filter({"data": {"flag": [True]}}) != parse_filter({"data": {"flag": [1]}})


def nested(levels: int) -> dict[str, Any]:
    """A filter whose data nests `levels` objects below the data object (the filter is depth 1, data depth 2)."""
    inner: dict[str, Any] = {"leaf": ["x"]}
    for level in reversed(range(levels)):
        inner = {f"a{level}": inner}
    return {"data": inner}


def test_the_bounds_themselves_are_accepted() -> None:
    # Given patterns exactly at each bound
    at_depth = nested(MAX_DEPTH - 2)
    at_values = {"type": ["t"] * MAX_MATCH_VALUES}
    at_length = {"type": ["x" * MAX_STRING_LENGTH]}
    # {"type":[...]} is 11 bytes; each string of n characters adds n + 2 (its quotes) + 1 (a comma, but the last)
    strings = ["x" * MAX_STRING_LENGTH] * 7
    strings.append("y" * (MAX_FILTER_BYTES - 11 - sum(len(text) + 3 for text in strings) - 2))
    at_bytes = {"type": strings}
    # When each is parsed, then it is accepted
    for pattern in (at_depth, at_values, at_length, at_bytes):
        assert isinstance(parse_filter(pattern), EventFilter)
    assert len(parse_filter(at_bytes).source.encode()) == MAX_FILTER_BYTES


def many_fields(count: int, length: int) -> dict[str, Any]:
    return {"data": {f"k{index}": ["x" * length] for index in range(count)}}


# (name, pattern, the path the message names, a phrase of the message)
REFUSALS: list[tuple[str, Any, str, str]] = [
    ("not an object", ["invoice.paid"], "filter", "must be an object"),
    ("empty", {}, "filter", "a filter needs at least one field; leave it out to receive every event"),
    ("an unknown top-level field", {"source": ["aws.ec2"]}, "filter.source", "reads only type, customer, data"),
    ("an unknown field in a top-level $or", {"$or": [{"type": ["a"]}, {"detail": ["b"]}]}, "filter.$or[1].detail", "reads only"),
    ("type as an object", {"type": {"name": ["a"]}}, "filter.type", "must be an array of match values"),
    ("a bare value, not in an array", {"type": "invoice.paid"}, "filter.type", "must be an array of match values"),
    ("a bare number under data", {"data": {"amount": 5}}, "filter.data.amount", "must be an array of match values"),
    ("an empty array", {"type": []}, "filter.type", "empty array"),
    ("an empty nested object", {"data": {}}, "filter.data", "empty object"),
    ("an array inside the array", {"type": [["a"]]}, "filter.type[0]", "array inside an array"),
    ("a value that is not JSON", {"type": [{1, 2}]}, "filter.type[0]", "not a match value"),
    ("a number that is not finite", {"data": {"x": [math.inf]}}, "filter.data.x[0]", "not a finite number"),
    ("an integer beyond a float's range", {"data": {"x": [10**400]}}, "filter.data.x[0]", "not a finite number"),
    # float() rounds it down to the largest float; the document's schema bounds a number by that float, and so does the rule
    ("an integer just beyond the largest float", {"data": {"x": [LARGEST + 1]}}, "filter.data.x[0]", "not a finite number"),
    ("a numeric bound beyond a float's range", {"data": {"x": [{"numeric": [">", 10**400]}]}}, "filter.data.x[0]", "numeric needs"),
    ("a field name that is not a string", {"data": {1: ["x"]}}, "filter.data", "not a string"),
    ("a string too long", {"type": ["x" * (MAX_STRING_LENGTH + 1)]}, "filter.type[0]", f"at most {MAX_STRING_LENGTH}"),
    ("a field name too long", {"data": {"k" * (MAX_STRING_LENGTH + 1): ["x"]}}, "filter.data." + "k" * (MAX_STRING_LENGTH + 1), "field name"),
    ("nested too deep", nested(MAX_DEPTH - 1), "filter.data." + ".".join(f"a{level}" for level in range(MAX_DEPTH - 1)), f"deeper than {MAX_DEPTH}"),
    ("too many values", {"type": ["t"] * (MAX_MATCH_VALUES + 1)}, f"filter.type[{MAX_MATCH_VALUES}]", f"at most {MAX_MATCH_VALUES} match values"),
    ("too many anything-but values", {"type": [{"anything-but": ["t"] * (MAX_MATCH_VALUES + 1)}]}, "filter.type[0].anything-but", "match values"),
    ("too many bytes", many_fields(10, MAX_STRING_LENGTH), "filter", f"at most {MAX_FILTER_BYTES}"),
    ("two operators in one object", {"type": [{"prefix": "a", "suffix": "b"}]}, "filter.type[0]", "exactly one operator"),
    ("an empty operator object", {"type": [{}]}, "filter.type[0]", "exactly one operator"),
    ("an unknown operator", {"type": [{"contains": "a"}]}, "filter.type[0]", "unknown operator 'contains'"),
    ("wildcard", {"type": [{"wildcard": "invoice.*"}]}, "filter.type[0]", "'wildcard' is not supported"),
    ("cidr", {"data": {"ip": [{"cidr": "10.0.0.0/24"}]}}, "filter.data.ip[0]", "'cidr' is not supported"),
    ("anything-but wildcard", {"type": [{"anything-but": {"wildcard": "*.paid"}}]}, "filter.type[0].anything-but", "'wildcard' is not supported"),
    ("prefix of a number", {"type": [{"prefix": 5}]}, "filter.type[0].prefix", "prefix takes a string"),
    ("prefix ignoring case of a number", {"type": [{"prefix": {"equals-ignore-case": 5}}]}, "filter.type[0].prefix", "prefix takes a string"),
    ("prefix of another operator", {"type": [{"prefix": {"suffix": "a"}}]}, "filter.type[0].prefix", "prefix takes a string"),
    ("suffix of a list", {"type": [{"suffix": ["a"]}]}, "filter.type[0].suffix", "suffix takes a string"),
    ("equals-ignore-case of an object", {"type": [{"equals-ignore-case": {"prefix": "a"}}]}, "filter.type[0].equals-ignore-case", "takes a string"),
    ("exists of a string", {"type": [{"exists": "yes"}]}, "filter.type[0].exists", "true or false"),
    ("numeric of a number", {"data": {"amount": [{"numeric": 5}]}}, "filter.data.amount[0]", "numeric needs an operator and a number"),
    ("numeric without a number", {"data": {"amount": [{"numeric": [">"]}]}}, "filter.data.amount[0]", "numeric needs an operator and a number"),
    ("numeric with an unknown operator", {"data": {"amount": [{"numeric": ["!=", 1]}]}}, "filter.data.amount[0]", "numeric needs an operator and a number"),
    ("numeric of a numeric string", {"data": {"amount": [{"numeric": [">", "5"]}]}}, "filter.data.amount[0]", "numeric needs an operator and a number"),
    ("numeric of a boolean", {"data": {"amount": [{"numeric": [">", True]}]}}, "filter.data.amount[0]", "numeric needs an operator and a number"),
    ("numeric of NaN", {"data": {"amount": [{"numeric": ["=", math.nan]}]}}, "filter.data.amount[0]", "numeric needs an operator and a number"),
    ("numeric with three comparisons", {"data": {"amount": [{"numeric": [">", 0, "<", 5, "=", 3]}]}}, "filter.data.amount[0]", "numeric needs"),
    # make contract-fuzz's find (a 500): an operator that is not a string is no operator
    ("numeric with an object for an operator", {"data": {"amount": [{"numeric": ["<", 0.0, {}, 0.0]}]}}, "filter.data.amount[0]", "numeric needs"),
    ("numeric with an array for an operator", {"data": {"amount": [{"numeric": [[">"], 1]}]}}, "filter.data.amount[0]", "numeric needs"),
    ("numeric with two lower bounds", {"data": {"amount": [{"numeric": [">", 0, ">=", 5]}]}}, "filter.data.amount[0]", "one lower bound"),
    ("numeric with two equalities", {"data": {"amount": [{"numeric": ["=", 0, "=", 5]}]}}, "filter.data.amount[0]", "one lower bound"),
    ("numeric with an empty range", {"data": {"amount": [{"numeric": [">", 5, "<", 1]}]}}, "filter.data.amount[0]", "above its upper bound"),
    ("anything-but null", {"type": [{"anything-but": None}]}, "filter.type[0].anything-but", "anything-but takes"),
    ("anything-but a boolean", {"type": [{"anything-but": True}]}, "filter.type[0].anything-but", "anything-but takes"),
    ("anything-but an empty list", {"type": [{"anything-but": []}]}, "filter.type[0].anything-but", "empty array"),
    ("anything-but strings and numbers", {"type": [{"anything-but": ["a", 1]}]}, "filter.type[0].anything-but", "anything-but takes"),
    ("anything-but a list in a list", {"type": [{"anything-but": [["a"]]}]}, "filter.type[0].anything-but[0]", "not a match value"),
    ("anything-but numeric", {"type": [{"anything-but": {"numeric": [">", 1]}}]}, "filter.type[0].anything-but", "anything-but takes"),
    ("anything-but two operators", {"type": [{"anything-but": {"prefix": "a", "suffix": "b"}}]}, "filter.type[0].anything-but", "anything-but takes"),
    ("anything-but a prefix of a number", {"type": [{"anything-but": {"prefix": 1}}]}, "filter.type[0].anything-but.prefix", "prefix takes a string"),
    (
        "anything-but a prefix ignoring case",
        {"type": [{"anything-but": {"prefix": {"equals-ignore-case": "a"}}}]},
        "filter.type[0].anything-but.prefix",
        "takes a string",
    ),
    (
        "anything-but ignoring case of a number",
        {"type": [{"anything-but": {"equals-ignore-case": [1]}}]},
        "filter.type[0].anything-but.equals-ignore-case[0]",
        "takes a string",
    ),
    ("$or of an object", {"data": {"$or": {"a": ["x"]}}}, "filter.data.$or", "at least 2 alternative"),
    ("$or of one alternative", {"data": {"$or": [{"a": ["x"]}]}}, "filter.data.$or", "at least 2 alternative"),
    ("$or of a value", {"data": {"$or": [{"a": ["x"]}, "b"]}}, "filter.data.$or[1]", "must be an object"),
    ("$or of an empty alternative", {"data": {"$or": [{"a": ["x"]}, {}]}}, "filter.data.$or[1]", "empty object"),
]


@pytest.mark.parametrize(("pattern", "path", "phrase"), [case[1:] for case in REFUSALS], ids=[case[0] for case in REFUSALS])
def test_parse_filter_refuses_naming_the_path(pattern: Any, path: str, phrase: str) -> None:
    # Given a pattern wrong in one place, when it is parsed
    with pytest.raises(ValidationFailed) as refused:
        parse_filter(pattern)
    # Then it is refused as an invalid filter, with a message that names the place and says what is wrong
    assert refused.value.code == "invalid_filter"
    assert refused.value.status == 422
    assert refused.value.message.startswith(f"'{path}': "), refused.value.message
    assert phrase in refused.value.message
