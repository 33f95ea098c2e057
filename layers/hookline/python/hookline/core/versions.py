"""Payload versions and the event-type catalog: which shape of `data` each endpoint receives. Pure.

A tenant has an ordered list of payload versions, named by date (`2026-10-01`),
and a default. Every endpoint is pinned to one: the tenant's default when it is
created (Stripe's rule), and changing the default never moves it. A tenant that
registered none has one, BASE_VERSION, which endpoints stored before versions
existed are read as.

An event type in the catalog registers, per version, the JSON Schema of `data`
as of that version and the JSON Patch (RFC 6902) that turns that shape into the
shape of the previous registered version (a downgrade). The shape of any
version X is the one registered at the newest version at or before X, so a
version with no entry of its own changed nothing for that type.

The producer sends `data` as of the tenant's default version, and may add
renderings for other versions (`versions`). Any other version an endpoint is
pinned to is derived by applying the downgrades between the two, newest first;
a newer version than the data's cannot be derived once the type declares a
change on the way. What can be neither found nor derived refuses the event
(VersionUnavailable, a 422), so nothing is stored that could not be delivered
as its endpoints expect.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

from hookline.core import jsonpatch
from hookline.core.clock import iso, parse_iso
from hookline.core.errors import PayloadTooLarge, ValidationFailed

BASE_VERSION = "2026-01-01"  # every tenant's first version: what an endpoint without one is pinned to
VERSION_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MAX_VERSIONS = 50  # per tenant: the list is one item, read with every event
MAX_TYPE_VERSIONS = 20  # versions one event type registers a shape for
MAX_DESCRIPTION = 1024
MAX_TYPE_BYTES = 300_000  # an event type's schemas and transforms, as stored (DynamoDB's item limit is 400 KB)


class VersionUnavailable(ValidationFailed):
    """An endpoint the event goes to is pinned to a version the event can neither carry nor derive (422)."""

    code = "version_unavailable"

    def __init__(self, message: str, version: str, endpoint_id: str = ""):
        super().__init__(message)
        self.version = version
        self.endpoint_id = endpoint_id

    def envelope(self) -> dict[str, Any]:
        out = super().envelope()
        out["error"]["version"] = self.version
        if self.endpoint_id:
            out["error"]["endpoint_id"] = self.endpoint_id
        return out


class SchemaViolation(ValidationFailed):
    """`data` does not match its type's schema: the JSON pointer into it and the rule that failed (422)."""

    code = "schema_violation"

    def __init__(self, message: str, pointer: str, rule: str, version: str):
        super().__init__(message)
        self.pointer = pointer
        self.rule = rule
        self.version = version

    def envelope(self) -> dict[str, Any]:
        out = super().envelope()
        out["error"].update({"pointer": self.pointer, "rule": self.rule, "version": self.version})
        return out


class VersionSunset(ValidationFailed):
    """A version past its sunset cannot be pinned any more (422)."""

    code = "version_sunset"


def version_name(value: Any, field_name: str = "version") -> str:
    """A version's name: a calendar date, YYYY-MM-DD."""
    if not isinstance(value, str) or not VERSION_NAME.fullmatch(value):
        raise ValidationFailed(f"'{field_name}' must be a date, YYYY-MM-DD (e.g. 2026-10-01)")
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ValidationFailed(f"'{field_name}' is not a calendar date: {value}") from None
    return value


# -- a tenant's versions --------------------------------------------------------------


@dataclass(frozen=True)
class PayloadVersion:
    name: str
    sunset_at: str | None = None  # ISO-8601 UTC; set: deprecated, and unpinnable from then on
    created_at: str = ""

    @property
    def deprecated(self) -> bool:
        return self.sunset_at is not None

    def past_sunset(self, now: datetime) -> bool:
        return self.sunset_at is not None and parse_iso(self.sunset_at) <= now

    def public(self, default: str) -> dict[str, Any]:
        return {
            "version": self.name,
            "default": self.name == default,
            "deprecated": self.deprecated,
            "sunset_at": self.sunset_at,
            "created_at": self.created_at or None,
        }


