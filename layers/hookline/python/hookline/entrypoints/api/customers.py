"""Routes of the tenant's customers (producer only): create or replace, read, list, delete, and their statistics."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from hookline.core.access import Access
from hookline.entrypoints.api.routing import allow, caller, page_args, raw_body, raw_query, respond
from hookline.wiring import container

router = APIGatewayHttpRouter()


@router.put("/v1/customers/<uid>")
@allow(Access.PRODUCER)
def put_customer(uid: str) -> Response[Any]:
    customer, created = container.customer_service().put(caller().tenant, uid, raw_body())
    return respond(201 if created else 200, customer)


@router.get("/v1/customers")
@allow(Access.PRODUCER)
def list_customers() -> Response[Any]:
    limit, cursor = page_args()
    return respond(200, container.customer_service().list(caller().tenant, limit, cursor))


@router.get("/v1/customers/<uid>")
@allow(Access.PRODUCER)
def get_customer(uid: str) -> Response[Any]:
    return respond(200, container.customer_service().get(caller().tenant, uid))


@router.delete("/v1/customers/<uid>")
@allow(Access.PRODUCER)
def delete_customer(uid: str) -> Response[Any]:
    """202: the customer is gone; its endpoints go by the job the answer names (`{"job": {"id", "status"}}`)."""
    return respond(202, {"job": container.customer_service().delete(caller().tenant, uid)})


@router.get("/v1/customers/<uid>/stats")
@allow(Access.PRODUCER)
def customer_stats(uid: str) -> Response[Any]:
    return respond(200, container.customer_service().stats(caller().tenant, uid, raw_query()))
