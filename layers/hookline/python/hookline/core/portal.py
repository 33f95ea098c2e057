"""The customer portal's settings and the page's security headers: pure values and validation.

A tenant's portal settings name the producer as its customers see it (the
expiry page says "ask <producer> for a new link") and the origins allowed to
embed the portal in an iframe, sent as `Content-Security-Policy:
frame-ancestors`. The default is `'self'` only. The page itself runs no inline
script or style, so the policy never needs `'unsafe-inline'`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from hookline.core.errors import ValidationFailed

MAX_ORIGINS = 10
MAX_NAME = 100
# An origin as a browser sends it: https, a host, an optional port; no path, query or wildcard.
# Plain http only for the machine itself (local mode, a developer's app on localhost).
ORIGIN_PATTERN = r"^(https://[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+|http://(localhost|127\.0\.0\.1))(:[0-9]{1,5})?$"
_ORIGIN = re.compile(ORIGIN_PATTERN)
_TENANT = re.compile(r"^[\x21-\x7e]{1,128}$")  # what the `t` query parameter may name: printable, no spaces
ASSET = re.compile(r"^[a-z0-9_-]+\.(js|css|svg)$")
CONTENT_TYPES = {"js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "svg": "image/svg+xml"}


@dataclass(frozen=True)
class PortalSettings:
    tenant: str
    producer_name: str = ""
    allowed_origins: tuple[str, ...] = ()
    updated_at: str = ""


SETTINGS_FIELDS = ("producer_name", "allowed_origins")


def settings_fields(body: dict[str, Any]) -> None:
    """Portal settings take `producer_name` and `allowed_origins` only; 422 naming the first other field."""
    unknown = sorted(set(body) - set(SETTINGS_FIELDS))
    if unknown:
        raise ValidationFailed(f"unknown field {unknown[0]!r}; portal settings take 'producer_name' and 'allowed_origins'", code="unknown_field")


def allowed_origins(value: Any) -> list[str]:
    """The origins that may embed the portal: at most MAX_ORIGINS, each a bare https origin (http for localhost only)."""
    if not isinstance(value, list) or len(value) > MAX_ORIGINS:
        raise ValidationFailed(f"'allowed_origins' must be a list of at most {MAX_ORIGINS} origins")
    for i, origin in enumerate(value):
        if not isinstance(origin, str) or not _ORIGIN.fullmatch(origin):
            raise ValidationFailed(f"'allowed_origins[{i}]' must be an origin such as https://app.example.com (https, no path; http only for localhost)")
    return value


def tenant_param(value: str | None) -> str | None:
    """The tenant a portal link names (`?t=`), if it could name one; None otherwise (the page then uses the defaults)."""
    return value if value and _TENANT.fullmatch(value) else None


def content_security_policy(allowed_origins: tuple[str, ...]) -> str:
    """The page's policy: its own scripts, styles and API only; framed by itself and the allowed origins alone."""
    ancestors = " ".join(("'self'", *allowed_origins))
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        f"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors {ancestors}"
    )


def page_headers(allowed_origins: tuple[str, ...]) -> dict[str, str]:
    return {
        "Content-Security-Policy": content_security_policy(allowed_origins),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }
