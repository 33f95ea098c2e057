"""Accept-to-receiver latency: measured in local mode, and the AWS model's terms and figures (bench/models/latency.py)."""

from __future__ import annotations

import math
from typing import Any

from bench.report.tables import markdown_table

SOURCES = (
    "SQS long polling consumes messages as soon as they become available: https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/best-practices-using-appropriate-polling-mode.html",
    "Lambda polls the queue and invokes the function synchronously with a batch: https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html",
    "MaximumBatchingWindowInSeconds defaults to 0 for SQS: https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html",
    "the window is the most time Lambda spends gathering records before it invokes: https://docs.aws.amazon.com/sdk-for-kotlin/api/latest/lambda/aws.sdk.kotlin.services.lambda.model/-get-event-source-mapping-response/maximum-batching-window-in-seconds.html",
    "One vCPU at 1,769 MB, a proportional share below: https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory-computing.html",
)


def _spread(term: dict[str, Any]) -> str:
    return "fixed" if not term["sigma"] else f"lognormal, sigma {term['sigma']:g}"


def latency_section(found: dict[str, Any] | None, made: str) -> list[str]:
    if not found:
        return []
    local, aws = found["local"], found["aws_model"]
    measured = [
        ["p50 (ms)", local["p50_ms"]],
        ["p99 (ms)", local["p99_ms"]],
        ["max (ms)", local["max_ms"]],
        ["the POST's own answer, p50 (ms)", local["post_answer_p50_ms"]],
    ]
    if "from_the_202_p50_ms" in local:
        measured += [
            ["from the 202's return instead, p50 (ms)", local["from_the_202_p50_ms"]],
            ["from the 202's return instead, p99 (ms)", local["from_the_202_p99_ms"]],
            ["the machine's load average (1 min) at the end", local["load_average_1m"]],
        ]
    terms = [
        [
            t["what"] + (" (after the arrival)" if t["after_arrival"] else ""),
            f"{t['median_ms']:g}",
            t["times"],
            f"{t['chance']:g}",
            _spread(t),
            t["source"],
        ]
        for t in aws["terms"]
    ]
    figures = [
        ["p50, warm (ms)", aws["p50_ms"], f"<= {aws['goal_p50_ms']:g}", "yes" if aws["p50_ms"] <= aws["goal_p50_ms"] else "NO"],
        ["p99, warm (ms)", aws["p99_ms"], f"<= {aws['goal_p99_ms']:g}", "yes" if aws["p99_ms"] <= aws["goal_p99_ms"] else "NO"],
        ["p99, one cold start in 100 invocations of each function (ms)", aws["p99_ms_one_cold_start_in_100"], "", ""],
        ["to the answer read, p50 / p99, warm (ms)", f"{aws['answered_p50_ms']:g} / {aws['answered_p99_ms']:g}", "", ""],
    ]
    warm = [t for t in aws["terms"] if not t["after_arrival"] and "cold start" not in t["what"]]
    cold = [t for t in aws["terms"] if "cold start" in t["what"]]

    def share(t: dict[str, Any]) -> float:
        return round(t["median_ms"] * t["times"] * t["chance"], 1)

    largest = max(warm, key=share)
    warm_sum = round(sum(share(t) for t in warm), 1)
    meet_cold = 1 - math.prod(1 - t["chance"] for t in cold)
    return [
        "## Latency: from `POST /v1/events` to the receiver",
        "",
        f"**Measured in local mode** (`bench/measurement/latency.py`): `local.run.LocalHookline` with its default settings, {local['events']:,}",
        f"single `POST /v1/events` at {local['rate_per_second']:g} a second (each at its time, or at once when the previous answer came later:"
        f" {local.get('sent_per_second', local['rate_per_second']):g} a second sent)",
        f"to one endpoint whose receiver answers 200 after {local['receiver_ms']:g} ms and notes when each request arrives. Accept time is",
        f"{local['accept_time']}: the producer's wait, the ingest's own work included. Local mode runs the API, the pollers and moto in one",
        "Python process on this machine (and a poller holds off its next batch while a request is being answered,",
        "`local/priority.py`), so these figures are local mode's, not AWS's.",
        "",
        markdown_table(["", "local mode"], measured),
        "",
        "**Modelled on AWS** (`bench/models/latency.py`): the terms below, one after another, drawn "
        f"{aws['samples']:,} times (seed {aws['seed']}); a term with a chance below 1 happens on that share of paths, `times` is how",
        "many in a row. CPU figures are this run's (at full speed here), stretched to the function's share of a vCPU; the ingest's",
        f"AWS calls are counted on one warm `POST /v1/events` ({', '.join(found['ingest_calls'])}), the SQS send last; the",
        "delivery's calls before the POST are the read and the limiter's grant (the record follows the answer). The receiver's",
        "answer follows the arrival: it is in the answered figure only.",
        "",
        markdown_table(["term", "median (ms)", "times", "chance", "spread", "source"], terms),
        "",
        markdown_table(["", "modelled", "goal", "met"], figures),
        "",
        f'Which term dominates: warm, the largest is "{largest["what"]}", {share(largest):g} ms',
        f"({100 * share(largest) / warm_sum:.0f} %) of the {warm_sum:g} ms the warm medians add to. With cold starts, the import:",
        ", ".join(f"{t['what']} {t['median_ms']:.0f} ms" for t in cold) + " (the import's CPU stretched to the function's share",
        f"of a vCPU; Lambda's own init, the runtime and the code download, not counted), each once in a hundred invocations, so {100 * meet_cold:.1f} % of events meet one, which puts one in the p99.",
        "A batching window would add its whole length to every event at a producer's pace (a batch of 10 does not fill), so the",
        "delivery queue's window stays 0 (HOOKLINE_DELIVERY_BATCH_WINDOW_SECONDS).",
        "",
        "Sources: " + "; ".join(SOURCES) + ". API Gateway's and the event source's invoke hops are assumed (AWS publishes no figure).",
        "",
        f"Measured on {found['generated_at']} by `python -m bench.measurement.latency`." if "generated_at" in found else made,
        "",
    ]
