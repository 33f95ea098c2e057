"""The domain: Endpoint, Event, Delivery, Attempt, and the queue's DeliveryTask."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Literal

from hookline.core.auth import EndpointAuth
from hookline.core.broadcast import Fanout
from hookline.core.broadcast import delivery_id as broadcast_delivery_id
from hookline.core.clock import epoch_ms, parse_iso
from hookline.core.destinations import Destination
from hookline.core.filters import EventFilter, matches
from hookline.core.rotation import LiveSecret, PreviousSecret, live_previous
from hookline.core.schemes import DEFAULT as DEFAULT_SIGNING
from hookline.core.schemes import Signing, signature_headers
from hookline.core.signing import ed25519_header, public_key, signature_header
from hookline.core.versions import BASE_VERSION, Renderings

EndpointStatus = Literal["active", "disabled"]
DeliveryStatus = Literal["pending", "succeeded", "failed", "paused"]

# The statuses of a delivery that may still make an attempt (a paused one, once its endpoint is enabled again).
LIVE_STATUSES: tuple[DeliveryStatus, ...] = ("pending", "paused")

# The delivery statuses a customer acts on: listed from the sparse
# endpoint-deliveries index, and restarted by a time-window replay.
REPLAYABLE_STATUSES: tuple[DeliveryStatus, ...] = ("failed", "paused")
# The statuses an endpoint's deliveries are indexed (listed and counted) by: the replayable ones, and a pending delivery
# once an attempt was recorded (waiting for its retry). A delivery only planned so far is pending with no item of its own.
INDEXED_STATUSES: tuple[DeliveryStatus, ...] = (*REPLAYABLE_STATUSES, "pending")

# An endpoint's limits when its creator names none.
# Where an event's deliveries are kept, and how their ids are made (hookline.core.ids, hookline.adapters.dynamo.keys):
# in the event's own partition with random (a broadcast's: hashed) ids, as releases up to 2026-12-03 kept them; or in
# their endpoint's delivery log, with ids that carry their time and their endpoint's mark, for every event accepted since.
LAYOUT_EVENT_KEYED = 1
LAYOUT_ENDPOINT_KEYED = 2

DEFAULT_RATE_LIMIT_PER_SECOND = 50.0  # a ceiling: the pace starts at the adaptive initial concurrency (core.adaptive)
DEFAULT_MAX_CONCURRENCY = 50  # a ceiling: an endpoint starts at 5 in flight and earns more (core.adaptive)
ENDPOINT_LIMIT_REACHED = "endpoint_limit_reached"  # 409: creating one more endpoint than its owner may have

EmailOutcomeKind = Literal["sent", "failed"]


@dataclass(frozen=True)
class EmailOutcome:
    """How the last email to an endpoint's customer went (hookline.services.delivery.emails): kept on the endpoint,
    shown in its health, so a producer sees that its customer was not told and why. Never the address or a message."""

    outcome: EmailOutcomeKind
    at: str  # ISO-8601 UTC: when the send was tried
    about: str  # what it told: disabled | recovered | version_sunset
    error: str = ""  # a failed send's error code (MessageRejected, AccessDeniedException, ...); "" when sent

    def public(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "at": self.at, "about": self.about, "error": self.error or None}


@dataclass(frozen=True)
class Endpoint:
    id: str
    tenant: str
    url: str
    secret: str
    event_types: tuple[str, ...] = ()
    description: str = ""
    status: EndpointStatus = "active"
    disabled_reason: str | None = None
    created_at: str = ""
    updated_at: str = ""
    paused_until: float | None = None  # epoch seconds: a receiver's Retry-After pauses the whole endpoint
    rate_limit_per_second: float = DEFAULT_RATE_LIMIT_PER_SECOND
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    headers: tuple[tuple[str, str], ...] = ()  # custom headers sent with every delivery
    # Secrets rotations replaced, each still signed with, beside `secret`, until its own end (hookline.core.rotation).
    previous_secrets: tuple[PreviousSecret, ...] = ()
    rotated_at: float | None = None  # epoch seconds: when `secret` became the current one; None: never rotated
    customer: str | None = None  # the uid of the customer it belongs to; None: the tenant's own. Fixed at creation.
    version: str = BASE_VERSION  # the payload version it receives: the tenant's default at creation; only a PATCH changes it
    last_email: EmailOutcome | None = None  # the last email to its customer about it; written by delivery alone
    filter: EventFilter | None = None  # a content filter (an EventBridge event pattern); None: every event of its types
    destination: Destination | None = None  # a queue, topic, bus, stream or bucket in the customer's account; None: HTTP to `url` ("" then)
    external_id: str = ""  # what hookline passes when it assumes the destination's role (per endpoint, fixed once made)
    # Delivered one at a time in the order hookline accepted the events, on the ordered lane (a FIFO queue, the endpoint
    # its message group): a delivery that fails holds the ones behind it. Fixed at creation.
    ordered: bool = False
    signing: Signing = DEFAULT_SIGNING  # how its webhooks are signed (hookline.core.schemes): Standard Webhooks v1 unless set
    # Its Ed25519 private key (`whsk_`, hookline.core.signing) once a scheme of `signing` needed one, and the keys rotations
    # replaced, each signing until its own end: rotated with the secret, by the same rule. Never shown, never logged.
    signing_key: str = ""
    previous_keys: tuple[PreviousSecret, ...] = ()
    # How hookline authenticates to the receiver beyond the signature (hookline.core.auth): its secrets sealed. None: none.
    auth: EndpointAuth | None = None

    def live_previous(self, now: float, overlap_seconds: float) -> tuple[LiveSecret, ...]:
        """The previous secrets still signing at `now`, each with its end, the one signing longest first."""
        return live_previous(self.previous_secrets, self.rotated_at, now, overlap_seconds)

    def signing_secrets(self, now: float, overlap_seconds: float) -> list[str]:
        """The secrets to sign with: the current one, plus every previous one until its own end."""
        return [self.secret, *(p.secret for p in self.live_previous(now, overlap_seconds))]

    def signing_keys(self, now: float, overlap_seconds: float) -> list[str]:
        """The Ed25519 private keys to sign with: the current one, plus every previous one until its own end."""
        previous = live_previous(self.previous_keys, self.rotated_at, now, overlap_seconds)
        return [self.signing_key, *(p.secret for p in previous)] if self.signing_key else []

    def signatures(self, msg_id: str, timestamp: int, body: bytes, now: float, overlap_seconds: float) -> dict[str, str]:
        """The signature headers of a request sent at `now` (hookline.core.schemes.signature_headers)."""
        secrets = self.signing_secrets(now, overlap_seconds)
        keys = self.signing_keys(now, overlap_seconds) if self.signing.uses_ed25519 else []
        return signature_headers(self.signing, secrets, keys, msg_id, timestamp, body, now, signature_header, ed25519_header)

    def shown_signing(self) -> dict[str, Any]:
        """Its signing as the API shows it: the schemes, and the `whpk_` public key when one of them is Ed25519."""
        shown = self.signing.to_json()
        if self.signing.uses_ed25519 and self.signing_key:
            shown["public_key"] = public_key(self.signing_key)
        return shown

    def subscribes_to(self, event_type: str) -> bool:
        return not self.event_types or event_type in self.event_types

    def receives(self, event_type: str, customer: str | None, data: Any) -> bool:
        """Whether an event gets a delivery to it: of a type it subscribes to, and passing its filter if it has one."""
        return self.subscribes_to(event_type) and (self.filter is None or matches(self.filter, event_type, customer, data))

    def where(self) -> str:
        """Where it delivers, for people: its URL, the destination's type and address, or its mailbox (polled)."""
        if self.destination is not None and self.destination.pulled:
            return f"polling endpoint {self.id}"
        return self.url if self.destination is None else f"{self.destination.type} {self.destination.address}"

    def shown_destination(self) -> dict[str, Any]:
        """Where it delivers, as the API shows it: `{"type": "http", "url": …}`, or the destination with the external id to trust."""
        if self.destination is None:
            return {"type": "http", "url": self.url}
        if self.destination.pulled:  # no role to assume: no external id to trust
            return self.destination.to_json()
        return {**self.destination.to_json(), "external_id": self.external_id}

    def public(self) -> dict[str, Any]:
        """What the API shows: everything but the secret and the secrets of its `auth`."""
        out: dict[str, Any] = {
            "id": self.id,
            "customer": self.customer,
            "url": self.url or None,
            "destination": self.shown_destination(),
            "event_types": list(self.event_types),
            "description": self.description,
            "status": self.status,
            "rate_limit_per_second": self.rate_limit_per_second,
            "max_concurrency": self.max_concurrency,
            "headers": dict(self.headers),
            "version": self.version,
            "filter": self.filter.to_json() if self.filter is not None else None,
            "ordered": self.ordered,
            "signing": self.shown_signing(),
            "auth": self.auth.public() if self.auth is not None else None,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }
        if self.disabled_reason:
            out["disabled_reason"] = self.disabled_reason
        if self.paused_until:
            out["paused_until"] = datetime.fromtimestamp(self.paused_until, UTC).isoformat().replace("+00:00", "Z")
        return out


