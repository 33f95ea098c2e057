"""A customer's `email` is refused by the server exactly when the document's schema refuses it (its pattern and
`format: email`, as jsonschema-rs checks a format): the forms schemathesis found the server taking, and their
neighbours, through PutCustomer."""

from __future__ import annotations

import jsonschema_rs
import pytest
from pydantic import TypeAdapter, ValidationError

from hookline.core.contract.customers import PutCustomer
from hookline.core.contract.fields import Email

SCHEMA = TypeAdapter(Email).json_schema()
DOCUMENT = jsonschema_rs.validator_for(SCHEMA, validate_formats=True)


def _server_takes(address: str) -> bool:
    try:
        PutCustomer.model_validate({"name": "Acme", "email": address})
    except ValidationError as exc:
        assert "invalid_email" in str(exc.errors()[0]["type"]), exc.errors()
        return False
    return True


@pytest.mark.parametrize(
    ("address", "taken"),
    [
        ("ops@acme.example", True),
        ("o.p.s+tag@acme.example", True),
        (".gUb$KF`tM9L-2@a.u", False),  # a dot first (schemathesis's find)
        ("ops.@acme.example", False),  # a dot last
        ("o..ps@acme.example", False),  # two in a row
        ("a" * 64 + "@acme.example", True),
        ("a" * 65 + "@acme.example", False),  # more than RFC 5321's 64 before the @
        ("ops@ab--c.example", False),  # IDNA's reserved form
        ("ops@abc--d.example", True),
        ("ops@xn--bcher-kva.example", True),  # an A-label
        ("ops@xn--a.example", False),  # punycode of a name IDNA refuses
        ("ops@acme", False),  # no dot in the domain
    ],
)
def test_the_server_takes_an_address_exactly_when_the_document_does(address: str, taken: bool) -> None:
    # Given an address; Then the document's schema and the server both give the table's answer
    assert DOCUMENT.is_valid(address) is taken
    assert _server_takes(address) is taken
