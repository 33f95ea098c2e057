"""ItemLookup reads an item as boto3's Table reads it: the same key sent, the same values given back."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

from hookline.adapters.dynamo.lookup import ItemLookup, from_attribute, to_attribute


@pytest.mark.parametrize(
    "attribute",
    [
        {"S": "acme"},
        {"N": "3"},
        {"N": "1767225600"},
        {"N": "-0.125"},
        {"BOOL": True},
        {"NULL": True},
        {"M": {"max_rate_per_second": {"N": "10.5"}, "max_concurrency": {"N": "4"}}},
        {"L": [{"S": "a"}, {"N": "1"}, {"M": {}}]},
        {"SS": ["a", "b"]},
        {"NS": ["1", "2.5"]},
    ],
)
def test_an_attribute_reads_as_boto3_reads_it(attribute: dict[str, Any]) -> None:
    assert from_attribute(attribute) == TypeDeserializer().deserialize(attribute)


def test_a_binary_attribute_is_refused_rather_than_read_otherwise_than_boto3() -> None:
    with pytest.raises(TypeError, match="'B'"):
        from_attribute({"B": b"x"})


@pytest.mark.parametrize("value", ["KEY#abc", 7, Decimal("1.5")])
def test_a_key_value_is_sent_as_boto3_sends_it(value: Any) -> None:
    assert to_attribute(value) == TypeSerializer().serialize(value)


@pytest.mark.parametrize("value", [True, 1.5, b"x"])
def test_a_key_value_of_another_kind_is_refused(value: Any) -> None:
    with pytest.raises(TypeError):
        to_attribute(value)


class RecordingClient:
    def __init__(self, answer: dict[str, Any]):
        self.answer = answer
        self.calls: list[dict[str, Any]] = []

    def get_item(self, **params: Any) -> dict[str, Any]:
        self.calls.append(params)
        return self.answer


@pytest.mark.parametrize(
    ("answer", "consistent", "item"),
    [
        ({"Item": {"tenant": {"S": "acme"}, "revoked": {"BOOL": False}}}, False, {"Item": {"tenant": "acme", "revoked": False}}),
        ({"Item": {"epoch": {"N": "2"}}}, True, {"Item": {"epoch": Decimal(2)}}),
        ({}, False, {}),
    ],
)
def test_get_item_asks_the_table_by_key_with_the_read_asked_for(answer: dict[str, Any], consistent: bool, item: dict[str, Any]) -> None:
    client = RecordingClient(answer)
    assert ItemLookup(client, "hookline").get_item(Key={"pk": "KEY#1", "sk": "KEY"}, ConsistentRead=consistent) == item
    assert client.calls == [{"TableName": "hookline", "Key": {"pk": {"S": "KEY#1"}, "sk": {"S": "KEY"}}, "ConsistentRead": consistent}]
