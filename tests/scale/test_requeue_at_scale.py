"""Issue 17 at full size in local mode: re-enabling an endpoint with 20,000 paused deliveries.

tests/e2e/test_local_requeue.py at the size the issue names (it has 250): the answer to
`POST /v1/endpoints/{id}/enable` comes within seconds whatever the backlog, the job's progress is readable, a
step killed half-way (at 10,000 requeued) leaves the job running with its count until the operator resumes it,
and every paused delivery reaches the receiver in the end, verified, never faster than the endpoint's rate.

It takes about 16 minutes (local mode delivers 20-28 webhooks a second), so it runs only when asked for:
`make test-scale` (`pytest -m scale tests/scale -s`), which prints each phase's time and throughput. At this
endpoint rate the rate check is loose (local mode delivers far below it). With a rate that binds (20 a second),
a probe of 3,000 delivered 17 a second, and the busiest second at the receiver held 27: hookline spaces the
sends 55 ms apart, but in local mode one Python process runs every function and the receiver sits in another,
so scheduling jitter of a few hundred milliseconds bunches arrivals. At that rate the check would measure
local mode's jitter, not the limiter (whose spacing tests/unit and the isolation tests check on the send side).
"""

from __future__ import annotations

import bisect
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from hookline.core.jobs import REQUEUE_PAUSED, Job, StepResult
from hookline.wiring import container
from local.receiver import WebhookReceiver
from local.run import LocalHookline
from tests.e2e.conftest import running_local_mode

pytestmark = pytest.mark.scale

BACKLOG = 20_000
BATCH = 100  # events per POST /v1/events/batch; one endpoint subscribed, so one delivery each
KILLED_AT = 10_000  # the requeue's step dies once, when the job has requeued this many
RATE = 500  # the endpoint's rate_limit_per_second: above what local mode delivers (20-28 a second)
RATE_TOLERANCE = 1.1  # arrivals in any 1 s window: at most the rate, and a tenth
ENABLE_BUDGET_SECONDS = 3.0
KILL_WAIT_SECONDS = 900  # the job requeues at most a page of 100 a second: 10,000 take about three minutes
DRAIN_WAIT_SECONDS = 1800


class CountingReceiver(WebhookReceiver):
    """The webhook receiver, also keeping each backlog webhook's id, number, arrival time (monotonic) and answer.

    The test polls these counters every second or two: a set built from `received` each time would cost the
    interpreter the whole service runs in (20,000 entries, again and again)."""

    def __init__(self) -> None:
        super().__init__(port=0)
        self.counter_lock = threading.Lock()
        self.backlog_ids: set[str] = set()
        self.backlog_numbers: set[int] = set()
        self.arrivals: list[float] = []  # every backlog webhook's, repeats included
        self.not_ok = 0  # backlog webhooks answered other than 2xx (a signature that failed: 401)

    def handle(self, method: str, path: str, headers: dict[str, str], body: bytes) -> int:
        arrived = time.monotonic()
        status = super().handle(method, path, headers, body)
        payload = json.loads(body)
        if payload.get("type") == "backlog":  # not the enable's hookline.test
            with self.counter_lock:
                self.arrivals.append(arrived)
                self.backlog_ids.add(headers["webhook-id"])
                self.backlog_numbers.add(int(payload["data"]["n"]))
                self.not_ok += status >= 300
        return status

    def distinct(self) -> int:
        with self.counter_lock:
            return len(self.backlog_ids)


class DiesAt:
    """The re-queue's step, which dies once when the job has requeued `at` (tests/e2e/test_local_requeue.DiesOnce's way)."""

    def __init__(self, kind: Any, at: int) -> None:
        self.kind, self.at, self.died = kind, at, False

    def step(self, job: Job, now: Any) -> StepResult:
        if not self.died and job.counts.get("requeued") == self.at:
            self.died = True
            raise RuntimeError("killed mid-job")
        return self.kind.step(job, now)


def busiest_second(arrivals: list[float]) -> int:
    """The most arrivals in any 1 s window."""
    times = sorted(arrivals)
    return max((bisect.bisect_left(times, start + 1.0, lo=i) - i for i, start in enumerate(times)), default=0)


