"""The throughput of an ordered (FIFO) endpoint, beside an unordered one: the arithmetic bound and a measurement.

An ordered endpoint's tasks go to the ordered lane (`topology.ORDERED_QUEUE`, an SQS FIFO queue whose message group
is the endpoint), consumed by the `ordered` function (`hookline.entrypoints.delivery.handle_ordered_batch`), which
delivers one endpoint's records one after another. A FIFO event source never hands out a group's messages while a
batch of that group is in flight, so one ordered endpoint is served by one invocation at a time whatever the
concurrency: its throughput is at most 1 / (receiver latency + per-attempt overhead). Several ordered endpoints run
side by side, up to `HOOKLINE_ORDERED_CONCURRENCY` invocations at once.

The measurement: the real handlers against moto server (a process of its own), fed by local mode's SQS poller
(`local.pollers.SqsPoller`, which deletes only what the handler's answer lets go, as Lambda's event source does), two
pollers at once, and a local receiver answering after a fixed delay. N events go to one ordered endpoint, the same N
to one unordered endpoint, and N spread over several ordered endpoints; each run times the drain (ingest is done
before it starts). Both endpoints have limits high enough not to pace them (500/s; 20 in flight, where they start),
so what is measured is the lane, not the limiter. The per-attempt overhead is the ordered run's time per delivery
less the receiver's delay: this machine's, with moto answering the handler's AWS calls.
"""

from __future__ import annotations

import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any

from bench.measurement.harness import Harness, _sqs, moto_hookline, quiet
from bench.measurement.throughput import CallClock
from bench.models import duration
from hookline.core.settings import Settings
from hookline.wiring import topology
from local.pollers import SqsPoller
from local.receiver import WebhookReceiver
from local.resources import queue_arn

EVENTS = 100
RECEIVER_MS = (5, 50)  # the measured runs' receiver delays
BOUND_MS = (5, 50, 200)  # the receiver latencies the arithmetic bound is shown for
SIDE_BY_SIDE = 5  # ordered endpoints of the run that spreads the events over several
POLLERS = 2  # pollers at once on each lane (the event source runs several)
LIMITS = {"rate_limit_per_second": 500, "max_concurrency": 20}  # neither endpoint is paced by its limiter
DEADLINE_SECONDS = 300.0
# https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html and
# .../partitions-and-data-distribution.html: a FIFO queue's partition takes 300 transactions per second per API action
# (SendMessage, ReceiveMessage, DeleteMessage; 3,000 messages with batching), and a message group is stored in one partition.
SQS_FIFO_PER_GROUP_TPS = 300


