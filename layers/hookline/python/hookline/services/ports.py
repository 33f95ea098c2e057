"""What the event, endpoint and replay services need from the outside world: small protocols.

The DynamoDB, SQS and HTTP adapters implement them in production; in-memory
fakes implement them in tests. The contract every implementation keeps:

* A dependency that fails (after the SDK's own retries) raises
  `hookline.core.errors.DependencyFailed`, never an SDK error.
* A failed condition that the caller acts on (the item is gone, another
  request got there first) is a False or None result, as each method says.
* A cursor is opaque to the service; one that does not belong to the caller's
  tenant and endpoint raises `hookline.core.errors.InvalidCursor`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from hookline.core.breaker import Breaker
from hookline.core.broadcast import Fanout
from hookline.core.customers import Customer
from hookline.core.deadletters import DeadLetter
from hookline.core.jobs import Job, StepResult
from hookline.core.models import Delivery, DeliveryTask, Endpoint, Event, LineHead
from hookline.core.notifications import Notify
from hookline.core.polling import Polled, PollToken
from hookline.core.portal import PortalSettings
from hookline.core.ratelimit import Limiter
from hookline.core.replay import ReplayWindow
from hookline.core.responses import HttpResult
from hookline.core.rotation import Rotation
from hookline.core.sessions import PortalSession
from hookline.core.unqueued import UnqueuedNote
from hookline.core.versions import EventType, VersionCatalog
from hookline.core.webhook import Outbound

__all__ = [
    "BroadcastEvents",
    "BroadcastTypeNotes",
    "CatalogReader",
    "CatalogStore",
    "ClientCertificates",
    "CustomerEndpoints",
    "CustomerReader",
    "CustomerSessions",
    "CustomerStore",
    "CustomerTypes",
    "DeliveryCounts",
    "DeliveryIndex",
    "DeliveryReader",
    "DeliveryRestarts",
    "EndpointDeliveries",
    "EndpointHealthStore",
    "EndpointPages",
    "EndpointReader",
    "EndpointStore",
    "EventRecords",
    "EventStore",
    "JobQueue",
    "JobStarter",
    "Notify",
    "ReplayStore",
    "RetryWaitNotes",
    "Sealer",
    "Sender",
    "SessionStore",
    "StatsReader",
    "TaskQueue",
    "TenantEndpoints",
    "VersionPins",
    "VersionUsageReader",
]

# -- customers --------------------------------------------------------------------------------


class CustomerReader(Protocol):
    def get(self, tenant: str, uid: str) -> Customer | None: ...


class CustomerStore(CustomerReader, Protocol):
    """The tenant's customers: one record per customer, addressed by tenant and uid."""

    def put(self, customer: Customer) -> tuple[Customer, bool]:
        """Create the customer or replace its fields (keeping an existing one's created_at); the stored customer, and True if it was created."""
        ...

    def delete(self, tenant: str, uid: str) -> bool:
        """False if there was no such customer."""
        ...

    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Customer], str | None]:
        """A page of the tenant's customers in uid order, and the cursor to the next (None at the end)."""
        ...


class CustomerSessions(CustomerReader, Protocol):
    def current(self, tenant: str, uid: str) -> Customer | None:
        """The customer under the uid now, read strongly consistent (one just deleted or made again is seen as such); None if there is none."""
        ...

    def bump_session_epoch(self, tenant: str, uid: str) -> bool:
        """Revoke every portal session of the customer made so far, in one write; False if there is no such customer."""
        ...


class SessionStore(Protocol):
    """Portal sessions by their token's hash (the token is never stored)."""

    def add(self, session: PortalSession) -> None: ...

    def find(self, token_hash: str) -> PortalSession | None: ...


# -- endpoints --------------------------------------------------------------------------------


class EndpointReader(Protocol):
    def get(self, tenant: str, endpoint_id: str) -> Endpoint | None: ...


class MailboxReader(Protocol):
    """A polling endpoint's mailbox, as a poll reads it (hookline.core.polling)."""

    def page(self, tenant: str, endpoint_id: str, after: str | None, before: str, limit: int) -> list[Polled]: ...

    def acknowledge(self, tenant: str, polled: list[Polled], now: datetime) -> int:
        """Each delivery a poll moved past has its receiver now: its `polled_at` (the first poll's). How many had none
        before (the ones this poll delivered)."""
        ...


