"""Endpoints: the bodies of `/v1/endpoints` and `/v1/endpoints/{endpoint_id}` (and its secret, test, enable and stats).

A request's fields are types of hookline.core.contract.fields, each both the server's
check and the document's schema, with the codes and messages they had before the
models: unknown fields first (all of them named), then a missing `url`, then each
field. The URL's form is checked here; whether the stack may send to it (the SSRF
policy, from the settings) is the service's check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

import pydantic
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer
from pydantic.json_schema import SkipJsonSchema

from hookline.core import destinations, models, schemes, validation
from hookline.core.contract import auth as given_auth
from hookline.core.contract import fields, signing
from hookline.core.contract.common import (
    AS_SHOWN,
    Answer,
    CheckedBody,
    EndpointId,
    EventId,
    NextCursor,
    Timestamp,
    absent_unless_set,
    body_rule,
    inline,
    optional,
    rule,
)
from hookline.core.contract.destinations import Destination as GivenDestination
from hookline.core.contract.jobs import JobSummary
from hookline.core.errors import ValidationFailed
from hookline.core.rotation import MAX_LIVE_SECRETS
from hookline.core.versions import version_name

# -- the values' schemas, as the document shows them ------------------------------------------------------------

# What hookline.core.signing.generate_secret makes (every release has): the answers' secrets are checked against it too.
Secret = Annotated[
    str,
    Field(
        pattern="^whsec_[A-Za-z0-9+/]{32}$",
        description="A Standard Webhooks signing secret (`whsec_` + base64 of 24 random bytes).",
        examples=["whsec_F6olegGyEf36/vms9m44a0nOwYo8ufdX"],
    ),
]


def _signing(value: Any) -> schemes.Signing:
    return schemes.parse_signing(value)


def _as_given(value: schemes.Signing) -> dict[str, Any]:
    return value.to_json()


# Checked by the server's rule (hookline.core.schemes.parse_signing: its refusals); shown as the union of the forms'
# models; dumped as JSON gives it. Typed Any for pydantic, so that no schema of hookline.core.schemes' dataclasses is
# built (the document would hold their definitions, unreferenced); what it holds once read is a schemes.Signing.
if TYPE_CHECKING:
    GivenSigning = schemes.Signing
else:
    GivenSigning = Annotated[
        Any,
        BeforeValidator(_signing, json_schema_input_type=signing.Signing | None),
        PlainSerializer(_as_given, return_type=dict[str, Any]),
    ]

# -- requests ----------------------------------------------------------------------------------------------------


def _pin(value: Any) -> str | None:
    return None if value is None else version_name(value)


def _destination(value: Any) -> destinations.Destination | str:
    if value is None:
        raise ValidationFailed("'destination' must be an object with a 'type'", code=destinations.CODE)
    return destinations.parse_destination(value, fields.url_form)


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


# A destination other than HTTP with custom headers: the service refuses it (services.endpoints, _check_place), as a
# destination has nowhere to put them.
_HEADERS_FOR_HTTP_ONLY = {
    "if": {
        "required": ["destination", "headers"],
        "properties": {"destination": {"type": "object", "required": ["type"], "properties": {"type": {"not": {"const": destinations.HTTP}}}}},
    },
    "then": {"properties": {"headers": {"anyOf": [{"type": "null"}, {"type": "object", "maxProperties": 0}]}}},
}


def _placed(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """The document's rules across `url`, `destination` and `headers`: at most one of url and destination, which name the
    same thing (_one_place, _a_place check it); a new endpoint's body needs `url` when it has no `destination`; custom
    headers only with an HTTP destination (or a url)."""
    schema["not"] = {"required": ["url", "destination"]}
    schema["allOf"] = [_HEADERS_FOR_HTTP_ONLY]
    if model is CreateEndpoint:
        schema.update({"if": {"not": {"required": ["destination"]}}, "then": {"required": ["url"]}})


class _Placed(CheckedBody):
    model_config = ConfigDict(json_schema_extra=_placed)  # url and destination: a rule across two fields, the object's not/if/then


class CreateEndpoint(_Placed):
    # A new endpoint. Its fields are checked in this order (the first refusal is the answer).
    # One of them is needed: without a `destination`, `url` is required.

    _place = body_rule(_a_place)
    url: fields.Url = optional('Where deliveries are POSTed: the same as `destination` `{"type": "http", "url": …}`.')
    destination: Where = optional()
    event_types: fields.EventTypes = optional("The event types to deliver; absent, null or empty means every type. Duplicates are dropped.", ())
    description: fields.Description = optional("Free text for humans, in lines (no control characters but tab and line feed); null is the same as empty.", "")
    # Left out: the default, or the customer's ceiling if that is lower (limits() tells the two apart).
    rate_limit_per_second: fields.Rate = int(models.DEFAULT_RATE_LIMIT_PER_SECOND)
    max_concurrency: fields.Concurrency = models.DEFAULT_MAX_CONCURRENCY
    headers: fields.Headers = optional("Custom headers sent with every delivery; null is the same as none.", {})
    customer: fields.customer_uid(or_null=True) = optional(  # type: ignore[valid-type]
        "The customer it belongs to, for life (it cannot be changed); absent or null, the tenant's own."
    )
    version: Annotated[fields.VersionName | None, rule(_pin)] = optional(
        "The payload version to pin it to; absent or null, the tenant's default. Unknown: 422\n`unknown_version`; past its sunset: 422 `version_sunset`.\n"
    )
    filter: fields.Filter = optional("Absent or null: every event of its types.")
    ordered: fields.Ordered = Field(
        default=False,
        description=(
            "Deliver in the order hookline accepted the events, one at a time: a delivery that fails holds\n"
            'the ones behind it until it succeeds or is given up (README, "Ordered endpoints"). Fixed at creation.\n'
        ),
    )
    signing: GivenSigning = optional(signing.DESCRIPTION, schemes.DEFAULT)
    auth: given_auth.GivenAuth | None = optional(given_auth.DESCRIPTION)

    def place(self) -> tuple[str, destinations.Destination | None]:
        return place(self.url, self.destination)

    def limits(self) -> tuple[float | None, int | None]:
        """The rate and concurrency given, None for one left out (hookline.core.customers.endpoint_limits then takes
        the default, or the customer's ceiling if that is lower)."""
        given = self.model_fields_set
        return (self.rate_limit_per_second if "rate_limit_per_second" in given else None, self.max_concurrency if "max_concurrency" in given else None)


class UpdateEndpoint(_Placed):
    """Only the fields given change. A null `event_types`, `description` or `headers` resets it to its default (every type, empty, none)."""

    # The fields are checked in this order (the first refusal is the answer); `changes()` are the ones given.

    rate_limit_per_second: fields.Rate = optional()  # None: not given
    max_concurrency: fields.Concurrency = optional()
    headers: fields.Headers = optional("Replaces the custom headers as a whole (`{}` or null removes them all).", {})
    _place = body_rule(_one_place)
    url: fields.Url = optional("A new URL (the endpoint becomes an HTTP one).")
    destination: Where = optional("A new destination (its external id stays the endpoint's).")
    event_types: fields.EventTypes = optional(default=())
    description: fields.Description = optional(default="")
    version: Annotated[fields.VersionName, rule(version_name)] = optional(
        "Pin it to another payload version: taken only after the endpoint answers 2xx to a test event\n"
        "at that version (else 424, and nothing changes). Unknown: 422 `unknown_version`; past its\n"
        "sunset: 422 `version_sunset`.\n"
    )
    status: fields.EndpointStatus = optional("`disabled` pauses new deliveries (reason `manual`); `active` resumes them.")
    filter: fields.Filter = optional("Replaces the content filter; null removes it (every event of its types).")
    signing: GivenSigning = optional("Replaces how its webhooks are signed; null: the default (Standard Webhooks `v1`).", schemes.DEFAULT)
    auth: given_auth.GivenAuth | None = optional("Replaces the endpoint's `auth` as a whole, secrets too; null removes it.")

    def changes(self) -> dict[str, Any]:
        """The fields given, as the endpoint keeps them (headers as pairs)."""
        given = {name: getattr(self, name) for name in self.model_fields_set}
        if "url" in given or "destination" in given:
            given["url"], given["destination"] = place(given.get("url"), given.get("destination"))
        if "headers" in given:
            given["headers"] = tuple(given["headers"].items())
        if "auth" in given:  # sealed by the service (EndpointService.update) before it is kept
            given["auth"] = given_auth.given(given["auth"])
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
    "signing": {"scheme": "standard-webhooks", "algorithm": "hmac-sha256"},
    "created_at": "2026-03-14T09:26:53.589Z",
    "updated_at": "2026-03-14T09:26:53.589Z",
}


