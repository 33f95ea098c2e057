"""Routes of the catalog: the tenant's event types (schemas and downgrades per version) and its payload versions."""

from __future__ import annotations

from typing import Annotated, Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path
from pydantic.json_schema import SkipJsonSchema

from hookline.core.access import Access
from hookline.core.contract.catalog import EventTypeEntry, EventTypePage, PayloadVersion, PutEventType, PutVersion, VersionList
from hookline.core.contract.common import EVENT_TYPE_SCHEMA, VERSION_NAME_SCHEMA
from hookline.core.errors import envelope
from hookline.entrypoints.api.answers import answers, no_route, ok, refusal, stored
from hookline.entrypoints.api.params import DEFAULT_LIMIT, Cursor, Limit
from hookline.entrypoints.api.routing import Router, allow, caller, container, respond

router = Router()

# -- parameters -------------------------------------------------------------------------------------------------------

NAME_DOC = "An event type's name (letters, digits and `_.:/-`, up to 128 characters, starting with a letter or digit)."
VERSION_DOC = "A payload version's name, a calendar date `YYYY-MM-DD`; anything else is 422."
VERSION_PARAM_EXAMPLES: Any = {
    "new_default": {"summary": "A new version (the PUT examples make it the default)", "value": "2026-10-01"},
    "first": {"summary": "The version every tenant has (the PUT examples give it a sunset)", "value": "2026-01-01"},
    "another": {"summary": "One more version", "value": "2026-12-01"},
}

# A malformed name or version is the service's to refuse.
EventTypeNameParam = Annotated[str, Path(description=NAME_DOC, examples=["invoice.paid"], json_schema_extra=EVENT_TYPE_SCHEMA)]
VersionNameParam = Annotated[str, Path(description=VERSION_DOC, openapi_examples=VERSION_PARAM_EXAMPLES, json_schema_extra=VERSION_NAME_SCHEMA)]

# -- descriptions and examples ------------------------------------------------------------------------------------------

