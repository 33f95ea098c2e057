"""Routes of the catalog: the tenant's event types (schemas and downgrades per version) and its payload versions."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from hookline.core.access import Access
from hookline.entrypoints.api.routing import allow, caller, page_args, raw_body, respond
from hookline.wiring import container

router = APIGatewayHttpRouter()


@router.get("/v1/event-types")
@allow(Access.READ)
def list_event_types() -> Response[Any]:
    """A portal session lists only the types its customer sees: those its endpoints name and those sent to it."""
    limit, cursor = page_args()
    only = container.access_guard().event_types(caller())
    return respond(200, container.catalog_service().list_types(caller().tenant, limit, cursor, only))


@router.get("/v1/event-types/<name>")
@allow(Access.READ, "event_type")
def get_event_type(name: str) -> Response[Any]:
    return respond(200, container.catalog_service().get_type(caller().tenant, name))


@router.put("/v1/event-types/<name>")
@allow(Access.PRODUCER)
def put_event_type(name: str) -> Response[Any]:
    event_type, created = container.catalog_service().put_type(caller().tenant, name, raw_body())
    return respond(201 if created else 200, event_type)


@router.get("/v1/versions")
@allow(Access.READ)
def list_versions() -> Response[Any]:
    """A portal session sees the versions; the producer also sees who still uses each (it spans every customer)."""
    return respond(200, container.catalog_service().versions(caller().tenant, with_usage=caller().is_producer))


@router.put("/v1/versions/<version>")
@allow(Access.PRODUCER)
def put_version(version: str) -> Response[Any]:
    stored, created = container.catalog_service().put_version(caller().tenant, version, raw_body(optional=True))
    return respond(201 if created else 200, stored)
