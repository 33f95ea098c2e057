"""Delivery statistics as the API answers them: an endpoint's (`Stats`) and a customer's (`CustomerStats`, in
hookline.core.contract.customers)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from hookline.core.contract.common import Answer, Count, Timestamp, absent_unless_set


class StatsHour(Answer):
    # One hour of a window's series: its start and its attempt and delivery counters.

    hour: Timestamp
    attempts: Count
    succeeded: Count
    failed: Count
    ended_succeeded: Count
    ended_failed: Count


Percentile = int | None


class Latency(Answer):
    # Attempt latency percentiles in ms, each the upper bound of its histogram bucket; null without attempts.

    p50: Percentile
    p95: Percentile
    p99: Percentile


# A share of deliveries, 0 to 1; null when there were none to count.
Rate = Annotated[float, Field(ge=0, le=1)] | None


class Stats(Answer):
    # An endpoint's delivery statistics over a window, widened to whole hours (the base of a customer's too). No
    # docstring: a model's docstring is its schema's description, and the document gives this one none.

    since: Timestamp
    until: Timestamp
    granularity: Literal["hour"]
    attempts: Count
    succeeded: Count
    failed: Count
    latency_ms: Latency
    first_attempt_delivery_rate: Rate = Field(description="Deliveries that succeeded on their first scheduled attempt, out of all first attempts.")
    eventual_delivery_success_rate: Rate = Field(description="Deliveries that ended succeeded, out of all that ended.")
    polled: Count | None = absent_unless_set("A polling endpoint's: its deliveries a poll moved past in the window (its receiver has them); absent when none.")
    # Absent, not null, without `series=hour`.
    series: list[StatsHour] | SkipJsonSchema[None] = absent_unless_set("With `series=hour` only, oldest first; hours without any attempt are left out.")