_INVOICE_PAID = {"name": "invoice.paid", "description": "An invoice was paid", "deprecated": False}
_STAMPS = {"created_at": "2026-03-14T09:26:53.589Z", "updated_at": "2026-09-20T11:02:40.117Z"}
LIST_EXAMPLE: Any = {
    "items": [{**_INVOICE_PAID, "versions": ["2026-01-01", "2026-10-01"], **_STAMPS}],
    "next": None,
    "sent": ["invoice.created", "user.created"],
}
# invoice.paid's shape per version: `amount` became `amount_cents` in 2026-10-01 (its transform moves it back).
_INVOICE_PAID_VERSIONS: Any = {
    "2026-01-01": {
        "schema": {
            "type": "object",
            "required": ["invoice", "amount"],
            "properties": {"invoice": {"type": "string"}, "amount": {"type": "integer"}, "currency": {"type": "string"}},
        }
    },
    "2026-10-01": {
        "schema": {
            "type": "object",
            "required": ["invoice", "amount_cents"],
            "properties": {"invoice": {"type": "string"}, "amount_cents": {"type": "integer", "minimum": 0}, "currency": {"type": "string"}},
        },
        "transform": [{"op": "move", "from": "/amount_cents", "path": "/amount"}],
    },
}
ENTRY_EXAMPLE: Any = {**_INVOICE_PAID, "versions": _INVOICE_PAID_VERSIONS, **_STAMPS}
PUT_TYPE_BODY: Any = {"description": _INVOICE_PAID["description"], "versions": _INVOICE_PAID_VERSIONS}
REGISTERED_EXAMPLE: Any = {
    "name": "invoice.paid",
    "description": "An invoice was paid",
    "deprecated": False,
    "versions": {
        "2026-10-01": {"schema": {"type": "object", "required": ["amount_cents"]}, "transform": [{"op": "move", "from": "/amount_cents", "path": "/amount"}]}
    },
    "created_at": "2026-09-20T11:02:40.117Z",
    "updated_at": "2026-09-20T11:02:40.117Z",
}
REPLACED_EXAMPLE: Any = {
    "name": "invoice.paid",
    "description": "An invoice was paid",
    "deprecated": True,
    "versions": {"2026-10-01": {"schema": {"type": "object", "required": ["amount_cents"]}}},
    "created_at": "2026-09-20T11:02:40.117Z",
    "updated_at": "2026-11-02T08:15:00.000Z",
}
PUT_TYPE_REFUSED: Any = {
    "invalid_schema": {
        "value": envelope(
            "invalid_schema", "'versions.2026-01-01.schema' is not a valid JSON Schema (2020-12): /type: 5 is not valid under any of the given schemas"
        )
    },
    "invalid_transform": {
        "value": envelope("invalid_transform", "'versions.2026-10-01.transform' is not a JSON Patch (RFC 6902): operation 0: move needs a 'from' member")
    },
}
# The tenant's two versions: 2026-01-01 past its sunset, 2026-10-01 the default.
CHANGED_EXAMPLE: Any = {
    "version": "2026-01-01",
    "default": False,
    "deprecated": True,
    "sunset_at": "2027-04-01T00:00:00.000Z",
    "created_at": "2026-11-02T08:15:00.000Z",
}
ADDED_EXAMPLE: Any = {"version": "2026-10-01", "default": True, "deprecated": False, "sunset_at": None, "created_at": "2026-09-20T11:02:40.117Z"}
VERSIONS_EXAMPLES: Any = {
    "producer": {
        "summary": "The producer (with usage)",
        "value": {
            "default": "2026-10-01",
            "items": [
                {
                    **CHANGED_EXAMPLE,
                    "usage": {
                        "endpoints": {"count": 2, "more": False, "ids": ["ep_01kkntq2cnt8b8hz3pj95wjvcc", "ep_01kkntq2cnnx6b2cektj3mapxa"]},
                        "deliveries_7d": 1284,
                        "last_delivery_at": "2026-11-30T17:42:03.118Z",
                    },
                },
                {
                    **ADDED_EXAMPLE,
                    "usage": {
                        "endpoints": {"count": 1, "more": False, "ids": ["ep_01kkntq2cn0f3k8x1d2mwz5ahq"]},
                        "deliveries_7d": 310,
                        "last_delivery_at": "2026-11-30T17:42:05.006Z",
                    },
                },
            ],
        },
    },
    "portal_session": {"summary": "A portal session (no usage)", "value": {"default": "2026-10-01", "items": [CHANGED_EXAMPLE, ADDED_EXAMPLE]}},
}
PUT_VERSION_BODIES: Any = {
    "make_default": {"summary": "Add a version and make it the default", "value": {"default": True}},
    "sunset": {"summary": "Deprecate a version, unpinnable from a date on", "value": {"sunset_at": "2027-04-01T00:00:00Z"}},
    "add": {"summary": "Add a version, nothing else", "value": {}},
}
PUT_VERSION_REFUSED: Any = {
    "default_sunset": {"value": envelope("default_sunset", "the default version cannot have a sunset: make another version the default first (2026-10-01)")},
    "not_a_date": {"value": envelope("validation_failed", "'version' must be a date, YYYY-MM-DD (e.g. 2026-10-01)")},
}
LIST_DOC = """A page of the tenant's registered event types in name order, each with
its description, `deprecated` and the names of the versions it
registers a shape for (the schemas and transforms:
`GET /v1/event-types/{name}`). The first page (no `cursor`) also lists
in `sent` the types the tenant has sent (noted at ingest, at most
1,000) that are not among its items: the portal's event-type
pick-list offers both.

A portal session sees only its customer's types, never another
customer's: those its customer's endpoints name in `event_types`
(what they can receive) and those sent to its customer (addressed to
it, or broadcast to every customer; noted at ingest, at most 1,000).
An endpoint that takes every type names none. `items` holds the
registered ones among them and the first page's `sent` the rest; a
type only another customer's endpoints name, or only sent to another
customer, is in neither, registered (with a schema) or not. Its
cursors are its own.
"""
GET_DOC = """A type the catalog does not hold is 404 `event_type_not_found`. A
portal session may read the types `GET /v1/event-types` lists for it;
any other answers that same 404, so a session cannot learn what the
producer sends to another customer.
"""
PUT_TYPE_DOC = """Registers the type (201) or replaces it as a whole (200; the creation
time is kept). Per version name it registers a shape for, `schema` is
the JSON Schema (2020-12, self-contained: every `$ref` is a fragment of
the same document; `format` is an annotation, not checked) that `data`
must match as of that version, and `transform` is the JSON Patch
(RFC 6902) that turns that version's shape into the shape of the
previous version registered for the type: a downgrade. The shape at
any version is the one registered at the newest version at or before
it, so a version with no entry changed nothing for this type. An event
is rendered for an endpoint pinned to an older version by applying the
transforms of each registered version between the two, newest first;
a newer version than the event's data cannot be derived once the type
changed on the way (send that rendering in `versions`). A version name
here need not be one of the tenant's versions yet. A change applies to
events accepted from about a second later. `deprecated` is shown to
the producer and the portal; it refuses nothing. Producer only.
"""
VERSIONS_DOC = """Every version of the tenant, oldest first (`2026-01-01`, which every
tenant has, included), with the `default`. A version with a
`sunset_at` is `deprecated`; once that time has passed it cannot be
pinned any more. For the producer each version also carries `usage`,
what to check before turning it off: the endpoints pinned to it
(`count`, read up to 1,000: `more` means at least that many; the first
20 `ids`), the webhooks sent at it over the last 7 days
(`deliveries_7d`, every attempt that reached out counted) and when the
last was sent. A portal session gets the list without `usage`, which
spans every customer.
"""
PUT_VERSION_DOC = """Adds the version (201) or changes it (200; `2026-01-01` always exists).
`sunset_at` set deprecates it and, from that time on, refuses new pins
to it (422 `version_sunset` on `POST /v1/endpoints` and `PATCH`); null
clears a sunset; left out, the version keeps the sunset it has. Endpoints already pinned to a version
past its sunset keep receiving it: each delivery logs a deprecation
warning, and the customer of such an endpoint gets one email per
endpoint and version (with `HOOKLINE_NOTIFICATION_SENDER` set), asking
to upgrade. `default: true` makes it the tenant's default (what new
endpoints are pinned to and what `data` is sent as); `false` or left
out leaves the default as it is. The default cannot have a sunset
(422 `default_sunset`): make another version the default first. At
most 50 versions (422 `too_many_versions`). The change is conditional
on the versions read; after three concurrent changes in a row it is
409 `versions_changed` (repeat it). The body may be left out. Producer
only.
"""


