"""Routes of events: one in, a batch in, a broadcast to every customer, an event's deliveries and their retry, and an
endpoint's failed or paused deliveries (listed, and counted by hour)."""

from __future__ import annotations

from typing import Annotated, Literal

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

from hookline.core.access import Access
from hookline.core.contract.common import given
from hookline.core.contract.events import (
    BroadcastAccepted,
    CreateBroadcast,
    CreateEvent,
    CreateEventBatch,
    DeliveryDetail,
    DeliveryPage,
    Event,
    EventAccepted,
    EventBatchAccepted,
    FailureHistogram,
    IndexedStatus,
    LogStatus,
    RetryAccepted,
    event_name_value,
    log_status_value,
    order_value,
    status_value,
)
from hookline.core.errors import envelope
from hookline.core.settings import Settings
from hookline.entrypoints.api.answers import answers, ok, refusal
from hookline.entrypoints.api.params import DEFAULT_LIMIT, Cursor, DeliveryId, EndpointId, EventId, Limit, SinceTime, UntilTime
from hookline.entrypoints.api.routing import Router, allow, caller, container, respond

router = Router()


def _batch_bytes(settings: Settings) -> int:
    return settings.max_batch_bytes


# -- parameters -----------------------------------------------------------------------------------------------------

CREATE_DOC = """Stores the event durably and creates one delivery per subscribed endpoint
(a disabled endpoint's delivery is stored `paused`), then queues the active
ones. `deliveries` counts them all. With an `id`, the request is idempotent:
the same `id` and body answer the first response and create nothing; the
same `id` with another body is 409. On a 503, repeat the request with the
same `id`: it finishes the job without duplicating anything.

**Routing.** With `customer`, the event reaches only that customer's
subscribed endpoints; without it, only the tenant's own endpoints (those
with no customer). No event reaches another customer's endpoint. An
unknown customer is 404 `customer_not_found`; a customer with no
subscribed endpoint gets 202 with `deliveries: 0`, and the event is kept
for the log.

**Versions.** `data` is as of the tenant's default payload version. Each
subscribed endpoint receives the event at the version it is pinned to:
the rendering given in `versions` for that version, else one derived
from `data` by the type's downgrades (the transform registered on each
version between the two, newest first). If the catalog holds a schema
for the type, `data` and every rendering must match it as of its
version (422 `schema_violation`, with `pointer` into the data, the
failed `rule` and the `version`). An endpoint whose version can be
neither found nor derived refuses the event (422 `version_unavailable`,
with the `version` and the `endpoint_id`); a rendering for a version
the tenant does not have is 422 `unknown_version`. The refused event
is not stored. A type the catalog does not hold is accepted as it
comes, at every version. The bodies are fixed now: every attempt of a
delivery sends the same bytes. The renderings together may take at
most 300,000 bytes (413).
"""
BATCH_DOC = """Each event is handled as `POST /v1/events` would handle it (fan-out,
paused deliveries, idempotency by `id`), and gets its own result, in
request order. The batch is validated first: one bad event refuses the
whole request (422 or 413, naming `events[i]`) and stores nothing.
Endpoints are read once and the tasks of all events share SQS requests,
so a batch costs one API Gateway request instead of up to 100. The answer
is 202 when every event was accepted, 207 when some were not: look at
each result's `status`, and repeat the failed ones (a 503 result) with
the same `id`. When none got through it is 503, as for the single route.
Only events with an `id` can be repeated safely: one without an `id`
that got a 503 result may have been stored without being queued, and a
repeat makes a new event. Each event may carry `versions` and is
checked and rendered as on the single route: one whose data breaks its
type's schema, or that an endpoint's version cannot be rendered for,
gets a 422 result (413 when its renderings are too large), and the
others go on. The catalog is read once for the batch.
"""
BROADCAST_DOC = """Stores the event and answers 202 at once; the fan-out runs off the
request path: a job on the jobs queue takes the tenant's endpoints a
page of 100 at a time and creates one delivery per subscribed endpoint
(a disabled endpoint's is stored `paused`), queueing the active ones.
`GET /v1/events/{event_id}` shows its progress (`broadcast`) and its
deliveries, a page at a time.

The body is that of `POST /v1/events` without `customer` (a broadcast
is addressed to everyone: naming one is 422 `unknown_field`). With an
`id`, the request is idempotent: the same `id` and body answer the same
and create nothing; the same `id` with another body, or the `id` of an
ordinary event, is 409. On a 503, repeat the request with the same `id`.
Each subscribed endpoint gets the event once, however often a step of
the fan-out runs.

**Versions.** A broadcast goes to every endpoint, so it is rendered at
acceptance for every version of the tenant it can be: the default
(`data`), those in `versions`, and those its type's downgrades derive.
If an endpoint is pinned to a version it cannot be rendered at, it is
refused (422 `version_unavailable`, naming one such endpoint). The
schema checks are those of `POST /v1/events`. An endpoint pinned after
acceptance to a version the broadcast was not rendered at gets the
default version's body.
"""
GET_EVENT_DOC = """`event_id` is the event's `evt_` id or the `id` the producer sent with it
(its idempotency key, scoped to the tenant): either reads the event back.
An ordinary event shows all of its deliveries. A broadcast has one per
subscribed endpoint of the tenant, thousands of them: it shows its
fan-out's progress (`broadcast`) and one page of `limit` deliveries;
pass `deliveries_next` back as `cursor` for the next page. `limit` and
`cursor` apply to broadcasts only.

`version` is the payload version `data` is shown at (the tenant's
default when the event was accepted; null for an event accepted
before payload versions existed). Each delivery's `version` is the
one its body was rendered at, fixed at acceptance.
"""
GET_DELIVERY_DOC = "One Query of the delivery's items, whatever the size of its event (a broadcast's included)."
RETRY_DOC = """Queues a manual attempt of a `failed` or `succeeded` delivery with a fresh
attempt budget (a new `generation`). A `pending` or `paused` delivery is
409: it will be attempted anyway. No request body.

Repeating the request is safe: until the new generation's attempt is made,
a repeat (after a 503, or a lost 202) queues its attempt again and answers
202 with the same generation; the attempt is made once.
"""
DELIVERIES_DOC = """The endpoint's deliveries created in `[since, until]`, oldest first
(`order=desc`: newest first, as the portal shows them), paged. `status`:
`all`, `succeeded`, `failed` (the default), `pending` or `paused`.

- `failed`, `paused` and `pending` are read from the sparse endpoint-deliveries
  index. `pending` holds the deliveries waiting for a retry (an attempt was
  recorded); a delivery not attempted yet is found by its event (`event`).
- `all` and `succeeded` are read from the endpoint's delivery log: the
  delivery items themselves, which the endpoint's deliveries are kept in from
  their first recorded attempt (or park) on.
  `succeeded` keeps a page's succeeded deliveries, so its pages may hold fewer
  than `limit` (follow `next`).
- `event` (an `evt_` id, or the `id` the producer sent the event with) finds
  the endpoint's delivery of that event, whatever its status (one or none; no
  `next`), even one not attempted yet.

Each is listed with its first success's attempt, if it had one, and no other
(`GET /v1/events/{event_id}/deliveries/{delivery_id}` reads them all, one
read each).
"""
FAILURES_DOC = """The endpoint's deliveries now `failed` (or `paused`) that were created in
`[since, until]` (default: the 7 days up to now), counted by the hour they
were created in: what a replay of each window (`POST …/replay`) restarts,
however late each failed for good. Reads at most 5,000, newest first;
`truncated` says there are more (the oldest hours then count at least
what they show).
"""
DELIVERYSTATUSFILTER_DOC = "Which deliveries to list."

