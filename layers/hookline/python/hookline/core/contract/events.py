"""Events and deliveries: what `POST /v1/events` (one, a batch, a broadcast) takes and answers, and how an event, its
deliveries and their attempts read back.

A request's fields are the types of hookline.core.contract.fields, whose constraints are both the server's check and
the document's schema (the messages those of the API before the models). A batch's events are each validated once,
the refusal naming the event. The per-event size of a batch needs the settings, so the service checks it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self, get_args

from pydantic import MISSING, BeforeValidator, Field, GetJsonSchemaHandler, ValidationError
from pydantic.json_schema import JsonSchemaValue, SkipJsonSchema
from pydantic_core import CoreSchema, PydanticCustomError

from hookline.core import ids, models, validation
from hookline.core.broadcast import Fanout
from hookline.core.contract import fields
from hookline.core.contract.common import (
    Answer,
    CheckedBody,
    DeliveryId,
    EndpointId,
    ErrorDetail,
    EventId,
    EventTypeName,
    NextCursor,
    Timestamp,
    absent_unless_set,
    body_rule,
    optional,
)
from hookline.core.contract.fields import KeysMatch, Refused, Worded
from hookline.core.contract.jobs import JobSummary
from hookline.core.errors import HooklineError, ValidationFailed

# -- named values ---------------------------------------------------------------------------------------------------

DeliveryStatus = Literal["pending", "succeeded", "failed", "paused"]
IndexedStatus = Literal["failed", "paused"]  # the statuses an endpoint's failures are counted (and replayed) by
LogStatus = Literal["all", "succeeded", "failed", "pending", "paused"]  # the filters of an endpoint's delivery log


# -- query values: today's rules and messages (after hookline.core.contract.common.given) ------------------------


def status_value(raw: Any) -> str | None:
    if raw is not None and raw not in ("failed", "paused"):
        raise ValidationFailed("'status' must be 'failed' or 'paused'")
    return raw


def log_status_value(raw: Any) -> str | None:
    if raw is not None and raw not in get_args(LogStatus):
        raise ValidationFailed(f"'status' must be one of {', '.join(get_args(LogStatus))}")
    return raw


def event_name_value(raw: Any) -> str | None:
    """An event named by its `evt_` id or by the producer's own id (the `id` sent with it)."""
    if raw is not None and not (ids.is_id(raw, ids.EVENT) or validation.IDEMPOTENCY_ID.fullmatch(raw)):
        raise ValidationFailed("'event' must be an event's id (evt_…) or the id the producer sent it with")
    return raw


def order_value(raw: Any) -> str | None:
    if raw is not None and raw not in ("asc", "desc"):
        raise ValidationFailed("'order' must be 'asc' (oldest first) or 'desc' (newest first)")
    return raw


# -- requests -------------------------------------------------------------------------------------------------------

_DATA = """The payload as of the tenant's default payload version, any JSON object (nesting up to 32
levels); delivered as the webhook body's `data` to the endpoints pinned to that version,
and rendered for the others (`versions`).
"""
_VERSIONS = """The producer's own renderings of `data` for other payload versions, by version name (up to
20): an endpoint pinned to one of them receives it as its `data`, instead of a rendering
derived by the type's downgrades. Each must be a version of the tenant (422
`unknown_version`) and match the type's schema at it. Null is the same as none. Part of
the request an `id` names.
"""
# Each name a version (hookline.core.versions.version_name, a date that parses: the rule words each refusal, naming it).
Renderings = Annotated[
    Annotated[
        dict[fields.VersionName, dict[str, Any]],
        Field(max_length=validation.MAX_SUPPLIED_VERSIONS),
        KeysMatch(),
        Worded(validation.supplied_versions),
    ]
    | None,
    Refused("", wrong_type="'versions' must be an object: payload version to that version's 'data'"),
]
Data = Annotated[dict[str, Any], Refused("", wrong_type="'{name}' must be a JSON object")]


class _EventFields(CheckedBody):
    type: fields.EventType
    data: Data = Field(description=_DATA)
    # Left out, None; null is refused, as any value that is not a key.
    id: fields.IdempotencyKey = Field(  # type: ignore[assignment]
        default=None,
        description="The tenant's idempotency key: letters, digits and `_.:-`, up to 128\ncharacters. The event's id (`evt_…`) is derived from it.\n",
    )
    versions: Renderings = optional(_VERSIONS)

    def input(self) -> validation.EventInput:
        """The event as the services stage it."""
        return validation.EventInput(
            type=self.type, data=self.data, idempotency_key=self.id, customer=getattr(self, "customer", None), versions=self.versions or {}
        )


