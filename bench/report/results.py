"""The results the report reads, typed: what `python -m bench` writes into results.json, by section.

Each section the report reads has a TypedDict here naming the keys it reads; what a section holds below that (a
scenario's figures, a cost row's lines) stays a mapping, as results.json has it. `read` checks that the sections every
report needs are there and hands the results on typed; the optional ones (measured by a module of their own, or by a
later `make bench`) may be missing, and their sections are then left out.
"""

from typing import Any, NotRequired, TypedDict, cast

HOURS_PER_MONTH = 730

# The cost section's headline configurations: (payload, first-attempt success, ingest).
HEADLINE = (("1KB", "98.5%", "batch"), ("1KB", "98.5%", "batch_fanout5"), ("16KB", "98.5%", "batch"), ("1KB", "98.5%", "single"), ("1KB", "90%", "batch"))


class Meta(TypedDict):
    command: str
    generated_at: str
    machine: str
    seconds: float
    scale: float
    cost_regenerated_at: NotRequired[str]
    cost_seconds: NotRequired[float]


class Scenario(TypedDict):
    """One simulated scenario: hookline's figures, the naive baseline's, their ratios, and each one's time series."""

    hookline: dict[str, Any]
    baseline: dict[str, Any]
    ratio: dict[str, Any]


class Cost(TypedDict):
    """USD per million delivered webhooks by payload, success rate and ingest; units per path; the duration model."""

    per_million_usd: dict[str, dict[str, dict[str, dict[str, Any]]]]
    per_path: dict[str, dict[str, dict[str, Any]]]
    duration_model: NotRequired[dict[str, dict[str, Any]]]
    previous_run: NotRequired[dict[str, Any] | None]
    side_by_side: NotRequired[dict[str, Any]]
    prices: NotRequired[dict[str, float]]
    waits: NotRequired[dict[str, Any]]  # bench.models.waits.waits_report


class Throughput(TypedDict):
    runs: int
    receiver_latency_ms: float
    batches: dict[str, dict[str, Any]]
    stand_in: NotRequired[dict[str, Any]]


class Results(TypedDict):
    meta: Meta
    outage_isolation: Scenario
    retry_storm: Scenario
    slow_subscriber: Scenario
    flaky_receivers: Scenario
    capacity_limited: Scenario
    recovery: Scenario
    cost: Cost
    throughput: Throughput
    profile: NotRequired[dict[str, Any]]
    connections: NotRequired[dict[str, Any]]
    destinations: NotRequired[dict[str, Any]]
    ordered: NotRequired[dict[str, Any]]
    local_mode: NotRequired[dict[str, Any]]
    api: NotRequired[dict[str, Any]]
    latency: NotRequired[dict[str, Any]]
    scale: NotRequired[dict[str, Any]]


REQUIRED = tuple(sorted(Results.__required_keys__))
SCENARIOS = ("outage_isolation", "retry_storm", "slow_subscriber", "flaky_receivers", "capacity_limited", "recovery")


def read(results: dict[str, Any]) -> Results:
    """The results typed; KeyError naming the first section every report needs that they lack."""
    for key in REQUIRED:
        if key not in results:
            raise KeyError(f"results.json has no {key!r} section")
    return cast(Results, results)


def headline(cost: Cost | dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The headline configurations this cost section has, keyed "payload/success/ingest", each its cost row."""
    rows = cost["per_million_usd"]
    return {"/".join(k): rows[k[0]][k[1]][k[2]] for k in HEADLINE if k[2] in rows.get(k[0], {}).get(k[1], {})}
