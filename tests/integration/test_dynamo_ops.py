"""The DynamoDB operations every repository shares (hookline.adapters.dynamo.ops), against moto: a failed
condition is a result, queries are read page by page behind opaque cursors, and batch reads take any number
of keys and ask again for what DynamoDB left unprocessed."""

from __future__ import annotations

import base64
from collections.abc import Callable
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import boto3
import pytest
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

from hookline.adapters.dynamo import keys, ops
from hookline.core.errors import DependencyFailed, InvalidCursor
from hookline.wiring import topology
from local.resources import create_table


@pytest.fixture
def table(aws: None) -> Any:
    return boto3.resource("dynamodb").Table(create_table(boto3.client("dynamodb"), topology.TABLE, "ops"))


def _put(table: Any, items: list[dict[str, Any]]) -> None:
    with table.batch_writer() as batch:
        for item in items:
            batch.put_item(Item=item)


def _item(pk: str, sk: str, **attributes: Any) -> dict[str, Any]:
    return {keys.PK: pk, keys.SK: sk, **attributes}


class _CountingTable:
    """The table, with every query it is asked kept in order."""

    def __init__(self, table: Any):
        self._table = table
        self.queries: list[dict[str, Any]] = []

    def query(self, **query: Any) -> dict[str, Any]:
        self.queries.append(query)
        return dict(self._table.query(**query))


# -- conditional writes -------------------------------------------------------


def test_a_failed_condition_is_refused_with_the_item_as_it_was_and_writes_nothing(table: Any) -> None:
    # Given an item
    table.put_item(Item=_item("P", "S", version=1))
    # When a put that expects no such item asks for the old item on failure
    result = ops.try_write(
        table.put_item,
        Item=_item("P", "S", version=2),
        ConditionExpression=Attr(keys.PK).not_exists(),
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )
    # Then it is refused, carrying the item deserialized as the resource layer would have
    assert result == ops.Refused(_item("P", "S", version=Decimal(1)))
    # And the item is unchanged
    assert table.get_item(Key=_item("P", "S"))["Item"] == _item("P", "S", version=Decimal(1))


