"""The waits section: what the waits of a delivery failing every attempt cost, term by term (bench.models.waits)."""

from __future__ import annotations

from typing import Any

from bench.report.tables import markdown_table


def _units(units: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in units.items())


def waits_section(waits: dict[str, Any] | None, prices: dict[str, float]) -> list[str]:
    if not waits:
        return []
    now, before = waits["per_delivery"], waits["before_per_delivery"]
    terms, before_terms = waits["terms_usd"], waits["before_terms_usd"]
    hour = waits["hops_up_to_seconds"] / 3600
    rows = [
        [
            "hops beyond each wait's first send",
            f"{now['hops']:.2f} × ${waits['hop_usd_per_million']:.4f}",
            f"${terms['hops']:.2f}",
            f"{before['hops']:.2f}",
            f"${before_terms['hops']:.2f}",
        ],
        [
            "claims of an attempt out of a hop or a Step Functions wait",
            f"{now['claimed']:.2f} × ${waits['claim_usd_per_million']:.2f}",
            f"${terms['claims']:.2f}",
            f"{before['claimed']:.2f}",
            f"${before_terms['claims']:.2f}",
        ],
        [
            "waits in Step Functions",
            f"{now['stepfunctions']:.2f} × ${waits['stepfunctions_wait_usd_per_million']:.2f}",
            f"${terms['stepfunctions']:.2f}",
            f"{before['stepfunctions']:.2f}",
            f"${before_terms['stepfunctions']:.2f}",
        ],
        [
            "**total**",
            "",
            f"**${waits['usd_per_million_failing_deliveries']:.2f}**",
            "",
            f"**${waits['before_usd_per_million_failing_deliveries']:.2f}**",
        ],
    ]
    return [
        "### Waits of a delivery that fails every attempt",
        "",
        f"`cost.waits.usd_per_million_failing_deliveries`: **${waits['usd_per_million_failing_deliveries']:.2f}** per million deliveries whose",
        f"receiver fails all {waits['attempts']} attempts of the default schedule (goal ≤ ${waits['goal_usd']:g}), against",
        f"${waits['before_usd_per_million_failing_deliveries']:.2f} with every wait over 900 s in Step Functions (HOOKLINE_SQS_HOPS_UP_TO_SECONDS=0).",
        f"Such a delivery waits {now['waits']:g} times, each wait drawn by `hookline.core.policy.decide` and taken as",
        "`hookline.core.waits.how_to_wait` takes it: a wait up to 900 s is one SQS delay, a longer one up to",
        f"{hour:g} h hops through the retry queue (at most 900 s a hop, queued again by the retry function without an attempt",
        "until due), a longer one waits in Step Functions. A wait's first send is in its failed attempt's path",
        "(`attempt_fail_sqs`); what a wait adds is priced from the measured paths and `bench/models/prices.py`:",
        "",
        f"- a hop (`wait_hop`, measured): {_units(waits['hop_units'])}: SQS {waits['hop_units'].get('sqs_requests', 0):g} requests × "
        f"${prices['sqs_request'] * 1e6:.2f} per million (a send in a SendMessageBatch of ten, and the event source's receive and delete, each",
        f"shared by ten) + {waits['hop_units'].get('lambda_requests', 0):g} invocations × ${prices['lambda_request'] * 1e6:.2f} per million + its",
        f"GB-seconds and logs = ${waits['hop_usd_per_million']:.4f} per million hops;",
        f"- a claim: the attempt after a hop or a Step Functions wait claims (a conditional write, charged 2 write units × ${prices['dynamodb_write_unit'] * 1e6:.3f}",
        f"per million = ${waits['claim_usd_per_million']:.2f}) where a fresh task reads;",
        f"- a wait in Step Functions (`attempt_fail_sfn` − `attempt_fail_sqs`, measured): {_units(waits['stepfunctions_wait_units'])}:",
        f"2 transitions × ${prices['sfn_transition'] * 1e6:.0f} per million and the wait's note = ${waits['stepfunctions_wait_usd_per_million']:.2f} per million waits.",
        "",
        markdown_table(["term", "per delivery × USD per million", "USD per million", "hops off: per delivery", "hops off: USD per million"], rows),
        "",
    ]
