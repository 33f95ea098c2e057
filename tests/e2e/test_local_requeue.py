"""Re-enabling an endpoint with a paused backlog in local mode: the answer comes at once, a job moves the backlog.

Local mode here is the whole service in this process (its pollers run the job queue's steps through the real replay
handler). The backlog is 50 paused deliveries, stored by the real ingest while the endpoint was disabled, re-queued in
three pages of 20 (the job's page, `REQUEUE_PAGE`, made small here: the paging is what is tested, and every delivery
through local mode costs time); issue 17 asks for the same at 20,000 with pages of 100, `make test-scale`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from hookline.core.jobs import REQUEUE_PAUSED, Job, StepResult
from hookline.services import bulk
from hookline.wiring import container
from local.receiver import WebhookReceiver
from local.run import LocalHookline
from tests.e2e.conftest import local_api as _api
from tests.e2e.conftest import running_local_mode

BACKLOG = 50
PAGE = 20  # the job's page here: three of them, the third the one that dies


def _wait(condition: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.25)
    return bool(condition())


class DiesOnce:
    """The re-queue's step, which dies once at its third page of PAGE (the Lambda killed mid-job).

    The page is known by the job's count, not by calls: the job's first step can run before the request has marked
    the endpoint active, and then it only waits."""

    def __init__(self, kind: Any) -> None:
        self.kind, self.died = kind, False

    def step(self, job: Job, now: Any) -> StepResult:
        if not self.died and job.counts.get("requeued") == 2 * PAGE:
            self.died = True
            raise RuntimeError("killed mid-job")
        return self.kind.step(job, now)


@pytest.fixture(scope="module")
def roomy_hookline() -> Iterator[LocalHookline]:
    """Local mode whose endpoints start at 50 in flight (the default ramps up from 5): the backlog drains in seconds."""
    with running_local_mode(HOOKLINE_INITIAL_CONCURRENCY="50") as hookline:
        yield hookline


def test_a_paused_backlog_comes_back_by_a_job_even_when_a_step_dies(
    roomy_hookline: LocalHookline, receiver: WebhookReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    hl = roomy_hookline
    monkeypatch.setattr(bulk, "REQUEUE_PAGE", PAGE)
    # Given an endpoint disabled with 50 paused deliveries (stored paused by ingest while it was disabled)
    status, ep = _api(hl, "POST", "/v1/endpoints", {"url": receiver.url, "rate_limit_per_second": 500, "max_concurrency": 100})
    assert status == 201
    receiver.secret = ep["secret"]
    assert _api(hl, "PATCH", f"/v1/endpoints/{ep['id']}", {"status": "disabled"})[0] == 200
    for start in range(0, BACKLOG, 100):
        events = [{"type": "backlog", "data": {"n": n}} for n in range(start, min(BACKLOG, start + 100))]
        status, batch = _api(hl, "POST", "/v1/events/batch", {"events": events})
        assert status == 202, batch
    assert _api(hl, "GET", f"/v1/endpoints/{ep['id']}")[1]["backlog"] == {"failed": 0, "paused": BACKLOG, "pending": 0, "more": False}
    runner = container.job_runner()
    dying = DiesOnce(runner.kinds[REQUEUE_PAUSED])
    runner.kinds[REQUEUE_PAUSED] = dying  # type: ignore[index]
    try:
        # When it is re-enabled, Then the answer comes at once, naming the job, before the backlog moved
        started = time.monotonic()
        status, enabled = _api(hl, "POST", f"/v1/endpoints/{ep['id']}/enable")
        assert status == 200 and time.monotonic() - started < 3
        job_id = enabled["requeue"]["id"]
        # And the job's progress is readable while it runs; its third step dies, and the job stops moving
        assert _wait(lambda: dying.died, 60)
        time.sleep(1)
        stalled = _api(hl, "GET", f"/v1/jobs/{job_id}")[1]
        assert (stalled["status"], stalled["counts"]["requeued"]) == ("running", 2 * PAGE)
        # When the operator resumes it, Then it finishes, and every paused delivery is delivered, once each, verified
        assert _api(hl, "POST", f"/v1/jobs/{job_id}/resume")[0] == 202
        assert _wait(lambda: _api(hl, "GET", f"/v1/jobs/{job_id}")[1]["status"] == "done", 60)
        assert _wait(lambda: len({w.headers["webhook-id"] for w in receiver.received}) >= BACKLOG, 120)
    finally:
        runner.kinds[REQUEUE_PAUSED] = dying.kind  # type: ignore[index]
    done = _api(hl, "GET", f"/v1/jobs/{job_id}")[1]
    assert (done["counts"], done["endpoint_id"]) == ({"requeued": BACKLOG}, ep["id"])
    assert all(w.verified for w in receiver.received)
    assert _wait(lambda: _api(hl, "GET", f"/v1/endpoints/{ep['id']}")[1]["backlog"]["paused"] == 0, 30)
