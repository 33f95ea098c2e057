"""What every route shares: who calls (the authorizer's context), what it may do (`@allow`), and how its body is read.

A route declares its access with `@allow` (read, write, producer only), which
resource of its path a portal session must own, and the largest body it
takes. Every route is registered through `Router`, which gives it its
contract (`RouteContract`) as a route middleware: those checks run before
Powertools validates the request against the route's models, so a caller
that may not use a route learns nothing from its body's validation; and the
body is judged by hookline's rules (size first, strict JSON, an object),
whatever the request's content type says. Validation errors become
hookline's error envelope (`contract_error`), never Powertools' default
answer. Only Powertools' public interface is used (a test reads the runtime
for its private names).
"""

from __future__ import annotations

import base64
import binascii
import importlib.util
import inspect
import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar, get_type_hints

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.middlewares.openapi_validation import OpenAPIRequestValidationMiddleware, OpenAPIResponseValidationMiddleware
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter
from pydantic import BaseModel

from hookline.adapters.system import utcnow
from hookline.core import validation
from hookline.core.access import Access, Principal
from hookline.core.apikeys import bearer_key
from hookline.core.errors import BadRequest, HooklineError, NotFound, Unauthorized, ValidationFailed
from hookline.core.settings import Settings
from hookline.wiring.settings import get_settings


def lazy_module(name: str) -> ModuleType:
    """The module `name`, its code run when one of its attributes is first read (importlib.util.LazyLoader), not now;
    the module itself if it is imported already. The same module object either way, so patching it patches it."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.loader is not None, name
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    setattr(sys.modules[parent], child, module)
    return module


# The composition root builds the services and imports every adapter (and through them the SDK's exceptions): the
# routes need it when a request first reaches one, not at the cold start's import.
if TYPE_CHECKING:
    from hookline.wiring import container
else:
    container = lazy_module("hookline.wiring.container")

# The resource a route's path names, which a portal session must own: checked before the route runs.
Resource = Callable[[Principal, Mapping[str, str]], None]
# The largest body a route takes, from the settings.
BodyLimit = Callable[[Settings], int]

JSON = "application/json"
_CALLER: ContextVar[Principal] = ContextVar("hookline_caller")


@dataclass(frozen=True)
class Declared:
    """A route's declaration (`@allow`), kept on its function for the contract middleware and the document."""

    access: Access
    resource: str | None  # the path parameter a portal session must own (its kind is the checker's)
    check: Resource | None
    body_limit: BodyLimit


def _event_bytes(settings: Settings) -> int:
    return settings.max_event_bytes


def _endpoint(who: Principal, params: Mapping[str, str]) -> None:
    container.access_guard().endpoint(who, params["endpoint_id"])


def _polled(who: Principal, params: Mapping[str, str]) -> None:
    """A poll token polls its own endpoint only (another's is 404, as if it did not exist); a session, its customer's."""
    if who.poll_endpoint:
        if who.poll_endpoint != params["endpoint_id"]:
            raise NotFound(f"endpoint {params['endpoint_id'][:64]} not found")
        return
    _endpoint(who, params)


def _event(who: Principal, params: Mapping[str, str]) -> None:
    container.access_guard().event(who, params["event_id"])


def _delivery(who: Principal, params: Mapping[str, str]) -> None:
    container.access_guard().delivery(who, params["event_id"], params["delivery_id"])


def _replay(who: Principal, params: Mapping[str, str]) -> None:
    container.access_guard().replay(who, params["replay_id"])


def _job(who: Principal, params: Mapping[str, str]) -> None:
    container.access_guard().job(who, params["job_id"])


def _event_type(who: Principal, params: Mapping[str, str]) -> None:
    container.access_guard().event_type(who, params["name"])


# What a portal session must own, by the path parameter that names it.
OWNED: dict[str, Resource] = {
    "endpoint": _endpoint,
    "polled_endpoint": _polled,
    "event": _event,
    "delivery": _delivery,
    "replay": _replay,
    "job": _job,
    "event_type": _event_type,
}