class Endpoint(Answer):
    """An endpoint as the API shows it, never with its secret."""

    id: EndpointId
    customer: str | None = Field(description="The uid of the customer it belongs to; null for the tenant's own.")
    url: Annotated[str | None, fields.Format("uri")] = Field(description="Where deliveries are POSTed; null for a non-HTTP destination.")
    destination: Annotated[dict[str, Any], pydantic.WithJsonSchema(SHOWN_DESTINATION_SCHEMA)]  # a request's fields and its external_id: no request model's
    event_types: list[str] = Field(description="Subscribed event types; empty means every type.")
    description: str
    status: Literal["active", "disabled"] = Field(description="A disabled endpoint's new deliveries are stored `paused` until it is re-enabled.")
    rate_limit_per_second: float
    max_concurrency: int
    headers: dict[str, str] = Field(description="Custom headers sent with every delivery.")
    version: fields.VersionName = Field(
        description=(
            "The payload version it is pinned to: what shape of `data` its webhooks carry (each body's\n"
            "`version` names it). An endpoint created before versions existed shows `2026-01-01`.\n"
        ),
    )
    filter: dict[str, Any] | None = optional("Its content filter (an EventBridge event pattern), or null: every event of its types.")
    ordered: bool = optional("Delivered one at a time, in the order the events were accepted.", False)
    signing: Annotated[signing.ShownSigning, AS_SHOWN, inline(signing.ShownSigning)]
    auth: Annotated[given_auth.Shown | None, inline(given_auth.Shown, or_null=True)] = optional(
        "How hookline authenticates to the receiver (its type and the fields that are not secret), or null: by the signature alone."
    )
    created_at: Timestamp
    updated_at: Timestamp
    disabled_reason: Annotated[str, Field(examples=["manual"])] | SkipJsonSchema[None] = absent_unless_set(
        "Present while disabled: `manual` (PATCH), `failing` (its circuit stayed open for `HOOKLINE_DISABLE_AFTER_SECONDS`), `gone` (the receiver answered 410), "
        "or, for a non-HTTP destination, `access_denied` (it or its role refused hookline), `destination_missing` (it or its role does not exist) or "
        "`kms_refused` (its KMS key refused). Its deliveries are paused until it is enabled again.",
    )
    paused_until: Annotated[str, fields.Format("date-time")] | SkipJsonSchema[None] = absent_unless_set(
        "Present while a receiver's `Retry-After` pauses every delivery to the endpoint."
    )

    @classmethod
    def of(cls, endpoint: models.Endpoint, **more: Any) -> Self:
        """The answer for a stored endpoint (hookline.core.models.Endpoint.public: never its secret), with `more` fields."""
        return cls.model_validate({**endpoint.public(), **more})


