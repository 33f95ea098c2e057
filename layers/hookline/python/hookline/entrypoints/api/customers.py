"""Routes of the tenant's customers (producer only): create or replace, read, list, delete, and their statistics."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body

from hookline.core.access import Access
from hookline.core.contract.customers import Customer, CustomerDeleted, CustomerPage, CustomerStats, PutCustomer
from hookline.entrypoints.api.answers import answers, no_route, ok, stored
from hookline.entrypoints.api.params import DEFAULT_LIMIT, Cursor, CustomerUid, Limit, Since, Until
from hookline.entrypoints.api.routing import Router, allow, caller, container, respond

router = Router()


# -- examples --------------------------------------------------------------------------------------------------------

_STAMP = "2026-03-14T09:26:53.589Z"
_CUSTOMER = {
    "uid": "org_4711",
    "name": "Globex GmbH",
    "email": "webhooks@globex.example.com",
    "metadata": {"plan": "enterprise"},
    "limits": {"max_rate_per_second": 100.0, "max_concurrency": 50},
    "created_at": _STAMP,
    "updated_at": _STAMP,
}
_PUT_EXAMPLES: Any = {
    "minimal": {"summary": "A name only (default limits)", "value": {"name": "Globex GmbH"}},
    "full": {
        "summary": "With an email, metadata and limits",
        "value": {
            "name": "Globex GmbH",
            "email": "webhooks@globex.example.com",
            "metadata": {"plan": "enterprise", "crm_id": "0015g00000XyZ12"},
            "limits": {"max_rate_per_second": 20, "max_concurrency": 10},
        },
    },
}
_REPLACED = {
    **_CUSTOMER,
    "metadata": {"plan": "enterprise", "crm_id": "0015g00000XyZ12"},
    "limits": {"max_rate_per_second": 20.0, "max_concurrency": 10},
    "updated_at": "2026-03-15T10:02:11.204Z",
}
_CREATED = {**_CUSTOMER, "email": None, "metadata": {}}
_STATS = {
    "customer": "org_4711",
    "endpoints": 3,
    "since": "2026-03-13T09:26:53.589000Z",
    "until": "2026-03-14T09:26:53.589000Z",
    "granularity": "hour",
    "attempts": 3840,
    "succeeded": 3790,
    "failed": 50,
    "latency_ms": {"p50": 100, "p95": 500, "p99": 1000},
    "first_attempt_delivery_rate": 0.9862,
    "eventual_delivery_success_rate": 0.9995,
}


# -- routes ----------------------------------------------------------------------------------------------------------


@router.put(
    "/v1/customers/<uid>",
    operation_id="putCustomer",
    tags=["customers"],
    summary="Create or replace a customer",
    description=(
        "Creates the customer (201) or replaces it as a whole (200): a field left\n"
        "out takes its default (no email, no metadata, the default limits). The\n"
        "creation time is kept. Idempotent: repeating the same body answers 200\n"
        "and changes nothing, `updated_at` included. Lowering `limits` does not\n"
        "change the customer's existing endpoints; a later change of their rate or\n"
        "concurrency must fit.\n"
    ),
    responses=answers(
        ok(200, Customer, "Replaced (or unchanged, for a repeated body).", example=_REPLACED),
        ok(201, Customer, "Created.", example=_CREATED),
        "BadRequest",
        no_route("uid"),
        "PayloadTooLarge",
        "ValidationFailed",
    ),
)
@allow(Access.PRODUCER)
def put_customer(uid: CustomerUid, body: Annotated[PutCustomer, Body(openapi_examples=_PUT_EXAMPLES)]) -> Response[Customer]:
    return stored(container.customer_service().put(caller().tenant, uid, body))


@router.get(
    "/v1/customers",
    operation_id="listCustomers",
    tags=["customers"],
    summary="List customers",
    description="The tenant's customers, paged, in uid order.",
    responses=answers(ok(200, CustomerPage, "One page of customers.", example={"items": [_CUSTOMER], "next": None}), "InvalidQuery"),
)
@allow(Access.PRODUCER)
def list_customers(limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> Response[CustomerPage]:
    return respond(200, container.customer_service().list(caller().tenant, limit, cursor))


@router.get(
    "/v1/customers/<uid>",
    operation_id="getCustomer",
    tags=["customers"],
    summary="Read a customer",
    responses=answers(ok(200, Customer, "The customer.", example=_CUSTOMER), "CustomerNotFound"),
)
@allow(Access.PRODUCER)
def get_customer(uid: CustomerUid) -> Response[Customer]:
    return respond(200, container.customer_service().get(caller().tenant, uid))


@router.delete(
    "/v1/customers/<uid>",
    operation_id="deleteCustomer",
    tags=["customers"],
    summary="Delete a customer and its endpoints",
    description=(
        "Deletes the customer at once and its endpoints by a job (100 per step on\n"
        "the job queue), so the request stays short however many it has. The\n"
        "answer names the job (`job`: its `id` and `status`); `GET /v1/jobs/{job_id}`\n"
        "shows its progress (`counts.endpoints_deleted`). Events for the customer\n"
        "are refused (404) from then on; its stored events and deliveries expire by\n"
        "TTL as usual. The job is started first, with an id derived from the\n"
        "customer, so on a 503 repeat the request: it starts no second job. A\n"
        "customer made again under the uid (`PUT`) before the job is done is a new\n"
        "customer: the job still deletes every endpoint made before the deletion,\n"
        "and none of the new customer's; until then, those endpoints count toward\n"
        "the uid's `HOOKLINE_MAX_ENDPOINTS_PER_OWNER`, and no event or portal\n"
        "session of the new customer reaches them.\n"
    ),
    responses=answers(
        ok(
            202,
            CustomerDeleted,
            "The customer is deleted; its endpoints are being deleted by the job the answer names.",
            example={"job": {"id": "job_exq5fb5rbqe9fn7bmsqm8830am", "status": "running"}},
        ),
        "CustomerNotFound",
        "Unavailable",
    ),
)
@allow(Access.PRODUCER)
def delete_customer(uid: CustomerUid) -> Response[CustomerDeleted]:
    return respond(202, container.customer_service().delete(caller().tenant, uid))


@router.get(
    "/v1/customers/<uid>/stats",
    operation_id="getCustomerStats",
    tags=["customers"],
    summary="Delivery statistics of a customer",
    description=(
        "The endpoint statistics (`GET /v1/endpoints/{endpoint_id}/stats`) added\n"
        "up over all of the customer's current endpoints, over `[since, until]`\n"
        "(default: the 24 hours up to now), widened to whole hours. It reads the\n"
        "customer's endpoints and, for each, only its hourly counters in the\n"
        "window.\n"
    ),
    responses=answers(ok(200, CustomerStats, "The statistics.", example=_STATS), "CustomerNotFound", "InvalidQuery"),
)
@allow(Access.PRODUCER)
def customer_stats(uid: CustomerUid, since: Since = None, until: Until = None) -> Response[CustomerStats]:
    return respond(200, container.customer_service().stats(caller().tenant, uid, since, until))
