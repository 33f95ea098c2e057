"""The cost section: USD per million delivered webhooks, its lines, the duration model, and this run against the one before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.measurement import connections
from bench.report.floor import floor_section, provisioned_section
from bench.report.results import HEADLINE, Cost, headline
from bench.report.sidebyside import side_by_side_section
from bench.report.tables import markdown_table
from hookline.core.settings import Settings

BEFORE = Path(__file__).with_name("before.json")  # the committed figures before the cost benchmark was made honest


def previous_run(previous: dict[str, Any] | None) -> dict[str, Any] | None:
    """The headline figures of the run before this one, if it used the same (duration-model) benchmark: the stability check."""
    if not previous or "duration_model" not in previous.get("cost", {}):
        return None
    shown = headline(previous["cost"])
    return {
        "command": previous["meta"]["command"],
        "generated_at": previous["meta"].get("cost_regenerated_at") or previous["meta"]["generated_at"],  # when its cost section was measured
        "totals": {key: row["total"] for key, row in shown.items()},
        "lambda": {key: row["breakdown"]["lambda"] for key, row in shown.items()},
    }


def path_table(per_path: dict[str, Any]) -> str:
    rows = []
    for name, p in per_path.items():
        u = p["units"]
        rows.append(
            [
                name,
                f"${p['usd_per_million']:.2f}",
                round(u["dynamodb_write_units"], 2),
                round(u["dynamodb_read_units"], 3),
                round(u["sqs_requests"], 2),
                round(u["sfn_transitions"], 2),
                round(u["lambda_requests"], 2),
                round(u["lambda_gb_seconds"] * 1000, 2),
                round(u["log_bytes"]),
                round(u["dynamodb_stored_bytes"]) if "dynamodb_stored_bytes" in u else "not counted",
                round(u["transfer_out_bytes"]) if "transfer_out_bytes" in u else "not counted",
                round(u["conditional_conflicts"], 3) if "conditional_conflicts" in u else "not counted",
            ]
        )
    header = ["path", "USD per million", "DynamoDB WRU", "DynamoDB RRU", "SQS requests", "SFN transitions", "Lambda requests", "Lambda GB-ms", "log bytes"]
    return markdown_table([*header, "stored bytes", "bytes out", "conflicts"], rows)


def eventbridge_lines(cost: Cost) -> list[str]:
    """hookline's lines beside EventBridge API destinations', 1 KB, 98.5 %, batched ingest."""
    out: list[str] = []
    rows = cost["per_million_usd"]
    one = rows["1KB"]["98.5%"]["batch"]
    eb = one["eventbridge_breakdown"]
    out += [
        "### Lines beside EventBridge's, 1 KB, 98.5 %, batched ingest",
        "",
        markdown_table(
            ["line", "hookline", "EventBridge API destinations"],
            [
                [
                    "requests and compute (Lambda, SQS, Step Functions, API Gateway, SNS / PutEvents, invocations)",
                    f"${sum(v for k, v in one['breakdown'].items() if k in ('lambda', 'sqs', 'step_functions', 'api_gateway', 'sns')):.3f}",
                    f"${eb['put_events'] + eb['invocations']:.3f}",
                ],
                ["DynamoDB reads and writes", f"${one['breakdown']['dynamodb']:.3f}", "$0.000 (no delivery log)"],
                [
                    "DynamoDB storage, 30-day retention",
                    f"${one['breakdown']['dynamodb_storage']:.3f}",
                    f"${eb['storage']:.3f} (stores nothing; an archive would be $0.023/GB-month)",
                ],
                ["DynamoDB point-in-time recovery", f"${one['breakdown']['dynamodb_pitr']:.3f}", "$0.000"],
                [
                    "data transfer out (the webhook requests)",
                    f"${one['breakdown']['data_transfer_out']:.3f}",
                    f"${eb['data_transfer_out']:.3f} (the same requests)",
                ],
                ["CloudWatch Logs", f"${one['breakdown']['cloudwatch_logs']:.3f}", "$0.000"],
                ["total", f"${one['total']:.2f}", f"${one['eventbridge_api_destinations']:.2f}"],
            ],
        ),
        "",
        f"Conditional writes that lost a race, per million delivered: {one['units'].get('conditional_conflicts', 0):,.0f} "
        f"(billed inside the DynamoDB line). Successes that write the breaker because it remembers a failure: "
        f"{one['successes_after_a_failure']:.1%}.",
        "",
    ]
    return out


def duration_model_section(cost: Cost) -> list[str]:
    """The Lambda duration model's assumptions, the handshakes, and the handlers' CPU per task it bills."""
    out: list[str] = []
    model = cost.get("duration_model")
    if model:
        a = next(iter(model.values()))["assumptions"]
        out += [
            "### The Lambda duration model",
            "",
            "Each invocation is billed (`bench/models/duration.py`): the handlers' CPU per task, stretched to the function's CPU share "
            f"(one vCPU at {a['lambda_mb_per_vcpu']} MB, so 3.5x at 512 MB; this machine's core taken as one Graviton vCPU); "
            f"{a['aws_call_ms']:g} ms per AWS call, the batch's tasks side by side; the limiter's sleeps, as measured; and, when it sends, "
            f"a DNS lookup ({a['dns_ms']:g} ms: the SSRF guard resolves every POST), a new connection when a send has none to reuse "
            f"({a.get('handshake_ms', a['connect_ms'] - a['dns_ms']):g} ms: TCP and TLS 1.3 at {a['rtt_ms']:g} ms round trip), and the "
            f"slowest of the batch's answers (lognormal, median {a['receiver_median_ms']:g} ms, sigma {a['receiver_sigma']:g}: "
            "about 216 ms for ten). Data transfer out counts each request's line, headers and body, plus "
            f"{a['tls_client_bytes']} bytes for each TLS handshake.",
            "",
            *handshakes(cost),
            markdown_table(
                ["payload", *next(iter(model.values()))["ms"].keys()],
                [[size, *(f"{v:g}" for v in m["ms"].values())] for size, m in model.items()],
            ),
            "",
            f"CPU ms, the fastest of {next(iter(model.values()))['runs']} runs (the samples are bimodal, the slow mode other processes' interference; per task; ingest per invocation, the batch one of 100 events), "
            "moto server and the receivers in processes of their own.",
            "",
        ]
    return out


def stability_section(cost: Cost) -> list[str]:
    """This run's headline totals against the run before's: the stability check."""
    out: list[str] = []
    prev = cost.get("previous_run")
    current = headline(cost)
    out += ["### Stability: this run against the one before", ""]
    if prev:
        table = []
        for key, r in current.items():
            before = prev["totals"].get(key)
            delta = f"{(r['total'] - before) / before:+.1%}" if before else ""
            table.append(
                [key, f"${before:.4f}" if before else "", f"${r['total']:.4f}", delta, f"${prev['lambda'].get(key, 0):.4f}", f"${r['breakdown']['lambda']:.4f}"]
            )
        worst = max((abs(current[k]["total"] - v) / v for k, v in prev["totals"].items() if k in current and v), default=0.0)
        out += [
            f"Previous run: `{prev['command']}` on {prev['generated_at']}. This run: see below. Largest move of a total: {worst:.1%} "
            f"({'within' if worst <= 0.05 else 'OUTSIDE'} the 5 % the efficiency goals ask for).",
            "",
            markdown_table(["configuration", "total, previous run", "total, this run", "change", "Lambda, previous run", "Lambda, this run"], table),
            "",
        ]
    else:
        out += ["No previous run of this benchmark to compare with: run `make bench` again.", ""]
    return out


def before_after_section(cost: Cost, made: str) -> list[str]:
    """Per path (1 KB), before the honest benchmark (before.json) and in this run."""
    out: list[str] = []
    current = headline(cost)
    if BEFORE.exists():
        before = json.loads(BEFORE.read_text())
        out += [
            "### Per path (1 KB), before and after",
            "",
            f"Before: `{before['command']}` at commit {before['commit']} ({before['generated_at']}): default limits off, one batch at a time, "
            "17-byte answers, Lambda as wall time under in-process moto, no storage or transfer lines.",
            "",
            path_table(before["per_path"]["1KB"]),
            "",
            f"After: {made[0].lower()}{made[1:]}",
            "",
            path_table(cost["per_path"]["1KB"]),
            "",
            "Totals before and after (USD per million delivered):",
            "",
            markdown_table(
                ["configuration", "before", "after"],
                [
                    [
                        "/".join(k),
                        f"${before['totals'].get(k[0], {}).get(k[1], {}).get(k[2], 0):.2f}"
                        if k[2] in before["totals"].get(k[0], {}).get(k[1], {})
                        else "(not measured)",
                        f"${current['/'.join(k)]['total']:.2f}",
                    ]
                    for k in HEADLINE
                    if "/".join(k) in current
                ],
            ),
            "",
            "What moved: DynamoDB writes per attempt (a lost conditional write is a billed write; the 1 KB failure body makes the "
            "attempt item 2 WRU; the breaker write after a failure), the Lambda line (now the modelled wait on the receiver and a "
            "fresh TLS connection, and CPU at Lambda's 512 MB share, instead of loopback wall time), and the new storage, PITR and "
            "transfer lines.",
            "",
        ]
    return out


def honest_sections(cost: Cost, made: str) -> list[str]:
    """The cost section's detail: beside EventBridge, the duration model, stability, a side-by-side change, before and after."""
    return [*eventbridge_lines(cost), *duration_model_section(cost), *stability_section(cost), *side_by_side_section(cost), *before_after_section(cost, made)]


