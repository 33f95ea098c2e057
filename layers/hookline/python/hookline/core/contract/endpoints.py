"""Endpoints: the bodies of `/v1/endpoints` and `/v1/endpoints/{endpoint_id}` (and its secret, test, enable and stats).

A request's fields are checked by hookline.core.validation's rules, in the order
and with the messages they had before the models: unknown fields first (all of
them named), then a missing `url`, then each field. The URL's form is checked
here; whether the stack may send to it (the SSRF policy, from the settings) is
the service's check.
"""

from __future__ import annotations

import ipaddress
from typing import Annotated, Any, Literal, Self

from pydantic import BeforeValidator, ConfigDict, Field

from hookline.core import destinations, models, ssrf, text, validation
from hookline.core.contract import fields
from hookline.core.contract.common import (
    AS_SHOWN,
    CUSTOMER_UID_SCHEMA,
    ENDPOINT_ID_SCHEMA,
    EVENT_ID_SCHEMA,
    EVENT_TYPE_SCHEMA,
    TIMESTAMP_SCHEMA,
    VERSION_NAME_SCHEMA,
    Answer,
    CheckedBody,
    NextCursor,
    Timestamp,
    absent_unless_set,
    body_rule,
    inline,
    no_default,
    nullable,
    optional,
    rule,
    shown,
)
from hookline.core.contract.destinations import URL_SCHEMA
from hookline.core.contract.destinations import Destination as GivenDestination
from hookline.core.contract.jobs import JobSummary
from hookline.core.errors import ValidationFailed
from hookline.core.filters import MAX_DEPTH, MAX_FILTER_BYTES, MAX_MATCH_VALUES, EventFilter, parse_filter
from hookline.core.rotation import MAX_LIVE_SECRETS
from hookline.core.versions import version_name

# -- the values' schemas, as the document shows them ------------------------------------------------------------

SECRET_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": "^whsec_[A-Za-z0-9+/]{32}$",
    "description": "A Standard Webhooks signing secret (`whsec_` + base64 of 24 random bytes).",
    "examples": ["whsec_F6olegGyEf36/vms9m44a0nOwYo8ufdX"],
}
_HOOKLINE_HEADERS = "|".join(
    "".join(f"[{c.upper()}{c}]" if c.isalpha() else c for c in name)
    for name in ("host", "content-length", "content-type", "connection", "transfer-encoding", "user-agent")
)
HEADERS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": (
        "Extra HTTP headers sent with every delivery (and the test event): up to 20,\n"
        "names and values adding up to at most 8192 bytes. Names are RFC 9110 tokens,\n"
        "unique regardless of case; `host`, `content-length`, `content-type`,\n"
        "`connection`, `transfer-encoding`, `user-agent` and any `webhook-*` are set\n"
        "by hookline and refused (422 `forbidden_header`). Values are single-line: no\n"
        "control characters other than tab.\n"
    ),
    "maxProperties": validation.MAX_HEADERS,
    "propertyNames": {
        "pattern": "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$",
        "not": {"pattern": f"^({_HOOKLINE_HEADERS}|[Ww][Ee][Bb][Hh][Oo][Oo][Kk]-.*)$"},
    },
    "additionalProperties": {"type": "string", "pattern": "^[^\\x00-\\x08\\x0A-\\x1F]*$"},
    "examples": [{"X-Api-Key": "b1llIng-rcv-7f3a", "X-Environment": "production"}],
}


# -- the rules of a request's fields (hookline.core.validation's, with their codes and messages) ---------------

