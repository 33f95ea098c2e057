"""Endpoint health as delivery sees it: the breaker and limiter after each attempt, disabling, and the leases a batch gives back.

The decisions are `hookline.core.health`'s; this applies them with conditional
writes (re-read and re-decided on a conflict) and announces what changed.
Nothing is written for a healthy success on a pristine endpoint.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial

from hookline.core import notifications
from hookline.core.breaker import Breaker, Transition, outage_seconds
from hookline.core.clock import iso
from hookline.core.conflicts import Lost
from hookline.core.emails import StatusNotice
from hookline.core.errors import error_code
from hookline.core.health import breaker_after, endpoint_after, limiter_after, slows_down
from hookline.core.models import Endpoint
from hookline.core.notifications import Notify
from hookline.core.planning import Step, gate, under_lease
from hookline.core.policy import Decision
from hookline.core.ratelimit import Limiter, give_back
from hookline.core.responses import HttpResult
from hookline.core.rules import EndpointRules
from hookline.core.stats import CarryOver, Counts, carry
from hookline.services.cas import compare_and_swap
from hookline.services.delivery.emails import CustomerEmails
from hookline.services.delivery.ports import EndpointControl, EndpointStates, StatsSink

_log = logging.getLogger(__name__)

# Logged, and counted (`count_give_back_failure`), when a batch's leases stay out until they expire: the give-back
# raised, or lost the race on every try. The endpoint then has fewer requests in flight than it may, for up to a lease.
LEASES_NOT_GIVEN_BACK = "leases not given back"


@dataclass(frozen=True)
class HealthTracker:
    states: EndpointStates
    endpoints: EndpointControl
    notify: Notify
    config: EndpointRules
    clock: Callable[[], datetime]
    emails: CustomerEmails | None = None  # the customer's email about a disabled or recovered endpoint; None: SNS only
    stats: StatsSink | None = None  # where carried statistics move (None: statistics are not kept)
    count_give_back_failure: Callable[[], None] | None = None  # counts leases not given back (the LeasesNotGivenBack metric)

    def after_attempt(self, endpoint: Endpoint, breaker: Breaker | None, was_probe: bool, result: HttpResult, decision: Decision, now: datetime) -> str:
        """Feed an answer to the breaker (and a 429 or a probe to the limiter), then pause or disable the endpoint if it asks for it.

        Returns the breaker's transition, if any."""
        tenant, endpoint_id, at = endpoint.tenant, endpoint.id, now.timestamp()
        outcome = result.outcome

        def propose_breaker(state: Breaker) -> tuple[Transition | None, Breaker | None]:
            change = breaker_after(state, outcome, at, self.config, was_probe)
            return change, change.state if change is not None else None

        def save_breaker(write: Breaker, base: Breaker) -> bool | Lost[Breaker]:
            return self.states.save_breaker(tenant, endpoint_id, write, base.version)

        transition = compare_and_swap(breaker or Breaker(), propose_breaker, save_breaker, lambda: self.states.breaker(tenant, endpoint_id))
        if transition is not None:
            self._announce(endpoint, transition)
        if slows_down(outcome, was_probe):
            compare_and_swap(
                self.states.limiter(tenant, endpoint_id),
                lambda state: (True, limiter_after(state, outcome, endpoint.rate_limit_per_second, at, self.config, was_probe)),
                lambda write, base: self.states.save_limiter(tenant, endpoint_id, write, base.version),
                lambda: self.states.limiter(tenant, endpoint_id),
            )
        change = endpoint_after(decision, transition, at, self.config)
        if change.pause_until is not None:
            self.endpoints.pause(tenant, endpoint_id, change.pause_until)
        if change.disable:
            self.disable(endpoint, transition.state if transition is not None else breaker or Breaker(), now, change.disable)
        return transition.event if transition is not None else ""

    def under_lease(
        self, endpoint: Endpoint, breaker: Breaker, waiting: Step, expiry: float, answered: int | None, start: Limiter | None
    ) -> tuple[Step, Limiter] | None:
        """A waiting task offered a lease of its batch (the request under it ended with `answered`): the step to
        send it under that lease, and the limiter as written with its send time (hookline.core.planning.under_lease):
        one conditional write, proposed from `start` (the state the batch last wrote; None: read first), re-read and
        retried on a conflict. None when the core says no or every try lost the race: the lease then ends, and the
        task is deferred as planned."""
        tenant, endpoint_id = endpoint.tenant, endpoint.id

        def propose(state: Limiter) -> tuple[tuple[Step, Limiter] | None, Limiter | None]:
            step, written = under_lease(gate(endpoint), breaker, state, waiting, expiry, answered, self.clock().timestamp(), self.config)
            return (None, None) if written is None else ((step, written), written)

        read = partial(self.states.limiter, tenant, endpoint_id)
        return compare_and_swap(
            start if start is not None else read(), propose, lambda write, base: self.states.save_limiter(tenant, endpoint_id, write, base.version), read
        )

    def disable(self, endpoint: Endpoint, state: Breaker, now: datetime, reason: str) -> None:
        """Disabled (410 Gone, or failing for longer than the threshold): its tasks are parked until it is re-enabled."""
        self.endpoints.disable(endpoint.tenant, endpoint.id, reason, iso(now))
        outage = outage_seconds(state, now.timestamp()) if reason == "failing" else None
        details: dict[str, object] = {"outage_seconds": outage} if outage is not None else {}
        self.notify(notifications.DISABLED, tenant=endpoint.tenant, endpoint_id=endpoint.id, reason=reason, **details)
        since = iso(now - timedelta(seconds=outage or 0.0))
        # The endpoint as it was before this disable: concurrent or retried disables of one episode share its updated_at.
        self._email(endpoint, StatusNotice("disabled", reason, since, outage), f"disabled#{endpoint.updated_at}")

    def give_back(
        self,
        tenant: str,
        endpoint_id: str,
        expiry: float,
        count: int,
        answers: Sequence[tuple[float | None, int | None, str | None]] = (),
        ceiling: int = 0,
        counts: Mapping[str, Counts] | None = None,
        granted: Limiter | None = None,
        started: float | None = None,
        at: float | None = None,
    ) -> None:
        """Return a batch's concurrency leases (they also expire on their own, so a failure here, an exception or every
        try lost, is logged and counted, never raised),
        folding in what its requests to the endpoint saw, (latency s, status, error) each, for the adaptive limit,
        and the batch's statistics of the endpoint by hour (`counts`), carried on the same item in the same write
        (hookline.core.stats.carry): an earlier hour's carried counters are moved to their item first, and a late
        batch's counters of an hour before the carried one are added to theirs after the write lands.

        It proposes from `granted`, the state the batch's grant wrote, when the planner passes one (the endpoint had
        nothing else in flight, so no other batch likely wrote since), and otherwise reads the limiter first: with
        other batches granting on the same endpoint meanwhile, a write on the grant's state would lose most of the
        time, and a lost conditional write is billed as a write (measured: 0.9 lost writes per delivery, +$0.65 per
        million). A lost write is read again and retried either way (hookline.services.cas). `started`: a token lease's
        start, when its slots are what comes back (the grant's time, for the adaptive limit's once-per-round-trip rule).
        `at`: when the leases came back (the last request's end, for one handed over as it finished); default now."""
        batch = dict(counts or {}) if self.stats is not None else {}

        def propose(state: Limiter) -> tuple[CarryOver, Limiter]:
            returned = give_back(state, expiry, count, self.clock().timestamp() if at is None else at, answers, ceiling, self.config.limiter, started)
            over = carry(state.carried, batch, str(returned.version))
            return over, replace(returned, carried=over.carried)

        def save(write: Limiter, base: Limiter) -> bool | Lost[Limiter]:
            if self.stats is not None and base.carried.counts and base.carried.hour != write.carried.hour:
                self.stats.move(tenant, endpoint_id, base.carried)  # before the write: a retried move adds nothing
            return self.states.save_limiter(tenant, endpoint_id, write, base.version)

        where = {"tenant": tenant, "endpoint_id": endpoint_id, "leases": count}
        try:
            start = granted if granted is not None else self.states.limiter(tenant, endpoint_id)
            over = compare_and_swap(start, propose, save, lambda: self.states.limiter(tenant, endpoint_id))
        except Exception:  # the leases expire on their own; the batch's results stand
            _log.exception(LEASES_NOT_GIVEN_BACK, extra=where)
            self._count_give_back_failure()
            over = None
        else:
            if over is None:  # every try lost the race: other batches kept writing the limiter
                _log.warning(LEASES_NOT_GIVEN_BACK, extra={**where, "reason": "contended"})
                self._count_give_back_failure()
        late = over.added if over is not None else tuple((hour, dict(c)) for hour, c in batch.items())  # not carried: added on their own
        for hour, hour_counts in late:
            self._add_stats(tenant, endpoint_id, hour, dict(hour_counts))

    def _count_give_back_failure(self) -> None:
        if self.count_give_back_failure is None:
            return
        try:
            self.count_give_back_failure()
        except Exception:  # a metric never fails the batch
            _log.exception("LeasesNotGivenBack not counted")

    def _add_stats(self, tenant: str, endpoint_id: str, hour: str, counts: dict[str, int]) -> None:
        if self.stats is None or not counts:
            return
        try:
            self.stats.add(tenant, endpoint_id, hour, counts)
        except Exception:  # statistics are best effort; a delivery never fails for them
            _log.exception("statistics not written", extra={"tenant": tenant, "endpoint_id": endpoint_id})

    def _announce(self, endpoint: Endpoint, change: Transition) -> None:
        common = {"tenant": endpoint.tenant, "endpoint_id": endpoint.id}
        state = change.state
        if change.event == "opened":
            self.notify(
                notifications.CIRCUIT_OPENED,
                **common,
                consecutive_failures=state.consecutive_failures,
                open_until=state.open_until,
                last_error=state.last_error,
            )
        elif change.event == "recovered":
            self.notify(notifications.RECOVERED, **common)
            # The compare-and-swap lets one writer win each breaker version, so the version names this recovery.
            self._email(endpoint, StatusNotice("recovered", "recovered", iso(self.clock())), f"recovered#v{state.version}")

    def past_sunset(self, endpoint: Endpoint, version: str, sunset_at: str) -> None:
        """The endpoint received a payload version past its sunset: its customer is told once (per endpoint and version)."""
        self._email(endpoint, StatusNotice("version_sunset", version, sunset_at), f"sunset#{version}")

    def _email(self, endpoint: Endpoint, change: StatusNotice, transition: str) -> None:
        if self.emails is None:
            return
        try:
            self.emails.endpoint_changed(endpoint, change, transition)
        except Exception as exc:  # a lost email must never fail a delivery; the SNS notification went out, the endpoint's health says so
            _log.exception(
                "customer email not sent", extra={"tenant": endpoint.tenant, "endpoint_id": endpoint.id, "transition": transition, "error": error_code(exc)}
            )