def handshakes(cost: Cost) -> list[str]:
    """Connections opened per delivered webhook, of the headline configurations (bench.measurement.meter.Units.handshakes)."""
    rows = cost["per_million_usd"]
    shown = [
        ["/".join(k), f"{r['units']['handshakes'] / 1e6:.3f}"]
        for k in HEADLINE
        if (r := rows.get(k[0], {}).get(k[1], {}).get(k[2])) is not None and "handshakes" in r["units"]
    ]
    if not shown:
        return ["Connections opened per webhook: not counted in this run (each POST was charged a new connection).", ""]
    return [
        f"Connections opened per delivered webhook. The client keeps a connection alive for `HOOKLINE_KEEPALIVE_SECONDS` "
        f"({Settings().keepalive_seconds:g} s) after its last use, per (scheme, host, port, vetted address), and the receivers here close one "
        f"unused for {connections.RECEIVER_IDLE_SECONDS:g} s (Node's default): the meter counts a send as reusing "
        "its endpoint's connection when this process sent to that endpoint within the shorter of the two, every endpoint taken as a host of "
        "its own. One process stands for one warm Lambda instance: where K instances share an endpoint's traffic, each needs a "
        "send to it every few seconds to keep its connection, so an endpoint at 1 webhook a second or more pays about one "
        "handshake per instance per keep-alive, not per webhook.",
        "",
        markdown_table(["configuration", "handshakes per webhook"], shown),
        "",
    ]


