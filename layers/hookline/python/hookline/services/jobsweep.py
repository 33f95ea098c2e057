"""The job queue run by the scheduled sweep, where the replay function has no event source on it (HOOKLINE_SIZE=small,
infra/sizing.py: a fourth capped source would take 2 more of a new account's 10 concurrent executions).

The sweep does by hand what Lambda's event source would, with the same at-least-once contract: it receives a batch,
hands it to the same batch handler the event source invokes (hookline.entrypoints.replay), and deletes the records
that succeeded. A record that failed, or a batch whose run raised, is not deleted: SQS hands it out again after the
queue's visibility timeout, and its redrive policy moves it to the job queue's DLQ after its receives, as it would
from the event source. Nothing is deleted before it ran, so no message is lost; one that ran and whose delete failed
runs again (a job's step is idempotent: hookline.services.jobs).

It takes batches until the queue has none (a receive waits POLL_SECONDS, so the next step of a job, queued a second
ahead, runs in the same sweep) or WINDOW_SECONDS have passed since it began: the batch begun last ends well before
the next minute's sweep and inside the function's timeout, so the sweep keeps to one invocation at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hookline.services.ports import ReceivedMessages

POLL_SECONDS = 2  # longer than a job's least step delay (hookline.services.jobs.MIN_STEP_DELAY)
WINDOW_SECONDS = 30  # half the every-minute sweep's interval; a batch is a job's step or two, each one bounded page


@dataclass(frozen=True)
class JobQueueSweep:
    messages: ReceivedMessages
    run_batch: Callable[[list[dict[str, Any]]], set[str]]  # the records' failed message ids; raises when all failed
    clock: Callable[[], float]  # monotonic seconds
    batch_size: int
    window_seconds: float = WINDOW_SECONDS

    def run(self) -> dict[str, int]:
        """Run the job queue's messages until it is empty or the window has passed: how many ran, and failed."""
        deadline = self.clock() + self.window_seconds
        ran = failed = 0
        while (left := deadline - self.clock()) > 0:
            records = self.messages.receive(self.batch_size, min(POLL_SECONDS, int(left)))
            if not records:
                break
            try:
                failures = self.run_batch(records)
            except Exception:  # every record failed: each comes back after the visibility timeout
                failures = {str(r["messageId"]) for r in records}
            done = [str(r["receiptHandle"]) for r in records if str(r["messageId"]) not in failures]
            self.messages.delete(done)
            ran, failed = ran + len(done), failed + len(records) - len(done)
        return {"jobs_run": ran, "jobs_failed": failed}
