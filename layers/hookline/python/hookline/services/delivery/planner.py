"""Planning a batch: each endpoint's state read once, the core planner asked, its state write made conditionally.

One BatchGetItem reads the batch's endpoints, their breakers and their limiters;
`hookline.core.planning.plan_group` decides; the probe's lease or the limiter's
grant is written conditionally on the version read, and re-planned on a conflict from the item as the refusal
returned it (read again only when it did not, and then only the item whose write lost). The bodies of the
tasks, and the deliveries of the fresh ones among them (hookline.core.claims),
are read in one eventually consistent request: beside the plan on the first lane,
after it (only the tasks that will send) on the retry lane.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache, partial

from hookline.core.backoff import RandomSource
from hookline.core.breaker import Breaker
from hookline.core.conflicts import Lost
from hookline.core.models import Delivery, DeliveryTask, Endpoint, Event
from hookline.core.planning import GroupPlan, gate, gave_up, plan_group, waits_for_lease
from hookline.core.ratelimit import Limiter, in_flight
from hookline.core.rules import EndpointRules
from hookline.services.cas import compare_and_swap
from hookline.services.delivery.endpoint_pool import EndpointPool, carried
from hookline.services.delivery.health import HealthTracker
from hookline.services.delivery.plans import Plan
from hookline.services.delivery.ports import DeliveryLog, EndpointStates
from hookline.services.delivery.token_leases import TokenLeaseBook

_log = logging.getLogger(__name__)

State = tuple[Endpoint | None, Breaker, Limiter]  # an endpoint, its breaker and its limiter, as read for planning


BreakerAndLimiter = tuple[Breaker, Limiter]  # the part of it a plan writes


def _save_changed(
    states: EndpointStates, tenant: str, endpoint_id: str, new: BreakerAndLimiter, base: BreakerAndLimiter
) -> tuple[str, bool | Lost[BreakerAndLimiter]]:
    """Save the item of (breaker, limiter) that the plan changed, conditionally on `base`'s version: which one it was,
    and True, or Lost with the pair as it is now when the refusal returned the item."""
    if new[0] is not base[0]:
        breaker = states.save_breaker(tenant, endpoint_id, new[0], base[0].version)
        return "breaker", breaker if not isinstance(breaker, Lost) else Lost(None if breaker.current is None else (breaker.current, base[1]))
    limiter = states.save_limiter(tenant, endpoint_id, new[1], base[1].version)
    return "limiter", limiter if not isinstance(limiter, Lost) else Lost(None if limiter.current is None else (base[0], limiter.current))


def _may_send(plan: Plan) -> bool:
    """A task that sends, or may: one the limiter deferred waits for a lease of its batch's."""
    return plan.sends or (plan.step is not None and waits_for_lease(plan.step))


@lru_cache(maxsize=1)
def _early_reads() -> ThreadPoolExecutor:
    """One thread for the life of the process (a warm Lambda reuses it): a first-lane batch's body read, beside its plan."""
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="bodies")


