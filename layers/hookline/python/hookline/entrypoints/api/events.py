"""Routes of events: one in, a batch in, a broadcast to every customer, and an event's deliveries and their retry."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from hookline.core.access import Access
from hookline.core.errors import Unavailable
from hookline.core.settings import Settings
from hookline.entrypoints.api.routing import allow, caller, page_args, raw_body, raw_query, respond
from hookline.wiring import container
from hookline.wiring.settings import get_settings

router = APIGatewayHttpRouter()


def _batch_bytes(settings: Settings) -> int:
    return settings.max_batch_bytes


@router.post("/v1/events")
@allow(Access.PRODUCER)
def create_event() -> Response[Any]:
    return respond(202, container.event_service().accept(caller().tenant, raw_body()))


@router.post("/v1/events/batch")
@allow(Access.PRODUCER, body_limit=_batch_bytes)
def create_events() -> Response[Any]:
    results = container.event_service().accept_batch(caller().tenant, raw_body(get_settings().max_batch_bytes))
    accepted = sum(1 for r in results if r["status"] == 202)
    if all(r["status"] == 503 for r in results):
        # Nothing got through (DynamoDB or SQS down): the same answer as the single route, so clients retry.
        raise Unavailable("no event of the batch could be stored and queued; repeat the request (events with an id are idempotent)")
    # 202 when every event was accepted; 207 (look at each result) when some were not.
    return respond(202 if accepted == len(results) else 207, {"accepted": accepted, "failed": len(results) - accepted, "results": results})


@router.post("/v1/events/broadcast")
@allow(Access.PRODUCER)
def broadcast_event() -> Response[Any]:
    return respond(202, container.broadcast_service().start(caller().tenant, raw_body()))


@router.get("/v1/events/<event_id>")
@allow(Access.READ, "event")
def get_event(event_id: str) -> Response[Any]:
    limit, cursor = page_args()  # a broadcast's page of deliveries
    return respond(200, container.event_service().describe(caller().tenant, event_id, limit, cursor, viewer=caller().customer))


@router.get("/v1/events/<event_id>/deliveries/<delivery_id>")
@allow(Access.READ, "delivery")
def get_delivery(event_id: str, delivery_id: str) -> Response[Any]:
    return respond(200, container.event_service().delivery(caller().tenant, event_id, delivery_id))


@router.post("/v1/events/<event_id>/deliveries/<delivery_id>/retry")
@allow(Access.WRITE, "delivery")
def retry_delivery(event_id: str, delivery_id: str) -> Response[Any]:
    return respond(202, container.event_service().retry(caller().tenant, event_id, delivery_id))


@router.get("/v1/endpoints/<endpoint_id>/deliveries")
@allow(Access.READ, "endpoint")
def list_endpoint_deliveries(endpoint_id: str) -> Response[Any]:
    limit, _ = page_args()
    return respond(200, container.event_service().deliveries_of(caller().tenant, endpoint_id, raw_query(), limit))


@router.get("/v1/endpoints/<endpoint_id>/failures")
@allow(Access.READ, "endpoint")
def endpoint_failures(endpoint_id: str) -> Response[Any]:
    return respond(200, container.event_service().failures(caller().tenant, endpoint_id, raw_query()))
