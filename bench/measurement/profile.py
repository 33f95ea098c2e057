"""Where the delivery handler's CPU goes: a profile of the real handler over the stand-ins (the CPU goal's case).

The handler's tasks run on threads of their own, so a profiler of the calling thread (cProfile) misses them, a
sampling one charges a thread's CPU to wherever the thread next waits (a socket's recv, an idle pool thread), and
a wall-clock one counts the time they wait for DynamoDB and the receiver. This profile times the calls instead,
each on its own thread's CPU clock (`time.thread_time`), as it runs: every AWS call (botocore's `_make_api_call`,
by service and operation, the resource layer's work around it included) and every webhook POST
(`WebhookClient.post`, the signature excluded); what is left of the process's CPU is the handler's own Python
(the SQS event, planning, the threads, logs and metrics).

`make bench` runs it over `BATCHES` batches of 10 first attempts, each task to an endpoint of its own (the CPU
goal's case), with DynamoDB, SQS and the receiver in processes of their own.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BATCHES = 40
BEFORE = Path(__file__).with_name("profile_before.json")  # this profile of the code before the efficiency work, as recorded there
RUNS = 2  # the profile of the fastest run is kept: the slower ones carry other processes' interference (bench.models.duration.measure_cpu)


class Timed:
    """CPU seconds and calls per line, each call timed on its own thread's CPU clock."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = {}
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def wrap(self, owner: type, name: str, line: Callable[..., str]) -> Callable[[], None]:
        """Time `owner.name`, each call charged to `line(self, *args)`; returns what puts the method back."""
        original = getattr(owner, name)

        def timed(obj: Any, *args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return original(obj, *args, **kwargs)
            finally:
                used = time.thread_time() - started
                key = line(obj, *args)
                with self._lock:
                    self.cpu[key] = self.cpu.get(key, 0.0) + used
                    self.calls[key] += 1

        setattr(owner, name, timed)
        return lambda: setattr(owner, name, original)


@contextmanager
def timed_calls() -> Iterator[Timed]:
    """Every AWS call and webhook POST of the process timed while inside."""
    import botocore.client

    from hookline.adapters.dynamo.calls import DataPlaneCalls
    from hookline.adapters.http import WebhookClient

    timed = Timed()
    undo = [
        timed.wrap(botocore.client.BaseClient, "_make_api_call", lambda client, operation, *_: f"AWS {client.meta.service_model.service_name} {operation}"),
        # hookline's Table makes its data-plane calls through DataPlaneCalls, in place of botocore's method on that
        # client (the first of each, which it hands to botocore's own, is timed here once)
        timed.wrap(DataPlaneCalls, "__call__", lambda _calls, operation, *_: f"AWS dynamodb {operation}"),
        timed.wrap(WebhookClient, "post", lambda *_: "webhook POST"),
    ]
    try:
        yield timed
    finally:
        for put_back in undo:
            put_back()


def lines(timed: Timed, total_seconds: float, tasks: int) -> list[dict[str, Any]]:
    """The profile's lines, most CPU first: per task, the calls, the CPU (ms) and its share of the handler's; last
    the handler's own Python (what no timed call took)."""
    out = [
        {
            "what": key,
            "calls_per_task": round(timed.calls[key] / tasks, 2),
            "ms_per_call": round(used * 1000 / timed.calls[key], 3),
            "ms_per_task": round(used * 1000 / tasks, 3),
            "share": round(used / total_seconds, 3),
        }
        for key, used in sorted(timed.cpu.items(), key=lambda kv: -kv[1])
    ]
    rest = total_seconds - sum(timed.cpu.values())
    out.append(
        {
            "what": "the rest: the handler's own Python",
            "calls_per_task": None,
            "ms_per_call": None,
            "ms_per_task": round(rest * 1000 / tasks, 3),
            "share": round(rest / total_seconds, 3),
        }
    )
    return out


def profile_delivery(batches: int = BATCHES, size: int = 1024, runs: int = RUNS) -> dict[str, Any]:
    """The delivery handler's profile over `batches` batches of 10 first attempts (bench.models.duration's CPU case): of
    `runs` runs, the one with the least CPU per task."""
    from bench.measurement.harness import moto_hookline, quiet
    from bench.measurement.payloads import event_body
    from bench.models.duration import BATCH, _receiver_process
    from hookline.wiring import topology

    with quiet(), moto_hookline(server=True) as h, _receiver_process(200) as url:
        types = [f"profile.t{i}" for i in range(BATCH)]
        for t in types:
            status, body = h.api("POST", "/v1/endpoints", {"url": url, "event_types": [t]})
            assert status == 201, body
        tasks = batches * BATCH
        profiles = []
        for run in range(runs):
            events = []
            for _ in range(batches + (0 if run else 2)):  # the first run's first two: a warm-up (imports, clients, pools, connections)
                status, body = h.api("POST", "/v1/events/batch", {"events": [event_body(size, i, t) for i, t in enumerate(types)]})
                assert status == 202, body
                messages = h.receive(topology.DELIVERY_QUEUE, BATCH)
                assert len(messages) == BATCH
                events.append(h.batch_event(topology.DELIVERY_QUEUE, messages))
            for event in events[:-batches]:
                h.invoke_consumer(topology.DELIVERY_QUEUE, event)
            with timed_calls() as timed:
                started = time.process_time()
                for event in events[-batches:]:
                    h.invoke_consumer(topology.DELIVERY_QUEUE, event)
                total = time.process_time() - started
            profiles.append({"tasks": tasks, "cpu_ms_per_task": round(total * 1000 / tasks, 3), "lines": lines(timed, total, tasks)})
    return min(profiles, key=lambda p: p["cpu_ms_per_task"])


def recorded_before() -> dict[str, Any]:
    """The profile of the delivery handler before the efficiency work (`BEFORE`: its commit, when and how it was made)."""
    recorded: dict[str, Any] = json.loads(BEFORE.read_text())
    return recorded


if __name__ == "__main__":
    print(json.dumps(profile_delivery(), indent=1))