def cost_section(cost: Cost, plots: dict[str, str], rel: str, made: str) -> list[str]:
    rows = []
    for size, by_rate in cost["per_million_usd"].items():
        for rate, by_ingest in by_rate.items():
            for ingest, r in by_ingest.items():
                top = r["largest"]
                rows.append(
                    [
                        size,
                        rate,
                        ingest,
                        f"${r['total']:.2f}",
                        f"{top} ${r['breakdown'][top]:.2f}",
                        f"${r['total_when_batches_share_an_endpoint']:.2f}",
                        f"${r['eventbridge_api_destinations']:.2f}",
                        f"{r['ratio_to_eventbridge']:.2f}",
                    ]
                )
    breakdown_rows = []
    one = cost["per_million_usd"]["1KB"]["98.5%"]["batch"]
    for service, dollars in one["breakdown"].items():
        breakdown_rows.append([service, f"${dollars:.3f}"])
    return [
        "## Cost per million delivered webhooks",
        "",
        "The real handlers run each path under moto (`bench/models/cost.py`) while a botocore event hook (`bench/measurement/meter.py`)",
        "counts every AWS call: DynamoDB writes are billed on the larger of the item's size before and after",
        "(failed conditional writes included, GSI writes added), reads on what came back; SQS and SNS requests in 64 KB",
        "chunks, including the event source mapping's receive and delete per batch; a Step Functions wait as its",
        "two state transitions plus its SQS send; Lambda as requests and GB-seconds from the duration model below at",
        "the configured memory (endpoints at the default limits, two batches at once, 200 B / 1 KB answers); API Gateway",
        "per request; CloudWatch Logs from the bytes the handlers printed, plus Lambda's own START/END/REPORT",
        "lines. Prices: `bench/models/prices.py` (us-east-1 list). The mix of paths per webhook comes from",
        "`hookline.core.policy.decide` with independent failures (503) at the given first-attempt success rate; each",
        "event has one subscribed endpoint, and each batch of ten tasks spans ten endpoints (the expensive case).",
        "",
        markdown_table(
            ["payload", "first-attempt success", "ingest", "hookline", "largest line", "if batches share an endpoint", "EventBridge API destinations", "ratio"],
            rows,
        ),
        "",
        "Breakdown, 1 KB, 98.5 %, batched ingest:",
        "",
        markdown_table(["service", "USD per million"], breakdown_rows),
        "",
        "Per path (1 KB), units per occurrence (Lambda in GB-ms):",
        "",
        path_table(cost["per_path"]["1KB"]),
        "",
        *honest_sections(cost, made),
        *provisioned_section(cost),
        *floor_section(cost),
        *reading_costs(cost, plots, rel, made),
    ]