# The URL's form, whatever the stack's policy: the service checks the policy (HOOKLINE_ALLOW_HTTP, ports, addresses).
_ANY_DESTINATION = ssrf.UrlPolicy(allowed_networks=(ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")), allow_http=True, allowed_ports=None)


def url_form(value: Any) -> str:
    return validation.validate_url(value, _ANY_DESTINATION)


def _headers(value: Any) -> dict[str, str]:
    return dict(validation.validate_headers(value))


def _customer(value: Any) -> str | None:
    return None if value is None else validation.customer_uid(value)


def _pin(value: Any) -> str | None:
    return None if value is None else version_name(value)


def _status(value: Any) -> str:
    if value not in ("active", "disabled"):
        raise ValidationFailed("'status' must be 'active' or 'disabled'")
    return str(value)


# -- requests ----------------------------------------------------------------------------------------------------

_EVENT_TYPES_SCHEMA = nullable({"type": "array", "maxItems": validation.MAX_EVENT_TYPES, "items": EVENT_TYPE_SCHEMA})
_DESCRIPTION_SCHEMA = nullable({"type": "string", "maxLength": validation.MAX_DESCRIPTION, "pattern": text.LINES_PATTERN})

Url = Annotated[str, rule(url_form), shown(URL_SCHEMA)]
# Null is every type, empty, none: the rule makes it so, the field's value is never None.
EventTypes = Annotated[tuple[str, ...], rule(validation.validate_event_types), shown(_EVENT_TYPES_SCHEMA)]
Description = Annotated[str, rule(validation.validate_description), shown(_DESCRIPTION_SCHEMA)]
Headers = Annotated[dict[str, str], rule(_headers), shown(nullable(HEADERS_SCHEMA))]
# Refused when null (the rule says so): None only when the field is not given.
GivenUrl = Annotated[str | None, rule(url_form), shown(URL_SCHEMA)]


def _filter(value: Any) -> EventFilter | None:
    return None if value is None else parse_filter(value)


FILTER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "minProperties": 1,  # parse_filter refuses an empty pattern
    "maxProperties": 4,
    "description": (
        'A content filter: an EventBridge event pattern over `{"type", "customer", "data"}` (exact values,\n'
        "`prefix`, `suffix`, `equals-ignore-case`, `anything-but`, `numeric`, `exists`, `$or`; no `wildcard`,\n"
        f"no regular expressions; at most {MAX_FILTER_BYTES} bytes, {MAX_DEPTH} levels, {MAX_MATCH_VALUES} values). An event\n"
        "of a subscribed type gets a delivery only if it matches. Anything else is 422 `invalid_filter`.\n"
    ),
    "examples": [{"data": {"amount": [{"numeric": [">=", 100]}]}}],
}
Filter = Annotated[EventFilter | None, rule(_filter), shown(nullable(FILTER_SCHEMA))]


def _destination(value: Any) -> destinations.Destination | str:
    if value is None:
        raise ValidationFailed("'destination' must be an object with a 'type'", code=destinations.CODE)
    return destinations.parse_destination(value, url_form)


# Checked by the server's rule (its refusals, as before the models); shown as the union of the types' models.
Where = Annotated[destinations.Destination | str | None, BeforeValidator(_destination, json_schema_input_type=GivenDestination)]


def _one_place(body: dict[str, Any]) -> None:
    validation.reject_unknown(body, set(UpdateEndpoint.model_fields))  # unknown fields are named first
    if "url" in body and "destination" in body:
        raise ValidationFailed("give 'url' or 'destination', not both", code=destinations.CODE)


def _a_place(body: dict[str, Any]) -> None:
    validation.reject_unknown(body, set(CreateEndpoint.model_fields))  # unknown fields are named first
    if "url" in body and "destination" in body:
        raise ValidationFailed("give 'url' or 'destination', not both", code=destinations.CODE)
    if "url" not in body and "destination" not in body:
        raise ValidationFailed("'url' is required (or a 'destination')", code="missing_field")


def place(url: str | None, destination: destinations.Destination | str | None) -> tuple[str, destinations.Destination | None]:
    """Where a body says deliveries go: (the HTTP URL, "" for another destination; the other destination, or None)."""
    if isinstance(destination, destinations.Destination):
        return "", destination
    return (destination if isinstance(destination, str) else url or ""), None


# `url` and `destination` name the same thing: at most one of them (_one_place, _a_place), as the schema says.
_NOT_BOTH: dict[str, Any] = {"not": {"required": ["url", "destination"]}}


class CreateEndpoint(CheckedBody):
    # A new endpoint. Its fields are checked in this order (the first refusal is the answer).
    # One of them is needed: without a `destination`, `url` is required.
    model_config = ConfigDict(json_schema_extra={**_NOT_BOTH, "if": {"not": {"required": ["destination"]}}, "then": {"required": ["url"]}})

    _place = body_rule(_a_place)
    url: GivenUrl = optional('Where deliveries are POSTed: the same as `destination` `{"type": "http", "url": …}`.')
    destination: Where = optional()
    event_types: EventTypes = optional("The event types to deliver; absent, null or empty means every type. Duplicates are dropped.", ())
    description: Description = optional("Free text for humans, in lines (no control characters but tab and line feed); null is the same as empty.", "")
    # None: not given (the default, or the customer's ceiling if that is lower); the document shows that default.
    rate_limit_per_second: fields.Rate = Field(default=None, json_schema_extra={"default": int(models.DEFAULT_RATE_LIMIT_PER_SECOND)})
    max_concurrency: fields.Concurrency = Field(default=None, json_schema_extra={"default": models.DEFAULT_MAX_CONCURRENCY})
    headers: Headers = Field(
        default_factory=dict, description="Custom headers sent with every delivery; null is the same as none.", json_schema_extra=no_default
    )
    customer: Annotated[str | None, rule(_customer), shown(nullable(CUSTOMER_UID_SCHEMA))] = optional(
        "The customer it belongs to, for life (it cannot be changed); absent or null, the tenant's own."
    )
    version: Annotated[str | None, rule(_pin), shown(nullable(VERSION_NAME_SCHEMA))] = optional(
        "The payload version to pin it to; absent or null, the tenant's default. Unknown: 422\n`unknown_version`; past its sunset: 422 `version_sunset`.\n"
    )
    filter: Filter = optional("Absent or null: every event of its types.")
    ordered: Annotated[bool, rule(lambda v: validation.validate_flag(v, "ordered"))] = Field(
        default=False,
        description=(
            "Deliver in the order hookline accepted the events, one at a time: a delivery that fails holds\n"
            'the ones behind it until it succeeds or is given up (README, "Ordered endpoints"). Fixed at creation.\n'
        ),
    )

    def place(self) -> tuple[str, destinations.Destination | None]:
        return place(self.url, self.destination)


class UpdateEndpoint(CheckedBody):
    """Only the fields given change. A null `event_types`, `description` or `headers` resets it to its default (every type, empty, none)."""

    # The fields are checked in this order (the first refusal is the answer); `changes()` are the ones given.
    model_config = ConfigDict(json_schema_extra=_NOT_BOTH)

    rate_limit_per_second: fields.Rate = optional()  # None: not given
    max_concurrency: fields.Concurrency = optional()
    headers: Headers = optional("Replaces the custom headers as a whole (`{}` or null removes them all).", {})
    _place = body_rule(_one_place)
    url: GivenUrl = optional("A new URL (the endpoint becomes an HTTP one).")
    destination: Where = optional("A new destination (its external id stays the endpoint's).")
    event_types: EventTypes = optional(default=())
    description: Description = optional(default="")
    version: Annotated[str | None, rule(version_name), shown(VERSION_NAME_SCHEMA)] = optional(
        "Pin it to another payload version: taken only after the endpoint answers 2xx to a test event\n"
        "at that version (else 424, and nothing changes). Unknown: 422 `unknown_version`; past its\n"
        "sunset: 422 `version_sunset`.\n"
    )
    status: Annotated[Literal["active", "disabled"] | None, rule(_status), shown({"type": "string", "enum": ["active", "disabled"]})] = optional(
        "`disabled` pauses new deliveries (reason `manual`); `active` resumes them."
    )
    filter: Filter = optional("Replaces the content filter; null removes it (every event of its types).")

    def changes(self) -> dict[str, Any]:
        """The fields given, as the endpoint keeps them (headers as pairs)."""
        given = {name: getattr(self, name) for name in self.model_fields_set}
        if "url" in given or "destination" in given:
            given["url"], given["destination"] = place(given.get("url"), given.get("destination"))
        if "headers" in given:
            given["headers"] = tuple(given["headers"].items())
        return given


# -- answers -----------------------------------------------------------------------------------------------------

SHOWN_DESTINATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["type"],
    "description": (
        'Where deliveries go, as given (an HTTP endpoint\'s is `{"type": "http", "url": …}`). A non-HTTP one also\n'
        "shows `external_id`: what the customer's role must require (`sts:ExternalId`) when hookline assumes it.\n"
    ),
    "additionalProperties": False,
    "properties": {
        "type": {"type": "string", "enum": list(destinations.TYPES)},
        **{name: {"type": "string"} for name in destinations.ADDRESS_FIELD.values()},
        "source": {"type": "string"},
        "prefix": {"type": "string"},
        "role_arn": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "external_id": {"type": "string", "description": "Generated per endpoint; the same for its life."},
    },
    "examples": [
        {
            "type": "sqs",
            "queue_url": "https://sqs.eu-west-1.amazonaws.com/111122223333/orders",
            "role_arn": "arn:aws:iam::111122223333:role/hookline-delivery-orders",
            "external_id": "hookline-5f0c9e2a4b7d4c1e8a3f6b2d9e0c7a14",
        }
    ],
}