@dataclass(frozen=True)
class Planner:
    events: DeliveryLog
    states: EndpointStates
    health: HealthTracker
    config: EndpointRules
    clock: Callable[[], datetime]
    rng: RandomSource
    pool: EndpointPool
    leases: TokenLeaseBook | None = None  # this process's token leases on hot endpoints (hookline.core.leases); None: every endpoint per batch

    def plan(self, tasks: Iterable[DeliveryTask], first_lane: bool = False) -> dict[DeliveryTask, Plan]:
        """`first_lane`: the tasks came from the delivery queue (first attempts), where a slow or timing-out endpoint is not served."""
        groups: dict[tuple[str, str], list[DeliveryTask]] = defaultdict(list)
        for t in dict.fromkeys(tasks):
            groups[(t.tenant, t.endpoint_id)].append(t)
        unique = [t for group in groups.values() for t in group]
        # On the first lane a task is seldom deferred, and its latency is what users wait on: read the bodies beside
        # the plan instead of after it (one AWS call fewer in a row). The retry lane, where most deferrals are, reads
        # after the plan only the bodies of the tasks that will send.
        early = _early_reads().submit(carried(self._read), unique) if first_lane and unique else None
        # A token lease's endpoint is read under its planning turn (_plan_endpoint): not in the batch's read
        loaded = self._load([k for k in groups if self.leases is None or not self.leases.holds(*k)])
        plans: dict[DeliveryTask, Plan] = {}
        for planned in self.pool.map(partial(self._plan_safely, first_lane=first_lane, loaded=loaded), list(groups.items())):
            plans.update(planned)
        if early is not None:
            read = early.result()
            if read is not None:
                return self._attach(plans, *read)
        return self._with_bodies(plans)

    def _load(self, endpoints: list[tuple[str, str]]) -> dict[tuple[str, str], State]:
        """The batch's endpoints with their breakers and limiters, in one read; {} if it failed (each then reads its
        own, and one endpoint's trouble fails only its own tasks)."""
        if len(endpoints) <= 1:
            return {}  # its planning reads it
        try:
            return self.states.load_many(endpoints)
        except Exception:
            _log.exception("batch read of endpoint states failed")
            return {}

    def _read(self, tasks: list[DeliveryTask]) -> tuple[dict[tuple[str, str], Event], dict[tuple[str, str, str], Delivery]] | None:
        """The tasks' bodies and the fresh ones' deliveries in one eventually consistent read (where a stale answer is
        safe: see DeliveryLog.read_for_sending); None if it failed."""
        try:
            fresh = [t for t in tasks if t.fresh]
            return self.events.read_for_sending(
                ((t.tenant, t.event_id) for t in tasks),
                ((t.tenant, t.event_id, t.delivery_id) for t in fresh),
                ((t.tenant, t.event_id, t.delivery_id) for t in fresh if t.attempt > 1),
                consistent=False,
            )
        except Exception:  # each task reads its own body, and claims, then
            _log.exception("batch read of event bodies failed")
            return None

    @staticmethod
    def _attach(
        plans: dict[DeliveryTask, Plan], events: dict[tuple[str, str], Event], deliveries: dict[tuple[str, str, str], Delivery]
    ) -> dict[DeliveryTask, Plan]:
        def read(t: DeliveryTask, p: Plan) -> Plan:
            return replace(p, event=events.get((t.tenant, t.event_id)), delivery=deliveries.get((t.tenant, t.event_id, t.delivery_id)), delivery_read=t.fresh)

        return {t: read(t, p) if _may_send(p) else p for t, p in plans.items()}

    def _plan_safely(
        self, item: tuple[tuple[str, str], list[DeliveryTask]], first_lane: bool = False, loaded: Mapping[tuple[str, str], State] | None = None
    ) -> dict[DeliveryTask, Plan]:
        (tenant, endpoint_id), group = item
        try:
            return self._plan_endpoint(tenant, endpoint_id, group, first_lane, (loaded or {}).get((tenant, endpoint_id)))
        except Exception as exc:  # one endpoint's trouble must not fail the others' records
            _log.exception("planning failed", extra={"tenant": tenant, "endpoint_id": endpoint_id})
            return {t: Plan(None, failed=f"planning failed: {type(exc).__name__}") for t in group}

    def _plan_endpoint(
        self, tenant: str, endpoint_id: str, tasks: list[DeliveryTask], first_lane: bool = False, loaded: State | None = None
    ) -> dict[DeliveryTask, Plan]:
        if self.leases is None:
            return self._plan_held(tenant, endpoint_id, tasks, first_lane, loaded)
        with self.leases.planning(tenant, endpoint_id):
            # A token lease's endpoint is planned one batch at a time in this process: read it under that turn
            return self._plan_held(tenant, endpoint_id, tasks, first_lane, None if self.leases.holds(tenant, endpoint_id) else loaded)

    def _plan_held(self, tenant: str, endpoint_id: str, tasks: list[DeliveryTask], first_lane: bool, loaded: State | None = None) -> dict[DeliveryTask, Plan]:
        now = self.clock()
        endpoint, breaker, limiter = loaded if loaded is not None else self.states.load(tenant, endpoint_id)
        endpoint_gate = gate(endpoint)
        last: list[GroupPlan] = []
        lost: list[str] = []  # which item's write lost the race: only that one is read again
        written: list[tuple[Limiter, Limiter]] = []  # the grant that landed, and the limiter it was made from
        holding = self.leases.holding(tenant, endpoint_id) if self.leases is not None else None
        holder = self.leases.holder if self.leases is not None else ""

        def propose(state: BreakerAndLimiter) -> tuple[tuple[GroupPlan, Breaker], BreakerAndLimiter | None]:
            planned = plan_group(endpoint_gate, state[0], state[1], len(tasks), now.timestamp(), self.config, self.rng, first_lane, holding, holder)
            last.append(planned)
            if planned.write is None:
                return (planned, state[0]), None
            return (planned, planned.breaker or state[0]), (planned.breaker or state[0], planned.limiter or state[1])

        def save(new: BreakerAndLimiter, base: BreakerAndLimiter) -> bool | Lost[BreakerAndLimiter]:
            nonlocal breaker, limiter
            kind, saved = _save_changed(self.states, tenant, endpoint_id, new, base)
            if saved is True:
                if kind == "limiter":
                    written.append((new[1], base[1]))
                return True
            lost.append(kind)
            if isinstance(saved, Lost) and saved.current is not None:
                breaker, limiter = saved.current  # what beat the write, as its refusal returned it: nothing to read
            return saved

        def read() -> BreakerAndLimiter:
            nonlocal breaker, limiter
            if lost[-1] == "breaker":
                breaker = self.states.breaker(tenant, endpoint_id)
            else:
                limiter = self.states.limiter(tenant, endpoint_id)
            return breaker, limiter

        settled = compare_and_swap((breaker, limiter), propose, save, read)
        group, planned_breaker = settled if settled is not None else (gave_up(last[-1], self.rng), breaker)
        if settled is not None and group.holding is not None and self.leases is not None:
            self.leases.keep(tenant, endpoint_id, group.holding)
        if group.disable and endpoint is not None:
            self.health.disable(endpoint, planned_breaker, now, "failing")
        # Alone on the endpoint (nothing else was in flight): its give-back is likely the next write of the limiter
        granted = next((w for w, b in written if in_flight(b, now.timestamp()) == 0), None) if settled is not None else None
        return {t: Plan(step, endpoint, planned_breaker, granted=granted) for t, step in zip(tasks, group.steps, strict=True)}

    def _with_bodies(self, plans: dict[DeliveryTask, Plan]) -> dict[DeliveryTask, Plan]:
        """The bodies of the tasks that may send and the fresh ones' deliveries, in one read (a deferred task reads
        nothing, unless it waits for one of its batch's leases: hookline.services.delivery.plans.EndpointBatch)."""
        sending = [t for t, p in plans.items() if _may_send(p)]
        if not sending:
            return plans
        read = self._read(sending)
        return plans if read is None else self._attach(plans, *read)
