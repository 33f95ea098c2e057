"""The API's bodies as typed dictionaries (docs/openapi.yaml is the contract).

Each value the client returns is the decoded JSON answer itself, so a field the API adds later is
kept (the API may add fields to responses; see "Forward compatibility" in the OpenAPI document).
Optional fields live in `total=False` bases, which Python 3.10 understands without extra packages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypedDict, TypeVar

T = TypeVar("T")

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list: its `items` and the cursor of the next page (`None` on the last)."""

    items: list[T] = field(default_factory=list)
    next: str | None = None


# -- requests ----------------------------------------------------------------------------------


class _EventInputOptional(TypedDict, total=False):
    id: str
    customer: str | None
    versions: dict[str, JsonObject] | None


class EventInput(_EventInputOptional):
    """One event of `events.send_batch`: the body of `POST /v1/events`."""

    type: str
    data: JsonObject


class CustomerLimitsInput(TypedDict, total=False):
    """A customer's ceilings for its endpoints; a limit left out takes its default."""

    max_rate_per_second: float
    max_concurrency: int


# -- responses ---------------------------------------------------------------------------------


class ErrorBody(TypedDict):
    code: str
    message: str


class JobSummary(TypedDict):
    id: str
    status: str  # running, done, cancelled


class EventAccepted(TypedDict):
    id: str  # the event's evt_ id
    deliveries: int


class _EventBatchResultOptional(TypedDict, total=False):
    id: str
    deliveries: int
    error: ErrorBody
    key: str  # the event's idempotency key (yours, or the one the client made): send a failed one again with it


class EventBatchResult(_EventBatchResultOptional):
    """One event's result, in request order: `status` 202 with `id` and `deliveries`, or an `error`."""

    index: int
    status: int


class EventBatchAccepted(TypedDict):
    accepted: int
    failed: int
    results: list[EventBatchResult]


class BroadcastAccepted(TypedDict):
    id: str
    status: str  # fanning_out
    job: JobSummary


class Attempt(TypedDict):
    number: int
    at: str
    status_code: int | None
    error: str | None
    duration_ms: int
    outcome: str  # succeeded, failed, retrying
    reason: str
    response_body: str
    trigger: str  # scheduled, manual


class Delivery(TypedDict):
    id: str
    endpoint_id: str
    status: str  # pending, succeeded, failed, paused
    version: str | None
    generation: int
    created_at: str
    updated_at: str
    attempts: list[Attempt]


class EndpointDelivery(Delivery):
    """A delivery listed under its endpoint, with its event's id."""

    event_id: str


class DeliveryDetail(EndpointDelivery):
    event_type: str


class BroadcastProgress(TypedDict, total=False):
    status: str  # fanning_out, done (a portal session sees only this)
    pages: int
    endpoints_scanned: int
    deliveries: int
    paused: int


class _EventOptional(TypedDict, total=False):
    broadcast: BroadcastProgress
    deliveries_next: str | None


class Event(_EventOptional):
    id: str
    type: str
    customer: str | None
    version: str | None
    data: JsonObject
    created_at: str
    deliveries: list[Delivery]


class _EndpointOptional(TypedDict, total=False):
    disabled_reason: str  # manual, failing, gone
    paused_until: str


class Endpoint(_EndpointOptional):
    """An endpoint as the API shows it, never with its secret."""

    id: str
    customer: str | None
    url: str
    event_types: list[str]
    description: str
    status: str  # active, disabled
    rate_limit_per_second: float
    max_concurrency: int
    headers: dict[str, str]
    version: str
    created_at: str
    updated_at: str


class EndpointCreated(Endpoint):
    secret: str  # whsec_...


class EndpointDetail(Endpoint):
    """`GET /v1/endpoints/{id}`: the endpoint with its `health` and `backlog`."""

    health: JsonObject
    backlog: JsonObject


class ReplayAccepted(TypedDict):
    id: str
    status: str  # running
    job: JobSummary


class Replay(TypedDict):
    id: str
    endpoint_id: str
    status: str  # running, completed
    since: str
    until: str
    filter: str  # failed, paused
    matched: int
    queued: int
    delivered: int
    failed: int
    created_at: str


class CustomerLimits(TypedDict):
    max_rate_per_second: float
    max_concurrency: int


class Customer(TypedDict):
    uid: str
    name: str
    email: str | None
    metadata: dict[str, str]
    limits: CustomerLimits
    created_at: str
    updated_at: str


class PortalSession(TypedDict):
    token: str  # hps_..., shown only once
    url: str  # the portal page, the token in its fragment
    customer: str
    read_only: bool
    expires_at: str


class WebhookMessage(TypedDict):
    """The body of a webhook hookline delivers."""

    id: str
    type: str
    timestamp: str
    version: str | None
    data: JsonObject
