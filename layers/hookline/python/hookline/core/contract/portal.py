"""The portal resource: liveness, who the caller is, the tenant's portal settings, and the portal sessions a producer
makes for a customer."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from hookline.core import portal as settings_rules
from hookline.core import sessions as session_rules
from hookline.core.access import Principal
from hookline.core.clock import iso_epoch
from hookline.core.contract import fields
from hookline.core.contract.common import Answer, CustomerUid, RequestBody, Timestamp, body_rule, optional
from hookline.core.contract.customers import AppliedCustomerLimits
from hookline.core.customers import Customer
from hookline.core.portal import PortalSettings as Settings
from hookline.core.sessions import SessionRequest

TOKEN_PATTERN = r"^hps_[A-Za-z0-9_-]{43}$"  # noqa: S105  - the shape of a session token, not one


class Health(Answer):
    # GET /health's answer, a constant.
    status: Literal["ok"]


class SessionCustomer(Answer):
    # A portal session's customer, as the portal shows it.
    uid: CustomerUid
    name: str
    limits: AppliedCustomerLimits


class SessionInfo(Answer):
    # Who the caller is: a portal session (its customer, whether it is read-only, its expiry) or the producer's key.
    kind: Literal["portal_session", "api_key"]
    tenant: str
    customer: SessionCustomer | None
    read_only: bool
    expires_at: Timestamp | None
    producer_name: str

    @classmethod
    def of(cls, who: Principal, customer: Customer | None, producer_name: str) -> SessionInfo:
        """The caller as the portal needs it; `customer` is a session's (None for the producer's key)."""
        if customer is None:
            return cls(kind="api_key", tenant=who.tenant, customer=None, read_only=False, expires_at=None, producer_name=producer_name)
        return cls(
            kind="portal_session",
            tenant=who.tenant,
            customer=SessionCustomer(uid=customer.uid, name=customer.name, limits=AppliedCustomerLimits.of(customer.limits)),
            read_only=who.read_only,
            expires_at=iso_epoch(who.expires_at),
            producer_name=producer_name,
        )


class PortalSettings(Answer):
    # The tenant's portal settings (the defaults until set).
    producer_name: str
    allowed_origins: list[str]
    updated_at: Timestamp | None

    @classmethod
    def of(cls, settings: Settings) -> PortalSettings:
        return cls(producer_name=settings.producer_name, allowed_origins=list(settings.allowed_origins), updated_at=settings.updated_at or None)


class PutPortalSettings(RequestBody):
    # The producer's name and who may embed the portal; replaces both (a field left out is empty).
    producer_name: fields.ProducerName = optional(default="")
    allowed_origins: fields.AllowedOrigins = Field(default_factory=list)

    _known_fields = body_rule(settings_rules.settings_fields)

    def settings(self, tenant: str, now: str) -> Settings:
        """The settings this body sets, `now`: the name without surrounding spaces, each origin once."""
        return Settings(tenant, self.producer_name.strip(), tuple(dict.fromkeys(self.allowed_origins)), now)


class CreatePortalSession(RequestBody):
    # How long a new portal session works, and whether it may change anything.
    ttl_seconds: fields.TtlSeconds = session_rules.DEFAULT_TTL_SECONDS
    read_only: fields.Flag = Field(default=False, description="A read-only session can read everything a session can; every mutating route answers 403.")

    _known_fields = body_rule(session_rules.session_fields)

    def request(self) -> SessionRequest:
        return SessionRequest(self.ttl_seconds, self.read_only)


class PortalSession(Answer):
    # A new portal session: its token (shown only here) and the portal link carrying it.
    token: Annotated[str, Field(description="The bearer token; shown only in this answer.", pattern=TOKEN_PATTERN)]
    url: Annotated[str, Field(description="The portal page, the token in its fragment.")]
    customer: CustomerUid
    read_only: bool
    expires_at: Timestamp