ENDPOINT_EXAMPLE: dict[str, Any] = {
    "id": "ep_01kkntq2cnt8b8hz3pj95wjvcc",
    "customer": None,
    "url": "https://billing.example.com/webhooks",
    "destination": {"type": "http", "url": "https://billing.example.com/webhooks"},
    "event_types": ["invoice.paid", "invoice.voided"],
    "description": "Billing service",
    "status": "active",
    "rate_limit_per_second": 5.0,
    "max_concurrency": 2,
    "headers": {"X-Api-Key": "b1llIng-rcv-7f3a", "X-Environment": "production"},
    "version": "2026-01-01",
    "created_at": "2026-03-14T09:26:53.589Z",
    "updated_at": "2026-03-14T09:26:53.589Z",
}


class Endpoint(Answer):
    """An endpoint as the API shows it, never with its secret."""

    id: Annotated[str, shown(ENDPOINT_ID_SCHEMA)]
    customer: str | None = Field(description="The uid of the customer it belongs to; null for the tenant's own.")
    url: Annotated[str | None, fields.Format("uri")] = Field(description="Where deliveries are POSTed; null for a non-HTTP destination.")
    destination: Annotated[dict[str, Any], shown(SHOWN_DESTINATION_SCHEMA)]
    event_types: list[str] = Field(description="Subscribed event types; empty means every type.")
    description: str
    status: Literal["active", "disabled"] = Field(description="A disabled endpoint's new deliveries are stored `paused` until it is re-enabled.")
    rate_limit_per_second: float
    max_concurrency: int
    headers: dict[str, str] = Field(description="Custom headers sent with every delivery.")
    version: Annotated[str, shown(VERSION_NAME_SCHEMA)] = Field(
        description=(
            "The payload version it is pinned to: what shape of `data` its webhooks carry (each body's\n"
            "`version` names it). An endpoint created before versions existed shows `2026-01-01`.\n"
        ),
    )
    filter: dict[str, Any] | None = optional("Its content filter (an EventBridge event pattern), or null: every event of its types.")
    ordered: bool = optional("Delivered one at a time, in the order the events were accepted.", False)
    created_at: Timestamp
    updated_at: Timestamp
    disabled_reason: Annotated[str | None, shown({"type": "string", "examples": ["manual"]})] = absent_unless_set(
        "Present while disabled: `manual` (PATCH), `failing` (its circuit stayed open for `HOOKLINE_DISABLE_AFTER_SECONDS`), `gone` (the receiver answered 410), "
        "or, for a non-HTTP destination, `access_denied` (it or its role refused hookline), `destination_missing` (it or its role does not exist) or "
        "`kms_refused` (its KMS key refused). Its deliveries are paused until it is enabled again.",
    )
    paused_until: Annotated[str | None, shown({"type": "string", "format": "date-time"})] = absent_unless_set(
        "Present while a receiver's `Retry-After` pauses every delivery to the endpoint."
    )

    @classmethod
    def of(cls, endpoint: models.Endpoint, **more: Any) -> Self:
        """The answer for a stored endpoint (hookline.core.models.Endpoint.public: never its secret), with `more` fields."""
        return cls.model_validate({**endpoint.public(), **more})