Status = Annotated[IndexedStatus, given("status", status_value), Query(description=DELIVERYSTATUSFILTER_DOC)]
LogStatusFilter = Annotated[LogStatus, given("status", log_status_value), Query(description=DELIVERYSTATUSFILTER_DOC)]
EventFilter = Annotated[
    str | None,
    given("event", event_name_value),
    Query(
        description="Only the endpoint's delivery of this event: its `evt_` id, or the `id` the producer sent it with.",
        openapi_examples={"event id": {"value": "evt_01kbfk1s0fhzq3x4m2n8pdrtvw"}, "producer's id": {"value": "invoice-in_123-paid"}},
    ),
]
Order = Annotated[
    Literal["asc", "desc"],
    given("order", order_value),
    Query(description="`asc` (oldest first, the default) or `desc` (newest first, as the portal shows them)."),
]

# -- examples -------------------------------------------------------------------------------------------------------

CREATE_EXAMPLES = {
    "idempotent": {
        "summary": "With an idempotency key (`data` as of the default version, 2026-10-01 in these examples)",
        "value": {"type": "invoice.paid", "data": {"invoice": "in_123", "amount_cents": 4200, "currency": "eur"}, "id": "invoice-in_123-paid"},
    },
    "for_customer": {
        "summary": "For one customer's endpoints only",
        "value": {"type": "invoice.paid", "customer": "org_4711", "data": {"invoice": "in_124", "amount_cents": 990, "currency": "eur"}},
    },
    "anonymous": {"summary": "Without one (every request is a new event)", "value": {"type": "user.created", "data": {"user": "usr_981"}}},
    "versioned": {
        "summary": "As of the default version (2026-10-01); older pins get it derived by the type's downgrade",
        "value": {"type": "invoice.paid", "data": {"invoice": "in_125", "amount_cents": 4200, "currency": "eur"}, "id": "invoice-in_125-paid"},
    },
    "with_rendering": {
        "summary": "With the producer's own rendering for an older version",
        "value": {
            "type": "invoice.paid",
            "data": {"invoice": "in_126", "amount_cents": 1250, "currency": "eur"},
            "versions": {"2026-01-01": {"invoice": "in_126", "amount": 1250, "currency": "eur", "note": "rendered by the producer"}},
        },
    },
}
BATCH_EXAMPLE = {
    "events": [
        {"type": "invoice.paid", "data": {"invoice": "in_124", "amount_cents": 1900}, "id": "invoice-in_124-paid"},
        {"type": "user.created", "data": {"user": "usr_982"}},
    ]
}
BROADCAST_EXAMPLE = {"type": "terms.updated", "data": {"version": "2026-04", "effective": "2026-05-01"}, "id": "terms-2026-04"}
IDEMPOTENCY_CONFLICT = envelope("idempotency_conflict", "an event with this id exists with a different body")
EVENT_EXAMPLES = {
    "broadcast": {
        "summary": "A broadcast, fanning out (one page of its deliveries)",
        "value": {
            "id": "evt_0b168k9ac3ryg25mhv5ncfztgy",
            "type": "terms.updated",
            "customer": None,
            "version": "2026-01-01",
            "data": {"version": "2026-04"},
            "created_at": "2026-03-14T09:26:53.589Z",
            "broadcast": {"status": "fanning_out", "pages": 12, "endpoints_scanned": 1200, "deliveries": 1187, "paused": 3},
            "deliveries": [
                {
                    "id": "dlv_5k2v9q7c1x0m8r3t6w4z2y1a0b",
                    "endpoint_id": "ep_01kkntq2cnt8b8hz3pj95wjvcc",
                    "status": "succeeded",
                    "version": "2026-01-01",
                    "generation": 0,
                    "created_at": "2026-03-14T09:26:53.589Z",
                    "updated_at": "2026-03-14T09:26:54.102Z",
                    "attempts": [
                        {
                            "number": 1,
                            "at": "2026-03-14T09:26:54.102Z",
                            "status_code": 200,
                            "error": None,
                            "duration_ms": 48,
                            "outcome": "succeeded",
                            "reason": "2xx",
                            "response_body": "ok",
                            "trigger": "scheduled",
                        }
                    ],
                }
            ],
            "deliveries_next": "eyJwayI6ICJFI2FjbWUjZXZ0XzBiMTY4azlhYzNyeWcyNW1odjVuY2Z6dGd5IiwgInNrIjogIkRMViNkbHZfNWsydjlxN2MxeDBtOHIzdDZ3NHoyeTFhMGIjQSMwMDAxIn0",
        },
    },
    "ordinary": {
        "summary": "An event for the tenant's own endpoints",
        "value": {
            "id": "evt_0b168k9ac3ryg25mhv5ncfztgy",
            "type": "invoice.paid",
            "customer": None,
            "version": "2026-01-01",
            "data": {"invoice": "in_123", "amount": 4200, "currency": "eur"},
            "created_at": "2026-03-14T09:26:53.589Z",
            "deliveries": [
                {
                    "id": "dlv_01kkntq2cnvhbqhg2e278b2dva",
                    "endpoint_id": "ep_01kkntq2cnt8b8hz3pj95wjvcc",
                    "status": "succeeded",
                    "version": "2026-01-01",
                    "generation": 0,
                    "created_at": "2026-03-14T09:26:53.589Z",
                    "updated_at": "2026-03-14T09:27:31.902Z",
                    "attempts": [
                        {
                            "number": 1,
                            "at": "2026-03-14T09:26:53.871Z",
                            "status_code": 503,
                            "error": None,
                            "duration_ms": 212,
                            "outcome": "retrying",
                            "reason": "503 is retryable",
                            "response_body": "upstream unavailable",
                            "trigger": "scheduled",
                        },
                        {
                            "number": 2,
                            "at": "2026-03-14T09:27:31.902Z",
                            "status_code": 200,
                            "error": None,
                            "duration_ms": 64,
                            "outcome": "succeeded",
                            "reason": "2xx",
                            "response_body": "ok",
                            "trigger": "scheduled",
                        },
                    ],
                },
                {
                    "id": "dlv_01kkntq2cns0xcj0swc66twxkj",
                    "endpoint_id": "ep_01kkntq2cnnx6b2cektj3mapxa",
                    "status": "pending",
                    "version": "2026-01-01",
                    "generation": 0,
                    "created_at": "2026-03-14T09:26:53.589Z",
                    "updated_at": "2026-03-14T09:26:55.010Z",
                    "attempts": [
                        {
                            "number": 1,
                            "at": "2026-03-14T09:26:55.010Z",
                            "status_code": None,
                            "error": "timeout",
                            "duration_ms": 10001,
                            "outcome": "retrying",
                            "reason": "timeout: read timed out",
                            "response_body": "",
                            "trigger": "scheduled",
                        }
                    ],
                },
            ],
        },
    },
}
DELIVERY_EXAMPLE = {
    "id": "dlv_01kkntq2cnerx003w04ypt75j4",
    "event_id": "evt_01kkntq2cne6s1c99tvp6dvkt6",
    "event_type": "invoice.paid",
    "endpoint_id": "ep_01kkntq2cnt8b8hz3pj95wjvcc",
    "status": "failed",
    "version": "2026-01-01",
    "generation": 0,
    "created_at": "2026-03-14T09:26:53.589Z",
    "updated_at": "2026-03-14T09:26:53.712Z",
    "attempts": [
        {
            "number": 1,
            "at": "2026-03-14T09:26:53.690Z",
            "status_code": 400,
            "error": None,
            "duration_ms": 21,
            "outcome": "failed",
            "reason": "400 client error: not retried",
            "response_body": '{"error":"unknown customer"}',
            "trigger": "scheduled",
            "request_headers": {
                "webhook-id": "evt_01kkntq2cne6s1c99tvp6dvkt6",
                "webhook-timestamp": "1773480413",
                "webhook-signature": "v1,<redacted>",
                "content-type": "application/json",
                "user-agent": "hookline/0.1.0",
            },
        }
    ],
}
RETRY_EXAMPLE = {"id": "dlv_01kkntq2cnerx003w04ypt75j4", "event_id": "evt_01kkntq2cne6s1c99tvp6dvkt6", "status": "pending", "generation": 1}
RETRY_REFUSED = {
    "in_progress": {"value": envelope("delivery_in_progress", "delivery is pending: it will be attempted without a manual retry")},
    "changed": {"value": envelope("delivery_changed", "the delivery changed meanwhile; read it again")},
}
PAGE_EXAMPLE = {
    "items": [
        {
            "id": "dlv_01kkntq2cnerx003w04ypt75j4",
            "endpoint_id": "ep_01kkntq2cnt8b8hz3pj95wjvcc",
            "event_id": "evt_01kkntq2cne6s1c99tvp6dvkt6",
            "status": "failed",
            "version": "2026-01-01",
            "generation": 0,
            "created_at": "2026-03-14T09:26:53.589Z",
            "updated_at": "2026-03-14T09:27:31.902Z",
            "attempts": [],
        }
    ],
    "next": None,
}
FAILURES_EXAMPLE = {
    "since": "2026-03-07T09:26:53.589Z",
    "until": "2026-03-14T09:26:53.589Z",
    "status": "failed",
    "hours": [{"hour": "2026-03-12T14:00:00Z", "count": 19}, {"hour": "2026-03-12T15:00:00Z", "count": 28}],
    "total": 47,
    "truncated": False,
}

