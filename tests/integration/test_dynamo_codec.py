"""hookline.adapters.dynamo.codec converts what boto3's resource layer converts, to the same values, and changes
nothing the caller passed; hookline.adapters.dynamo.transport signs what botocore's SigV4 signer signs, the same bytes."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from decimal import Decimal, Inexact
from typing import Any

import botocore.session
import pytest
from boto3.dynamodb.conditions import Attr, ConditionExpressionBuilder, Key
from boto3.dynamodb.transform import TransformationInjector, copy_dynamodb_params
from boto3.dynamodb.types import Binary
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials as BotoCredentials

from hookline.adapters.dynamo import codec, transport

MODEL = botocore.session.get_session().get_service_model("dynamodb")
ITEM = {
    "pk": "T#a#EP#b",
    "sk": "LIMITER",
    "n": 7,
    "d": Decimal("1765000000.123456"),
    "flag": True,
    "nothing": None,
    "leases": [Decimal("1.5"), 2, "x", [1, {"deep": Binary(b"\x00\x01")}]],
    "stats": {"attempts": 2, "l00": 2, "nested": {"B": "a map's attribute named B", "list": []}},
    "tags": {"a", "b"},
    "numbers": {1, Decimal("2.5")},
    "raw": b"\xff\x00",
    "as_tuple": (1, "two"),
    "empty": "",
}

REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("PutItem", {"TableName": "t", "Item": ITEM, "ConditionExpression": "attribute_not_exists(pk) OR version = :v", "ExpressionAttributeValues": {":v": 3}}),
    ("PutItem", {"TableName": "t", "Item": ITEM, "ConditionExpression": Attr("version").eq(3) | Attr("pk").not_exists()}),
    (
        "UpdateItem",
        {
            "TableName": "t",
            "Key": {"pk": "a", "sk": "b"},
            "UpdateExpression": "SET #s = :s, attempt = :a",
            "ConditionExpression": Attr("attempts_made").lt(4),
            "ExpressionAttributeNames": {"#s": "status"},
            "ExpressionAttributeValues": {":s": "succeeded", ":a": {"number": 3, "body": "ok", "at": None}},
            "ReturnValues": "ALL_NEW",
        },
    ),
    ("GetItem", {"TableName": "t", "Key": {"pk": "a", "sk": "b"}, "ConsistentRead": True, "ProjectionExpression": "pk"}),
    ("DeleteItem", {"TableName": "t", "Key": {"pk": "a", "sk": "b"}, "ConditionExpression": Attr("state").is_in(["open", "half"])}),
    (
        "Query",
        {
            "TableName": "t",
            "IndexName": "gsi1",
            "KeyConditionExpression": Key("gpk").eq("p") & Key("gsk").begins_with("s#"),
            "FilterExpression": Attr("size").gt(Decimal("3")) & Attr("tags").contains("a"),
            "ExclusiveStartKey": {"gpk": "p", "gsk": "s#1", "pk": "a", "sk": "b"},
            "Limit": 5,
        },
    ),
    ("Query", {"TableName": "t", "KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": "a"}, "Select": "COUNT"}),
    ("Scan", {"TableName": "t", "FilterExpression": Attr("x").exists(), "ExclusiveStartKey": {"pk": "a", "sk": "b"}}),
    ("BatchGetItem", {"RequestItems": {"t": {"Keys": [{"pk": "a", "sk": "b"}, {"pk": "c", "sk": "d"}], "ConsistentRead": True}}}),
    ("BatchGetItem", {"RequestItems": {"t": {"Keys": ({"pk": "a", "sk": "b"},)}}}),  # a tuple: boto3 leaves it as it is
    ("BatchWriteItem", {"RequestItems": {"t": [{"PutRequest": {"Item": ITEM}}, {"DeleteRequest": {"Key": {"pk": "a", "sk": "b"}}}]}}),
    (
        "TransactWriteItems",
        {
            "TransactItems": [
                {"Put": {"TableName": "t", "Item": ITEM, "ConditionExpression": Attr("pk").not_exists()}},
                {"Update": {"TableName": "t", "Key": {"pk": "a", "sk": "b"}, "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": 1}}},
                {"ConditionCheck": {"TableName": "t", "Key": {"pk": "c", "sk": "d"}, "ConditionExpression": Attr("v").eq(2)}},
                {"Delete": {"TableName": "t", "Key": {"pk": "e", "sk": "f"}}},
            ]
        },
    ),
    ("TransactGetItems", {"TransactItems": [{"Get": {"TableName": "t", "Key": {"pk": "a", "sk": "b"}}}]}),
]

RESPONSES: list[tuple[str, dict[str, Any]]] = [
    (
        "GetItem",
        {"Item": {"pk": {"S": "a"}, "n": {"N": "1.50"}, "b": {"B": b"\x00"}, "m": {"M": {"B": {"S": "x"}, "l": {"L": [{"NULL": True}, {"BOOL": False}]}}}}},
    ),
    (
        "GetItem",
        {"Item": {"ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1", "2"]}, "bs": {"BS": [b"a"]}}, "ConsumedCapacity": {"TableName": "t", "CapacityUnits": 0.5}},
    ),
    ("Query", {"Items": [{"pk": {"S": "a"}}, {"pk": {"S": "b"}}], "Count": 2, "ScannedCount": 2, "LastEvaluatedKey": {"pk": {"S": "b"}}}),
    ("BatchGetItem", {"Responses": {"t": [{"pk": {"S": "a"}, "v": {"N": "3"}}]}, "UnprocessedKeys": {"t": {"Keys": [{"pk": {"S": "c"}}]}}}),
    ("UpdateItem", {"Attributes": {"v": {"N": "4"}}}),
    ("PutItem", {}),
    ("TransactWriteItems", {}),
]


def _sets_sorted(value: Any) -> Any:
    """DynamoDB JSON with each set's members sorted: a set has no order, and a Python set's copy (boto3 converts a
    deep copy of the call's values) may iterate in another order than the set itself (two members whose hashes
    collide; under PYTHONHASHSEED=24, {"a", "b"})."""
    if isinstance(value, dict):
        return {k: sorted(v) if k in ("SS", "NS", "BS") and isinstance(v, list) else _sets_sorted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_sets_sorted(v) for v in value]
    return value


def _boto3_input(operation: str, params: dict[str, Any]) -> dict[str, Any]:
    model = MODEL.operation_model(operation)
    injector = TransformationInjector()
    converted = copy_dynamodb_params(params)
    injector.inject_condition_expressions(converted, model)
    injector.inject_attribute_value_input(converted, model)
    return converted


@pytest.mark.parametrize(("operation", "params"), REQUESTS, ids=[f"{i}-{op}" for i, (op, _) in enumerate(REQUESTS)])
def test_a_request_is_converted_as_boto3_converts_it_and_the_callers_values_are_left_alone(operation: str, params: dict[str, Any]) -> None:
    before = copy.deepcopy(params)
    converted = dict(params)  # botocore's own dict, made from the call's keyword arguments
    codec.AttributeCodec(ConditionExpressionBuilder()).before_parameter_build(converted, MODEL.operation_model(operation))
    assert _sets_sorted(converted) == _sets_sorted(_boto3_input(operation, params))
    assert params == before


@pytest.mark.parametrize(("operation", "parsed"), RESPONSES, ids=[f"{i}-{op}" for i, (op, _) in enumerate(RESPONSES)])
def test_an_answer_is_converted_as_boto3_converts_it(operation: str, parsed: dict[str, Any]) -> None:
    model = MODEL.operation_model(operation)
    expected = copy.deepcopy(parsed)
    TransformationInjector().inject_attribute_value_output(expected, model)
    ours = copy.deepcopy(parsed)
    codec.AttributeCodec(ConditionExpressionBuilder()).after_call(ours, model)
    assert ours == expected


@pytest.mark.parametrize("value", [1.5, Decimal("1.000000000000000000000000000000000000001"), Decimal("NaN"), Decimal("Infinity")])
def test_a_value_boto3_refuses_is_refused(value: Any) -> None:
    model = MODEL.operation_model("PutItem")
    with pytest.raises((TypeError, Inexact)) as boto3s:
        _boto3_input("PutItem", {"TableName": "t", "Item": {"pk": "a", "v": value}})
    with pytest.raises(boto3s.type):
        codec.AttributeCodec(ConditionExpressionBuilder()).before_parameter_build({"TableName": "t", "Item": {"pk": "a", "v": value}}, model)


def test_the_walk_visits_only_what_can_hold_an_attribute_value() -> None:
    walker = codec.AttributeCodec(ConditionExpressionBuilder()).walker
    assert walker(MODEL.operation_model("DescribeTable").input_shape, codec.ATTRIBUTE_VALUE) is None
    assert walker(MODEL.operation_model("PutItem").output_shape, codec.CONDITION) is None
    seen: list[Any] = []
    put = walker(MODEL.operation_model("PutItem").input_shape, codec.ATTRIBUTE_VALUE)
    assert put is not None
    put({"TableName": "t", "Item": {"a": 1}, "ReturnValues": "NONE", "ConditionExpression": "x"}, lambda v: seen.append(v) or v)
    assert seen == [1]


# -- the signature ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "token", "extra"),
    [
        ("https://dynamodb.us-east-1.amazonaws.com/", None, {}),
        ("https://dynamodb.eu-west-1.amazonaws.com", "session-token/with+chars=", {"X-Amzn-Trace-Id": "Root=1-abc", "User-Agent": "Boto3/1 x"}),
        ("http://127.0.0.1:5000/", "t", {"x-amz-extra": "  two   spaces  "}),
        ("https://123456789012.ddb.us-east-1.amazonaws.com:443/", None, {}),
    ],
)
def test_the_signature_is_botocores(url: str, token: str | None, extra: dict[str, str]) -> None:
    region = url.split(".")[1] if "amazonaws" in url else "us-east-1"
    region = "us-east-1" if region == "ddb" else region
    body = b'{"TableName": "t", "Key": {"pk": {"S": "a"}}}'
    headers = {"X-Amz-Target": "DynamoDB_20120810.GetItem", "Content-Type": "application/x-amz-json-1.0", **extra}
    theirs = AWSRequest(method="POST", url=url, data=body, headers=dict(headers))
    SigV4Auth(BotoCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token), "dynamodb", region).add_auth(theirs)
    amz_date = theirs.context["timestamp"]
    ours = transport.sign(
        headers,
        url,
        body,
        transport.Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", token),
        region,
        "dynamodb",
        amz_date,
        transport.SigningKeys(),
    )
    assert ours["Authorization"] == theirs.headers["Authorization"]
    assert ours["X-Amz-Date"] == theirs.headers["X-Amz-Date"] == amz_date
    assert ours.get("X-Amz-Security-Token") == theirs.headers.get("X-Amz-Security-Token")


def test_a_signing_key_is_derived_once_a_day() -> None:
    keys = transport.SigningKeys()
    credentials = transport.Credentials("AKID", "secret")
    amz_date = datetime(2026, 12, 6, 17, 0, tzinfo=UTC).strftime("%Y%m%dT%H%M%SZ")
    first = transport.sign({}, "https://dynamodb.us-east-1.amazonaws.com/", b"{}", credentials, "us-east-1", "dynamodb", amz_date, keys)
    key = keys.key("20261206", "secret", "us-east-1", "dynamodb")
    assert keys.key("20261206", "secret", "us-east-1", "dynamodb") is key
    assert keys.key("20261207", "secret", "us-east-1", "dynamodb") != key
    assert first["Authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKID/20261206/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, ")


def test_binary_values_in_an_answer_come_back_as_bytes_and_nothing_else_does() -> None:
    body = b'{"Item": {"b": {"B": "AAE="}, "bs": {"BS": ["YQ=="]}, "m": {"M": {"B": {"S": "x"}}}, "s": {"S": "B"}}}'
    answer = transport.parsed(200, {}, body)
    assert answer["Item"] == {"b": {"B": b"\x00\x01"}, "bs": {"BS": [b"a"]}, "m": {"M": {"B": {"S": "x"}}}, "s": {"S": "B"}}


def test_an_error_answer_reads_as_botocores() -> None:
    body = b'{"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "message": "The conditional request failed", "Item": {"v": {"N": "2"}}}'
    answer = transport.parsed(400, {"x-amzn-requestid": "r1"}, body)
    assert answer["Error"] == {"Code": "ConditionalCheckFailedException", "Message": "The conditional request failed"}
    assert answer["Item"] == {"v": {"N": "2"}}
    assert answer["ResponseMetadata"]["RequestId"] == "r1"
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 400
