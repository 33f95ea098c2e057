"""Portal sessions: a customer acts on its own endpoints with a token the producer hands out, never the producer's key.

A token is 256 random bits behind the `hps_` prefix, shown once when the
session is made and stored only as its SHA-256 (like an API key). A session
names its tenant and customer, whether it is read-only, and when it expires.
It also records the customer it was made for (its creation time) and the
customer's session epoch at the time: revoking a customer's sessions bumps the
epoch, which refuses every session made before in one write, however many
there are, and a customer deleted and made again under the same uid is not
the customer the session was made for. All of it is checked here, purely;
the authorizer reads the session and the customer and asks `check`.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from hookline.core.customers import Customer
from hookline.core.errors import ValidationFailed

TOKEN_PREFIX = "hps_"  # noqa: S105  - the visible prefix of every token, not a secret
DEFAULT_TTL_SECONDS = 3600
MAX_TTL_SECONDS = 604800  # a week
MIN_TTL_SECONDS = 60
# What a request of a session whose customer was deleted (and perhaps made again under its uid) is told (401).
CUSTOMER_GONE = "this portal session's customer no longer exists; ask for a new link"


def generate_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def is_session_token(value: str) -> bool:
    return value.startswith(TOKEN_PREFIX)


def hash_token(token: str) -> str:
    # 256-bit random tokens cannot be brute-forced through an unsalted hash; a fast one keeps the authorizer cheap.
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class SessionRequest:
    ttl_seconds: int = DEFAULT_TTL_SECONDS
    read_only: bool = False


SESSION_FIELDS = ("ttl_seconds", "read_only")


def session_fields(body: dict[str, Any]) -> None:
    """A session request takes `ttl_seconds` and `read_only` only; 422 naming the first other field."""
    unknown = sorted(set(body) - set(SESSION_FIELDS))
    if unknown:
        raise ValidationFailed(f"unknown field {unknown[0]!r}; a portal session takes 'ttl_seconds' and 'read_only'", code="unknown_field")


@dataclass(frozen=True)
class PortalSession:
    """What is stored of a session (by the token's hash): never the token."""

    token_hash: str
    tenant: str
    customer: str
    customer_created_at: str  # which customer of that uid it was made for
    epoch: int  # the customer's session epoch when it was made
    read_only: bool
    created_at: str
    expires_at: int  # epoch seconds; also the item's TTL


Refusal = Literal["expired", "revoked", "customer_gone"]


def check(session: PortalSession, customer: Customer | None, now: float) -> Refusal | None:
    """Why the session no longer works, or None if it does.

    DynamoDB's TTL deletes expired items late (up to days), so expiry is
    checked here against the clock, not left to the TTL.
    """
    if now >= session.expires_at:
        return "expired"
    if customer is None or not made_for(customer, session.customer_created_at):
        return "customer_gone"
    if customer.session_epoch != session.epoch:
        return "revoked"
    return None


def made_for(customer: Customer | None, customer_created_at: str) -> bool:
    """Whether `customer` (the one under a session's uid now, None: none) is the customer the session was made for,
    which was created at `customer_created_at`: equal, never later, since a customer deleted and made again under
    the uid is newer than every session of the earlier one. A session that names no creation time ("") matches none."""
    return customer is not None and bool(customer_created_at) and customer.created_at == customer_created_at


def portal_url(origin: str, token: str, tenant: str) -> str:
    """The portal page with the token in the fragment: browsers never send a fragment, so it reaches no server log.

    The query names the tenant, whose portal settings (the producer's name, who may embed the page) apply.
    """
    return f"{origin.rstrip('/')}/portal?t={quote(tenant, safe='')}#token={token}"
