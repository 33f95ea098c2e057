"""The request fields' rules, each declared once: a pydantic type whose constraints (`Field(pattern=…, max_length=…,
ge=…)`) are both what the server checks and what the document's schema says, with hookline's refusal for them.

`Refused` gives a type its answer: when the type's constraints refuse a value, the refusal is hookline's code and
message (`'description' is longer than 1024 characters`), not pydantic's; a value of the wrong JSON type keeps
pydantic's error, which hookline.entrypoints.api.routing.contract_error answers as `wrong_type`. A check that JSON
Schema cannot state (a URL's host, header names unique regardless of case, a byte total) is an `AfterValidator`
whose refusal (hookline's ValidationFailed) is carried the same way, so a body's refusals come in field order and
the first one is the answer. Pure.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, GetCoreSchemaHandler, GetJsonSchemaHandler, ValidationError, ValidationInfo
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from hookline.core import filters, portal, sessions, ssrf, text, validation, versions
from hookline.core.contract import filter_grammar
from hookline.core.errors import ValidationFailed

# pydantic's errors for a value of the wrong JSON type: answered as `wrong_type` by contract_error, never as a rule's.
_TYPE_ERRORS = ("_type", "model_attributes_type", "is_instance_of", "missing", "extra_forbidden")


def refusal(exc: ValidationFailed) -> PydanticCustomError:
    """A rule's refusal as a pydantic error that keeps its code and message (contract_error reads it back)."""
    return PydanticCustomError(f"hookline.{exc.code}", exc.message)


@dataclass(frozen=True)
class Refused:
    """The answer when the type's constraints refuse a value: `message` (`{name}` is the field's name, or `name`)
    with `code` (a value of the wrong JSON type: `wrong_type`, when given, with code `wrong_type`); a refused pattern is first explained by `explain` (the field's name, the value), which raises the
    rule's own refusal when it has a more precise one (the control character found). Rules of its own
    (AfterValidator) keep their messages."""

    message: str
    code: str = "validation_failed"
    name: str | None = None
    explain: Callable[[str, Any], Any] | None = None
    wrong_type: str | None = None
    any_type: bool = False  # a value of the wrong JSON type is answered as the constraints' refusal (message, code)

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.with_info_wrap_validator_function(self._answer, handler(source))

    def _answer(self, value: Any, check: Callable[[Any], Any], info: ValidationInfo) -> Any:
        try:
            return check(value)
        except ValidationError as exc:
            first = exc.errors()[0]
            name = self.name or info.field_name or "value"
            if first["type"].startswith("hookline."):
                raise
            if first["type"].endswith(_TYPE_ERRORS) and not self.any_type:
                if self.wrong_type is None:
                    raise
                raise PydanticCustomError("hookline.wrong_type", self.wrong_type.replace("{name}", name)) from None
            if self.explain is not None and first["type"] == "string_pattern_mismatch":
                try:
                    self.explain(name, value)
                except ValidationFailed as precise:
                    raise refusal(precise) from None
            raise PydanticCustomError(f"hookline.{self.code}", self.message.replace("{name}", name)) from None


def checked(check: Callable[[Any], Any]) -> AfterValidator:
    """A rule JSON Schema cannot state, run after the type's constraints: its refusal (ValidationFailed) is the answer."""

    def run(value: Any) -> Any:
        try:
            return check(value)
        except ValidationFailed as exc:
            raise refusal(exc) from None

    return AfterValidator(run)


@dataclass(frozen=True)
class Worded:
    """A rule that words every refusal of its type (a wrong JSON type too) and checks what the type's constraints
    cannot state (a byte total): when the constraints refuse a value, `rule` is run on it and its refusal
    (ValidationFailed) is the answer; a value they take is then given to `rule` as well. For a type whose refusals
    name a part of the value (`metadata key 'k' …`), which one message cannot."""

    rule: Callable[[Any], Any]

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_wrap_validator_function(self._answer, handler(source))

    def _answer(self, value: Any, check: Callable[[Any], Any]) -> Any:
        try:
            taken = check(value)
        except ValidationError:
            try:
                self.rule(value)
            except ValidationFailed as exc:
                raise refusal(exc) from None
            raise
        try:
            self.rule(taken)
        except ValidationFailed as exc:
            raise refusal(exc) from None
        return taken


