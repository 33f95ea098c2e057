"""Request validation: raw JSON in, typed values or a ValidationFailed out. Pure."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from hookline.core import ids, ssrf, text
from hookline.core.errors import BadRequest, PayloadTooLarge, ValidationFailed
from hookline.core.jsonpatch import format_pointer
from hookline.core.versions import version_name

EVENT_TYPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$")
IDEMPOTENCY_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")


def event_ids_named_by(tenant: str, value: str) -> tuple[str, ...]:
    """The event ids a path's `{id}` may name, to try in order: itself when it is an `evt_` id, then the id ingest
    derives from it as the producer's idempotency key (the `id` sent with the event; a key may look like an id)."""
    named = (value,) if ids.is_id(value, ids.EVENT) else ()
    return (*named, ids.derived_id(ids.EVENT, tenant, value)) if IDEMPOTENCY_ID.fullmatch(value) else named


MAX_URL_LENGTH = 2048
MAX_JSON_DEPTH = 32


def parse_json_object(body: bytes | str | None, max_bytes: int) -> dict[str, Any]:
    """A request body as strict JSON, an object, or the error that refuses it.

    400 `malformed_json` for what is not JSON (NaN, Infinity, lone surrogates) or is ambiguous: an object that names
    a key twice, at any depth (the message names the key). 422 for a number that would not keep its value, naming
    it by its JSON Pointer: a number with a fraction or an exponent is kept as a double (IEEE 754, what JSON parsers
    commonly read) and delivered written the shortest way that reads back as that double, so one the double cannot
    hold as written (`1e-400` underflows to 0, `1e400` overflows, `0.1000000000000000000001` rounds to 0.1) is
    refused; an integer is kept exactly, however long. DynamoDB's limits on numbers (38 significant digits) never
    bind: `data`, filters and schemas are stored as JSON text, and the fields stored as numbers are checked to small
    ranges. A string may hold any character JSON can escape, NUL included (see `text` for the fields people read).
    """
    raw = body.encode() if isinstance(body, str) else (body or b"")
    if len(raw) > max_bytes:
        raise PayloadTooLarge(f"request body is {len(raw)} bytes; the limit is {max_bytes}")
    if not raw.strip():
        raise BadRequest("request body must be a JSON object", code="malformed_json")
    changed: list[_Changed] = []
    try:
        value = json.loads(raw, parse_constant=_no_constant, parse_float=partial(_float, changed), object_pairs_hook=_object)
        # Lone surrogates parse, but can be neither stored nor signed as UTF-8.
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except _DuplicateKey as exc:
        raise BadRequest(f"request body is not valid JSON: an object names the key {exc.key[:64]!r} twice", code="malformed_json") from None
    except (ValueError, RecursionError):
        raise BadRequest("request body is not valid JSON (strict: no NaN, Infinity or lone surrogates)", code="malformed_json") from None
    if not isinstance(value, dict):
        raise ValidationFailed("request body must be a JSON object")
    if _depth(value) > MAX_JSON_DEPTH:
        raise ValidationFailed(f"JSON nesting is deeper than {MAX_JSON_DEPTH}")
    found = _first_changed(value) if changed else None
    if found is not None:
        pointer, number = found
        raise ValidationFailed(
            f"the number at {pointer} ({number.text[:64]}) would not keep its value: a number with a fraction or an exponent is "
            "kept as a double (about 17 significant digits, magnitudes 5e-324 to 1.8e308)"
        )
    return value


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return value


class _Changed(float):
    """A number that the double it reads as does not hold as written (kept as text, to name it)."""

    text: str


def _float(changed: list[_Changed], literal: str) -> float:
    value = float(literal)
    shortest = repr(value)
    if shortest == literal or (not math.isinf(value) and Decimal(shortest) == Decimal(literal)):
        return value
    marked = _Changed(value)
    marked.text = literal
    changed.append(marked)
    return marked


def _first_changed(value: Any, path: tuple[str | int, ...] = ()) -> tuple[str, _Changed] | None:
    """The JSON Pointer and the text of the first number (in document order) that would not keep its value."""
    if isinstance(value, _Changed):
        return format_pointer(path), value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _first_changed(item, (*path, key))
        if found is not None:
            return found
    return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def time_param(raw: Any, name: str) -> datetime:
    """An ISO 8601 time with a zone, in a sane range, or a 422 naming the field."""
    if not isinstance(raw, str):
        raise ValidationFailed(f"'{name}' must be an ISO 8601 time", code="wrong_type")
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            raise ValidationFailed(f"'{name}' needs a time zone (e.g. Z)")
        moment = moment.astimezone(UTC)
    except (ValueError, OverflowError):
        raise ValidationFailed(f"'{name}' is not an ISO 8601 time") from None
    if not 1970 <= moment.year <= 9000:
        raise ValidationFailed(f"'{name}' is out of range")
    return moment


