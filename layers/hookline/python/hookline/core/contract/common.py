"""What every resource's models share: the base classes, the error envelope, and named values used across resources."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


class RequestBody(BaseModel):
    """A request body: strict (an unknown field is 422 `unknown_field`), its values as JSON gives them."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Answer(BaseModel):
    """A response body. Clients ignore fields they do not know, so an answer may gain fields; the document's tests
    read answers closed, so a field the code adds without a model fails them."""

    model_config = ConfigDict(frozen=True)


def rule(check: Callable[[Any], Any]) -> BeforeValidator:
    """A field checked by one of hookline.core.validation's rules, before pydantic reads its type: the rule's own
    error (its code and message) is the answer, as it was before the models."""
    return BeforeValidator(check)


class ErrorDetail(Answer):
    """What went wrong (the `error` of the envelope, and of a refused event's batch result)."""

    code: str = Field(description="Stable and machine-readable; clients branch on it.")
    message: str = Field(description="For humans; may change.")
    pointer: str | None = Field(
        default=None, description='`schema_violation` only: the JSON Pointer (RFC 6901) into the data that failed; "" for the data itself.'
    )
    rule: str | None = Field(default=None, description="`schema_violation` only: the JSON Schema keyword that failed (`minimum`, `required`, `type`, …).")
    version: str | None = Field(
        default=None, description="`schema_violation`: the version whose schema failed; `version_unavailable`: the version that cannot be rendered."
    )
    endpoint_id: str | None = Field(default=None, description="`version_unavailable` only: an endpoint pinned to that version.")


class Error(Answer):
    """hookline's error envelope, `{"error": {"code", "message"}}`."""

    error: ErrorDetail


class GatewayError(Answer):
    """An answer from API Gateway itself, before hookline's code runs."""

    message: str


Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"}, description="UTC, ISO 8601 (RFC 3339), e.g. `2026-03-14T09:26:53.589Z`.")]
NextCursor = Annotated[str | None, Field(description="Cursor of the next page; null on the last one.")]