def reading_costs(cost: Cost, plots: dict[str, str], rel: str, made: str) -> list[str]:
    """What the cost tables say, line by line, and the plot."""
    hop = cost["per_path"]["1KB"]["defer_breaker"]["usd_per_million"]
    ingest1 = cost["per_path"]["1KB"]["ingest_single"]["units"]["dynamodb_write_units"]
    ingest16 = cost["per_path"].get("16KB", cost["per_path"]["1KB"])["ingest_single"]["units"]["dynamodb_write_units"]
    return [
        "Reading it:",
        "",
        "- **DynamoDB is the biggest line.** A delivered webhook writes the event at ingest (its pending delivery is",
        "  only planned on it), then per first-attempt success the endpoint's limiter twice (take and give back its",
        "  concurrency lease; the give-back carries the endpoint's statistics of the hour), and the delivery's item with",
        "  the attempt on it; the breaker only after a failure, a claim only for a task that may have a twin. When a",
        "  batch's tasks share an endpoint, the limiter's writes are shared too (the 'if batches share an endpoint' column).",
        "- **Batched ingest** (`POST /v1/events/batch`) removes almost all of API Gateway's and the ingest Lambda's",
        "  share: one request for up to 100 events.",
        f"- **16 KB payloads** cost more mostly in DynamoDB: with the body stored compressed, ingest writes {ingest16:g} WRU for",
        f"  16 KB against {ingest1:g} for 1 KB, and each attempt reads the body back.",
        "- **A wait in Step Functions** (longer than 15 minutes) costs two state transitions, $50 per million, against",
        f"  ${hop:.2f} per million for a re-schedule through an SQS delay (the measured `defer_breaker` path): every wait",
        "  of 15 minutes or less is an SQS delay. With independent failures almost no retry waits longer, but during a",
        "  long outage every parked task is re-scheduled while the breaker stays open: deferrals of up to two hours go",
        "  through SQS hops of at most 15 minutes instead of Step Functions (cheaper for waits up to about 12 hours,",
        "  at the price of more passes through the retry function).",
        "- **Receiver latency** is billed Lambda time: requests of a batch run side by side, so the batch waits for its",
        "  slowest answer plus a fresh TLS connection (see the duration model above).",
        "- EventBridge API destinations is cheaper per delivered webhook, and offers no per-endpoint breaker,",
        "  limits that adapt to 429s, time-window replay or a delivery log; hookline's figure is what AWS charges",
        "  for the parts it uses, with no servers.",
        "- Not counted: KMS (DynamoDB and SQS cache data keys, a few requests per key per 5 minutes), X-Ray",
        "  traces (the retry state machine's, and the functions' only with HOOKLINE_TRACING on; off by default), custom",
        "  metrics (a fixed monthly cost per metric), idle SQS long polls and the authorizer (cached",
        "  for 300 s per key).",
        "",
        f"![Cost per million, by service]({rel}/{plots['cost']})",
        "",
        made,
        "",
    ]
