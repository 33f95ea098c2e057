"""Accept-to-receiver latency on AWS, modelled from named terms: what a producer waits from the start of its
`POST /v1/events` until the receiver has the webhook's request.

The path, one term after another (each a lognormal latency: a median and a spread, 0 for a fixed time):
- API Gateway's HTTP API takes the request and invokes the API function (`gateway_ms`, assumed; the authorizer's
  answer is cached for HOOKLINE_AUTHORIZER_CACHE_SECONDS, so a producer that keeps sending does not wait on it);
- the API function's CPU for one 1 KB event (`make bench`'s `api.request_cpu`, at full speed on this machine),
  stretched to its share of a vCPU (one vCPU at 1,769 MB, `bench.models.duration.LAMBDA_MB_PER_VCPU`);
- its AWS calls, one after another, the last the SQS send that queues the delivery task (counted by
  `bench.measurement.latency.ingest_calls`), `aws_call_ms` each; the 202 goes back to the producer after it, off
  this path;
- the delivery function's event source mapping: its pollers long-poll the queue, and a long poll returns as soon as
  a message is available ("Using the appropriate polling mode in Amazon SQS",
  https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/best-practices-using-appropriate-polling-mode.html);
  the window, MaximumBatchingWindowInSeconds, is the most time Lambda spends gathering records before it invokes the
  function (Lambda's API reference, as the SDKs print it), 0 by default for SQS ("Lambda parameters for Amazon SQS
  event source mappings", https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-parameters.html) and in the
  stack (HOOKLINE_DELIVERY_BATCH_WINDOW_SECONDS), so Lambda invokes the function synchronously with what the
  receive returned ("Using Lambda with Amazon SQS", https://docs.aws.amazon.com/lambda/latest/dg/with-sqs.html). A window of w seconds would add w whenever
  the batch does not fill in it, as at a producer's pace it does not. The receive is one AWS call; the synchronous invoke
  (`invoke_ms`) is assumed;
- the delivery function's CPU per task (`cost.duration_model`'s `attempt_ok`: the whole attempt, the record after
  the answer too, so an upper bound), stretched the same way;
- its AWS calls in a row before the POST: the read of the batch's endpoints, breakers and limiters, then the
  limiter's grant (the measured calls in a row at batch 10, `throughput.stand_in`, less the record that follows the
  answer);
- the POST: a DNS lookup (the SSRF guard resolves every send), a TCP and TLS handshake on the share of sends that
  find no kept connection (`connections.goal_row.per_webhook`), and half a round trip to the receiver.

The receiver's own answer time follows the request's arrival, so it is not in the latency; `answered_*` add it and
the answer's half round trip back (the delivery is done when the answer is read).

A cold start adds the function's import time, stretched to its share of a vCPU, to its invocation: with one cold
start in a hundred invocations of each function on the path (the API function's and the delivery function's), about
2 % of events meet one, so the p99 does.

`quantiles` is pure: it draws `SAMPLES` sums of the terms with a fixed seed, so the same terms give the same figures.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.models.duration import ASSUMED, LAMBDA_MB_PER_VCPU
from hookline.core.settings import Settings
from hookline.wiring import topology

SAMPLES = 20_000
SEED = 52
GATEWAY_MS = 10.0  # API Gateway's HTTP API to its Lambda integration: assumed (AWS publishes no figure)
INVOKE_MS = 10.0  # the event source mapping's synchronous invoke of a warm function: assumed (AWS publishes no figure)
SPREAD = 0.5  # lognormal sigma of every assumed network latency (p99 = 3.2x the median), as duration.Assumptions'
COLD_IN = 100  # one cold start in this many invocations of a function
GOAL_P50_MS = 150.0
GOAL_P99_MS = 600.0


@dataclass(frozen=True)
class Term:
    """One latency on the path: `median_ms` (lognormal with spread `sigma`; 0 is a fixed time), `times` in a row,
    with probability `chance` (else 0), `after_arrival` when it follows the request's arrival at the receiver."""

    name: str
    median_ms: float
    source: str
    sigma: float = 0.0
    times: int = 1
    chance: float = 1.0
    after_arrival: bool = False

    def draw(self, rng: random.Random) -> float:
        total = 0.0
        for _ in range(self.times):
            if self.chance >= 1.0 or rng.random() < self.chance:
                total += self.median_ms * (math.exp(rng.gauss(0.0, self.sigma)) if self.sigma else 1.0)
        return total

    def median_total_ms(self) -> float:
        """The term's share of the median path, as the report's table shows it: median x times x chance."""
        return self.median_ms * self.times * self.chance


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted samples (nearest rank)."""
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def quantiles(terms: Sequence[Term], samples: int = SAMPLES, seed: int = SEED) -> dict[str, float]:
    """p50 and p99 of the latency to the request's arrival and to the answer read, over `samples` draws of `terms`."""
    rng = random.Random(seed)
    arrive, answered = [], []
    for _ in range(samples):
        before = after = 0.0
        for term in terms:
            value = term.draw(rng)
            if term.after_arrival:
                after += value
            else:
                before += value
        arrive.append(before)
        answered.append(before + after)
    arrive.sort()
    answered.sort()
    return {
        "p50_ms": round(_quantile(arrive, 0.5), 1),
        "p99_ms": round(_quantile(arrive, 0.99), 1),
        "answered_p50_ms": round(_quantile(answered, 0.5), 1),
        "answered_p99_ms": round(_quantile(answered, 0.99), 1),
    }


