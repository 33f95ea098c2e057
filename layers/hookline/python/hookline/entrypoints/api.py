"""The HTTP API (v1): routes parse, make one service call, and respond.

Every error becomes a response here and only here, its body the envelope of
hookline.core.errors (a bad cursor is a domain error too). The tenant comes
from the Lambda authorizer's context, never from the request, so every route
is scoped to the caller. Building the resolver does no I/O; services are
created on first use.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError

from hookline.adapters.observability import get_logger
from hookline.core import validation
from hookline.core.errors import BadRequest, HooklineError, NotFound, Unauthorized, Unavailable
from hookline.wiring import container
from hookline.wiring.settings import get_settings

app = APIGatewayHttpResolver()


def _json(status: int, body: Any) -> Response:
    return Response(status_code=status, content_type="application/json", body=json.dumps(body, separators=(",", ":")))


def error_response(error: HooklineError) -> Response:
    return _json(error.status, error.envelope())


def _tenant() -> str:
    ctx = app.current_event.raw_event.get("requestContext", {}).get("authorizer", {}) or {}
    value = (ctx.get("lambda") or {}).get("tenant")
    if not isinstance(value, str) or not value:
        raise Unauthorized("missing or invalid API key")
    return value


def _body(max_bytes: int | None = None) -> dict[str, Any]:
    raw_event = app.current_event.raw_event
    raw = raw_event.get("body") or ""
    try:
        data = base64.b64decode(raw, validate=True) if raw_event.get("isBase64Encoded") else raw.encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        raise BadRequest("request body is not valid base64 or UTF-8", code="malformed_body") from None
    return validation.parse_json_object(data, max_bytes or get_settings().max_event_bytes)


def _query() -> dict[str, str]:
    return {k: v for k, v in (app.current_event.query_string_parameters or {}).items() if isinstance(v, str)}


def _page_args() -> tuple[int, str | None]:
    params = app.current_event.query_string_parameters or {}
    return validation.page_limit(params.get("limit"), get_settings().page_limit_max), params.get("cursor")


@app.exception_handler(HooklineError)
def _domain_error(exc: HooklineError) -> Response:
    return error_response(exc)


@app.exception_handler(NotFoundError)
def _no_route(exc: NotFoundError) -> Response:
    return error_response(NotFound("no such route"))


@app.exception_handler(Exception)
def _unexpected(exc: Exception) -> Response:
    get_logger().exception("unhandled error")
    return error_response(HooklineError("internal error"))


@app.get("/health")
def health() -> Response:
    return _json(200, {"status": "ok"})


@app.post("/v1/endpoints")
def create_endpoint() -> Response:
    tenant = _tenant()
    return _json(201, container.endpoint_service().create(tenant, _body()))


@app.get("/v1/endpoints")
def list_endpoints() -> Response:
    tenant = _tenant()
    limit, cursor = _page_args()
    return _json(200, container.endpoint_service().list(tenant, limit, cursor, _query().get("customer")))


@app.get("/v1/endpoints/<endpoint_id>")
def get_endpoint(endpoint_id: str) -> Response:
    return _json(200, container.endpoint_service().describe(_tenant(), endpoint_id))


@app.get("/v1/endpoints/<endpoint_id>/secret")
def get_secret(endpoint_id: str) -> Response:
    return _json(200, container.endpoint_service().secret(_tenant(), endpoint_id))


@app.post("/v1/endpoints/<endpoint_id>/secret/rotate")
def rotate_secret(endpoint_id: str) -> Response:
    return _json(200, container.endpoint_service().rotate_secret(_tenant(), endpoint_id))


@app.post("/v1/endpoints/<endpoint_id>/test")
def test_endpoint(endpoint_id: str) -> Response:
    return _json(200, container.endpoint_service().test(_tenant(), endpoint_id))


@app.post("/v1/endpoints/<endpoint_id>/enable")
def enable_endpoint(endpoint_id: str) -> Response:
    return _json(200, container.endpoint_service().enable(_tenant(), endpoint_id))


@app.patch("/v1/endpoints/<endpoint_id>")
def patch_endpoint(endpoint_id: str) -> Response:
    tenant = _tenant()
    return _json(200, container.endpoint_service().update(tenant, endpoint_id, _body()).public())


@app.delete("/v1/endpoints/<endpoint_id>")
def delete_endpoint(endpoint_id: str) -> Response:
    container.endpoint_service().delete(_tenant(), endpoint_id)
    return Response(status_code=204, body="")


@app.get("/v1/endpoints/<endpoint_id>/deliveries")
def list_endpoint_deliveries(endpoint_id: str) -> Response:
    tenant = _tenant()
    limit, _ = _page_args()
    params = _query()
    return _json(200, container.event_service().deliveries_of(tenant, endpoint_id, params, limit))


@app.get("/v1/endpoints/<endpoint_id>/stats")
def endpoint_stats(endpoint_id: str) -> Response:
    params = _query()
    return _json(200, container.endpoint_service().stats(_tenant(), endpoint_id, params))


@app.post("/v1/endpoints/<endpoint_id>/replay")
def replay_endpoint(endpoint_id: str) -> Response:
    tenant = _tenant()
    return _json(202, container.replay_service().start(tenant, endpoint_id, _body()))


@app.get("/v1/replays/<replay_id>")
def get_replay(replay_id: str) -> Response:
    return _json(200, container.replay_service().describe(_tenant(), replay_id))


@app.post("/v1/events/<event_id>/deliveries/<delivery_id>/retry")
def retry_delivery(event_id: str, delivery_id: str) -> Response:
    return _json(202, container.event_service().retry(_tenant(), event_id, delivery_id))


@app.put("/v1/customers/<uid>")
def put_customer(uid: str) -> Response:
    tenant = _tenant()
    customer, created = container.customer_service().put(tenant, uid, _body())
    return _json(201 if created else 200, customer)


@app.get("/v1/customers")
def list_customers() -> Response:
    tenant = _tenant()
    limit, cursor = _page_args()
    return _json(200, container.customer_service().list(tenant, limit, cursor))


@app.get("/v1/customers/<uid>")
def get_customer(uid: str) -> Response:
    return _json(200, container.customer_service().get(_tenant(), uid))


@app.delete("/v1/customers/<uid>")
def delete_customer(uid: str) -> Response:
    container.customer_service().delete(_tenant(), uid)
    return Response(status_code=204, body="")


@app.get("/v1/customers/<uid>/stats")
def customer_stats(uid: str) -> Response:
    params = _query()
    return _json(200, container.customer_service().stats(_tenant(), uid, params))


@app.post("/v1/events")
def create_event() -> Response:
    tenant = _tenant()
    return _json(202, container.event_service().accept(tenant, _body()))


@app.post("/v1/events/batch")
def create_events() -> Response:
    tenant = _tenant()
    results = container.event_service().accept_batch(tenant, _body(get_settings().max_batch_bytes))
    accepted = sum(1 for r in results if r["status"] == 202)
    if all(r["status"] == 503 for r in results):
        # Nothing got through (DynamoDB or SQS down): the same answer as the single route, so clients retry.
        raise Unavailable("no event of the batch could be stored and queued; repeat the request (events with an id are idempotent)")
    # 202 when every event was accepted; 207 (look at each result) when some were not.
    return _json(202 if accepted == len(results) else 207, {"accepted": accepted, "failed": len(results) - accepted, "results": results})


@app.get("/v1/events/<event_id>")
def get_event(event_id: str) -> Response:
    return _json(200, container.event_service().describe(_tenant(), event_id))


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
