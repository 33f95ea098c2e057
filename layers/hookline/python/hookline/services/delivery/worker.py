"""Delivering tasks: a batch resolved, planned, delivered side by side and released; per task claim, POST, decide,
schedule, record.

The worker only orchestrates; each step has its own collaborator:
`Planner` (endpoint state and the core planner), `WebhookSender` (signed POST),
`Recorder` (retry decision, scheduling, the attempt log, statistics) and
`HealthTracker` (breaker, limiter, disabling, leases).

At-least-once, single-flight. A task that may have a twin (a redelivery, a
replay, a redrive, a re-queue) claims its attempt with a conditional write, so
only one copy sends; a fresh task (the only one queued for its attempt) checks
the same rule on the delivery as read and writes nothing first
(hookline.core.claims). If the
worker dies after the receiver answered but before the result is written, the
task comes back after the visibility timeout and the webhook is sent again with
the same `webhook-id`: receivers deduplicate on it. The next attempt is
scheduled (or the task dead-lettered) *before* the attempt is recorded, so a
crash in between re-runs the attempt rather than losing the delivery.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial

from hookline.core.clock import parse_iso
from hookline.core.models import LIVE_STATUSES, DeliveryTask, MalformedTask
from hookline.core.planning import Step, leases_held, waits_for_lease
from hookline.core.ratelimit import Limiter
from hookline.core.reports import SET_ASIDE, DeliveryReport
from hookline.core.responses import HttpResult
from hookline.core.waits import hopped, next_hop
from hookline.services.delivery.endpoint_pool import EndpointPool, carried
from hookline.services.delivery.health import HealthTracker
from hookline.services.delivery.planner import Planner
from hookline.services.delivery.plans import EndpointBatch, Plan
from hookline.services.delivery.recorder import Recorder
from hookline.services.delivery.sender import WebhookSender
from hookline.services.delivery.token_leases import Answer, TokenLeaseBook

_log = logging.getLogger(__name__)


NOT_SENT = frozenset({"deferred", "parked", "skipped"})  # outcomes of tasks that made no request


def _run(job: Callable[[], None]) -> None:
    job()


def _not_handed(plans: Iterable[Plan]) -> Iterator[Plan]:
    """The plans whose endpoint's give-back the batch's end still owes (not handed over as its last task finished)."""
    return (p for p in plans if p.batch is None or not p.batch.handed)


def _await_given_back(plans: Iterable[Plan]) -> None:
    """The batch ends with no write in flight: each give-back handed over as its endpoint's last task finished is done
    (it logs its own failure: the leases expire on their own)."""
    for given_back in {id(p.batch): p.batch.given_back for p in plans if p.batch is not None and p.batch.given_back is not None}.values():
        given_back.result()


class OncePerProcess:
    """Remembers which (endpoint, version) pairs this process already acted on; thread-safe, bounded."""

    LIMIT = 10_000

    def __init__(self) -> None:
        self._seen: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    def first(self, endpoint_id: str, version: str) -> bool:
        with self._lock:
            if (endpoint_id, version) in self._seen:
                return False
            if len(self._seen) >= self.LIMIT:
                self._seen.clear()
            self._seen.add((endpoint_id, version))
            return True


@dataclass(frozen=True)
class ReceivedTask:
    """A task as a queue handed it out: its message, and whether SQS had handed that message out before."""

    message_id: str
    task: DeliveryTask
    received_before: bool = False


@dataclass(frozen=True)
class BatchRecord:
    """A queue's message as the worker reads it: its id, its body (a delivery task, or poison), and whether SQS had
    handed it out before."""

    message_id: str
    body: str
    received_before: bool = False


@dataclass
class BatchAnswer:
    """What became of a batch's records, filled in as the batch runs (so a batch that raises still says what it did)."""

    reports: list[DeliveryReport] = field(default_factory=list)
    failed: dict[str, BaseException] = field(default_factory=dict)  # message id -> what hookline itself failed on: SQS hands it out again
    poison: list[tuple[str, str]] = field(default_factory=list)  # (message id, why) of what was set aside on the dead-letter queue


# One task's delivery, run by `run_batch`'s caller around it (the log keys it carries, the line it writes after).
Around = Callable[[DeliveryTask, Callable[[], DeliveryReport]], DeliveryReport]


def _plainly(task: DeliveryTask, deliver: Callable[[], DeliveryReport]) -> DeliveryReport:
    return deliver()


