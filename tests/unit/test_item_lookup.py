"""ItemLookup reads an item as boto3's Table reads it: the same key sent, the same values given back."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from hookline.adapters.dynamo.lookup import ItemLookup, from_attribute, to_attribute


@pytest.mark.parametrize(
    ("attribute", "value"),
    [  # what boto3's TypeDeserializer gives for each (tests/integration/test_authorizer*.py write with a boto3 Table, read back here)
        ({"S": "acme"}, "acme"),
        ({"N": "3"}, Decimal(3)),
        ({"N": "1767225600"}, Decimal(1767225600)),
        ({"N": "-0.125"}, Decimal("-0.125")),
        ({"BOOL": True}, True),
        ({"NULL": True}, None),
        ({"M": {"max_rate_per_second": {"N": "10.5"}, "max_concurrency": {"N": "4"}}}, {"max_rate_per_second": Decimal("10.5"), "max_concurrency": Decimal(4)}),
        ({"L": [{"S": "a"}, {"N": "1"}, {"M": {}}]}, ["a", Decimal(1), {}]),
        ({"SS": ["a", "b"]}, {"a", "b"}),
        ({"NS": ["1", "2.5"]}, {Decimal(1), Decimal("2.5")}),
    ],
)
def test_an_attribute_reads_as_boto3_reads_it(attribute: dict[str, Any], value: Any) -> None:
    read = from_attribute(attribute)
    assert read == value and type(read) is type(value)


def test_a_binary_attribute_is_refused_rather_than_read_otherwise_than_boto3() -> None:
    with pytest.raises(TypeError, match="'B'"):
        from_attribute({"B": b"x"})


@pytest.mark.parametrize(("value", "attribute"), [("KEY#abc", {"S": "KEY#abc"}), (7, {"N": "7"}), (Decimal("1.5"), {"N": "1.5"})])
def test_a_key_value_is_sent_as_boto3_sends_it(value: Any, attribute: dict[str, str]) -> None:
    assert to_attribute(value) == attribute


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
