"""The jobs queue run by the scheduled sweep, where the jobs function has no event source on it (HOOKLINE_SIZE=small,
infra/sizing.py: a fourth capped source would take 2 more of a new account's 10 concurrent executions).

The sweep does by hand what Lambda's event source would, with the same at-least-once contract: it receives a batch,
hands it to the same batch handler the event source invokes (hookline.entrypoints.jobs), and deletes the records
that succeeded. A record that failed, or a batch whose run raised, is not deleted: SQS hands it out again after the
queue's visibility timeout, and its redrive policy moves it to the job queue's DLQ after its receives, as it would
from the event source. Nothing is deleted before it ran, so no message is lost; one that ran and whose delete failed
runs again (a job's step is idempotent: hookline.services.jobs).

It takes batches until the queue has none (a receive waits POLL_SECONDS, so the next step of a job, queued a second
ahead, runs in the same sweep) or WINDOW_SECONDS have passed since it began: the batch begun last ends well before
the next minute's sweep and inside the function's timeout, so the sweep keeps to one invocation at a time.

The same loop moves the previous release's job queue (the one it named `replay`, topology.PREVIOUS_JOB_QUEUE) into
the jobs queue, at every size: its batch is `Resend`, which sends each record's body to the jobs queue, and the sweep
deletes a record only after its send succeeded. A send that fails leaves its record in the old queue, handed out again
after the visibility timeout (and, after the old queue's receives, kept in its DLQ): nothing is lost, and a record
sent twice runs as one step (steps are idempotent). The next release removes the old queue, its DLQ and this drain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hookline.services.ports import JobQueue, ReceivedMessages

POLL_SECONDS = 2  # longer than a job's least step delay (hookline.services.jobs.MIN_STEP_DELAY)
WINDOW_SECONDS = 30  # half the every-minute sweep's interval; a batch is a job's step or two, each one bounded page


@dataclass(frozen=True)
class JobQueueSweep:
    messages: ReceivedMessages
    run_batch: Callable[[list[dict[str, Any]]], set[str]]  # the records' failed message ids; raises when all failed
    clock: Callable[[], float]  # monotonic seconds
    batch_size: int
    window_seconds: float = WINDOW_SECONDS
    counts: tuple[str, str] = ("jobs_run", "jobs_failed")  # the report's names for the records done, and failed
    poll_seconds: int = POLL_SECONDS  # how long a receive waits for a message; 0 is a short poll

    def run(self) -> dict[str, int]:
        """Run the queue's messages until it is empty or the window has passed: how many ran, and failed."""
        deadline = self.clock() + self.window_seconds
        ran = failed = 0
        while (left := deadline - self.clock()) > 0:
            records = self.messages.receive(self.batch_size, min(self.poll_seconds, int(left)))
            if not records:
                break
            try:
                failures = self.run_batch(records)
            except Exception:  # every record failed: each comes back after the visibility timeout
                failures = {str(r["messageId"]) for r in records}
            done = [str(r["receiptHandle"]) for r in records if str(r["messageId"]) not in failures]
            self.messages.delete(done)
            ran, failed = ran + len(done), failed + len(records) - len(done)
        return {self.counts[0]: ran, self.counts[1]: failed}


# The previous release's job queue is drained in a short window before the jobs queue's run: it holds only what the
# previous release queued before (or while) this one was deployed. Its receives are short polls: nothing new arrives
# there, so a long poll would only hold every sweep PREVIOUS_POLL_SECONDS longer once it is empty (and a short poll
# that misses a message, as SQS's sampling may, leaves it for the next minute's sweep).
PREVIOUS_WINDOW_SECONDS = 10
PREVIOUS_POLL_SECONDS = 0
PREVIOUS_COUNTS = ("previous_jobs_moved", "previous_jobs_failed")


@dataclass(frozen=True)
class Resend:
    """A batch of the previous release's job queue, sent on to the jobs queue as it is, one record a send: answers the
    message ids of the records whose send failed, which the sweep leaves in the old queue."""

    jobs: JobQueue

    def __call__(self, records: list[dict[str, Any]]) -> set[str]:
        failed: set[str] = set()
        for record in records:
            try:
                self.jobs.enqueue_bodies([str(record["body"])])
            except Exception:
                failed.add(str(record["messageId"]))
        return failed
