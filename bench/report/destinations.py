"""Cost per million of each destination type beside HTTP: hookline's side, the customer's, the total."""

from __future__ import annotations

from typing import Any

from bench.report.tables import markdown_table, measured_by

DESTINATION_SHOWN = (("1KB", "98.5%", "batch"), ("16KB", "98.5%", "batch"))


def _units_of(carried: int, unit: int) -> int:
    return max(1, -(-carried // unit))


def _carried(size: str, put_bytes: dict[str, int]) -> str:
    """What one put of each type carries, and the units its price counts (64 KB; a Kinesis record's 25 KB)."""
    parts = []
    for kind, b in put_bytes.items():
        if kind == "s3":
            parts.append(f"s3 {b:,} B (one PUT)")
        else:
            unit = 25 if kind == "kinesis" else 64
            parts.append(f"{kind} {b:,} B ({_units_of(b, unit * 1024)} x {unit} KB)")
    return f"{size.replace('KB', ' KB')}: " + ", ".join(parts)


def destination_rows(d: dict[str, Any]) -> list[list[str]]:
    """Each destination type's row, per shown payload: hookline's figure, the customer's lines, the total, and how it is known."""
    rows: list[list[str]] = []
    for size, rate, ingest in DESTINATION_SHOWN:
        found = d["sizes"].get(size, {}).get("per_million_usd", {}).get(rate, {}).get(ingest)
        for kind, r in (found or {}).items():
            lines = "; ".join(f"{name} ${v:.3f}" for name, v in r["customer_lines"].items())
            how = "measured (the cost section)" if kind == "http" else "measured" if kind in d["measured"] else "derived: the SQS path, this type's put price"
            rows.append(
                [
                    size.replace("KB", " KB"),
                    kind,
                    f"`{d['puts'][kind]}`",
                    f"${r['hookline']:.2f}",
                    f"${r['customer']:.3f}" + (f" ({lines})" if lines else " (the receiver's own)"),
                    f"${r['total']:.2f}",
                    how,
                ]
            )
    return rows


def destinations_section(d: dict[str, Any] | None, made: str, cost_paths: dict[str, Any] | None = None) -> list[str]:
    """Cost per million of each destination type beside HTTP (bench/measurement/destinations.py): hookline's side, the customer's, the total."""
    if not d:
        return []
    rows = destination_rows(d)
    one = d["sizes"].get("1KB") or next(iter(d["sizes"].values()))
    difference = one["difference_per_million"]
    change = sum(difference.values())
    diff_rows = [[service, f"{v:+.3f}"] for service, v in sorted(difference.items(), key=lambda kv: kv[1]) if abs(v) >= 0.0005]
    diff_rows.append(["total", f"{change:+.3f}"])
    paths = one["paths"]
    calls = one["calls_in_run"]
    http_path = (cost_paths or {}).get("1KB", {}).get("attempt_ok", {}).get("usd_per_million")
    per_call = ", ".join(f"`{name}` {n:g}" for name, n in one["calls_per_delivery"].items())
    return [
        "## Cost per million by destination type",
        "",
        "An endpoint delivers over HTTP, or into a resource in the customer's own AWS account through a role hookline",
        "assumes (`hookline.core.destinations`, `hookline.adapters.destinations`). hookline's own path (API Gateway, the",
        "ingest Lambda, DynamoDB, SQS, the delivery Lambda, logs) is the same for every type. What differs is the successful",
        "attempt: an AWS put instead of an HTTP POST (no connection to open, no receiver to wait on, and no data transfer",
        "out of AWS for a put in the stack's region), and the put is billed to the resource's owner, the customer.",
        "",
        "`bench/measurement/destinations.py` measures a successful attempt to ten HTTP endpoints and to ten SQS queues in another",
        f"account ({d['customer_account']}, through the role hookline assumes), alike in everything else, with the cost",
        "section's meter (which also hooks the destination adapter's own boto3 session), and the handlers' CPU per attempt",
        "of each, out of process. hookline's figure for a type is the cost section's HTTP figure with each successful",
        "attempt's cost replaced by the SQS destination's (the difference below). SNS, EventBridge, Kinesis and S3 are",
        "*derived*: priced as the same path, their put being one AWS call as SendMessage is, at their own put price for the",
        "bytes each one's layout carries (computed with hookline's layout functions from the SQS message the run sent).",
        "Failed attempts keep HTTP's measured cost (their bytes out and the receiver's wait included): an upper bound for a",
        "failed put.",
        "",
        markdown_table(["payload", "destination", "one delivery calls", "hookline", "billed to the customer's account", "total", "how"], rows),
        "",
        "USD per million delivered webhooks, first-attempt success 98.5 %, batched ingest (every combination is in",
        "`bench/results.json` under `destinations`). The customer's column is billed to the customer's account, not to hookline's.",
        "",
        "What an SQS put changes on hookline's side, per million successful attempts (1 KB; measured in this run at"
        f" ${paths['attempt_ok']['usd_per_million']:.2f} for the HTTP attempt and ${paths['attempt_ok_sqs']['usd_per_million']:.2f} for the put"
        + (f"; the cost section's own run measured the HTTP attempt at ${http_path:.2f}):" if http_path is not None else "):"),
        "",
        markdown_table(["line", "USD per million"], diff_rows),
        "",
        f"Measured calls into the customer's account, per delivery: {per_call}, and no other call. `AssumeRole`:"
        f" {calls.get('sts.AssumeRole', 0)} calls in the whole run for {one['endpoints']} endpoints, one per role and external id, at each endpoint's"
        f" first put; none in the {one['deliveries']} measured deliveries (the credentials are cached). The customer's queue holds"
        f" {one['queue_messages']} messages for {calls.get('sqs.SendMessage', 0)} `SendMessage` calls.",
        "",
        "What one put carries (the webhook's exact body and its signature headers; EventBridge's detail holds the body",
        "twice, as the signed text and as `payload` for rules to match on), and the units each type is billed in:",
        "",
        *[f"- {_carried(size, v['put_bytes'])}" for size, v in d["sizes"].items()],
        "",
        *reading_destinations(d, made),
    ]


def reading_destinations(d: dict[str, Any], made: str) -> list[str]:
    """What the destination figures say: hookline's side, the customer's, AssumeRole and the first put."""
    prices = d["prices"]
    one = d["sizes"].get("1KB") or next(iter(d["sizes"].values()))
    change = sum(one["difference_per_million"].values())
    settle = (one.get("settle") or {}).get("attempt_ok_sqs") or {}
    cpu = (d.get("cpu") or {}).get("1KB", {}).get("ms", {})
    return [
        "Reading it:",
        "",
        f"- **hookline's side.** An SQS put costs hookline ${abs(change):.2f} per million {'less' if change < 0 else 'more'} than an HTTP POST:",
        "  no data transfer out, and Lambda no longer waits on a new connection and the receiver's answer but on one AWS",
        f"  call; the handler spends {cpu.get('attempt_ok_sqs', 0):.1f} ms of CPU per put against {cpu.get('attempt_ok', 0):.1f} ms per POST (the",
        "  fastest of the runs, on this machine while it was busy: both higher than on a quiet one). The other lines move",
        "  within the run's noise (lost conditional writes are a matter of timing). The duration model charges every put",
        f"  one AWS call, 5 ms; each further 10 ms a put takes adds ${d['per_10ms_more_per_put']:.4f} per million (S3 PutObject and",
        "  Kinesis PutRecord usually take longer than SendMessage: not measured here).",
        f"- **The customer's side.** SQS ${prices['sqs_request']:.2f} per million requests of 64 KB (a FIFO queue ${prices['sqs_fifo_request']:.2f});",
        f"  SNS ${prices['sns_publish']:.2f} per million publishes of 64 KB, its deliveries to SQS queues free; EventBridge"
        f" ${prices['eventbridge_put_event']:.2f} per million",
        f"  events of 64 KB; Kinesis (provisioned) ${prices['kinesis_put_payload_unit']:.3f} per million PUT payload units of 25 KB,"
        f" plus ${prices['kinesis_shard_hour']:.3f} per",
        f"  shard-hour (${d['kinesis_shard_month']:.2f} a month per shard), the stream owner's fixed cost whatever hookline sends; S3"
        f" ${prices['s3_put_request']:.2f} per",
        f"  million PUTs plus ${prices['s3_standard_gb_month']:.3f} per GB-month of storage (one month counted above). What the customer's consumers then",
        "  pay to read is their own. Prices: `bench/models/prices.py` (us-east-1 list).",
        f"- **AssumeRole** is free (STS). Its cost is latency: one call per Lambda instance and endpoint every {d['role_session_seconds'] // 60 - 5} minutes",
        f"  (credentials of {d['role_session_seconds'] // 60} minutes, renewed 5 minutes before they expire), on that delivery.",
        "- **The first put.** An endpoint's first put on an instance also assumes the role and builds the client, and that",
        f"  time is the attempt's latency: here a median of {settle.get('first_round_latency_ms', 0):g} ms (in-process moto on this machine), and"
        f" {settle.get('first_round_on_retry_lane', 0)} of the {one['endpoints']}",
        "  endpoints were then served from the retry lane (a latency baseline of 500 ms or more) until the baseline fell,",
        f"  after {settle.get('rounds', 0)} rounds of deliveries. The figures above are the steady state after that.",
        "- Not counted: a destination encrypted with the customer's KMS key (KMS requests, billed to the customer), and one",
        "  in another region than the stack's (inter-region data transfer, billed to hookline).",
        "",
        measured_by(d, made),
        "",
    ]