class _AtomicReceive:
    """An SQS client whose ReceiveMessage calls take turns. moto server answers requests on threads of its own and
    its ReceiveMessage reads which message groups are in flight before it marks what it hands out, without a lock:
    two receives at once can hand out one message group to two pollers, which SQS never does (measured: two batches
    of one ordered endpoint in flight, and its requests out of order)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._lock = threading.Lock()

    def receive_message(self, **kwargs: Any) -> Any:
        with self._lock:
            return self._client.receive_message(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class _Lanes:
    """The pollers of the lanes a run drains, and how many batches of each message group were in flight at once."""

    def __init__(self, harness: Harness, queues: list[topology.QueueSpec], batch_size: int) -> None:
        self._lock = threading.Lock()
        self.in_flight: dict[str, int] = {}
        self.most_in_flight = 0
        self.batches = 0
        sqs = _AtomicReceive(_sqs())  # not the instrumented default session: the event source's calls are not the handler's
        self.pollers = []
        for queue in queues:
            [spec] = [f for f in topology.FUNCTIONS if f.sqs_source and f.sqs_source.queue == queue]
            handler = harness.handlers[spec.name]
            self.pollers.append(
                SqsPoller(
                    name=spec.name,
                    sqs=sqs,
                    queue_url=harness.env[queue.env],
                    queue_arn=queue_arn(sqs, harness.env[queue.env]),
                    invoke=self._counted(handler),
                    batch_size=batch_size,
                    region=harness.env.get("AWS_DEFAULT_REGION", "us-east-1"),
                    wait_seconds=0,
                )
            )

    def _counted(self, handler: Callable[[dict[str, Any], Any], Any]) -> Callable[[dict[str, Any]], Any]:
        def invoke(event: dict[str, Any]) -> Any:
            groups = {r["attributes"].get("MessageGroupId", "") for r in event["Records"]} - {""}
            with self._lock:
                self.batches += 1
                for g in groups:
                    self.in_flight[g] = self.in_flight.get(g, 0) + 1
                    self.most_in_flight = max(self.most_in_flight, self.in_flight[g])
            try:
                return handler(event, None)
            finally:
                with self._lock:
                    for g in groups:
                        self.in_flight[g] -= 1

        return invoke

    def drain(self, done: Callable[[], bool], deadline: float) -> bool:
        """POLLERS threads poll every lane until `done()`; False if the deadline came first."""

        def work() -> None:
            while not done() and time.monotonic() < deadline:
                if not sum(sum(p.poll_once()) for p in self.pollers):
                    time.sleep(0.02)  # nothing visible: a held or delayed message is waiting

        with ThreadPoolExecutor(POLLERS) as pool:
            for f in [pool.submit(work) for _ in range(POLLERS)]:
                f.result()
        return done()


def _numbers(receiver: WebhookReceiver, url_path: str) -> dict[str, list[int]]:
    """The `data.n` of each request the receiver got, by endpoint (the webhook's path names it)."""
    out: dict[str, list[int]] = {}
    for r in list(receiver.received):
        if r.path.startswith(url_path):
            body = r.json()
            out.setdefault(r.path, []).append(int(body["data"]["n"]))
    return out


def one_run(
    harness: Harness, receiver: WebhookReceiver, *, ordered: bool, endpoints: int, events: int, tag: str, clock: CallClock | None = None
) -> dict[str, Any]:
    """`events` events over `endpoints` new endpoints (ordered or not), then the drain, timed."""
    paths = []
    for i in range(endpoints):
        path = f"/{tag}/{i}"
        status, ep = harness.api(
            "POST", "/v1/endpoints", {"url": receiver.url.replace("/webhook", path), "event_types": [f"{tag}.{i}"], "ordered": ordered, **LIMITS}
        )
        assert status == 201, ep
        paths.append(path)
    for start in range(0, events, 100):
        body = {"events": [{"type": f"{tag}.{n % endpoints}", "data": {"n": n}} for n in range(start, min(events, start + 100))]}
        status, answer = harness.api("POST", "/v1/events/batch", body)
        assert status == 202, answer
    settings = Settings()
    queues = [topology.ORDERED_QUEUE] if ordered else [topology.DELIVERY_QUEUE, topology.RETRY_QUEUE]
    lanes = _Lanes(harness, queues, settings.ordered_batch_size if ordered else settings.delivery_batch_size)

    def delivered() -> int:
        return sum(len(v) for v in _numbers(receiver, f"/{tag}/").values())

    if clock:
        clock.calls, clock.seconds, clock.active = 0, 0.0, True
    started, cpu = time.perf_counter(), time.process_time()
    complete = lanes.drain(lambda: delivered() >= events, time.monotonic() + DEADLINE_SECONDS)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    if clock:
        clock.active = False
    got = _numbers(receiver, f"/{tag}/")
    n = sum(len(v) for v in got.values())
    return {
        "endpoints": endpoints,
        "events": events,
        "delivered": n,
        "complete": complete,
        "elapsed_s": round(elapsed, 3),
        "deliveries_per_second": round(n / elapsed, 1),
        "per_endpoint_per_second": round(n / elapsed / endpoints, 1),
        "in_order": all(v == sorted(v) for v in got.values()),
        "repeated": n - sum(len(set(v)) for v in got.values()),  # at-least-once: a request sent twice
        "batches": lanes.batches,
        "most_batches_of_a_group_in_flight": lanes.most_in_flight,
        # This process's CPU: the handler, the pollers' receives and deletes, and the receiver's server threads.
        "cpu_ms_per_delivery": round(cpu / max(1, n) * 1000, 2),
        "aws_calls_per_delivery": round(clock.calls / max(1, n), 2) if clock else None,
    }


def bound_per_second(receiver_ms: float, overhead_ms: float) -> float:
    """One ordered endpoint's most deliveries per second: one attempt after another."""
    return 1000.0 / (receiver_ms + overhead_ms)


def lambda_overhead_ms(cpu_ms: float, aws_calls: float, memory_mb: int = topology.ORDERED.memory_mb, a: duration.Assumptions = duration.ASSUMED) -> float:
    """The per-attempt overhead on the ordered function, from `bench.models.duration`'s stated model: the CPU at the function's
    share of a vCPU, its AWS calls in a row (one line: every call is on the endpoint's critical path), and the new
    connection each POST opens (DNS, TCP, TLS)."""
    return cpu_ms * max(1.0, duration.LAMBDA_MB_PER_VCPU / memory_mb) + aws_calls * a.aws_call_ms + a.connect_ms


def measure(
    progress: Callable[[str], None] = lambda _s: None, events: int = EVENTS, receiver_ms: tuple[int, ...] = RECEIVER_MS, side_by_side: int = SIDE_BY_SIDE
) -> dict[str, Any]:
    settings = Settings()
    out: dict[str, Any] = {
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "events": events,
        "pollers": POLLERS,
        "limits": LIMITS,
        "ordered_batch_size": settings.ordered_batch_size,
        "ordered_concurrency": settings.ordered_concurrency,
        "delivery_batch_size": settings.delivery_batch_size,
        "sqs_fifo_per_group_tps": SQS_FIFO_PER_GROUP_TPS,
        "runs": {},
    }
    started = time.monotonic()
    with (
        quiet(),
        moto_hookline(server=True, HOOKLINE_INITIAL_CONCURRENCY=str(LIMITS["max_concurrency"])) as harness,
        WebhookReceiver() as receiver,
    ):
        clock = CallClock()
        clock.install()
        warm = one_run(harness, receiver, ordered=True, endpoints=1, events=10, tag="warm")  # imports, clients, pools
        assert warm["complete"], warm
        one_run(harness, receiver, ordered=False, endpoints=1, events=10, tag="warmu")
        progress("warm-up")
        for ms in receiver_ms:
            receiver.delay_seconds = ms / 1000
            runs = {
                "ordered": one_run(harness, receiver, ordered=True, endpoints=1, events=events, tag=f"o{ms}", clock=clock),
                "unordered": one_run(harness, receiver, ordered=False, endpoints=1, events=events, tag=f"u{ms}"),
            }
            progress(f"{ms} ms: one endpoint, ordered and not")
            if side_by_side > 1:
                runs[f"ordered_{side_by_side}_endpoints"] = one_run(
                    harness, receiver, ordered=True, endpoints=side_by_side, events=events, tag=f"s{ms}", clock=clock
                )
                progress(f"{ms} ms: {side_by_side} ordered endpoints")
            runs["ordered"]["overhead_ms_per_attempt"] = round(runs["ordered"]["elapsed_s"] / max(1, runs["ordered"]["delivered"]) * 1000 - ms, 2)
            runs["ordered"]["bound_per_second"] = round(bound_per_second(ms, runs["ordered"]["overhead_ms_per_attempt"]), 1)
            out["runs"][str(ms)] = runs
    ordered_runs = [r["ordered"] for r in out["runs"].values()]
    # An upper bound on throughput: the least overhead measured (the machine's best), the least CPU and the fewest calls.
    overhead = min(r["overhead_ms_per_attempt"] for r in ordered_runs)
    cpu = min(r["cpu_ms_per_delivery"] for r in ordered_runs)
    calls = min(r["aws_calls_per_delivery"] for r in ordered_runs)
    on_lambda = lambda_overhead_ms(cpu, calls)
    out["overhead_ms_per_attempt"] = overhead
    out["lambda_model"] = {
        "cpu_ms_per_attempt": cpu,
        "aws_calls_per_attempt": calls,
        "memory_mb": topology.ORDERED.memory_mb,
        "lambda_mb_per_vcpu": duration.LAMBDA_MB_PER_VCPU,
        "aws_call_ms": duration.ASSUMED.aws_call_ms,
        "connect_ms": duration.ASSUMED.connect_ms,
        "overhead_ms_per_attempt": round(on_lambda, 1),
    }
    out["bound"] = {
        str(ms): {
            "here_per_second": round(bound_per_second(ms, overhead), 1),
            "on_lambda_per_second": round(bound_per_second(ms, on_lambda), 1),
        }
        for ms in BOUND_MS
    }
    out["seconds"] = round(time.monotonic() - started, 1)
    out["machine"] = f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m bench.measurement.ordered", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=EVENTS)
    parser.add_argument("--into", type=Path, help="put the figures into this results.json (then: python -m bench --report-only)")
    args = parser.parse_args(argv)
    found = measure(events=args.events)
    found["command"] = "python -m bench.measurement.ordered " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.into:
        results = json.loads(args.into.read_text())
        results["ordered"] = found
        args.into.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(found, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
