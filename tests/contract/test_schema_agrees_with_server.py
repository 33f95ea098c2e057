"""The document's request schemas and the server's rules agree (issue 51): for every request model, a body that has
one field replaced by a generated value is refused by the schema exactly when the server's model refuses it, and the
refusal names the same field. Pure: the models are validated as the API validates them, the schema read from
docs/openapi.yaml (which test_openapi_document keeps equal to the generated one).

The values are generated per field by hypothesis, 200 bodies per model: any JSON value, and the valid value mutated
(cut, repeated past its length, given a control character, a `#` or an upper-case letter, a number moved past its
bounds). A rule the document states in words because JSON Schema cannot (a URL's host, header names unique
regardless of case, byte totals, a filter's or a JSON Schema's meaning) is listed in IN_WORDS: for those fields the
server may refuse what the schema takes, never the other way round.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from hookline.core.contract.catalog import PutEventType, PutVersion
from hookline.core.contract.customers import PutCustomer
from hookline.core.contract.endpoints import CreateEndpoint, UpdateEndpoint
from hookline.core.contract.events import CreateBroadcast, CreateEvent, CreateEventBatch
from hookline.core.contract.filters import FilterTest
from hookline.core.contract.jobs import ReplayRequest
from hookline.core.contract.portal import CreatePortalSession, PutPortalSettings
from hookline.core.errors import HooklineError

DOCUMENT = yaml.safe_load((Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml").read_text(encoding="utf-8"))

_EVENT = {"type": "invoice.paid", "data": {"amount": 1}}
# A valid body of each request model, the field values the mutations start from.
VALID: dict[type[BaseModel], dict[str, Any]] = {
    CreateEvent: {**_EVENT, "id": "order-1", "customer": "org_1", "versions": {"2026-01-01": {}}},
    CreateBroadcast: {**_EVENT, "id": "order-1"},
    CreateEventBatch: {"events": [_EVENT]},
    CreateEndpoint: {
        "url": "https://example.com/hook",
        "event_types": ["invoice.paid"],
        "description": "Billing",
        "rate_limit_per_second": 5,
        "max_concurrency": 2,
        "headers": {"X-Key": "v"},
        "customer": "org_1",
        "version": "2026-01-01",
        "filter": {"type": ["invoice.paid"]},
        "ordered": False,
        "auth": {"type": "oauth2_client_credentials", "token_url": "https://auth.example.com/token", "client_id": "hookline", "client_secret": "s"},
    },
    UpdateEndpoint: {
        "description": "Billing",
        "rate_limit_per_second": 5,
        "max_concurrency": 2,
        "status": "active",
        "filter": {"type": ["x"]},
        "auth": {"type": "basic", "username": "hookline", "password": "p"},
    },
    PutCustomer: {"name": "Acme", "email": "ops@acme.example", "metadata": {"plan": "pro"}, "limits": {"max_rate_per_second": 10, "max_concurrency": 5}},
    PutEventType: {"description": "Paid", "deprecated": False, "versions": {"2026-01-01": {"schema": {"type": "object"}}}},
    PutVersion: {"sunset_at": "2027-01-01T00:00:00Z", "default": False},
    ReplayRequest: {"since": "2026-03-01T00:00:00Z", "until": "2026-03-02T00:00:00Z", "status": "failed"},
    FilterTest: {"filter": {"type": ["invoice.paid"]}, "event": {"type": "invoice.paid", "customer": None, "data": {}}},
    CreatePortalSession: {"ttl_seconds": 900, "read_only": True},
    PutPortalSettings: {"producer_name": "Acme", "allowed_origins": ["https://app.example.com"]},
}

# The fields whose rule the document states in words, beside the schema's part of it: the server may refuse more.
IN_WORDS: dict[type[BaseModel], set[str]] = {
    CreateEndpoint: {"url", "headers", "filter", "destination", "auth"},
    UpdateEndpoint: {"url", "headers", "filter", "destination", "version", "auth"},
    CreateEvent: {"versions"},
    CreateEventBatch: {"events"},
    PutCustomer: {"metadata"},
    PutEventType: {"versions"},
    FilterTest: {"filter", "event"},
    ReplayRequest: set(),
}

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


def _mutations(valid: Any) -> st.SearchStrategy[Any]:
    """Values near a valid one: the ones its constraints are about."""
    if isinstance(valid, str):
        return st.sampled_from(["", valid * 300, valid + "\x01", valid + "#", valid.upper(), valid + "\n", " ", valid[:-1], "x" + valid])
    if isinstance(valid, bool):
        return st.sampled_from([0, 1, "true"])
    if isinstance(valid, int | float):
        return st.sampled_from([0, -1, 0.05, 0.5, 1.5, valid * 10_000, 10**9, 101, 100, 86_401, 59])
    if isinstance(valid, list):
        return st.sampled_from([[], valid * 200, [*valid, 5], [*valid, "#"]])
    if isinstance(valid, dict):
        return st.sampled_from([{}, {**valid, "#": "x"}, dict.fromkeys(valid, 5), {str(i): "v" for i in range(40)}])
    return JSON


def _server(model: type[BaseModel], body: dict[str, Any]) -> tuple[bool, str | None]:
    """Whether the model refuses the body, and the field its refusal names (None: the body as a whole)."""
    try:
        model.model_validate(body)
    except ValidationError as exc:
        loc = exc.errors()[0]["loc"]
        return True, str(loc[0]) if loc else None
    except HooklineError:
        return True, None
    return False, None


@functools.cache
def _validator(name: str) -> Any:
    """The component's schema, as a validator with ECMA-262 regular expressions (`$` is the end, never before a final
    line feed), as JSON Schema's patterns are; jsonschema_rs reads them with Rust's regex crate, as the server does."""
    return jsonschema_rs.Draft202012Validator({**DOCUMENT, "$ref": f"#/components/schemas/{name}"})


def _schema(name: str, body: dict[str, Any]) -> tuple[bool, set[str]]:
    """Whether the document's schema refuses the body, and the fields its errors are in."""
    errors = list(_validator(name).iter_errors(body))
    return bool(errors), {str(e.instance_path[0]) for e in errors if e.instance_path}


@pytest.mark.parametrize("model", list(VALID), ids=lambda m: m.__name__)
def test_the_schema_refuses_exactly_what_the_server_refuses(model: type[BaseModel]) -> None:
    valid = VALID[model]
    assert not _server(model, valid)[0] and not _schema(model.__name__, valid)[0], "the valid body is valid"
    names = sorted(f.alias or n for n, f in model.model_fields.items())

    @settings(max_examples=200, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def agree(data: st.DataObject) -> None:
        field = data.draw(st.sampled_from(names))
        value = data.draw(JSON | _mutations(valid.get(field)) if field in valid else JSON)
        body = {**valid, field: value}
        refused, named = _server(model, body)
        schema_refused, where = _schema(model.__name__, body)
        if schema_refused:
            assert refused, f"the schema refuses {field}={value!r}, the server takes it"
            assert named in (None, field) and (not where or field in where), (field, value, named, where)
        elif field not in IN_WORDS.get(model, set()):
            assert not refused, f"the server refuses {field}={value!r} ({named}), the schema takes it"

    agree()
