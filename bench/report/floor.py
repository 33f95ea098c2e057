"""The least a delivered webhook can cost with the features kept, against the goals; both billing modes of the table."""

from __future__ import annotations

from typing import Any

from bench.models.goals import FLOOR_WRITES_PER_DELIVERY
from bench.models.prices import US_EAST_1, provisioned
from bench.report.results import HEADLINE, HOURS_PER_MONTH, Cost
from bench.report.tables import markdown_table
from hookline.core.settings import TABLE_CAPACITY_TARGET_PERCENT, Settings
from hookline.wiring.topology import TABLE


def provisioned_section(cost: Cost) -> list[str]:
    """Both billing modes of the table, priced from the same measured units (bench.models.cost.provisioned)."""
    rows = cost["per_million_usd"]
    shown = []
    for k in HEADLINE:
        r = rows.get(k[0], {}).get(k[1], {}).get(k[2])
        if r is None:
            continue
        found = r.get("provisioned") or provisioned(r["total"], r["breakdown"], r["units"])
        shown.append(["/".join(k), f"${r['total']:.2f}", f"${r['breakdown']['dynamodb']:.2f}", f"${found['dynamodb']:.2f}", f"${found['total']:.2f}"])
    s, scaled = Settings(), 1 + len(TABLE.indexes)
    floor = scaled * (s.table_min_write_capacity * US_EAST_1.dynamodb_wcu_hour + s.table_min_read_capacity * US_EAST_1.dynamodb_rcu_hour) * HOURS_PER_MONTH
    return [
        "### On-demand and provisioned capacity",
        "",
        f"`HOOKLINE_TABLE_BILLING=provisioned` bills the table and its indexes per capacity unit-hour (${US_EAST_1.dynamodb_wcu_hour:g} a write unit,",
        f"${US_EAST_1.dynamodb_rcu_hour:g} a read unit, us-east-1) instead of per request. Priced here from the same measured read and write units, at",
        f"steady load with auto scaling keeping {TABLE_CAPACITY_TARGET_PERCENT} % of the capacity used (each unit a second needs",
        f"1/{TABLE_CAPACITY_TARGET_PERCENT / 100:g} of a capacity unit); every other line as on demand. Left out: the minimum capacity's floor ({s.table_min_write_capacity}",
        f"writes and {s.table_min_read_capacity} reads on the table and on each of its {scaled - 1} indexes by default: about ${floor:.0f} a month whatever the",
        "volume) and spikes faster than",
        "auto scaling follows (minutes), which the headroom absorbs or DynamoDB throttles: on-demand is the mode for traffic",
        "that is not steady.",
        "",
        markdown_table(["configuration", "on-demand total", "DynamoDB on-demand", "DynamoDB provisioned", "provisioned total"], shown),
        "",
    ]


GOALS = (
    (("1KB", "98.5%", "batch"), "ingest_batch", 1.50),
    (("1KB", "98.5%", "batch_fanout5"), "ingest_batch_fanout5", 1.00),
    (("16KB", "98.5%", "batch"), "ingest_batch", 2.00),
)


_WORDS = {3: "three", 4: "four", 5: "five"}


def floor_rows(cost: Cost | dict[str, Any]) -> list[dict[str, Any]]:
    """For each of the cost goals: the least a delivered webhook can cost with the features kept, against the goal and the measured total.

    The floor counts only the event's write (as measured), the writes of FLOOR_WRITES_PER_DELIVERY, and the
    requests that leave AWS, SQS and API Gateway as measured: no read, no Lambda, no log, no storage."""
    price = US_EAST_1.dynamodb_write_unit * 1_000_000
    rows = []
    for (size, rate, ingest), path, goal in GOALS:
        row = cost["per_million_usd"].get(size, {}).get(rate, {}).get(ingest)
        units = cost["per_path"].get(size, {}).get(path)
        if row is None or units is None:
            continue
        event_wru = units["units"]["dynamodb_write_units"]
        writes = event_wru + sum(FLOOR_WRITES_PER_DELIVERY.values())
        carried = sum(row["breakdown"][k] for k in ("data_transfer_out", "sqs", "api_gateway"))
        rows.append(
            {
                "configuration": f"{size}/{rate}/{ingest}",
                "goal": goal,
                "event_wru": event_wru,
                "floor_wru": writes,
                "floor": round(writes * price + carried, 4),
                "issue_floor": round((event_wru + FLOOR_WRITES_PER_DELIVERY["attempt record"]) * price + carried, 4),
                "measured": row["total"],
            }
        )
    return rows


def floor_section(cost: Cost) -> list[str]:
    rows = floor_rows(cost)
    if not rows:
        return []
    below = [r["configuration"] for r in rows if r["goal"] < r["floor"]]
    price = US_EAST_1.dynamodb_write_unit * 1_000_000
    transfer16 = cost["per_million_usd"].get("16KB", {}).get("98.5%", {}).get("batch", {}).get("breakdown", {}).get("data_transfer_out", 0.0)
    verdict = (
        f"{len(below)} of the {len(rows)} goals ({', '.join(below)}) lie below their floor: on on-demand DynamoDB "
        f"(${price:.3f} per million writes) {_WORDS[len(FLOOR_WRITES_PER_DELIVERY) + 1]} writes are ${(len(FLOOR_WRITES_PER_DELIVERY) + 1) * price:.2f} "
        f"before a byte leaves AWS, and a 16 KB "
        f"webhook's own transfer out is ${transfer16:.2f}."
        if below
        else "Every goal is above its floor."
    )
    table = [
        [
            r["configuration"],
            f"${r['goal']:.2f}",
            f"{r['event_wru']:g} + {sum(FLOOR_WRITES_PER_DELIVERY.values()):g} = {r['floor_wru']:g}",
            f"${r['floor']:.2f}",
            f"${r['issue_floor']:.2f}",
            f"${r['measured']:.2f}",
        ]
        for r in rows
    ]
    return [
        "### The floor under the goals",
        "",
        "The least a delivered webhook can cost with every feature kept, in the worst case the goals name (each batch's",
        "tasks go to different endpoints): the event's write as measured; the limiter's grant, a conditional write per",
        "endpoint and batch (nothing else keeps the up to 50 concurrent delivery and retry instances under an endpoint's",
        "concurrency limit and rate, and a shared grant needs a write: a read cannot exclude a concurrent sender), and its",
        "give-back, the write per endpoint and batch that frees the slots once the batch's requests have ended (a slot",
        "left to its lease's expiry would hold the endpoint's concurrency for the lease's whole 120 s);",
        "the attempt record of the delivery log; and the requests that leave AWS, SQS and API Gateway as measured. No",
        "read, Lambda, log or storage is counted. 'Without the limiter' is the floor the cost goals were set on (the event and the",
        "attempt record).",
        "",
        markdown_table(["configuration", "goal", "DynamoDB writes per delivery", "floor", "without the limiter", "measured"], table),
        "",
        verdict,
        "What the measured figure still carries above",
        "the floor: the conditional writes that lost a race (two batches granting on one endpoint), the reads",
        "(endpoint, breaker and limiter per endpoint; the body and the delivery per task; the give-back's consistent read beside another holder),",
        "Lambda time waiting on receivers, and storage with PITR for the 30-day retention.",
        "",
    ]