def stretch(cpu_ms: float, memory_mb: int) -> float:
    """CPU ms at full speed, as a function of `memory_mb` runs it (its share of a vCPU)."""
    return cpu_ms * max(1.0, LAMBDA_MB_PER_VCPU / memory_mb)


@dataclass(frozen=True)
class Inputs:
    """What the terms are made of: measured figures and the stack's settings."""

    ingest_cpu_ms: float
    ingest_calls: int
    delivery_cpu_ms: float
    delivery_calls_before_post: int
    handshake_chance: float
    receiver_ms: float
    api_memory_mb: int
    delivery_memory_mb: int
    batch_window_s: float = 0.0
    api_import_ms: float = 0.0
    delivery_import_ms: float = 0.0


def terms(i: Inputs, cold_in: int | None = None) -> list[Term]:
    """The path's terms; with `cold_in`, one cold start in that many invocations of each function on it."""
    a = ASSUMED
    out = [
        Term("API Gateway to the API function", GATEWAY_MS, "assumed", SPREAD),
        Term("API function CPU, one 1 KB event", stretch(i.ingest_cpu_ms, i.api_memory_mb), f"api.request_cpu x 1,769/{i.api_memory_mb} MB"),
        Term("API function AWS calls in a row, the SQS send last", a.aws_call_ms, "calls counted; ms a call assumed", SPREAD, times=i.ingest_calls),
        Term("the pollers' long poll returns the message", a.aws_call_ms, "SQS long polling; one call", SPREAD),
        Term("batching window (a batch that does not fill waits it out)", i.batch_window_s * 1000, "MaximumBatchingWindowInSeconds (0: none)"),
        Term("the event source invokes the delivery function", INVOKE_MS, "assumed", SPREAD),
        Term(
            "delivery function CPU per task", stretch(i.delivery_cpu_ms, i.delivery_memory_mb), f"duration_model attempt_ok x 1,769/{i.delivery_memory_mb} MB"
        ),
        Term("delivery AWS calls in a row before the POST", a.aws_call_ms, "stand_in calls in a row - the record", SPREAD, times=i.delivery_calls_before_post),
        Term("DNS lookup (SSRF guard)", a.dns_ms, "duration.Assumptions", SPREAD),
        Term("TCP and TLS handshake", a.handshake_ms, "connections.goal_row.per_webhook", SPREAD, chance=i.handshake_chance),
        Term("half a round trip to the receiver", a.rtt_ms / 2, "duration.Assumptions", SPREAD),
        Term("the receiver's answer", i.receiver_ms, "the measured receiver's", after_arrival=True),
        Term("half a round trip back", a.rtt_ms / 2, "duration.Assumptions", SPREAD, after_arrival=True),
    ]
    if cold_in:
        out += [
            Term(
                "API function cold start",
                stretch(i.api_import_ms, i.api_memory_mb),
                f"api.cold_start import, {i.api_import_ms:g} ms x 1,769/{i.api_memory_mb} MB",
                chance=1 / cold_in,
            ),
            Term(
                "delivery function cold start",
                stretch(i.delivery_import_ms, i.delivery_memory_mb),
                f"api.cold_start import, {i.delivery_import_ms:g} ms x 1,769/{i.delivery_memory_mb} MB",
                chance=1 / cold_in,
            ),
        ]
    return out


