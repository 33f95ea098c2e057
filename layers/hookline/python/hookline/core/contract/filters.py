"""Content filters: the body of `POST /v1/filters/test` (a filter and a sample event) and its answer.

The filter is read by the rule an endpoint's `filter` is read by (hookline.core.filters.parse_filter: 422
`invalid_filter`, the message naming the bad part). The sample event is the document a filter reads, `{"type",
"customer", "data"}`: `type` an event type as `POST /v1/events` takes it, `customer` a uid or null (a broadcast, or
the tenant's own event), `data` any JSON. Its fields are named from the body's top (`'event.type' is required`).
Checked in this order, the first refusal the answer: unknown fields (all named), a missing `filter` or `event`, the
filter, then the event's unknown fields, its missing ones, and each of its fields.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, model_validator

from hookline.core.contract import fields
from hookline.core.contract.common import Answer, CheckedBody, RequestBody, optional, rule
from hookline.core.errors import ValidationFailed
from hookline.core.filters import MAX_DEPTH, MAX_FILTER_BYTES, MAX_MATCH_VALUES, EventFilter, parse_filter

# The filter to try, shown as an endpoint's (hookline.core.contract.filter_grammar's types) and read by the same rule.
TEST_FILTER_DESCRIPTION = (
    "The content filter to try, as an endpoint's `filter` takes it: an EventBridge event pattern over\n"
    '`{"type", "customer", "data"}` (exact values, `prefix`, `suffix`, `equals-ignore-case`, `anything-but`,\n'
    f"`numeric`, `exists`, `$or`; no `wildcard`, no regular expressions; at most {MAX_FILTER_BYTES} bytes, {MAX_DEPTH} levels,\n"
    f"{MAX_MATCH_VALUES} values; a `numeric` range's lower bound not above its upper bound). Anything else is 422\n"
    "`invalid_filter`, the message naming the bad part.\n"
)

# -- the sample event's fields, named from the body's top -----------------------------------------------------------

EVENT = "event"


def _event(value: Any) -> Any:
    if not isinstance(value, dict):
        raise ValidationFailed(f"'{EVENT}' must be an object (type, customer, data)", code="wrong_type")
    return value


# -- requests --------------------------------------------------------------------------------------------------------


class SampleEvent(RequestBody):
    """An event as a content filter reads it: its type, the customer it is addressed to (null: a broadcast or the
    tenant's own event) and its data."""

    type: fields.event_type(f"{EVENT}.type", wrong_type="'{name}' must be a string")  # type: ignore[valid-type]
    customer: fields.customer_uid(f"{EVENT}.customer", or_null=True) = optional(  # type: ignore[valid-type]
        "The customer it is addressed to; absent or null, none (a broadcast or the tenant's own event)."
    )
    data: Any = Field(
        description="The event's data: any JSON, as the filter reads it (an event's `data` is an object).", examples=[{"amount": 150, "currency": "eur"}]
    )

    @model_validator(mode="before")
    @classmethod
    def _known_and_complete(cls, data: Any) -> Any:
        """CheckedBody's order, its fields named from the body's top: every unknown field at once, then the required ones."""
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(cls.model_fields))
            if unknown:
                raise ValidationFailed(f"unknown field(s): {', '.join(f'{EVENT}.{name}' for name in unknown)}", code="unknown_field")
            for name, field in cls.model_fields.items():
                if field.is_required() and name not in data:
                    raise ValidationFailed(f"'{EVENT}.{name}' is required", code="missing_field")
        return data


class FilterTest(CheckedBody):
    # A content filter and the event to try it on (no docstring: the document gives the schema no description).

    filter: Annotated[EventFilter, BeforeValidator(parse_filter, json_schema_input_type=fields.FilterPattern)] = Field(description=TEST_FILTER_DESCRIPTION)
    event: Annotated[SampleEvent, rule(_event)] = Field(description="The event to try the filter on, as the filter reads it.")


# -- answers ---------------------------------------------------------------------------------------------------------


class FilterTestResult(Answer):
    """Whether the event passes the filter."""

    matches: bool = Field(
        description="Whether the event passes the filter: an endpoint with this filter would get a delivery of it (if it subscribes to its type)."
    )