@dataclass(frozen=True)
class Format:
    """The document's `format` of a string (`email`, `date-time`): pydantic states one only for the Python types
    (datetime, date) that would change what the API keeps, so this is the one place a field's schema is added to."""

    name: str

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        shown = handler(schema)
        shown["format"] = self.name
        return shown


class KeysMatch:
    """A map whose keys have a pattern, shown as JSON Schema states it (`propertyNames`): pydantic shows the pattern as
    `patternProperties`, which would let any other key through unchecked."""

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        shown = handler(schema)
        ((pattern, values),) = shown.pop("patternProperties").items()
        shown["propertyNames"] = {**shown.get("propertyNames", {}), "pattern": pattern}
        shown["additionalProperties"] = values
        return shown


def _whole(value: Any) -> Any:
    """An integer as JSON Schema counts one: 39.0 is 39 (hookline.core.validation.as_integer)."""
    number = validation.as_integer(value) if isinstance(value, float) else None
    return value if number is None else number


def readable(name: str, value: Any) -> None:
    """Explains a one-line text's refused pattern: the control character in it."""
    text.readable(value, name)


def readable_lines(name: str, value: Any) -> None:
    """Explains a text of lines' refused pattern: the control character in it other than tab and line feed."""
    text.readable(value, name, lines=True)


# RFC 3339's form (an upper-case `T`, a zone) whatever the date's range: a time in it that a type's pattern refuses is
# out of range.
RFC3339_FORM = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")


# -- the named values --------------------------------------------------------------------------------------------

EVENT_TYPE_RULE = "letters, digits and _.:/- (up to 128 characters)"


# An event type's form, a request's and an answer's (the API stores only types a request gave).
EventTypeName = Annotated[
    str,
    Field(
        pattern=validation.EVENT_TYPE.pattern,
        description="Letters, digits and `_.:/-`, up to 128 characters, starting with a letter or digit.",
        examples=["invoice.paid"],
    ),
]


def event_type(name: str | None = None, wrong_type: str | None = None) -> Any:
    """An event type (EventTypeName) as a request gives it; refusals name the field as `name` (`event.type`), a value
    of another JSON type as `wrong_type` says when given."""
    return Annotated[EventTypeName, Refused(f"'{{name}}' must be {EVENT_TYPE_RULE}", name=name, wrong_type=wrong_type)]


EventType = event_type()

IdempotencyKey = Annotated[
    str,
    Field(pattern=validation.IDEMPOTENCY_ID.pattern),
    Refused("'{name}' must be letters, digits and _.:- (up to 128 characters)"),
]


# A customer's uid: 1 to 64 of letters, digits and `._:-` (no `#`, which separates key parts); a request's and an
# answer's (the API stores only uids a request gave).
CustomerUid = Annotated[str, Field(pattern=validation.CUSTOMER_UID.pattern, description="A customer's uid, chosen by the tenant.", examples=["org_4711"])]


def customer_uid(name: str | None = None, or_null: bool = False) -> Any:
    """A customer's uid (CustomerUid) as a body names it; `or_null`: null too. Its refusals name the field only as
    `name` (`'event.customer': …`)."""
    prefix = f"'{name}': " if name else ""
    return Annotated[
        CustomerUid | None if or_null else CustomerUid,
        Refused(
            f"{prefix}a customer uid is 1 to 64 characters of letters, digits and ._:-",
            code="invalid_customer_uid",
            name=name,
            wrong_type="'{name}' must be a string" + (" or null" if name else ""),
        ),
    ]


GivenCustomerUid = customer_uid()


def rate(name: str | None = None) -> Any:
    """Deliveries per second, 0.1 to MAX_RATE_PER_SECOND; refusals name the field as `name` (`limits.max_rate_per_second`)."""
    return Annotated[
        float,
        Field(
            ge=0.1,
            le=validation.MAX_RATE_PER_SECOND,
            description="Deliveries per second to this endpoint, at most (hookline halves it for a while after a 429).",
        ),
        Refused(f"'{{name}}' must be between 0.1 and {validation.MAX_RATE_PER_SECOND:g}", name=name, wrong_type="'{name}' must be a number"),
    ]