class Api:
    def __init__(self, hl: LocalHookline) -> None:
        self.base = hl.base_url
        self.session = requests.Session()
        self.session.headers["authorization"] = f"Bearer {hl.api_key}"

    def __call__(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        r = self.session.request(method, f"{self.base}{path}", json=body, timeout=120)
        return r.status_code, (r.json() if r.content else None)


def _wait(condition: Any, seconds: float, every: float = 1.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return bool(condition())


@pytest.fixture(scope="module")
def roomy_hookline() -> Iterator[LocalHookline]:
    """Local mode whose endpoints start at 50 in flight (the default ramps up from 5), as in the 250 test."""
    with running_local_mode(HOOKLINE_INITIAL_CONCURRENCY="50") as hookline:
        yield hookline


@pytest.fixture
def receiver() -> Iterator[CountingReceiver]:
    with CountingReceiver() as r:
        yield r  # type: ignore[misc]


def test_twenty_thousand_paused_deliveries_come_back_by_a_job_even_when_a_step_dies(roomy_hookline: LocalHookline, receiver: CountingReceiver) -> None:
    api, began = Api(roomy_hookline), time.monotonic()

    def report(name: str, since: float, count: int = 0) -> float:
        seconds = time.monotonic() - since
        print(f"[scale] {name}: {seconds:.1f} s" + (f" ({count / seconds:.0f}/s)" if count else ""), flush=True)
        return seconds

    # Given an endpoint disabled with 20,000 paused deliveries, stored paused by the real ingest, 100 events a batch
    status, ep = api("POST", "/v1/endpoints", {"url": receiver.url, "rate_limit_per_second": RATE, "max_concurrency": 100})
    assert status == 201, ep
    receiver.secret = ep["secret"]
    assert api("PATCH", f"/v1/endpoints/{ep['id']}", {"status": "disabled"})[0] == 200
    started = time.monotonic()
    for start in range(0, BACKLOG, BATCH):
        status, batch = api("POST", "/v1/events/batch", {"events": [{"type": "backlog", "data": {"n": n}} for n in range(start, start + BATCH)]})
        assert status == 202, batch
    report(f"seed: {BACKLOG} paused through POST /v1/events/batch", started, BACKLOG)
    backlog = api("GET", f"/v1/endpoints/{ep['id']}")[1]["backlog"]
    assert (backlog["failed"], backlog["paused"] > 0, backlog["more"]) == (0, True, True), backlog  # its counts stop at a page
    assert receiver.distinct() == 0

    runner = container.job_runner()
    killer = DiesAt(runner.kinds[REQUEUE_PAUSED], KILLED_AT)
    runner.kinds[REQUEUE_PAUSED] = killer  # type: ignore[index]
    try:
        # When it is re-enabled, Then the answer comes within seconds, naming the job
        started = time.monotonic()
        status, enabled = api("POST", f"/v1/endpoints/{ep['id']}/enable")
        enable_seconds = report("enable: POST /v1/endpoints/{id}/enable", started)
        assert status == 200, enabled
        assert enable_seconds < ENABLE_BUDGET_SECONDS
        job_id = enabled["requeue"]["id"]

        # And the job's progress is readable while it runs, and only grows, until its step dies at 10,000
        seen: list[int] = []

        def killed() -> bool:
            seen.append(api("GET", f"/v1/jobs/{job_id}")[1]["counts"].get("requeued", 0))
            return killer.died

        assert _wait(killed, KILL_WAIT_SECONDS, every=2.0), f"the job never reached {KILLED_AT} requeued: {seen[-5:]}"
        assert seen == sorted(seen) and len(set(seen)) > 3, seen
        report(f"requeue: enable to the kill at {KILLED_AT} requeued", started, KILLED_AT)
        # Then the job stops there, running, its count readable
        time.sleep(2)
        stalled = api("GET", f"/v1/jobs/{job_id}")[1]
        assert (stalled["status"], stalled["counts"]) == ("running", {"requeued": KILLED_AT}), stalled
        print(f"[scale] at the kill: {receiver.distinct()} delivered", flush=True)

        # When the operator resumes it, Then it finishes, every paused delivery requeued once
        assert api("POST", f"/v1/jobs/{job_id}/resume")[0] == 202
        assert _wait(lambda: api("GET", f"/v1/jobs/{job_id}")[1]["status"] == "done", DRAIN_WAIT_SECONDS, every=2.0)
        report("requeue: enable to the job done", started, BACKLOG)
        print(f"[scale] at the job's end: {receiver.distinct()} delivered", flush=True)
        # And every paused delivery reaches the receiver, verified
        last = [receiver.distinct(), time.monotonic()]

        def all_delivered() -> bool:
            got, now = receiver.distinct(), time.monotonic()
            if now - last[1] >= 30:
                print(f"[scale]   {got} delivered, {(got - last[0]) / (now - last[1]):.0f}/s lately", flush=True)
                last[:] = [got, now]
            return got >= BACKLOG

        assert _wait(all_delivered, DRAIN_WAIT_SECONDS), f"{receiver.distinct()} of {BACKLOG} delivered"
        report("drain: enable to the last delivery", started, BACKLOG)
    finally:
        runner.kinds[REQUEUE_PAUSED] = killer.kind  # type: ignore[index]

    done = api("GET", f"/v1/jobs/{job_id}")[1]
    assert (done["status"], done["counts"], done["endpoint_id"]) == ("done", {"requeued": BACKLOG}, ep["id"])
    with receiver.counter_lock:
        numbers, arrivals, not_ok = set(receiver.backlog_numbers), list(receiver.arrivals), receiver.not_ok
    assert numbers == set(range(BACKLOG))
    assert not_ok == 0 and all(w.verified for w in receiver.received)
    assert _wait(lambda: api("GET", f"/v1/endpoints/{ep['id']}")[1]["backlog"] == {"failed": 0, "paused": 0, "pending": 0, "more": False}, 60)
    # And never faster than the endpoint's rate: at most rate_limit_per_second (and a tenth) in any one second
    busiest = busiest_second(arrivals)
    print(f"[scale] {len(arrivals)} backlog webhooks ({len(arrivals) - BACKLOG} repeats); busiest second {busiest} (limit {RATE}/s)", flush=True)
    report("total", began)
    assert busiest <= RATE * RATE_TOLERANCE
