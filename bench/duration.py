"""Lambda duration from a stated model, not from wall time under an emulator.

A delivery invocation is billed for, one after another:
- its CPU work: the handler's CPU per task, measured (the fastest of several runs) with DynamoDB,
  SQS and the receiver in processes of their own, so only the handler's own Python is on the
  clock, then stretched to the function's CPU share (Lambda gives one vCPU at 1,769 MB and a
  proportional share below);
- its AWS round trips: the calls the run made, `AWS_CALL_MS` each, the batch's tasks side by side
  (one lane per task; a lane's calls in a row);
- the limiter's pacing: the seconds the worker actually slept before a send (measured);
- its requests, side by side: a DNS lookup for each (the SSRF guard resolves every POST), a new
  connection (TCP and TLS) when one of them has none to reuse (`Invocation.handshakes`: the meter
  counts a send as reusing its endpoint's connection when the same process sent to that endpoint
  within `HOOKLINE_KEEPALIVE_SECONDS`, hookline.adapters.http.ConnectionPools), and the slowest of
  the batch's answers (the median of the maximum of n lognormal latencies).

`make bench` measures the CPU figures once per run; two runs must agree within 5 %.
"""

from __future__ import annotations

import math
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

from bench.harness import Harness, moto_hookline, quiet
from hookline.adapters import aws
from hookline.adapters.dynamo.state import EndpointStateRepository
from hookline.core.breaker import Breaker
from hookline.wiring import topology

LAMBDA_MB_PER_VCPU = 1769  # https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory-computing.html


@dataclass(frozen=True)
class Assumptions:
    """What the duration model assumes; every figure it prints is stated here."""

    receiver_median_ms: float = 100.0  # a receiver's answer, p50 (request sent to response read)
    receiver_sigma: float = 0.5  # lognormal spread of that latency (p99 = 3.2x the median)
    rtt_ms: float = 20.0  # Lambda (us-east-1) to a typical receiver
    dns_ms: float = 5.0  # the client resolves the host on every POST (SSRF guard)
    tls_round_trips: int = 1  # TLS 1.3; 2 for TLS 1.2
    aws_call_ms: float = 5.0  # one DynamoDB / SQS / Step Functions call from Lambda in region, warm HTTPS connection
    tls_client_bytes: int = 700  # what the client sends in a TLS 1.3 handshake (ClientHello, Finished): data out

    @property
    def connect_ms(self) -> float:
        """DNS, TCP and TLS before the request leaves on a new connection."""
        return self.dns_ms + self.handshake_ms

    @property
    def handshake_ms(self) -> float:
        """TCP and TLS: what a kept-alive connection saves (its DNS lookup is made anyway)."""
        return self.rtt_ms * (1 + self.tls_round_trips)

    def slowest_answer_ms(self, sends: int) -> float:
        """The median of the slowest of `sends` parallel answers: median x exp(sigma x z), z the normal quantile of 0.5^(1/n)."""
        if sends <= 0:
            return 0.0
        z = statistics.NormalDist().inv_cdf(0.5 ** (1 / sends))
        return self.receiver_median_ms * math.exp(self.receiver_sigma * z)


ASSUMED = Assumptions()


@dataclass
class Invocation:
    """What one handler invocation did, as the meter saw it."""

    tasks: int = 1
    sends: int = 0
    handshakes: int = 0  # of those, the ones on a new connection
    aws_calls: int = 0
    sleeps: list[tuple[float, float]] = field(default_factory=list)  # (start, end), perf_counter

    def waited_seconds(self) -> float:
        """Wall time some task spent sleeping for the limiter (the union of the sleeps: the tasks run side by side)."""
        total, end = 0.0, -math.inf
        for s, e in sorted(self.sleeps):
            if e > end:
                total += e - max(s, end)
                end = e
        return total


def billed_ms(memory_mb: int, cpu_ms: float, inv: Invocation, a: Assumptions = ASSUMED) -> int:
    """Milliseconds billed for an invocation (rounded up to the ms)."""
    cpu = cpu_ms * max(1.0, LAMBDA_MB_PER_VCPU / memory_mb)
    lanes = max(1, inv.tasks)
    aws = math.ceil(inv.aws_calls / lanes) * a.aws_call_ms
    wait = inv.waited_seconds() * 1000
    network = (a.dns_ms + (a.handshake_ms if inv.handshakes else 0.0) + a.slowest_answer_ms(inv.sends)) if inv.sends else 0.0
    return max(1, math.ceil(cpu + aws + wait + network))


# -- the CPU figures ---------------------------------------------------------------------------

