"""The HTTP API (v1): routes parse, make one service call, and respond.

Every error becomes a response here and only here, its body the envelope of
hookline.core.errors (a bad cursor is a domain error too). The tenant comes
from the Lambda authorizer's context, never from the request, so every route
is scoped to the caller. The caller is the producer (an API key) or one
customer (a portal session): every /v1 route declares its access with
`@allow` (read, write, producer only) and which resource its path names, and
a session passes only for its own customer's (hookline.core.access,
hookline.services.access). Building the resolver does no I/O; services are
created on first use.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError

from hookline.adapters.observability import get_logger
from hookline.adapters.system import utcnow
from hookline.core import validation
from hookline.core.access import Access, Principal
from hookline.core.errors import BadRequest, HooklineError, MethodNotAllowed, NotFound, Unauthorized, Unavailable
from hookline.core.portal import tenant_param
from hookline.entrypoints import portal
from hookline.wiring import container
from hookline.wiring.settings import get_settings

app = APIGatewayHttpResolver()


def _json(status: int, body: Any) -> Response:
    return Response(status_code=status, content_type="application/json", body=json.dumps(body, separators=(",", ":")))


def error_response(error: HooklineError) -> Response:
    return _json(error.status, error.envelope())


def _authorizer_context() -> dict[str, Any]:
    ctx = app.current_event.raw_event.get("requestContext", {}).get("authorizer", {}) or {}
    return ctx.get("lambda") or {}


def _tenant() -> str:
    value = _authorizer_context().get("tenant")
    if not isinstance(value, str) or not value:
        raise Unauthorized("missing or invalid API key")
    return value


def _principal() -> Principal:
    """The caller, from the authorizer's context: the producer, or a portal session of one customer.

    API Gateway caches the authorizer's answer, so a session's expiry is checked here, on every request.
    """
    ctx = _authorizer_context()
    tenant = _tenant()
    if "customer" not in ctx:
        return Principal(tenant)
    customer = ctx["customer"]
    if not isinstance(customer, str) or not customer:  # fail closed: never the producer by mistake
        raise Unauthorized("invalid portal session")
    raw_expiry = ctx.get("expires_at")
    expires_at = float(raw_expiry) if isinstance(raw_expiry, int | float) and not isinstance(raw_expiry, bool) else 0.0
    if utcnow().timestamp() >= expires_at:
        raise Unauthorized("this portal session has expired; ask for a new link", code="session_expired")
    return Principal(tenant, customer, ctx.get("read_only") in (True, "true"), expires_at)


# The resource a route's path names, which a portal session must own: checked before the route runs.
Resource = Callable[[Principal, dict[str, str]], None]


def _endpoint(who: Principal, params: dict[str, str]) -> None:
    container.access_guard().endpoint(who, params["endpoint_id"])


def _event(who: Principal, params: dict[str, str]) -> None:
    container.access_guard().event(who, params["event_id"])


def _delivery(who: Principal, params: dict[str, str]) -> None:
    container.access_guard().delivery(who, params["event_id"], params["delivery_id"])


def _replay(who: Principal, params: dict[str, str]) -> None:
    container.access_guard().replay(who, params["replay_id"])


def _job(who: Principal, params: dict[str, str]) -> None:
    container.access_guard().job(who, params["job_id"])


def _event_type(who: Principal, params: dict[str, str]) -> None:
    container.access_guard().event_type(who, params["name"])


Route = TypeVar("Route", bound=Callable[..., Response])


def allow(access: Access, resource: Resource | None = None) -> Callable[[Route], Route]:
    """Declare a route's access: who may call it, and which resource of its path a portal session must own."""

    def decorate(route: Route) -> Route:
        @functools.wraps(route)
        def guarded(**params: str) -> Response:
            who = _principal()
            who.require(access)
            if resource is not None:
                resource(who, params)
            app.append_context(principal=who)
            return route(**params)

        guarded.access = access  # type: ignore[attr-defined]  # read by the test that every /v1 route declares one
        return guarded  # type: ignore[return-value]

    return decorate


def _caller() -> Principal:
    who = app.context.get("principal")
    assert isinstance(who, Principal), "a route without @allow"
    return who


