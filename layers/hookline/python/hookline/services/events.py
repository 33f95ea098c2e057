"""Events: accept them (store durably, fan out to deliveries, queue the tasks), show them, retry a
delivery by hand, and list an endpoint's failed or paused deliveries.

A 202 means the event, its deliveries and their tasks are all stored. Every
step is repeatable: when a step fails the caller gets a 503 and may repeat the
same request (same `id`), which finishes the job without duplicating anything.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import datetime, timedelta

from hookline.core import ids, validation
from hookline.core.access import Principal
from hookline.core.claims import unsent_restart
from hookline.core.clock import epoch_ms, iso, parse_iso
from hookline.core.contract import events as contract
from hookline.core.contract.events import IndexedStatus, LogStatus
from hookline.core.errors import Conflict, DependencyFailed, HooklineError, NotFound, PayloadTooLarge, Unavailable, ValidationFailed
from hookline.core.idempotency import request_hash
from hookline.core.models import LAYOUT_EVENT_KEYED, Delivery, DeliveryTask, Endpoint, Event, PlannedDelivery
from hookline.core.replay import FAILURES_READ_BOUND, failure_histogram
from hookline.core.schemes import DEFAULT as DEFAULT_SIGNING
from hookline.core.settings import Settings
from hookline.core.sqs import MAX_BATCH_ENTRIES
from hookline.core.versions import EventType, VersionCatalog, check_size, render
from hookline.core.webhook import sent_headers
from hookline.services.customers import require_customer
from hookline.services.ports import CatalogReader, CustomerReader, EventEndpoints, EventReader, EventStore, TaskQueue, TypeNotes, UnqueuedNoteWriter

_log = logging.getLogger(__name__)
BROADCAST_SCAN_BOUND = 1000  # endpoints one page of a broadcast's deliveries reads at most


# The endpoints an event is addressed to, by owner: a customer's uid, or None for the tenant's own.
class Targets:
    """The endpoints of one owner, read once per owner (a request may name several, or one many times), and when each
    customer it named was made (`made`: what its event types are noted under)."""

    def __init__(self, read: Callable[[str | None], tuple[list[Endpoint], str]]):
        self._read = read
        self._found: dict[str | None, list[Endpoint] | NotFound] = {}
        self.made: dict[str | None, str] = {}

    def __call__(self, customer: str | None) -> list[Endpoint]:
        if customer not in self._found:
            try:
                self._found[customer], self.made[customer] = self._read(customer)
            except NotFound as missing:
                self._found[customer] = missing
        found = self._found[customer]
        if isinstance(found, NotFound):
            raise found
        return found


def find_event(events: EventReader, tenant: str, named: str) -> Event | None:
    """The tenant's event that `named` names: by its `evt_` id, else by the idempotency key the producer sent as its `id`."""
    for event_id in validation.event_ids_named_by(tenant, named):
        event = events.get_event(tenant, event_id)
        if event is not None:
            return event
    return None


