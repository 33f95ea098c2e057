"""Delivery throughput of one invocation: the real delivery handler, moto server, a receiver that takes 100 ms.

Each task of the batch goes to an endpoint of its own (no limiter pacing between
them), so the ideal is every request in flight at once: batch size / receiver
latency. What the handler adds on top (claims, limiter, records, statistics)
is its overhead; the CPU time it burns meanwhile is its own work. moto server stands in for DynamoDB, SQS and Step Functions in
a process of its own; its per-call latency under the batch's concurrency is
reported beside the result, because it, not the handler's own Python, bounds
what one invocation achieves here.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from typing import Any

import boto3

from bench.measurement.harness import Harness, moto_hookline, quiet
from hookline.wiring import container, topology
from local.receiver import WebhookReceiver

RECEIVER_SECONDS = 0.100
BATCHES = (10, 100)
RUNS = 3


class CallClock:
    """Counts AWS calls and their latency, only while `active`."""

    def __init__(self) -> None:
        self.active = False
        self.calls = 0
        self.seconds = 0.0
        self._lock = threading.Lock()

    def install(self) -> None:
        events = boto3.DEFAULT_SESSION.events
        events.register("before-call", self._before)
        events.register("after-call", self._after)
        container.reset()  # hookline's clients are rebuilt from the instrumented session

    def _before(self, context: dict[str, Any], **_: Any) -> None:
        context["bench_started"] = time.perf_counter()

    def _after(self, context: dict[str, Any], **_: Any) -> None:
        if self.active and "bench_started" in context:
            with self._lock:
                self.calls += 1
                self.seconds += time.perf_counter() - context["bench_started"]


def one_invocation(batch: int, harness: Harness, receiver: WebhookReceiver, types: list[str], clock: CallClock | None = None) -> tuple[float, float] | None:
    """Wall-clock and CPU seconds the delivery handler takes for one batch of `batch` tasks; None when it did not send
    them all (a task deferred: on a busy machine the endpoints' adaptive limits can see moto's slowness as the
    receiver's), which measures no whole batch: the caller runs another."""
    status, body = harness.api("POST", "/v1/events/batch", {"events": [{"type": t, "data": {"n": i}} for i, t in enumerate(types[:batch])]})
    assert status == 202, body
    messages = harness.receive(topology.DELIVERY_QUEUE, batch)
    assert len(messages) == batch
    before = len(receiver.received)
    event = harness.batch_event(topology.DELIVERY_QUEUE, messages)  # outside the measurement: the event source mapping's work
    if clock:
        clock.active = True
    started, cpu = time.perf_counter(), time.process_time()
    result = harness.invoke_consumer(topology.DELIVERY_QUEUE, event)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    if clock:
        clock.active = False
    if result != {"batchItemFailures": []} or len(receiver.received) - before != batch:
        # What it deferred would come back into a later run's batch: none of it is part of any measurement.
        harness.purge(topology.DELIVERY_QUEUE)
        harness.purge(topology.RETRY_QUEUE)
        return None
    return elapsed, cpu


MAX_DISCARDED = 5  # runs that may be discarded per run kept, before the measurement gives up (a machine this busy measures nothing)


def measured_runs(
    runs: int, batch: int, harness: Harness, receiver: WebhookReceiver, types: list[str], clock: CallClock | None = None
) -> tuple[list[float], list[float], int, int]:
    """`runs` whole batches: their wall and CPU seconds, the AWS calls they made, and how many runs were discarded."""
    times: list[float] = []
    cpus: list[float] = []
    discarded = calls = 0
    while len(times) < runs:
        before = clock.calls if clock else 0
        got = one_invocation(batch, harness, receiver, types, clock)
        if got is None:
            discarded += 1
            if discarded > MAX_DISCARDED * runs:
                raise RuntimeError(f"batch {batch}: {discarded} runs deferred a task; the machine is too busy to measure one invocation")
            continue
        calls += (clock.calls - before) if clock else 0
        times.append(got[0])
        cpus.append(got[1])
    return times, cpus, calls, discarded


def measure(progress: Callable[[str], None] = lambda _s: None, batches: tuple[int, ...] = BATCHES, runs: int = RUNS) -> dict[str, Any]:
    out: dict[str, Any] = {"receiver_latency_ms": RECEIVER_SECONDS * 1000, "runs": runs, "batches": {}}
    with (
        quiet(),
        # A batch above 10 needs a batching window (SQS's rule, which the settings check); the handler is invoked here
        # directly, so the window itself plays no part.
        moto_hookline(server=True, HOOKLINE_DELIVERY_BATCH_SIZE=str(max(batches)), HOOKLINE_DELIVERY_BATCH_WINDOW_SECONDS="1") as harness,
        WebhookReceiver(delay_seconds=RECEIVER_SECONDS) as receiver,
    ):
        types = [f"tp.{i}" for i in range(max(batches))]
        for event_type in types:
            status, ep = harness.api(
                "POST", "/v1/endpoints", {"url": receiver.url, "event_types": [event_type], "rate_limit_per_second": 500, "max_concurrency": 100}
            )
            assert status == 201, ep
        clock = CallClock()
        clock.install()
        measured_runs(1, 10, harness, receiver, types)  # warm up: imports, clients, connection pools
        progress("warm-up")
        for batch in batches:
            clock.calls, clock.seconds = 0, 0.0
            times, cpus, calls, discarded = measured_runs(runs, batch, harness, receiver, types, clock)
            for _ in range(runs):
                progress(f"batch {batch}")
            elapsed = statistics.median(times)
            achieved = batch / elapsed
            ideal = batch / RECEIVER_SECONDS
            out["batches"][str(batch)] = {
                "elapsed_s": round(elapsed, 4),
                "deliveries_per_second": round(achieved, 1),
                "ideal_per_second": round(ideal, 1),
                "ratio_to_ideal": round(achieved / ideal, 3),
                "overhead_ms_per_delivery": round((elapsed - RECEIVER_SECONDS) / batch * 1000, 2),
                # CPU of this process only (moto server runs in its own): the handler's own work, boto3 included.
                "handler_cpu_ms_per_delivery": round(statistics.median(cpus) / batch * 1000, 2),
                "aws_calls_per_delivery": round(calls / (batch * runs), 2),
                "runs_discarded": discarded,
                "moto_ms_per_call": round(clock.seconds / max(1, clock.calls) * 1000, 2),
            }
    out["ratio_to_ideal"] = {b: v["ratio_to_ideal"] for b, v in out["batches"].items()}
    return out
