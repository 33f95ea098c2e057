"""What the delivery service needs from the outside world beyond the shared ports (`services.ports`):
small protocols, implemented by the DynamoDB, SQS/Step Functions and SNS adapters in production and by
in-memory fakes in tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from hookline.core.breaker import Breaker
from hookline.core.conflicts import Lost
from hookline.core.emails import Email, Waiting
from hookline.core.models import Attempt, Delivery, DeliveryTask, EmailOutcome, Endpoint, Event, LineHead
from hookline.core.ratelimit import Limiter
from hookline.core.sessions import SessionRequest
from hookline.core.stats import Carried
from hookline.services.ports import Sender

if TYPE_CHECKING:  # the API's models: the delivery and jobs functions, which import these ports, never build one
    from hookline.core.contract.portal import PortalSession

__all__ = [
    "ClaimResult",
    "DeliveryLog",
    "EndpointControl",
    "EndpointStates",
    "LineHeads",
    "MessageHolder",
    "ReplayProgress",
    "Scheduler",
    "Sender",
    "StatsSink",
]


class EndpointStates(Protocol):
    """Each endpoint's breaker and limiter items; every write is conditional on the version read."""

    def load(self, tenant: str, endpoint_id: str) -> tuple[Endpoint | None, Breaker, Limiter]: ...

    def load_many(self, endpoints: Sequence[tuple[str, str]]) -> dict[tuple[str, str], tuple[Endpoint | None, Breaker, Limiter]]:
        """`load` for each of a batch's endpoints (tenant, endpoint id), in one read."""
        ...

    def breaker(self, tenant: str, endpoint_id: str) -> Breaker: ...

    def limiter(self, tenant: str, endpoint_id: str) -> Limiter: ...

    def save_breaker(self, tenant: str, endpoint_id: str, state: Breaker, expected_version: int) -> bool | Lost[Breaker]:
        """True when it landed; else Lost, with the breaker that beat it when the refusal returned it."""
        ...

    def save_limiter(self, tenant: str, endpoint_id: str, state: Limiter, expected_version: int) -> bool | Lost[Limiter]:
        """True when it landed; else Lost, with the limiter that beat it when the refusal returned it."""
        ...


class EndpointControl(Protocol):
    """The endpoint changes delivery makes on its own: a Retry-After pause, and disabling."""

    def pause(self, tenant: str, endpoint_id: str, until_epoch: float) -> None: ...

    def disable(self, tenant: str, endpoint_id: str, reason: str, now_iso: str) -> None: ...


class ClaimResult(Protocol):
    @property
    def delivery(self) -> Delivery | None: ...

    @property
    def busy(self) -> bool: ...

    @property
    def missing(self) -> bool: ...


class DeliveryLog(Protocol):
    """Events, deliveries and their attempts."""

    def get_event(self, tenant: str, event_id: str, consistent: bool = False) -> Event | None: ...

    def get_events(self, keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], Event]: ...

    def read_for_sending(
        self,
        event_ids: Iterable[tuple[str, str]],
        delivery_ids: Iterable[tuple[str, str, str]],
        attempted: Iterable[tuple[str, str, str]] = (),
        consistent: bool = True,
    ) -> tuple[dict[tuple[str, str], Event], dict[tuple[str, str, str], Delivery]]:
        """The events, and the deliveries of `delivery_ids` (`attempted`: those of them an attempt was made for);
        `consistent` False: a delivery may be read as it was a moment ago (an event, never: one not seen yet is read again)."""
        ...

    def claim_attempt(
        self, tenant: str, event_id: str, delivery_id: str, number: int, now_epoch: float, lease_seconds: int, generation: int = 0
    ) -> ClaimResult: ...

    def record_attempt(self, delivery: Delivery, attempt: Attempt, new_status: str, now_iso: str, expires_at: int) -> None: ...

    def restart(
        self, tenant: str, event_id: str, delivery_id: str, expected_generation: int, statuses: tuple[str, ...], now_iso: str, replay_id: str = ""
    ) -> Delivery | None: ...

    def park(self, task_tenant: str, event_id: str, delivery_id: str, endpoint_id: str, now_iso: str) -> bool: ...


class Scheduler(Protocol):
    def schedule(self, task: DeliveryTask, delay_seconds: float, now: datetime, deferred: bool = False) -> str: ...

    def hop(self, tasks: list[DeliveryTask], delays: list[int]) -> None:
        """Queue tasks received before their due time again, each with its delay (hookline.core.waits.next_hop), or
        raise DependencyFailed."""
        ...

    def arrived(self, tasks: list[DeliveryTask]) -> None:
        """These tasks came out of a wait in Step Functions (`wait_until`) and are on a queue again: drop their notes (hookline.core.waits)."""
        ...

    def dead_letter(self, task: DeliveryTask, reason: str, attributes: dict[str, str]) -> None: ...

    def set_aside(self, body: str, reason: str) -> None: ...


class MessageHolder(Protocol):
    """The ordered lane's messages, by receipt handle (hookline.adapters.queues.MessageHolds)."""

    def hold(self, receipt_handle: str, seconds: float) -> None:
        """Keep the message invisible (and so its message group waiting) for `seconds`."""
        ...

    def let_go(self, receipt_handles: list[str]) -> None:
        """Make the messages visible again at once (they come out after the held one, in order)."""
        ...


class LineHeads(Protocol):
    """Which delivery holds each ordered endpoint's line (hookline.adapters.dynamo.lines)."""

    def held(self, head: LineHead, expires_at: int) -> None: ...

    def moved_on(self, tenant: str, endpoint_id: str, delivery_id: str) -> None: ...

    def head(self, tenant: str, endpoint_id: str) -> LineHead | None: ...


class ReplayProgress(Protocol):
    def count(self, tenant: str, replay_id: str, outcome: str) -> None: ...


class StatsSink(Protocol):
    def add(self, tenant: str, endpoint_id: str, hour: str, counts: dict[str, int]) -> None: ...

    def move(self, tenant: str, endpoint_id: str, carried: Carried) -> None:
        """Add the counters an endpoint's limiter carried to their hour's, once per `carried.token` however often it is called."""
        ...


class VersionUsageSink(Protocol):
    def add(self, tenant: str, version: str, day: str, count: int, last_at: str) -> None:
        """Add `count` deliveries sent at `version` on `day` (yyyy-mm-dd); `last_at`: the latest one's time."""
        ...


class Mailer(Protocol):
    def send(self, sender: str, to: str, email: Email) -> str:
        """Send one email from `sender` (the From: value: the address, or `Name <address>` with the name RFC 2047
        encoded when not ASCII); returns the provider's message id. Raises if it was not accepted."""
        ...


class TransitionMarks(Protocol):
    def mark(self, tenant: str, endpoint_id: str, transition: str) -> bool:
        """Record that the transition's email goes out; False if it was already recorded."""
        ...

    def unmark(self, tenant: str, endpoint_id: str, transition: str) -> None: ...


class WaitingCounter(Protocol):
    def paused(self, tenant: str, endpoint_id: str, bound: int) -> Waiting:
        """The endpoint's paused deliveries, reading at most `bound` of them."""
        ...


class SessionGrants(Protocol):
    def grant(self, tenant: str, uid: str, wanted: SessionRequest, origin: str) -> PortalSession:
        """A new portal session of the customer: its `token` among the fields."""
        ...


class EmailOutcomes(Protocol):
    def record_email(self, tenant: str, endpoint_id: str, outcome: EmailOutcome) -> None:
        """Keep how the endpoint's last customer email went; nothing for an endpoint that is gone."""
        ...