CPU_KINDS = ("ingest_single", "ingest_batch", "attempt_ok", "attempt_ok_after_failure", "attempt_fail", "defer")
BATCH = 10


@contextmanager
def _receiver_process(status: int) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "bench.receiver", "--port", str(port), "--status", str(status)])
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("bench receiver did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/webhook"
    finally:
        proc.terminate()
        proc.wait(10)


def _cpu(run: Callable[[], Any]) -> float:
    started = time.process_time()
    run()
    return (time.process_time() - started) * 1000


def measure_cpu(runs: int = 5, size: int = 1024, progress: Callable[[str], None] = lambda _s: None) -> dict[str, Any]:
    """The handlers' own CPU: ms per task (attempts, deferrals) or per invocation (ingest), the fastest of `runs`.

    The fastest, not the median: on this machine the samples are bimodal (e.g. 13 or 26 ms for one success),
    the slow mode being other processes' interference, so a median of five flipped between the two from run to
    run (a 6 % move of the total); the fastest run is the handler's own work, which a Lambda's CPU share gives it.

    moto server and the receivers run in processes of their own, so `time.process_time` counts the
    handler's Python (boto3 and the HTTP client included) and nothing else.
    """
    from bench.cost import event_body  # here: bench.cost imports this module (through the meter)

    samples: dict[str, list[float]] = {k: [] for k in CPU_KINDS}
    with quiet(), moto_hookline(server=True) as h, _receiver_process(200) as ok_url, _receiver_process(503) as fail_url:
        states = EndpointStateRepository(aws.dynamodb_table(h.env[topology.TABLE.env]))
        sets = 0

        def endpoints(url: str) -> tuple[list[str], list[str]]:
            nonlocal sets
            sets += 1
            types, ids = [f"cpu{sets}.t{i}" for i in range(BATCH)], []
            for t in types:
                status, ep = h.api("POST", "/v1/endpoints", {"url": url, "event_types": [t]})
                assert status == 201, ep
                ids.append(ep["id"])
            return types, ids

        def one_batch(h: Harness, types: list[str]) -> float:
            status, body = h.api("POST", "/v1/events/batch", {"events": [event_body(size, i, t) for i, t in enumerate(types)]})
            assert status == 202, body
            messages = h.receive(topology.DELIVERY_QUEUE, BATCH)
            assert len(messages) == BATCH
            event = h.batch_event(topology.DELIVERY_QUEUE, messages)  # the event source mapping's work, not the handler's
            return _cpu(lambda: h.invoke_consumer(topology.DELIVERY_QUEUE, event)) / BATCH

        for attempt in range(runs + 1):  # the first is a warm-up: imports, clients, pools
            types, _ = endpoints(ok_url)
            single = _cpu(partial(h.api, "POST", "/v1/events", event_body(size, 0, types[0])))
            batch = {"events": [event_body(size, i, types[i % BATCH]) for i in range(100)]}
            many = _cpu(partial(h.api, "POST", "/v1/events/batch", batch))
            h.receive(topology.DELIVERY_QUEUE, 1000)  # the ingest runs' tasks: not measured here
            ok = one_batch(h, types)
            types_f, ids_f = endpoints(ok_url)
            now = time.time()
            for ep in ids_f:  # a failure streak of one: the success that ends it writes the breaker
                states.save_breaker("bench", ep, Breaker(consecutive_failures=1, recent="0", last_error="http_503", last_failure_at=now), 0)
            after_failure = one_batch(h, types_f)
            fail = one_batch(h, endpoints(fail_url)[0])
            types_d, ids_d = endpoints(ok_url)
            for ep in ids_d:
                states.save_breaker(
                    "bench", ep, Breaker(state="open", consecutive_failures=10, open_until=now + 60, open_since=now, cooldown_seconds=60, trips=1), 0
                )
            defer = one_batch(h, types_d)
            if attempt:
                for kind, value in zip(CPU_KINDS, (single, many, ok, after_failure, fail, defer), strict=True):
                    samples[kind].append(round(value, 3))
            progress(f"run {attempt}/{runs}")
    return {
        "runs": runs,
        "ms": {k: round(min(v), 3) for k, v in samples.items()},
        "samples": samples,
        "unit": {k: "per invocation" if k.startswith("ingest") else "per task" for k in CPU_KINDS},
        "assumptions": asdict(ASSUMED) | {"connect_ms": ASSUMED.connect_ms, "handshake_ms": ASSUMED.handshake_ms, "lambda_mb_per_vcpu": LAMBDA_MB_PER_VCPU},
    }
