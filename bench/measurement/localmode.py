"""Local mode under load, as a user of `make run` meets it: how long a 100-event batch with fan-out 5 takes to be
answered, and how long reads take while a backlog of 5,000 deliveries is being worked off.

It runs local mode itself (`local.run.LocalHookline`, free ports, the default settings), through its HTTP front
door: five endpoints subscribed to every event, at their default limits (10/s, 5 in flight), pointing at a
receiver that answers 200 after 20 ms. Ten batches of 100 events make the 5,000 deliveries; each batch's answer
time is measured. Then, while the pollers work the backlog off (the limits hold each endpoint to 10 requests a
second, so it lasts), `GET /v1/endpoints` and `GET /v1/endpoints/{id}` are timed, READS times each.

The goals of local mode under load: a batch answered in at most 3 s, reads under 300 ms.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import requests

from bench.measurement.harness import quiet
from local.receiver import WebhookReceiver
from local.run import LocalHookline

BATCHES = 10
EVENTS_PER_BATCH = 100
FANOUT = 5
READS = 20
RECEIVER_SECONDS = 0.02
BATCH_GOAL_S = 3.0
READ_GOAL_MS = 300.0


def _timed(call: Callable[[], requests.Response]) -> tuple[float, requests.Response]:
    started = time.perf_counter()
    response = call()
    return time.perf_counter() - started, response


def measure(
    progress: Callable[[str], None] = lambda _s: None, batches: int = BATCHES, events_per_batch: int = EVENTS_PER_BATCH, reads: int = READS
) -> dict[str, Any]:
    with quiet(), LocalHookline(port=0, aws_port=0, readable_logs=False) as hl, WebhookReceiver(delay_seconds=RECEIVER_SECONDS) as receiver:
        session = requests.Session()
        session.headers["authorization"] = f"Bearer {hl.api_key}"
        endpoints = []
        for _ in range(FANOUT):
            created = session.post(f"{hl.base_url}/v1/endpoints", json={"url": receiver.url}, timeout=30)
            created.raise_for_status()
            endpoints.append(created.json()["id"])
        batch_seconds = []
        for b in range(batches):
            events: list[Any] = [{"type": "bench.local", "data": {"batch": b, "n": i, "pad": "x" * 800}} for i in range(events_per_batch)]
            seconds, answer = _timed(partial(session.post, f"{hl.base_url}/v1/events/batch", json={"events": events}, timeout=120))
            answer.raise_for_status()
            assert all(r.get("status") == 202 for r in answer.json()["results"]), answer.text[:300]
            batch_seconds.append(seconds)
            progress(f"batch {b + 1}/{batches}")
        timings: dict[str, list[float]] = {"GET /v1/endpoints": [], "GET /v1/endpoints/{id}": []}
        for i in range(reads):
            for name, url in (
                ("GET /v1/endpoints", f"{hl.base_url}/v1/endpoints"),
                ("GET /v1/endpoints/{id}", f"{hl.base_url}/v1/endpoints/{endpoints[i % FANOUT]}"),
            ):
                seconds, answer = _timed(partial(session.get, url, timeout=60))
                answer.raise_for_status()
                timings[name].append(seconds)
        progress("reads")
        delivered = len(receiver.received)
    deliveries = batches * events_per_batch * FANOUT
    return {
        "deliveries": deliveries,
        "batch_answer_s": {
            "median": round(statistics.median(batch_seconds), 3),
            "max": round(max(batch_seconds), 3),
            "goal": BATCH_GOAL_S,
        },
        "reads_ms": {
            name: {"median": round(statistics.median(v) * 1000, 1), "max": round(max(v) * 1000, 1), "goal": READ_GOAL_MS} for name, v in timings.items()
        },
        "delivered_while_measuring": delivered,
        "backlog_at_reads": deliveries - delivered,
    }