def concurrency(name: str | None = None) -> Any:
    """Deliveries in flight, 1 to MAX_CONCURRENCY (an integer-valued number counts); refusals name the field as `name`."""
    return Annotated[
        int,
        Field(ge=1, le=validation.MAX_CONCURRENCY, description="Deliveries in flight to this endpoint at once, at most."),
        BeforeValidator(_whole),
        Refused(f"'{{name}}' must be between 1 and {validation.MAX_CONCURRENCY}", name=name, wrong_type="'{name}' must be an integer"),
    ]


Rate = rate()
Concurrency = concurrency()


def whole_number(low: int, high: int, message: str) -> Any:
    """An integer in [low, high] (an integer-valued number counts), refused with `message`."""
    return Annotated[int, Field(ge=low, le=high), BeforeValidator(_whole), Refused(message)]


def one_line(max_length: int, message: str, pattern: str = text.ONE_LINE_PATTERN, min_length: int = 0) -> Any:
    """Text on one line (no control characters) of `min_length` to `max_length` characters, refused with `message`
    (a control character with the message naming it)."""
    return Annotated[str, Field(min_length=min_length, max_length=max_length, pattern=pattern), Refused(message, explain=readable)]


# -- customers ---------------------------------------------------------------------------------------------------

# Not empty, not only spaces (what str.strip removes), no control characters (hookline.core.text).
CUSTOMER_NAME_PATTERN = r"^[^\x00-\x1F\x7F-\x9F]*[^\x00-\x20\x7F-\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000][^\x00-\x1F\x7F-\x9F]*$"


def _name(name: str, value: Any) -> None:
    """Explains a customer name's refused pattern: the control character in it, unless it is only spaces."""
    if value.strip():
        text.readable(value, name)


CustomerName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=validation.MAX_CUSTOMER_NAME,
        pattern=CUSTOMER_NAME_PATTERN,
        description="For humans; not only spaces, no control characters (U+0000 to U+001F, U+007F to U+009F).",
    ),
    Refused(f"'{{name}}' must be 1 to {validation.MAX_CUSTOMER_NAME} characters, not only spaces", explain=_name, wrong_type="'{name}' must be a string"),
]

_EMAIL_REFUSAL = f"'{{name}}' is not a valid address (local@domain.tld, up to {validation.MAX_EMAIL} characters)"


def _email_parts(value: str | None) -> str | None:
    if value is not None and not validation.email_parts(value):
        raise ValidationFailed(_EMAIL_REFUSAL.replace("{name}", "email"), code="invalid_email")
    return value


# The pattern is the schema's and the server's; email_parts is what `format: email` says and a pattern cannot.
Email = Annotated[
    Annotated[str, Field(max_length=validation.MAX_EMAIL, pattern=validation.EMAIL.pattern), Format("email")] | None,
    Refused(_EMAIL_REFUSAL, code="invalid_email", wrong_type="'{name}' must be a string or null"),
    checked(_email_parts),
]

MetadataKey = Annotated[str, Field(min_length=1, max_length=validation.MAX_METADATA_KEY, pattern=text.ONE_LINE_PATTERN)]
MetadataValue = Annotated[str, Field(max_length=validation.MAX_METADATA_VALUE, pattern=text.ONE_LINE_PATTERN)]
# The byte total is the rule's alone (the document says it in words); the rule words each refusal, naming the key.
Metadata = Annotated[
    dict[MetadataKey, MetadataValue],
    Field(max_length=validation.MAX_METADATA_KEYS, examples=[{"plan": "enterprise"}]),
    KeysMatch(),
    Worded(validation.validate_metadata),
]


# -- the portal ---------------------------------------------------------------------------------------------------

ProducerName = Annotated[
    str,
    Field(
        max_length=portal.MAX_NAME,
        pattern=text.ONE_LINE_PATTERN,
        description="What customers read; no control characters. Leading and trailing spaces are dropped.",
    ),
    Refused(f"'{{name}}' must be text of at most {portal.MAX_NAME} characters, without control characters", explain=readable, any_type=True),
]

Origin = Annotated[
    str,
    Field(
        pattern=portal.ORIGIN_PATTERN,
        description="An origin as a browser sends it, `https://host[:port]` (a dotted, lower-case host name), or `http://localhost` / `http://127.0.0.1`.",
    ),
]
# The rule words each refusal, naming the origin's place in the list.
AllowedOrigins = Annotated[list[Origin], Field(max_length=portal.MAX_ORIGINS), Worded(portal.allowed_origins)]

