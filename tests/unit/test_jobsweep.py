"""The sweep's run of the job queue (hookline.services.jobsweep), with a fake queue and clock: what it deletes, what it
leaves for SQS to hand out again, and when it stops."""

from __future__ import annotations

from typing import Any

import pytest

from hookline.services.jobsweep import POLL_SECONDS, WINDOW_SECONDS, JobQueueSweep


class FakeQueue:
    def __init__(self, batches: list[list[str]]) -> None:
        self.batches = [[{"messageId": m, "receiptHandle": f"rh-{m}", "body": "{}"} for m in batch] for batch in batches]
        self.waits: list[int] = []
        self.deleted: list[str] = []

    def receive(self, max_messages: int, wait_seconds: int) -> list[dict[str, Any]]:
        self.waits.append(wait_seconds)
        return self.batches.pop(0) if self.batches else []

    def delete(self, receipt_handles: list[str]) -> None:
        self.deleted.extend(receipt_handles)


class Clock:
    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def run(queue: FakeQueue, failing: set[str], clock: Clock | None = None) -> dict[str, int]:
    def run_batch(records: list[dict[str, Any]]) -> set[str]:
        ids = {r["messageId"] for r in records}
        if ids <= failing:
            raise RuntimeError("every record failed")  # as process_partial_response does
        return ids & failing

    return JobQueueSweep(queue, run_batch, clock or Clock(0.0), batch_size=10).run()


@pytest.mark.parametrize(
    ("batches", "failing", "deleted", "counts"),
    [
        ([], set(), [], {"jobs_run": 0, "jobs_failed": 0}),
        ([["a", "b"], ["c"]], set(), ["rh-a", "rh-b", "rh-c"], {"jobs_run": 3, "jobs_failed": 0}),
        # A failed record stays on the queue: SQS hands it out again after the visibility timeout
        ([["a", "b"]], {"b"}, ["rh-a"], {"jobs_run": 1, "jobs_failed": 1}),
        # A batch whose run raised deletes nothing of it; the next batch still runs
        ([["a"], ["b"]], {"a"}, ["rh-b"], {"jobs_run": 1, "jobs_failed": 1}),
    ],
)
def test_only_what_ran_is_deleted(batches: list[list[str]], failing: set[str], deleted: list[str], counts: dict[str, int]) -> None:
    queue = FakeQueue(batches)
    assert run(queue, failing) == counts
    assert queue.deleted == deleted
    # And it waits for the next step of a job (queued a second ahead) before it calls the queue empty
    assert queue.waits[-1] == POLL_SECONDS


def test_it_takes_no_batch_once_its_window_has_passed() -> None:
    # Given a queue that never empties, and a clock that moves 10 s at each reading
    queue = FakeQueue([[str(n)] for n in range(100)])
    counts = run(queue, set(), Clock(10.0))
    # Then it takes batches at 20 s and 30 s of a window that began at 10 s, and none at 40 s, when it has passed
    assert WINDOW_SECONDS == 30
    assert counts["jobs_run"] == len(queue.waits) == 2