Route = TypeVar("Route", bound=Callable[..., Any])


def allow(access: Access, owns: str | None = None, body_limit: BodyLimit = _event_bytes) -> Callable[[Route], Route]:
    """Declare a route's access: who may call it, which resource of its path (OWNED) a portal session must own,
    and the largest body it takes (the event limit unless it says otherwise)."""

    def declare(route: Route) -> Route:
        route.declared = Declared(access, owns, OWNED[owns] if owns else None, body_limit)  # type: ignore[attr-defined]
        return route

    return declare


def declared(func: Callable[..., Any]) -> Declared | None:
    found = getattr(func, "declared", None)
    return found if isinstance(found, Declared) else None


def _authorizer_context(raw_event: Mapping[str, Any]) -> dict[str, Any]:
    ctx = raw_event.get("requestContext", {}).get("authorizer", {}) or {}
    return ctx.get("lambda") or {}


def principal_of(raw_event: Mapping[str, Any]) -> Principal:
    """The caller, from the authorizer's context: the producer, or a portal session of one customer.

    API Gateway caches the authorizer's answer, so a session's expiry is checked here, on every request (and its
    customer by `PortalSessionService.confirm`, which RouteContract calls next).
    """
    ctx = _authorizer_context(raw_event)
    tenant = ctx.get("tenant")
    if not isinstance(tenant, str) or not tenant:
        raise Unauthorized("missing or invalid API key")
    polled = ctx.get("poll_endpoint")
    if polled is not None:  # a poll token's answer: its one endpoint, never the producer (fail closed)
        if not isinstance(polled, str) or not polled:
            raise Unauthorized("invalid poll token")
        return Principal(tenant, poll_endpoint=polled)
    if "customer" not in ctx:
        return Principal(tenant)
    customer = ctx["customer"]
    if not isinstance(customer, str) or not customer:  # fail closed: never the producer by mistake
        raise Unauthorized("invalid portal session")
    raw_expiry = ctx.get("expires_at")
    expires_at = float(raw_expiry) if isinstance(raw_expiry, int | float) and not isinstance(raw_expiry, bool) else 0.0
    if utcnow().timestamp() >= expires_at:
        raise Unauthorized("this portal session has expired; ask for a new link", code="session_expired")
    # An answer the previous release's authorizer gave (cached for at most a minute) has no `customer_since`: `confirm`
    # then authenticates the request's token again.
    since = ctx.get("customer_since")
    return Principal(tenant, customer, ctx.get("read_only") in (True, "true"), expires_at, since if isinstance(since, str) else "")


def caller() -> Principal:
    """The principal of the request being served (known to a declared route while it runs: `RouteContract`)."""
    who = _CALLER.get(None)
    assert who is not None, "a /v1 route without @allow"
    return who


def read_body(raw_event: Mapping[str, Any], max_bytes: int) -> dict[str, Any]:
    """The request's body by hookline's rules: at most `max_bytes`, valid base64 and UTF-8, strict JSON, an object."""
    raw = raw_event.get("body") or ""
    try:
        data = base64.b64decode(raw, validate=True) if raw_event.get("isBase64Encoded") else raw.encode("utf-8")
    except (ValueError, binascii.Error, UnicodeEncodeError):
        raise BadRequest("request body is not valid base64 or UTF-8", code="malformed_body") from None
    return validation.parse_json_object(data, max_bytes)


def as_json_request(raw_event: Mapping[str, Any]) -> dict[str, Any]:
    """The event as Powertools is to resolve it: its body read as JSON, whatever its `content-type` says.

    Powertools parses a body by that header (a form, a multipart upload, or a refusal); hookline takes JSON only and
    judges the bytes by its own rules first (`RouteContract`), so the event handed on names JSON. The caller's event
    is not changed.
    """
    headers = {k: v for k, v in (raw_event.get("headers") or {}).items() if k.lower() != "content-type"}
    return {**raw_event, "headers": {**headers, "content-type": JSON}}


