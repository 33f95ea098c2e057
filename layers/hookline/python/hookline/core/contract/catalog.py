"""The catalog: the bodies of `/v1/event-types` (the tenant's event types, their schemas and downgrades per version)
and `/v1/versions` (its payload versions).

A request's unknown fields are refused first (all of them named), then each field: a description and the flags by
their declared-once types (hookline.core.contract.fields), a sunset by its type too (in UTC, as stored). An event type's
`versions` are checked as a whole (each name a date, each schema valid JSON Schema 2020-12, each transform a JSON
Patch), since their messages name the version (`'versions.2026-10-01.transform' is not a JSON Patch …`). The JSON Schemas and JSON Patch
operations an event type holds are JSON as the producer gave them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pydantic
from pydantic import ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from hookline.core import jsonpatch
from hookline.core import versions as domain
from hookline.core.contract import fields
from hookline.core.contract.common import (
    Answer,
    CheckedBody,
    Count,
    EndpointId,
    EventTypeName,
    NextCursor,
    RequestBody,
    Timestamp,
    absent_unless_set,
    optional,
    rule,
    schema_of,
)

# -- the values' schemas, as the document shows them ------------------------------------------------------------

JSON_POINTER_SCHEMA = schema_of(fields.JsonPointer)


# -- event types: the request ------------------------------------------------------------------------------------

_PATCH_DESCRIPTION = (
    "One RFC 6902 operation. `path` (and, for `move` and `copy`, `from`) are JSON Pointers (RFC 6901) into\n"
    "the data; `add`, `replace` and `test` need a `value`. Other members are ignored, as RFC 6902 says.\n"
)


def _patch_schema(schema: dict[str, Any]) -> None:
    """The members each operation needs, which hookline.core.jsonpatch.validate_ops checks."""
    schema.pop("additionalProperties", None)
    schema["description"] = _PATCH_DESCRIPTION
    schema["allOf"] = [
        {
            "if": {"required": ["op"], "properties": {"op": {"enum": ["move", "copy"]}}},
            "then": {"required": ["from"], "properties": {"from": JSON_POINTER_SCHEMA}},
        },
        {"if": {"required": ["op"], "properties": {"op": {"enum": ["add", "replace", "test"]}}}, "then": {"required": ["value"]}},
    ]


class JsonPatchOperation(RequestBody):
    # One operation of a transform, its members as the producer gave them (extra ones kept: RFC 6902 ignores them).
    model_config = ConfigDict(extra="allow", json_schema_extra=_patch_schema)  # if/then: the members an op needs; one model keeps extra members

    op: Literal["add", "remove", "replace", "move", "copy", "test"]
    path: fields.JsonPointer
    from_: Annotated[Any, Field(alias="from")] = optional("For `move` and `copy`, a JSON Pointer (ignored by the other operations).")
    value: Any = optional("For `add`, `replace` and `test`; any JSON value.")

    def member(self) -> dict[str, Any]:
        """The operation as JSON, with the members it was given (a `value` of null included)."""
        return self.model_dump(by_alias=True, exclude_unset=True)


class TypeVersionSpec(RequestBody):
    """An event type's shape as of one version."""

    schema_: dict[str, Any] | None = optional(
        alias="schema",
        description=(
            "The JSON Schema (2020-12) `data` must match as of this version (at most 64 KB). Self-contained:\n"
            "every `$ref` is a fragment of this document, and nothing is fetched. `format` is not asserted.\n"
            "One that is not a valid 2020-12 schema is 422 `invalid_schema`. Null is the same as none.\n"
        ),
    )
    transform: list[JsonPatchOperation] | None = optional(
        max_length=jsonpatch.MAX_OPERATIONS,
        description=(
            "The JSON Patch (RFC 6902) that turns this version's shape of `data` into the shape of the\n"
            "previous version registered for the type (a downgrade). Without it, no older version can be\n"
            "derived past this one: the producer must send those in `versions`. Null is the same as none.\n"
        ),
    )

    def type_version(self) -> domain.TypeVersion:
        ops = tuple(op.member() for op in self.transform) if self.transform is not None else None
        return domain.TypeVersion(schema=self.schema_, transform=ops)


def _checked_versions(raw: Any) -> Any:
    """`versions` by hookline.core.versions.type_versions' rules (names, schemas, transforms), as given."""
    domain.type_versions(raw)
    return raw


class PutEventType(CheckedBody):
    description: fields.TypeDescription = ""
    deprecated: fields.Flag = Field(default=False, description="Shown to the producer and the portal; events of the type are still accepted.")
    versions: Annotated[dict[fields.VersionName, TypeVersionSpec], fields.KeysMatch(), rule(_checked_versions)] = Field(
        default_factory=dict,
        max_length=domain.MAX_TYPE_VERSIONS,
        description="By version name, the type's shape as of that version (at most 20).",
    )

    def type_versions(self) -> dict[str, domain.TypeVersion]:
        return {name: spec.type_version() for name, spec in self.versions.items()}


# -- event types: the answers ------------------------------------------------------------------------------------