# -- routes ---------------------------------------------------------------------------------------------------------


@router.post(
    "/v1/events",
    operation_id="createEvent",
    tags=["events"],
    summary="Send an event",
    description=CREATE_DOC,
    responses=answers(
        ok(
            202,
            EventAccepted,
            "Accepted; the event is stored and its deliveries are queued.",
            example={"id": "evt_0b168k9ac3ryg25mhv5ncfztgy", "deliveries": 2},
        ),
        "BadRequest",
        "CustomerNotFound",
        refusal(409, "An event with this `id` exists with a different body (`idempotency_conflict`).", IDEMPOTENCY_CONFLICT),
        "PayloadTooLarge",
        "EventRefused",
        "Unavailable",
    ),
)
@allow(Access.PRODUCER)
def create_event(body: Annotated[CreateEvent, Body(openapi_examples=CREATE_EXAMPLES)]) -> Response[EventAccepted]:
    return respond(202, container.event_service().accept(caller().tenant, body))


@router.post(
    "/v1/events/batch",
    operation_id="createEvents",
    tags=["events"],
    summary="Send up to 100 events in one request",
    description=BATCH_DOC,
    responses=answers(
        ok(
            202,
            EventBatchAccepted,
            "Every event was accepted.",
            example={
                "accepted": 2,
                "failed": 0,
                "results": [
                    {"index": 0, "status": 202, "id": "evt_0b168k9ac3ryg25mhv5ncfztgy", "deliveries": 2},
                    {"index": 1, "status": 202, "id": "evt_01kkntq2cne6s1c99tvp6dvkt6", "deliveries": 1},
                ],
            },
        ),
        ok(
            207,
            EventBatchAccepted,
            "Some events were not accepted; each result says why.",
            example={
                "accepted": 1,
                "failed": 1,
                "results": [
                    {"index": 0, "status": 409, **IDEMPOTENCY_CONFLICT},
                    {"index": 1, "status": 202, "id": "evt_01kkntq2cne6s1c99tvp6dvkt6", "deliveries": 1},
                ],
            },
        ),
        "BadRequest",
        "PayloadTooLarge",
        "ValidationFailed",
        "Unavailable",
    ),
)
@allow(Access.PRODUCER, body_limit=_batch_bytes)
def create_events(body: Annotated[CreateEventBatch, Body(openapi_examples={"batch": {"value": BATCH_EXAMPLE}})]) -> Response[EventBatchAccepted]:
    answer = container.event_service().accept_batch(caller().tenant, body)
    # 202 when every event was accepted; 207 (look at each result) when some were not.
    return respond(202 if answer.failed == 0 else 207, answer)


