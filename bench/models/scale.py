"""The scale model: how many webhooks a second each sizing profile sustains, which limit binds it, what it
costs, and which AWS quotas it needs raised.

Built on this run's measured parts, never on guesses:
- the real delivery handler's CPU per delivery at full speed, by batch size (`throughput.batches`: 10 and 100,
  straight between them), stretched to the profile's memory by Lambda's CPU share (one vCPU at 1,769 MB);
- its AWS calls in a row on a task's path (`throughput.stand_in`: the design over stand-ins, 5 ms a call);
- the receivers' latency (the duration model's lognormal: the slowest of a batch's answers) and its handshakes per
  delivery (`cost.units.handshakes`);
- DynamoDB read and write units per delivered webhook, ingest included (`cost`, 1 KB, 98.5 %, batched ingest), and
  the cost per million on both billings, the Lambda line moved to the profile's memory;
- the API function's CPU per batch of 100 events (`cost.duration_model`).
AWS's quotas are stated inputs (`Quotas`), each with where it is raised.

Limits a setting sets (reserved concurrency, the API stage's throttle, a provisioned table's maximum) bind a
configuration; a quota below what its settings would carry is one to raise, and is listed. Pure: reads the results.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.models import duration, hotkeys, prices
from hookline.core.profiles import SIZES
from hookline.core.settings import TABLE_CAPACITY_TARGET_PERCENT, Settings
from hookline.core.stats import VERSION_USE_HOLD_SECONDS
from hookline.wiring import topology
from infra import sizing

DOC_BEGIN = "<!-- scale model: written by make bench (bench/models/scale.py); do not edit by hand -->"
DOC_END = "<!-- end of the scale model -->"
EVENTS_PER_REQUEST = 100  # the batched ingest route's most events a request (POST /v1/events/batch)
CONFIG = ("1KB", "98.5%", "batch")  # the cost configuration the model prices (its ingest: the configuration's own)


@dataclass(frozen=True)
class Quotas:
    """AWS's default quotas (us-east-1), as the model takes them; each is raised in Service Quotas unless said."""

    lambda_unreserved_minimum: int = sizing.UNRESERVED_MINIMUM  # Lambda keeps this much of the account's quota unreserved
    dynamodb_table_write_units: int = 40_000  # a table's (and each index's) write units a second, on-demand or provisioned
    dynamodb_table_read_units: int = 40_000
    dynamodb_account_capacity_units: int = 80_000  # provisioned tables only: an account's total per unit kind
    dynamodb_partition_write_units: int = 1_000  # one partition key's writes a second (not raisable: spread the keys)
    api_gateway_account_requests: int = 10_000  # HTTP APIs' requests a second per account and region (burst 5,000)
    sqs_standard_requests: float = math.inf  # standard queues: nearly unlimited
    ses_emails_per_second: int = 14  # SES production sending rate (1 in the sandbox): only endpoints' disable/recover emails
    sts_assume_role_per_second: int = 500  # AssumeRole for customers' destinations: a session is kept per role, not per delivery


QUOTAS = Quotas()


def _at_batch(table: dict[str, Any], batch: int, key: str) -> float:
    """A measured figure at `batch`, straight between the measured batch sizes (the nearest one outside them)."""
    points = sorted((int(b), float(row[key])) for b, row in table.items())
    if batch <= points[0][0]:
        return points[0][1]
    for (b0, v0), (b1, v1) in itertools.pairwise(points):
        if batch <= b1:
            return v0 + (v1 - v0) * (batch - b0) / (b1 - b0)
    return points[-1][1]


def invocation_seconds(results: dict[str, Any], batch: int, memory_mb: int, a: duration.Assumptions = duration.ASSUMED) -> float:
    """One delivery invocation of `batch` tasks at `memory_mb`: CPU, AWS calls in a row, DNS, new connections, slowest answer."""
    tp = results["throughput"]
    cpu_ms = _at_batch(tp["batches"], batch, "handler_cpu_ms_per_delivery") * batch * max(1.0, duration.LAMBDA_MB_PER_VCPU / memory_mb)
    calls = _at_batch(tp["stand_in"]["batches"], batch, "sequential_calls")
    units = results["cost"]["per_million_usd"][CONFIG[0]][CONFIG[1]][CONFIG[2]]["units"]
    handshake_share = min(1.0, units["handshakes"] / prices.MILLION * batch)  # the chance the batch opens a connection
    ms = cpu_ms + calls * a.aws_call_ms + a.dns_ms + handshake_share * a.handshake_ms + a.slowest_answer_ms(batch)
    return ms / 1000