class EndpointCreated(Endpoint):
    """The new endpoint, with its signing secret (shown here, on rotation and by `GET …/secret`)."""

    secret: Secret


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

    webhook_id: EventId
    status_code: int | None = Field(description="The receiver's status; null when no response came.")
    error: str | None = Field(description="Why no response came (`timeout`, `connection_refused`, `ssrf_blocked`, …).")
    duration_ms: int = Field(ge=0)
    detail: str = Field(description="More about a failure, up to 300 characters.")


class TestAttempt(Answer):
    """The outcome of `POST …/test`; nothing of it is stored."""

    __test__ = False

    webhook_id: EventId = Field(description="The test webhook's `webhook-id`; no event is stored under it.")
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
    secret: Secret
    valid_until: Timestamp = Field(description="Until then it signs every delivery too, whatever rotations follow.")


class EndpointSecret(Answer):
    secret: Secret
    created_at: Timestamp = Field(description="When `secret` became the current one: the endpoint's creation, or the rotation that made it.")
    previous_secrets: list[PreviousSecretShown] = Field(
        description=f"The secrets rotations replaced that still sign every delivery, each until its own `valid_until` (the one signing longest first; at most {MAX_LIVE_SECRETS - 1}); empty when only `secret` signs."
    )
    previous_secret: Secret | SkipJsonSchema[None] = absent_unless_set(
        "The first of `previous_secrets` (the one the last rotation replaced), present while it signs: kept for clients that read one."
    )
    previous_expires_at: Timestamp | SkipJsonSchema[None] = absent_unless_set("When `previous_secret` stops signing; present with `previous_secret` only.")


class SecretRotated(Answer):
    secret: Secret
    previous_secret_valid_until: Timestamp = Field(
        description="Until then deliveries are signed with the secret this rotation replaced too; earlier secrets still sign until their own ends."
    )
    public_key: signing.PublicKey | SkipJsonSchema[None] = absent_unless_set(
        "For an endpoint signing with Ed25519: the new key pair's public key (its private key is never shown); the one it replaced signs until `previous_secret_valid_until` too."
    )


class Jwk(Answer):
    """An Ed25519 public key (RFC 8037), `kid` its RFC 7638 thumbprint."""

    kty: Literal["OKP"]
    crv: Literal["Ed25519"]
    x: str = Field(description="The 32-byte public key, base64url without padding (the `whpk_` key's bytes).")
    kid: str
    use: Literal["sig"]
    alg: Literal["EdDSA"]
    endpoint_id: EndpointId = Field(description="The endpoint whose webhooks it verifies.")


class Jwks(Answer):
    """A JSON Web Key Set: the current and still-signing previous Ed25519 public keys of the caller's endpoints."""

    keys: list[Jwk]


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
