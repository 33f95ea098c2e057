"""Payload versions and the event-type catalog: pinning rules, schemas with their pointer, renderings derived by JSON Patch."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pydantic
import pytest

from hookline.core.contract.catalog import PutEventType, PutVersion
from hookline.core.errors import PayloadTooLarge, ValidationFailed
from hookline.core.versions import (
    BASE_VERSION,
    EventType,
    PayloadVersion,
    SchemaViolation,
    VersionCatalog,
    VersionSunset,
    VersionUnavailable,
    broadcast_pins,
    check_size,
    derive,
    event_type_of,
    render,
    version_name,
)
from hookline.entrypoints.api.routing import contract_error

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _read(model: type[PutEventType] | type[PutVersion], body: dict) -> Any:
    """The body as the API reads it: a refusal is the error it answers (contract_error)."""
    try:
        return model.model_validate(body)
    except pydantic.ValidationError as exc:
        raise contract_error([dict(error) for error in exc.errors()]) from None


def event_type_put(tenant: str, name: str, body: dict, now: datetime, existing: None) -> EventType:
    """An event type registered as `PUT /v1/event-types/{name}` reads its body (hookline.services.catalog)."""
    put = _read(PutEventType, body)
    return event_type_of(tenant, name, put.description, put.deprecated, put.type_versions(), now, existing)


def version_put(body: dict, current: PayloadVersion | None) -> tuple[str | None, bool]:
    """A payload version's (sunset, make default) as `PUT /v1/versions/{version}` reads its body."""
    put = _read(PutVersion, body)
    return put.sunset(current), put.default


