"""Delivering tasks: plan, then per task claim, POST, decide, schedule, record.

Planning looks at each endpoint once per batch: a disabled endpoint parks its
tasks; a Retry-After pause or an open breaker defers them (no request, no
attempt used); a half-open breaker lets exactly one probe through; a closed one
hands out send times and concurrency leases from the endpoint's limiter, one
conditional write for the whole group.

At-least-once, single-flight. SQS may hand one task to two invocations at
once; the conditional claim lets only one of them send the request. If the
worker dies after the receiver answered but before the result is written, the
task comes back after the visibility timeout and the webhook is sent again with
the same `webhook-id`: receivers deduplicate on it. The next attempt is
scheduled (or the task dead-lettered) *before* the attempt is recorded, so a
crash in between re-runs the attempt rather than losing the delivery.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol, TypeVar

from hookline.adapters.dynamo.state import EndpointStateRepository
from hookline.adapters.dynamo.stats import StatsBuffer, StatsRepository, attempt_counts
from hookline.adapters.dynamo.store import EndpointRepository, EventRepository
from hookline.adapters.observability import get_logger
from hookline.adapters.system import SYSTEM_RANDOM
from hookline.core import notifications
from hookline.core.backoff import BackoffPolicy, Jitter, RandomSource
from hookline.core.breaker import Breaker, BreakerConfig, admit, health, outage_seconds, record
from hookline.core.clock import iso, parse_iso
from hookline.core.models import Attempt, Delivery, DeliveryTask, Endpoint, Event
from hookline.core.notifications import Notify
from hookline.core.policy import Decision, RetryPolicy, decide, deferral
from hookline.core.ratelimit import Limiter, LimiterConfig, acquire, release, slow_down
from hookline.core.reports import DeliveryReport
from hookline.core.responses import HttpResult
from hookline.core.settings import Settings
from hookline.core.webhook import webhook_headers

# How long to come back after when an earlier attempt is still being recorded,
# or another worker's state write got in first.
BUSY_RETRY_SECONDS = 5.0
SAVE_TRIES = 5
PARALLEL_ENDPOINTS = 16  # endpoints of one batch planned, released and counted at once
_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


class Sender(Protocol):
    def post(self, url: str, body: bytes, headers: dict[str, str]) -> HttpResult: ...


class Scheduler(Protocol):
    def schedule(self, task: DeliveryTask, delay_seconds: float, now: datetime, deferred: bool = False) -> str: ...

    def dead_letter(self, task: DeliveryTask, reason: str, attributes: dict[str, str]) -> None: ...

    def set_aside(self, body: str, reason: str) -> None: ...


class ReplayProgress(Protocol):
    def count(self, tenant: str, replay_id: str, outcome: str) -> None: ...


@dataclass(frozen=True)
class Plan:
    """What a task may do in this invocation, decided once per endpoint and batch."""

    kind: Literal["go", "probe", "defer", "park", "fail"]
    endpoint: Endpoint | None = None
    breaker: Breaker | None = None
    send_at: float = 0.0
    lease_expiry: float | None = None
    defer_seconds: float = 0.0
    reason: str = ""
    event: Event | None = None  # read for the whole batch at planning, so a task need not read it alone


def _per_endpoint(work: Callable[[_Item], _Result], items: list[_Item]) -> list[_Result]:
    """Each endpoint's reads and writes of a batch, side by side: a batch spanning many endpoints is not a queue of round trips."""
    if len(items) <= 1:
        return [work(i) for i in items]
    with ThreadPoolExecutor(max_workers=min(len(items), PARALLEL_ENDPOINTS), thread_name_prefix="endpoint") as pool:
        return list(pool.map(work, items))


def retry_policy(settings: Settings) -> RetryPolicy:
    jitter: Jitter = "equal" if settings.retry_jitter == "equal" else "full"
    backoff = BackoffPolicy(base_seconds=settings.retry_base_seconds, cap_seconds=settings.retry_max_delay_seconds, jitter=jitter)
    return RetryPolicy(backoff=backoff, max_attempts=settings.max_attempts, max_age_seconds=settings.max_age_seconds)


def breaker_config(settings: Settings) -> BreakerConfig:
    return BreakerConfig(
        threshold=settings.breaker_threshold,
        cooldown_seconds=settings.breaker_cooldown_seconds,
        max_cooldown_seconds=settings.breaker_max_cooldown_seconds,
        window=settings.breaker_window,
        failure_rate=settings.breaker_failure_rate,
        # A probe's lease outlives its request; a crashed prober frees it soon after.
        probe_lease_seconds=2 * (settings.connect_timeout_seconds + settings.request_timeout_seconds),
    )


