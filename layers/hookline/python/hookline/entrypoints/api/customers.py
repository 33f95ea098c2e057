"""Routes of the tenant's customers (producer only): create or replace, read, list, delete, and their statistics."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter
from pydantic import WithJsonSchema

from hookline.core import validation
from hookline.core.access import Access
from hookline.core.contract.common import rule
from hookline.core.contract.customers import CUSTOMER_UID_PARAM, CUSTOMER_UID_PATTERN, Customer, CustomerDeleted, CustomerPage, CustomerStats, PutCustomer
from hookline.core.contract.stats import SINCE_DESCRIPTION, UNTIL_DESCRIPTION, WINDOW_TIME
from hookline.core.errors import envelope
from hookline.entrypoints.api.answers import answers, ok, refusal
from hookline.entrypoints.api.routing import allow, caller
from hookline.wiring import container
from hookline.wiring.settings import get_settings

router = APIGatewayHttpRouter()
# A route answers its model; Powertools checks it against the route's return annotation and writes it as JSON.
JSON = "application/json"


# -- parameters ------------------------------------------------------------------------------------------------------


def given(name: str, read: Callable[[Any], Any] = lambda value: value) -> Any:
    """A query parameter's rule: given with a value or left out (`?name=` is 422, as for every query parameter), then
    read by `read` (one of hookline.core.validation's rules, with its own messages)."""

    def check(value: Any) -> Any:
        validation.query_values({name: value})
        return read(value)

    return rule(check)


def _page_limit(value: Any) -> int:
    return validation.page_limit(value, get_settings().page_limit_max)


Uid = Annotated[
    str,
    Path(
        description=CUSTOMER_UID_PARAM,
        json_schema_extra={"pattern": CUSTOMER_UID_PATTERN, "description": "A customer's uid, chosen by the tenant.", "examples": ["org_4711"]},
    ),
]
Limit = Annotated[
    int,
    Query(description="Page size; the maximum is `HOOKLINE_PAGE_LIMIT_MAX` (100 by default)."),
    given("limit", _page_limit),
    WithJsonSchema({"type": "integer", "minimum": 1, "maximum": 100, "default": 50}),
]
Cursor = Annotated[
    str | None,
    Query(
        description=(
            "The `next` of the previous page. Opaque: anything but a `next` this list handed out (another\n"
            "list's or tenant's cursor, or a made-up one) is 422 `invalid_cursor`. Like every query parameter,\n"
            "it is given with a value or left out (`?cursor=` is 422).\n"
        )
    ),
    given("cursor"),
    WithJsonSchema({"type": "string", "minLength": 1}),
]
# A window's times are read by the service (hookline.core.validation.stats_window), after the customer is found: an
# unknown customer is 404 whatever its window.
Since = Annotated[
    str | None,
    Query(description=SINCE_DESCRIPTION),
    given("since"),
    WithJsonSchema({**WINDOW_TIME, "examples": ["2026-03-14T00:00:00Z"]}),
]
Until = Annotated[
    str | None,
    Query(description=UNTIL_DESCRIPTION),
    given("until"),
    WithJsonSchema({**WINDOW_TIME, "examples": ["2026-03-15T00:00:00Z"]}),
]


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
        "Unauthorized",
        "Forbidden",
        refusal(
            404,
            "The path is not one the API serves (`not_found`): the uid holds a character no route takes.",
            example=envelope("not_found", "no such route"),
        ),
        "PayloadTooLarge",
        "ValidationFailed",
    ),
)
@allow(Access.PRODUCER)
def put_customer(uid: Uid, body: Annotated[PutCustomer, Body(openapi_examples=_PUT_EXAMPLES)]) -> Response[Customer]:
    customer, created = container.customer_service().put(caller().tenant, uid, body)
    return Response(201 if created else 200, JSON, customer)


@router.get(
    "/v1/customers",
    operation_id="listCustomers",
    tags=["customers"],
    summary="List customers",
    description="The tenant's customers, paged, in uid order.",
    responses=answers(
        ok(200, CustomerPage, "One page of customers.", example={"items": [_CUSTOMER], "next": None}), "Unauthorized", "Forbidden", "InvalidQuery"
    ),
)
@allow(Access.PRODUCER)
def list_customers(limit: Limit = 50, cursor: Cursor = None) -> Response[CustomerPage]:
    return Response(200, JSON, container.customer_service().list(caller().tenant, limit, cursor))


@router.get(
    "/v1/customers/<uid>",
    operation_id="getCustomer",
    tags=["customers"],
    summary="Read a customer",
    responses=answers(ok(200, Customer, "The customer.", example=_CUSTOMER), "Unauthorized", "Forbidden", "CustomerNotFound"),
)
@allow(Access.PRODUCER)
def get_customer(uid: Uid) -> Response[Customer]:
    return Response(200, JSON, container.customer_service().get(caller().tenant, uid))


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
        "customer, so on a 503 repeat the request: it starts no second job. If the\n"
        "uid names a new customer (`PUT`) before the job is done, the job stops\n"
        "(`cancelled`): the endpoints it has not deleted yet stay, and belong to\n"
        "the uid's new customer. Create it again only once the job is `done`.\n"
    ),
    responses=answers(
        ok(
            202,
            CustomerDeleted,
            "The customer is deleted; its endpoints are being deleted by the job the answer names.",
            example={"job": {"id": "job_exq5fb5rbqe9fn7bmsqm8830am", "status": "running"}},
        ),
        "Unauthorized",
        "Forbidden",
        "CustomerNotFound",
        "Unavailable",
    ),
)
@allow(Access.PRODUCER)
def delete_customer(uid: Uid) -> Response[CustomerDeleted]:
    return Response(202, JSON, container.customer_service().delete(caller().tenant, uid))


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
    responses=answers(ok(200, CustomerStats, "The statistics.", example=_STATS), "Unauthorized", "Forbidden", "CustomerNotFound", "InvalidQuery"),
)
@allow(Access.PRODUCER)
def customer_stats(uid: Uid, since: Since = None, until: Until = None) -> Response[CustomerStats]:
    return Response(200, JSON, container.customer_service().stats(caller().tenant, uid, since, until))
