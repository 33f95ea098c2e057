"""The customer portal page and its assets, served by the API function itself (no CDN, no bucket).

`GET /portal?t=<tenant>` answers index.html with the tenant's producer name
filled in (escaped) and its Content-Security-Policy (frame-ancestors from the
tenant's portal settings); `GET /portal/<asset>` answers a file of the static
folder by its flat name. Neither needs a key: the page holds no data until
its script calls the API with the session token from the URL fragment.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from importlib import resources

from aws_lambda_powertools.event_handler import Response

from hookline.core.errors import NotFound
from hookline.core.portal import ASSET, CONTENT_TYPES, PortalSettings, page_headers

_STATIC = "portal_static"
_PRODUCER_SLOT = 'data-producer=""'


@lru_cache(maxsize=32)
def _read(name: str) -> bytes:
    return resources.files("hookline.entrypoints").joinpath(_STATIC, name).read_bytes()


def page(settings: PortalSettings) -> Response:
    html = _read("index.html").decode("utf-8").replace(_PRODUCER_SLOT, f'data-producer="{escape(settings.producer_name, quote=True)}"', 1)
    return Response(status_code=200, content_type="text/html; charset=utf-8", body=html, headers=page_headers(settings.allowed_origins))


def asset(name: str) -> Response:
    if not ASSET.fullmatch(name):
        raise NotFound("no such portal file")
    try:
        body = _read(name)
    except (FileNotFoundError, IsADirectoryError):
        raise NotFound("no such portal file") from None
    headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=300"}
    return Response(status_code=200, content_type=CONTENT_TYPES[name.rsplit(".", 1)[1]], body=body.decode("utf-8"), headers=headers)