def _origin() -> str:
    """Where this API answers, for the portal links it hands out (HOOKLINE_PORTAL_BASE_URL overrides it)."""
    base = get_settings().portal_base
    if base:
        return base
    headers = app.current_event.headers or {}
    scheme = headers.get("x-forwarded-proto") or "https"
    return f"{scheme}://{app.current_event.request_context.domain_name}"


def _body(max_bytes: int | None = None, optional: bool = False) -> dict[str, Any]:
    raw_event = app.current_event.raw_event
    raw = raw_event.get("body") or ""
    if optional and not raw:
        return {}
    try:
        data = base64.b64decode(raw, validate=True) if raw_event.get("isBase64Encoded") else raw.encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        raise BadRequest("request body is not valid base64 or UTF-8", code="malformed_body") from None
    return validation.parse_json_object(data, max_bytes or get_settings().max_event_bytes)


def _query() -> dict[str, str]:
    return validation.query_values(app.current_event.query_string_parameters)


def _page_args() -> tuple[int, str | None]:
    params = _query()
    return validation.page_limit(params.get("limit"), get_settings().page_limit_max), params.get("cursor")


@app.exception_handler(HooklineError)
def _domain_error(exc: HooklineError) -> Response:
    return error_response(exc)


@app.exception_handler(NotFoundError)
def _no_route(exc: NotFoundError) -> Response:
    """404 for a path hookline does not serve; 405 with `Allow` for one it serves with other methods."""
    path, method = app.current_event.path, app.current_event.http_method.upper()
    matching = [r for r in (*app._static_routes, *app._dynamic_routes) if r.rule.fullmatch(path)]
    # Only the methods of the route the path names, its most specific template: `/v1/events/broadcast` is that
    # route (POST), not `/v1/events/<event_id>` (GET) with "broadcast" for an id.
    fewest = min((r.path.count("<") for r in matching), default=0)
    allowed = sorted({r.method.upper() for r in matching if r.path.count("<") == fewest})
    if not allowed:
        return error_response(NotFound("no such route"))
    refused = MethodNotAllowed(f"{method} is not served at {path[:128]}: use {', '.join(allowed)}", allow=tuple(allowed))
    response = error_response(refused)
    response.headers["Allow"] = ", ".join(refused.allow)
    return response


@app.exception_handler(Exception)
def _unexpected(exc: Exception) -> Response:
    get_logger().exception("unhandled error")
    return error_response(HooklineError("internal error"))


@app.get("/health")
def health() -> Response:
    return _json(200, {"status": "ok"})


@app.get("/portal")
def portal_page() -> Response:
    """The customer portal (no key: the page calls the API with the session token from its URL fragment)."""
    return portal.page(container.portal_service().page_settings(tenant_param(_query().get("t"))))


@app.get("/portal/<name>")
def portal_asset(name: str) -> Response:
    return portal.asset(name)


@app.get("/v1/session")
@allow(Access.READ)
def get_session() -> Response:
    return _json(200, container.portal_service().whoami(_caller()))


@app.get("/v1/portal-settings")
@allow(Access.PRODUCER)
def get_portal_settings() -> Response:
    return _json(200, container.portal_service().settings(_tenant()))


@app.put("/v1/portal-settings")
@allow(Access.PRODUCER)
def put_portal_settings() -> Response:
    tenant = _tenant()
    return _json(200, container.portal_service().put_settings(tenant, _body()))


@app.get("/v1/event-types")
@allow(Access.READ)
def list_event_types() -> Response:
    """A portal session lists only the types its customer sees: those its endpoints name and those sent to it."""
    limit, cursor = _page_args()
    only = container.access_guard().event_types(_caller())
    return _json(200, container.catalog_service().list_types(_tenant(), limit, cursor, only))


@app.get("/v1/event-types/<name>")
@allow(Access.READ, _event_type)
def get_event_type(name: str) -> Response:
    return _json(200, container.catalog_service().get_type(_tenant(), name))


@app.put("/v1/event-types/<name>")
@allow(Access.PRODUCER)
def put_event_type(name: str) -> Response:
    tenant = _tenant()
    event_type, created = container.catalog_service().put_type(tenant, name, _body())
    return _json(201 if created else 200, event_type)


@app.get("/v1/versions")
@allow(Access.READ)
def list_versions() -> Response:
    """A portal session sees the versions; the producer also sees who still uses each (it spans every customer)."""
    return _json(200, container.catalog_service().versions(_tenant(), with_usage=_caller().is_producer))