class EndpointCreated(Endpoint):
    """The new endpoint, with its signing secret (shown here, on rotation and by `GET …/secret`)."""

    secret: Annotated[str, shown(SECRET_SCHEMA)]


class Circuit(Answer):
    state: Literal["closed", "open", "half_open"] = Field(description="`open`: nothing is sent until `open_until`; `half_open`: one probe at a time.")
    consecutive_failures: int = Field(ge=0)
    open_until: Annotated[str | None, fields.Format("date-time")] = Field(description="End of the current cooldown; null while closed.")
    trips: int = Field(ge=0, description="How often the breaker has opened.")


class AdaptiveConcurrency(Answer):
    # Adaptive concurrency (described on EndpointHealth's field, in one paragraph: a docstring's line breaks would be the description's).

    limit: int = Field(ge=1, description="Requests it may have in flight now.")
    ceiling: int = Field(ge=1, description="The endpoint's `max_concurrency`.")
    latency_ms: float | None = Field(description="The latency baseline the limit is measured against (a slow moving average); null before any answer.")
    lane: Literal["first", "retry"] = Field(
        description=(
            "`retry`: the endpoint is slow (a baseline of 500 ms or more) or timing out, and is served from the retry "
            "function only, so it never holds the workers that send other endpoints' first attempts."
        )
    )