_ENTRY_VERSIONS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": {
        "type": "object",
        "properties": {
            "schema": {"type": "object"},
            "transform": {"type": "array", "items": {"$ref": "#/components/schemas/JsonPatchOperation"}},
        },
    },
}
# An event type's versions as answered: what was registered, kept as JSON.
EntryVersions = Annotated[dict[str, dict[str, Any]], pydantic.WithJsonSchema(_ENTRY_VERSIONS)]  # a typed entry would be a component: shown inline


def _type_fields(event_type: domain.EventType) -> dict[str, Any]:
    """What an event type's answers show of it besides its versions."""
    return {
        "name": event_type.name,
        "description": event_type.description,
        "deprecated": event_type.deprecated,
        "created_at": event_type.created_at,
        "updated_at": event_type.updated_at,
    }


class EventTypeEntry(Answer):
    # One event type with its schema and transform per version (GET and PUT /v1/event-types/{name}).
    name: EventTypeName
    description: str
    deprecated: bool
    versions: EntryVersions = Field(description="By version name, oldest first, the schema and transform registered (each present only if registered).")
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, event_type: domain.EventType) -> EventTypeEntry:
        return cls.model_validate({**_type_fields(event_type), "versions": {v: event_type.versions[v].public() for v in sorted(event_type.versions)}})


class EventTypeSummary(Answer):
    """A registered event type in a list, with the names of its versions only."""

    name: EventTypeName
    description: str
    deprecated: bool
    versions: list[fields.VersionName] = Field(description="The versions it registers a shape for, oldest first.")
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, event_type: domain.EventType) -> EventTypeSummary:
        return cls.model_validate({**_type_fields(event_type), "versions": sorted(event_type.versions)})


class EventTypePage(Answer):
    # A page of the catalog; the first page also names, in `sent`, the types sent that the catalog does not hold.
    items: list[EventTypeSummary]
    next: NextCursor
    sent: list[EventTypeName] | SkipJsonSchema[None] = absent_unless_set(
        "First page only: the event types the tenant has sent (at most 1,000, in name order) that are not\n"
        "among this page's `items`. For a portal session: the types its customer sees (its endpoints'\n"
        "`event_types` and the types sent to it) that the catalog does not hold.\n"
    )


# -- payload versions ----------------------------------------------------------------------------------------------


class PutVersion(CheckedBody):
    sunset_at: fields.SunsetAt = optional(
        "ISO 8601 with a time zone. Set, the version is deprecated and cannot be pinned from then on;\n"
        "null clears its sunset; left out, the version keeps the one it has.\n"
    )
    default: fields.Flag = Field(default=False, description="`true`: make it the tenant's default. `false` leaves the default as it is.")

    def sunset(self, current: domain.PayloadVersion | None) -> str | None:
        """The version's sunset after this change: the one given (null clears it), else the one it has."""
        if "sunset_at" in self.model_fields_set:
            return self.sunset_at
        return current.sunset_at if current is not None else None


class PinnedEndpoints(Answer):
    # The endpoints pinned to a version: counted up to a bound, and the first of them.

    count: int = Field(ge=0, le=1000, description="Endpoints pinned to it, counted up to 1,000.")
    more: bool = Field(description="There are more than `count`.")
    ids: list[EndpointId] = Field(max_length=20, description="The first 20 of them, in id order.")


class VersionUsage(Answer):
    """Who still uses a version (the producer only)."""

    endpoints: PinnedEndpoints
    deliveries_7d: Count = Field(
        description="Webhooks sent at this version on the last 7 days (today included, UTC), every attempt that reached out counted.",
    )
    last_delivery_at: Timestamp | None = Field(description="When the last one was sent (within the retention period); null if none.")

    @classmethod
    def of(cls, pinned: list[str], more: bool, shown: int, deliveries: int, last_at: str | None) -> VersionUsage:
        """The usage of a version: the endpoints pinned to it (counted up to a bound, `more`: at least that many; the
        first `shown` ids), its deliveries over the last days and when the last was sent."""
        return cls(endpoints=PinnedEndpoints(count=len(pinned), more=more, ids=pinned[:shown]), deliveries_7d=deliveries, last_delivery_at=last_at)


class PayloadVersion(Answer):
    # One of the tenant's payload versions; `usage` for the producer only.
    version: fields.VersionName
    default: bool = Field(description="The tenant's default: what new endpoints are pinned to and what `data` is sent as.")
    deprecated: bool = Field(description="It has a `sunset_at`.")
    sunset_at: Timestamp | None = Field(description="From then on it cannot be pinned; endpoints pinned to it keep receiving it. Null for none.")
    created_at: Timestamp | None = Field(description="When it was added; null for `2026-01-01` until it is first changed.")
    usage: VersionUsage | SkipJsonSchema[None] = absent_unless_set()

    @classmethod
    def of(cls, version: domain.PayloadVersion, default: str, usage: VersionUsage | None = None) -> PayloadVersion:
        return cls(
            version=version.name,
            default=version.name == default,
            deprecated=version.deprecated,
            sunset_at=version.sunset_at,
            created_at=version.created_at or None,
            usage=usage,
        )


class VersionList(Answer):
    # The tenant's payload versions, oldest first, and its default.
    default: fields.VersionName
    items: list[PayloadVersion] = Field(description="Every version, oldest first; `usage` on each for the producer only.")