@app.put("/v1/versions/<version>")
@allow(Access.PRODUCER)
def put_version(version: str) -> Response:
    tenant = _tenant()
    stored, created = container.catalog_service().put_version(tenant, version, _body(optional=True))
    return _json(201 if created else 200, stored)


@app.post("/v1/endpoints")
@allow(Access.WRITE)
def create_endpoint() -> Response:
    tenant, body = _tenant(), _body()
    if not _caller().is_producer:
        body = {**body, "customer": container.access_guard().owner(_caller(), body.get("customer"))}
    return _json(201, container.endpoint_service().create(tenant, body))


@app.get("/v1/endpoints")
@allow(Access.READ)
def list_endpoints() -> Response:
    tenant = _tenant()
    limit, cursor = _page_args()
    customer = container.access_guard().owner(_caller(), _query().get("customer"))
    return _json(200, container.endpoint_service().list(tenant, limit, cursor, customer))


@app.get("/v1/endpoints/<endpoint_id>")
@allow(Access.READ, _endpoint)
def get_endpoint(endpoint_id: str) -> Response:
    return _json(200, container.endpoint_service().describe(_tenant(), endpoint_id))


@app.get("/v1/endpoints/<endpoint_id>/secret")
@allow(Access.READ, _endpoint)
def get_secret(endpoint_id: str) -> Response:
    return _json(200, container.endpoint_service().secret(_tenant(), endpoint_id))


@app.post("/v1/endpoints/<endpoint_id>/secret/rotate")
@allow(Access.WRITE, _endpoint)
def rotate_secret(endpoint_id: str) -> Response:
    return _json(200, container.endpoint_service().rotate_secret(_tenant(), endpoint_id))


@app.post("/v1/endpoints/<endpoint_id>/test")
@allow(Access.WRITE, _endpoint)
def test_endpoint(endpoint_id: str) -> Response:
    return _json(200, container.endpoint_service().test(_tenant(), endpoint_id))


@app.post("/v1/endpoints/<endpoint_id>/enable")
@allow(Access.WRITE, _endpoint)
def enable_endpoint(endpoint_id: str) -> Response:
    return _json(200, container.endpoint_service().enable(_tenant(), endpoint_id))


@app.patch("/v1/endpoints/<endpoint_id>")
@allow(Access.WRITE, _endpoint)
def patch_endpoint(endpoint_id: str) -> Response:
    tenant = _tenant()
    body = container.access_guard().endpoint_change(_caller(), _body())
    return _json(200, container.endpoint_service().update(tenant, endpoint_id, body).public())


@app.delete("/v1/endpoints/<endpoint_id>")
@allow(Access.WRITE, _endpoint)
def delete_endpoint(endpoint_id: str) -> Response:
    container.endpoint_service().delete(_tenant(), endpoint_id)
    return Response(status_code=204, body="")


@app.get("/v1/endpoints/<endpoint_id>/deliveries")
@allow(Access.READ, _endpoint)
def list_endpoint_deliveries(endpoint_id: str) -> Response:
    tenant = _tenant()
    limit, _ = _page_args()
    params = _query()
    return _json(200, container.event_service().deliveries_of(tenant, endpoint_id, params, limit))


@app.get("/v1/endpoints/<endpoint_id>/failures")
@allow(Access.READ, _endpoint)
def endpoint_failures(endpoint_id: str) -> Response:
    return _json(200, container.event_service().failures(_tenant(), endpoint_id, _query()))


@app.get("/v1/endpoints/<endpoint_id>/stats")
@allow(Access.READ, _endpoint)
def endpoint_stats(endpoint_id: str) -> Response:
    params = _query()
    return _json(200, container.endpoint_service().stats(_tenant(), endpoint_id, params))


@app.post("/v1/endpoints/<endpoint_id>/replay")
@allow(Access.WRITE, _endpoint)
def replay_endpoint(endpoint_id: str) -> Response:
    tenant = _tenant()
    return _json(202, container.replay_service().start(tenant, endpoint_id, _body()))


@app.get("/v1/replays/<replay_id>")
@allow(Access.READ, _replay)
def get_replay(replay_id: str) -> Response:
    return _json(200, container.replay_service().describe(_tenant(), replay_id))


