"""The design's throughput: the real delivery handler over stand-ins for AWS that answer side by side, each call
after a stated latency.

moto server answers one call at a time, so the throughput section's moto figure is the emulator's. Here every
AWS port of the delivery worker (DynamoDB: events, endpoints, breaker and limiter state, statistics, replays;
SQS and Step Functions: the scheduler; SNS: notifications) is the in-memory fake the unit tests use (each is
held to the same contract as its DynamoDB adapter, tests/fakes/contracts.py), wrapped so that every call first
waits `latency` seconds, as a round trip to DynamoDB does, without holding the GIL. The handler is
`hookline.entrypoints.delivery.handle_batch`, unchanged; each task goes to its own endpoint; the receiver
answers after 100 ms.

Two figures come out of it:
- the ratio to ideal (batch size / receiver latency) at 5 ms a call;
- the AWS calls in a row on a task's critical path: how much longer a batch takes per millisecond of call
  latency (the slope between 0 and 20 ms), so it is measured, not counted by hand.

What it leaves out is said beside the figures: boto3's request building and parsing and the HTTP client's work,
which the moto run's CPU column includes.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from bench.measurement.harness import quiet
from hookline.adapters import system
from hookline.adapters.system import utcnow
from hookline.core.models import Delivery, Endpoint, Event, webhook_body
from hookline.core.responses import HttpResult
from hookline.core.settings import Settings
from hookline.entrypoints.delivery import handle_batch
from hookline.services.delivery.assemble import assemble
from tests.fakes.delivery import FakeReplayProgress, FakeScheduler
from tests.fakes.endpoints import FakeEndpointStore
from tests.fakes.events import FakeEventStore
from tests.fakes.outside import FakeSender, FakeStats, RecordingNotify, Request
from tests.fakes.state import FakeEndpointStateStore
from tests.support.events import sqs_event

LATENCY_SECONDS = 0.005  # a DynamoDB or SQS round trip, typical
SLOPE_SECONDS = 0.020  # a longer latency, to measure the calls in a row as a slope well above the noise
RECEIVER_SECONDS = 0.100
BATCHES = (10, 100)
RUNS = 7


class Latent:
    """A port whose every public call waits `seconds` first: a network round trip that holds no lock."""

    def __init__(self, inner: Any, seconds: float, counter: list[int]):
        self._inner, self._seconds, self._counter = inner, seconds, counter

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name.startswith("_") or not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            self._counter[0] += 1
            if self._seconds:
                time.sleep(self._seconds)
            return attr(*args, **kwargs)

        return call


def _receiver(_request: Request) -> HttpResult:
    time.sleep(RECEIVER_SECONDS)
    return HttpResult(200, None, int(RECEIVER_SECONDS * 1000), body="ok")


class StandIn:
    """The delivery worker over latent fakes, with `endpoints` endpoints ready (one task each per batch)."""

    def __init__(self, latency: float, endpoints: int):
        self.calls = [0]
        self.events, self.endpoint_store = FakeEventStore(), FakeEndpointStore()
        states = FakeEndpointStateStore(self.endpoint_store)
        wrap: Callable[[Any], Any] = lambda port: Latent(port, latency, self.calls)  # noqa: E731
        settings = Settings(delivery_batch_size=max(BATCHES), delivery_batch_window_seconds=1)
        self.worker = assemble(
            events=wrap(self.events),
            endpoints=wrap(self.endpoint_store),
            states=wrap(states),
            sender=FakeSender(_receiver),
            scheduler=wrap(FakeScheduler()),
            notify=wrap(RecordingNotify()),
            settings=settings,
            clock=utcnow,
            sleep=time.sleep,
            rng=system.SYSTEM_RANDOM,
            lease_seconds=120,
            replays=wrap(FakeReplayProgress()),
            stats=wrap(FakeStats(states)),
        )
        now = utcnow().strftime("%Y-%m-%dT%H:%M:%S.000Z")
        self.ids = [f"ep_{i:04d}" for i in range(endpoints)]
        for ep in self.ids:
            self.endpoint_store.add(
                Endpoint(
                    id=ep, tenant="acme", url=f"https://{ep}.example.com/hook", secret="whsec_" + "A" * 32, created_at=now, updated_at=now, max_concurrency=100
                )
            )
        self._n = 0

    def batch(self, size: int) -> dict[str, Any]:
        """`size` fresh tasks, one per endpoint, as SQS hands them to the delivery function."""
        messages = []
        now = utcnow().strftime("%Y-%m-%dT%H:%M:%S.000Z")
        for ep in self.ids[:size]:
            self._n += 1
            event_id, delivery_id = f"evt_{self._n:08d}", f"dlv_{self._n:08d}"
            body = webhook_body(event_id, "a.b", now, {"n": self._n})
            event = Event(id=event_id, tenant="acme", type="a.b", created_at=now, body=body, request_hash=str(self._n))
            task = replace(self.events.add(event, Delivery(delivery_id, "acme", event_id, ep, created_at=now, updated_at=now)), fresh=True)
            messages.append({"MessageId": delivery_id, "Body": task.to_message()})
        return sqs_event(messages)

    def run(self, size: int) -> tuple[float, float, int]:
        """One invocation: (wall seconds, CPU seconds, AWS calls)."""
        event = self.batch(size)
        calls, started, cpu = self.calls[0], time.perf_counter(), time.process_time()
        result = handle_batch(event, None, self.worker)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        assert result == {"batchItemFailures": []}, result
        return elapsed, cpu, self.calls[0] - calls


def _median_run(latency: float, size: int, runs: int) -> tuple[float, float, float]:
    stand_in = StandIn(latency, max(BATCHES))
    stand_in.run(10)  # warm up: thread pools, imports
    walls, cpus, calls = [], [], []
    for _ in range(runs):
        wall, cpu, n = stand_in.run(size)
        walls.append(wall)
        cpus.append(cpu)
        calls.append(n)
    return statistics.median(walls), statistics.median(cpus), statistics.median(calls)


@contextmanager
def metrics_off() -> Iterator[None]:
    """The handler publishes CloudWatch metrics (EMF on stdout); a benchmark has nowhere to send them."""
    saved = os.environ.get("POWERTOOLS_METRICS_DISABLED")
    os.environ["POWERTOOLS_METRICS_DISABLED"] = "true"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("POWERTOOLS_METRICS_DISABLED", None)
        else:
            os.environ["POWERTOOLS_METRICS_DISABLED"] = saved


def measure_apart(progress: Callable[[str], None] = lambda _s: None, runs: int = RUNS) -> dict[str, Any]:
    """`measure` in a Python process of its own, as a Lambda instance runs the handler and nothing else: inside
    `make bench`'s process, after the sections before it, the same handler took 1.9 ms of CPU a delivery against
    1.1 to 1.3 ms in a process of its own, on the same minutes, and the one invocation's ratio fell with it."""
    done = subprocess.run([sys.executable, "-m", "bench.measurement.standin", str(runs)], capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the stand-in run failed: {done.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    for size in out["batches"]:
        progress(f"batch {size}")
    return out


def measure(progress: Callable[[str], None] = lambda _s: None, runs: int = RUNS) -> dict[str, Any]:
    out: dict[str, Any] = {"latency_ms": LATENCY_SECONDS * 1000, "receiver_latency_ms": RECEIVER_SECONDS * 1000, "runs": runs, "batches": {}}
    with quiet(), metrics_off():
        for size in BATCHES:
            wall0, cpu0, calls = _median_run(0.0, size, runs)
            wall, _, _ = _median_run(LATENCY_SECONDS, size, runs)
            slow, _, _ = _median_run(SLOPE_SECONDS, size, runs)
            ideal = size / RECEIVER_SECONDS
            out["batches"][str(size)] = {
                "elapsed_s": round(wall, 4),
                "deliveries_per_second": round(size / wall, 1),
                "ideal_per_second": round(ideal, 1),
                "ratio_to_ideal": round(size / wall / ideal, 3),
                "elapsed_without_latency_s": round(wall0, 4),
                # How many latencies a batch waits in a row: the AWS calls on a task's critical path.
                "sequential_calls": round((slow - wall0) / SLOPE_SECONDS, 1),
                "aws_calls_per_delivery": round(calls / size, 2),
                "services_cpu_ms_per_delivery": round(cpu0 / size * 1000, 2),
            }
            progress(f"batch {size}")
    return out


if __name__ == "__main__":
    print(json.dumps(measure(runs=int(sys.argv[1]) if len(sys.argv) > 1 else RUNS)))