@dataclass(frozen=True)
class DeliveryWorker:
    planner: Planner
    sender: WebhookSender
    recorder: Recorder
    health: HealthTracker
    clock: Callable[[], datetime]
    sleep: Callable[[float], None]
    pool: EndpointPool
    sunsets_told: OncePerProcess = field(default_factory=OncePerProcess)  # the email's marker makes it once ever; this, one try per process
    leases: TokenLeaseBook | None = None  # this process's token leases on hot endpoints (the planner's book); None: none are taken
    # How long after its plan a batch's lease may still be handed to its next task waiting on the limit
    # (EndpointBatch): the last request and its record must end within the function's timeout (core.config.hand_on_seconds)
    hand_on_seconds: float = 0.0

    # -- redrive: a dead-lettered task moved back by an operator ---------------------

    def resolve(self, task: DeliveryTask, received_before: bool = False) -> DeliveryTask | None:
        """A task as it should run. A first attempt SQS handed out before (an invocation that crashed or timed out
        had it) may have sent: this copy claims its attempt instead (hookline.core.claims). One hookline
        dead-lettered comes back as a manual replay with a fresh budget; a duplicate of it restarts nothing (None)."""
        if task.fresh and received_before:
            task = replace(task, fresh=False)
        if not task.dead_lettered:
            return task
        return self.recorder.restart(task, self.clock())

    def resolve_batch(self, received: Iterable[ReceivedTask]) -> dict[str, DeliveryTask | Exception | None]:
        """Each received task as it should run (`resolve`), by message id; None for what needs no delivery (a
        duplicate redrive, or the same attempt twice in the batch, which an idempotent ingest repeat may queue:
        one copy runs), or the error its resolution raised (e.g. DynamoDB is down: that record alone fails)."""
        resolved: dict[str, DeliveryTask | Exception | None] = {}
        seen: set[DeliveryTask] = set()
        for r in received:
            try:
                task = self.resolve(r.task, r.received_before)
            except Exception as exc:
                resolved[r.message_id] = exc
                continue
            if task is not None and task in seen:
                _log.info("duplicate task in batch", extra={"message_id": r.message_id, "delivery_id": task.delivery_id, "attempt": task.attempt})
                task = None
            elif task is not None:
                seen.add(task)
            resolved[r.message_id] = task
        return resolved

    def resolve_ordered(self, task: DeliveryTask, received_before: bool) -> DeliveryTask | None:
        """A task of the ordered lane as it should run. Its message is held while it waits (hookline.adapters.queues.
        OrderedScheduler), so it comes back unchanged after each attempt: a message received before runs its delivery's
        next attempt in its current generation, read from the delivery (what a redriven one restarted included). A
        delivery that is done (succeeded, failed, gone) needs nothing, except a redriven one, which restarts (`resolve`)."""
        if received_before:
            key = (task.tenant, task.event_id, task.delivery_id)
            delivery = self.planner.events.read_for_sending((), (key,))[1].get(key)
            if delivery is not None and delivery.status in LIVE_STATUSES and delivery.generation >= task.generation:
                return replace(DeliveryTask.of(delivery), trigger=task.trigger, replay_id=delivery.replay_id, ordered=True)
        return self.resolve(task, received_before)

    def set_aside(self, body: str, reason: str) -> None:
        self.recorder.set_aside(body, reason)

    # -- a batch ------------------------------------------------------------------

    def run_batch(
        self, records: Sequence[BatchRecord], tasks: Executor, first_lane: bool = False, around: Around = _plainly, answer: BatchAnswer | None = None
    ) -> BatchAnswer:
        """A queue's batch, in its four phases: each record resolved to the task it should run (`resolve_batch`), the
        batch planned once per endpoint (`plan`), its tasks delivered side by side, one thread of `tasks` each (so one
        slow receiver cannot push the batch past the function's timeout), and its leases and statistics released
        (`release`), whatever failed on the way.

        A record fails (in `answer.failed`: SQS hands it out again) only when hookline itself could not finish it; a
        receiver's failure is a recorded outcome, not a failed record. A record that is not a delivery task, or a task
        whose delivery no longer exists, is poison: set aside on the dead-letter queue at once (`answer.poison`), never
        retried. `first_lane`: the batch came from the delivery queue's first attempts (see `plan`)."""
        answer = answer if answer is not None else BatchAnswer()
        resolved = self._hop_early(self._resolve_records(records, answer), answer)
        plans = self.plan((t for t in resolved.values() if t is not None), first_lane=first_lane)

        def deliver(record: BatchRecord) -> None:
            if record.message_id not in resolved:
                raise RuntimeError("task could not be resolved; SQS will redeliver it")
            task = resolved[record.message_id]
            if task is None:
                return
            report = around(task, partial(self.deliver, task, plans.get(task)))
            answer.reports.append(report)
            if report.path == SET_ASIDE:  # its delivery is gone: poison
                answer.poison.append((record.message_id, "DeliveryNotFound"))

        try:
            running = [(record, tasks.submit(carried(deliver), record)) for record in records]
            for record, future in running:
                error = future.exception()
                if error is not None:  # its resolution's own error, when that failed, says more
                    answer.failed.setdefault(record.message_id, error)
        finally:
            self.release(plans.values(), answer.reports)
        return answer

    def _resolve_records(self, records: Sequence[BatchRecord], answer: BatchAnswer) -> dict[str, DeliveryTask | None]:
        """Each record's task as it should run (`resolve_batch`); None for what needs no delivery, poison included (set
        aside at once, never retried). A record whose resolution failed (e.g. DynamoDB is down) is left out, so it
        fails on its own, and `answer.failed` says why."""
        resolved: dict[str, DeliveryTask | None] = {}
        received: list[ReceivedTask] = []
        for record in records:
            try:
                received.append(ReceivedTask(record.message_id, DeliveryTask.from_message(record.body), record.received_before))
            except MalformedTask as exc:
                self.set_aside(record.body, str(exc))
                resolved[record.message_id] = None
                answer.poison.append((record.message_id, type(exc).__name__))
        for message_id, outcome in self.resolve_batch(received).items():
            if isinstance(outcome, Exception):
                _log.error("could not resolve a task", extra={"message_id": message_id}, exc_info=outcome)
                answer.failed[message_id] = outcome
            else:
                resolved[message_id] = outcome
        return resolved

    def _hop_early(self, resolved: dict[str, DeliveryTask | None], answer: BatchAnswer) -> dict[str, DeliveryTask | None]:
        """The tasks received before their due time (hopping through the retry queue: hookline.core.waits) queued
        again for the rest, with no attempt, claim or read, as copies that claim when they run (`hopped`); they need
        nothing more here (None). Should that send fail,
        their records are left out (so they fail, `answer.failed` says why, and SQS hands them out again)."""
        now = self.clock().timestamp()
        early = {m: (t, wait) for m, t in resolved.items() if t is not None and (wait := next_hop(t.due, now)) is not None}
        if not early:
            return resolved
        try:
            self.recorder.hop([hopped(t) for t, _ in early.values()], [wait for _, wait in early.values()])
        except Exception as exc:
            _log.error("could not queue tasks not due yet again", extra={"tasks": len(early)}, exc_info=exc)
            answer.failed.update(dict.fromkeys(early, exc))
            return {m: t for m, t in resolved.items() if m not in early}
        return {m: (None if m in early else t) for m, t in resolved.items()}

    def plan(self, tasks: Iterable[DeliveryTask], first_lane: bool = False) -> dict[DeliveryTask, Plan]:
        """Each endpoint of the batch looked at once (see `Planner`); `first_lane`: the batch came from the delivery
        queue (the function's wiring says so: hookline.wiring.topology.DELIVERY).
        The notes of the tasks that came out of a wait in Step Functions are dropped first: they have arrived."""
        tasks = list(tasks)
        self.recorder.arrived(tasks)
        return self._batched(self.planner.plan(tasks, first_lane))

    def _batched(self, plans: dict[DeliveryTask, Plan]) -> dict[DeliveryTask, Plan]:
        """Each endpoint's plans sharing one `EndpointBatch`, so the last of its tasks to finish gives its leases back
        beside its record, and its tasks the limiter deferred wait for its leases. Not for an endpoint this process
        paces by a token lease (its slots go back when the lease is over) nor for one whose tasks hold no lease or
        leases of more than one grant: those the batch's end does."""
        groups: dict[tuple[str, str], list[DeliveryTask]] = defaultdict(list)
        waiting: dict[tuple[str, str], list[DeliveryTask]] = defaultdict(list)
        for t, p in plans.items():
            if p.endpoint is not None and p.step is not None and p.sends:
                groups[(p.endpoint.tenant, p.endpoint.id)].append(t)
            elif p.endpoint is not None and p.step is not None and waits_for_lease(p.step):
                waiting[(p.endpoint.tenant, p.endpoint.id)].append(t)
        out = dict(plans)
        until = self.clock().timestamp() + self.hand_on_seconds
        for (tenant, endpoint_id), group in groups.items():
            expiries = {plans[t].step.lease_expiry for t in group}  # type: ignore[union-attr]
            if None in expiries or len(expiries) != 1 or (self.leases is not None and self.leases.holds(tenant, endpoint_id)):
                continue
            first = plans[group[0]]
            assert first.endpoint is not None
            waiters = waiting[(tenant, endpoint_id)] if self.hand_on_seconds > 0 else []
            batch = EndpointBatch(
                tenant,
                endpoint_id,
                len(group),
                next(iter(expiries)) or 0.0,
                first.endpoint.max_concurrency,
                first.granted,
                waiters=len(waiters),
                hand_on_until=until,
                limiter=first.granted,
            )
            for t in group + waiters:
                out[t] = replace(plans[t], batch=batch)
        return out

    def _finished(self, plan: Plan, answer: Answer | None) -> None:
        """A task done with its request: its lease goes on to a task of the batch waiting for one if its answer was a
        2xx (EndpointBatch); the last of its endpoint's leases to end hands over the endpoint's give-back."""
        batch = plan.batch
        offer = answer is not None and answer[1] is not None and 200 <= answer[1] <= 299
        if batch is None or not batch.finished(answer, offer, self.clock().timestamp()):
            return
        self._hand_over(plan)

    def _hand_over(self, plan: Plan) -> None:
        """The endpoint's give-back, handed over by the task that ended its batch's last lease."""
        batch = plan.batch
        assert batch is not None
        counts = self.recorder.stats.take(batch.tenant, batch.endpoint_id)  # every task of the batch has counted its attempt
        answers = tuple(batch.answers)
        give_back = partial(self.health.give_back, batch.tenant, batch.endpoint_id, batch.expiry, batch.expected, answers, batch.ceiling, counts, batch.granted)
        batch.hand_over(self.pool.submit(partial(give_back, at=self.clock().timestamp())))

    def release(self, plans: Iterable[Plan], reports: Iterable[DeliveryReport] = ()) -> None:
        """End of a batch: give back its concurrency leases (they also expire on their own), with what each endpoint's
        requests saw for its adaptive concurrency limit and the endpoint's statistics, one write per endpoint; and the
        statistics of endpoints it held no lease for, side by side. A hot endpoint's requests under this process's token
        lease end in its memory; the lease's slots are given back (the same one write) only once the lease is over, and
        its statistics are held across batches until due (hookline.services.delivery.stats_buffer) or carried on that
        give-back."""
        by_endpoint: dict[tuple[str, str], list[Step]] = defaultdict(list)
        ceilings: dict[tuple[str, str], int] = {}
        granted: dict[tuple[str, str], Limiter] = {}
        plans = list(plans)
        for p in _not_handed(plans):
            if p.endpoint is not None and p.step is not None:
                key = (p.endpoint.tenant, p.endpoint.id)
                by_endpoint[key].append(p.step)
                ceilings[key] = p.endpoint.max_concurrency
                if p.granted is not None:
                    granted[key] = p.granted
        answers: dict[tuple[str, str], list[Answer]] = defaultdict(list)
        for r in reports:
            if r.outcome not in NOT_SENT:
                answers[(r.task.tenant, r.task.endpoint_id)].append((r.duration_ms / 1000, r.status_code, r.error))
        work: list[Callable[[], None]] = []
        now = self.clock().timestamp()
        for (tenant, endpoint_id), steps in by_endpoint.items():
            held = leases_held(steps)  # none for a half-open probe: its statistics are added on their own (below)
            if self.leases is not None and self.leases.holds(tenant, endpoint_id):
                held = self._lease_ended(tenant, endpoint_id, held, tuple(answers[(tenant, endpoint_id)]), now)
                holding, back, heard = self.leases.to_give_back(tenant, endpoint_id, now)
                if back and holding.lease is not None:
                    counts = self.recorder.stats.take(tenant, endpoint_id)
                    lease = holding.lease
                    work.append(
                        partial(
                            self.health.give_back,
                            tenant,
                            endpoint_id,
                            lease.slot_expiry,
                            back,
                            heard,
                            ceilings[(tenant, endpoint_id)],
                            counts,
                            None,
                            lease.start,
                        )
                    )
                if not held:
                    continue  # while the lease goes on, its statistics stay in the buffer until due (below)
            counts = self.recorder.stats.take(tenant, endpoint_id) if held else {}  # carried on the same write (hookline.core.stats.carry)
            base = granted.get((tenant, endpoint_id))  # the grant's state: the first give-back need not read it
            for expiry, count in held.items():
                work.append(
                    partial(
                        self.health.give_back,
                        tenant,
                        endpoint_id,
                        expiry,
                        count,
                        tuple(answers[(tenant, endpoint_id)]),
                        ceilings[(tenant, endpoint_id)],
                        counts,
                        base,
                    )
                )
                counts, base = {}, None
        # A hot endpoint's counters are held across batches while this process paces it by a token lease, and written
        # once due (hookline.core.stats.hold_over): not one ADD per batch on its statistics item; and every version's
        # use is held until due (version_use_due): not one ADD per batch on the tenant's version-use item
        writes = self.recorder.stats.writes(now, self.leases.holds) if self.leases is not None else self.recorder.stats.writes(now)
        try:
            self.pool.map(_run, work + writes)
        finally:
            _await_given_back(plans)

    def _lease_ended(self, tenant: str, endpoint_id: str, held: dict[float, int], answers: tuple[Answer, ...], now: float) -> dict[float, int]:
        """The requests under this process's token lease end in its book; the leases of other grants are left to give back."""
        assert self.leases is not None
        lease = self.leases.holding(tenant, endpoint_id).lease
        mine = lease.slot_expiry if lease is not None else None
        for expiry, count in held.items():
            if expiry == mine:
                self.leases.ended(tenant, endpoint_id, expiry, count, answers)
        return {expiry: count for expiry, count in held.items() if expiry != mine}

    # -- one task ---------------------------------------------------------------

    def deliver(self, task: DeliveryTask, plan: Plan | None = None) -> DeliveryReport:
        """One task; without a plan it is planned (and its lease released) on its own."""
        if plan is not None:
            return self._carry_out(task, plan)
        plan = self.plan([task])[task]
        reports: list[DeliveryReport] = []
        try:
            reports.append(self._carry_out(task, plan))
            return reports[0]
        finally:
            self.release([plan], reports)

    def _carry_out(self, task: DeliveryTask, plan: Plan) -> DeliveryReport:
        now = self.clock()
        step = plan.step
        if step is None:  # planning failed: the record fails and SQS delivers it again
            raise RuntimeError(plan.failed)
        if step.kind == "defer" and plan.batch is not None and waits_for_lease(step):
            plan = self._under_lease(plan, step)
            step, now = plan.step, self.clock()
            assert step is not None
        if step.kind == "defer":
            return self.recorder.defer(task, step.defer_seconds, step.reason, now)
        if step.kind == "park":
            return self.recorder.park(task, step.reason, now)
        ended = False  # its lease (if its batch shares one): ended once, whatever fails on the way (a task may wait for it)
        try:
            claimed = self.recorder.claim(task, now, plan)
            if isinstance(claimed, DeliveryReport):
                ended = True
                self._finished(plan, None)
                return claimed
            result = self._send(task, plan, step)
            done = self.clock()
            sunset = plan.event.sunset_of(task.version) if plan.event is not None and task.version else None
            if sunset is not None and plan.endpoint is not None and parse_iso(sunset) <= done and self.sunsets_told.first(plan.endpoint.id, task.version):
                self.health.past_sunset(plan.endpoint, task.version, sunset)
            decision = self.recorder.decide(task, claimed, result, done)
            breaker_event = ""
            if plan.endpoint is not None:
                breaker_event = self.health.after_attempt(plan.endpoint, plan.breaker, step.kind == "probe", result, decision, done)
            self.recorder.count(task, claimed, result, decision, done)
            ended = True
            self._finished(plan, (result.duration_ms / 1000, result.status_code, result.error))
        except BaseException:
            if not ended:
                self._finished(plan, None)
            raise
        return self.recorder.conclude(task, claimed, result, decision, done, breaker_event)

    def _send(self, task: DeliveryTask, plan: Plan, step: Step) -> HttpResult:
        wait = step.send_at - self.clock().timestamp()
        if wait > 0:
            self.sleep(wait)  # paced by the endpoint's limiter; bounded by its horizon
        return self.sender.send(task, plan)

    def _under_lease(self, plan: Plan, step: Step) -> Plan:
        """A task the limiter deferred waits for one of its batch's leases (EndpointBatch): offered one, it sends
        under it with a send time of its own (HealthTracker.under_lease, one conditional write); not offered one, or
        the core says no, it is deferred as planned (a declined lease ends, and may be the batch's last)."""
        batch = plan.batch
        assert batch is not None and plan.endpoint is not None and plan.breaker is not None
        answer = batch.wait_for_lease(batch.hand_on_until - self.clock().timestamp())
        if answer is None:
            return plan
        try:
            granted = self.health.under_lease(plan.endpoint, plan.breaker, step, batch.expiry, answer[1], batch.limiter)
        except Exception:
            _log.exception("lease not handed on", extra={"tenant": batch.tenant, "endpoint_id": batch.endpoint_id})
            granted = None
        if granted is None:
            if batch.declined():
                self._hand_over(plan)
            return plan
        reused, batch.limiter = granted
        return replace(plan, step=reused)