class CreateEvent(_EventFields):
    customer: fields.customer_uid(or_null=True) = optional(  # type: ignore[valid-type]
        "The customer it is for: only that customer's subscribed endpoints\nreceive it. Absent or null, only the tenant's own endpoints do. "
        "It is\npart of the request an `id` names.\n"
    )


def _no_customer(body: dict[str, Any]) -> None:
    if "customer" in body:
        raise ValidationFailed("'customer' is not allowed: a broadcast goes to every customer's endpoints and the tenant's own", code="unknown_field")


class CreateBroadcast(_EventFields):
    """The body of `POST /v1/events`, without `customer`."""

    data: Data = Field(description="The payload, any JSON object (nesting up to 32 levels); delivered as the webhook body's `data`.")
    id: fields.IdempotencyKey = Field(  # type: ignore[assignment]
        default=None,
        description=(
            "The tenant's idempotency key, as on `POST /v1/events` (the same keys:\nan ordinary event's `id` is 409 here). The event's id is derived from it.\n"
        ),
    )

    _rules = body_rule(_no_customer)


def _each_event(value: Any) -> list[CreateEvent]:
    """The batch's own rules, then each event's, once, the refusal naming it (`events[2]: 'data' is required`): one
    bad event refuses the batch."""
    if not isinstance(value, list):
        raise fields.refusal(ValidationFailed("'events' must be a JSON array", code="wrong_type"))
    if not 1 <= len(value) <= validation.MAX_BATCH_EVENTS:
        raise fields.refusal(ValidationFailed(f"'events' must hold 1 to {validation.MAX_BATCH_EVENTS} events; it holds {len(value)}"))
    return [_event_of(i, item) for i, item in enumerate(value)]


def _event_of(index: int, item: Any) -> CreateEvent:
    if not isinstance(item, dict):
        raise fields.refusal(ValidationFailed(f"events[{index}] must be a JSON object", code="wrong_type"))
    try:
        return CreateEvent.model_validate(item)
    except ValidationFailed as exc:  # an unknown or missing field, found before the event's fields are read
        raise fields.refusal(ValidationFailed(f"events[{index}]: {exc.message}", code=exc.code)) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        kind = str(first["type"])
        if kind.startswith("hookline."):
            raise PydanticCustomError(kind, f"events[{index}]: {first['msg']}") from None
        name = ".".join(str(p) for p in first["loc"][:1])
        expected = {"string_type": "a string", "dict_type": "an object"}.get(kind, "of another type")
        raise PydanticCustomError("hookline.wrong_type", f"events[{index}]: '{name}' must be {expected}") from None


class CreateEventBatch(CheckedBody):
    events: Annotated[list[CreateEvent], BeforeValidator(_each_event)] = Field(
        min_length=1,
        max_length=validation.MAX_BATCH_EVENTS,
        description="Each as the body of `POST /v1/events`; at most `HOOKLINE_MAX_BATCH_BYTES` in all.",
    )


# -- answers --------------------------------------------------------------------------------------------------------


class EventAccepted(Answer):
    id: EventId
    deliveries: int = Field(ge=0, description="Deliveries created (one per subscribed endpoint, paused ones included).")


_REFUSED_STATUS = """404 `customer_not_found`; 409 `idempotency_conflict`; 413 `payload_too_large` (its renderings
add up to more than 300,000 bytes); 422 `schema_violation`, `version_unavailable`,
`unknown_version` or `invalid_schema` (as `POST /v1/events` answers them); 503 `unavailable`
(repeat it with the same `id`).
"""


