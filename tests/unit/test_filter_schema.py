"""A content filter's grammar is the document's (hookline.core.contract.filter_grammar) and the server's
(hookline.core.filters.parse_filter) alike: a filter the document's schema takes is one the server takes, but for what
JSON Schema cannot state (the byte total, the count of match values, a numeric range whose bounds are reversed), and
one it refuses the server refuses. schemathesis found schema-valid filters refused with `invalid_filter` (`{"": []}`,
`{"data": {"x": []}}`, an `$or` of one alternative)."""

from __future__ import annotations

import sys
from typing import Any

import jsonschema_rs
import pytest
from pydantic import BaseModel, ValidationError

from hookline.core import filters
from hookline.core.contract import filter_grammar
from hookline.core.contract.endpoints import CreateEndpoint
from hookline.core.contract.filters import FilterTest
from hookline.core.errors import ValidationFailed
from tests.support.contract_fuzz_hooks import accepted_refusal

URL = "https://receiver.example/hooks"
LONG = "x" * (filters.MAX_STRING_LENGTH + 1)
SAMPLE = {"type": "invoice.paid", "data": {}}


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    """The filter's schema as the model's document shows it, with the components it refers to."""
    shown = model.model_json_schema()
    field = shown["properties"]["filter"]
    return {**field, "$defs": shown["$defs"]}


ENDPOINT_SCHEMA = _schema(CreateEndpoint)
TEST_SCHEMA = _schema(FilterTest)


def _server_takes(pattern: Any) -> bool:
    try:
        CreateEndpoint.model_validate({"url": URL, "filter": pattern})
    except ValidationError as exc:
        assert exc.errors()[0]["type"] == "hookline.invalid_filter", exc.errors()
        return False
    return True


def _nested(depth: int, deepest: dict[str, Any] | None = None) -> dict[str, Any]:
    """A filter `depth` levels of objects deep through `data`, its deepest object `deepest`."""
    inner: dict[str, Any] = deepest or {"x": [1]}
    for _ in range(depth - 2):
        inner = {"x": inner}
    return {"data": inner}


def _ors(depth: int) -> dict[str, Any]:
    """A filter `depth` levels deep through `$or` alternatives."""
    pattern: dict[str, Any] = {"type": ["a"]}
    for _ in range(depth - 1):
        pattern = {"$or": [pattern, {"type": ["b"]}]}
    return pattern


def _leaf(value: Any) -> dict[str, Any]:
    return {"data": {"x": [value]}}


@pytest.mark.parametrize(
    ("pattern", "taken"),
    [
        # the top level: its fields, and $or's alternatives
        ({"type": ["invoice.paid"]}, True),
        ({"customer": ["org_1"], "data": {"amount": [{"numeric": [">", 1]}]}}, True),
        ({"$or": [{"type": ["a"]}, {"type": ["b"]}]}, True),
        ({}, False),
        ({"": []}, False),
        ({"Él": {}}, False),
        ({"detail": {"x": [1]}}, False),
        ({"type": {"x": ["a"]}}, False),
        ({"customer": "org_1"}, False),
        ({"$or": [{"type": ["a"]}]}, False),  # schemathesis's find: one alternative is no choice
        ({"$or": [{"type": ["a"]}, {}]}, False),
        ({"$or": [{"type": ["a"]}, {"detail": ["b"]}]}, False),
        ({"$or": {"type": ["a"]}}, False),
        ({"$or": [{"$or": [{"type": ["a"]}]}, {"type": ["b"]}]}, False),  # schemathesis's find, one level down
        ({"$or": [{"$or": [{"type": ["a"]}, {"type": ["c"]}]}, {"type": ["b"]}]}, True),
        # nested field objects under data, their names and their $or
        ({"data": {"": [1], "$or": [{"a": [1]}, {"b": {"c": [2]}}]}}, True),
        ({"data": {}}, False),
        ({"data": {"x": {}}}, False),
        ({"data": {"$or": [{"a": [1]}]}}, False),
        ({"data": {"$or": ["a", "b"]}}, False),
        ({"data": {"x" * filters.MAX_STRING_LENGTH: [1]}}, True),
        ({"data": {LONG: [1]}}, False),
        ({"data": {"x": 1}}, False),
        # depth: MAX_DEPTH levels, through data or $or
        (_nested(filters.MAX_DEPTH), True),
        (_nested(filters.MAX_DEPTH + 1), False),
        (_ors(filters.MAX_DEPTH), True),
        (_ors(filters.MAX_DEPTH + 1), False),
        (_nested(filters.MAX_DEPTH - 1, {"$or": [{"a": [1]}, {"b": [2]}]}), True),
        (_nested(filters.MAX_DEPTH, {"$or": [{"a": [1]}, {"b": [2]}]}), False),
        (_nested(filters.MAX_DEPTH, {"$or": ["a"]}), False),
        # a leaf: a non-empty array of match values
        ({"data": {"x": []}}, False),  # schemathesis's find
        ({"data": {"x": [[1]]}}, False),
        (_leaf("x" * filters.MAX_STRING_LENGTH), True),
        (_leaf(LONG), False),
        (_leaf(-2.5), True),
        (_leaf(filters.LARGEST), True),
        (_leaf(10**309), False),  # beyond a float (jsonschema_rs compares ints this large as floats: not LARGEST + 1)
        (_leaf(-(10**309)), False),
        (_leaf(sys.float_info.max), True),
        (_leaf(True), True),
        (_leaf(None), True),
        # operators: one per object, each with its argument
        (_leaf({"prefix": "inv"}), True),
        (_leaf({"prefix": {"equals-ignore-case": "INV"}}), True),
        (_leaf({"prefix": 1}), False),
        (_leaf({"prefix": LONG}), False),
        (_leaf({"prefix": {"equals-ignore-case": LONG}}), False),
        (_leaf({"suffix": ".pdf"}), True),
        (_leaf({"suffix": {"prefix": "a"}}), False),
        (_leaf({"equals-ignore-case": "Paid"}), True),
        (_leaf({"equals-ignore-case": {"equals-ignore-case": "Paid"}}), False),
        (_leaf({"exists": False}), True),
        (_leaf({"exists": 0}), False),
        (_leaf({"prefix": "a", "suffix": "b"}), False),
        (_leaf({}), False),
        (_leaf({"wildcard": "a*"}), False),
        (_leaf({"cidr": "10.0.0.0/8"}), False),
        (_leaf({"regex": "a"}), False),
        (_leaf({"numeric": ["=", 5]}), True),
        (_leaf({"numeric": [">", 0, "<=", 5]}), True),
        (_leaf({"numeric": ["<=", 5, ">", 0]}), True),
        (_leaf({"numeric": [">", 0, ">=", 5]}), False),
        (_leaf({"numeric": ["=", 0, "<", 5]}), False),
        (_leaf({"numeric": ["!=", 5]}), False),
        (_leaf({"numeric": [">", "5"]}), False),
        (_leaf({"numeric": [">", True]}), False),
        (_leaf({"numeric": [">", 0, "<"]}), False),
        (_leaf({"numeric": ">"}), False),
        (_leaf({"anything-but": "a"}), True),
        (_leaf({"anything-but": 5}), True),
        (_leaf({"anything-but": ["a", "b"]}), True),
        (_leaf({"anything-but": [1, 2.5]}), True),
        (_leaf({"anything-but": ["a", 1]}), False),
        (_leaf({"anything-but": []}), False),
        (_leaf({"anything-but": True}), False),
        (_leaf({"anything-but": None}), False),
        (_leaf({"anything-but": [None]}), False),
        (_leaf({"anything-but": {"prefix": "a"}}), True),
        (_leaf({"anything-but": {"prefix": {"equals-ignore-case": "a"}}}), False),
        (_leaf({"anything-but": {"suffix": "a"}}), True),
        (_leaf({"anything-but": {"equals-ignore-case": "a"}}), True),
        (_leaf({"anything-but": {"equals-ignore-case": ["a", "b"]}}), True),
        (_leaf({"anything-but": {"equals-ignore-case": []}}), False),
        (_leaf({"anything-but": {"numeric": [">", 1]}}), False),
        (_leaf({"anything-but": {"prefix": "a", "suffix": "b"}}), False),
        (_leaf({"anything-but": [LONG]}), False),
    ],
)
@pytest.mark.parametrize("schema", [ENDPOINT_SCHEMA, TEST_SCHEMA], ids=["endpoint", "filter-test"])
def test_a_filter_is_taken_or_refused_alike_by_the_document_and_the_server(pattern: dict[str, Any], taken: bool, schema: dict[str, Any]) -> None:
    # Given a filter; Then the document's schema for it and the server give the table's answer
    assert jsonschema_rs.validator_for(schema).is_valid(pattern) is taken
    assert _server_takes(pattern) is taken