def _api_seconds(results: dict[str, Any]) -> float:
    """The API function's time for one batched ingest request (100 events) at its memory: CPU, then its AWS calls."""
    cpu_ms = results["cost"]["duration_model"][CONFIG[0]]["ms"]["ingest_batch"] * max(1.0, duration.LAMBDA_MB_PER_VCPU / topology.API.memory_mb)
    return (cpu_ms + 3 * duration.ASSUMED.aws_call_ms) / 1000  # the catalog read, the batch write, the queue send


@dataclass(frozen=True)
class Limit:
    name: str
    per_second: float
    quota: str = ""  # the AWS quota behind it; empty: a setting sets it
    raise_to: str = ""  # what the quota must become for the settings' own limits to bind


def limits(results: dict[str, Any], settings: Settings, ingest: str, q: Quotas = QUOTAS) -> list[Limit]:
    """Every limit on sustained deliveries a second at these settings."""
    units = _measured(results, ingest)["units"]
    wru, rru = units["dynamodb_write_units"] / prices.MILLION, units["dynamodb_read_units"] / prices.MILLION
    attempts = _measured(results, ingest)["attempts_per_webhook"]
    found: list[Limit] = []
    for spec, share in ((topology.DELIVERY, 1.0), (topology.RETRY, max(attempts - 1.0, 1e-9))):
        c, instances = sizing.concurrency(spec, settings), _instances(spec, settings)
        assert spec.sqs_source is not None
        batch = int(getattr(settings, spec.sqs_source.batch_size_setting))
        per_instance = batch / invocation_seconds(results, batch, spec.memory(settings))
        what = "reserved concurrency" if c.reserved is not None else "event source's maximum concurrency"
        found.append(Limit(f"the {spec.name} function's {what} ({instances} at {spec.memory(settings)} MB)", instances * per_instance / share))
    events_per_request = EVENTS_PER_REQUEST if ingest == "batch" else 1
    found.append(Limit(f"the API stage's throttle ({settings.api_throttle_rate} requests/s)", settings.api_throttle_rate * events_per_request))
    # What the API function may run: the quota less the reservations, and less what the unreserved consumers' sources may take.
    unreserved = settings.account_concurrency_quota - sizing.reserved_total(settings)
    unreserved -= sum(c.pollers or 0 for c in (sizing.concurrency(spec, settings) for spec in topology.FUNCTIONS) if c.reserved is None)
    api_seconds = (
        _api_seconds(results)
        if ingest == "batch"
        else results["cost"]["per_path"][CONFIG[0]]["ingest_single"]["units"]["lambda_gb_seconds"] / (topology.API.memory_mb / 1024)
    )
    found.append(
        Limit(
            f"the API function's share of the unreserved concurrency ({unreserved})",
            unreserved / api_seconds * events_per_request,
            "Lambda: Concurrent executions (L-B99A9384)",
        )
    )
    found.append(
        Limit("API Gateway's HTTP API requests per account", q.api_gateway_account_requests * events_per_request, "API Gateway: Throttle rate (HTTP APIs)")
    )
    if settings.table_billing == "provisioned":
        found.append(Limit(f"the table's provisioned write maximum ({settings.table_max_write_capacity:,})", settings.table_max_write_capacity / wru))
        found.append(Limit(f"the table's provisioned read maximum ({settings.table_max_read_capacity:,})", settings.table_max_read_capacity / rru))
    found.append(
        Limit(
            f"DynamoDB's table write units ({q.dynamodb_table_write_units:,}/s)",
            q.dynamodb_table_write_units / wru,
            "DynamoDB: Table-level write throughput limit",
        )
    )
    found.append(
        Limit(
            f"DynamoDB's table read units ({q.dynamodb_table_read_units:,}/s)", q.dynamodb_table_read_units / rru, "DynamoDB: Table-level read throughput limit"
        )
    )
    return found


