"""Accept-to-receiver latency: measured in local mode, and the figures the AWS model (bench/models/latency.py) needs.

- **Local mode** (`measure_local`): `local.run.LocalHookline` with its default settings (the real handlers on an
  embedded AWS, Lambda-like pollers), through its HTTP front door; one endpoint subscribed to every event, pointing
  at a receiver that answers 200 after 20 ms and notes when each request arrived. EVENTS single `POST /v1/events`
  are sent one after another at RATE_PER_SECOND (each at its time, or at once when the last one's answer came
  later). An event's latency runs from the start of its POST (accept time: the producer's view, the ingest's own work
  included) to the arrival of its first delivery request at the receiver; the POST's own answer time, and the
  latency from the 202's arrival back at the producer, are reported too.
- **Ingest calls** (`ingest_calls`): the AWS calls one warm `POST /v1/events` makes, in order, all on the request's
  thread, so one after another: in-process moto, counted on botocore's `before-call` event.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import requests

from bench.measurement.harness import moto_hookline, quiet
from bench.measurement.payloads import event_body
from bench.models import latency
from hookline.adapters import aws
from hookline.core.settings import Settings
from hookline.wiring import container
from local.receiver import WebhookReceiver
from local.run import LocalHookline

EVENTS = 1000
RATE_PER_SECOND = 20.0
RECEIVER_SECONDS = 0.02
ARRIVAL_TIMEOUT_S = 120.0


class ArrivalReceiver(WebhookReceiver):
    """The local receiver, noting when (perf_counter) each event's first request arrived, by its data's `n`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.arrivals: dict[int, float] = {}

    def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> int:
        at = time.perf_counter()
        try:
            n = int(json.loads(body)["data"]["n"])
        except (ValueError, KeyError, TypeError):
            n = -1
        with self._lock:
            self.arrivals.setdefault(n, at)
        return super().handle(method, path, headers, body)


