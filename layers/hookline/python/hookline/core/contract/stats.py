"""Delivery statistics as the API answers them: an endpoint's (`Stats`) and a customer's (`CustomerStats`, in
hookline.core.contract.customers)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, WithJsonSchema

from hookline.core.contract.common import TIMESTAMP_SCHEMA, Answer, Count, Timestamp, absent_unless_set

_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_PERCENTILE: dict[str, Any] = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
_HOUR_COUNTERS = ("attempts", "succeeded", "failed", "ended_succeeded", "ended_failed")


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
    "properties": {"hour": TIMESTAMP_SCHEMA, **dict.fromkeys(_HOUR_COUNTERS, _COUNT)},
}


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
    # Absent, not null, without `series=hour`.
    series: Annotated[list[StatsHour] | None, WithJsonSchema({"type": "array", "items": _HOUR_SCHEMA})] = absent_unless_set(
        "With `series=hour` only, oldest first; hours without any attempt are left out."
    )