def configuration(results: dict[str, Any], name: str, settings: Settings, ingest: str = "batch", q: Quotas = QUOTAS) -> dict[str, Any]:
    """One configuration's sustained rate, binding limit, cost per million and the quota increases it needs."""
    found = limits(results, settings, ingest, q)
    by_settings = min(found, key=lambda limit: limit.per_second if not limit.quota else math.inf)
    increases: list[str] = []
    rate = by_settings.per_second
    units = _measured(results, ingest)["units"]
    for limit in found:
        if limit.quota and limit.per_second < rate:
            factor = rate / limit.per_second
            if "write units" in limit.name:
                needed = f"{_round_up(rate * units['dynamodb_write_units'] / prices.MILLION):,} write units/s"
            elif "read units" in limit.name:
                needed = f"{_round_up(rate * units['dynamodb_read_units'] / prices.MILLION):,} read units/s"
            else:
                needed = f"{factor:.2f}x its default"
            increases.append(f"{limit.quota}: to at least {needed}")
    binding = by_settings
    return {
        "name": name,
        "size": settings.size,
        "ingest": ingest,
        "deliveries_per_second": math.floor(rate),
        "binding_limit": binding.name,
        "usd_per_million": _cost(results, settings, ingest),
        "quota_increases": increases,
        "account_concurrency_quota": settings.account_concurrency_quota,
        "reserved_concurrency": sizing.reserved_total(settings),
        "delivery_memory_mb": settings.delivery_memory_mb,
        "limits": {limit.name: math.floor(limit.per_second) for limit in found},
        "retries_per_second_against_timeouts": math.floor(retries_against_timeouts(settings)),
        "version_use_writes_per_second": math.floor(version_use_writes(settings, rate)),
    }


def _instances(spec: topology.FunctionSpec, settings: Settings) -> int:
    """The most instances of a queue consumer at once: its reservation, or (none) its event source's cap."""
    c = sizing.concurrency(spec, settings)
    return c.reserved if c.reserved is not None else (c.pollers or 0)


def version_use_writes(settings: Settings, rate: float) -> float:
    """Writes a second on a tenant's version-use item when all `rate` deliveries a second are one tenant's at one
    version: one a batch, but at most one per delivery and retry instance every VERSION_USE_HOLD_SECONDS."""
    instances = _instances(topology.DELIVERY, settings) + _instances(topology.RETRY, settings)
    return min(rate / settings.delivery_batch_size, instances / VERSION_USE_HOLD_SECONDS)


# The hot endpoint the model runs (its goal: at most 500 writes a second on any item): 5,000 deliveries a second offered to one endpoint allowed that
# many (its limiter paces it a margin under), over ten warm instances in batches of ten and over twenty in batches of
# five; and to one allowed 6,000 over twelve instances, which delivers about all 5,000. No item may take more than
# HOT_ITEM_BOUND writes a second, no partition key more than DynamoDB's 1,000.
HOT_RATE = 5000
HOT_RUNS = ((10, 10, HOT_RATE), (5, 20, HOT_RATE), (10, 12, 6000))  # (batch size, instances, the endpoint's rate limit)
HOT_ITEM_BOUND = 500


def hot_endpoint() -> dict[str, Any]:
    """Each key's most writes in any second for one endpoint at HOT_RATE (bench.models.hotkeys: the core's own rules)."""
    runs = []
    for batch, processes, limit in HOT_RUNS:
        w = hotkeys.hot_endpoint_writes(HOT_RATE, batch, processes, limit=limit)
        runs.append(
            {
                "batch_size": batch,
                "processes": processes,
                "limit": limit,
                "sent_per_second": w.sent,
                "batches_per_second": w.batches,
                "writes": w.per_key(),
            }
        )
    return {"rate": HOT_RATE, "item_bound": HOT_ITEM_BOUND, "partition_bound": QUOTAS.dynamodb_partition_write_units, "runs": runs}


def retries_against_timeouts(settings: Settings) -> float:
    """Retries a second the retry lane carries when every one waits out the whole request deadline (receivers that time
    out, not the measured path's quick 5xx): its instances' batches over the deadline. Breakers park such an endpoint
    after HOOKLINE_BREAKER_TIMEOUT_THRESHOLD timeouts in a row, so this is what the lane gives an outage's first wave."""
    return _instances(topology.RETRY, settings) * settings.retry_batch_size / settings.request_timeout_seconds


def _round_up(units: float, step: int = 5_000) -> int:
    return int(math.ceil(units / step) * step)


def _measured(results: dict[str, Any], ingest: str) -> dict[str, Any]:
    """The cost section's measured configuration: 1 KB, 98.5 % first-attempt success, the given ingest."""
    return dict(results["cost"]["per_million_usd"][CONFIG[0]][CONFIG[1]][ingest])


def _cost(results: dict[str, Any], settings: Settings, ingest: str) -> dict[str, float]:
    """Cost per million delivered at these settings: the measured configuration's, its delivery Lambda line moved from
    the measured memory to the profile's (the model's GB-seconds per delivery at each)."""
    measured = _measured(results, ingest)
    batch = settings.delivery_batch_size

    def gb_seconds(memory_mb: int) -> float:
        return invocation_seconds(results, batch, memory_mb) * memory_mb / 1024 / batch

    moved = (gb_seconds(settings.delivery_memory_mb) - gb_seconds(topology.DELIVERY.memory_mb)) * prices.US_EAST_1.lambda_gb_second_arm64 * prices.MILLION
    return {
        "on_demand": round(measured["total"] + moved, 2),
        "provisioned": round(measured["provisioned"]["total"] + moved, 2),
        "provisioned_target_percent": TABLE_CAPACITY_TARGET_PERCENT,
    }