@pytest.mark.parametrize(
    ("pattern", "refusal"),
    [
        ({"type": ["a" * 250] * 9}, "bytes of JSON"),
        ({"type": ["a"] * (filters.MAX_MATCH_VALUES + 1)}, "match values in all"),
        (_leaf({"numeric": [">", 5, "<", 1]}), "is above its upper bound"),
    ],
)
def test_what_the_schema_cannot_state_is_the_servers_alone(pattern: dict[str, Any], refusal: str) -> None:
    # Given a filter the schema takes but for a rule JSON Schema cannot state
    assert jsonschema_rs.validator_for(ENDPOINT_SCHEMA).is_valid(pattern)
    # Then the server refuses it, with parse_filter's message
    with pytest.raises(ValidationError, match=refusal):
        CreateEndpoint.model_validate({"url": URL, "filter": pattern})
    # And make contract-fuzz accepts that refusal, as the document states it in words
    with pytest.raises(ValidationFailed) as refused:
        filters.parse_filter(pattern)
    for operation in ("POST /v1/endpoints", "PATCH /v1/endpoints/{endpoint_id}", "POST /v1/filters/test"):
        assert accepted_refusal(operation, 422, {"code": filters.CODE, "message": refused.value.message}, case=None)


@pytest.mark.parametrize("pattern", [{"data": {"x": []}}, {"$or": [{"type": ["a"]}]}, _leaf({"numeric": [">", 0, ">", 5]})])
def test_make_contract_fuzz_accepts_no_other_refusal_of_a_filter(pattern: dict[str, Any]) -> None:
    # Given a refusal of a filter the schema states
    with pytest.raises(ValidationFailed) as refused:
        filters.parse_filter(pattern)
    # Then make contract-fuzz reports it
    assert not accepted_refusal("POST /v1/endpoints", 422, {"code": filters.CODE, "message": refused.value.message}, case=None)


def test_a_filter_is_kept_as_given() -> None:
    # Given a numeric range, an array the grammar checks as a tuple
    pattern = {"data": {"amount": [{"numeric": [">", 0, "<=", 5]}]}}
    # When an endpoint's body holds it; Then the filter kept is the JSON sent
    assert CreateEndpoint.model_validate({"url": URL, "filter": pattern}).filter.to_json() == pattern  # type: ignore[union-attr]


def test_the_documents_top_level_names_are_the_ones_the_filter_reads() -> None:
    assert tuple(filter_grammar.Grammar.__origin__.__annotations__) == (*filters.FIELDS, filters.OR)