class EventBatchResult(Answer):
    """One event's result, in request order: accepted (202, its `id` and `deliveries`), or refused (its `error`)."""

    index: int = Field(ge=0)
    status: int
    id: EventId | None = absent_unless_set()
    deliveries: int | None = absent_unless_set(ge=0)
    error: ErrorDetail | None = absent_unless_set()

    @classmethod
    def accepted(cls, index: int, answer: EventAccepted) -> Self:
        return cls(index=index, status=202, id=answer.id, deliveries=answer.deliveries)

    @classmethod
    def refused(cls, index: int, error: HooklineError) -> Self:
        return cls(index=index, status=error.status, error=ErrorDetail(code=error.code, message=error.message, **_details(error)))

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """The two shapes a result has, as the document names them (one of)."""
        fields = handler.resolve_ref_schema(handler(core_schema))["properties"]
        index, event_id, deliveries = fields["index"], fields["id"]["anyOf"][0], fields["deliveries"]["anyOf"][0]
        error = {"$ref": "#/components/schemas/ErrorDetail"}  # the envelope's, one component
        return {
            "description": "One event's result, in request order.",
            "oneOf": [
                {
                    "type": "object",
                    "required": ["index", "status", "id", "deliveries"],
                    "properties": {"index": index, "status": {"const": 202}, "id": event_id, "deliveries": deliveries},
                },
                {
                    "type": "object",
                    "required": ["index", "status", "error"],
                    "properties": {
                        "index": index,
                        "status": {"type": "integer", "enum": [404, 409, 413, 422, 503], "description": _REFUSED_STATUS},
                        "error": error,
                    },
                },
            ],
        }


def _details(error: HooklineError) -> dict[str, Any]:
    """The fields an error adds beside its code and message (a schema violation's pointer, …)."""
    detail = error.envelope()["error"]
    return {k: v for k, v in detail.items() if k not in ("code", "message")}


class EventBatchAccepted(Answer):
    accepted: int = Field(ge=0)
    failed: int = Field(ge=0)
    results: list[EventBatchResult]

    @classmethod
    def of(cls, results: list[EventBatchResult]) -> Self:
        accepted = sum(1 for r in results if r.status == 202)
        return cls(accepted=accepted, failed=len(results) - accepted, results=results)


class BroadcastAccepted(Answer):
    id: EventId
    status: Literal["fanning_out"] = Field(description="Always `fanning_out`, on a repeat too; `GET /v1/events/{event_id}` shows the progress.")
    job: JobSummary = Field(description="The fan-out's job (one per broadcast, a repeat names the same); `GET /v1/jobs/{job_id}` shows its steps and counts.")


class BroadcastProgress(Answer):
    status: Literal["fanning_out", "done"] = Field(description="`done` once every page of endpoints has its deliveries created and queued.")
    pages: int = Field(ge=0, description="Pages of (up to 100) endpoints fanned out so far.")
    endpoints_scanned: int = Field(ge=0, description="The tenant's endpoints looked at so far, subscribed or not.")
    deliveries: int = Field(ge=0, description="Deliveries created so far, one per subscribed endpoint (paused ones included).")
    paused: int = Field(ge=0, description="Of those, stored `paused` because their endpoint was disabled.")

    @classmethod
    def of(cls, fanout: Fanout) -> Self:
        return cls(status=fanout.status, pages=fanout.step, endpoints_scanned=fanout.endpoints_scanned, deliveries=fanout.deliveries, paused=fanout.paused)


class BroadcastStatus(Answer):
    """What a portal session sees of a broadcast's progress: its status alone (the counters span every customer)."""

    status: Literal["fanning_out", "done"] = Field(description="`done` once every page of endpoints has its deliveries created and queued.")


class Attempt(Answer):
    number: int = Field(ge=1, description="Counts up across the delivery's whole history (retries and replays included).")
    at: Timestamp
    status_code: int | None = Field(description="The receiver's status; null when no response came.")
    error: str | None = Field(
        description=(
            "Why no response came: `timeout`, `connection_refused`, `connection_reset`,\n`connection_error`, `dns_failure`, `tls_error`, "
            "`ssrf_blocked`,\n`invalid_url`, `endpoint_deleted`, `event_deleted`.\n"
        )
    )
    duration_ms: int = Field(ge=0)
    outcome: Literal["succeeded", "failed", "retrying"] = Field(
        description="`retrying`: another attempt is scheduled; `failed`: the delivery gave up (or the failure is permanent)."
    )
    reason: str = Field(description="Why the attempt ended so, for humans (e.g. `503 is retryable`).")
    response_body: str = Field(description="The start of the receiver's response body (`HOOKLINE_RESPONSE_BODY_LIMIT_BYTES`, 4 KB by default).")
    trigger: Literal["scheduled", "manual"] = Field(description="`manual`: a replay, a redrive or a one-off retry.")

    @classmethod
    def of(cls, attempt: models.Attempt) -> Self:
        return cls.model_validate(attempt.public())


