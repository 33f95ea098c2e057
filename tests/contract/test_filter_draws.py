"""A filter the document's schema takes is one the server takes (hookline.core.filters.parse_filter), but for what JSON
Schema cannot state (tests/unit/test_filter_schema.py, which holds the grammar's cases one by one): values drawn as
`make contract-fuzz` draws them, by schemathesis's JSON Schema generator (hypothesis-jsonschema is not in the
environment), from the eight levels of the document's grammar (seconds of CPU for 20)."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
from hypothesis import HealthCheck, given, settings
from schemathesis.generation.jsonschema.builder import build

from hookline.core import filters
from hookline.core.errors import ValidationFailed
from tests.unit.test_filter_schema import ENDPOINT_SCHEMA

UNSTATED = ("bytes of JSON", "match values in all", "is above its upper bound")  # what JSON Schema cannot state of a filter

_FILTERS = build(ENDPOINT_SCHEMA, draft=jsonschema_rs.Draft202012, formats={})


@settings(max_examples=20, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(pattern=_FILTERS)
def test_a_filter_the_document_takes_is_one_the_server_takes(pattern: Any) -> None:
    # Given any value the document's filter schema takes (null is "no filter")
    if pattern is None:
        return
    # Then parse_filter takes it, or refuses it only for what JSON Schema cannot state
    try:
        filters.parse_filter(pattern)
    except ValidationFailed as exc:
        assert any(part in exc.message for part in UNSTATED), exc.message