TtlSeconds = Annotated[
    int,
    Field(ge=sessions.MIN_TTL_SECONDS, le=sessions.MAX_TTL_SECONDS, description="How long the session works."),
    BeforeValidator(_whole),
    Refused(f"'{{name}}' must be a whole number of seconds from {sessions.MIN_TTL_SECONDS} to {sessions.MAX_TTL_SECONDS}", any_type=True),
]

Flag = Annotated[bool, Refused("'{name}' must be true or false", any_type=True)]


# -- the catalog --------------------------------------------------------------------------------------------------

TypeDescription = Annotated[
    str,
    Field(
        max_length=versions.MAX_DESCRIPTION, pattern=text.LINES_PATTERN, description="For humans: lines of text, no control characters but tab and line feed."
    ),
    Refused(f"'{{name}}' must be a string of at most {versions.MAX_DESCRIPTION} characters", explain=readable_lines, any_type=True),
]

# A calendar date YYYY-MM-DD in the years 0001 to 9999 (hookline.core.versions.version_name: a date that parses,
# which runs first where a request names one and words its refusal).
VersionName = Annotated[
    str,
    Field(
        pattern="^([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$",
        description="A payload version's name, a calendar date `YYYY-MM-DD` (years 0001 to 9999). Versions sort by it.",
        examples=["2026-10-01"],
    ),
    Format("date"),
]

# A transform's pointer: what hookline.core.jsonpatch.parse_pointer reads (its rule, run first with the versions, words
# the refusal).
JsonPointer = Annotated[
    str,
    Field(
        pattern="^(/([^~]|~[01])*)*$",
        description='An RFC 6901 JSON Pointer into the data; "" is the whole of it, and every `~` is followed by `0` or `1`.',
        examples=["/amount_cents"],
    ),
]

# RFC 3339 (upper-case `T`, a zone) in 0001..9999, the range's first and last day left out (no offset takes it outside).
TIME_INPUT_PATTERN = (
    "^(0001-(0[2-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])|0001-01-(0[2-9]|[12][0-9]|3[01])"
    "|(000[2-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    "|9999-(0[1-9]|1[01])-(0[1-9]|[12][0-9]|3[01])|9999-12-(0[1-9]|[12][0-9]|30))"
    "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
)


def _sunset(name: str, value: Any) -> None:
    """Explains a sunset's refused pattern: hookline.core.versions.version_sunset's refusal (no zone, no UTC form),
    else out of range when it has RFC 3339's form."""
    versions.version_sunset(value)
    if RFC3339_FORM.fullmatch(value):
        raise ValidationFailed(f"'{name}' is out of range")


# A version's sunset as given, kept in UTC (hookline.core.versions.version_sunset), or null.
SunsetAt = Annotated[
    Annotated[
        str,
        Field(
            pattern=TIME_INPUT_PATTERN,
            description=(
                "RFC 3339 with an upper-case `T` and a time zone (`Z` or `±hh:mm`), e.g. `2027-01-01T00:00:00Z`, in the\n"
                "years 0001 to 9999 (the first and the last day of that range left out, so that no offset takes it outside).\n"
            ),
            examples=["2027-04-01T00:00:00Z"],
        ),
        Format("date-time"),
        checked(versions.version_sunset),
    ]
    | None,
    Refused("'{name}' must be an ISO-8601 time such as 2027-01-01T00:00:00Z", explain=_sunset, any_type=True),
]


# -- endpoints ----------------------------------------------------------------------------------------------------

