"""The HTTP API (v1): one Powertools resolver with request validation, and a Router per resource.

Every route parses its request against its models (hookline.core.contract),
makes one service call, and answers a model. Every error becomes a response
here and only here, its body the envelope of hookline.core.errors. The
tenant comes from the Lambda authorizer's context, never from the request,
so every route is scoped to the caller: the producer (an API key) or one
customer (a portal session). Every /v1 route declares its access with
`@allow` (hookline.entrypoints.api.routing), checked before its request is
validated. Building the resolver does no I/O; services are created on
first use. The OpenAPI document is generated from these routes
(hookline.entrypoints.api.document, `make openapi`).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError

from hookline.adapters import metrics
from hookline.adapters.observability import get_logger
from hookline.core.errors import DependencyFailed, HooklineError, MethodNotAllowed, NotFound, Unavailable
from hookline.entrypoints.api import catalog, customers, endpoints, events, filters, jobs, portal
from hookline.entrypoints.api.routing import RequestContract, contract_error, respond

ROUTERS = (portal.router, catalog.router, endpoints.router, filters.router, events.router, customers.router, jobs.router)


def build() -> APIGatewayHttpResolver:
    """The resolver with every resource's routes, hookline's request contract and its error answers."""
    resolver = APIGatewayHttpResolver(enable_validation=True)
    # Powertools validates a request in this middleware, first of all; hookline's checks (the caller's access, the
    # body's bytes) run in it, before the validation (pinned Powertools; the access tests fail if this breaks).
    resolver._request_validation_middleware = RequestContract()
    for router in ROUTERS:
        resolver.include_router(router)

    def error_response(error: HooklineError) -> Response:
        response = respond(error.status, error.envelope())
        if isinstance(error, MethodNotAllowed):
            response.headers["Allow"] = ", ".join(error.allow)
        return response

    @resolver.exception_handler(HooklineError)
    def _domain_error(exc: HooklineError) -> Response:
        return error_response(exc)

    @resolver.exception_handler(DependencyFailed)
    def _dependency(exc: DependencyFailed) -> Response:
        """A dependency failed after the SDK's retries, on a route whose service gave it no meaning of its own: 503,
        repeat the request (a refused or failed write changed nothing)."""
        get_logger().warning("dependency failed", extra={"cause": exc.cause})
        return error_response(Unavailable(f"a dependency failed ({exc.cause}); repeat the request"))

    @resolver.exception_handler(RequestValidationError)
    def _invalid(exc: RequestValidationError) -> Response:
        return error_response(contract_error(list(exc.errors())))

    @resolver.exception_handler(NotFoundError)
    def _no_route(exc: NotFoundError) -> Response:
        """404 for a path hookline does not serve; 405 with `Allow` for one it serves with other methods."""
        path, method = resolver.current_event.path, resolver.current_event.http_method.upper()
        matching = [r for r in (*resolver._static_routes, *resolver._dynamic_routes) if r.rule.fullmatch(path)]
        # Only the methods of the route the path names, its most specific template: `/v1/events/broadcast` is that
        # route (POST), not `/v1/events/<event_id>` (GET) with "broadcast" for an id.
        fewest = min((r.path.count("<") for r in matching), default=0)
        allowed = sorted({r.method.upper() for r in matching if r.path.count("<") == fewest})
        if not allowed:
            return error_response(NotFound("no such route"))
        return error_response(MethodNotAllowed(f"{method} is not served at {path[:128]}: use {', '.join(allowed)}", allow=tuple(allowed)))

    @resolver.exception_handler(Exception)
    def _unexpected(exc: Exception) -> Response:
        get_logger().exception("unhandled error")
        return error_response(HooklineError("internal error"))

    return resolver


app = build()


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The route's answer; a 5xx is counted (`ServerErrors`, by version), which a canary of this function rolls back on."""
    answer = app.resolve(event, context)
    if int(answer.get("statusCode", 200)) >= 500:
        metrics.server_error()
    return answer