class Delivery(Answer):
    """One event to one endpoint."""

    id: DeliveryId
    endpoint_id: EndpointId
    status: DeliveryStatus = Field(description="`paused`: its endpoint is disabled; it is queued when the endpoint is re-enabled.")
    version: str | None = Field(
        description=(
            "The payload version its body was rendered at, fixed when the event was accepted (its endpoint's\npin then); every attempt "
            "sends those bytes. Null for a delivery of an event accepted before\npayload versions existed.\n"
        )
    )
    generation: int = Field(ge=0, description="Bumped by every manual retry or replay, each with a fresh attempt budget.")
    created_at: Timestamp
    updated_at: Timestamp
    attempts: list[Attempt]
    polled_at: Timestamp | SkipJsonSchema[None] = absent_unless_set(
        "A polling endpoint's delivery: when a poll first moved past it (its receiver has it). Until then `succeeded` means it waits in the endpoint's mailbox."
    )

    @classmethod
    def of(cls, delivery: models.Delivery, **more: Any) -> Self:
        return cls.model_validate({**delivery.public(), **more})


class EndpointDelivery(Delivery):
    """A delivery listed under its endpoint, with its event's id."""

    event_id: EventId


class AttemptSent(Attempt):
    """An attempt with the headers its request carried."""

    request_headers: dict[str, str] = Field(
        description=(
            "The headers the attempt was sent with, rebuilt: `webhook-id`, `webhook-timestamp` (its send time: `at`\nless "
            "`duration_ms`, to the second), the signature headers of the endpoint's `signing` redacted (`webhook-signature`\n"
            "by default), `content-type`, `user-agent`, and the endpoint's custom headers and signing as configured now (a\n"
            "destination gets the signature headers as attributes or metadata)."
        )
    )


class DeliveryDetail(Delivery):
    """A delivery with its event's id and type, and each attempt's headers."""

    event_id: EventId
    event_type: EventTypeName
    attempts: list[AttemptSent]  # type: ignore[assignment]  # the attempts with their headers


class DeliveryPage(Answer):
    items: list[EndpointDelivery]
    next: NextCursor


class HourCount(Answer):
    hour: Timestamp
    count: int = Field(ge=1)


class FailureHistogram(Answer):
    since: Timestamp
    until: Timestamp
    status: IndexedStatus
    hours: list[HourCount] = Field(description="Oldest first; hours without any are left out.")
    total: int = Field(ge=0)
    truncated: bool


class Event(Answer):
    id: EventId
    type: str
    customer: str | None = Field(description="The customer it was sent for; null when it was for the tenant's own endpoints.")
    version: str | None = Field(
        description="The payload version `data` is at (the tenant's default at acceptance); null for an event accepted before payload versions existed."
    )
    data: dict[str, Any] = Field(description="The payload as accepted (at `version`).")
    created_at: Timestamp
    deliveries: list[Delivery] = Field(description="Every delivery of an ordinary event; one page of a broadcast's.")
    broadcast: BroadcastProgress | BroadcastStatus | MISSING = Field(
        default=MISSING,
        description="Only on a broadcast (`POST /v1/events/broadcast`); a portal session sees its `status` alone.",
    )
    deliveries_next: str | MISSING | None = Field(
        default=MISSING, description="Only on a broadcast; the cursor of its next page of deliveries, null on the last one."
    )

    @classmethod
    def of(cls, event: models.Event, deliveries: list[models.Delivery], **broadcast: Any) -> Self:
        """The event and the deliveries shown with it; a broadcast's progress and next page as `broadcast`, `deliveries_next`."""
        return cls(
            id=event.id,
            type=event.type,
            customer=event.customer,
            version=event.version,
            data=event.data,
            created_at=event.created_at,
            deliveries=[Delivery.of(d) for d in deliveries],
            **broadcast,
        )


class RetryAccepted(Answer):
    id: DeliveryId
    event_id: EventId
    status: Literal["pending"]
    generation: int = Field(ge=1, description="The delivery's new generation.")