class StatsAdder(Protocol):
    def add(self, tenant: str, endpoint_id: str, hour: str, counts: dict[str, int]) -> None:
        """ADD the counters to the endpoint's hour."""
        ...


class PollTokenStore(Protocol):
    """Poll tokens by id (the token's secret is stored only as a hash)."""

    def add(self, token: PollToken) -> None: ...

    def find(self, token_id: str) -> PollToken | None: ...

    def revoke(self, tenant: str, endpoint_id: str, token_id: str) -> bool: ...


class TenantEndpoints(EndpointReader, Protocol):
    """What accepting an event reads: the endpoints it is addressed to, to fan out to."""

    def all_of_owner(self, tenant: str, customer: str | None) -> Iterable[Endpoint]:
        """Every endpoint of the customer `customer`, or (None) the tenant's own endpoints, and no other's."""
        ...


class EndpointPages(Protocol):
    def page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[Endpoint], str | None]:
        """A page of every endpoint of the tenant, its customers' and its own, in id order, and the cursor to the next (None at the end)."""
        ...


class EventEndpoints(TenantEndpoints, EndpointPages, Protocol):
    """What the event service reads of the endpoints: an event's addressees, and pages of a broadcast's."""


class EndpointStore(EndpointReader, EndpointPages, Protocol):
    """Endpoint management: one item per endpoint, addressed by tenant and id."""

    def create(self, ep: Endpoint, most: int) -> bool:
        """Store a new endpoint: False, and nothing stored, when its owner (its customer, or the tenant's own) already has `most`."""
        ...

    def save(self, ep: Endpoint) -> bool:
        """Write the fields a caller may change; False if the endpoint no longer exists."""
        ...

    def delete(self, tenant: str, endpoint_id: str) -> bool:
        """False if there was no such endpoint."""
        ...

    def rotate_secret(self, tenant: str, endpoint_id: str, rotation: Rotation) -> tuple[bool, Endpoint | None]:
        """Write the rotation only if the current secret is still `rotation.replaced`: (True, None) when it landed,
        (False, the endpoint as it is now) when another rotation landed first, (False, None) when there is no such endpoint."""
        ...

    def page_of_owner(self, tenant: str, customer: str | None, limit: int, cursor: str | None) -> tuple[list[Endpoint], str | None]:
        """A page of one customer's endpoints (None: the tenant's own) in id order; a cursor belongs to its owner."""
        ...


class CustomerEndpoints(EndpointStore, TenantEndpoints, Protocol):
    """What the customer service needs of the endpoints: one customer's, to read, page and delete."""


class EndpointHealthStore(Protocol):
    """Each endpoint's breaker and limiter, as the endpoint service reads and resets them."""

    def load(self, tenant: str, endpoint_id: str) -> tuple[Endpoint | None, Breaker, Limiter]: ...

    def reset_breaker(self, tenant: str, endpoint_id: str) -> None: ...


class LineHeadReader(Protocol):
    def head(self, tenant: str, endpoint_id: str) -> LineHead | None:
        """The delivery holding the ordered endpoint's line, while one does (hookline.adapters.dynamo.lines)."""
        ...


class StatsReader(Protocol):
    def window(self, tenant: str, endpoint_id: str, since: datetime, until: datetime) -> dict[str, int]:
        """The endpoint's counters added up over the hours from `since` to `until`."""
        ...

    def hours(self, tenant: str, endpoint_id: str, since: datetime, until: datetime) -> list[tuple[str, dict[str, int]]]:
        """The endpoint's counters hour by hour (`yyyy-mm-ddThh`, oldest first), only the hours that have any."""
        ...


# -- events and deliveries ------------------------------------------------------------------------


class DeliveryIndex(Protocol):
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
        """A page of the endpoint's failed, paused or pending deliveries created in [since, until], oldest (or newest) first, and the next cursor."""
        ...


class DeliveryLog(Protocol):
    def log_page(
        self, tenant: str, endpoint_id: str, since: str = "", until: str = "~", limit: int = 20, cursor: str | None = None, newest_first: bool = True
    ) -> tuple[list[Delivery], str | None]:
        """A page of the endpoint's deliveries of every status created in [since, until], newest (or oldest) first, and the next cursor."""
        ...


