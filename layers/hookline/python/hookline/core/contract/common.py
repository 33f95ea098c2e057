"""What every resource's models share: the base classes and their rules, how the document shows a field, the named
values used across resources, and the error envelope."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar

import pydantic
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, model_validator
from pydantic.json_schema import SkipJsonSchema

from hookline.core import validation
from hookline.core.contract import fields
from hookline.core.contract.fields import Format
from hookline.core.errors import ValidationFailed


class RequestBody(BaseModel):
    """A request body: strict (an unknown field is 422 `unknown_field`), its values as JSON gives them.

    Every model here is built when first used, not when its module is imported (`defer_build`): building them all was
    most of the API function's own import, and a request uses a few (docs/benchmarks.md, cold starts).
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)


class Answer(BaseModel):
    """A response body. Clients ignore fields they do not know, so an answer may gain fields; the document's tests
    read answers closed, so a field the code adds without a model fails them."""

    model_config = ConfigDict(frozen=True, defer_build=True)


def rule(check: Callable[[Any], Any]) -> BeforeValidator:
    """A field checked by one of hookline.core.validation's rules, before pydantic reads its type: the rule's own
    error (its code and message) is the answer, as it was before the models."""
    return BeforeValidator(check)


class CheckedBody(RequestBody):
    """A body checked as before the models: every unknown field named at once, then the required ones (in their order),
    then each field."""

    # What a missing field's message adds after "'name' is required" (e.g. ", as an ISO 8601 time").
    REQUIRED_HINT: ClassVar[str] = ""

    @model_validator(mode="before")
    @classmethod
    def _known_and_complete(cls, data: Any) -> Any:
        if isinstance(data, dict):
            validation.reject_unknown(data, set(cls.model_fields))
            for name, field in cls.model_fields.items():
                if field.is_required() and name not in data:
                    raise ValidationFailed(f"'{name}' is required{cls.REQUIRED_HINT}", code="missing_field")
        return data


def body_rule(check: Callable[[dict[str, Any]], Any]) -> Any:
    """A model's check of its body as it came (a JSON object), before any field is read: one of hookline's rules,
    whose own refusal (its code and message) is the answer, as before the models."""

    def run(cls: type[BaseModel], data: Any) -> Any:
        if isinstance(data, dict):
            check(data)
        return data

    return model_validator(mode="before")(run)  # a class method, by its first parameter's name


def given(name: str, read: Callable[[Any], Any] | None = None) -> BeforeValidator:
    """A query parameter's rule: given with a value or left out (`?name=` is 422, not taken as absent), then read by
    `read` (one of hookline.core.validation's rules, with its own messages) if there is one."""

    def check(value: Any) -> Any:
        if isinstance(value, list):  # given more than once: read as API Gateway passes it, the values comma-joined
            value = ",".join(str(v) for v in value)
        if isinstance(value, str):
            validation.query_values({name: value})
        return value if read is None else read(value)

    return rule(check)


# -- how the document shows a field --------------------------------------------------------------------------------


