"""An ordered (FIFO) endpoint's throughput, bound and measured."""

from __future__ import annotations

from typing import Any

from bench.report.tables import markdown_table, measured_by


def ordered_section(o: dict[str, Any] | None, made: str) -> list[str]:
    """An ordered (FIFO) endpoint's throughput, bound and measured (bench/measurement/ordered.py)."""
    if not o:
        return []
    lm = o["lambda_model"]
    bound_rows = [[f"{ms} ms", f"{b['here_per_second']:.1f}", f"{b['on_lambda_per_second']:.1f}"] for ms, b in o["bound"].items()]
    return [
        "## Throughput of an ordered (FIFO) endpoint",
        "",
        'An endpoint created with `"ordered": true` has its tasks on the ordered lane (`topology.ORDERED_QUEUE`, SQS FIFO,',
        "the endpoint its message group), consumed by the `ordered` function, which delivers one endpoint's records one",
        "after another, in order (`hookline.entrypoints.delivery.handle_ordered_batch`). A FIFO event source never runs",
        "two batches of one message group at once, so one ordered endpoint has one attempt in flight whatever the",
        "concurrency: at most 1 / (receiver latency + per-attempt overhead) deliveries per second. Several ordered",
        f"endpoints run side by side: up to `HOOKLINE_ORDERED_CONCURRENCY` = {o['ordered_concurrency']} invocations at once, each taking a",
        f"batch of up to {o['ordered_batch_size']} messages whose endpoints' lines run side by side.",
        "",
        "### The bound",
        "",
        markdown_table(["receiver latency", "one ordered endpoint, deliveries/s (overhead measured here)", "on Lambda (the duration model)"], bound_rows),
        "",
        f"Measured here: {o['overhead_ms_per_attempt']:g} ms per attempt besides the receiver's answer (the least of the ordered",
        "runs below: the time per delivery less the receiver's delay, moto server answering the handler's AWS calls). On",
        f"Lambda, by `bench/models/duration.py`'s stated model: the handler's CPU per attempt at a {lm['memory_mb']} MB function's share",
        f"of a vCPU ({lm['memory_mb']}/{lm['lambda_mb_per_vcpu']:,}), {lm['aws_calls_per_attempt']:g} AWS calls in a row at {lm['aws_call_ms']:g} ms,"
        f" and a new connection per POST ({lm['connect_ms']:g} ms):",
        f"{lm['overhead_ms_per_attempt']:g} ms. The CPU figure is this process's ({lm['cpu_ms_per_attempt']:g} ms per attempt, the least of the",
        "runs): it includes the pollers and the receiver, and this machine was busy, so that column errs low. Not in either:",
        "the event source's own receive and delete between two batches of a group on Lambda.",
        "",
        *measured_section(o, made),
    ]


def measured_section(o: dict[str, Any], made: str) -> list[str]:
    """The ordered and unordered runs against moto server, each one's drain timed."""
    run_rows = []
    ratios = []
    for ms, runs in o["runs"].items():
        for name, r in runs.items():
            label = {"ordered": "one ordered endpoint", "unordered": "one unordered endpoint"}.get(name, f"{r['endpoints']} ordered endpoints")
            run_rows.append(
                [
                    f"{ms} ms",
                    label,
                    f"{r['delivered']}/{r['events']}",
                    f"{r['elapsed_s']:.2f}",
                    r["deliveries_per_second"],
                    r["per_endpoint_per_second"],
                    "yes" if r["in_order"] else "no",
                    r["most_batches_of_a_group_in_flight"] if name != "unordered" else "(no groups)",
                    r.get("overhead_ms_per_attempt", ""),
                    "" if r.get("aws_calls_per_delivery") is None else r["aws_calls_per_delivery"],
                    r["cpu_ms_per_delivery"],
                ]
            )
        if runs["unordered"]["deliveries_per_second"]:
            ratios.append(f"{runs['ordered']['deliveries_per_second'] / runs['unordered']['deliveries_per_second']:.2f} times ({ms} ms)")
    return [
        "### Measured",
        "",
        f"The real handlers against moto server (a process of its own), fed by local mode's SQS poller, {o['pollers']} pollers at",
        f"once on each lane, a local receiver answering after the stated delay; {o['events']} events to one ordered endpoint, the",
        "same to one unordered endpoint, and spread over several ordered endpoints; each run times the drain, ingest done",
        f"before. Every endpoint has limits that do not pace it ({o['limits']['rate_limit_per_second']}/s,"
        f" {o['limits']['max_concurrency']} in flight, where it starts). The",
        "pollers take turns at ReceiveMessage: moto server answers two at once without a lock, and can then hand one",
        "message group to both (a first run saw two batches of one ordered endpoint in flight and its requests out of",
        "order), which SQS never does.",
        "",
        markdown_table(
            [
                "receiver",
                "run",
                "delivered",
                "elapsed (s)",
                "deliveries/s",
                "per endpoint/s",
                "in order",
                "most batches of a group in flight",
                "overhead per attempt (ms)",
                "AWS calls per delivery",
                "CPU per delivery (ms)",
            ],
            run_rows,
        ),
        "",
        f"One ordered endpoint made {' and '.join(ratios)} the deliveries per second of one unordered endpoint, whose",
        "requests arrived out of order (its batches run side by side). This is an emulator on this machine: moto answers",
        "the handlers' AWS calls in Python, and the handler, the pollers and the receiver share two cores with moto server",
        "and with whatever else runs, so the absolute figures are this machine's; the shape (one attempt at a time per",
        "ordered endpoint, one batch of a group in flight, the order kept) is the design's. An ordered attempt makes its",
        "AWS calls one after another and spends several times the CPU of an unordered delivery, whose batch shares its",
        "endpoint's reads and writes. Several ordered endpoints gain less than their number here: moto hands out the",
        "queue's oldest messages whatever their group (SQS returns as many of one group's as it can), so each batch held",
        "every endpoint's line, run side by side on this machine's CPU.",
        "",
        "SQS's own quota does not bind an ordered endpoint: a FIFO queue in high-throughput mode (as the ordered queue is",
        "created: `DeduplicationScope=messageGroup`, `FifoThroughputLimit=perMessageGroupId`) stores a message group in one",
        f"partition, and a partition takes {o['sqs_fifo_per_group_tps']} transactions per second per API action (SendMessage,",
        "ReceiveMessage, DeleteMessage; 3,000 messages with batches), far above the bound. Sources: the Amazon SQS",
        "Developer Guide, [message quotas](https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html)",
        "and [partitions and data distribution](https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/partitions-and-data-distribution.html).",
        "",
        measured_by(o, made),
        "",
    ]