class LastEmail(Answer):
    outcome: Literal["sent", "failed"]
    at: Annotated[str, fields.Format("date-time")] = Field(description="When the send was tried.")
    about: Literal["disabled", "recovered", "version_sunset"] = Field(description="What the email told the customer.")
    error: str | None = Field(description="A failed send's error code (`MessageRejected`, `AccessDeniedException`, ...); null when sent.")


class EndpointHealth(Answer):
    circuit: Annotated[Circuit, AS_SHOWN, inline(Circuit)]
    success_rate: float = Field(
        ge=0,
        le=1,
        description="Share of the endpoint's attempts in the last 24 hours that succeeded, from its hourly statistics (1 when there were none).",
    )
    attempts: int = Field(ge=0, description="How many attempts `success_rate` is over: the endpoint's attempts in the last 24 hours, from the same statistics.")
    last_error: str | None = Field(description='The last failure, a status code (`"503"`) or an error class (`timeout`, `connection_refused`, …).')
    last_error_at: Annotated[str | None, fields.Format("date-time")]
    effective_rate_per_second: float = Field(description="The rate hookline sends at now (below the limit for a while after a 429).")
    concurrency: Annotated[AdaptiveConcurrency, AS_SHOWN, inline(AdaptiveConcurrency)] = Field(
        description=(
            "Adaptive concurrency. An endpoint starts at `HOOKLINE_INITIAL_CONCURRENCY` requests in flight; while its "
            "latency holds steady and it is kept busy, each batch raises the limit, up to `max_concurrency` (the ceiling); "
            "rising latency, a timeout, 429, 502, 503 or 504 lowers it."
        )
    )
    last_email: Annotated[LastEmail | None, inline(LastEmail, or_null=True)] = Field(
        description=(
            "How the last email to the endpoint's customer went (one is sent when the endpoint is disabled, recovers, or "
            "receives a payload version past its sunset, to a customer with an email address, when the stack has a "
            "sender); null before any. A failed one stays until a later email goes out. The error is an error code, never "
            "an address or a message; `MessageRejected` usually means the sender identity is not verified in SES, or the "
            "account is in the SES sandbox and the recipient is not verified; `AccessDeniedException`, that the functions "
            "may not send from that identity."
        )
    )


class EndpointBacklog(Answer):
    """The endpoint's failed, paused and pending deliveries, each counted by one read of at most 1,000 (`more`, at least)."""

    failed: int = Field(ge=0)
    paused: int = Field(ge=0)
    pending: int = Field(
        ge=0,
        description="Waiting for a retry: an attempt was recorded and another is due. A delivery not attempted yet (queued, or held back by the circuit) is not counted.",
    )
    more: bool


class LineHead(Answer):
    """The delivery an ordered endpoint's line waits behind: every later delivery to the endpoint waits until it
    succeeds or is given up."""

    delivery_id: str
    event_id: str
    attempt: int = Field(ge=1, description="The attempt it waits to make.")
    outcome: Literal["retrying", "deferred"] = Field(
        description="`retrying`: its last attempt failed; `deferred`: not sent, the endpoint's state said wait (its circuit, a `Retry-After`, its rate limit)."
    )
    reason: str = Field(description="Why, in words: the last attempt's classification, or the deferral's cause.")
    status_code: int | None = Field(description="The last attempt's status code; null when it had none (a timeout, a refused connection) or it was deferred.")
    error: str | None = Field(description="The last attempt's error class (`timeout`, `aws.AccessDenied`, …), or null.")
    next_at: Annotated[str, fields.Format("date-time")] = Field(description="When it is tried again.")
    since: Annotated[str, fields.Format("date-time")] = Field(description="Since when it has held the line.")


class EndpointWithHealth(Endpoint):
    health: EndpointHealth
    backlog: Annotated[EndpointBacklog, AS_SHOWN, inline(EndpointBacklog)]
    line: Annotated[LineHead | None, inline(LineHead, or_null=True)] = optional(
        "For an ordered endpoint, the delivery holding its line while one does; null otherwise (and always for an endpoint that is not ordered)."
    )


class TestOutcome(Answer):
    """The outcome of the synchronous test event sent by `POST …/enable`."""

    __test__ = False  # not a test class (pytest collects names starting with Test)

    webhook_id: Annotated[str, shown(EVENT_ID_SCHEMA)]
    status_code: int | None = Field(description="The receiver's status; null when no response came.")
    error: str | None = Field(description="Why no response came (`timeout`, `connection_refused`, `ssrf_blocked`, …).")
    duration_ms: int = Field(ge=0)
    detail: str = Field(description="More about a failure, up to 300 characters.")