@dataclass(frozen=True)
class PlannedDelivery:
    id: str
    endpoint_id: str
    paused: bool = False  # the endpoint was disabled at acceptance: stored, not queued
    version: str = ""  # the payload version it goes out at (the endpoint's pin at acceptance); "": the event's own


@dataclass(frozen=True)
class Event:
    id: str
    tenant: str
    type: str
    created_at: str
    body: str  # the exact webhook body, fixed at acceptance
    request_hash: str
    deliveries: tuple[PlannedDelivery, ...] = ()
    customer: str | None = None  # the customer it was addressed to; None: the tenant's own endpoints
    # A broadcast (to every endpoint of the tenant) has no inline deliveries, only its fan-out's progress.
    broadcast: Fanout | None = None
    version: str | None = None  # the payload version of `body` (the tenant's default at acceptance); None: stored before versions
    renderings: tuple[tuple[str, str], ...] = ()  # (version, body) for each other version its endpoints are pinned to
    sunsets: tuple[tuple[str, str], ...] = ()  # (version, sunset_at) of its versions that had a sunset at acceptance
    # Where its deliveries are kept and how their ids are made (LAYOUT_ENDPOINT_KEYED for every event accepted now).
    layout: int = field(default=LAYOUT_ENDPOINT_KEYED, compare=False)

    @classmethod
    def accepted(
        cls, event_id: str, tenant: str, event_type: str, created_at: str, data: Any, request_hash: str, renderings: Renderings | None = None, **rest: Any
    ) -> Event:
        """A just-accepted event, its webhook bodies fixed from the data now: one per version it goes out at."""
        if renderings is None:
            return cls(
                id=event_id,
                tenant=tenant,
                type=event_type,
                created_at=created_at,
                body=webhook_body(event_id, event_type, created_at, data),
                request_hash=request_hash,
                **rest,
            )
        bodies = {v: webhook_body(event_id, event_type, created_at, d, v) for v, d in renderings.data.items()}
        others = tuple((v, b) for v, b in sorted(bodies.items()) if v != renderings.version)
        return cls(
            id=event_id,
            tenant=tenant,
            type=event_type,
            created_at=created_at,
            body=bodies[renderings.version],
            request_hash=request_hash,
            version=renderings.version,
            renderings=others,
            **rest,
        )

    def body_for(self, version: str) -> str:
        """The exact bytes a delivery at `version` sends ("" or a version it has no rendering of: its own body)."""
        if not version or version == self.version:
            return self.body
        return dict(self.renderings).get(version, self.body)

    def rendered_version(self, version: str) -> str | None:
        """The version a delivery asking for `version` actually receives."""
        return version if version and version in dict(self.renderings) else self.version

    def sunset_of(self, version: str) -> str | None:
        return dict(self.sunsets).get(version)

    def planned_delivery(self, delivery_id: str) -> Delivery | None:
        """One of the deliveries the event planned at acceptance, as it is before anything about it was stored (None: not one of them)."""
        return next((self.delivery_of(p) for p in self.deliveries if p.id == delivery_id), None)

    def broadcast_delivery_id(self, endpoint_id: str) -> str:
        """This broadcast's delivery to the endpoint: its id, computed (hookline.core.broadcast.delivery_id)."""
        created_ms = epoch_ms(parse_iso(self.created_at))
        return broadcast_delivery_id(self.tenant, self.id, created_ms, endpoint_id, event_keyed=self.layout == LAYOUT_EVENT_KEYED)

    def delivery_of(self, planned: PlannedDelivery) -> Delivery:
        """A delivery the event planned, as it starts out: pending (paused for an endpoint disabled at acceptance), nothing attempted."""
        return Delivery(
            id=planned.id,
            tenant=self.tenant,
            event_id=self.id,
            endpoint_id=planned.endpoint_id,
            status="paused" if planned.paused else "pending",
            version=planned.version,
            created_at=self.created_at,
            updated_at=self.created_at,
            generation_started_at=self.created_at,
            planned_only=True,
            layout=self.layout,
        )

    @property
    def data(self) -> Any:
        return json.loads(self.body)["data"]