def _import_ms(cold: Mapping[str, Any], function: str) -> float:
    """A function's import CPU ms: `api.cold_start.functions.<name>.import_cpu_ms` where measured, else the API's `import_ms`."""
    per_function = (cold.get("functions") or {}).get(function) or {}
    return float(per_function.get("import_cpu_ms", cold["import_ms"]))


def inputs(results: Mapping[str, Any], ingest_calls: int, receiver_ms: float, settings: Settings) -> Inputs:
    """The model's inputs from `make bench`'s results, the ingest calls counted and the stack's settings."""
    stand_in = results["throughput"]["stand_in"]["batches"]["10"]
    cold = results["api"]["cold_start"]
    return Inputs(
        ingest_cpu_ms=results["api"]["request_cpu"]["ms"]["POST /v1/events (1 KB)"],
        ingest_calls=ingest_calls,
        delivery_cpu_ms=results["cost"]["duration_model"]["1KB"]["ms"]["attempt_ok"],
        delivery_calls_before_post=max(0, round(stand_in["sequential_calls"]) - 1),
        handshake_chance=results["connections"]["goal_row"]["per_webhook"],
        receiver_ms=receiver_ms,
        api_memory_mb=topology.API.memory(settings),
        delivery_memory_mb=topology.DELIVERY.memory(settings),
        batch_window_s=settings.delivery_batch_window_seconds,
        api_import_ms=_import_ms(cold, "api"),
        delivery_import_ms=_import_ms(cold, "delivery"),
    )


def model(i: Inputs) -> dict[str, Any]:
    """`latency.aws_model`: warm p50 and p99, the p99 with one cold start in COLD_IN invocations, and the terms."""
    warm = quantiles(terms(i))
    cold = quantiles(terms(i, cold_in=COLD_IN))
    return {
        **warm,
        "p99_ms_one_cold_start_in_100": cold["p99_ms"],
        "goal_p50_ms": GOAL_P50_MS,
        "goal_p99_ms": GOAL_P99_MS,
        "terms": [
            {
                "what": t.name,
                "median_ms": round(t.median_ms, 2),
                "times": t.times,
                "chance": round(t.chance, 4),
                "sigma": t.sigma,
                "source": t.source,
                "after_arrival": t.after_arrival,
            }
            for t in terms(i, cold_in=COLD_IN)
        ],
        "samples": SAMPLES,
        "seed": SEED,
    }


def goal_rows(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The goal table's rows (bench.models.goals) for the modelled warm latency, when the run has it."""
    aws = (results.get("latency") or {}).get("aws_model")
    if not aws:
        return []
    return [
        {
            "what": f"accept-to-receiver latency on AWS, warm functions, a {results['latency']['local']['receiver_ms']:g} ms receiver: {q} (ms, modelled)",
            "then": "-",
            "figure": f"{aws[f'{q}_ms']:g}",
            "value": aws[f"{q}_ms"],
            "goal": f"<= {goal:g}",
            "met": aws[f"{q}_ms"] <= goal,
            "note": "",
        }
        for q, goal in (("p50", aws["goal_p50_ms"]), ("p99", aws["goal_p99_ms"]))
    ]
