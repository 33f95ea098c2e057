"""Items read by key with DynamoDB's low-level client: the authorizer's reads, without boto3.

Importing boto3 imports its resource layer (`boto3.session` imports `boto3.resources`), and a boto3 Table loads the
resource model's JSON too: CPU the authorizer would pay on its first request for three GetItems. `ItemLookup`
answers `get_item` as a Table does (`{"Item": {...}}`, or `{}` when there is none, the same `ConsistentRead`),
from a botocore client (hookline.adapters.aws.dynamodb_client), so the repositories that read through it
(hookline.adapters.dynamo.apikeys, sessions, customers) are the ones the API's Table is given. It reads, and
writes nothing.

Attribute values are converted as boto3's TypeSerializer and TypeDeserializer do for the kinds these items hold:
strings, numbers (Decimal), booleans, null, maps, lists and string or number sets. A binary value is refused
(TypeError) rather than read differently from boto3, which wraps it in its own Binary.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

_READERS: dict[str, Callable[[Any], Any]] = {
    "S": str,
    "N": Decimal,
    "BOOL": bool,
    "NULL": lambda _: None,
    "SS": set,
    "NS": lambda numbers: {Decimal(n) for n in numbers},
}


def to_attribute(value: str | int | Decimal) -> dict[str, str]:
    """A key's value (every key of the data table is a string) as DynamoDB's attribute value."""
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, int | Decimal) and not isinstance(value, bool):
        return {"N": str(value)}
    raise TypeError(f"a key's value is a string or a number, not {type(value).__name__}")


def from_attribute(value: Mapping[str, Any]) -> Any:
    """A DynamoDB attribute value as boto3's resource layer gives it (numbers as Decimal)."""
    ((kind, inner),) = value.items()
    if kind == "M":
        return {name: from_attribute(item) for name, item in inner.items()}
    if kind == "L":
        return [from_attribute(item) for item in inner]
    if kind not in _READERS:
        raise TypeError(f"attribute kind {kind!r} is not read by ItemLookup")
    return _READERS[kind](inner)


class ItemLookup:
    """One table's items by key, through a low-level DynamoDB client: a Table's `get_item`, nothing else."""

    def __init__(self, client: Any, table_name: str):
        self._client = client
        self._table_name = table_name

    def get_item(self, *, Key: Mapping[str, Any], ConsistentRead: bool = False) -> dict[str, Any]:  # noqa: N803 (a Table's names)
        answer = self._client.get_item(
            TableName=self._table_name, Key={name: to_attribute(value) for name, value in Key.items()}, ConsistentRead=ConsistentRead
        )
        item = answer.get("Item")
        return {"Item": {name: from_attribute(attribute) for name, attribute in item.items()}} if item else {}
