"""Bulk work as paged, resumable jobs: start one, run its steps from the job queue, read its progress, resume it.

The contract every job keeps, whatever its kind:

* `start` stores the job item (a cursor and counters) and queues its first step; the
  request that started it answers at once, whatever the size of the work.
* A step reads the item, has its kind do one bounded page from the cursor, queues
  the next step's message (at least a second ahead), then advances the item
  conditionally on the step it read. A kind whose page must happen whole once
  begun plans it (stored on the item with the advance) and applies it in the
  next step, which the same invocation takes at once. A kind's page is idempotent (re-queueing a
  task twice is harmless: the delivery claim lets one copy send; deleting twice
  deletes nothing more), so a step that runs again after a crash repeats its page
  and is counted once.
* Each message names the step it is for. It runs only while the job is at that
  step; behind it (a duplicate delivered later, an old chain after a resume, the
  loser of two runs of one step) it ends at once, so one chain paces the work;
  ahead of it (the step before has queued it but not yet advanced, or died in
  between) it fails, and SQS hands it out again later, by when the step before has
  advanced or been redelivered itself.
* A step that fails raises: its message goes back to SQS and runs again from the
  item as it then is.
* `resume` queues a step of a running job again (an operator's tool for a job whose
  chain was lost, e.g. its message went to the job queue's DLQ); a duplicate chain is
  harmless for the same reason.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from hookline.core import ids
from hookline.core.clock import iso, parse_iso
from hookline.core.contract import jobs as contract
from hookline.core.errors import NotFound
from hookline.core.jobs import JOB, Job, step_message
from hookline.core.sqs import MAX_DELAY_SECONDS
from hookline.services.ports import JobKind, JobQueue, JobStore, PlanningJobKind

_log = logging.getLogger(__name__)

MIN_STEP_DELAY = 1  # a step's next is queued before its advance: a second gives the advance time to land
# A running job unchanged this long has lost its chain: longer than any step's wait (MAX_DELAY_SECONDS) and a redelivery.
STALLED_AFTER = timedelta(minutes=20)
# A job of a kind this release does not run is left for the release that does for this long (a deploy, its canary,
# and that release's sweeper resuming it: STALLED_AFTER), then cancelled: that release was rolled back.
UNKNOWN_KIND_PATIENCE = timedelta(hours=1)


class JobStepEarly(Exception):
    """A step's message arrived before the step before it advanced the job: it fails, so SQS delivers it again."""