def no_default(schema: dict[str, Any]) -> None:
    """A field whose default is what not giving it means, not a value to send: the document shows none."""
    schema.pop("default", None)


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema or null. (`type: [X, 'null']` as anyOf: Powertools' OpenAPI model takes one type per schema.)"""
    return {"anyOf": [schema, {"type": "null"}]}


def untitled(schema: Any) -> Any:
    """The schema without pydantic's `title`s (the document has none)."""
    if isinstance(schema, dict):
        return {k: untitled(v) for k, v in schema.items() if k != "title"}
    return [untitled(v) for v in schema] if isinstance(schema, list) else schema


def inline(model: type[BaseModel], or_null: bool = False) -> Any:
    """A nested object shown inline, as the document has it (no component of its own): with `AS_SHOWN` on its field,
    unless it may be null. The schema is the model's own, only placed where the field is."""
    schema = untitled(model.model_json_schema(mode="serialization", ref_template="#/components/schemas/{model}"))
    schema.pop("$defs", None)
    return pydantic.WithJsonSchema(nullable(schema) if or_null else schema)  # a component of its own is the only way pydantic shows a model


# Wraps a nested model's field so that its shown schema replaces the model's (else the model also becomes an unused component).
AS_SHOWN = AfterValidator(lambda value: value)


def optional(description: str | None = None, default: Any = None, **constraints: Any) -> Any:
    """A field that may be left out; the document shows no default (left out means the default). Without
    `description`, the field's type's own is shown. `constraints` are the Field's (`max_length`, `alias`, …)."""
    described: dict[str, Any] = {"description": description} if description is not None else {}
    return Field(default=default, json_schema_extra=no_default, **described, **constraints)  # left out means the default: the document shows none


def _is_none(value: Any) -> bool:
    return value is None


def absent_unless_set(description: str | None = None, **constraints: Any) -> Any:
    """An answer's field that is left out (not null) when it has no value."""
    return optional(description, exclude_if=_is_none, **constraints)


# -- the values named across resources, as the document shows them ---------------------------------------------------

_ULID = "[0-9a-hjkmnp-tv-z]{26}"


def id_type(prefix: str, example: str) -> Any:
    """An id the API hands out: its prefix (`ep`, `evt`, …) and 26 characters of lower-case Crockford base32
    (hookline.core.ids: a ULID, or a hash of the same form; every release made them so). An answer's id is checked
    against it too: the API answers only ids it made."""
    return Annotated[str, Field(pattern=f"^{prefix}_{_ULID}$", examples=[example])]


def schema_of(named: Any) -> dict[str, Any]:
    """A type's schema as the document shows it (for a parameter or a hand-built schema that names the value)."""
    schema: dict[str, Any] = untitled(TypeAdapter(named).json_schema())
    return schema


EndpointId = id_type("ep", "ep_01kkntq2cnt8b8hz3pj95wjvcc")
EventId = id_type("evt", "evt_01kkntq2cne6s1c99tvp6dvkt6")
DeliveryId = id_type("dlv", "dlv_01kkntq2cnerx003w04ypt75j4")
JobId = id_type("job", "job_01km5392zyx2x3fnt8zam6tbwc")
ReplayId = id_type("rpl", "rpl_bh2s1be9ng8g0p4z59zep35xe8")
Timestamp = Annotated[str, Format("date-time"), Field(description="UTC, ISO 8601 (RFC 3339), e.g. `2026-03-14T09:26:53.589Z`.")]
ENDPOINT_ID_SCHEMA = schema_of(EndpointId)
EVENT_ID_SCHEMA = schema_of(EventId)
DELIVERY_ID_SCHEMA = schema_of(DeliveryId)
JOB_ID_SCHEMA = schema_of(JobId)
REPLAY_ID_SCHEMA = schema_of(ReplayId)
# The named values' schemas are their types' (hookline.core.contract.fields), as the document shows them.
CUSTOMER_UID_SCHEMA = schema_of(fields.GivenCustomerUid)
EVENT_TYPE_SCHEMA = schema_of(fields.EventType)
VERSION_NAME_SCHEMA = schema_of(fields.VersionName)
# A time the API reads (a window's `since` or `until`): RFC 3339 (upper-case `T`, a zone) in 1970..9000, the range's
# first and last day left out.
WINDOW_TIME_PATTERN = (
    "^(1970-(0[2-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])|1970-01-(0[2-9]|[12][0-9]|3[01])"
    "|(197[1-9]|19[89][0-9]|[2-8][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    "|9000-(0[1-9]|1[01])-(0[1-9]|[12][0-9]|3[01])|9000-12-(0[1-9]|[12][0-9]|30))"
    "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
)
WINDOW_TIME_SCHEMA: dict[str, Any] = {
    "type": "string",
    "format": "date-time",
    "pattern": WINDOW_TIME_PATTERN,
    "description": (
        "A time the API reads (a window's `since` or `until`): RFC 3339 with an upper-case `T` and a time\n"
        "zone (`Z` or `±hh:mm`), in the years 1970 to 9000 (UTC; the first and the last day of that\n"
        "range are left out, so that no offset takes it outside). Anything else is 422.\n"
    ),
}
# A page of a list: its size (the range is the settings'; the document shows the default maximum) and where it starts.
LIMIT_SCHEMA: dict[str, Any] = {"type": "integer", "minimum": 1, "maximum": 100, "default": 50}
CURSOR_SCHEMA: dict[str, Any] = {"type": "string", "minLength": 1}


ERROR_CODES = (
    "Stable, machine-readable: `malformed_json`, `malformed_body` (400), `unauthorized`,\n"
    "`session_expired` (401), `forbidden` (403), `not_found`, `customer_not_found`, `job_not_found`\n"
    "(404), `method_not_allowed` (405, with `Allow`), `idempotency_conflict`, `delivery_in_progress`,\n"
    "`delivery_changed`, `endpoint_limit_reached` (409), `payload_too_large` (413),\n"
    "`validation_failed`, `missing_field`, `wrong_type`, `unknown_field`,\n"
    "`invalid_url`, `forbidden_url`, `forbidden_header`, `invalid_cursor`,\n"
    "`invalid_customer_uid`, `invalid_email`, `above_customer_limit`\n"
    "(422), `test_event_failed` (424), `internal_error` (500),\n"
    "`unavailable` (503). Payload versions and the catalog:\n"
    "`event_type_not_found` (404), `versions_changed` (409),\n"
    "`schema_violation`, `version_unavailable`, `unknown_version`,\n"
    "`version_sunset`, `default_sunset`, `too_many_versions`,\n"
    "`invalid_schema`, `invalid_transform` (422).\n"
)


class ErrorDetail(Answer):
    """What went wrong (the `error` of the envelope, and of a refused event's batch result)."""

    code: str = Field(description=ERROR_CODES)
    message: str = Field(description="For humans; may change.")
    pointer: str | SkipJsonSchema[None] = absent_unless_set(
        '`schema_violation` only: the JSON Pointer (RFC 6901) into the data that failed; "" for the data itself.'
    )
    rule: str | SkipJsonSchema[None] = absent_unless_set("`schema_violation` only: the JSON Schema keyword that failed (`minimum`, `required`, `type`, …).")
    version: str | SkipJsonSchema[None] = absent_unless_set(
        "`schema_violation`: the version whose schema failed; `version_unavailable`: the version that cannot be rendered."
    )
    endpoint_id: str | SkipJsonSchema[None] = absent_unless_set("`version_unavailable` only: an endpoint pinned to that version.")


class Error(Answer):
    """hookline's error envelope, `{"error": {"code", "message"}}`."""

    error: ErrorDetail


class GatewayError(Answer):
    """An answer from API Gateway itself, before hookline's code runs."""

    message: str


Count = Annotated[int, Field(ge=0)]
NextCursor = Annotated[str | None, Field(description="Cursor of the next page; null on the last one.")]
# An answer's customer uid and event type: the forms a request's are checked against (what the API stores was).
CustomerUid = fields.CustomerUid
EventTypeName = fields.EventTypeName