def model(results: dict[str, Any]) -> dict[str, Any]:
    """The scale section of results.json: every profile with batched ingest, and the default one with single events."""
    configurations = [configuration(results, size, Settings.from_env({"HOOKLINE_SIZE": size})) for size in SIZES]
    configurations.append(configuration(results, "default, single-event ingest", Settings(), ingest="single"))
    return {
        "configurations": configurations,
        "hot_endpoint": hot_endpoint(),
        "inputs": {
            "measured_at": results.get("meta", {}).get("generated_at", ""),
            "handler_cpu_ms_per_delivery": {b: row["handler_cpu_ms_per_delivery"] for b, row in results["throughput"]["batches"].items()},
            "sequential_calls": {b: row["sequential_calls"] for b, row in results["throughput"]["stand_in"]["batches"].items()},
            "receiver_median_ms": duration.ASSUMED.receiver_median_ms,
            "quotas": {k: (v if v != math.inf else "unlimited") for k, v in QUOTAS.__dict__.items()},
        },
    }


def _table(rows: list[list[Any]], header: list[str]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header), *("| " + " | ".join(str(c) for c in row) + " |" for row in rows)]


def rendered(scale: dict[str, Any]) -> str:
    """docs/scaling.md's generated part: the configurations as the model printed them."""
    rows = [
        [
            c["name"],
            f"{c['deliveries_per_second']:,}",
            c["binding_limit"],
            f"${c['usd_per_million']['on_demand']:.2f}",
            f"${c['usd_per_million']['provisioned']:.2f}",
            "; ".join(c["quota_increases"]) or "none",
            f"{c['retries_per_second_against_timeouts']:,}",
            f"{c['version_use_writes_per_second']:,}",
        ]
        for c in scale["configurations"]
    ]
    header = [
        "configuration",
        "deliveries/s",
        "binding limit",
        "per million, on-demand",
        "per million, provisioned",
        "quotas to raise",
        "retries/s against timing-out receivers",
        "writes/s on a tenant's version-use item",
    ]
    inputs = scale["inputs"]
    return "\n".join(
        [
            DOC_BEGIN,
            "",
            *_table(rows, header),
            "",
            f"From the `make bench` run of {inputs['measured_at'] or 'this tree'}: handler CPU per delivery at full speed "
            + ", ".join(f"{v:g} ms at batch {b}" for b, v in inputs["handler_cpu_ms_per_delivery"].items())
            + "; AWS calls in a row on a task's path "
            + ", ".join(f"{v:g} at batch {b}" for b, v in inputs["sequential_calls"].items())
            + f"; receivers at a {inputs['receiver_median_ms']:g} ms median.",
            "",
            *_hot_table(scale["hot_endpoint"]),
            "",
            DOC_END,
        ]
    )


_HOT_KEYS = {
    "limiter": "limiter (`LIM#`)",
    "statistics": "statistics hour (`STAT#`)",
    "version_usage": "version use (`VUSE#`, the tenant's)",
    "breaker": "breaker (`BRK#`)",
    "delivery_item": "one delivery's item",
    "delivery_log_partition": "busiest delivery-log partition key (`D#`, one item per delivery)",
}


def _hot_table(hot: dict[str, Any]) -> list[str]:
    runs = hot["runs"]
    header = ["key", *(f"writes/s, limit {r['limit']:,}/s, batches of {r['batch_size']} over {r['processes']} instances" for r in runs)]
    rows = [[what, *(f"{r['writes'][key]:,}" for r in runs)] for key, what in _HOT_KEYS.items()]
    rows.append(["(delivered a second; batches a second)", *(f"{r['sent_per_second']:,}; {r['batches_per_second']:,}" for r in runs)])
    return [
        f"One endpoint offered {hot['rate']:,} deliveries a second, at its rate limit or under it (the most writes in any second on each of its keys; "
        f"bound: {hot['item_bound']} on an item, {hot['partition_bound']:,} on a partition key):",
        "",
        *_table(rows, header),
    ]


def write_doc(scale: dict[str, Any], doc: Path) -> None:
    """Put the model's table into docs/scaling.md between its markers."""
    text = doc.read_text()
    start, end = text.index(DOC_BEGIN), text.index(DOC_END) + len(DOC_END)
    doc.write_text(text[:start] + rendered(scale) + text[end:])