def webhook_body(event_id: str, event_type: str, timestamp: str, data: Any, version: str | None = None) -> str:
    """The bytes sent on every attempt; computed once, at acceptance. `version`: the payload version `data` is rendered at."""
    fields: dict[str, Any] = {"id": event_id, "type": event_type, "timestamp": timestamp}
    if version is not None:
        fields["version"] = version
    return json.dumps({**fields, "data": data}, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class Attempt:
    number: int
    at: str
    status_code: int | None
    error: str | None
    duration_ms: int
    outcome: str  # succeeded | failed | retrying
    reason: str = ""
    response_body: str = ""
    trigger: str = "scheduled"  # scheduled | manual (a replay, a redrive or a one-off retry)

    def public(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "at": self.at,
            "status_code": self.status_code,
            "error": self.error,
            "duration_ms": self.duration_ms,
            "outcome": self.outcome,
            "reason": self.reason,
            "response_body": self.response_body,
            "trigger": self.trigger,
        }


@dataclass(frozen=True)
class Delivery:
    id: str
    tenant: str
    event_id: str
    endpoint_id: str
    status: DeliveryStatus = "pending"
    attempts_made: int = 0
    created_at: str = ""
    updated_at: str = ""
    attempts: tuple[Attempt, ...] = field(default=())
    version: str = ""  # the payload version it goes out at, fixed at acceptance ("": its event's own)
    # A manual replay starts a new generation with a fresh attempt budget; attempt
    # numbers keep counting up, so the history stays whole.
    generation: int = 0
    generation_first_attempt: int = 1
    generation_started_at: str = ""
    replay_id: str = ""
    # The claim's lease, as read: which attempt holds it, and until when (epoch seconds).
    lease_attempt: int | None = field(default=None, compare=False)
    lease_until: float | None = field(default=None, compare=False)
    # Only planned on its event so far: a new event's pending delivery has no item of its own until
    # its first attempt is recorded (or it is claimed or parked), which then creates it.
    planned_only: bool = field(default=False, compare=False)
    # Where it is kept: its event's layout (LAYOUT_EVENT_KEYED for one an earlier release accepted).
    layout: int = field(default=LAYOUT_ENDPOINT_KEYED, compare=False)
    # A polling endpoint's: when a poll first moved past it, which is when its receiver has it ("": not yet).
    polled_at: str = ""

    @property
    def unsent(self) -> bool:
        """Pending, with no attempt made: its task may never have been queued (a request, job step or sweep that
        stopped half-way), so whoever finishes that work queues it again; the attempt claim lets one copy deliver."""
        return self.status == "pending" and self.attempts_made == 0

    def budget_attempt(self, number: int) -> int:
        """Attempt `number` counted within the current generation's budget (1-based)."""
        return number - self.generation_first_attempt + 1

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "endpoint_id": self.endpoint_id,
            "status": self.status,
            "version": self.version or None,
            "generation": self.generation,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "attempts": [a.public() for a in sorted(self.attempts, key=lambda a: a.number)],
            **({"polled_at": self.polled_at} if self.polled_at else {}),
        }