@dataclass(frozen=True)
class VersionCatalog:
    """A tenant's payload versions, oldest first, and its default; `revision` guards concurrent changes."""

    tenant: str
    default: str = BASE_VERSION
    registered: tuple[PayloadVersion, ...] = ()
    revision: int = 0

    @property
    def versions(self) -> tuple[PayloadVersion, ...]:
        """Every version, oldest first: the registered ones and BASE_VERSION, which every tenant has."""
        known = {v.name: v for v in self.registered}
        known.setdefault(BASE_VERSION, PayloadVersion(BASE_VERSION))
        return tuple(known[name] for name in sorted(known))

    def get(self, name: str) -> PayloadVersion | None:
        return next((v for v in self.versions if v.name == name), None)

    def require(self, name: str) -> PayloadVersion:
        found = self.get(name)
        if found is None:
            known = ", ".join(v.name for v in self.versions)
            raise ValidationFailed(f"unknown version {name}: the tenant's versions are {known} (PUT /v1/versions/{{version}} adds one)", code="unknown_version")
        return found

    def pinnable(self, name: str, now: datetime) -> str:
        """The version a new pin may name: a known version not yet past its sunset."""
        version = self.require(name)
        if version.past_sunset(now):
            raise VersionSunset(f"version {name} is past its sunset ({version.sunset_at}): pin a newer version")
        return name

    def put(self, name: str, sunset_at: str | None, make_default: bool, now: datetime) -> VersionCatalog:
        """The catalog with `name` added or its sunset changed (and made the default if asked)."""
        existing = self.get(name)
        if existing is None and len(self.versions) >= MAX_VERSIONS:
            raise ValidationFailed(f"a tenant has at most {MAX_VERSIONS} versions", code="too_many_versions")
        if sunset_at is not None and (make_default or self.default == name):
            raise ValidationFailed(f"the default version cannot have a sunset: make another version the default first ({name})", code="default_sunset")
        created = existing.created_at if existing is not None and existing.created_at else iso(now)
        others = tuple(v for v in self.registered if v.name != name)
        registered = tuple(sorted((*others, PayloadVersion(name, sunset_at, created)), key=lambda v: v.name))
        return replace(self, registered=registered, default=name if make_default else self.default)

    def sunsets(self, names: Iterable[str]) -> dict[str, str]:
        """The sunset dates of those of `names` that have one."""
        return {n: v.sunset_at for n in names if (v := self.get(n)) is not None and v.sunset_at is not None}

    def public(self) -> dict[str, Any]:
        return {"default": self.default, "items": [v.public(self.default) for v in self.versions]}