@dataclass(frozen=True)
class Reads:
    """What a route function reads of a request, from its signature: the query parameters it names, and whether it
    takes a body (`body`) and may be called without one (`body_optional`)."""

    query: frozenset[str]
    body: bool
    body_optional: bool


def reads_of(func: Callable[..., Any]) -> Reads:
    """The request parts a route reads, by the `Query`/`Body` markers of its parameters (as Powertools reads them)."""
    query: set[str] = set()
    body, optional = False, False
    hints = get_type_hints(func, include_extras=True)
    for name, param in inspect.signature(func).parameters.items():
        for marker in getattr(hints.get(name), "__metadata__", ()):
            if isinstance(marker, Query):
                query.add(marker.alias or name)
            elif isinstance(marker, Body):
                body = True
                optional = param.default is not inspect.Parameter.empty or not marker.is_required()
    return Reads(frozenset(query), body, optional)


class RouteContract(OpenAPIRequestValidationMiddleware):
    """A route's middleware: hookline's checks, then Powertools' request validation against the route's models.

    First an empty query value the route reads (`?since=`) is refused rather than taken as absent (one it does not
    read is ignored, as with a value); then the caller (`@allow`): who it is, that it may use the route and owns the
    resource its path names; then the body's bytes (size first, strict JSON, an object). So a caller that may not use
    a route learns nothing from its body's validation. The caller is known to `caller()` while the route runs.
    """

    def __init__(self, declared: Declared | None, reads: Reads):
        super().__init__()
        self.declared = declared
        self.reads = reads

    def handler(self, app: Any, next_middleware: Any) -> Response:
        event = app.current_event
        validation.query_values({k: v for k, v in (event.query_string_parameters or {}).items() if k in self.reads.query})
        if self.declared is None:
            return self.validate(app, next_middleware)
        who = principal_of(event.raw_event)
        if who.customer is not None:  # a portal session: its customer must still be the one it was made for
            who = container.session_service().confirm(who, bearer_key(event.raw_event.get("headers")))
        who.require(self.declared.access)
        if self.declared.check is not None:
            self.declared.check(who, app.request.path_parameters)
        held = _CALLER.set(who)
        try:
            return self.validate(app, next_middleware)
        finally:
            _CALLER.reset(held)

    def validate(self, app: Any, next_middleware: Any) -> Response:
        raw_event = app.current_event.raw_event
        if self.reads.body and (raw_event.get("body") or not self.reads.body_optional):
            limit = self.declared.body_limit if self.declared else _event_bytes
            read_body(raw_event, limit(get_settings()))
        return super().handler(app, next_middleware)


class Router(APIGatewayHttpRouter):
    """Powertools' router, each route registered with its contract (`RouteContract`) and Powertools' response
    validation as its own middlewares, in that order (the route's `enable_validation` is off, since the contract
    validates the request itself, after hookline's checks). `served` lists what it registered."""

    def __init__(self) -> None:
        super().__init__()
        self.served: list[Served] = []

    def route(self, *args: Any, **kwargs: Any) -> Callable[[Route], Route]:
        given = _ROUTE_SIGNATURE.bind(self, *args, **kwargs).arguments
        given.pop("self")
        register = super().route

        def with_contract(func: Route) -> Route:
            found = declared(func)
            contract = [RouteContract(found, reads_of(func)), OpenAPIResponseValidationMiddleware()]
            methods = (given["method"],) if isinstance(given["method"], str) else tuple(given["method"])
            self.served += [Served(m.upper(), given["rule"], found) for m in methods]
            options = {**given, "enable_validation": False, "middlewares": [*contract, *(given.get("middlewares") or [])]}
            return register(**options)(func)

        return with_contract