class EventService:
    def __init__(
        self,
        events: EventStore,
        endpoints: EventEndpoints,
        customers: CustomerReader,
        queue: TaskQueue,
        settings: Settings,
        clock: Callable[[], datetime],
        catalog: CatalogReader,
        retry_queue: TaskQueue | None = None,
        types: TypeNotes | None = None,
        unqueued: UnqueuedNoteWriter | None = None,
    ):
        self._catalog = catalog
        self._unqueued = unqueued
        self._types = types
        self._events = events
        self._endpoints = endpoints
        self._customers = customers
        self._queue = queue
        self._retry_queue = retry_queue or queue
        self._settings = settings
        self._clock = clock

    def _sent(self, tasks: list[DeliveryTask]) -> None:
        """Queue a request's tasks. A new event's are fresh: their first attempt writes no claim (hookline.core.claims).
        A repeated request's copies of its unattempted deliveries claim, but the first request's fresh tasks, when they
        were queued, do not, so a copy that ran beside one could send that attempt a second time: each copy waits
        HOOKLINE_REPEAT_REQUEUE_DELAY_SECONDS (the delivery function's timeout, which bounds a first attempt from its
        read to its record) before a consumer may take it, and by then the fresh task has recorded its attempt, which
        the copy finds and skips. A delivery whose task the first request never queued goes out that much later."""
        wait = self._settings.repeat_requeue_delay_seconds
        self._queue.enqueue(tasks, delays=[0 if t.fresh else wait for t in tasks])

    def _expires_at(self, now: datetime) -> int:
        return int((now + timedelta(days=self._settings.retention_days)).timestamp())

    def _targets(self, tenant: str) -> Targets:
        """The endpoints of one owner, read once per owner (a batch may name several, or one many times).

        Only that owner's endpoints are read (the customer-endpoints index), so
        no event can reach another customer's. An unknown customer raises
        NotFound (customer_not_found). A customer's endpoints made before it
        was are an earlier customer's of its uid, deleted since (their deletion
        job may not have reached them yet): no event of the customer reaches them.
        """

        def read(customer: str | None) -> tuple[list[Endpoint], str]:
            if customer is None:
                return list(self._endpoints.all_of_owner(tenant, None)), ""
            made = require_customer(self._customers, tenant, customer).created_at
            return [ep for ep in self._endpoints.all_of_owner(tenant, customer) if ep.created_at >= made], made

        return Targets(read)

    def accept(self, tenant: str, request: contract.CreateEvent) -> contract.EventAccepted:
        """Store the event and fan it out to the endpoints it is addressed to: the named customer's, else the tenant's own.

        A known customer with no subscribed endpoint still gets its event stored (202, deliveries 0).
        """
        data = request.input()
        now = self._clock()
        event_id = ids.event_id(tenant, data.idempotency_key, int(now.timestamp() * 1000))
        try:
            targets = self._targets(tenant)
            result, tasks = self._stage(tenant, data, now, targets, self._catalog.load(tenant, [data.type]), event_id)
            self._sent(tasks)
        except DependencyFailed as exc:
            self._note_failed(tenant, [event_id], now)
            raise Unavailable(f"the event could not be queued ({exc.cause}); repeat the request with the same id") from None
        self._note_types(tenant, [(data.customer, data.type)], targets.made)
        return result

    def _note_failed(self, tenant: str, event_ids: list[str], now: datetime) -> None:
        """The events of a request that failed (a 503) after it may have stored them, noted for the sweeper: an event
        without an `id` cannot be finished by repeating the request (a repeat makes a new event), and a producer may
        never repeat one with an `id`. Best effort: the note fails when DynamoDB does, and a repeat still finishes it."""
        if self._unqueued is None or not event_ids:
            return
        try:
            self._unqueued.open(tenant, event_ids, now)
        except DependencyFailed as exc:
            _log.warning("queueing note not written", extra={"tenant": tenant, "cause": exc.cause})

    def queue_unsent(self, tenant: str, event_id: str) -> int:
        """Queue the event's deliveries that are pending and were never attempted (the sweeper's); how many."""
        event, stored = self._events.event_with_deliveries(tenant, event_id)
        if event is None or event.broadcast is not None:
            return 0
        known = {d.id: d for d in stored}
        unsent = [d for p in event.deliveries if (d := known.get(p.id) or event.delivery_of(p)).unsent]
        ordered = _ordered_among(self._targets(tenant), event.customer) if unsent else frozenset()
        self._queue.enqueue([self._task(d, ordered) for d in unsent])
        return len(unsent)

    def _note_types(self, tenant: str, sent: Iterable[tuple[str | None, str]], made: Mapping[str | None, str]) -> None:
        """Note the types of accepted events, each with the customer it was addressed to (None: the tenant's own) and
        when that customer was made (`made`, as the request's Targets read it)."""
        if self._types is None:
            return
        by_customer: dict[str | None, set[str]] = {}
        for customer, event_type in sent:
            by_customer.setdefault(customer, set()).add(event_type)
        for customer, types in by_customer.items():
            self._types.note(tenant, types, customer, made.get(customer, ""))

    def accept_batch(self, tenant: str, batch: contract.CreateEventBatch) -> contract.EventBatchAccepted:
        """Up to 100 events in one request: one result per event, in order, each as the single route would answer.

        The batch is validated as a whole first (a bad event stores nothing).
        Each owner's endpoints (each event names its customer, or none) are
        read once and the tasks of all events go out in shared SQS batches; an
        event for an unknown customer gets a 404 result; an event whose storage
        or queueing failed gets a 503 result, and repeating it (same `id`)
        finishes the job. An event whose data breaks its type's schema, or
        that an endpoint's payload version cannot be rendered for, gets a 422
        result, as the single route would answer it. When none got through (DynamoDB or SQS down), the whole request
        is a 503, as on the single route, so clients repeat it.
        """
        inputs = self._batch_inputs(batch)
        now = self._clock()
        event_ids = [ids.event_id(tenant, data.idempotency_key, int(now.timestamp() * 1000)) for data in inputs]
        results: list[contract.EventBatchResult | None] = [None for _ in inputs]
        targets = self._targets(tenant)
        try:
            catalog = self._catalog.load(tenant, {data.type for data in inputs})
        except DependencyFailed as exc:
            raise Unavailable(f"the event catalog could not be read ({exc.cause}); repeat the request") from None
        queued: dict[str, DeliveryTask] = {}  # by delivery id: an id repeated in the batch queues its tasks once
        owners: dict[str, list[int]] = {}
        for i, data in enumerate(inputs):
            try:
                accepted, tasks = self._stage(tenant, data, now, targets, catalog, event_ids[i])
            except (Conflict, Unavailable, NotFound, ValidationFailed, PayloadTooLarge) as exc:
                results[i] = _failure(i, exc)
                continue
            except DependencyFailed as exc:
                results[i] = _unavailable(i, exc)
                continue
            except Exception:
                # A fault of hookline's own (the request fails as a whole): the events stored before it are not queued,
                # so they are noted for the sweeper, as a 503's are (an event without an `id` is new on every repeat).
                self._note_failed(tenant, list(dict.fromkeys(event_ids[r.index] for r in results if r is not None and r.status == 202)), now)
                raise
            results[i] = contract.EventBatchResult.accepted(i, accepted)
            for task in tasks:
                queued.setdefault(task.delivery_id, task)
                owners.setdefault(task.delivery_id, []).append(i)
        pending = list(queued.values())
        for start in range(0, len(pending), MAX_BATCH_ENTRIES):
            chunk = pending[start : start + MAX_BATCH_ENTRIES]
            try:
                self._sent(chunk)
            except DependencyFailed as exc:
                for task in chunk:
                    for i in owners[task.delivery_id]:
                        results[i] = _unavailable(i, exc)
        done = [r for r in results if r is not None]
        self._note_failed(tenant, list(dict.fromkeys(event_ids[r.index] for r in done if r.status == 503)), now)
        self._note_types(tenant, [(inputs[r.index].customer, inputs[r.index].type) for r in done if r.status == 202], targets.made)
        if all(r.status == 503 for r in done):
            raise Unavailable("no event of the batch could be stored and queued; repeat the request (events with an id are idempotent)")
        return contract.EventBatchAccepted.of(done)

    def _batch_inputs(self, batch: contract.CreateEventBatch) -> list[validation.EventInput]:
        """The batch's events, each at most the event limit (the settings'): one too large refuses the batch."""
        limit = self._settings.max_event_bytes
        for i, event in enumerate(batch.events):
            size = len(json.dumps(event.model_dump(exclude_unset=True), ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
            if size > limit:
                raise PayloadTooLarge(f"events[{i}] is {size} bytes; the limit for one event is {limit}")
        return [event.input() for event in batch.events]

    def _stage(
        self,
        tenant: str,
        data: validation.EventInput,
        now: datetime,
        targets: Targets,
        catalog: tuple[VersionCatalog, dict[str, EventType]],
        event_id: str,
    ) -> tuple[contract.EventAccepted, list[DeliveryTask]]:
        """Store an event and its deliveries (or find them, for a repeated id); returns the answer and the tasks to queue.

        Its data is checked against its type's schema, and rendered once for each payload version its
        endpoints are pinned to (hookline.core.versions): an endpoint whose version it can neither carry
        nor derive refuses it (422) before anything is stored.
        """
        digest = request_hash(data.type, data.data, data.customer, versions=data.versions)
        expires_at = self._expires_at(now)
        existing = self._events.get_event(tenant, event_id) if data.idempotency_key else None
        if existing is not None:
            return self._finish_existing(existing, digest, expires_at, targets)
        # A disabled endpoint's deliveries are stored paused, so nothing is dropped: re-enabling it queues them.
        subscribed = [ep for ep in targets(data.customer) if ep.receives(data.type, data.customer, data.data)]
        versions, types = catalog
        renderings = render(versions, types.get(data.type), data.data, data.versions, {ep.id: ep.version for ep in subscribed})
        created_at = iso(now)
        event = Event.accepted(
            event_id,
            tenant,
            data.type,
            created_at,
            data.data,
            digest,
            renderings=renderings,
            deliveries=tuple(
                PlannedDelivery(ids.delivery_id(tenant, event_id, ep.id, epoch_ms(now)), ep.id, paused=ep.status != "active", version=ep.version)
                for ep in subscribed
            ),
            customer=data.customer,
            sunsets=tuple(sorted(versions.sunsets(renderings.data).items())),
        )
        check_size({"": event.body, **dict(event.renderings)})
        if not self._events.create_event(event, expires_at):
            # A concurrent request with the same id won the race.
            raced = self._events.get_event(tenant, event_id)
            if raced is None:
                raise Unavailable("event is being stored by a concurrent request; retry")
            return self._finish_existing(raced, digest, expires_at, targets)
        deliveries = [event.delivery_of(p) for p in event.deliveries]
        # A pending delivery is only planned on the event item until its first attempt is recorded (which
        # writes its item); a paused one is stored now, for the endpoint-deliveries index that re-enabling reads.
        paused = [d for d in deliveries if d.status != "pending"]
        if paused:
            self._events.create_deliveries(paused, expires_at)
        # The only task of each new delivery: fresh, so its first attempt writes no claim (hookline.core.claims).
        ordered = _ordered(subscribed)
        return _accepted(event), [replace(self._task(d, ordered), fresh=True) for d in deliveries if d.status == "pending"]

    def _finish_existing(self, event: Event, digest: str, expires_at: int, targets: Targets | None = None) -> tuple[contract.EventAccepted, list[DeliveryTask]]:
        """Idempotent replay: same body answers as before, after finishing any interrupted step."""
        if event.request_hash != digest:
            raise Conflict("an event with this id exists with a different body", code="idempotency_conflict")
        _, stored = self._events.event_with_deliveries(event.tenant, event.id)
        known = {d.id: d for d in stored}
        unsent: list[Delivery] = []
        for planned in event.deliveries:
            d = known.get(planned.id)
            if d is None or (d.planned_only and d.status == "paused"):
                # A paused delivery must be stored for the index that re-enabling reads; a pending one may stay planned only.
                d = event.delivery_of(planned)
                self._events.ensure_delivery(d, expires_at)
            if d.unsent:
                unsent.append(d)
        return _accepted(event), [self._task(d, _ordered_among(targets, event.customer) if unsent else frozenset()) for d in unsent]

    @staticmethod
    def _task(d: Delivery, ordered: frozenset[str] = frozenset()) -> DeliveryTask:
        """The delivery's task; on the ordered lane when its endpoint is one of `ordered`."""
        return DeliveryTask.of(d, ordered=d.endpoint_id in ordered)

    def describe(self, tenant: str, event_id: str, limit: int, cursor: str | None = None, viewer: Principal | None = None) -> contract.Event:
        """The event with its deliveries and their attempts; `event_id` is its `evt_` id or the producer's idempotency key.

        A broadcast has thousands of deliveries: it shows its fan-out's
        progress and one page of `limit` deliveries from `cursor`
        (`deliveries_next` leads on). An ordinary event shows all of its own.
        A customer (`viewer`, a portal session) sees only its own endpoints'
        deliveries of a broadcast: each found by its derived id, one read per
        endpoint of the customer, never a page of everyone's (nor one an earlier
        customer of its uid made: Principal.sees).
        """
        event = find_event(self._events, tenant, event_id)
        if event is None:
            raise NotFound(f"event {event_id[:64]} not found")
        if event.broadcast is not None and viewer is not None and viewer.customer is not None:
            own_endpoints = (ep for ep in self._endpoints.all_of_owner(tenant, viewer.customer) if viewer.sees(ep.customer, ep.created_at))
            ids_ = (event.broadcast_delivery_id(ep.id) for ep in own_endpoints)
            own = [d for d in (self._events.delivery_with_attempts(tenant, event.id, i) for i in ids_) if d is not None]
            # Only the status: the fan-out's counters span every customer, which a customer must not learn.
            progress = contract.BroadcastStatus(status=contract.BroadcastProgress.of(event.broadcast).status)
            return contract.Event.of(event, sorted(own, key=lambda d: d.id), broadcast=progress, deliveries_next=None)
        if event.broadcast is not None:
            page, nxt = self._broadcast_page(event, limit, cursor)
            return contract.Event.of(event, page, broadcast=contract.BroadcastProgress.of(event.broadcast), deliveries_next=nxt)
        _, deliveries = self._events.event_with_deliveries(tenant, event.id)
        return contract.Event.of(event, deliveries)

    def _broadcast_page(self, event: Event, limit: int, cursor: str | None) -> tuple[list[Delivery], str | None]:
        """A page of up to `limit` of a broadcast's deliveries, in their endpoints' id order: the tenant's endpoints are
        read a page at a time from `cursor`, and each one's delivery found by its computed id, until `limit` are found,
        the endpoints end, or BROADCAST_SCAN_BOUND endpoints were read (an endpoint the broadcast skipped has none). An
        earlier release's broadcast keeps its deliveries in its own partition, paged there."""
        if event.layout == LAYOUT_EVENT_KEYED:
            return self._events.deliveries_page(event.tenant, event.id, limit, cursor)
        found: list[Delivery] = []
        scanned, nxt = 0, cursor
        while len(found) < limit and scanned < BROADCAST_SCAN_BOUND:
            endpoints, nxt = self._endpoints.page(event.tenant, limit - len(found), nxt)
            scanned += len(endpoints)
            found += self._events.deliveries_with_attempts(event.tenant, event.id, [event.broadcast_delivery_id(ep.id) for ep in endpoints])
            if nxt is None:
                break
        return found, nxt

    def delivery(self, tenant: str, event_id: str, delivery_id: str) -> contract.DeliveryDetail:
        """One delivery with its attempts, and its event's type (what the portal's delivery log expands to)."""
        found = None
        if ids.is_id(event_id, ids.EVENT) and ids.is_id(delivery_id, ids.DELIVERY):
            found = self._events.delivery_with_attempts(tenant, event_id, delivery_id)
        event = self._events.get_event(tenant, event_id) if found is not None else None
        if found is None or event is None:
            raise NotFound(f"delivery {delivery_id[:64]} of event {event_id[:64]} not found")
        endpoint = self._endpoints.get(tenant, found.endpoint_id)
        custom = dict(endpoint.headers) if endpoint is not None else {}
        signing = endpoint.signing if endpoint is not None else DEFAULT_SIGNING
        attempts = [
            {**a.public(), "request_headers": sent_headers(event.id, parse_iso(a.at).timestamp() - a.duration_ms / 1000, custom, signing)}
            for a in found.attempts
        ]
        return contract.DeliveryDetail.of(found, event_id=event_id, event_type=event.type, attempts=attempts)

    def retry(self, tenant: str, event_id: str, delivery_id: str) -> contract.RetryAccepted:
        """Retry one delivery now, as a manual attempt with a fresh budget (a failed or a succeeded one)."""
        delivery = self._events.get_delivery(tenant, event_id, delivery_id) if ids.is_id(event_id, ids.EVENT) and ids.is_id(delivery_id, ids.DELIVERY) else None
        if delivery is None:
            raise NotFound(f"delivery {delivery_id[:64]} of event {event_id[:64]} not found")
        if unsent_restart(delivery):
            restarted: Delivery | None = delivery  # restarted by a request whose task may not have been queued: queue it (again)
        elif delivery.status in ("pending", "paused"):
            raise Conflict(f"delivery is {delivery.status}: it will be attempted without a manual retry", code="delivery_in_progress")
        else:
            restarted = self._events.restart(tenant, event_id, delivery_id, delivery.generation, ("failed", "succeeded"), iso(self._clock()))
        if restarted is None:
            raise Conflict("the delivery changed meanwhile; read it again", code="delivery_changed")
        task = DeliveryTask.of(restarted, trigger="manual")
        try:
            self._retry_queue.enqueue([task])
        except DependencyFailed:
            raise Unavailable("the retry could not be queued; repeat the request") from None
        return contract.RetryAccepted(id=delivery_id, event_id=event_id, status="pending", generation=restarted.generation)

    def _require_endpoint(self, tenant: str, endpoint_id: str) -> None:
        if self._endpoints.get(tenant, endpoint_id) is None if ids.is_id(endpoint_id, ids.ENDPOINT) else True:
            raise NotFound(f"endpoint {endpoint_id[:64]} not found")

    def failures(
        self, tenant: str, endpoint_id: str, status: IndexedStatus = "failed", since: datetime | None = None, until: datetime | None = None
    ) -> contract.FailureHistogram:
        """The endpoint's failed (or paused) deliveries in [since, until] (default: the last 7 days) counted by creation hour.

        Bounded: at most FAILURES_READ_BOUND deliveries are read, newest first, in pages of 1,000 from the sparse index.
        """
        self._require_endpoint(tenant, endpoint_id)
        until = until or self._clock()
        since = since or until - timedelta(days=7)
        if since >= until:
            raise ValidationFailed("'since' must be before 'until'")
        created: list[str] = []
        cursor: str | None = None
        while len(created) < FAILURES_READ_BOUND:
            page, cursor = self._events.deliveries_by_status(
                tenant, endpoint_id, status, iso(since), iso(until) + "~", min(1000, FAILURES_READ_BOUND - len(created)), cursor, newest_first=True
            )
            created += [d.created_at for d in page]
            if not cursor:
                break
        counted = failure_histogram(created, truncated=cursor is not None)
        return contract.FailureHistogram.model_validate({"since": iso(since), "until": iso(until), "status": status, **counted})

    def deliveries_of(
        self,
        tenant: str,
        endpoint_id: str,
        limit: int,
        status: LogStatus = "failed",
        since: datetime | None = None,
        until: datetime | None = None,
        cursor: str | None = None,
        newest_first: bool = False,
        event: str | None = None,
    ) -> contract.DeliveryPage:
        """An endpoint's deliveries in a time window, a page of `limit` from `cursor`.

        Failed, paused and pending ones come from the sparse endpoint-deliveries index; all of them, and the succeeded
        among them, from the endpoint's delivery log (newest or oldest first; `succeeded` keeps the page's succeeded ones,
        so its pages may hold fewer than `limit`). `event` (an `evt_` id or the producer's own id) finds the endpoint's
        delivery of that one event instead, even one not attempted yet.
        """
        self._require_endpoint(tenant, endpoint_id)
        lower, upper = iso(since) if since else "", iso(until) + "~" if until else "~"
        if event is not None:
            found = self._delivery_of_event(tenant, endpoint_id, event)
            shown = [d for d in found if status in ("all", d.status) and lower <= d.created_at <= upper]
            return contract.DeliveryPage(items=[contract.EndpointDelivery.of(d, event_id=d.event_id) for d in shown], next=None)
        if status in ("all", "succeeded"):
            items, nxt = self._events.log_page(tenant, endpoint_id, lower, upper, limit, cursor, newest_first=newest_first)
            items = [d for d in items if status in ("all", d.status)]
        else:
            items, nxt = self._events.deliveries_by_status(tenant, endpoint_id, status, lower, upper, limit, cursor, newest_first=newest_first)
        return contract.DeliveryPage(items=[contract.EndpointDelivery.of(d, event_id=d.event_id) for d in items], next=nxt)

    def _delivery_of_event(self, tenant: str, endpoint_id: str, wanted: str) -> list[Delivery]:
        """The endpoint's delivery of the event named by its `evt_` id or by the producer's id (its idempotency key): none or one."""
        for event_id in validation.event_ids_named_by(tenant, wanted):
            event = self._events.get_event(tenant, event_id)
            if event is None:
                continue
            if event.broadcast is not None:
                delivery_id = event.broadcast_delivery_id(endpoint_id)
            else:
                delivery_id = next((p.id for p in event.deliveries if p.endpoint_id == endpoint_id), "")
            delivery = self._events.get_delivery(tenant, event.id, delivery_id) if delivery_id else None
            if delivery is not None and delivery.endpoint_id == endpoint_id:
                return [delivery]
        return []


def _accepted(event: Event) -> contract.EventAccepted:
    return contract.EventAccepted(id=event.id, deliveries=len(event.deliveries))


def _ordered(endpoints: Iterable[Endpoint]) -> frozenset[str]:
    """The ids of the ordered ones among `endpoints`: their tasks go to the ordered lane."""
    return frozenset(ep.id for ep in endpoints if ep.ordered)


def _ordered_among(targets: Targets | None, customer: str | None) -> frozenset[str]:
    """The ordered endpoints of those an event was addressed to, now; none when they cannot be read (its customer was
    deleted since): its deliveries then go to the delivery queue, unordered, rather than nowhere."""
    if targets is None:
        return frozenset()
    try:
        return _ordered(targets(customer))
    except NotFound:
        return frozenset()


def _failure(index: int, exc: HooklineError) -> contract.EventBatchResult:
    return contract.EventBatchResult.refused(index, exc)


def _unavailable(index: int, exc: DependencyFailed) -> contract.EventBatchResult:
    return _failure(index, Unavailable(f"the event could not be stored or queued ({exc.cause}); repeat it with the same id"))