@pytest.mark.parametrize(
    ("model", "body", "message"),
    [
        (PutEventType, {"description": 7}, "'description' must be a string of at most 1024 characters"),
        (PutEventType, {"description": "x" * 1025}, "'description' must be a string of at most 1024 characters"),
        (PutEventType, {"description": "a\tb\nc\x07"}, "'description' must not contain control characters other than tab and line feed (found U+0007)"),
        (PutEventType, {"deprecated": "yes"}, "'deprecated' must be true or false"),
        (PutEventType, {"deprecated": 1}, "'deprecated' must be true or false"),
        (PutVersion, {"default": None}, "'default' must be true or false"),
        (PutVersion, {"default": "true"}, "'default' must be true or false"),
        # A sunset the document refuses is refused: RFC 3339 with an upper-case T and a zone, in range (issue 51)
        (PutVersion, {"sunset_at": 5}, "'sunset_at' must be an ISO-8601 time such as 2027-01-01T00:00:00Z"),
        (PutVersion, {"sunset_at": "2027-01-01 00:00:00Z"}, "'sunset_at' must be an ISO-8601 time such as 2027-01-01T00:00:00Z"),
        (PutVersion, {"sunset_at": "2027-01-01T00:00:00+0100"}, "'sunset_at' must be an ISO-8601 time such as 2027-01-01T00:00:00Z"),
        (PutVersion, {"sunset_at": "20270101T000000Z"}, "'sunset_at' must be an ISO-8601 time such as 2027-01-01T00:00:00Z"),
        (PutVersion, {"sunset_at": "2027-01-01T00:00:00"}, "'sunset_at' needs a time zone (e.g. Z)"),
        (PutVersion, {"sunset_at": "0001-01-01T00:00:00Z"}, "'sunset_at' is out of range"),
    ],
)  # fmt: skip
def test_a_catalog_field_is_refused_with_its_own_message(model: type[PutEventType] | type[PutVersion], body: dict, message: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        _read(model, body)
    assert (refused.value.code, refused.value.message) == ("validation_failed", message)


# invoice.paid over three versions: 2026-10-01 renamed `amount` to `amount_cents`; 2026-06-01 added `currency`.
INVOICE = {
    "description": "An invoice was paid",
    "versions": {
        "2026-01-01": {"schema": {"type": "object", "required": ["amount"], "properties": {"amount": {"type": "integer"}}}},
        "2026-06-01": {
            "schema": {"type": "object", "required": ["amount", "currency"], "properties": {"amount": {"type": "integer"}, "currency": {"type": "string"}}},
            "transform": [{"op": "remove", "path": "/currency"}],
        },
        "2026-10-01": {
            "schema": {
                "type": "object",
                "required": ["amount_cents", "currency"],
                "properties": {"amount_cents": {"type": "integer", "minimum": 0}, "currency": {"type": "string"}},
            },
            "transform": [{"op": "move", "from": "/amount_cents", "path": "/amount"}],
        },
    },
}


def invoice():
    return event_type_put("acme", "invoice.paid", INVOICE, NOW, None)


def catalog(default: str = "2026-10-01", **sunsets: str) -> VersionCatalog:
    c = VersionCatalog("acme")
    for v in ("2026-06-01", "2026-10-01"):
        c = c.put(v, None, False, NOW)
    c = c.put(default, None, True, NOW)
    for v, at in sunsets.items():
        c = c.put(v.replace("_", "-").removeprefix("v"), at, False, NOW)
    return c


def test_every_tenant_has_the_base_version_and_versions_are_ordered_dates():
    assert [v.name for v in VersionCatalog("acme").versions] == [BASE_VERSION]
    assert [v.name for v in catalog().versions] == ["2026-01-01", "2026-06-01", "2026-10-01"]
    assert catalog().default == "2026-10-01"
    for bad in ("2026-13-01", "v2", "2026-1-1", 20261001):
        with pytest.raises(ValidationFailed):
            version_name(bad)


def test_a_sunset_makes_a_version_unpinnable_but_it_is_still_known():
    c = catalog(v2026_01_01="2026-11-01T00:00:00Z", v2026_06_01="2027-03-01T00:00:00Z")
    assert c.pinnable("2026-10-01", NOW) == "2026-10-01"
    assert c.pinnable("2026-06-01", NOW) == "2026-06-01"  # deprecated, not yet past its sunset
    with pytest.raises(VersionSunset):
        c.pinnable("2026-01-01", NOW)
    with pytest.raises(ValidationFailed, match="unknown version"):
        c.pinnable("2027-01-01", NOW)
    assert c.get("2026-01-01").deprecated and c.get("2026-01-01").past_sunset(NOW)
    assert c.sunsets(["2026-01-01", "2026-10-01"]) == {"2026-01-01": "2026-11-01T00:00:00Z"}


def test_the_default_never_has_a_sunset():
    with pytest.raises(ValidationFailed, match="default"):
        catalog().put("2026-10-01", "2027-01-01T00:00:00Z", False, NOW)
    with pytest.raises(ValidationFailed, match="default"):
        catalog().put("2026-06-01", "2027-01-01T00:00:00Z", True, NOW)
    assert version_put({"sunset_at": "2027-01-01T00:00:00+01:00"}, None) == ("2026-12-31T23:00:00.000Z", False)
    with pytest.raises(ValidationFailed):
        version_put({"sunset_at": "2027-01-01T00:00:00"}, None)  # no time zone
    with pytest.raises(ValidationFailed):
        version_put({"sunset": "2027-01-01T00:00:00Z"}, None)
    # A time that has no UTC form is refused as out of range, not a 500
    for edge in ("0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"):
        with pytest.raises(ValidationFailed, match="out of range"):
            version_put({"sunset_at": edge}, None)


def test_a_put_that_leaves_out_the_sunset_keeps_it_and_null_clears_it():
    deprecated = catalog(v2026_06_01="2027-03-01T00:00:00.000Z").get("2026-06-01")
    assert version_put({}, deprecated) == ("2027-03-01T00:00:00.000Z", False)
    assert version_put({"sunset_at": None}, deprecated) == (None, False)
    assert version_put({"default": True}, None) == (None, True)


@pytest.mark.parametrize("pointer", ["a", "/a~2", "/~", "a/b"])
def test_a_transforms_pointer_is_refused_by_the_patch_rule_naming_the_version(pointer: str) -> None:
    body = {"versions": {"2026-01-01": {"transform": [{"op": "move", "from": "/a", "path": pointer}]}}}
    with pytest.raises(ValidationFailed, match=r"^'versions\.2026-01-01\.transform' is not a JSON Patch") as refused:
        _read(PutEventType, body)
    assert refused.value.code == "invalid_transform"
    assert _read(PutEventType, {"versions": {"2026-01-01": {"transform": [{"op": "remove", "path": "/a~0b/~1c/"}]}}})


def test_a_registration_is_checked_its_schema_and_its_transform():
    with pytest.raises(ValidationFailed, match="JSON Schema") as bad_schema:
        event_type_put("acme", "t", {"versions": {"2026-01-01": {"schema": {"type": "objekt"}}}}, NOW, None)
    assert bad_schema.value.code == "invalid_schema"
    with pytest.raises(ValidationFailed, match="JSON Patch") as bad_patch:
        event_type_put("acme", "t", {"versions": {"2026-01-01": {"transform": [{"op": "rename", "path": "/a"}]}}}, NOW, None)
    assert bad_patch.value.code == "invalid_transform"
    with pytest.raises(ValidationFailed):
        event_type_put("acme", "t", {"versions": {"latest": {}}}, NOW, None)


def test_data_against_its_versions_schema_names_the_pointer_and_the_rule():
    with pytest.raises(SchemaViolation) as caught:
        render(catalog(), invoice(), {"amount_cents": -5, "currency": "EUR"}, {}, {})
    assert (caught.value.pointer, caught.value.rule, caught.value.version) == ("/amount_cents", "minimum", "2026-10-01")
    body = caught.value.envelope()["error"]
    assert body["code"] == "schema_violation" and body["pointer"] == "/amount_cents" and body["rule"] == "minimum"
    with pytest.raises(SchemaViolation) as missing:
        render(catalog(), invoice(), {"currency": "EUR"}, {}, {})
    assert missing.value.rule == "required"
    # A type without a schema (or not in the catalog) is accepted as it comes.
    assert render(catalog(), None, {"anything": [1, 2]}, {}, {}).of("2026-10-01") == {"anything": [1, 2]}


def test_older_versions_are_derived_by_each_downgrade_newest_first():
    data = {"amount_cents": 1250, "currency": "EUR"}
    assert derive(invoice(), "2026-10-01", data, "2026-06-01") == {"amount": 1250, "currency": "EUR"}
    assert derive(invoice(), "2026-10-01", data, "2026-01-01") == {"amount": 1250}
    # A version between two registered shapes has the older one's shape.
    assert derive(invoice(), "2026-10-01", data, "2026-07-15") == {"amount": 1250, "currency": "EUR"}
    assert data == {"amount_cents": 1250, "currency": "EUR"}  # never changed in place


def test_what_cannot_be_derived_is_refused_naming_the_endpoint_and_its_version():
    no_downgrade = event_type_put("acme", "t", {"versions": {"2026-10-01": {"schema": {"type": "object"}}}}, NOW, None)
    with pytest.raises(VersionUnavailable) as caught:
        render(catalog(), no_downgrade, {"a": 1}, {}, {"ep_1": "2026-06-01"})
    assert caught.value.envelope()["error"] | {"message": ""} == {"code": "version_unavailable", "message": "", "version": "2026-06-01", "endpoint_id": "ep_1"}
    # Newer than the data, with a change on the way: only a supplied rendering will do.
    with pytest.raises(VersionUnavailable):
        render(catalog(default="2026-06-01"), invoice(), {"amount": 1, "currency": "EUR"}, {}, {"ep_2": "2026-10-01"})
    # A transform that does not fit the data fails the same way.
    with pytest.raises(VersionUnavailable, match="transform"):
        derive(invoice(), "2026-10-01", {"currency": "EUR"}, "2026-06-01")  # no /amount_cents to move


def test_supplied_renderings_win_and_are_checked_against_their_own_schema():
    pins = {"ep_old": "2026-01-01", "ep_new": "2026-10-01"}
    supplied = {"2026-01-01": {"amount": 7}}
    out = render(catalog(), invoice(), {"amount_cents": 1250, "currency": "EUR"}, supplied, pins)
    assert out.version == "2026-10-01"
    assert out.data == {"2026-10-01": {"amount_cents": 1250, "currency": "EUR"}, "2026-01-01": {"amount": 7}}
    with pytest.raises(SchemaViolation) as caught:
        render(catalog(), invoice(), {"amount_cents": 1, "currency": "EUR"}, {"2026-01-01": {"amount": "7"}}, pins)
    assert (caught.value.pointer, caught.value.version) == ("/amount", "2026-01-01")
    with pytest.raises(ValidationFailed, match="unknown version"):
        render(catalog(), invoice(), {"amount_cents": 1, "currency": "EUR"}, {"2030-01-01": {}}, pins)


def test_a_broadcast_renders_every_version_it_can():
    pins = broadcast_pins(catalog(), invoice(), {"amount_cents": 1, "currency": "EUR"}, {})
    assert sorted(pins.values()) == ["2026-01-01", "2026-06-01", "2026-10-01"]
    no_downgrade = event_type_put("acme", "t", {"versions": {"2026-10-01": {}}}, NOW, None)
    assert sorted(broadcast_pins(catalog(), no_downgrade, {}, {}).values()) == ["2026-10-01"]


def test_renderings_together_must_fit_an_item():
    check_size({"a": "x" * 1000}, limit=2000)
    with pytest.raises(PayloadTooLarge):
        check_size({"a": "x" * 1000, "b": "y" * 1001}, limit=2000)
