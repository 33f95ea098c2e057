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

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, GetCoreSchemaHandler, ValidationError, ValidationInfo
from pydantic_core import PydanticCustomError, core_schema

from hookline.core import text, validation
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
            if first["type"].endswith(_TYPE_ERRORS):
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


# -- the named values --------------------------------------------------------------------------------------------

EVENT_TYPE_RULE = "letters, digits and _.:/- (up to 128 characters)"


def event_type(name: str | None = None) -> Any:
    """An event type: letters, digits and `_.:/-`, up to 128 characters, starting with a letter or digit."""
    return Annotated[
        str,
        Field(
            pattern=validation.EVENT_TYPE.pattern,
            description="Letters, digits and `_.:/-`, up to 128 characters, starting with a letter or digit.",
            examples=["invoice.paid"],
        ),
        Refused(f"'{{name}}' must be {EVENT_TYPE_RULE}", name=name),
    ]


EventType = event_type()

IdempotencyKey = Annotated[
    str,
    Field(pattern=validation.IDEMPOTENCY_ID.pattern),
    Refused("'{name}' must be letters, digits and _.:- (up to 128 characters)"),
]


def customer_uid(name: str | None = None, or_null: bool = False) -> Any:
    """A customer's uid as a body names it: 1 to 64 of letters, digits and `._:-` (no `#`, which separates key parts);
    `or_null`: null too. Its refusals name the field only as `name` (`'event.customer': …`)."""
    uid = Annotated[str, Field(pattern=validation.CUSTOMER_UID.pattern, description="A customer's uid, chosen by the tenant.", examples=["org_4711"])]
    prefix = f"'{name}': " if name else ""
    return Annotated[
        uid | None if or_null else uid,
        Refused(
            f"{prefix}a customer uid is 1 to 64 characters of letters, digits and ._:-",
            code="invalid_customer_uid",
            name=name,
            wrong_type="'{name}' must be a string" + (" or null" if name else ""),
        ),
    ]


GivenCustomerUid = customer_uid()

Description = Annotated[
    str,
    Field(max_length=validation.MAX_DESCRIPTION, pattern=text.LINES_PATTERN),
    Refused(f"'{{name}}' is longer than {validation.MAX_DESCRIPTION} characters", explain=readable_lines),
]

Rate = Annotated[
    float,
    Field(
        ge=0.1, le=validation.MAX_RATE_PER_SECOND, description="Deliveries per second to this endpoint, at most (hookline halves it for a while after a 429)."
    ),
    Refused(f"'{{name}}' must be between 0.1 and {validation.MAX_RATE_PER_SECOND:g}"),
]

Concurrency = Annotated[
    int,
    Field(ge=1, le=validation.MAX_CONCURRENCY, description="Deliveries in flight to this endpoint at once, at most."),
    BeforeValidator(_whole),
    Refused(f"'{{name}}' must be between 1 and {validation.MAX_CONCURRENCY}"),
]


def whole_number(low: int, high: int, message: str) -> Any:
    """An integer in [low, high] (an integer-valued number counts), refused with `message`."""
    return Annotated[int, Field(ge=low, le=high), BeforeValidator(_whole), Refused(message)]


def one_line(max_length: int, message: str, pattern: str = text.ONE_LINE_PATTERN, min_length: int = 0) -> Any:
    """Text on one line (no control characters) of `min_length` to `max_length` characters, refused with `message`
    (a control character with the message naming it)."""
    return Annotated[str, Field(min_length=min_length, max_length=max_length, pattern=pattern), Refused(message, explain=readable)]
