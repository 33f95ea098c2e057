"""A customer's time-window replay, as a bulk job.

A time-window replay restarts the endpoint's failed (or paused) deliveries
created in [since, until] as manual attempts with a fresh budget. The replay's
record holds what the customer reads (the window, and how many it matched,
queued, delivered and failed); its paging is a job of kind `replay_window`
(hookline.services.jobs), whose id is derived from the replay's.

Each page takes two steps. The first reads one page of the sparse
endpoint-deliveries index from the job's cursor and plans its tasks, stored
with the cursor's advance (`Job.pending`). The next applies them: it restarts
each delivery (conditional on the generation it read, so twice restarts once),
queues the tasks paced at the endpoint's rate (SQS per-message delays), and
counts the page on the replay's record (conditional on the step, so twice
counts once). A crash anywhere repeats the apply, and duplicate tasks are
dropped by the generation check and the delivery claim; a restarted delivery
is never left without its task. The page after waits until this one has
drained at the rate. The tasks pass through the same planning as any task: a
breaker that is open holds them back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from hookline.core import ids
from hookline.core.clock import iso
from hookline.core.contract.jobs import JobSummary, Replay, ReplayAccepted, ReplayRequest
from hookline.core.errors import NotFound
from hookline.core.jobs import JOB, REPLAY_WINDOW, Job, StepResult, paced
from hookline.core.models import DeliveryTask
from hookline.core.replay import REPLAY, ReplayWindow
from hookline.core.settings import Settings
from hookline.services.jobs import JobRunner
from hookline.services.ports import DeliveryRestarts, EndpointReader, ReplayStore, TaskQueue

MAX_PAGE = 100
PAGE_SECONDS = 600  # one page is at most ten minutes' worth at the endpoint's rate


def replay_job_id(tenant: str, replay_id: str) -> str:
    return ids.derived_id(JOB, tenant, replay_id)


def _page_size(rate: float) -> int:
    return max(1, min(MAX_PAGE, int(rate * PAGE_SECONDS)))


@dataclass(frozen=True)
class WindowReplay:
    """The job kind: plan a page of the window's deliveries, then apply it (see the module's docstring)."""

    replays: ReplayStore
    events: DeliveryRestarts
    endpoints: EndpointReader
    retry_queue: TaskQueue

    def step(self, job: Job, now: datetime) -> StepResult:
        p = job.params
        endpoint = self.endpoints.get(job.tenant, p["endpoint_id"])
        if endpoint is None:
            self.replays.record_page(job.tenant, p["replay_id"], job.step, 0, done=True)
            return StepResult(cancel="the endpoint was deleted")
        page, cursor = self.events.deliveries_by_status(
            job.tenant, p["endpoint_id"], p["filter"], p["since"], p["until"] + "~", _page_size(endpoint.rate_limit_per_second), job.cursor or None
        )
        page = [d for d in page if d.replay_id != p["replay_id"]]  # restarted by this replay already, and failed again
        tasks = [DeliveryTask.of(d, generation=d.generation + 1, trigger="manual", replay_id=p["replay_id"], ordered=endpoint.ordered) for d in page]
        if not tasks:
            self.replays.record_page(job.tenant, p["replay_id"], job.step, 0, done=cursor is None)
        return StepResult(cursor=cursor, pending=tuple(t.to_message() for t in tasks), counts={"matched": len(tasks)})

    def apply(self, job: Job, now: datetime) -> StepResult:
        p = job.params
        tasks = [DeliveryTask.from_message(t) for t in job.pending]
        for t in tasks:
            self.events.restart(t.tenant, t.event_id, t.delivery_id, t.generation - 1, (p["filter"],), iso(now), p["replay_id"])
        endpoint = self.endpoints.get(job.tenant, p["endpoint_id"])
        delays, next_in = paced(len(tasks), max(endpoint.rate_limit_per_second if endpoint else 1.0, 0.01))
        self.retry_queue.enqueue(tasks, delays=delays)
        # Step 0 applies only a page the previous release had planned (adopted): its record counted it then.
        self.replays.record_page(job.tenant, p["replay_id"], job.step, len(tasks) if job.step else 0, done=not job.cursor)
        return StepResult(counts={"queued": len(tasks)}, next_in=next_in)


@dataclass(frozen=True)
class ReplayService:
    replays: ReplayStore
    endpoints: EndpointReader
    jobs: JobRunner
    settings: Settings
    clock: Callable[[], datetime]

    def start(self, tenant: str, endpoint_id: str, request: ReplayRequest) -> ReplayAccepted:
        """Idempotent for a minute: the same request names the same replay (and its job)."""
        endpoint = self.endpoints.get(tenant, endpoint_id) if ids.is_id(endpoint_id, ids.ENDPOINT) else None
        if endpoint is None:
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")
        window = ReplayWindow(request.since, request.until, request.status)
        now = self.clock()
        minute = now.strftime("%Y-%m-%dT%H:%M")
        replay_id = ids.derived_id(REPLAY, tenant, endpoint_id, window.since, window.until, window.status, minute)
        job_id = replay_job_id(tenant, replay_id)
        expires_at = int((now + timedelta(days=self.settings.retention_days)).timestamp())
        self.replays.create(tenant, replay_id, endpoint_id, window, iso(now), expires_at, job_id)
        job = self.jobs.start(tenant, REPLAY_WINDOW, _params(replay_id, endpoint_id, window), job_id=job_id)
        return ReplayAccepted(id=replay_id, status="running", job=JobSummary.of(job))

    def describe(self, tenant: str, replay_id: str) -> Replay:
        item = self.replays.get(tenant, replay_id) if ids.is_id(replay_id, REPLAY) else None
        if item is None:
            raise NotFound(f"replay {replay_id[:64]} not found")
        return Replay.of(item)

    def adopt(self, tenant: str, replay_id: str) -> None:
        """The previous release's step message for a replay it started: this replay's job takes over from its record
        (the cursor it reached, and the page it had planned but not yet queued)."""
        item = self.replays.get(tenant, replay_id)
        if item is None or (item.get("done_paging") and not item.get("pending_tasks")):
            return
        window = ReplayWindow(str(item["since"]), str(item["until"]), str(item["status_filter"]))
        params = _params(replay_id, str(item["endpoint_id"]), window)
        cursor = "" if item.get("done_paging") else str(item.get("cursor_token") or "")  # done: its last page was planned
        pending = tuple(str(t) for t in item.get("pending_tasks") or ())
        self.jobs.start(tenant, REPLAY_WINDOW, params, job_id=replay_job_id(tenant, replay_id), cursor=cursor, pending=pending)


def _params(replay_id: str, endpoint_id: str, window: ReplayWindow) -> dict[str, str]:
    return {"replay_id": replay_id, "endpoint_id": endpoint_id, "since": window.since, "until": window.until, "filter": window.status}
