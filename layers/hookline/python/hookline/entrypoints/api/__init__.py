"""The HTTP API (v1): one Powertools resolver with request validation, and a Router per resource.

Every route parses its request against its models (hookline.core.contract),
makes one service call, and answers a model. Every error becomes a response
here and only here, its body the envelope of hookline.core.errors. The
tenant comes from the Lambda authorizer's context, never from the request,
so every route is scoped to the caller: the producer (an API key) or one
customer (a portal session). Every /v1 route declares its access with
`@allow` (hookline.entrypoints.api.routing), checked before its request is
validated by the route's own middleware. Building the resolver does no I/O; services are created on
first use. A router's module (and its request models) is imported when a request first names one of its paths
(`ROUTERS`): a cold start pays for the routes it serves, not for every route. The OpenAPI document is generated from
these routes (hookline.entrypoints.api.document, `make openapi`).
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEventV2

from hookline.adapters import metrics
from hookline.adapters.observability import get_logger
from hookline.core.errors import DependencyFailed, HooklineError, MethodNotAllowed, NotFound, Unavailable
from hookline.entrypoints.api.routing import Router, Served, allowed_methods, as_json_request, contract_error, respond

# The router modules (hookline.entrypoints.api.<name>), in the order the resolver takes them.
MODULES = ("portal", "catalog", "endpoints", "filters", "events", "customers", "jobs")
# Which modules serve the paths under a key: a path's first segment, its first two under /v1 (`key_of`). Every route a
# module registers is under a key that names it (tests/unit/test_route_contract.py), so a request's own routes, and
# every method served at its path (the 405's `Allow`), are loaded before it is resolved.
ROUTERS: dict[str, tuple[str, ...]] = {
    "health": ("portal",),
    "portal": ("portal",),
    "v1/session": ("portal",),
    "v1/portal-settings": ("portal",),
    "v1/customers": ("portal", "customers"),
    "v1/event-types": ("catalog",),
    "v1/versions": ("catalog",),
    "v1/endpoints": ("endpoints", "events", "jobs"),
    "v1/jwks": ("endpoints",),
    "v1/filters": ("filters",),
    "v1/events": ("events",),
    "v1/jobs": ("jobs",),
    "v1/replays": ("jobs",),
}
_included: dict[str, Router] = {}
_including = threading.Lock()  # local mode serves requests on threads


def key_of(path: str) -> str:
    """The key of ROUTERS a path falls under: `/v1/endpoints/ep_1/test` is `v1/endpoints`, `/portal/app.js` `portal`."""
    segments = path.strip("/").split("/")
    return "/".join(segments[:2]) if segments[0] == "v1" else segments[0]


def include(names: tuple[str, ...]) -> None:
    """The routes of the router modules `names` on the resolver, each module imported and included once."""
    if all(name in _included for name in names):
        return
    with _including:
        for name in sorted(set(names) - set(_included), key=MODULES.index):
            router = importlib.import_module(f"{__name__}.{name}").router
            app.include_router(router)
            _included[name] = router


def served() -> tuple[Served, ...]:
    """Every route the API serves, as its router registered it (the access and document tests, the document), every
    router module imported."""
    include(MODULES)
    return tuple(s for name in MODULES for s in _included[name].served)


def _served_so_far() -> tuple[Served, ...]:
    return tuple(s for router in list(_included.values()) for s in router.served)


def build() -> APIGatewayHttpResolver:
    """The resolver with every resource's routes, hookline's request contract and its error answers."""
    # Validation on: the document's operations are generated as validated ones. Each route validates its request in
    # its own middleware (routing.RouteContract), after hookline's checks.
    resolver = APIGatewayHttpResolver(enable_validation=True)

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

    @resolver.not_found
    def _no_route(_: Exception) -> Response:
        """404 for a path hookline does not serve; 405 with `Allow` for one it serves with other methods."""
        path, method = resolver.current_event.path, resolver.current_event.http_method.upper()
        allowed = allowed_methods(_served_so_far(), path)  # every route under the path's key is loaded (`handle`)
        # The method is served there, yet no route took the request: its path holds characters no route parameter
        # takes (Powertools' rule is narrower than one segment), so no route serves this path.
        if not allowed or method in allowed:
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
    request = as_json_request(event)
    include(ROUTERS.get(key_of(APIGatewayProxyEventV2(request).path), ()))  # the path as the resolver reads it
    answer = app.resolve(request, context)
    if int(answer.get("statusCode", 200)) >= 500:
        metrics.server_error()
    return answer