# -- routes -----------------------------------------------------------------------------------------------------------


@router.get(
    "/v1/event-types",
    operation_id="listEventTypes",
    tags=["catalog", "portal"],
    summary="The event-type catalog, and the types sent that it does not hold",
    description=LIST_DOC,
    responses=answers(ok(200, EventTypePage, "One page of the catalog.", example=LIST_EXAMPLE), "InvalidQuery"),
)
@allow(Access.READ)
def list_event_types(limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> Response[EventTypePage]:
    """A portal session lists only the types its customer sees: those its endpoints name and those sent to it."""
    who = caller()
    only = container.access_guard().event_types(who)
    page = container.catalog_service().list_types(who.tenant, limit, cursor, only)
    return respond(200, page)


@router.get(
    "/v1/event-types/<name>",
    operation_id="getEventType",
    tags=["catalog"],
    summary="One event type with its schema and transform per version",
    description=GET_DOC,
    responses=answers(
        ok(200, EventTypeEntry, "The event type.", example=ENTRY_EXAMPLE),
        refusal(
            404,
            "The catalog holds no such type (`event_type_not_found`).",
            envelope("event_type_not_found", "event type invoice.refunded is not in the catalog"),
        ),
    ),
)
@allow(Access.READ, "event_type")
def get_event_type(name: EventTypeNameParam) -> Response[EventTypeEntry]:
    return respond(200, container.catalog_service().get_type(caller().tenant, name))


@router.put(
    "/v1/event-types/<name>",
    operation_id="putEventType",
    tags=["catalog"],
    summary="Register or replace an event type",
    description=PUT_TYPE_DOC,
    responses=answers(
        ok(201, EventTypeEntry, "Registered.", example=REGISTERED_EXAMPLE),
        ok(200, EventTypeEntry, "Replaced.", example=REPLACED_EXAMPLE),
        "BadRequest",
        no_route("name"),
        "PayloadTooLarge",
        refusal(
            422,
            "The body is invalid (`unknown_field`, `validation_failed`: a bad\n"
            "name, description, version name or more than 20 versions), a\n"
            "schema is not valid JSON Schema 2020-12 (`invalid_schema`), or a\n"
            "transform is not a JSON Patch (`invalid_transform`: not an array,\n"
            "an unknown `op`, a missing `path`, `from` or `value`, a pointer\n"
            "that does not parse, more than 100 operations).\n",
            examples=PUT_TYPE_REFUSED,
        ),
    ),
)
@allow(Access.PRODUCER)
def put_event_type(
    name: EventTypeNameParam, body: Annotated[PutEventType, Body(openapi_examples={"invoice_paid": {"value": PUT_TYPE_BODY}})]
) -> Response[EventTypeEntry]:
    return stored(container.catalog_service().put_type(caller().tenant, name, body))


@router.get(
    "/v1/versions",
    operation_id="listVersions",
    tags=["catalog"],
    summary="The tenant's payload versions, and who still uses each",
    description=VERSIONS_DOC,
    responses=answers(ok(200, VersionList, "The versions.", examples=VERSIONS_EXAMPLES)),
)
@allow(Access.READ)
def list_versions() -> Response[VersionList]:
    """A portal session sees the versions; the producer also sees who still uses each (it spans every customer)."""
    return respond(200, container.catalog_service().versions(caller().tenant, with_usage=caller().is_producer))


@router.put(
    "/v1/versions/<version>",
    operation_id="putVersion",
    tags=["catalog"],
    summary="Add a payload version, set or clear its sunset, or make it the default",
    description=PUT_VERSION_DOC,
    responses=answers(
        ok(201, PayloadVersion, "Added.", example=ADDED_EXAMPLE),
        ok(200, PayloadVersion, "Changed.", example=CHANGED_EXAMPLE),
        "BadRequest",
        refusal(
            409,
            "The versions changed concurrently, three times in a row (`versions_changed`); repeat the request.",
            envelope("versions_changed", "the versions changed meanwhile, repeatedly; repeat the request"),
        ),
        no_route("version"),
        "PayloadTooLarge",
        refusal(
            422,
            "Not a date (`validation_failed`), a bad body (`unknown_field`,\n"
            "`validation_failed`: `sunset_at` not ISO 8601 with a time zone,\n"
            "`default` not a boolean), a sunset on the default\n"
            "(`default_sunset`), or more than 50 versions (`too_many_versions`).\n",
            examples=PUT_VERSION_REFUSED,
        ),
    ),
)
@allow(Access.PRODUCER)
def put_version(
    version: VersionNameParam, body: Annotated[PutVersion | SkipJsonSchema[None], Body(openapi_examples=PUT_VERSION_BODIES)] = None
) -> Response[PayloadVersion]:
    return stored(container.catalog_service().put_version(caller().tenant, version, body))
