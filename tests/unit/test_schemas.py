"""Event payload schemas: which schemas are accepted, and where in an event a violation is reported."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from hookline.core import schemas
from hookline.core.schemas import MAX_MESSAGE, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH, SchemaInvalid, Violation, check_schema, violation

ORDER = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["id", "amount", "items"],
    "properties": {
        "id": {"type": "string", "pattern": "^ord_"},
        "amount": {"type": "number", "minimum": 0},
        "currency": {"enum": ["EUR", "USD"]},
        "email": {"type": "string", "format": "email"},
        "items": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/item"}},
    },
    "additionalProperties": False,
    "$defs": {
        "item": {"type": "object", "required": ["sku", "price"], "properties": {"sku": {"type": "string"}, "price": {"type": "number", "exclusiveMinimum": 0}}}
    },
}
GOOD_ORDER = {"id": "ord_1", "amount": 12.5, "currency": "EUR", "items": [{"sku": "a", "price": 1}, {"sku": "b", "price": 2.5}]}


def with_(**changes: Any) -> dict[str, Any]:
    return {**GOOD_ORDER, **changes}


def test_a_valid_schema_passes_and_a_valid_event_has_no_violation() -> None:
    check_schema(ORDER)
    assert violation(ORDER, GOOD_ORDER) is None


@pytest.mark.parametrize(
    ("instance", "expected"),
    [
        (with_(amount="12"), Violation("/amount", "type", "'12' is not of type 'number'")),
        (with_(amount=-1), Violation("/amount", "minimum", "-1 is less than the minimum of 0")),
        (with_(id="x"), Violation("/id", "pattern", "'x' does not match '^ord_'")),
        (with_(currency="GBP"), Violation("/currency", "enum", "'GBP' is not one of ['EUR', 'USD']")),
        (with_(items=[]), Violation("/items", "minItems", "[] should be non-empty")),
        (
            with_(items=[{"sku": "a", "price": 1}, {"sku": "b", "price": 2}, {"sku": "c", "price": 0}]),
            Violation("/items/2/price", "exclusiveMinimum", "0 is less than or equal to the minimum of 0"),
        ),
        (with_(items=[{"sku": "a"}]), Violation("/items/0", "required", "'price' is a required property")),
        ({"id": "ord_1", "items": [{"sku": "a", "price": 1}]}, Violation("", "required", "'amount' is a required property")),
        (with_(extra=1), Violation("", "additionalProperties", "Additional properties are not allowed ('extra' was unexpected)")),
        ([GOOD_ORDER], Violation("", "type", f"{[GOOD_ORDER]!r} is not of type 'object'")),
    ],
    ids=["type", "minimum", "pattern", "enum", "minItems", "nested array element", "required nested", "required at root", "additionalProperties", "root"],
)
def test_a_violation_names_where_which_rule_and_why(instance: Any, expected: Violation) -> None:
    # Given a valid schema, when an invalid event is checked, then the most relevant error is reported
    assert violation(ORDER, instance) == expected


def test_format_is_an_annotation_only() -> None:
    # Given a schema whose email property has "format": "email" (2020-12: an annotation unless a format-assertion vocabulary is used)
    # Then a string that is not an email address passes
    assert violation(ORDER, with_(email="not an email")) is None


def test_pointers_escape_slash_and_tilde_in_member_names() -> None:
    # Given properties whose names hold "/" and "~"
    schema = {"properties": {"a/b": {"properties": {"m~n": {"type": "string"}, "~1": {"type": "integer"}}}}}
    # Then the violation's pointer escapes them as RFC 6901 says ("~" as "~0", then "/" as "~1")
    assert violation(schema, {"a/b": {"m~n": 1}}) == Violation("/a~1b/m~0n", "type", "1 is not of type 'string'")
    assert violation(schema, {"a/b": {"~1": "x"}}) == Violation("/a~1b/~01", "type", "'x' is not of type 'integer'")


@pytest.mark.parametrize(
    ("schema", "instance", "pointer"),
    [
        ({"properties": {"legacy": False}}, {"legacy": 1}, "/legacy"),
        ({"patternProperties": {"^x_": False}}, {"x_1": 1}, "/x_1"),
        ({"prefixItems": [{"type": "string"}, False]}, ["a", 2], "/1"),
        ({"properties": {"a": {"properties": {"b": {"not": {}}}}}}, {"a": {"b": None}}, "/a/b"),
        ({"$defs": {"never": False}, "properties": {"a": {"$ref": "#/$defs/never"}}}, {"a": 1}, "/a"),
    ],
    ids=["properties", "patternProperties", "prefixItems", "not {}", "$ref to false"],
)
def test_a_false_subschema_points_at_the_member_it_refuses(schema: dict[str, Any], instance: Any, pointer: str) -> None:
    # Given a subschema that accepts nothing (false, or its spelling {"not": {}})
    found = violation(schema, instance)
    # Then the violation points at the member or element, not at its parent, and names the rule "false"
    assert found is not None
    assert (found.pointer, found.rule) == (pointer, "false")
    assert found.message.startswith("False schema does not allow ")


def test_false_under_keywords_that_report_it_themselves_keeps_their_message() -> None:
    assert violation({"prefixItems": [{}], "items": False}, [1, 2]) == Violation("", "items", "Expected at most 1 item but found 1 extra: 2")
    assert violation({"not": {"type": "string"}}, "x") == Violation("", "not", "'x' should not be valid under {'type': 'string'}")


def test_a_long_message_is_cut_to_the_limit() -> None:
    found = violation({"type": "string", "maxLength": 1}, "y" * 1000)
    assert found is not None
    assert len(found.message) == MAX_MESSAGE
    assert found.message.endswith("…")


@pytest.mark.parametrize(
    ("schema", "pointer", "words"),
    [
        ({"type": "strin"}, "/type", "is not valid under any of the given schemas"),
        ({"properties": {"a": {"minimum": "0"}}}, "/properties/a/minimum", "is not of type 'number'"),
        ({"properties": {"a": {"pattern": "("}}}, "/properties/a/pattern", "is not a 'regex'"),
        ({"required": "id"}, "/required", "is not of type 'array'"),
        ({"items": [{"type": "string"}]}, "/items", "is not of type 'object', 'boolean'"),
        ([{"type": "string"}], "", "must be a JSON object"),
        (True, "", "must be a JSON object"),
        ("{}", "", "must be a JSON object"),
        ({"$schema": "http://json-schema.org/draft-07/schema#"}, "/$schema", "only JSON Schema 2020-12"),
        ({"maximum": float("inf")}, "", "must be JSON"),
        ({"enum": [{1, 2}]}, "", "must be JSON"),
        ({"$defs": {"a": {}}, "properties": {"x": {"$ref": "#/$defs/b"}}}, "/properties/x/$ref", "does not resolve within the schema"),
        ({"allOf": [{}], "$ref": "#/allOf/first"}, "/$ref", "does not resolve within the schema"),
        ({"type": "object", "$ref": "#/type"}, "/$ref", "points at str, not a schema"),
        ({"$ref": "#missing-anchor"}, "/$ref", "does not resolve within the schema"),
    ],
)
def test_an_invalid_schema_is_refused_with_where(schema: object, pointer: str, words: str) -> None:
    with pytest.raises(SchemaInvalid) as raised:
        check_schema(schema)
    assert raised.value.pointer == pointer
    assert words in raised.value.message
    assert isinstance(raised.value, ValueError)


def test_valid_references_within_the_document_are_accepted() -> None:
    # Given references by pointer, by anchor, to the root, and inside a subschema with its own $id
    schema = {
        "$id": "https://schemas.example/order",
        "$defs": {"money": {"$anchor": "money", "type": "number"}, "node": {"$id": "node", "$defs": {"leaf": {"type": "null"}}, "$ref": "#/$defs/leaf"}},
        "properties": {"a": {"$ref": "#money"}, "b": {"$ref": "#/$defs/money"}, "tree": {"items": {"$ref": "#"}}, "n": {"$ref": "#/$defs/node"}},
    }
    check_schema(schema)
    assert violation(schema, {"a": "1"}) == Violation("/a", "type", "'1' is not of type 'number'")
    assert violation(schema, {"tree": [{"tree": [{"b": None}]}]}) == Violation("/tree/0/tree/0/b", "type", "None is not of type 'number'")
    assert violation(schema, {"n": None}) is None


@pytest.mark.parametrize(
    ("schema", "pointer"),
    [
        ({"$ref": "https://schemas.example/order.json"}, "/$ref"),
        ({"properties": {"a": {"$ref": "file:///etc/hostname"}}}, "/properties/a/$ref"),
        ({"items": {"$ref": "other.json#/defs/x"}}, "/items/$ref"),
        ({"$dynamicRef": "https://json-schema.org/draft/2020-12/schema#meta"}, "/$dynamicRef"),
        ({"allOf": [{}, {"$ref": "https://json-schema.org/draft/2020-12/schema"}]}, "/allOf/1/$ref"),
        # Even under a keyword that holds data: a "#/..." reference can point there and use it as a schema
        ({"$ref": "#/const", "const": {"$ref": "http://169.254.169.254/latest/meta-data"}}, "/const/$ref"),
    ],
)
def test_a_reference_outside_the_document_is_refused(schema: dict[str, Any], pointer: str) -> None:
    with pytest.raises(SchemaInvalid, match="points outside the schema") as raised:
        check_schema(schema)
    assert raised.value.pointer == pointer
    # And violation refuses the schema the same way, rather than validating with it
    with pytest.raises(SchemaInvalid):
        violation(schema, {})


def test_validation_never_retrieves_a_reference(monkeypatch: pytest.MonkeyPatch, no_network: list[str]) -> None:
    # Given a schema with remote and file references that skipped check_schema's refusal (compiled past it)
    opened: list[str] = []
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, *a, **k: opened.append(str(url)))
    schema = {"properties": {"a": {"$ref": "https://schemas.example/x.json"}, "b": {"$ref": "file:///etc/hostname"}}}
    monkeypatch.setattr(schemas, "_refuse_outside_references", lambda *a: None)
    monkeypatch.setattr(schemas, "_resolve_every_reference", lambda *a: None)
    schemas._compiled.cache_clear()
    try:
        # When events that reach each reference are validated
        for event in ({"a": 1}, {"b": 1}):
            with pytest.raises(SchemaInvalid, match="does not resolve"):
                violation(schema, event)
    finally:
        schemas._compiled.cache_clear()
    # Then nothing was fetched or opened: the registry retrieves nothing
    assert opened == []
    assert no_network == []


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
        {"if": {"type": "array"}, "then": {"allOf": [{"$ref": "#"}]}},
    ],
)
def test_a_reference_cycle_that_consumes_nothing_is_refused(schema: dict[str, Any]) -> None:
    # Given a schema that refers to itself at the same instance location, for any value or for one type of value
    # Then checking it says so rather than overflowing the stack
    with pytest.raises(SchemaInvalid, match="cycle"):
        check_schema(schema)


def test_a_reference_cycle_taken_only_for_some_values_is_reported_when_validating() -> None:
    # Given a schema whose cycle is entered only when the event has member "a" (no probe value has members)
    schema = {"properties": {"a": {"$ref": "#/properties/a"}}}
    check_schema(schema)
    assert violation(schema, {"b": 1}) is None
    # Then an event that enters it gets SchemaInvalid, not a RecursionError
    with pytest.raises(SchemaInvalid, match="cycle"):
        violation(schema, {"a": 1})


def test_the_size_and_depth_are_bounded() -> None:
    # Given a schema just over the size limit, and one nested just past the depth limit
    check_schema({"enum": ["x" * (MAX_SCHEMA_BYTES - 20)]})
    with pytest.raises(SchemaInvalid, match=f"the limit is {MAX_SCHEMA_BYTES}"):
        check_schema({"enum": ["x" * MAX_SCHEMA_BYTES]})
    # (multi-byte characters count as their UTF-8 bytes)
    with pytest.raises(SchemaInvalid, match=f"the limit is {MAX_SCHEMA_BYTES}"):
        check_schema({"enum": ["é" * (MAX_SCHEMA_BYTES // 2)]})
    deep: dict[str, Any] = {}
    for _ in range(MAX_SCHEMA_DEPTH):
        deep = {"not": deep}
    with pytest.raises(SchemaInvalid, match=f"more than {MAX_SCHEMA_DEPTH} deep"):
        check_schema(deep)


def test_validators_are_cached_by_canonical_json() -> None:
    # Given the same schema written twice with its members in different orders
    schemas._compiled.cache_clear()
    first = {"type": "object", "properties": {"a": {"type": "integer"}}}
    second = json.loads('{"properties": {"a": {"type": "integer"}}, "type": "object"}')
    # When it is checked and used several times
    check_schema(first)
    for instance in ({"a": 1}, {"a": "x"}, {}):
        violation(second, instance)
    # Then it was compiled once
    info = schemas._compiled.cache_info()
    assert (info.misses, info.hits) == (1, 3)
    assert info.maxsize == schemas.CACHED_VALIDATORS


def test_the_caller_schema_is_not_changed() -> None:
    # Given a schema with false subschemas (compiled with {"not": {}} in their place)
    schema = {"properties": {"a": False}, "prefixItems": [False]}
    before = json.dumps(schema)
    violation(schema, {"a": 1})
    # Then the caller's object is as it was
    assert json.dumps(schema) == before


def test_an_integer_too_large_for_multiple_of_is_a_violation_not_an_overflow() -> None:
    # jsonschema divides the number by the divisor as a float: an integer beyond a float's range overflows there
    schema = {"type": "object", "properties": {"n": {"multipleOf": 0.5}}}
    assert violation(schema, {"n": 10**400}) == Violation("", "multipleOf", "a number of the data is too large to check against `multipleOf`")
    assert violation(schema, {"n": 2}) is None