class DeliveryWorker:
    def __init__(
        self,
        events: EventRepository,
        endpoints: EndpointRepository,
        states: EndpointStateRepository,
        sender: Sender,
        scheduler: Scheduler,
        notify: Notify,
        settings: Settings,
        clock: Callable[[], datetime],
        lease_seconds: int,
        rng: RandomSource = SYSTEM_RANDOM,
        sleep: Callable[[float], None] = time.sleep,
        replays: ReplayProgress | None = None,
        stats: StatsRepository | None = None,
    ):
        self._replays = replays
        self._stats = stats
        self._stats_buffer = StatsBuffer()
        self._events = events
        self._endpoints = endpoints
        self._states = states
        self._sender = sender
        self._scheduler = scheduler
        self._notify = notify
        self._settings = settings
        self._policy = retry_policy(settings)
        self._breaker_cfg = breaker_config(settings)
        self._limiter_cfg = LimiterConfig(lease_seconds=float(lease_seconds))
        self._clock = clock
        self._lease_seconds = lease_seconds
        self._rng = rng
        self._sleep = sleep

    # -- redrive: a dead-lettered task moved back by an operator ---------------------

    def resolve(self, task: DeliveryTask) -> DeliveryTask | None:
        """A task as it should run. One hookline dead-lettered comes back as a
        manual replay with a fresh budget; a duplicate of it restarts nothing (None)."""
        if not task.dead_lettered:
            return task
        restarted = self._events.restart(task.tenant, task.event_id, task.delivery_id, task.generation, ("failed",), iso(self._clock()))
        if restarted is None:
            get_logger().info("redriven task skipped: already replayed or not failed", extra={"delivery_id": task.delivery_id, "event_id": task.event_id})
            return None
        return DeliveryTask(task.tenant, task.event_id, task.delivery_id, task.endpoint_id, restarted.attempts_made + 1, restarted.generation, trigger="manual")

    def set_aside(self, body: str, reason: str) -> None:
        get_logger().warning("poison message set aside", extra={"reason": reason})
        self._scheduler.set_aside(body, reason)

    # -- planning: once per endpoint and batch ----------------------------------

    def plan(self, tasks: Iterable[DeliveryTask]) -> dict[DeliveryTask, Plan]:
        unique = list(dict.fromkeys(tasks))
        groups: dict[tuple[str, str], list[DeliveryTask]] = defaultdict(list)
        for t in unique:
            groups[(t.tenant, t.endpoint_id)].append(t)

        def plan_one(item: tuple[tuple[str, str], list[DeliveryTask]]) -> dict[DeliveryTask, Plan]:
            (tenant, endpoint_id), group = item
            try:
                return self._plan_group(tenant, endpoint_id, group)
            except Exception as exc:  # one endpoint's trouble must not fail the others' records
                get_logger().exception("planning failed", extra={"tenant": tenant, "endpoint_id": endpoint_id})
                return {t: Plan("fail", reason=f"planning failed: {type(exc).__name__}") for t in group}

        plans: dict[DeliveryTask, Plan] = {}
        for planned in _per_endpoint(plan_one, list(groups.items())):
            plans.update(planned)
        sending = [t for t, p in plans.items() if p.kind in ("go", "probe")]
        try:
            # The bodies of the tasks that will send, in one read (a deferred task reads nothing).
            events = self._events.get_events((t.tenant, t.event_id) for t in sending) if sending else {}
        except Exception:  # each task reads its own body then
            get_logger().exception("batch read of event bodies failed")
            events = {}
        return {t: replace(p, event=events.get((t.tenant, t.event_id))) if p.kind in ("go", "probe") else p for t, p in plans.items()}

    def _plan_group(self, tenant: str, endpoint_id: str, tasks: list[DeliveryTask]) -> dict[DeliveryTask, Plan]:
        now = self._clock()
        endpoint, breaker, limiter = self._states.load(tenant, endpoint_id)
        if endpoint is None:
            return {t: Plan("go") for t in tasks}  # each records "endpoint deleted"
        if endpoint.status != "active":
            return {t: Plan("park", endpoint) for t in tasks}
        wait = deferral(endpoint.paused_until, now, self._policy, self._rng)
        if wait is not None:
            return {t: Plan("defer", endpoint, defer_seconds=self._spread(wait, 3.0), reason="endpoint paused by Retry-After") for t in tasks}
        if outage_seconds(breaker, now.timestamp()) >= self._settings.disable_after_seconds:
            self._disable(endpoint, breaker, now)
            return {t: Plan("park", endpoint) for t in tasks}
        admission = admit(breaker, now.timestamp(), self._breaker_cfg)
        if admission.verdict == "wait":
            spread = min(30.0, 0.1 * max(breaker.cooldown_seconds, 1.0))
            return {t: Plan("defer", endpoint, defer_seconds=self._spread(admission.wait_seconds, spread), reason="circuit open") for t in tasks}
        if admission.verdict == "probe" and admission.state is not None:
            plans = {t: Plan("defer", endpoint, defer_seconds=self._spread(BUSY_RETRY_SECONDS, 5.0), reason="circuit half-open: probing") for t in tasks}
            if self._states.save_breaker(tenant, endpoint_id, admission.state, breaker.version):
                plans[tasks[0]] = Plan("probe", endpoint, admission.state)
            return plans
        return self._grant(endpoint, breaker, tasks, limiter, now)

    def _grant(self, endpoint: Endpoint, breaker: Breaker, tasks: list[DeliveryTask], limiter: Limiter, now: datetime) -> dict[DeliveryTask, Plan]:
        state = limiter
        for _ in range(SAVE_TRIES):
            grant = acquire(state, len(tasks), endpoint.rate_limit_per_second, endpoint.max_concurrency, now.timestamp(), self._limiter_cfg)
            if not grant.send_at or self._states.save_limiter(endpoint.tenant, endpoint.id, grant.state, state.version):
                break
            state = self._states.limiter(endpoint.tenant, endpoint.id)
        else:
            grant = replace(grant, send_at=())
        plans: dict[DeliveryTask, Plan] = {}
        for i, t in enumerate(tasks):
            if i < len(grant.send_at):
                plans[t] = Plan("go", endpoint, breaker, send_at=grant.send_at[i], lease_expiry=grant.lease_expiry)
            else:
                plans[t] = Plan("defer", endpoint, defer_seconds=self._spread(grant.retry_in, 1.0), reason="endpoint rate or concurrency limit")
        return plans

    def _spread(self, seconds: float, jitter: float) -> float:
        return max(seconds, 0.0) + self._rng.uniform(0.0, jitter)

    def release(self, plans: Iterable[Plan]) -> None:
        """End of a batch: give back its concurrency leases (they also expire on their own) and write its statistics, side by side."""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="stats") as side:
            stats = side.submit(self._flush_stats)  # best effort: logs its own failures
            try:
                self._release_leases(plans)
            finally:
                stats.result()

    def _flush_stats(self) -> None:
        if self._stats is None:
            return
        stats = self._stats

        def write(item: tuple[tuple[str, str, str], Any]) -> None:
            (tenant, endpoint_id, hour), counts = item
            try:
                stats.add(tenant, endpoint_id, hour, counts)
            except Exception:  # statistics are best effort; a delivery never fails for them
                get_logger().exception("statistics not written", extra={"tenant": tenant, "endpoint_id": endpoint_id})

        _per_endpoint(write, list(self._stats_buffer.drain().items()))

    def _release_leases(self, plans: Iterable[Plan]) -> None:
        held: dict[tuple[str, str, float], int] = defaultdict(int)
        for p in plans:
            if p.lease_expiry is not None and p.endpoint is not None:
                held[(p.endpoint.tenant, p.endpoint.id, p.lease_expiry)] += 1

        def give_back(item: tuple[tuple[str, str, float], int]) -> None:
            (tenant, endpoint_id, expiry), count = item
            try:
                for _ in range(SAVE_TRIES):
                    current = self._states.limiter(tenant, endpoint_id)
                    if self._states.save_limiter(tenant, endpoint_id, release(current, expiry, count, self._clock().timestamp()), current.version):
                        break
            except Exception:  # the leases expire on their own; the batch's results stand
                get_logger().exception("leases not given back", extra={"tenant": tenant, "endpoint_id": endpoint_id})

        _per_endpoint(give_back, list(held.items()))

    # -- one task ---------------------------------------------------------------

    def deliver(self, task: DeliveryTask, plan: Plan | None = None) -> DeliveryReport:
        """One task. Every log line written meanwhile on this thread carries its correlation ids."""
        logger = get_logger()
        logger.thread_safe_append_keys(tenant=task.tenant, event_id=task.event_id, delivery_id=task.delivery_id, endpoint_id=task.endpoint_id)
        try:
            return self._deliver(task, plan)
        finally:
            logger.thread_safe_clear_keys()

    def _deliver(self, task: DeliveryTask, plan: Plan | None) -> DeliveryReport:
        if plan is None:
            plan = self.plan([task])[task]
            try:
                return self._carry_out(task, plan)
            finally:
                self.release([plan])
        return self._carry_out(task, plan)

    def _carry_out(self, task: DeliveryTask, plan: Plan) -> DeliveryReport:
        now = self._clock()
        if plan.kind == "fail":
            raise RuntimeError(plan.reason)
        if plan.kind == "defer":
            path = self._scheduler.schedule(task, plan.defer_seconds, now, deferred=True)
            return DeliveryReport(task, "deferred", reason=plan.reason, next_in_seconds=plan.defer_seconds, path=path)
        if plan.kind == "park":
            parked = self._events.park(task.tenant, task.event_id, task.delivery_id, task.endpoint_id, iso(now))
            return DeliveryReport(task, "parked" if parked else "skipped", reason="endpoint disabled: delivery paused until it is re-enabled")
        claim = self._events.claim_attempt(task.tenant, task.event_id, task.delivery_id, task.attempt, now.timestamp(), self._lease_seconds, task.generation)
        if claim.delivery is None:
            if claim.missing:
                self.set_aside(task.to_message(), "delivery not found: its event expired or never existed")
                return DeliveryReport(task, "skipped", reason="poison: delivery not found")
            if claim.busy:
                path = self._scheduler.schedule(task, BUSY_RETRY_SECONDS, now, deferred=True)
                return DeliveryReport(task, "deferred", reason="previous attempt still being recorded", next_in_seconds=BUSY_RETRY_SECONDS, path=path)
            return DeliveryReport(task, "skipped", reason="attempt already claimed or delivery finished")
        wait = plan.send_at - self._clock().timestamp()
        if wait > 0:
            self._sleep(wait)  # paced by the endpoint's limiter; bounded by its horizon
        result = self._send(task, plan)
        return self._conclude(task, claim.delivery, result, plan)

    def _send(self, task: DeliveryTask, plan: Plan) -> HttpResult:
        endpoint = plan.endpoint
        # Not in the batch read (or not yet visible to it): a strongly consistent read settles it.
        event = plan.event or self._events.get_event(task.tenant, task.event_id, consistent=True)
        if event is None or endpoint is None:
            missing = "event" if event is None else "endpoint"
            return HttpResult(None, f"{missing}_deleted", 0, detail=f"the {missing} no longer exists")
        body = event.body.encode()
        now = self._clock().timestamp()
        headers = {**dict(endpoint.headers), **webhook_headers(event.id, int(now), body, endpoint.signing_secrets(now, self._settings.secret_overlap_seconds))}
        return self._sender.post(endpoint.url, body, headers)

    def _conclude(self, task: DeliveryTask, delivery: Delivery, result: HttpResult, plan: Plan) -> DeliveryReport:
        now = self._clock()
        started = delivery.generation_started_at or delivery.created_at
        created = parse_iso(started) if started else now
        decision = decide(delivery.budget_attempt(task.attempt), created, result.outcome, now, self._policy, self._rng)
        reason = decision.classification.reason
        if result.detail and result.status_code is None:
            reason = f"{reason}: {result.detail}"
        if decision.exhausted:
            reason = f"{reason}; gave up: {decision.exhausted}"
        breaker_event = self._track_health(plan, result, now) if plan.endpoint is not None else ""
        path = self._apply(task, decision, result, now, delivery.budget_attempt(task.attempt))
        attempt = Attempt(
            number=task.attempt,
            at=iso(now),
            status_code=result.status_code,
            error=result.error,
            duration_ms=result.duration_ms,
            outcome=decision.attempt_outcome,
            reason=reason[:500],
            response_body=result.body[: self._settings.response_body_limit_bytes],
            trigger=task.trigger,
        )
        expires_at = int((now + timedelta(days=self._settings.retention_days)).timestamp())
        self._events.record_attempt(delivery, attempt, decision.status, iso(now), expires_at)
        ended = decision.status if decision.status in ("succeeded", "failed") else ""
        first = task.trigger == "scheduled" and delivery.generation == 0 and delivery.budget_attempt(task.attempt) == 1
        if result.status_code is not None or result.error in (
            "timeout",
            "connection_refused",
            "connection_reset",
            "connection_error",
            "tls_error",
            "dns_failure",
        ):
            self._stats_buffer.add(task.tenant, task.endpoint_id, now, attempt_counts(decision.status == "succeeded", result.duration_ms, first, ended))
        if task.replay_id and ended and self._replays is not None:
            self._replays.count(task.tenant, task.replay_id, "delivered" if decision.status == "succeeded" else "failed")
        return DeliveryReport(
            task, decision.attempt_outcome, result.status_code, result.error, result.duration_ms, reason, decision.retry_in_seconds, path, first, breaker_event
        )

    # -- endpoint health ----------------------------------------------------------

    def _track_health(self, plan: Plan, result: HttpResult, now: datetime) -> str:
        """Feed the outcome to the breaker (and a 429 to the limiter). Nothing is written on a healthy success.

        Returns the breaker's transition, if any."""
        endpoint = plan.endpoint
        assert endpoint is not None
        verdict = health(result.outcome)
        error = str(result.status_code) if result.status_code is not None else (result.error or "")
        state = plan.breaker or Breaker()
        event = ""
        for _ in range(SAVE_TRIES):
            change = record(state, verdict, now.timestamp(), self._breaker_cfg, was_probe=plan.kind == "probe", error=error)
            if change is None:
                break
            if self._states.save_breaker(endpoint.tenant, endpoint.id, change.state, state.version):
                self._announce(endpoint, change.state, change.event, now)
                event = change.event
                break
            state = self._states.breaker(endpoint.tenant, endpoint.id)
        if result.status_code == 429:
            for _ in range(SAVE_TRIES):
                current = self._states.limiter(endpoint.tenant, endpoint.id)
                if self._states.save_limiter(
                    endpoint.tenant, endpoint.id, slow_down(current, endpoint.rate_limit_per_second, now.timestamp(), self._limiter_cfg), current.version
                ):
                    break
        return event

    def _announce(self, endpoint: Endpoint, state: Breaker, event: str, now: datetime) -> None:
        common = {"tenant": endpoint.tenant, "endpoint_id": endpoint.id}
        if event == "opened":
            self._notify(
                notifications.CIRCUIT_OPENED,
                **common,
                consecutive_failures=state.consecutive_failures,
                open_until=state.open_until,
                last_error=state.last_error,
            )
        elif event == "recovered":
            self._notify(notifications.RECOVERED, **common)
        elif event == "reopened" and outage_seconds(state, now.timestamp()) >= self._settings.disable_after_seconds:
            self._disable(endpoint, state, now)

    def _disable(self, endpoint: Endpoint, state: Breaker, now: datetime) -> None:
        self._endpoints.disable(endpoint.tenant, endpoint.id, "failing", iso(now))
        self._notify(
            notifications.DISABLED, tenant=endpoint.tenant, endpoint_id=endpoint.id, reason="failing", outage_seconds=outage_seconds(state, now.timestamp())
        )

    def _apply(self, task: DeliveryTask, decision: Decision, result: HttpResult, now: datetime, budget_attempt: int) -> str:
        """Carry out the decision's side effects; returns where the task went."""
        if decision.pause_endpoint_seconds is not None:
            self._endpoints.pause(task.tenant, task.endpoint_id, now.timestamp() + decision.pause_endpoint_seconds)
        if decision.disable_endpoint:
            self._endpoints.disable(task.tenant, task.endpoint_id, "gone", iso(now))
            self._notify(notifications.DISABLED, tenant=task.tenant, endpoint_id=task.endpoint_id, reason="gone")
        if decision.retry_in_seconds is not None:
            return self._scheduler.schedule(task.next_attempt(), decision.retry_in_seconds, now)
        if decision.exhausted:
            attributes = {
                "last_status_code": "" if result.status_code is None else str(result.status_code),
                "last_error": result.error or "",
                "attempts": str(budget_attempt),
                "endpoint_id": task.endpoint_id,
                "tenant": task.tenant,
                "event_id": task.event_id,
                "delivery_id": task.delivery_id,
            }
            self._scheduler.dead_letter(task, decision.exhausted, attributes)
            self._notify(notifications.EXHAUSTED, reason=decision.exhausted, **{k: v for k, v in attributes.items() if v})
            return "dlq"
        return ""
