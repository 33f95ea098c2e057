"""Routes of endpoints: where webhooks go, how fast, how healthy each receiver is, and its deliveries and replays."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from hookline.core.access import Access
from hookline.entrypoints.api.routing import allow, caller, no_content, page_args, raw_body, raw_query, respond
from hookline.wiring import container

router = APIGatewayHttpRouter()


@router.post("/v1/endpoints")
@allow(Access.WRITE)
def create_endpoint() -> Response[Any]:
    who, body = caller(), raw_body()
    if not who.is_producer:
        body = {**body, "customer": container.access_guard().owner(who, body.get("customer"))}
    return respond(201, container.endpoint_service().create(who.tenant, body))


@router.get("/v1/endpoints")
@allow(Access.READ)
def list_endpoints() -> Response[Any]:
    limit, cursor = page_args()
    customer = container.access_guard().owner(caller(), raw_query().get("customer"))
    return respond(200, container.endpoint_service().list(caller().tenant, limit, cursor, customer))


@router.get("/v1/endpoints/<endpoint_id>")
@allow(Access.READ, "endpoint")
def get_endpoint(endpoint_id: str) -> Response[Any]:
    return respond(200, container.endpoint_service().describe(caller().tenant, endpoint_id))


@router.get("/v1/endpoints/<endpoint_id>/secret")
@allow(Access.READ, "endpoint")
def get_secret(endpoint_id: str) -> Response[Any]:
    return respond(200, container.endpoint_service().secret(caller().tenant, endpoint_id))


@router.post("/v1/endpoints/<endpoint_id>/secret/rotate")
@allow(Access.WRITE, "endpoint")
def rotate_secret(endpoint_id: str) -> Response[Any]:
    return respond(200, container.endpoint_service().rotate_secret(caller().tenant, endpoint_id))


@router.post("/v1/endpoints/<endpoint_id>/test")
@allow(Access.WRITE, "endpoint")
def test_endpoint(endpoint_id: str) -> Response[Any]:
    return respond(200, container.endpoint_service().test(caller().tenant, endpoint_id))


@router.post("/v1/endpoints/<endpoint_id>/enable")
@allow(Access.WRITE, "endpoint")
def enable_endpoint(endpoint_id: str) -> Response[Any]:
    return respond(200, container.endpoint_service().enable(caller().tenant, endpoint_id))


@router.patch("/v1/endpoints/<endpoint_id>")
@allow(Access.WRITE, "endpoint")
def patch_endpoint(endpoint_id: str) -> Response[Any]:
    body = container.access_guard().endpoint_change(caller(), raw_body())
    return respond(200, container.endpoint_service().update(caller().tenant, endpoint_id, body).public())


@router.delete("/v1/endpoints/<endpoint_id>")
@allow(Access.WRITE, "endpoint")
def delete_endpoint(endpoint_id: str) -> Response[Any]:
    container.endpoint_service().delete(caller().tenant, endpoint_id)
    return no_content()


@router.get("/v1/endpoints/<endpoint_id>/stats")
@allow(Access.READ, "endpoint")
def endpoint_stats(endpoint_id: str) -> Response[Any]:
    return respond(200, container.endpoint_service().stats(caller().tenant, endpoint_id, raw_query()))