def test_a_failed_condition_on_a_missing_item_is_refused_without_an_item_and_creates_nothing(table: Any) -> None:
    update = {"Key": _item("P", "S"), "UpdateExpression": "SET version = :v", "ExpressionAttributeValues": {":v": 1}}
    condition = {"ConditionExpression": Attr(keys.PK).exists(), "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
    assert ops.try_write(table.update_item, **update, **condition) == ops.Refused(None)
    assert ops.write_if(table.update_item, **update, **condition) is None
    # An update whose condition held would have created the item.
    assert "Item" not in table.get_item(Key=_item("P", "S"))


def test_a_write_whose_condition_holds_writes_and_returns_its_response(table: Any) -> None:
    table.put_item(Item=_item("P", "S", version=1))
    update = {
        "Key": _item("P", "S"),
        "UpdateExpression": "SET version = :new",
        "ConditionExpression": "version = :old",
        "ExpressionAttributeValues": {":old": 1, ":new": 2},
        "ReturnValues": "UPDATED_NEW",
    }
    assert ops.try_write(table.update_item, **update)["Attributes"] == {"version": Decimal(2)}
    assert table.get_item(Key=_item("P", "S"))["Item"]["version"] == 2
    update["ExpressionAttributeValues"] = {":old": 2, ":new": 3}
    written = ops.write_if(table.update_item, **update)
    assert written is not None
    assert written["Attributes"] == {"version": Decimal(3)}
    assert table.get_item(Key=_item("P", "S"))["Item"]["version"] == 3


@pytest.mark.parametrize("write", [ops.try_write, ops.write_if], ids=["try_write", "write_if"])
def test_an_error_other_than_a_failed_condition_propagates(write: Callable[..., Any], table: Any) -> None:
    missing = boto3.resource("dynamodb").Table("hookline-no-such-table")
    with pytest.raises(ClientError) as caught:
        write(missing.put_item, Item=_item("P", "S"), ConditionExpression=Attr(keys.PK).not_exists())
    assert caught.value.response["Error"]["Code"] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as caught:
        write(table.put_item, Item={keys.PK: "P"}, ConditionExpression=Attr(keys.PK).not_exists())  # no sort key
    assert caught.value.response["Error"]["Code"] == "ValidationException"


# -- paging -------------------------------------------------------------------


def test_query_all_follows_every_page_to_the_end(table: Any) -> None:
    # Given seven items in a partition, and one in another
    _put(table, [_item("P", f"S{i}") for i in range(7)] + [_item("Q", "S0")])
    counting = _CountingTable(table)
    # When they are read two to a page
    got = list(ops.query_all(counting, KeyConditionExpression=Key(keys.PK).eq("P"), Limit=2))
    # Then every one comes back once, in key order, over four queries
    assert [item[keys.SK] for item in got] == [f"S{i}" for i in range(7)]
    assert len(counting.queries) == 4
    assert all(q["Limit"] == 2 for q in counting.queries)


def test_query_page_resumes_exactly_where_the_page_ended(table: Any) -> None:
    _put(table, [_item("P", f"S{i}") for i in range(5)] + [_item("Q", "S9")])
    pages: list[list[str]] = []
    cursor: str | None = None
    for _ in range(3):
        items, cursor = ops.query_page(table, 2, cursor, "P", KeyConditionExpression=Key(keys.PK).eq("P"))
        pages.append([item[keys.SK] for item in items])
        if cursor is None:
            break
    assert pages == [["S0", "S1"], ["S2", "S3"], ["S4"]]
    assert cursor is None


def test_query_page_over_the_index_resumes_by_the_index_keys(table: Any) -> None:
    # Given deliveries in two events' partitions, both in one endpoint's index partition
    _put(table, [_item(f"E{i % 2}", f"DLV#{i}", **{keys.GSI_PK: "EPD#acme#ep_1", keys.GSI_SK: f"failed#{i}"}) for i in range(3)])
    query = {"IndexName": keys.INDEX, "KeyConditionExpression": Key(keys.GSI_PK).eq("EPD#acme#ep_1")}
    first, cursor = ops.query_page(table, 2, None, "EPD#acme#ep_1", **query)
    rest, end = ops.query_page(table, 2, cursor, "EPD#acme#ep_1", **query)
    assert [item[keys.GSI_SK] for item in first + rest] == ["failed#0", "failed#1", "failed#2"]
    assert end is None
    # A cursor into the table is not one into the index.
    with pytest.raises(InvalidCursor):
        ops.query_page(table, 2, ops.encode_cursor(_item("EPD#acme#ep_1", "DLV#1")), "EPD#acme#ep_1", **query)


def _raw_cursor(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


TAMPERED = {
    "not base64 JSON": "not a cursor!",
    "JSON but not a key": _raw_cursor("[1, 2]"),
    "another partition": ops.encode_cursor(_item("Q", "S0")),
    "an extra attribute": ops.encode_cursor(_item("P", "S0", extra="x")),
    "no sort key": ops.encode_cursor({keys.PK: "P"}),
    "a value that is not a string": _raw_cursor('{"pk": "P", "sk": 1}'),
    "an empty sort key": ops.encode_cursor({keys.PK: "P", keys.SK: ""}),
}


class _RefusingTable:
    """A table whose query DynamoDB refuses as moto does not: a start key outside the query's key range."""

    def query(self, **_: Any) -> Any:
        error = {"Code": "ValidationException", "Message": "The provided starting key is outside query boundaries based on provided conditions"}
        raise ClientError({"Error": error}, "Query")


def test_a_cursor_dynamodb_refuses_as_outside_the_query_is_an_invalid_cursor() -> None:
    condition = Key(keys.PK).eq("P") & Key(keys.SK).begins_with("CUS#")
    with pytest.raises(InvalidCursor):
        ops.query_page(_RefusingTable(), 2, ops.encode_cursor(_item("P", "A")), "P", KeyConditionExpression=condition)
    # Without a cursor, the same refusal is the stack's own fault and stays an error
    with pytest.raises(ClientError):
        ops.query_page(_RefusingTable(), 2, None, "P", KeyConditionExpression=condition)


@pytest.mark.parametrize("cursor", TAMPERED.values(), ids=TAMPERED.keys())
def test_query_page_refuses_a_cursor_that_is_not_one_into_its_partition_before_reading(cursor: str, table: Any) -> None:
    counting = _CountingTable(table)
    with pytest.raises(InvalidCursor):
        ops.query_page(counting, 2, cursor, "P", KeyConditionExpression=Key(keys.PK).eq("P"))
    assert counting.queries == []


# -- batch reads --------------------------------------------------------------


class _BatchGets:
    """The table's client's batch_get_item, leaving all but the first ten keys unprocessed on the first `throttled` calls."""

    def __init__(self, client: Any, throttled: int = 0):
        self._real = client.batch_get_item
        self._throttled = throttled
        self.requested: list[list[dict[str, Any]]] = []

    def __call__(self, **request: Any) -> dict[str, Any]:
        [(name, wanted)] = request["RequestItems"].items()
        self.requested.append(wanted["Keys"])
        if len(self.requested) > self._throttled:
            return dict(self._real(**request))
        served, left = wanted["Keys"][:10], wanted["Keys"][10:]
        return {**self._real(RequestItems={name: {"Keys": served}}), "UnprocessedKeys": {name: {"Keys": left}}}


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    monkeypatch.setattr(ops, "time", SimpleNamespace(sleep=slept.append))
    return slept


def test_batch_get_reads_more_than_a_hundred_keys_a_hundred_at_a_time(table: Any, sleeps: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    # Given 150 items, and five keys of items that do not exist
    _put(table, [_item(f"P{i:03d}", "S") for i in range(150)])
    wanted = [_item(f"P{i:03d}", "S") for i in range(155)]
    calls = _BatchGets(table.meta.client)
    monkeypatch.setattr(table.meta.client, "batch_get_item", calls)
    # When all 155 are asked for
    got = ops.batch_get(table, wanted)
    # Then the 150 that exist come back, the missing ones are simply left out
    assert sorted(item[keys.PK] for item in got) == [f"P{i:03d}" for i in range(150)]
    assert calls.requested == [wanted[:100], wanted[100:]]
    assert sleeps == []


def test_batch_get_asks_again_for_unprocessed_keys_with_a_growing_backoff(table: Any, sleeps: list[float], monkeypatch: pytest.MonkeyPatch) -> None:
    # Given 30 items, and DynamoDB processing only ten keys of a request twice in a row
    _put(table, [_item(f"P{i:02d}", "S") for i in range(30)])
    wanted = [_item(f"P{i:02d}", "S") for i in range(30)]
    calls = _BatchGets(table.meta.client, throttled=2)
    monkeypatch.setattr(table.meta.client, "batch_get_item", calls)
    got = ops.batch_get(table, wanted)
    # Then each retry asks for exactly the keys left unprocessed, after a longer wait each time, and all come back
    assert calls.requested == [wanted, wanted[10:], wanted[20:]]
    assert sleeps == [0.05, 0.1]
    assert sorted(item[keys.PK] for item in got) == [f"P{i:02d}" for i in range(30)]


def test_batch_get_raises_when_keys_stay_unprocessed_so_a_throttled_read_never_passes_for_a_missing_item(
    table: Any, sleeps: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given 100 items, and DynamoDB processing only ten keys of a request on every try
    _put(table, [_item(f"P{i:02d}", "S") for i in range(100)])
    calls = _BatchGets(table.meta.client, throttled=ops.BATCH_GET_TRIES)
    monkeypatch.setattr(table.meta.client, "batch_get_item", calls)
    # When they are asked for, then the read fails as a dependency failure instead of answering without them
    with pytest.raises(DependencyFailed) as failed:
        ops.batch_get(table, [_item(f"P{i:02d}", "S") for i in range(100)])
    assert failed.value.cause == "UnprocessedKeys"
    # And it waited between tries only, never after the last one
    assert len(calls.requested) == ops.BATCH_GET_TRIES
    assert len(sleeps) == ops.BATCH_GET_TRIES - 1
