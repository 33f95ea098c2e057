"""One registry of destination types (hookline.core.destinations.KINDS), one request model per type
(hookline.core.contract.destinations), one put per type (hookline.adapters.destinations.PUTS): everything else is
derived, and the document shows each model with the server's own patterns, so a client made from it cannot build
an address the server refuses for its pattern."""

from __future__ import annotations

import json
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from jsonschema.exceptions import ValidationError as SchemaError
from pydantic import TypeAdapter, ValidationError

from hookline.adapters.destinations import PUTS
from hookline.core import destinations, patterns
from hookline.core.contract import destinations as contract
from hookline.core.destinations import HTTP, KINDS, POLL, ROLE_NAME_PREFIX, TYPES, parse_destination
from hookline.core.errors import ValidationFailed
from hookline.entrypoints import portal_kinds

SPEC = yaml.load((Path(__file__).resolve().parents[2] / "docs" / "openapi.yaml").read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
COMPONENTS: dict[str, Any] = SPEC["components"]["schemas"]
ROLE = f"arn:aws:iam::111122223333:role/{ROLE_NAME_PREFIX}orders"
QUEUE = "https://sqs.eu-west-1.amazonaws.com/111122223333/orders"


def test_every_type_is_one_registry_entry_one_model_and_one_put() -> None:
    # Given the registry, the request models and the adapters' puts
    # Then each type has exactly one of each, in the registry's order (http is posted, not put; poll is put in its
    # mailbox, hookline.adapters.dynamo.mailbox, not in the customer's account)
    assert typing.get_args(destinations.DestinationType) == TYPES
    assert tuple(typing.get_args(model.model_fields["type"].annotation)[0] for model in contract.MODELS) == TYPES
    assert set(PUTS) == set(TYPES) - {HTTP, POLL}
    assert [kind for kind, k in KINDS.items() if k.pulled] == [POLL]
    # And each type in the customer's account names its address rule, its one IAM action (the customer's role allows
    # it) and its client; the polling one none of them (nothing is sent out)
    for kind, k in KINDS.items():
        if kind != HTTP:
            assert (bool(k.pattern), bool(k.action), bool(k.service), bool(k.address_field)) == (not k.pulled,) * 4, kind
    assert {kind: k.action for kind, k in KINDS.items() if kind not in (HTTP, POLL)} == destinations.ACTIONS


def test_the_portals_list_of_types_is_the_registrys() -> None:
    # Given the committed portal module and the one make portal-kinds writes from the registry
    committed = portal_kinds.PATH.read_text(encoding="utf-8")
    # Then they are the same: run `make portal-kinds` after changing hookline.core.destinations.KINDS
    assert committed == portal_kinds.script()
    assert 'import { DESTINATION_KINDS } from "./destination_kinds.js"' in (portal_kinds.PATH.parent / "format.js").read_text(encoding="utf-8")
    for kind, k in KINDS.items():
        assert (f"  {kind}: " in committed) == (kind != HTTP) and (json.dumps(k.label) in committed) == (kind != HTTP)


def _request_destinations() -> list[dict[str, Any]]:
    create = COMPONENTS["CreateEndpoint"]["properties"]["destination"]
    update = COMPONENTS["UpdateEndpoint"]["properties"]["destination"]
    return [create, update]


def test_the_document_shows_the_destination_as_a_discriminated_union_of_the_models() -> None:
    for shown in _request_destinations():
        # Then `type` tells the members apart, one component per type
        mapping = shown["discriminator"]["mapping"]
        assert shown["discriminator"]["propertyName"] == "type" and set(mapping) == set(TYPES)
        assert [member["$ref"] for member in shown["oneOf"]] == [f"#/components/schemas/{model.__name__}" for model in contract.MODELS]
        for kind, model in zip(TYPES, contract.MODELS, strict=True):
            assert mapping[kind] == f"#/components/schemas/{model.__name__}"


def test_each_models_patterns_in_the_document_are_the_servers_own() -> None:
    # Given each type's component in the document (what a generated client is made from)
    for kind, model in zip(TYPES, contract.MODELS, strict=True):
        shown = COMPONENTS[model.__name__]
        assert shown["properties"]["type"]["const"] == kind and shown["additionalProperties"] is False
        if kind in (HTTP, POLL):
            continue
        # Then its address and its role carry the very expressions the server matches whole
        k = KINDS[kind]
        assert k.pattern is not None
        assert shown["properties"][k.address_field]["pattern"] == k.pattern.pattern
        assert shown["properties"]["role_arn"]["pattern"] == destinations.ROLE_ARN.pattern
        assert set(shown["required"]) == {"type", k.address_field, "role_arn"}
    assert COMPONENTS["EventBridgeDestination"]["properties"]["source"]["pattern"] == destinations.SOURCE.pattern
    assert COMPONENTS["S3Destination"]["properties"]["prefix"]["pattern"] == destinations.PREFIX.pattern


def _by_document(value: Any) -> bool:
    """Whether the document's schema takes `value` (JSON Schema 2020-12, patterns as ECMA-262 reads them: `$` the end)."""
    text = json.dumps(_request_destinations()[0]).replace("#/components/schemas/", "#/$defs/")
    schema = {**json.loads(text), "$defs": {model.__name__: COMPONENTS[model.__name__] for model in contract.MODELS}}
    return _ECMA_PATTERNS(schema).is_valid(value)


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[SchemaError]:
    if validator.is_type(instance, "string") and not patterns.search(pattern, instance):
        yield SchemaError(f"{instance!r} does not match {pattern!r}")


# JSON Schema 2020-12 with `pattern` searched as ECMA-262 and Rust's regex do (`$` the end only; Python's `re` would
# take a value ending in a line feed).
_ECMA_PATTERNS = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _pattern})