def _percentile(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of `values`, as bench.models.latency takes it."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def measure_local(progress: Callable[[str], None] = lambda _s: None, events: int = EVENTS, rate: float = RATE_PER_SECOND) -> dict[str, Any]:
    """`latency.local`: p50 and p99 ms from each POST's start to its delivery's arrival, over `events` events."""
    receiver = ArrivalReceiver(delay_seconds=RECEIVER_SECONDS)
    with quiet(), LocalHookline(port=0, aws_port=0, readable_logs=False) as hl, receiver:
        session = requests.Session()
        session.headers["authorization"] = f"Bearer {hl.api_key}"
        session.post(f"{hl.base_url}/v1/endpoints", json={"url": receiver.url}, timeout=30).raise_for_status()
        started: dict[int, float] = {}
        accepted: dict[int, float] = {}  # when each POST's 202 was read
        answered: list[float] = []
        t0 = time.perf_counter()
        for n in range(events):
            wait = t0 + n / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            started[n] = time.perf_counter()
            answer = session.post(f"{hl.base_url}/v1/events", json={"type": "bench.latency", "data": {"n": n}}, timeout=60)
            accepted[n] = time.perf_counter()
            answered.append(accepted[n] - started[n])
            if answer.status_code != 202:
                raise RuntimeError(f"POST /v1/events answered {answer.status_code}: {answer.text[:300]}")
            if (n + 1) % (events // 10 or 1) == 0:
                progress(f"{n + 1}/{events} events")
        sent_for = time.perf_counter() - t0
        deadline = time.monotonic() + ARRIVAL_TIMEOUT_S
        while len(receiver.arrivals.keys() & started.keys()) < events and time.monotonic() < deadline:
            time.sleep(0.1)
        arrivals = dict(receiver.arrivals)
    missing = [n for n in started if n not in arrivals]
    if missing:
        raise RuntimeError(f"{len(missing)} of {events} events never reached the receiver (first: {missing[:5]})")
    latencies = [(arrivals[n] - started[n]) * 1000 for n in started]
    after_answer = [(arrivals[n] - accepted[n]) * 1000 for n in started]  # negative when the delivery beat the 202 back
    return {
        "events": events,
        "rate_per_second": rate,
        "sent_per_second": round(events / sent_for, 1),
        "receiver_ms": RECEIVER_SECONDS * 1000,
        "accept_time": "the start of the POST",
        "p50_ms": round(_percentile(latencies, 0.5), 1),
        "p99_ms": round(_percentile(latencies, 0.99), 1),
        "max_ms": round(max(latencies), 1),
        "post_answer_p50_ms": round(statistics.median(answered) * 1000, 1),
        "from_the_202_p50_ms": round(_percentile(after_answer, 0.5), 1),
        "from_the_202_p99_ms": round(_percentile(after_answer, 0.99), 1),
        "load_average_1m": round(os.getloadavg()[0], 2),  # the machine's, when the run ended: local mode shares its cores
    }


def ingest_calls() -> list[str]:
    """The AWS operations, in order, of one warm `POST /v1/events` of a 1 KB event to one subscribed endpoint."""
    made: list[str] = []
    counting = threading.Event()

    def noted(model: Any, **_: Any) -> None:
        if counting.is_set():
            made.append(f"{model.service_model.service_name}.{model.name}")

    with quiet(), moto_hookline() as h:
        status, _ = h.api("POST", "/v1/endpoints", {"url": "https://receiver.example/webhook"})
        assert status == 201
        boto3.DEFAULT_SESSION.events.register("before-call", noted)
        aws.reset_clients()  # hookline's clients are rebuilt from the session that notes their calls
        container.reset()
        for n in range(2):  # the first warms the clients and caches, as a warm instance has them
            if n:
                counting.set()
            status, body = h.api("POST", "/v1/events", event_body(1024, n, "bench.latency"))
            assert status == 202, body
        counting.clear()
        boto3.DEFAULT_SESSION.events.unregister("before-call", noted)
        aws.reset_clients()
        container.reset()
    return made


def measure(results: dict[str, Any], progress: Callable[[str], None] = lambda _s: None, events: int = EVENTS) -> dict[str, Any]:
    """`latency`: measured in local mode, and modelled on AWS from this run's `api`, `cost`, `throughput` and
    `connections` figures (bench.models.latency). STEPS calls of `progress`."""
    local = measure_local(progress, events=events)
    calls = ingest_calls()
    progress("the ingest's AWS calls")
    modelled = latency.model(latency.inputs(results, len(calls), local["receiver_ms"], Settings()))
    progress("the AWS model")
    return {"local": local, "ingest_calls": calls, "aws_model": modelled}


STEPS = 12


def main(argv: list[str] | None = None) -> int:
    """Measure and model the latency alone, into an existing results.json (its other sections as they are)."""
    parser = argparse.ArgumentParser(prog="python -m bench.measurement.latency", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=Path(__file__).resolve().parents[1] / "results.json")
    parser.add_argument("--events", type=int, default=EVENTS)
    parser.add_argument("--model-only", action="store_true", help="measure nothing: model again from the figures results.json holds")
    args = parser.parse_args(argv)
    results = json.loads(args.results.read_text())
    if args.model_only:
        found = results["latency"]
        found["aws_model"] = latency.model(latency.inputs(results, len(found["ingest_calls"]), found["local"]["receiver_ms"], Settings()))
    else:
        results["latency"] = measure(results, progress=lambda s: print(s, file=sys.stderr), events=args.events)
        results["latency"]["generated_at"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    args.results.write_text(json.dumps(results, indent=1) + "\n")
    print(
        json.dumps(
            {k: v for k, v in results["latency"].items() if k != "aws_model"}
            | {"aws_model": {k: v for k, v in results["latency"]["aws_model"].items() if k != "terms"}},
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
