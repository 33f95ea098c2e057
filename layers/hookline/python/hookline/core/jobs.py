"""A bulk job as a value: what kind it is, where its paging stands, what it has done, and what the API shows of it. Pure.

Bulk work (re-queueing a re-enabled endpoint's paused backlog, deleting a customer's
endpoints, ...) never runs inside a request. It is a job: one item with a cursor and
counters, and one message on the job queue per step. A step takes one bounded page from
the cursor and advances the item conditionally on the step it read, so a step that runs
twice is counted once (hookline.services.jobs).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

JOB = "job"  # the id prefix: job_...
JOB_MESSAGE = "job"  # the job queue message's kind

# The kinds of job: one registry. Each is run by the JobKind of its name (hookline.wiring.container.job_runner).
REQUEUE_PAUSED = "requeue_paused"  # an endpoint enabled again: its paused deliveries back on the retry queue (services.bulk)
DELETE_CUSTOMER_ENDPOINTS = "delete_customer_endpoints"  # a deleted customer's endpoints (services.bulk)
BROADCAST_JOB = "broadcast"  # a broadcast event fanned out to every subscribed endpoint (services.broadcast)
REPLAY_WINDOW = "replay_window"  # a time-window replay of one endpoint's deliveries (services.replay)
DRAIN_DLQ = "drain_dlq"  # the operators' DLQ drain, and the direct invocation that starts one (services.drain)
JOB_KINDS = (REQUEUE_PAUSED, DELETE_CUSTOMER_ENDPOINTS, BROADCAST_JOB, REPLAY_WINDOW, DRAIN_DLQ)
JobStatus = Literal["running", "done", "cancelled"]


@dataclass(frozen=True)
class Job:
    id: str
    tenant: str
    kind: str  # what its steps do (a hookline.services.jobs.JobKind by name)
    params: Mapping[str, str] = field(default_factory=dict)  # what the kind needs: an endpoint id, a customer uid
    status: JobStatus = "running"
    step: int = 0  # steps taken; every advance is conditional on it
    cursor: str = ""  # where the next page starts ("" before the first)
    counts: Mapping[str, int] = field(default_factory=dict)  # what its steps did, added up
    created_at: str = ""
    updated_at: str = ""
    note: str = ""  # why it was cancelled
    # A page its kind planned but has not yet applied (a replay's tasks): written with the cursor's advance, applied by
    # the next step, so a crash between a page's effects (restart a delivery, then queue its task) repeats none of them.
    pending: tuple[str, ...] = ()

    def advanced(self, cursor: str | None, counts: Mapping[str, int], now: str, pending: tuple[str, ...] = ()) -> Job:
        """The job after one more page: done when the page had no next (and left nothing to apply)."""
        status: JobStatus = "running" if cursor or pending else "done"
        return replace(self, step=self.step + 1, cursor=cursor or "", counts=self._added(counts), pending=pending, status=status, updated_at=now)

    def applied(self, counts: Mapping[str, int], now: str) -> Job:
        """The job after its pending page was applied: done when the cursor has no next page."""
        status: JobStatus = "running" if self.cursor else "done"
        return replace(self, step=self.step + 1, counts=self._added(counts), pending=(), status=status, updated_at=now)

    def _added(self, counts: Mapping[str, int]) -> dict[str, int]:
        added = dict(self.counts)
        for name, n in counts.items():
            added[name] = added.get(name, 0) + n
        return added

    def repeated(self, now: str) -> Job:
        """The job with the same page still to do (its kind asked to try it again later)."""
        return replace(self, step=self.step + 1, updated_at=now)

    def cancelled(self, why: str, now: str) -> Job:
        return replace(self, step=self.step + 1, status="cancelled", note=why, pending=(), updated_at=now)

    def public(self) -> dict[str, Any]:
        return {
            **dict(self.params),  # first: a kind's parameter never hides the job's own fields
            "id": self.id,
            "kind": self.kind,
            "status": self.status,
            "steps": self.step,
            "counts": dict(self.counts),
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            **({"note": self.note} if self.note else {}),
        }

    def summary(self) -> dict[str, str]:
        """What an answer that started the job shows of it."""
        return {"id": self.id, "status": self.status}


def step_message(tenant: str, job_id: str, step: int) -> str:
    """The message of the job's step `step`: a step runs only while the job is at it, so a duplicate message, or a
    resumed job's old chain, ends instead of running beside the live one."""
    return json.dumps({"kind": JOB_MESSAGE, "tenant": tenant, "job_id": job_id, "step": step}, separators=(",", ":"))


def paced(count: int, rate: float) -> tuple[list[int], int]:
    """`count` tasks spread at `rate` a second: each one's SQS delay (whole seconds, so `rate` share each second), and
    how long the next step waits for them all to have gone out."""
    return [int(i / rate) for i in range(count)], math.ceil(count / rate)


@dataclass(frozen=True)
class StepResult:
    """What one step of a kind did: its counters, and where the next page starts (None: that was the last page).

    `again_in`: the page could not be done yet (e.g. the endpoint is not active yet); the same page is tried
    again after that many seconds. `cancel`: the job cannot go on (the reason). `next_in`: the next step waits
    that many seconds (the endpoint's pace). `pending`: the page planned, to be applied by the next step (the kind's
    `apply`), stored with the cursor's advance.
    """

    counts: Mapping[str, int] = field(default_factory=dict)
    cursor: str | None = None
    pending: tuple[str, ...] = ()
    next_in: int = 0
    again_in: int | None = None
    cancel: str = ""