@router.post(
    "/v1/events/broadcast",
    operation_id="broadcastEvent",
    tags=["events"],
    summary="Send one event to every customer's subscribed endpoints and the tenant's own",
    description=BROADCAST_DOC,
    responses=answers(
        ok(
            202,
            BroadcastAccepted,
            "Accepted; the event is stored and its fan-out is queued.",
            example={"id": "evt_0b168k9ac3ryg25mhv5ncfztgy", "status": "fanning_out", "job": {"id": "job_0b168k9ac3ryg25mhv5ncfztgy", "status": "running"}},
        ),
        "BadRequest",
        refusal(409, "An event with this `id` exists with a different body, or is not a broadcast (`idempotency_conflict`).", IDEMPOTENCY_CONFLICT),
        "PayloadTooLarge",
        "EventRefused",
        "Unavailable",
    ),
)
@allow(Access.PRODUCER)
def broadcast_event(body: Annotated[CreateBroadcast, Body(openapi_examples={"broadcast": {"value": BROADCAST_EXAMPLE}})]) -> Response[BroadcastAccepted]:
    return respond(202, container.broadcast_service().start(caller().tenant, body))


@router.get(
    "/v1/events/<event_id>",
    operation_id="getEvent",
    tags=["events"],
    summary="Read an event, its deliveries and every attempt",
    description=GET_EVENT_DOC,
    responses=answers(ok(200, Event, "The event.", examples=EVENT_EXAMPLES), "NotFound", "InvalidQuery"),
)
@allow(Access.READ, "event")
def get_event(event_id: EventId, limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> Response[Event]:
    return respond(200, container.event_service().describe(caller().tenant, event_id, limit, cursor, viewer=caller()))


@router.get(
    "/v1/events/<event_id>/deliveries/<delivery_id>",
    operation_id="getDelivery",
    tags=["events"],
    summary="One delivery with its attempts",
    description=GET_DELIVERY_DOC,
    responses=answers(ok(200, DeliveryDetail, "The delivery.", example=DELIVERY_EXAMPLE), "NotFound"),
)
@allow(Access.READ, "delivery")
def get_delivery(event_id: EventId, delivery_id: DeliveryId) -> Response[DeliveryDetail]:
    return respond(200, container.event_service().delivery(caller().tenant, event_id, delivery_id))


@router.post(
    "/v1/events/<event_id>/deliveries/<delivery_id>/retry",
    operation_id="retryDelivery",
    tags=["events"],
    summary="Retry one delivery now",
    description=RETRY_DOC,
    responses=answers(
        ok(202, RetryAccepted, "The retry is queued.", example=RETRY_EXAMPLE),
        "NotFound",
        refusal(
            409,
            "The delivery is `pending` or `paused` (`delivery_in_progress`; not a manual retry's own generation\nbefore its attempt, which a repeat queues again), or it changed while the retry was being set up\n(`delivery_changed`: read it again).\n",
            examples=RETRY_REFUSED,
        ),
        "Unavailable",
    ),
)
@allow(Access.WRITE, "delivery")
def retry_delivery(event_id: EventId, delivery_id: DeliveryId) -> Response[RetryAccepted]:
    return respond(202, container.event_service().retry(caller().tenant, event_id, delivery_id))


@router.get(
    "/v1/endpoints/<endpoint_id>/deliveries",
    operation_id="listEndpointDeliveries",
    tags=["endpoints"],
    summary="An endpoint's deliveries: all, or by status, or of one event",
    description=DELIVERIES_DOC,
    responses=answers(ok(200, DeliveryPage, "One page of deliveries.", example=PAGE_EXAMPLE), "NotFound", "InvalidQuery"),
)
@allow(Access.READ, "endpoint")
def list_endpoint_deliveries(
    endpoint_id: EndpointId,
    status: LogStatusFilter = "failed",
    since: SinceTime = None,
    until: UntilTime = None,
    limit: Limit = DEFAULT_LIMIT,
    cursor: Cursor = None,
    order: Order = "asc",
    event: EventFilter = None,
) -> Response[DeliveryPage]:
    page = container.event_service().deliveries_of(
        caller().tenant, endpoint_id, status=status, since=since, until=until, limit=limit, cursor=cursor, newest_first=order == "desc", event=event
    )
    return respond(200, page)


@router.get(
    "/v1/endpoints/<endpoint_id>/failures",
    operation_id="getEndpointFailures",
    tags=["endpoints"],
    summary="An endpoint's failed deliveries, counted by creation hour",
    description=FAILURES_DOC,
    responses=answers(ok(200, FailureHistogram, "The counts.", example=FAILURES_EXAMPLE), "NotFound", "InvalidQuery"),
)
@allow(Access.READ, "endpoint")
def endpoint_failures(endpoint_id: EndpointId, status: Status = "failed", since: SinceTime = None, until: UntilTime = None) -> Response[FailureHistogram]:
    return respond(200, container.event_service().failures(caller().tenant, endpoint_id, status=status, since=since, until=until))