class DeliveryCounts(Protocol):
    def count_by_status(self, tenant: str, endpoint_id: str, status: str, bound: int) -> tuple[int, bool]:
        """How many of the endpoint's deliveries are failed (paused, pending), counting at most `bound`; and whether there are more."""
        ...


class EndpointDeliveries(DeliveryIndex, DeliveryCounts, Protocol):
    """What endpoint management reads of the delivery log: the paused to requeue, and the backlog to show."""


class DeliveryRestarts(DeliveryIndex, Protocol):
    def restart(
        self, tenant: str, event_id: str, delivery_id: str, expected_generation: int, statuses: tuple[str, ...], now_iso: str, replay_id: str = ""
    ) -> Delivery | None:
        """A new generation with a fresh attempt budget; None if the delivery is gone, already restarted or not in `statuses`."""
        ...


class EventRecords(Protocol):
    """An event's own record and its deliveries one at a time: what storing an event, or fanning a broadcast out, writes."""

    def create_event(self, event: Event, expires_at: int) -> bool:
        """Store the event once; False if an event with its id exists."""
        ...

    def get_event(self, tenant: str, event_id: str, consistent: bool = False) -> Event | None: ...

    def ensure_delivery(self, d: Delivery, expires_at: int) -> Delivery:
        """Create the delivery unless it exists; the delivery as stored (`d` when created now, else the existing one, without attempts)."""
        ...


class BroadcastEvents(EventRecords, Protocol):
    """A broadcast's event and its fan-out, as the broadcast service drives it."""

    def advance_fanout(self, tenant: str, event_id: str, current: Fanout, advanced: Fanout) -> bool:
        """Replace the event's fan-out state by `advanced`, once: False if its step is no longer `current`'s."""
        ...