@dataclass(frozen=True)
class LineHead:
    """The delivery holding an ordered endpoint's line: it must wait (a retry, or a deferral: the breaker, a
    Retry-After, the rate limit), and every later delivery to the endpoint waits behind it."""

    tenant: str
    endpoint_id: str
    delivery_id: str
    event_id: str
    attempt: int  # the attempt that waits next
    outcome: str  # retrying (its last attempt failed) | deferred (not sent: the endpoint's state said wait)
    reason: str
    status_code: int | None
    error: str | None
    next_at: str  # when it is tried again
    since: str  # when it began to hold the line

    def public(self) -> dict[str, Any]:
        return {
            "delivery_id": self.delivery_id,
            "event_id": self.event_id,
            "attempt": self.attempt,
            "outcome": self.outcome,
            "reason": self.reason,
            "status_code": self.status_code,
            "error": self.error,
            "next_at": self.next_at,
            "since": self.since,
        }


class MalformedTask(ValueError):
    """A queue message that is not a delivery task."""


@dataclass(frozen=True)
class DeliveryTask:
    """What travels on the queue: ids and the attempt number, never the payload."""

    tenant: str
    event_id: str
    delivery_id: str
    endpoint_id: str
    attempt: int = 1
    generation: int = 0  # bumped by a manual replay, which starts a fresh attempt budget
    trigger: str = "scheduled"  # scheduled | manual
    replay_id: str = ""  # the customer replay this task belongs to, if any
    # Set on a task hookline itself dead-lettered (exhausted): when an operator
    # moves it back from the DLQ, it is replayed with a fresh budget.
    dead_lettered: str = ""
    # The one task queued for this attempt (a new event's first, a scheduled retry) on its first
    # receive: it reads the delivery instead of claiming it (see hookline.core.claims). Not part
    # of the task's identity, so a fresh and a claiming copy of one attempt are still one task.
    fresh: bool = field(default=False, compare=False)
    version: str = ""  # the payload version the delivery goes out at ("": its event's own body)
    # Set on a task waiting in Step Functions (a delay longer than hops take: hookline.core.waits.how_to_wait): its due
    # time, in epoch seconds, which names its note; the worker drops the note when the task arrives. Not part of its identity.
    wait_until: int = field(default=0, compare=False)
    # Set on a retry hopping through the retry queue (hookline.core.waits.how_to_wait): the epoch second it may run
    # from; received before, it is queued again for the rest. Not part of its identity.
    due: int = field(default=0, compare=False)
    # For an ordered endpoint: queued on the ordered lane, the endpoint its message group (hookline.adapters.queues).
    ordered: bool = field(default=False, compare=False)

    @classmethod
    def of(cls, d: Delivery, **changes: Any) -> DeliveryTask:
        """The task of the delivery's next attempt in its current generation (`changes`: a replay's new generation, a trigger, ...)."""
        return replace(cls(d.tenant, d.event_id, d.id, d.endpoint_id, d.attempts_made + 1, d.generation, version=d.version), **changes)

    def next_attempt(self) -> DeliveryTask:
        return replace(self, attempt=self.attempt + 1, trigger="scheduled", fresh=True, wait_until=0, due=0)

    def to_message(self) -> str:
        return json.dumps(
            {
                "v": 1,
                "tenant": self.tenant,
                "event_id": self.event_id,
                "delivery_id": self.delivery_id,
                "endpoint_id": self.endpoint_id,
                "attempt": self.attempt,
                "generation": self.generation,
                **({"trigger": self.trigger} if self.trigger != "scheduled" else {}),
                **({"replay_id": self.replay_id} if self.replay_id else {}),
                **({"dead_lettered": self.dead_lettered} if self.dead_lettered else {}),
                **({"fresh": 1} if self.fresh else {}),
                **({"version": self.version} if self.version else {}),
                **({"wait_until": self.wait_until} if self.wait_until else {}),
                **({"due": self.due} if self.due else {}),
                **({"ordered": 1} if self.ordered else {}),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_message(cls, body: str) -> DeliveryTask:
        try:
            raw = json.loads(body)
            task = cls(
                tenant=str(raw["tenant"]),
                event_id=str(raw["event_id"]),
                delivery_id=str(raw["delivery_id"]),
                endpoint_id=str(raw["endpoint_id"]),
                attempt=int(raw.get("attempt", 1)),
                generation=int(raw.get("generation", 0)),
                trigger="manual" if raw.get("trigger") == "manual" else "scheduled",
                replay_id=str(raw.get("replay_id") or ""),
                dead_lettered=str(raw.get("dead_lettered") or ""),
                fresh=raw.get("fresh") == 1,
                version=str(raw.get("version") or ""),
                wait_until=int(raw.get("wait_until") or 0),
                due=int(raw.get("due") or 0),
                ordered=raw.get("ordered") == 1,
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise MalformedTask(f"not a delivery task: {exc}") from None
        if task.attempt < 1:
            raise MalformedTask("attempt must be at least 1")
        return task
