"""Query values and JSON integers as the API takes them (hookline.core.validation). Pure."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from hookline.core import validation
from hookline.core.contract import fields
from hookline.core.contract.portal import CreatePortalSession
from hookline.core.errors import ValidationFailed


def test_a_query_parameter_without_a_value_is_refused_not_taken_as_absent() -> None:
    assert validation.query_values({"since": "2026-12-01T00:00:00Z", "limit": "5"}) == {"since": "2026-12-01T00:00:00Z", "limit": "5"}
    assert validation.query_values(None) == {}
    for empty in ({"since": ""}, {"until": "", "since": "2026-12-01T00:00:00Z"}, {"limit": ""}):
        with pytest.raises(ValidationFailed, match=f"'{next(k for k, v in empty.items() if v == '')}' has no value"):
            validation.query_values(empty)


@pytest.mark.parametrize(("value", "number"), [(39, 39), (39.0, 39), (1e2, 100), (39.5, None), (True, None), ("39", None), (None, None), (float("inf"), None)])
def test_an_integer_is_what_json_schema_counts_as_one(value: Any, number: int | None) -> None:
    assert validation.as_integer(value) == number


def test_integer_fields_take_integer_valued_numbers() -> None:
    concurrency = pydantic.TypeAdapter(fields.Concurrency, config=pydantic.ConfigDict(strict=True))
    assert concurrency.validate_python(5.0) == 5 and isinstance(concurrency.validate_python(5.0), int)
    assert CreatePortalSession.model_validate({"ttl_seconds": 600.0}).ttl_seconds == 600
    for bad in (5.5, "5", True):
        with pytest.raises(pydantic.ValidationError, match=r"hookline.wrong_type"):
            concurrency.validate_python(bad)
        with pytest.raises(pydantic.ValidationError, match=r"hookline.validation_failed"):  # the contract's refusal, as the API answers it
            CreatePortalSession.model_validate({"ttl_seconds": bad})
