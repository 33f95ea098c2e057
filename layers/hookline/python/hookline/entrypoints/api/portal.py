"""Routes of the customer portal: its page and files (no key), the caller's session, the portal settings, and the
portal sessions a producer issues for one customer."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.router import APIGatewayHttpRouter

from hookline.core.access import Access
from hookline.core.portal import tenant_param
from hookline.entrypoints import portal as portal_files
from hookline.entrypoints.api.routing import allow, caller, no_content, raw_body, raw_query, respond
from hookline.wiring import container
from hookline.wiring.settings import get_settings

router = APIGatewayHttpRouter()


def _origin() -> str:
    """Where this API answers, for the portal links it hands out (HOOKLINE_PORTAL_BASE_URL overrides it)."""
    base = get_settings().portal_base
    if base:
        return base
    headers = router.current_event.headers or {}
    scheme = headers.get("x-forwarded-proto") or "https"
    return f"{scheme}://{router.current_event.request_context.domain_name}"


@router.get("/health")
def health() -> Response[Any]:
    return respond(200, {"status": "ok"})


@router.get("/portal")
def portal_page() -> Response[Any]:
    """The customer portal (no key: the page calls the API with the session token from its URL fragment)."""
    return portal_files.page(container.portal_service().page_settings(tenant_param(raw_query().get("t"))))


@router.get("/portal/<name>")
def portal_asset(name: str) -> Response[Any]:
    return portal_files.asset(name)


@router.get("/v1/session")
@allow(Access.READ)
def get_session() -> Response[Any]:
    return respond(200, container.portal_service().whoami(caller()))


@router.get("/v1/portal-settings")
@allow(Access.PRODUCER)
def get_portal_settings() -> Response[Any]:
    return respond(200, container.portal_service().settings(caller().tenant))


@router.put("/v1/portal-settings")
@allow(Access.PRODUCER)
def put_portal_settings() -> Response[Any]:
    return respond(200, container.portal_service().put_settings(caller().tenant, raw_body()))


@router.post("/v1/customers/<uid>/portal-sessions")
@allow(Access.PRODUCER)
def create_portal_session(uid: str) -> Response[Any]:
    return respond(201, container.session_service().issue(caller().tenant, uid, raw_body(optional=True), _origin()))


@router.delete("/v1/customers/<uid>/portal-sessions")
@allow(Access.PRODUCER)
def revoke_portal_sessions(uid: str) -> Response[Any]:
    container.session_service().revoke(caller().tenant, uid)
    return no_content()
