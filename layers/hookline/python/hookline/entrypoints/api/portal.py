"""Routes of the customer portal: its page and files (no key), the caller's session, the portal settings, and the
portal sessions a producer issues for one customer."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query
from pydantic import WithJsonSchema
from pydantic.json_schema import SkipJsonSchema

from hookline.core.access import Access
from hookline.core.contract.common import given
from hookline.core.contract.portal import CreatePortalSession, Health, PortalSession, PortalSettings, PutPortalSettings, SessionInfo
from hookline.core.portal import ASSET, tenant_param
from hookline.entrypoints import portal as portal_files
from hookline.entrypoints.api.answers import answers, ok
from hookline.entrypoints.api.params import CustomerUid
from hookline.entrypoints.api.routing import Router, allow, caller, container, no_content, respond
from hookline.wiring.settings import get_settings

router = Router()


def _origin() -> str:
    """Where this API answers, for the portal links it hands out (HOOKLINE_PORTAL_BASE_URL overrides it)."""
    base = get_settings().portal_base
    if base:
        return base
    headers = router.current_event.headers or {}
    scheme = headers.get("x-forwarded-proto") or "https"
    return f"{scheme}://{router.current_event.request_context.domain_name}"


Tenant = Annotated[
    str | None,
    Query(
        description=(
            "The tenant (portal links carry it). A value that cannot name a tenant (1 to 128 printable\n"
            "characters, no spaces) is ignored: the page then uses the default settings. Like every query\n"
            "parameter, it is given with a value or left out (`?t=` is 422).\n"
        )
    ),
    given("t"),
    WithJsonSchema({"type": "string", "minLength": 1}),
]
Asset = Annotated[str, Path(json_schema_extra={"pattern": ASSET.pattern})]

_SETTINGS = {"producer_name": "Acme Inc", "allowed_origins": ["https://app.acme.example"], "updated_at": "2026-03-14T09:26:53.589Z"}
_TOKEN = "hps_q2Vx3m0cXn6lT1sS8w5e0bHk9uYz4aQdFjRtP7oLgNc"  # noqa: S105  - the document's example token
_SESSION_EXAMPLES: Any = {
    "default": {"summary": "An hour, full access", "value": {}},
    "read_only": {"summary": "A day, read-only", "value": {"ttl_seconds": 86400, "read_only": True}},
}
# The page and its files are not JSON: their answers are declared as the document has them.
_NO_SESSION_BODY = CreatePortalSession()  # no body: the defaults (the document shows the body as optional, never null)


_PAGE = (
    200,
    {
        "description": "The page.",
        "headers": {
            "Content-Security-Policy": {
                "schema": {"type": "string"},
                "description": "`default-src 'self'; script-src 'self'; style-src 'self'; … frame-ancestors 'self' <allowed origins>`",
            }
        },
        "content": {"text/html": {"schema": {"type": "string"}, "example": "<!doctype html>…"}},
    },
)
_FILE = (
    200,
    {
        "description": "The file.",
        "content": {
            "text/javascript": {"schema": {"type": "string"}, "example": '"use strict";…'},
            "text/css": {"schema": {"type": "string"}, "example": "body { … }"},
        },
    },
)


@router.get(
    "/health",
    operation_id="getHealth",
    tags=["health"],
    summary="Liveness probe",
    description="Public (no API key); returns a constant and touches no data.",
    responses=answers(ok(200, Health, "The API is up.", example={"status": "ok"})),
)
def health() -> Response[Health]:
    return respond(200, Health(status="ok"))


@router.get(
    "/portal",
    operation_id="getPortalPage",
    tags=["portal"],
    summary="The customer portal page",
    description=(
        "The portal's HTML, served by the stack itself. Public: the page holds no\n"
        "data; its script reads the session token from the URL fragment and calls\n"
        "the `/v1` routes with it. `t` names the tenant whose portal settings apply\n"
        "(the producer's name, and `frame-ancestors`: `'self'` plus the tenant's\n"
        "allowed origins). The policy allows no inline script or style.\n"
    ),
    responses=answers(_PAGE, "InvalidQuery"),
)
def portal_page(t: Tenant = None) -> Response[str]:
    """The customer portal (no key: the page calls the API with the session token from its URL fragment)."""
    return portal_files.page(container.portal_service().page_settings(tenant_param(t)))


@router.get(
    "/portal/<name>",
    operation_id="getPortalFile",
    tags=["portal"],
    summary="A file of the portal page (its script and style)",
    responses=answers(_FILE, "NotFound"),
)
def portal_asset(name: Asset) -> Response[str]:
    return portal_files.asset(name)


@router.get(
    "/v1/session",
    operation_id="getSession",
    tags=["portal"],
    summary="Who the caller is",
    description=(
        "For a portal session: its customer (name and the ceiling its endpoints'\n"
        "limits may be set to), whether it is read-only, when it expires, and the\n"
        "producer's name. For an API key: `kind` `api_key` and no customer.\n"
    ),
    responses=answers(
        ok(
            200,
            SessionInfo,
            "The caller.",
            example={
                "kind": "portal_session",
                "tenant": "acme",
                "customer": {"uid": "org_4711", "name": "Globex GmbH", "limits": {"max_rate_per_second": 100.0, "max_concurrency": 50}},
                "read_only": False,
                "expires_at": "2026-03-14T10:26:53.000Z",
                "producer_name": "Acme Inc",
            },
        ),
    ),
)
@allow(Access.READ)
def get_session() -> Response[SessionInfo]:
    return respond(200, container.portal_service().whoami(caller()))


@router.get(
    "/v1/portal-settings",
    operation_id="getPortalSettings",
    tags=["portal"],
    summary="The tenant's portal settings",
    responses=answers(ok(200, PortalSettings, "The settings (defaults until set).", example=_SETTINGS)),
)
@allow(Access.PRODUCER)
def get_portal_settings() -> Response[PortalSettings]:
    return respond(200, container.portal_service().settings(caller().tenant))


@router.put(
    "/v1/portal-settings",
    operation_id="putPortalSettings",
    tags=["portal"],
    summary="Set the producer's name and who may embed the portal",
    description=(
        '`producer_name` is what customers read ("ask Acme Inc for a new link");\n'
        "`allowed_origins` (up to 10, `https://host[:port]`, plain http only for\n"
        "localhost) may embed the portal in an iframe: they are sent as\n"
        "`Content-Security-Policy: frame-ancestors 'self' …`. Replaces both.\n"
    ),
    responses=answers(
        ok(200, PortalSettings, "Saved.", example=_SETTINGS),
        "BadRequest",
        "PayloadTooLarge",
        "ValidationFailed",
        "Unavailable",
    ),
)
@allow(Access.PRODUCER)
def put_portal_settings(
    body: Annotated[PutPortalSettings, Body(openapi_examples={"settings": {"value": {key: _SETTINGS[key] for key in ("producer_name", "allowed_origins")}}})],
) -> Response[PortalSettings]:
    return respond(200, container.portal_service().put_settings(caller().tenant, body))


@router.post(
    "/v1/customers/<uid>/portal-sessions",
    operation_id="createPortalSession",
    tags=["customers"],
    summary="Make a portal session for a customer",
    description=(
        "A session lets the customer see and fix its own endpoints and\n"
        "deliveries without the producer's key. The answer carries the token\n"
        "(shown only here; only its SHA-256 is stored, with a TTL) and the\n"
        "portal link, whose token sits in the URL fragment so it never reaches a\n"
        "server log. The link's origin is `HOOKLINE_PORTAL_BASE_URL`, or this\n"
        "API's own. Producer only.\n"
    ),
    responses=answers(
        ok(
            201,
            PortalSession,
            "The session.",
            example={
                "token": _TOKEN,
                "url": f"https://abc123defg.execute-api.us-east-1.amazonaws.com/portal?t=acme#token={_TOKEN}",
                "customer": "org_4711",
                "read_only": False,
                "expires_at": "2026-03-14T10:26:53.000Z",
            },
        ),
        "BadRequest",
        "CustomerNotFound",
        "PayloadTooLarge",
        "ValidationFailed",
    ),
)
@allow(Access.PRODUCER)
def create_portal_session(
    uid: CustomerUid, body: Annotated[CreatePortalSession | SkipJsonSchema[None], Body(openapi_examples=_SESSION_EXAMPLES)] = None
) -> Response[PortalSession]:
    session = container.session_service().issue(caller().tenant, uid, body or _NO_SESSION_BODY, _origin())
    return respond(201, session)


@router.delete(
    "/v1/customers/<uid>/portal-sessions",
    operation_id="revokePortalSessions",
    tags=["customers"],
    summary="Revoke every portal session of a customer",
    description=(
        "One write, however many sessions the customer has: each session made\n"
        "before is refused within `HOOKLINE_AUTHORIZER_CACHE_SECONDS` (60 s at\n"
        "most). Sessions made afterwards work. Producer only.\n"
    ),
    responses=answers(ok(204, None, "Revoked."), "CustomerNotFound"),
)
@allow(Access.PRODUCER)
def revoke_portal_sessions(uid: CustomerUid) -> Response[None]:
    container.session_service().revoke(caller().tenant, uid)
    return no_content()