def version_sunset(value: Any) -> str | None:
    """A version's `sunset_at` as given: an ISO-8601 time with a zone (in UTC, as stored), or None (no sunset)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationFailed("'sunset_at' must be an ISO-8601 time such as 2027-01-01T00:00:00Z")
    try:
        moment = parse_iso(value)
    except ValueError:
        raise ValidationFailed("'sunset_at' must be an ISO-8601 time such as 2027-01-01T00:00:00Z") from None
    if moment.tzinfo is None:
        raise ValidationFailed("'sunset_at' needs a time zone (e.g. Z)")
    try:
        return iso(moment)  # in UTC: 0001-01-01 east of it, or 9999-12-31 west of it, is out of range
    except OverflowError:
        raise ValidationFailed("'sunset_at' is out of range") from None


# -- the event-type catalog ------------------------------------------------------------


@dataclass(frozen=True)
class TypeVersion:
    """An event type's shape as of one version: its schema, and the downgrade to the previous registered version's shape."""

    schema: dict[str, Any] | None = None
    transform: tuple[dict[str, Any], ...] | None = None

    def public(self) -> dict[str, Any]:
        return {
            **({"schema": self.schema} if self.schema is not None else {}),
            **({"transform": list(self.transform)} if self.transform is not None else {}),
        }


@dataclass(frozen=True)
class EventType:
    tenant: str
    name: str
    description: str = ""
    deprecated: bool = False
    versions: Mapping[str, TypeVersion] = field(default_factory=dict)  # by version name
    created_at: str = ""
    updated_at: str = ""

    def shape_version(self, version: str) -> str | None:
        """The registered version whose shape `version` has: the newest at or before it (None: before any)."""
        at_or_before = [v for v in self.versions if v <= version]
        return max(at_or_before) if at_or_before else None

    def schema_for(self, version: str) -> dict[str, Any] | None:
        shape = self.shape_version(version)
        return self.versions[shape].schema if shape is not None else None

    def public(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "deprecated": self.deprecated,
            "versions": {v: self.versions[v].public() for v in sorted(self.versions)},
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }


def event_type_of(
    tenant: str, name: str, description: str, deprecated: bool, versions: Mapping[str, TypeVersion], now: datetime, existing: EventType | None
) -> EventType:
    """An event type registered (or replaced: its creation time kept) now, its versions in order."""
    stamp = iso(now)
    return EventType(
        tenant=tenant,
        name=name,
        description=description,
        deprecated=deprecated,
        versions=dict(sorted(versions.items())),
        created_at=existing.created_at if existing is not None else stamp,
        updated_at=stamp,
    )


def type_versions(raw: Any) -> dict[str, TypeVersion]:
    """An event type's `versions`, by version name in order: each name a date, each schema valid JSON Schema 2020-12,
    each transform a JSON Patch."""
    if not isinstance(raw, dict):
        raise ValidationFailed("'versions' must be an object: version name to {schema, transform}")
    if len(raw) > MAX_TYPE_VERSIONS:
        raise ValidationFailed(f"an event type registers at most {MAX_TYPE_VERSIONS} versions")
    versions = {version_name(v, f"versions.{v}"): _type_version(v, spec) for v, spec in raw.items()}
    return dict(sorted(versions.items()))


def _type_version(version: str, spec: Any) -> TypeVersion:
    if not isinstance(spec, dict) or set(spec) - {"schema", "transform"}:
        raise ValidationFailed(f"'versions.{version}' must be an object with 'schema' and/or 'transform'")
    schema = spec.get("schema")
    if schema is not None:
        from hookline.core import schemas  # jsonschema loads (~65 ms) only where a schema is used

        if not isinstance(schema, dict):
            raise ValidationFailed(f"'versions.{version}.schema' must be a JSON Schema object")
        try:
            schemas.check_schema(schema)
        except schemas.SchemaInvalid as exc:
            raise ValidationFailed(f"'versions.{version}.schema' is not a valid JSON Schema (2020-12): {exc}", code="invalid_schema") from None
    transform = spec.get("transform")
    ops: tuple[dict[str, Any], ...] | None = None
    if transform is not None:
        try:
            ops = tuple(jsonpatch.validate_ops(transform))
        except jsonpatch.PatchInvalid as exc:
            raise ValidationFailed(f"'versions.{version}.transform' is not a JSON Patch (RFC 6902): {exc}", code="invalid_transform") from None
    return TypeVersion(schema=schema, transform=ops)


# -- rendering an event per version ---------------------------------------------------------


def check_data(event_type: EventType | None, version: str, data: Any) -> None:
    """`data` against its type's schema as of `version`, when the catalog has one (SchemaViolation names where and which rule)."""
    schema = event_type.schema_for(version) if event_type is not None else None
    if schema is None:
        return
    from hookline.core import schemas  # jsonschema loads only where a schema is used, not on every cold start

    try:
        found = schemas.violation(schema, data)
    except schemas.SchemaInvalid as exc:  # e.g. a reference cycle this data enters: the registration, not the event, is at fault
        name = event_type.name if event_type else ""
        raise ValidationFailed(f"the schema of {name} at version {version} cannot validate this data: {exc}", code="invalid_schema") from None
    if found is not None:
        where = found.pointer or "(the root)"
        raise SchemaViolation(
            f"'data' does not match {event_type.name if event_type else ''} at version {version}: {found.message} at {where}",
            found.pointer,
            found.rule,
            version,
        )