@app.get("/v1/events/<event_id>/deliveries/<delivery_id>")
@allow(Access.READ, _delivery)
def get_delivery(event_id: str, delivery_id: str) -> Response:
    return _json(200, container.event_service().delivery(_tenant(), event_id, delivery_id))


@app.post("/v1/events/<event_id>/deliveries/<delivery_id>/retry")
@allow(Access.WRITE, _delivery)
def retry_delivery(event_id: str, delivery_id: str) -> Response:
    return _json(202, container.event_service().retry(_tenant(), event_id, delivery_id))


@app.put("/v1/customers/<uid>")
@allow(Access.PRODUCER)
def put_customer(uid: str) -> Response:
    tenant = _tenant()
    customer, created = container.customer_service().put(tenant, uid, _body())
    return _json(201 if created else 200, customer)


@app.get("/v1/customers")
@allow(Access.PRODUCER)
def list_customers() -> Response:
    tenant = _tenant()
    limit, cursor = _page_args()
    return _json(200, container.customer_service().list(tenant, limit, cursor))


@app.get("/v1/customers/<uid>")
@allow(Access.PRODUCER)
def get_customer(uid: str) -> Response:
    return _json(200, container.customer_service().get(_tenant(), uid))


@app.delete("/v1/customers/<uid>")
@allow(Access.PRODUCER)
def delete_customer(uid: str) -> Response:
    """202: the customer is gone; its endpoints go by the job the answer names (`{"job": {"id", "status"}}`)."""
    return _json(202, {"job": container.customer_service().delete(_tenant(), uid)})


@app.get("/v1/jobs/<job_id>")
@allow(Access.READ, _job)
def get_job(job_id: str) -> Response:
    return _json(200, container.job_runner().describe(_tenant(), job_id))


@app.post("/v1/jobs/<job_id>/resume")
@allow(Access.PRODUCER)
def resume_job(job_id: str) -> Response:
    return _json(202, container.job_runner().resume(_tenant(), job_id))


@app.get("/v1/customers/<uid>/stats")
@allow(Access.PRODUCER)
def customer_stats(uid: str) -> Response:
    params = _query()
    return _json(200, container.customer_service().stats(_tenant(), uid, params))


@app.post("/v1/customers/<uid>/portal-sessions")
@allow(Access.PRODUCER)
def create_portal_session(uid: str) -> Response:
    tenant = _tenant()
    return _json(201, container.session_service().issue(tenant, uid, _body(optional=True), _origin()))


@app.delete("/v1/customers/<uid>/portal-sessions")
@allow(Access.PRODUCER)
def revoke_portal_sessions(uid: str) -> Response:
    container.session_service().revoke(_tenant(), uid)
    return Response(status_code=204, body="")


@app.post("/v1/events")
@allow(Access.PRODUCER)
def create_event() -> Response:
    tenant = _tenant()
    return _json(202, container.event_service().accept(tenant, _body()))


@app.post("/v1/events/batch")
@allow(Access.PRODUCER)
def create_events() -> Response:
    tenant = _tenant()
    results = container.event_service().accept_batch(tenant, _body(get_settings().max_batch_bytes))
    accepted = sum(1 for r in results if r["status"] == 202)
    if all(r["status"] == 503 for r in results):
        # Nothing got through (DynamoDB or SQS down): the same answer as the single route, so clients retry.
        raise Unavailable("no event of the batch could be stored and queued; repeat the request (events with an id are idempotent)")
    # 202 when every event was accepted; 207 (look at each result) when some were not.
    return _json(202 if accepted == len(results) else 207, {"accepted": accepted, "failed": len(results) - accepted, "results": results})


@app.post("/v1/events/broadcast")
@allow(Access.PRODUCER)
def broadcast_event() -> Response:
    tenant = _tenant()
    return _json(202, container.broadcast_service().start(tenant, _body()))


@app.get("/v1/events/<event_id>")
@allow(Access.READ, _event)
def get_event(event_id: str) -> Response:
    tenant = _tenant()
    limit, cursor = _page_args()  # a broadcast's page of deliveries
    return _json(200, container.event_service().describe(tenant, event_id, limit, cursor, viewer=_caller().customer))


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
