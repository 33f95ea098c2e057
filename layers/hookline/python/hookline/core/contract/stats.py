"""Delivery statistics as the API answers them: an endpoint's (`Stats`) and a customer's (`CustomerStats`, in
hookline.core.contract.customers), and the window times a statistics query takes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from hookline.core.contract.common import Answer, Timestamp

Count = Annotated[int, Field(ge=0)]

_TIMESTAMP: dict[str, Any] = {"type": "string", "format": "date-time", "description": "UTC, ISO 8601 (RFC 3339), e.g. `2026-03-14T09:26:53.589Z`."}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_PERCENTILE: dict[str, Any] = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
_HOUR_COUNTERS = ("attempts", "succeeded", "failed", "ended_succeeded", "ended_failed")

# The window a statistics query reads (`since`, `until`), as the document shows it; hookline.core.validation.time_param
# is the rule.
WINDOW_TIME: dict[str, Any] = {
    "type": "string",
    "format": "date-time",
    "pattern": (
        r"^(1970-(0[2-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])|1970-01-(0[2-9]|[12][0-9]|3[01])|(197[1-9]|19[89][0-9]|[2-8][0-9]{3})-"
        r"(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])|9000-(0[1-9]|1[01])-(0[1-9]|[12][0-9]|3[01])|9000-12-(0[1-9]|[12][0-9]|30))"
        r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
    ),
    "description": (
        "A time the API reads (a window's `since` or `until`): RFC 3339 with an upper-case `T` and a time\n"
        "zone (`Z` or `±hh:mm`), in the years 1970 to 9000 (UTC; the first and the last day of that\n"
        "range are left out, so that no offset takes it outside). Anything else is 422.\n"
    ),
}
SINCE_DESCRIPTION = "Start of the window, ISO 8601 with a time zone (e.g. `2026-03-14T00:00:00Z`); must be before `until`."
UNTIL_DESCRIPTION = "End of the window, ISO 8601 with a time zone; must be after `since` (422 otherwise)."
WindowTime = Annotated[datetime, WithJsonSchema(WINDOW_TIME)]


class StatsHour(Answer):
    # One hour of a window's series: its start and its attempt and delivery counters.

    hour: Timestamp
    attempts: Count
    succeeded: Count
    failed: Count
    ended_succeeded: Count
    ended_failed: Count


_LATENCY_SCHEMA = {"type": "object", "required": ["p50", "p95", "p99"], "properties": dict.fromkeys(("p50", "p95", "p99"), _PERCENTILE)}
_HOUR_SCHEMA = {
    "type": "object",
    "required": ["hour", *_HOUR_COUNTERS],
    "properties": {"hour": _TIMESTAMP, **dict.fromkeys(_HOUR_COUNTERS, _COUNT)},
}


def _no_default(schema: dict[str, Any]) -> None:
    """A field that is left out rather than null when it has no value: the document shows no default."""
    schema.pop("default", None)


_RATE = WithJsonSchema({"anyOf": [{"type": "number", "minimum": 0, "maximum": 1}, {"type": "null"}]})


class Stats(Answer):
    # An endpoint's delivery statistics over a window, widened to whole hours (the base of a customer's too). No
    # docstring: a model's docstring is its schema's description, and the document gives this one none.

    since: Timestamp
    until: Timestamp
    granularity: Literal["hour"]
    attempts: Count
    succeeded: Count
    failed: Count
    # Inline objects, as the document has them (no component of their own).
    # Attempt latency percentiles in ms (p50, p95, p99), each the upper bound of its histogram bucket; null without
    # attempts. A plain map: a model here would add a component the document does not have.
    latency_ms: Annotated[dict[Literal["p50", "p95", "p99"], int | None], WithJsonSchema(_LATENCY_SCHEMA)]
    first_attempt_delivery_rate: Annotated[
        float | None, _RATE, Field(description="Deliveries that succeeded on their first scheduled attempt, out of all first attempts.")
    ]
    eventual_delivery_success_rate: Annotated[float | None, _RATE, Field(description="Deliveries that ended succeeded, out of all that ended.")]
    series: Annotated[
        list[StatsHour] | None,
        WithJsonSchema({"type": "array", "items": _HOUR_SCHEMA}),
        Field(
            description="With `series=hour` only, oldest first; hours without any attempt are left out.",
            exclude_if=lambda v: v is None,  # absent, not null, without `series=hour`
            json_schema_extra=_no_default,
        ),
    ] = None
