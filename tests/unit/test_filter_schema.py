"""A filter's top-level fields are the document's (`propertyNames`) and the server's alike: schemathesis found a
schema-valid filter (`{"": []}`) refused with `invalid_filter`."""

from __future__ import annotations

from typing import Any, get_args

import jsonschema_rs
import pytest
from pydantic import ValidationError

from hookline.core import filters
from hookline.core.contract.endpoints import FILTER_SCHEMA, CreateEndpoint
from hookline.core.contract.fields import FilterField
from hookline.core.contract.filters import TEST_FILTER_SCHEMA

URL = "https://receiver.example/hooks"


def _server_takes(pattern: dict[str, Any]) -> bool:
    try:
        CreateEndpoint.model_validate({"url": URL, "filter": pattern})
    except ValidationError as exc:
        assert exc.errors()[0]["type"] == "hookline.invalid_filter", exc.errors()
        return False
    return True


@pytest.mark.parametrize(
    ("pattern", "taken"),
    [
        ({"type": ["invoice.paid"]}, True),
        ({"customer": ["org_1"], "data": {"amount": [{"numeric": [">", 1]}]}}, True),
        ({"$or": [{"type": ["a"]}, {"type": ["b"]}]}, True),
        ({"": []}, False),
        ({"Él": {}}, False),
        ({"detail": {"x": [1]}}, False),
        ({"$or": [{"type": ["a"]}]}, False),  # schemathesis's find: one alternative is no choice
        ({"$or": [{"type": ["a"]}, {}]}, False),
        ({"$or": [{"type": ["a"]}, {"detail": ["b"]}]}, False),
    ],
)
@pytest.mark.parametrize("schema", [FILTER_SCHEMA, TEST_FILTER_SCHEMA], ids=["endpoint", "filter-test"])
def test_a_filters_fields_are_refused_alike_by_the_document_and_the_server(pattern: dict[str, Any], taken: bool, schema: dict[str, Any]) -> None:
    # Given a filter; Then the document's schema for it and the server give the table's answer on its fields
    assert jsonschema_rs.validator_for(schema).is_valid(pattern) is taken
    assert _server_takes(pattern) is taken


def test_the_documents_field_names_are_the_ones_the_filter_reads() -> None:
    assert get_args(FilterField) == (*filters.FIELDS, filters.OR)