def stats_window(query: dict[str, str], now: datetime, default: timedelta = timedelta(days=1)) -> tuple[datetime, datetime]:
    """The window of a statistics query: [since, until], by default the `default` (24 hours) before now; since must come first."""
    until = time_param(query["until"], "until") if query.get("until") else now
    since = time_param(query["since"], "since") if query.get("since") else until - default
    if since >= until:
        raise ValidationFailed("'since' must be before 'until'")
    return since, until


def _depth(value: Any) -> int:
    depth, level = 0, [value]
    while level:
        depth += 1
        nxt: list[Any] = []
        for v in level:
            if isinstance(v, dict):
                nxt.extend(v.values())
            elif isinstance(v, list):
                nxt.extend(v)
        level = nxt
    return depth - 1


def reject_unknown(body: dict[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ValidationFailed(f"unknown field(s): {', '.join(unknown)}", code="unknown_field")


def validate_url(value: Any, policy: ssrf.UrlPolicy) -> str:
    if not isinstance(value, str):
        raise ValidationFailed("'url' must be a string", code="wrong_type")
    if len(value) > MAX_URL_LENGTH:
        raise ValidationFailed(f"'url' is longer than {MAX_URL_LENGTH} characters", code="invalid_url")
    if any(c.isspace() or ord(c) < 32 for c in value):
        raise ValidationFailed("'url' must not contain whitespace or control characters", code="invalid_url")
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        raise ValidationFailed("'url' is not a valid URL", code="invalid_url") from None
    if parts.scheme not in ("http", "https"):
        raise ValidationFailed("'url' must be an http or https URL", code="invalid_url")
    if not parts.hostname:
        raise ValidationFailed("'url' has no host", code="invalid_url")
    if parts.username is not None or parts.password is not None:
        raise ValidationFailed("'url' must not contain credentials", code="invalid_url")
    if port == 0:
        raise ValidationFailed("'url' has an invalid port", code="invalid_url")
    # The same check as every delivery's before it resolves a name (the host normalized as the resolver sees it);
    # a name is checked again after resolution on every delivery.
    try:
        why = policy.refusal(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80))
    except ValueError:
        raise ValidationFailed("'url' has a host that is not a valid (IDNA) host name", code="invalid_url") from None
    if why:
        raise ValidationFailed(f"'url' is not allowed: {why}", code="forbidden_url")
    return value


# Below HOOKLINE_TOKEN_LEASE_MIN_RATE an endpoint's limiter item takes a grant and a give-back per batch; above it,
# token leases (hookline.core.leases) take a write per warm instance and second, under DynamoDB's 1,000 per key.
MAX_RATE_PER_SECOND = 10_000.0
MAX_CONCURRENCY = 100


def as_integer(value: Any) -> int | None:
    """A JSON integer as JSON Schema counts one (so 39.0 is 39, as in hookline's OpenAPI 3.1 document); None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _string_map(value: Any, field: str, keys: str, max_entries: int, entries: str) -> dict[str, Any]:
    """The shape every string map shares: absent means empty, else an object of at most `max_entries` entries."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValidationFailed(f"'{field}' must be an object of {keys} to string values", code="wrong_type")
    if len(value) > max_entries:
        raise ValidationFailed(f"'{field}' holds more than {max_entries} {entries}")
    return value


@dataclass(frozen=True)
class EventInput:
    type: str
    data: dict[str, Any]
    idempotency_key: str | None
    customer: str | None = None  # the customer it is addressed to; None: the tenant's own endpoints
    versions: dict[str, dict[str, Any]] = field(default_factory=dict)  # `data` rendered at other payload versions, by version


MAX_SUPPLIED_VERSIONS = 20


def supplied_versions(value: Any) -> dict[str, dict[str, Any]]:
    """`versions`: the producer's renderings of `data` at other payload versions, each a JSON object."""
    if not isinstance(value, dict):
        raise ValidationFailed("'versions' must be an object: payload version to that version's 'data'", code="wrong_type")
    if len(value) > MAX_SUPPLIED_VERSIONS:
        raise ValidationFailed(f"'versions' holds at most {MAX_SUPPLIED_VERSIONS} renderings")
    out: dict[str, dict[str, Any]] = {}
    for name, data in value.items():
        version_name(name, f"versions.{name}")
        if not isinstance(data, dict):
            raise ValidationFailed(f"'versions.{name}' must be a JSON object (the data as of that version)", code="wrong_type")
        out[name] = data
    return out


MAX_BATCH_EVENTS = 100


def query_values(raw: dict[str, Any] | None) -> dict[str, str]:
    """A request's query parameters; one given with no value (`?since=`) is refused rather than taken as absent."""
    values = {k: v for k, v in (raw or {}).items() if isinstance(v, str)}
    empty = sorted(k for k, v in values.items() if v == "")
    if empty:
        raise ValidationFailed(f"query parameter '{empty[0][:64]}' has no value: give one, or leave the parameter out")
    return values


def page_limit(raw: str | None, maximum: int, default: int = 50) -> int:
    if raw is None or raw == "":
        return min(default, maximum)
    try:
        value = int(raw)
    except ValueError:
        raise ValidationFailed("'limit' must be an integer") from None
    if not 1 <= value <= maximum:
        raise ValidationFailed(f"'limit' must be between 1 and {maximum}")
    return value


# -- customers -------------------------------------------------------------------------------------

# No '#': a uid is part of DynamoDB keys, whose parts '#' separates.
CUSTOMER_UID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
MAX_CUSTOMER_NAME = 256
MAX_EMAIL = 254  # RFC 5321's path limit
# A pragmatic address check: one @, no spaces, commas, quotes or angle brackets (nothing that could
# add a recipient or a header when it is mailed to), a dot-atom before the @ (no dot first, last or twice in a row,
# RFC 5322) and a dotted domain. What a pattern cannot say is email_parts'.
_ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
EMAIL = re.compile(rf"^{_ATEXT}+(?:\.{_ATEXT}+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{{0,61}}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{{0,61}}[A-Za-z0-9])?)+$")
MAX_EMAIL_LOCAL = 64  # RFC 5321's limit of the part before the @


def email_parts(value: str) -> bool:
    """Whether an address that matches EMAIL also keeps the rules its document's `format: email` holds and a pattern
    cannot: at most MAX_EMAIL_LOCAL characters before the @, and no domain label with `--` third and fourth (IDNA's
    reserved form) unless it is an A-label (`xn--`, decoding to a name IDNA allows)."""
    local, _, domain = value.rpartition("@")
    return len(local) <= MAX_EMAIL_LOCAL and all(_label_fits(label) for label in domain.split("."))


def _label_fits(label: str) -> bool:
    if label[2:4] != "--":
        return True
    if not label.startswith("xn--"):
        return False
    try:
        label.encode("ascii").decode("idna")  # ToUnicode: the punycode decodes to a name IDNA allows
    except UnicodeError:
        return False
    return True


MAX_METADATA_KEYS = 32
MAX_METADATA_KEY = 64
MAX_METADATA_VALUE = 512
MAX_METADATA_BYTES = 4096


def customer_uid(value: Any) -> str:
    """A customer uid from a path or a body, or a 422 naming the rule."""
    if not isinstance(value, str):
        raise ValidationFailed("'customer' must be a string", code="wrong_type")
    if not CUSTOMER_UID.fullmatch(value):
        raise ValidationFailed("a customer uid is 1 to 64 characters of letters, digits and ._:-", code="invalid_customer_uid")
    return value


def validate_metadata(value: Any) -> tuple[tuple[str, str], ...]:
    """A small string map: up to 32 keys of 1-64 characters, values up to 512, 4 KB in all; no control characters."""
    value = _string_map(value, "metadata", "string keys", MAX_METADATA_KEYS, "keys")
    size = 0
    for key, raw in value.items():
        if not 1 <= len(key) <= MAX_METADATA_KEY or text.CONTROL.search(key):
            raise ValidationFailed(f"metadata key {key[:64]!r} must be 1 to {MAX_METADATA_KEY} characters, without control characters")
        if not isinstance(raw, str):
            raise ValidationFailed(f"metadata {key!r} must have a string value", code="wrong_type")
        if len(raw) > MAX_METADATA_VALUE:
            raise ValidationFailed(f"metadata {key!r} is longer than {MAX_METADATA_VALUE} characters")
        text.readable(raw, f"metadata.{key}")
        size += len(key.encode()) + len(raw.encode())
    if size > MAX_METADATA_BYTES:
        raise ValidationFailed(f"'metadata' adds up to {size} bytes; the limit is {MAX_METADATA_BYTES}")
    return tuple((k, v) for k, v in value.items())