# Any address, http too, any port: a URL's form whatever the stack's policy. The service checks the URL against the
# stack's policy (hookline.core.validation.validate_url with the settings' UrlPolicy): only it has the settings.
_ANY_DESTINATION = ssrf.UrlPolicy(allowed_networks=(ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")), allow_http=True, allowed_ports=None)


def url_form(value: Any) -> str:
    """A URL hookline could deliver to under some policy, or validation.validate_url's refusal (422 `invalid_url`)."""
    return validation.validate_url(value, _ANY_DESTINATION)


def _url(name: str, value: Any) -> None:
    """Explains a URL's refused pattern: url_form's refusal (whitespace, another scheme, no host, …)."""
    url_form(value)


URL_DESCRIPTION = (
    "Where deliveries are POSTed. https only in the cloud (`HOOKLINE_ALLOW_HTTP`),\n"
    "on an allowed port (`HOOKLINE_ALLOWED_PORTS`, 443/80 by default), without\n"
    "credentials, whitespace or control characters. A literal private, loopback,\n"
    "link-local or otherwise internal address is refused (422 `forbidden_url`),\n"
    "in any notation the resolver reads as one: decimal, octal, hex, short, and\n"
    "the host as IDNA maps it (fullwidth digits, ideographic full stops); a host\n"
    "name is checked again after DNS resolution on every delivery.\n"
)
# The host, credentials and port are url_form's alone (the document says them in words).
Url = Annotated[
    str,
    Field(
        max_length=validation.MAX_URL_LENGTH,
        pattern="^[Hh][Tt][Tt][Pp][Ss]?://",
        description=URL_DESCRIPTION,
        examples=["https://example.com/webhooks/hookline"],
    ),
    Format("uri"),
    Refused(f"'{{name}}' is longer than {validation.MAX_URL_LENGTH} characters", code="invalid_url", explain=_url, wrong_type="'{name}' must be a string"),
    checked(url_form),
]

MAX_EVENT_TYPES = 100


def _event_types(value: Any) -> None:
    """Words a refused list of event types (the invalid type named)."""
    if value is None:
        return
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationFailed("'event_types' must be a list of strings", code="wrong_type")
    if len(value) > MAX_EVENT_TYPES:
        raise ValidationFailed(f"'event_types' holds more than {MAX_EVENT_TYPES} types")
    for v in value:
        if not validation.EVENT_TYPE.fullmatch(v):
            raise ValidationFailed(f"event type {v[:64]!r} is not valid (letters, digits and _.:/-, up to 128)")


def _distinct(given: list[str] | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(given or ()))


# An endpoint's event types: null is every type, as empty is; duplicates are dropped.
_EventTypes = Annotated[
    Annotated[list[EventType], Field(max_length=MAX_EVENT_TYPES)] | None,  # type: ignore[valid-type]
    Worded(_event_types),
    AfterValidator(_distinct),
]

MAX_DESCRIPTION = 1024

# Free text in lines; null is empty.
_Description = Annotated[
    Annotated[str, Field(max_length=MAX_DESCRIPTION, pattern=text.LINES_PATTERN)] | None,
    Refused(f"'{{name}}' is longer than {MAX_DESCRIPTION} characters", explain=readable_lines, wrong_type="'{name}' must be a string"),
    AfterValidator(lambda given: given or ""),
]

HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$")  # an RFC 9110 token
_SET_BY_HOOKLINE = ("host", "content-length", "content-type", "connection", "transfer-encoding", "user-agent")
FORBIDDEN_HEADERS = frozenset(_SET_BY_HOOKLINE)
MAX_HEADERS = 20
MAX_HEADER_BYTES = 8192  # proxies commonly cap a request's headers at 8 KB
# The header names hookline sets (FORBIDDEN_HEADERS and `webhook-*`), in any case: what a name must not be.
_HOOKLINE_HEADERS = "|".join("".join(f"[{c.upper()}{c}]" if c.isalpha() else c for c in name) for name in (*_SET_BY_HOOKLINE, "webhook-.*"))


def _headers(value: Any) -> None:
    """Words a refused map of headers (the header named) and checks what JSON Schema cannot state: names unique
    regardless of case, names and values adding up to at most MAX_HEADER_BYTES."""
    if value is None:
        return
    if not isinstance(value, dict):
        raise ValidationFailed("'headers' must be an object of header names to string values", code="wrong_type")
    if len(value) > MAX_HEADERS:
        raise ValidationFailed(f"'headers' holds more than {MAX_HEADERS} headers")
    seen: set[str] = set()
    size = 0
    for name, raw in value.items():
        if not HEADER_NAME.fullmatch(name):
            raise ValidationFailed(f"header name {name[:64]!r} is not a valid HTTP token")
        lower = name.lower()
        if lower in FORBIDDEN_HEADERS or lower.startswith("webhook-"):
            raise ValidationFailed(f"header {name!r} is set by hookline and cannot be overridden", code="forbidden_header")
        if lower in seen:
            raise ValidationFailed(f"header {name!r} is given twice")
        seen.add(lower)
        if not isinstance(raw, str):
            raise ValidationFailed(f"header {name!r} must have a string value", code="wrong_type")
        if any(c in raw for c in "\r\n\x00") or any(ord(c) < 32 and c != "\t" for c in raw):
            raise ValidationFailed(f"header {name!r} has a control character (CR, LF or NUL) in its value")
        size += len(name.encode()) + len(raw.encode())
    if size > MAX_HEADER_BYTES:
        raise ValidationFailed(f"'headers' add up to {size} bytes; the limit is {MAX_HEADER_BYTES}")


HeaderName = Annotated[str, Field(pattern=HEADER_NAME.pattern)]
HeaderValue = Annotated[str, Field(pattern="^[^\\x00-\\x08\\x0A-\\x1F]*$")]  # one line: no control character but tab
# Custom headers sent with every delivery; null is none.
_Headers = Annotated[
    Annotated[
        dict[HeaderName, HeaderValue],
        Field(
            max_length=MAX_HEADERS,
            description=(
                "Extra HTTP headers sent with every delivery (and the test event): up to 20,\n"
                "names and values adding up to at most 8192 bytes. Names are RFC 9110 tokens,\n"
                "unique regardless of case; `host`, `content-length`, `content-type`,\n"
                "`connection`, `transfer-encoding`, `user-agent` and any `webhook-*` are set\n"
                "by hookline and refused (422 `forbidden_header`). Values are single-line: no\n"
                "control characters other than tab.\n"
            ),
            examples=[{"X-Api-Key": "b1llIng-rcv-7f3a", "X-Environment": "production"}],
            json_schema_extra={"propertyNames": {"not": {"pattern": f"^({_HOOKLINE_HEADERS})$"}}},  # a `not` no constraint states; _headers refuses these
        ),
        KeysMatch(),
    ]
    | None,
    Worded(_headers),
    AfterValidator(lambda given: given or {}),
]

# An endpoint's content filter, an EventBridge event pattern (hookline.core.filters): its grammar is
# hookline.core.contract.filter_grammar's types, the value kept as given; parse_filter words every refusal (422
# `invalid_filter`) and checks what the types cannot state, which the description says in words.
FilterPattern: Any = Annotated[
    filter_grammar.Grammar,
    Field(
        description=(
            'A content filter: an EventBridge event pattern over `{"type", "customer", "data"}` (exact values,\n'
            "`prefix`, `suffix`, `equals-ignore-case`, `anything-but`, `numeric`, `exists`, `$or`; no `wildcard`,\n"
            f"no regular expressions; at most {filters.MAX_FILTER_BYTES} bytes, {filters.MAX_DEPTH} levels, {filters.MAX_MATCH_VALUES} values; a `numeric` range's\n"
            "lower bound not above its upper bound). An event of a subscribed type gets a delivery only if it\n"
            "matches. Anything else is 422 `invalid_filter`.\n"
        ),
        examples=[{"data": {"amount": [{"numeric": [">=", 100]}]}}],
    ),
]


def _filter(value: Any) -> filters.EventFilter | None:
    return None if value is None else filters.parse_filter(value)


# Worded words a refusal of the constraints by parse_filter's message; checked keeps parse_filter's result (a taken
# filter is parsed twice: it is at most MAX_FILTER_BYTES).
_Filter = Annotated[FilterPattern | None, Worded(_filter), checked(_filter)]

# The endpoint's `ordered`, refused as a wrong type as it always was.
Ordered = Annotated[bool, Refused("'{name}' must be true or false", code="wrong_type", any_type=True)]

if TYPE_CHECKING:  # what the fields hold once read: their last validators drop null and duplicates, and parse the filter
    EventTypes = tuple[str, ...]
    Description = str
    Headers = dict[str, str]
    Filter = filters.EventFilter | None
else:
    EventTypes, Description, Headers, Filter = _EventTypes, _Description, _Headers, _Filter

EndpointStatus = Annotated[Literal["active", "disabled"], Refused("'{name}' must be 'active' or 'disabled'", any_type=True)]