_ROUTE_SIGNATURE = inspect.signature(APIGatewayHttpRouter.route)
# A path parameter as Powertools matches one: word characters and RFC 3986's, those API Gateway decodes included.
SEGMENT = r"[-._~()'!*:@,;=+&$%<> \[\]{}|^\w]+"


@dataclass(frozen=True)
class Served:
    """A route as a router registered it: its method, its path (`/v1/endpoints/<endpoint_id>`) and its `@allow`."""

    method: str
    path: str
    declared: Declared | None

    @property
    def template(self) -> re.Pattern[str]:
        """The paths it names, a parameter one segment of the characters Powertools takes in one."""
        return re.compile(re.sub(r"<\w+>", lambda _: SEGMENT, self.path))


def allowed_methods(routes: Iterable[Served], path: str) -> tuple[str, ...]:
    """The methods served at `path`: those of its most specific route template (`/v1/events/broadcast` is that
    route's, POST, not `/v1/events/<event_id>`'s GET with "broadcast" for an id)."""
    matching = [r for r in routes if r.template.fullmatch(path)]
    fewest = min((r.path.count("<") for r in matching), default=0)
    return tuple(sorted({r.method for r in matching if r.path.count("<") == fewest}))


# -- validation errors, in hookline's envelope --------------------------------------------------------------------

_JSON_TYPES = {
    "string": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "a boolean",
    "dict": "an object",
    "list": "an array",
    "model": "an object",
    "none": "null",
}


def _field(loc: Iterable[Any]) -> str:
    """The field an error names, dotted from the body's top (`limits.max_concurrency`, `events[2].type`)."""
    parts = [p for p in loc if p not in ("body", "query", "path", "header")]
    shown = ""
    for part in parts:
        shown += f"[{part}]" if isinstance(part, int) else (f".{part}" if shown else str(part))
    return shown


def contract_error(errors: list[dict[str, Any]]) -> HooklineError:
    """The first of a request's validation errors, as hookline answers it.

    A model's own rules raise hookline's errors directly; what pydantic finds by the schema is mapped here to the
    same codes the rules use: `missing_field`, `wrong_type`, `unknown_field`, else `validation_failed`.
    """
    if not errors:
        return ValidationFailed("the request is not valid")
    unknown = sorted({_field(e["loc"]) for e in errors if e["type"] == "extra_forbidden"})
    first = errors[0]
    kind, name = first["type"], _field(first["loc"])
    where = first["loc"][0] if first["loc"] else "body"
    if kind == "missing":
        if where == "body" and not name:
            return ValidationFailed("request body must be a JSON object")
        what = "query parameter" if where == "query" else ""
        return ValidationFailed(f"{what} '{name}' is required".strip(), code="missing_field")
    if kind.startswith("hookline."):  # a PydanticCustomError of a model's rule: its code and message as they are
        return ValidationFailed(str(first["msg"]), code=kind.removeprefix("hookline."))
    if unknown and all(e["type"] == "extra_forbidden" for e in errors):
        return ValidationFailed(f"unknown field(s): {', '.join(unknown)}", code="unknown_field")
    if kind.endswith("_type") or kind in ("model_attributes_type", "is_instance_of"):
        expected = _JSON_TYPES.get(kind.removesuffix("_type"), "of another type")
        return ValidationFailed(f"'{name}' must be {expected}", code="wrong_type")
    if kind == "extra_forbidden":
        return ValidationFailed(f"unknown field(s): {', '.join(unknown)}", code="unknown_field")
    message = str(first["msg"])
    return ValidationFailed(f"'{name}': {message[:1].lower()}{message[1:]}" if name else message)


def respond(status: int, body: Any) -> Response:
    """A JSON answer: a model (Powertools checks it against the route's answer model and serializes it) or JSON data."""
    if isinstance(body, BaseModel):
        return Response(status_code=status, content_type="application/json", body=body)
    return Response(status_code=status, content_type=JSON, body=json.dumps(body, separators=(",", ":")))


def no_content() -> Response:
    return Response(status_code=204, body="")