class EventStore(DeliveryRestarts, DeliveryLog, EventRecords, Protocol):
    """Events with their deliveries, as accepting, showing and retrying them needs."""

    def create_deliveries(self, deliveries: list[Delivery], expires_at: int) -> None: ...

    def event_with_deliveries(self, tenant: str, event_id: str) -> tuple[Event | None, list[Delivery]]: ...

    def deliveries_page(self, tenant: str, event_id: str, limit: int, cursor: str | None) -> tuple[list[Delivery], str | None]:
        """A page of an earlier release's broadcast's deliveries in id order, each with its attempts (too many to read at once)."""
        ...

    def deliveries_with_attempts(self, tenant: str, event_id: str, delivery_ids: list[str]) -> list[Delivery]:
        """The event's deliveries of these ids that are stored, in the order asked, each with its attempts."""
        ...

    def get_delivery(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None: ...

    def delivery_with_attempts(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None:
        """One delivery of the event with its attempts; None if there is none."""
        ...


class DeliveryReader(Protocol):
    def get_delivery(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None:
        """The delivery as it stands (one only planned on its event included); None if there is none."""
        ...


class RetryWaitNotes(Protocol):
    """The notes of retries waiting in Step Functions, by the minute they are due (hookline.core.waits), as the sweeper reads them."""

    def due_page(self, minute: str, shard: int, limit: int, cursor: str | None) -> tuple[list[DeliveryTask], str | None]:
        """A page of the waiting tasks noted as due in `minute` in `shard` (each carrying `wait_until`), and the cursor to the next (None at the end)."""
        ...

    def close(self, tasks: list[DeliveryTask]) -> None:
        """Drop the notes of these waiting tasks; one already gone is no error."""
        ...

    def checkpoint(self) -> str | None:
        """The last due minute the sweeper finished (None before its first)."""
        ...

    def save_checkpoint(self, minute: str) -> None: ...


# -- replays ----------------------------------------------------------------------------------


class ReplayStore(Protocol):
    """One record per replay: its window and what it has done; its paging is a job (hookline.services.replay)."""

    def create(self, tenant: str, replay_id: str, endpoint_id: str, window: ReplayWindow, now_iso: str, expires_at: int, job_id: str) -> bool:
        """False if this replay exists already."""
        ...

    def get(self, tenant: str, replay_id: str) -> dict[str, Any] | None: ...

    def record_page(self, tenant: str, replay_id: str, step: int, queued: int, done: bool) -> None:
        """Count a page its job's step `step` queued (and whether it was the last), once: a step recorded already, or
        an earlier one after a later, changes nothing."""
        ...


# -- queues and the outside world ------------------------------------------------------------------


class TaskQueue(Protocol):
    def enqueue(self, tasks: list[DeliveryTask], delay_seconds: int = 0, delays: list[int] | None = None) -> None:
        """Queue every task (each with its own delay if `delays` is given), or raise DependencyFailed; repeating it is safe."""
        ...


class JobQueue(Protocol):
    def enqueue_bodies(self, bodies: list[str], delays: list[int] | None = None) -> None: ...


class JobStarter(Protocol):
    def start(self, tenant: str, kind: str, params: Mapping[str, str], job_id: str | None = None) -> Job:
        """Store a bulk job and queue its first step (hookline.services.jobs); with `job_id`, a repeat starts nothing new."""
        ...


class Sender(Protocol):
    def send(self, endpoint: Endpoint, message: Outbound) -> HttpResult:
        """One delivery to the endpoint's destination (an HTTP POST, or a message, event, record or object in the
        customer's AWS account); every failure is an HttpResult (a status or an error), never an exception."""
        ...


class ClientCertificates(Protocol):
    """Whether an mTLS endpoint's certificate and key can be presented in a TLS handshake (hookline.adapters.endpoint_auth)."""

    def refusal(self, certificate: str, private_key: str) -> str | None:
        """Why they cannot (unreadable, an encrypted key, a key that is not the certificate's), or None."""
        ...


class Sealer(Protocol):
    """Secrets at rest (an endpoint's `auth`): sealed with the stack's KMS key, under an encryption context (its tenant
    and endpoint: hookline.core.auth.seal_context) that opening must name again (hookline.adapters.sealing)."""

    def seal(self, plaintext: bytes, context: Mapping[str, str]) -> str:
        """The sealed text (opaque, safe to store); raises when the key cannot be used."""
        ...

    def open(self, sealed: str, context: Mapping[str, str]) -> bytes:
        """The plaintext `seal` was given under the same context; raises for any other context or text."""
        ...


# -- payload versions and the event-type catalog ---------------------------------------------


class CatalogReader(Protocol):
    def load(self, tenant: str, type_names: Iterable[str]) -> tuple[VersionCatalog, dict[str, EventType]]:
        """The tenant's versions (a tenant that registered none has BASE_VERSION alone) and those of the
        named event types that are in the catalog, in one read."""
        ...


class CatalogStore(CatalogReader, Protocol):
    def get_type(self, tenant: str, name: str) -> EventType | None: ...

    def get_versions(self, tenant: str) -> VersionCatalog:
        """The tenant's versions, read strongly consistent (what a change starts from)."""
        ...

    def put_type(self, event_type: EventType) -> None: ...

    def types_page(self, tenant: str, limit: int, cursor: str | None) -> tuple[list[EventType], str | None]:
        """A page of the tenant's event types in name order, and the cursor to the next (None at the end)."""
        ...

    def save_versions(self, catalog: VersionCatalog) -> bool:
        """Store the versions if they are still at `catalog.revision` (stored with revision + 1); False: changed meanwhile."""
        ...


class CustomerTypes(Protocol):
    def sent_to(self, tenant: str, customer: str) -> list[str]:
        """The event types sent to the customer: addressed to it, or broadcast to every customer (noted at ingest)."""
        ...


class BroadcastTypeNotes(Protocol):
    def note_broadcast(self, tenant: str, types: Iterable[str]) -> None:
        """Remember that the tenant broadcast these event types (best effort: never raises)."""
        ...


class VersionPins(Protocol):
    def pinned(self, tenant: str, version: str, bound: int) -> tuple[list[str], bool]:
        """The ids of the endpoints pinned to `version`, at most `bound` of them, in id order; and whether there are more."""
        ...


class VersionUsageReader(Protocol):
    def usage(self, tenant: str, version: str, since_day: str) -> tuple[int, str | None]:
        """The deliveries sent at `version` on and after `since_day` (yyyy-mm-dd), and when the last one was sent (None: none kept)."""
        ...


class EventDeliveryReader(Protocol):
    def get_event(self, tenant: str, event_id: str, consistent: bool = False) -> Event | None: ...

    def get_delivery(self, tenant: str, event_id: str, delivery_id: str) -> Delivery | None: ...


class ReplayReader(Protocol):
    def get(self, tenant: str, replay_id: str) -> dict[str, Any] | None: ...


class JobReader(Protocol):
    def get(self, tenant: str, job_id: str) -> Job | None: ...


class JobStore(Protocol):
    def create(self, job: Job, expires_at: int) -> bool:
        """Store a new job; False if one with its id exists."""
        ...

    def get(self, tenant: str, job_id: str) -> Job | None: ...

    def advance(self, current: Job, advanced: Job) -> bool:
        """Replace the job if it is still at `current.step` and running; False otherwise (another step got there first).
        A job that ends (done, cancelled) loses its mark as running."""
        ...

    def running(self) -> list[tuple[str, str]]:
        """(tenant, job id) of the jobs marked running."""
        ...

    def forget_running(self, tenant: str, job_id: str) -> None: ...


class JobKind(Protocol):
    def step(self, job: Job, now: datetime) -> StepResult:
        """One bounded page of the job's work from `job.cursor`; safe to run twice for the same step. A page whose
        effects must all happen once begun returns them as `pending` instead, and `apply` does them next step."""
        ...


@runtime_checkable
class PlanningJobKind(JobKind, Protocol):
    def apply(self, job: Job, now: datetime) -> StepResult:
        """Do `job.pending` (the page `step` planned); safe to run twice. Its counts and `next_in` count; the rest
        of the result is ignored."""
        ...


class UnqueuedNotes(Protocol):
    def of_minute(self, minute: str, shard: int) -> list[UnqueuedNote]: ...

    def close(self, note: UnqueuedNote) -> None: ...

    def checkpoint(self) -> str | None: ...

    def save_checkpoint(self, minute: str) -> None: ...


class StalledJobs(Protocol):
    def resume_stalled(self) -> int: ...


class PortalStore(Protocol):
    def settings(self, tenant: str) -> PortalSettings | None: ...

    def save_settings(self, settings: PortalSettings) -> None: ...

    def remember_types(self, tenant: str, types: set[str]) -> None: ...

    def remember_customer_types(self, tenant: str, customer: str, types: set[str]) -> None: ...

    def remember_broadcast_types(self, tenant: str, types: set[str]) -> None: ...

    def types(self, tenant: str) -> list[str]: ...

    def types_sent_to(self, tenant: str, customer: str) -> list[str]:
        """The types sent to the customer, and those the tenant broadcast (to every customer)."""
        ...


class DeadLetterQueue(Protocol):
    def receive(self, max_messages: int, hide_seconds: int) -> list[DeadLetter]:
        """Up to `max_messages` (at most 10) letters, each hidden for `hide_seconds`; [] when none is visible."""
        ...

    def delete(self, letters: list[DeadLetter]) -> None: ...

    def visible(self) -> int:
        """About how many letters are visible (SQS's ApproximateNumberOfMessages): the hidden ones not counted."""
        ...


class Versioned(Protocol):
    @property
    def version(self) -> int: ...


class SentTypes(Protocol):
    def list(self, tenant: str) -> dict[str, Any]:
        """The event types the tenant has sent (`items`), registered or not."""
        ...


class UnqueuedNoteWriter(Protocol):
    """Notes of requests whose events are not all queued yet (hookline.core.unqueued), for the sweeper."""

    def open(self, tenant: str, event_ids: list[str], now: datetime) -> UnqueuedNote: ...


class TypeNotes(Protocol):
    def note(self, tenant: str, types: Iterable[str], customer: str | None = None, made: str = "") -> None:
        """Remember that the tenant sent these event types, to `customer` (made at `made`) when named (best effort: never raises)."""
        ...


class EventReader(Protocol):
    def get_event(self, tenant: str, event_id: str, consistent: bool = False) -> Event | None: ...


class ReceivedMessages(Protocol):
    def receive(self, max_messages: int, wait_seconds: int) -> list[dict[str, Any]]:
        """Up to `max_messages` messages as Lambda's event source hands them (hookline.core.sqs.event_record)."""
        ...

    def delete(self, receipt_handles: list[str]) -> None: ...