def derive(event_type: EventType | None, data_version: str, data: Any, wanted: str) -> Any:
    """`data` (as of `data_version`) as of `wanted`, by the type's downgrades; VersionUnavailable when it cannot be."""
    if wanted == data_version:
        return data
    registered = sorted(event_type.versions) if event_type is not None else []
    if wanted > data_version:
        if any(data_version < v <= wanted for v in registered):
            raise VersionUnavailable(
                f"version {wanted} is newer than the event's data ({data_version}) and its type changed since: send it in 'versions'", wanted
            )
        return data
    out = data
    for v in sorted((v for v in registered if wanted < v <= data_version), reverse=True):
        step = event_type.versions[v] if event_type is not None else TypeVersion()
        if step.transform is None:
            raise VersionUnavailable(f"version {wanted} cannot be derived: {v} of this type registers no transform; send it in 'versions'", wanted)
        try:
            out = jsonpatch.apply(out, list(step.transform))
        except jsonpatch.PatchFailed as exc:
            raise VersionUnavailable(f"version {wanted} cannot be derived: the transform of {v} failed: {exc}", wanted) from None
    return out


@dataclass(frozen=True)
class Renderings:
    """An event's `data` per version it goes out at; `version` is the data's own (the tenant's default)."""

    version: str
    data: dict[str, Any]  # by version name

    def of(self, version: str) -> Any:
        return self.data[version]


def render(catalog: VersionCatalog, event_type: EventType | None, data: Any, supplied: Mapping[str, Any], pins: Mapping[str, str]) -> Renderings:
    """The event's data for each version its endpoints are pinned to (`pins`: endpoint id to version).

    `data` is as of the tenant's default and checked against its schema; each
    rendering in `supplied` must be a known version and match its schema; the
    rest are derived. An endpoint whose version can be neither refuses the
    whole event (VersionUnavailable naming the endpoint and its version).
    """
    # A version past its sunset still renders: its pinned endpoints keep receiving it.
    default = catalog.default
    check_data(event_type, default, data)
    for version, rendering in supplied.items():
        catalog.require(version)
        check_data(event_type, version, rendering)
    out: dict[str, Any] = {default: data}
    for endpoint_id, version in sorted(pins.items()):
        if version in out:
            continue
        if version in supplied:
            out[version] = supplied[version]
            continue
        try:
            out[version] = derive(event_type, default, data, version)
        except VersionUnavailable as exc:
            raise VersionUnavailable(f"endpoint {endpoint_id} is pinned to version {version}: {exc.message}", version, endpoint_id) from None
    return Renderings(default, out)


def broadcast_pins(catalog: VersionCatalog, event_type: EventType | None, data: Any, supplied: Mapping[str, Any]) -> dict[str, str]:
    """A broadcast goes to every endpoint, so it renders every version it can: `pins` naming each as if an endpoint held it.

    The versions it cannot render are left out; the caller refuses the event if an endpoint is pinned to one of them.
    """
    pins: dict[str, str] = {}
    for v in catalog.versions:
        if v.name in supplied or v.name == catalog.default:
            pins[f"version:{v.name}"] = v.name
            continue
        try:
            derive(event_type, catalog.default, data, v.name)
        except VersionUnavailable:
            continue
        pins[f"version:{v.name}"] = v.name
    return pins


def check_size(bodies: Mapping[str, str], limit: int = MAX_TYPE_BYTES) -> None:
    """An event's renderings, together, fit in its item."""
    total = sum(len(b.encode()) for b in bodies.values())
    if total > limit:
        raise PayloadTooLarge(f"the event's renderings for its endpoints' versions add up to {total} bytes; at most {limit}")