@dataclass(frozen=True)
class JobRunner:
    store: JobStore
    queue: JobQueue
    kinds: Mapping[str, JobKind]
    clock: Callable[[], datetime]
    retention_days: int = 30

    def start(self, tenant: str, kind: str, params: Mapping[str, str], job_id: str | None = None, cursor: str = "", pending: tuple[str, ...] = ()) -> Job:
        """Store the job and queue its first step. With `job_id` (derived by the caller) a repeat starts nothing new.
        `cursor` and `pending`: where work another mechanism began stands (a job taking over from it)."""
        now = self.clock()
        job = Job(
            id=job_id or ids.new_id(JOB, int(now.timestamp() * 1000)),
            tenant=tenant,
            kind=kind,
            params=dict(params),
            cursor=cursor,
            pending=pending,
            created_at=iso(now),
            updated_at=iso(now),
        )
        expires_at = int((now + timedelta(days=self.retention_days)).timestamp())
        if not self.store.create(job, expires_at):
            existing = self.store.get(tenant, job.id)
            if existing is None or existing.step > 0:
                return existing or job
            job = existing  # created, but maybe never queued: a duplicate first step is harmless
        self.queue.enqueue_bodies([step_message(tenant, job.id, job.step)])
        return job

    def step(self, tenant: str, job_id: str, expected_step: int | None = None) -> None:
        """Run step `expected_step` of the job (see the module's contract); None: whatever step it is at."""
        job = self.store.get(tenant, job_id)
        if job is None or job.status != "running":
            return  # expired, finished, or cancelled
        if expected_step is not None and job.step > expected_step:
            return  # a duplicate of a step taken already, or an old chain: the live one goes on
        if expected_step is not None and job.step < expected_step:
            raise JobStepEarly(f"job {job_id} is at step {job.step}, this message is for step {expected_step}: SQS hands it out again later")
        kind = self.kinds.get(job.kind)
        now = self.clock()
        if kind is None:
            self._leave_unknown(job, now)
            return
        taken = self._take(job, kind, now)
        while taken is not None and taken.pending:
            # A planned page is applied at once, in this invocation: the message queued for it (before the plan's
            # advance) finds the job past it and ends, unless this invocation dies first, when it applies the page.
            taken = self._take(taken, kind, self.clock())

    def _take(self, job: Job, kind: JobKind, now: datetime) -> Job | None:
        """One step of the job: the job as advanced, if this step advanced it and it is still running."""
        if job.pending:
            if not isinstance(kind, PlanningJobKind):
                raise TypeError(f"job {job.id} has a planned page, and its kind {job.kind!r} cannot apply one")
            result = kind.apply(job, now)
            following = job.applied(result.counts, iso(now))
        else:
            result = kind.step(job, now)
            if result.cancel:
                self.store.advance(job, job.cancelled(result.cancel, iso(now)))
                return None
            following = job.repeated(iso(now)) if result.again_in is not None else job.advanced(result.cursor, result.counts, iso(now), result.pending)
        if following.status == "running":
            # Queued before the advance, so no crash can leave the job advanced with no next step; a second ahead, so
            # the advance has landed when it is handed out (if not, it fails and comes again).
            wait = 0 if following.pending else result.again_in if result.again_in is not None else result.next_in
            self.queue.enqueue_bodies([step_message(job.tenant, job.id, following.step)], [min(MAX_DELAY_SECONDS, max(MIN_STEP_DELAY, wait))])
        # Lost to a twin run of this step: both queued step k+1, and the later copy ends.
        return following if self.store.advance(job, following) and following.status == "running" else None

    def get(self, tenant: str, job_id: str) -> Job | None:
        return self.store.get(tenant, job_id) if ids.is_id(job_id, JOB) else None

    def find(self, tenant: str, job_id: str) -> Job:
        """The job, or NotFound (`job_not_found`) for an unknown or malformed id."""
        job = self.get(tenant, job_id)
        if job is None:
            raise NotFound(f"job {job_id[:64]} not found", code="job_not_found")
        return job

    def describe(self, tenant: str, job_id: str) -> contract.Job:
        return contract.Job.of(self.find(tenant, job_id))

    def resume_stalled(self, stalled_after: timedelta = STALLED_AFTER) -> int:
        """Resume every running job that has not moved for `stalled_after` (its chain of steps was lost: a step
        message dropped, or dead-lettered); how many. The sweeper's, every minute. A job still moving is left alone,
        and a resumed one that was not lost runs one chain all the same (each message names its step)."""
        now, resumed = self.clock(), 0
        for tenant, job_id in self.store.running():
            job = self.store.get(tenant, job_id)
            if job is None or job.status != "running":
                self.store.forget_running(tenant, job_id)
                continue
            if job.kind not in self.kinds:
                self._leave_unknown(job, now)  # the release that runs it resumes it
            elif now - parse_iso(job.updated_at) >= stalled_after:
                _log.warning("stalled job resumed", extra={"tenant": tenant, "job_id": job_id, "kind": job.kind, "step": job.step})
                self.queue.enqueue_bodies([step_message(tenant, job_id, job.step)])
                resumed += 1
        return resumed

    def _leave_unknown(self, job: Job, now: datetime) -> None:
        """A job of a kind a later release added, met by this one (its step handed to the canary's other 90 %, or
        its mark listed by this release's sweeper): left as it is, its step message consumed (no failure, so nothing
        reaches the job queue's DLQ), for the later release's sweeper to resume once it is in service. Past
        UNKNOWN_KIND_PATIENCE that release was rolled back, and the job is cancelled."""
        if now - parse_iso(job.updated_at) < UNKNOWN_KIND_PATIENCE:
            _log.info("job of a kind this release does not run, left for the release that does", extra={"job_id": job.id, "kind": job.kind})
            return
        _log.error("job of an unknown kind cancelled", extra={"tenant": job.tenant, "job_id": job.id, "kind": job.kind})
        self.store.advance(job, job.cancelled(f"unknown kind {job.kind}: the release that runs it is not in service", iso(now)))

    def resume(self, tenant: str, job_id: str) -> contract.Job:
        """Queue a step of a running job again; a finished or cancelled one is answered as it is."""
        job = self.find(tenant, job_id)
        if job.status == "running":
            self.queue.enqueue_bodies([step_message(tenant, job_id, job.step)])
        return contract.Job.of(job)
