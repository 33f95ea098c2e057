"""Events, deliveries and attempts in memory, as hookline.adapters.dynamo.events.EventRepository keeps them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from hookline.core.broadcast import Fanout
from hookline.core.claims import claim_verdict
from hookline.core.models import INDEXED_STATUSES, Attempt, Delivery, DeliveryTask, Event
from tests.fakes import paging
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.faults import Faults


def _indexed(d: Delivery) -> bool:
    """In the sparse endpoint-deliveries index: failed or paused, or pending once an attempt was recorded."""
    return d.status in INDEXED_STATUSES and (d.status != "pending" or d.attempts_made > 0)


@dataclass(frozen=True)
class Claim:
    """The answer to a claim, shaped like the adapter's (hookline.services.delivery.ports.ClaimResult)."""

    delivery: Delivery | None
    busy: bool = False
    missing: bool = False


@dataclass
class _Row:
    delivery: Delivery  # without its attempts: those are kept apart, as items of their own
    expires_at: int
    lease_until: float | None = None
    lease_attempt: int | None = None


class FakeEventStore:
    """EventStore (the services' port) and DeliveryLog (the delivery service's).

    Contract, as the adapter's, every write atomic as a conditional DynamoDB write:
    - `create_event` stores an event once (False for an id that exists);
      `ensure_delivery` creates a delivery unless it exists and answers the one
      stored; `create_deliveries` writes blindly (its deliveries are new).
    - `advance_fanout` replaces a broadcast's fan-out state only from the step
      the caller read (False otherwise, and for an event that is no broadcast);
      `deliveries_page` pages one event's deliveries in id order, with attempts.
    - `claim_attempt` takes the lease on attempt `number` only while the delivery
      is pending or paused, in the caller's generation, the attempt not yet
      recorded and no live lease held; a lease on an earlier attempt still alive
      makes the claim `busy`, a missing delivery `missing`. Leases are kept to
      the millisecond, as stored.
    - `record_attempt` writes the attempt, and the delivery's new state only
      if no later attempt was recorded (nothing for a delivery that is gone).
    - `restart` moves to the next generation only from the generation and
      statuses named (None otherwise); `park` pauses only a pending delivery.
    - `deliveries_by_status` pages the sparse index: failed or paused
      deliveries of one endpoint, ordered by (status, created_at, id), created
      within [since, until]; any other status is a ValueError.
    """

    def __init__(self) -> None:
        self.events: dict[tuple[str, str], Event] = {}
        self.event_expiry: dict[tuple[str, str], int] = {}
        self.rows: dict[tuple[str, str, str], _Row] = {}
        self.attempts: dict[tuple[str, str, str], dict[int, Attempt]] = {}
        self.faults = Faults()
        self._lock = new_lock()

    # -- events ---------------------------------------------------------------------------

    @atomic
    def create_event(self, event: Event, expires_at: int) -> bool:
        self.faults.check("create_event")
        key = (event.tenant, event.id)
        if key in self.events:
            return False
        self.events[key] = event
        self.event_expiry[key] = expires_at
        return True

    def get_event(self, tenant: str, event_id: str, consistent: bool = False) -> Event | None:
        self.faults.check("get_event")
        return self.events.get((tenant, event_id))

    @atomic
    def get_events(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Event]:
        self.faults.check("get_events")
        return {k: self.events[k] for k in dict.fromkeys(keys) if k in self.events}

    @atomic
    def read_for_sending(
        self,
        event_ids: Iterable[tuple[str, str]],
        delivery_ids: Iterable[tuple[str, str, str]],
        attempted: Iterable[tuple[str, str, str]] = (),
        consistent: bool = True,  # the fake is always consistent
    ) -> tuple[dict[tuple[str, str], Event], dict[tuple[str, str, str], Delivery]]:
        self.faults.check("read_for_sending")
        events = {k: self.events[k] for k in dict.fromkeys(event_ids) if k in self.events}
        found = {k: self._leased(self.rows[k]) if k in self.rows else self._planned(k) for k in dict.fromkeys(delivery_ids)}
        return events, {k: d for k, d in found.items() if d is not None}

    def _planned(self, key: tuple[str, str, str]) -> Delivery | None:
        """A delivery its event planned that has no row yet (nothing stored about it), as the adapter reads one."""
        event = self.events.get(key[:2])
        return event.planned_delivery(key[2]) if event is not None else None

    def _row(self, key: tuple[str, str, str]) -> _Row | None:
        """The delivery's row, made from its event's plan when it has none yet (as the adapter writes the item then)."""
        if key not in self.rows and (planned := self._planned(key)) is not None:
            self.rows[key] = _Row(_stored(planned), self.event_expiry.get(key[:2], 0))
        return self.rows.get(key)

    @staticmethod
    def _leased(row: _Row) -> Delivery:
        return replace(row.delivery, lease_attempt=row.lease_attempt, lease_until=row.lease_until)

    @atomic
    def event_with_deliveries(self, tenant: str, event_id: str) -> tuple[Event | None, list[Delivery]]:
        self.faults.check("event_with_deliveries")
        deliveries = {key: row.delivery for key, row in self.rows.items() if key[:2] == (tenant, event_id)}
        event = self.events.get((tenant, event_id))
        for planned in event.deliveries if event is not None else ():
            only_planned = self._planned((tenant, event_id, planned.id)) if (tenant, event_id, planned.id) not in deliveries else None
            if only_planned is not None:
                deliveries[(tenant, event_id, planned.id)] = only_planned
        return event, sorted((self._with_attempts(k, d) for k, d in deliveries.items()), key=lambda d: d.id)

    def _with_attempts(self, key: tuple[str, str, str], delivery: Delivery) -> Delivery:
        made = self.attempts.get(key, {})
        return replace(delivery, attempts=tuple(made[n] for n in sorted(made)))

    # -- deliveries -----------------------------------------------------------------------

    @atomic
    def create_deliveries(self, deliveries: list[Delivery], expires_at: int) -> None:
        self.faults.check("create_deliveries")
        for d in deliveries:
            self.rows[_key(d)] = _Row(_stored(d), expires_at)

    @atomic
    def ensure_delivery(self, d: Delivery, expires_at: int) -> Delivery:
        self.faults.check("ensure_delivery")
        return self.rows.setdefault(_key(d), _Row(_stored(d), expires_at)).delivery

    @atomic
    def advance_fanout(self, tenant: str, event_id: str, current: Fanout, advanced: Fanout) -> bool:
        self.faults.check("advance_fanout")
        stored = self.events.get((tenant, event_id))
        if stored is None or stored.broadcast is None or stored.broadcast.step != current.step:
            return False
        self.events[(tenant, event_id)] = replace(stored, broadcast=advanced)
        return True

    @atomic
    def deliveries_page(self, tenant: str, event_id: str, limit: int, cursor: str | None) -> tuple[list[Delivery], str | None]:
        self.faults.check("deliveries_page")
        mine = [self._with_attempts(key, row.delivery) for key, row in self.rows.items() if key[:2] == (tenant, event_id)]
        return paging.page(mine, lambda d: d.id, f"deliveries#{tenant}#{event_id}", limit, cursor)

    def deliveries_with_attempts(self, tenant: str, event_id: str, delivery_ids: list[str]) -> list[Delivery]:
        self.faults.check("deliveries_with_attempts")
        keys = [(tenant, event_id, i) for i in dict.fromkeys(delivery_ids)]
        return [self._with_attempts(key, self.rows[key].delivery) for key in keys if key in self.rows]

    def delivery_with_attempts(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None:
        self.faults.check("delivery_with_attempts")
        key = (tenant, event_id, delivery_id)
        found = self.rows[key].delivery if key in self.rows else self._planned(key)
        return self._with_attempts(key, found) if found else None

    def get_delivery(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None:
        self.faults.check("get_delivery")
        key = (tenant, event_id, delivery_id)
        return self.rows[key].delivery if key in self.rows else self._planned(key)

    @atomic
    def claim_attempt(self, tenant: str, event_id: str, delivery_id: str, number: int, now_epoch: float, lease_seconds: int, generation: int = 0) -> Claim:
        self.faults.check("claim_attempt")
        row = self._row((tenant, event_id, delivery_id))
        if row is None:
            return Claim(None, missing=True)
        verdict = claim_verdict(self._leased(row), number, generation, now_epoch)
        if verdict != "go":
            return Claim(None, busy=verdict == "busy")
        row.delivery = replace(row.delivery, status="pending")
        row.lease_until, row.lease_attempt = round(now_epoch + lease_seconds, 3), number
        return Claim(row.delivery)

    @atomic
    def record_attempt(self, delivery: Delivery, attempt: Attempt, new_status: str, now_iso: str, expires_at: int) -> None:
        self.faults.check("record_attempt")
        key = _key(delivery)
        self.attempts.setdefault(key, {})[attempt.number] = attempt
        if delivery.planned_only and key not in self.rows:  # its first recorded attempt writes its item
            self.rows[key] = _Row(_stored(delivery), expires_at)
        row = self.rows.get(key)
        if row is None or row.delivery.attempts_made >= attempt.number:
            return  # gone, or a later attempt was recorded first
        row.delivery = replace(row.delivery, status=new_status, attempts_made=attempt.number, updated_at=now_iso)  # type: ignore[arg-type]
        row.lease_until = row.lease_attempt = None

    @atomic
    def restart(
        self, tenant: str, event_id: str, delivery_id: str, expected_generation: int, statuses: tuple[str, ...], now_iso: str, replay_id: str = ""
    ) -> Delivery | None:
        self.faults.check("restart")
        row = self.rows.get((tenant, event_id, delivery_id))
        if row is None or row.delivery.generation != expected_generation or row.delivery.status not in statuses:
            return None
        d = row.delivery
        row.delivery = replace(
            d,
            generation=d.generation + 1,
            generation_first_attempt=d.attempts_made + 1,
            generation_started_at=now_iso,
            status="pending",
            updated_at=now_iso,
            replay_id=replay_id,
        )
        row.lease_until = row.lease_attempt = None
        return row.delivery

    @atomic
    def park(self, task_tenant: str, event_id: str, delivery_id: str, endpoint_id: str, now_iso: str) -> bool:
        self.faults.check("park")
        row = self._row((task_tenant, event_id, delivery_id))
        if row is None or row.delivery.status != "pending":
            return False
        row.delivery = replace(row.delivery, status="paused", updated_at=now_iso)
        row.lease_until = row.lease_attempt = None
        return True

    @atomic
    def count_by_status(self, tenant: str, endpoint_id: str, status: str, bound: int) -> tuple[int, bool]:
        self.faults.check("count_by_status")
        if status not in INDEXED_STATUSES:
            raise ValueError(f"status {status!r} is not indexed")
        count = sum(
            1
            for (t, _, _), row in self.rows.items()
            if t == tenant and row.delivery.endpoint_id == endpoint_id and row.delivery.status == status and _indexed(row.delivery)
        )
        return min(count, bound), count > bound

    def deliveries_by_status(
        self,
        tenant: str,
        endpoint_id: str,
        status: str,
        since: str = "",
        until: str = "\uffff",
        limit: int = 100,
        cursor: str | None = None,
        newest_first: bool = False,
    ) -> tuple[list[Delivery], str | None]:
        self.faults.check("deliveries_by_status")
        if status not in INDEXED_STATUSES:
            raise ValueError(f"status {status!r} is not indexed")
        low, high = f"{status}#{since}", f"{status}#{until}"
        indexed = [
            row.delivery
            for (t, _, _), row in self.rows.items()
            if t == tenant and row.delivery.endpoint_id == endpoint_id and _indexed(row.delivery) and low <= _index_key(row.delivery) <= high
        ]
        return paging.page(indexed, _index_key, f"index#{tenant}#{endpoint_id}", limit, cursor, descending=newest_first)

    def log_page(
        self, tenant: str, endpoint_id: str, since: str = "", until: str = "~", limit: int = 20, cursor: str | None = None, newest_first: bool = True
    ) -> tuple[list[Delivery], str | None]:
        """Every stored delivery of the endpoint (each has its log entry from its first write), by creation."""
        self.faults.check("log_page")
        logged = [
            row.delivery
            for (t, _, _), row in self.rows.items()
            if t == tenant and row.delivery.endpoint_id == endpoint_id and since <= _log_key(row.delivery) <= until
        ]
        return paging.page(logged, _log_key, f"log#{tenant}#{endpoint_id}", limit, cursor, descending=newest_first)

    # -- for tests --------------------------------------------------------------------------

    @atomic
    def add(self, event: Event, *deliveries: Delivery, expires_at: int = 0) -> DeliveryTask:
        """Test setup: an event and its deliveries stored as they are; the task of the (last) delivery's next attempt."""
        self.events[(event.tenant, event.id)] = event
        self.event_expiry[(event.tenant, event.id)] = expires_at
        for d in deliveries:
            self.rows[_key(d)] = _Row(_stored(d), expires_at)
        d = deliveries[-1]
        return DeliveryTask.of(d)

    def delivery(self, tenant: str, event_id: str, delivery_id: str) -> Delivery:
        """A delivery with its attempts (the test's view: KeyError if there is none)."""
        key = (tenant, event_id, delivery_id)
        return self._with_attempts(key, self.rows[key].delivery)

    def all_deliveries(self) -> list[Delivery]:
        """Every delivery there is: those with a row, and those only planned on their event so far."""
        planned = [(k, d) for k in self._planned_keys() if k not in self.rows and (d := self._planned(k)) is not None]
        stored = [(k, r.delivery) for k, r in self.rows.items()]
        return sorted((self._with_attempts(k, d) for k, d in stored + planned), key=lambda d: (d.event_id, d.id))

    def _planned_keys(self) -> list[tuple[str, str, str]]:
        return [(t, e, p.id) for (t, e), event in self.events.items() for p in event.deliveries]


def _key(d: Delivery) -> tuple[str, str, str]:
    return (d.tenant, d.event_id, d.id)


def _stored(d: Delivery) -> Delivery:
    # As the adapter writes it: the attempts are items of their own, and a new generation starts at creation.
    return replace(d, attempts=(), planned_only=False, generation_started_at=d.generation_started_at or d.created_at)


def _log_key(d: Delivery) -> str:
    return f"{d.created_at}#{d.id}"


def _index_key(d: Delivery) -> str:
    return f"{d.status}#{d.created_at}#{d.id}"