def _by_model(value: Any) -> bool:
    try:
        TypeAdapter(contract.Destination).validate_python(value)
    except ValidationError:
        return False
    return True


def _by_server(value: Any) -> bool:
    try:
        parse_destination(value)
    except ValidationFailed:
        return False
    return True


def _aws(kind: str, address: str, **more: str) -> dict[str, str]:
    return {"type": kind, KINDS[kind].address_field: address, "role_arn": ROLE, **more}  # type: ignore[index]


@pytest.mark.parametrize(
    ("value", "taken"),
    [
        (_aws("sqs", QUEUE), True),
        (_aws("sqs", "https://sqs.us-gov-west-1.amazonaws.com/111122223333/orders.fifo"), True),
        (_aws("sqs", "https://sqs.cn-north-1.amazonaws.com.cn/111122223333/orders"), True),
        (_aws("sns", "arn:aws:sns:eu-west-1:111122223333:orders.fifo"), True),
        (_aws("eventbridge", "arn:aws:events:eu-west-1:111122223333:event-bus/orders", source="billing.prod"), True),
        (_aws("kinesis", "arn:aws-cn:kinesis:cn-north-1:111122223333:stream/orders"), True),
        (_aws("s3", "my-webhook-archive", prefix="webhooks/in"), True),
        (_aws("s3", "a.b-c"), True),
        ({"type": "sqs", "queue_url": QUEUE, "role_arn": "arn:aws-us-gov:iam::111122223333:role/hookline-delivery-x"}, True),
        # what the document's earlier, looser patterns let a client build
        (_aws("sns", "arn:aws-foo:sns:eu-west-1:111122223333:orders"), False),
        (_aws("sns", "arn:aws:sns:x:111122223333:orders"), False),
        (_aws("kinesis", "arn:aws:kinesis:eu-west-1:111122223333:stream/orders\n"), False),
        (_aws("sqs", "https://sqs.eu-west-1.amazonaws.com/١١١١٢٢٢٢٣٣٣٣/orders"), False),  # Arabic-Indic digits
        (_aws("sqs", "https://sqs.eu-west-1.amazonaws.com/11112222333/orders"), False),
        ({"type": "sqs", "queue_url": QUEUE, "role_arn": f"arn:aws:iam::111122223333:role/{ROLE_NAME_PREFIX}orders-and-more"}, True),
        ({"type": "sqs", "queue_url": QUEUE, "role_arn": f"arn:aws:iam::111122223333:role/{ROLE_NAME_PREFIX}{'x' * 47}"}, False),
        ({"type": "sqs", "queue_url": QUEUE, "role_arn": f"arn:aws:iam::111122223333:role/path/{ROLE_NAME_PREFIX}x"}, False),
        ({"type": "sqs", "queue_url": QUEUE, "role_arn": "arn:aws:iam::111122223333:role/admin"}, False),
        ({"type": "sqs", "queue_url": QUEUE}, False),
        (_aws("sns", f"arn:aws:sns:eu-west-1:111122223333:{'t' * 257}"), False),
        (_aws("eventbridge", "arn:aws:events:eu-west-1:111122223333:event-bus/orders", source="aws.fake"), False),
        (_aws("s3", "a..b"), False),
        (_aws("s3", "192.168.1.1"), False),
        (_aws("s3", "Not_A_Bucket"), False),
        (_aws("s3", "ab"), False),
        (_aws("s3", "ok-bucket", prefix="../up"), False),
        (_aws("kinesis", "arn:aws:kinesis:eu-west-1:111122223333:stream/s", prefix="x"), False),
        ({"type": "ftp", "url": "ftp://x"}, False),
        ({"type": "poll"}, True),
        ({"type": "poll", "url": "https://example.com/x"}, False),
        ({"type": "poll", "role_arn": ROLE}, False),
        ({**_aws("s3", "my-webhook-archive"), "prefix": None}, False),  # schemathesis's find: null is no string
        ({**_aws("eventbridge", "arn:aws:events:eu-west-1:111122223333:event-bus/orders"), "source": None}, False),
    ],
)
def test_the_document_the_models_and_the_server_take_the_same_destinations(value: dict[str, Any], taken: bool) -> None:
    assert (_by_server(value), _by_model(value), _by_document(value)) == (taken, taken, taken)
