"""Endpoint authentication (`auth` on an endpoint): how hookline proves itself to a receiver beyond the signature. Pure.

Four types (AUTH_TYPES): an OAuth2 client-credentials token (`Authorization: Bearer`, fetched from the token URL and
cached until shortly before it expires), a client certificate presented in the TLS handshake (mTLS), HTTP Basic, and
a fixed bearer token. Each type's fields are split once, here, into those shown (the API, the portal, the log may
carry them) and the secret ones (SECRET_FIELDS), which are kept sealed (envelope-encrypted with the stack's KMS key,
hookline.adapters.sealing) and opened only by the code that sends (hookline.adapters.endpoint_auth).

The token's lifetime rule (refresh_at) and what a failed token request means for the attempt (AUTH_FAILED, a
transient error: retried and counted like a timeout; hookline.core.classify) are decided here.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

AuthType = Literal["oauth2_client_credentials", "mtls", "basic", "bearer"]
OAUTH2: AuthType = "oauth2_client_credentials"
MTLS: AuthType = "mtls"
BASIC: AuthType = "basic"
BEARER: AuthType = "bearer"
AUTH_TYPES: tuple[AuthType, ...] = (OAUTH2, MTLS, BASIC, BEARER)

# Each type's fields, in the order the API shows them: (shown, secret). A field not listed is not kept.
SHOWN_FIELDS: dict[str, tuple[str, ...]] = {
    OAUTH2: ("token_url", "client_id", "scope", "audience"),
    MTLS: ("certificate",),  # the certificate is public: the receiver sees it in every handshake
    BASIC: ("username",),
    BEARER: (),
}
SECRET_FIELDS: dict[str, tuple[str, ...]] = {
    OAUTH2: ("client_secret",),
    MTLS: ("private_key",),
    BASIC: ("password",),
    BEARER: ("token",),
}

# An OAuth2 token is used until this long before its `expires_in` ends (at most half its life), so a token is never
# sent in its last seconds, where the receiver's clock may already call it expired.
TOKEN_REFRESH_MARGIN_SECONDS = 60.0
# A token answer without `expires_in` (RFC 6749 makes it RECOMMENDED only) is kept this long.
TOKEN_DEFAULT_SECONDS = 300.0
# And no token is kept longer than this, whatever its `expires_in` says.
TOKEN_MOST_SECONDS = 86_400.0


@dataclass(frozen=True)
class EndpointAuth:
    """An endpoint's `auth` as stored: its type, the fields it shows, and its secret fields sealed (an opaque text only
    the Sealer port opens, with the endpoint's tenant and id as its encryption context)."""

    type: str
    shown: tuple[tuple[str, str], ...]
    sealed: str

    def public(self) -> dict[str, Any]:
        """What the API shows: the type and the fields that are not secret; never a secret."""
        return {"type": self.type, **dict(self.shown)}

    def to_item(self) -> str:
        return json.dumps({"type": self.type, "shown": dict(self.shown), "sealed": self.sealed}, separators=(",", ":"))

    @classmethod
    def from_item(cls, text: str | None) -> EndpointAuth | None:
        if not text:
            return None
        raw = json.loads(text)
        return cls(str(raw["type"]), tuple((str(k), str(v)) for k, v in raw.get("shown", {}).items()), str(raw["sealed"]))


def split(given: Mapping[str, Any]) -> tuple[str, dict[str, str], dict[str, str]]:
    """A checked `auth` (hookline.core.contract.auth) as (type, shown fields, secret fields); a field left out or null
    is not kept."""
    kind = str(given["type"])
    shown = {k: str(given[k]) for k in SHOWN_FIELDS[kind] if given.get(k) is not None}
    secret = {k: str(given[k]) for k in SECRET_FIELDS[kind] if given.get(k) is not None}
    return kind, shown, secret


def seal_context(tenant: str, endpoint_id: str) -> dict[str, str]:
    """The encryption context an endpoint's secrets are sealed under: opened for another endpoint or tenant, they fail."""
    return {"tenant": tenant, "endpoint": endpoint_id}


def secrets_text(secret: Mapping[str, str]) -> bytes:
    return json.dumps(dict(secret), separators=(",", ":"), sort_keys=True).encode()


def secrets_of(text: bytes) -> dict[str, str]:
    return {str(k): str(v) for k, v in json.loads(text).items()}


def basic_header(username: str, password: str) -> str:
    """RFC 7617's credentials (user-id and password joined by a colon, UTF-8, base64)."""
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def refresh_at(obtained_at: float, expires_in: Any) -> float:
    """When a token obtained at `obtained_at` (epoch seconds) with `expires_in` (the token answer's, any JSON value)
    stops being used: TOKEN_REFRESH_MARGIN_SECONDS before it expires, or halfway through a life shorter than twice
    that; TOKEN_DEFAULT_SECONDS for an answer without a usable `expires_in`; never beyond TOKEN_MOST_SECONDS."""
    life = TOKEN_DEFAULT_SECONDS
    if (isinstance(expires_in, int | float) and not isinstance(expires_in, bool) and expires_in > 0) or (
        isinstance(expires_in, str) and expires_in.isdigit() and int(expires_in) > 0
    ):
        life = min(float(expires_in), TOKEN_MOST_SECONDS)
    return obtained_at + life - min(TOKEN_REFRESH_MARGIN_SECONDS, life / 2)


def usable(token_refresh_at: float, now: float) -> bool:
    """Whether a cached token is still sent at `now`."""
    return now < token_refresh_at


class TokenRefused(Exception):
    """The token endpoint gave no token: the attempt fails with AUTH_FAILED and this as its detail."""


def token_of(status_code: int | None, error: str | None, body: str) -> tuple[str, Any]:
    """The access token and its `expires_in` from a token endpoint's answer, or TokenRefused saying why not (never
    with the answer's body, which may echo what was sent)."""
    if status_code is None:
        raise TokenRefused(f"token endpoint unreachable: {error or 'no answer'}")
    if not 200 <= status_code <= 299:
        raise TokenRefused(f"token endpoint answered {status_code}")
    try:
        answer = json.loads(body)
    except ValueError:
        raise TokenRefused("token endpoint answered something other than JSON") from None
    token = answer.get("access_token") if isinstance(answer, dict) else None
    if not isinstance(token, str) or not token or any(c in token for c in "\r\n"):
        raise TokenRefused("token endpoint answered no access_token")
    return token, answer.get("expires_in")