class TestAttempt(Answer):
    """The outcome of `POST …/test`; nothing of it is stored."""

    __test__ = False

    webhook_id: Annotated[str, shown(EVENT_ID_SCHEMA)] = Field(description="The test webhook's `webhook-id`; no event is stored under it.")
    status_code: int | None = Field(description="The receiver's status; null when no response came.")
    error: str | None = Field(description="Why no response came (`timeout`, `connection_refused`, `ssrf_blocked`, …).")
    duration_ms: int = Field(ge=0)
    succeeded: bool = Field(description="The receiver answered 2xx.")
    response_body: str = Field(description="The receiver's response body, truncated to `HOOKLINE_RESPONSE_BODY_LIMIT_BYTES` as on attempts.")


class EndpointEnabled(Endpoint):
    test: TestOutcome
    requeue: JobSummary = Field(description="The job re-queueing the endpoint's paused deliveries (`GET /v1/jobs/{job_id}`).")


class EndpointPage(Answer):
    items: list[Endpoint]
    next: NextCursor


class PreviousSecretShown(Answer):
    secret: Annotated[str, shown(SECRET_SCHEMA)]
    valid_until: Timestamp = Field(description="Until then it signs every delivery too, whatever rotations follow.")


class EndpointSecret(Answer):
    secret: Annotated[str, shown(SECRET_SCHEMA)]
    created_at: Timestamp = Field(description="When `secret` became the current one: the endpoint's creation, or the rotation that made it.")
    previous_secrets: list[PreviousSecretShown] = Field(
        description=f"The secrets rotations replaced that still sign every delivery, each until its own `valid_until` (the one signing longest first; at most {MAX_LIVE_SECRETS - 1}); empty when only `secret` signs."
    )
    previous_secret: Annotated[str | None, shown(SECRET_SCHEMA)] = absent_unless_set(
        "The first of `previous_secrets` (the one the last rotation replaced), present while it signs: kept for clients that read one."
    )
    previous_expires_at: Annotated[str | None, shown(TIMESTAMP_SCHEMA)] = absent_unless_set(
        "When `previous_secret` stops signing; present with `previous_secret` only."
    )


class SecretRotated(Answer):
    secret: Annotated[str, shown(SECRET_SCHEMA)]
    previous_secret_valid_until: Timestamp = Field(
        description="Until then deliveries are signed with the secret this rotation replaced too; earlier secrets still sign until their own ends."
    )


class SecretsState(Answer):
    """What signs now, without a secret: when the current secret was made, and when each previous one stops signing."""

    current_created_at: Timestamp
    previous_valid_until: list[Timestamp] = Field(description="Each live previous secret's end, the one signing longest first.")


class RotationRefusedDetail(Answer):
    code: Literal["rotation_conflict", "too_many_secrets"]
    message: str
    secrets: Annotated[SecretsState, AS_SHOWN, inline(SecretsState)]


class RotationRefused(Answer):
    # The 409 of a rotation another one beat, or one that would make more than MAX_LIVE_SECRETS sign.

    error: Annotated[RotationRefusedDetail, AS_SHOWN, inline(RotationRefusedDetail)]


class TestEventFailedDetail(Answer):
    __test__ = False

    code: Literal["test_event_failed"]
    message: str
    attempt: TestOutcome


class TestEventFailed(Answer):
    # The 424 of a test event the receiver did not accept (the envelope of hookline.core.errors.FailedDependency).

    __test__ = False

    error: Annotated[TestEventFailedDetail, AS_SHOWN, inline(TestEventFailedDetail)]


class RoleTemplate(Answer):
    """A CloudFormation template for the customer's account: the role hookline assumes to deliver to the endpoint's
    destination. It trusts hookline's delivery roles only with the endpoint's `external_id`, and allows the one put
    (`sqs:SendMessage`, `sns:Publish`, `events:PutEvents`, `kinesis:PutRecord` or `s3:PutObject`) on the one resource;
    its `KmsKeyArn` parameter adds the key's use for an encrypted destination. Its output `RoleArn` is the
    destination's `role_arn`."""

    AWSTemplateFormatVersion: Literal["2010-09-09"]
    Description: str
    Parameters: dict[str, Any]
    Conditions: dict[str, Any]
    Resources: dict[str, Any]
    Outputs: dict[str, Any]
