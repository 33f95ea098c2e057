"""The DynamoDB operations every repository shares: conditional writes, paging, batch reads, cursors.

* A conditional write whose condition fails is a result (`Refused`, None or
  False), never an exception: the repositories turn it into what it means.
* A query is read to its end with `query_all`, or one page at a time with
  `query_page`, whose cursor is opaque to the caller and refused
  (core.errors.InvalidCursor) unless it points into the caller's own partition.
* Every other error is botocore's; the repositories' `translate_failures`
  turns it into core.errors.DependencyFailed.
"""

from __future__ import annotations

import base64
import json
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.conditions import Key
from hookline.core.errors import DependencyFailed, InvalidCursor

Item = dict[str, Any]
BATCH_GET_LIMIT = 100  # DynamoDB's limit on keys per BatchGetItem
BATCH_GET_TRIES = 5
TRANSACT_TRIES = 4  # a transaction cancelled by another writing the same items is tried this many times
TRANSACT_PAUSE_SECONDS = 0.02  # before the next try: this times the try's number, jittered


@dataclass(frozen=True)
class Refused:
    """A conditional write whose condition failed. `item` is the item as it was when the request
    asked for it (ReturnValuesOnConditionCheckFailure=ALL_OLD) and it existed, else None."""

    item: Item | None = None


def _is_conditional_failure(exc: ClientError) -> bool:
    return exc.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def try_write(operation: Callable[..., Item], **request: Any) -> Item | Refused:
    """Run a conditional write (a table's put_item, update_item or delete_item): its response, or Refused."""
    try:
        return operation(**request)
    except ClientError as exc:
        if not _is_conditional_failure(exc):
            raise
        raw = exc.response.get("Item")
        # Error responses are not deserialized by the resource layer.
        from boto3.dynamodb.types import TypeDeserializer  # made with the table, before any write could be refused

        deserialize = TypeDeserializer().deserialize
        return Refused({k: deserialize(v) for k, v in raw.items()} if raw else None)


def transact_write(table: Any, *actions: dict[str, Any], tries: int = TRANSACT_TRIES) -> list[bool]:
    """One TransactWriteItems of `actions` ({"Put" | "Update" | "Delete": its request, without the table's name}) on
    `table`: [] when it landed, else which actions' conditions failed, in order. A transaction cancelled because
    another one was writing the same items (TransactionConflict, which botocore does not retry) is tried again, up to
    `tries` times, after a jittered pause; a cancellation for any other reason raises."""
    items = [{kind: {**spec, "TableName": table.name} for kind, spec in a.items()} for a in actions]
    for attempt in range(1, tries + 1):
        try:
            table.meta.client.transact_write_items(TransactItems=items)
        except ClientError as exc:
            reasons = [r.get("Code") for r in exc.response.get("CancellationReasons") or ()]
            if exc.response.get("Error", {}).get("Code") != "TransactionCanceledException":
                raise
            if "ConditionalCheckFailed" in reasons:
                return [code == "ConditionalCheckFailed" for code in reasons]
            if "TransactionConflict" not in reasons or attempt == tries:
                raise
            time.sleep(random.uniform(0.5, 1.5) * TRANSACT_PAUSE_SECONDS * attempt)
            continue
        return []
    raise AssertionError("unreachable")


def write_if(operation: Callable[..., Item], **request: Any) -> Item | None:
    """Run a conditional write: its response, or None if the condition failed."""
    result = try_write(operation, **request)
    return None if isinstance(result, Refused) else result


def query_all(table: Any, **query: Any) -> Iterator[Item]:
    """Every item a query matches, following LastEvaluatedKey from page to page."""
    while True:
        result = table.query(**query)
        yield from result.get("Items", [])
        if "LastEvaluatedKey" not in result:
            return
        query = {**query, "ExclusiveStartKey": result["LastEvaluatedKey"]}


def query_page(table: Any, limit: int, cursor: str | None, partition: str, **query: Any) -> tuple[list[Item], str | None]:
    """One page of a query over `partition` (of the table, or of the index the query names), and the cursor to the next page (None at the end)."""
    start = decode_cursor(cursor, partition, query.get("IndexName", ""))
    if start:
        query["ExclusiveStartKey"] = start
    try:
        result = table.query(Limit=limit, **query)
    except ClientError as exc:
        # A cursor made by hand inside the caller's partition may still lie outside the query's key range, which
        # DynamoDB refuses as a ValidationException: that is the cursor's fault, not the stack's.
        if start and exc.response.get("Error", {}).get("Code") == "ValidationException":
            raise InvalidCursor("cursor is not valid") from None
        raise
    return list(result.get("Items", [])), encode_cursor(result.get("LastEvaluatedKey"))


def count_indexed(table: Any, tenant: str, endpoint_id: str, status: str, bound: int) -> tuple[int, bool]:
    """The endpoint's deliveries in `status` on the endpoint-deliveries index: one COUNT query evaluating at most
    `bound` items (a single page), and whether there are more."""
    partition = keys.index_partition(tenant, endpoint_id)
    result = table.query(
        IndexName=keys.INDEX,
        KeyConditionExpression=Key(keys.GSI_PK).eq(partition) & Key(keys.GSI_SK).begins_with(keys.index_sort(status, "")),
        Select="COUNT",
        Limit=bound,
    )
    return int(result.get("Count", 0)), "LastEvaluatedKey" in result


def batch_get(table: Any, wanted: list[keys.Key], consistent: bool = False) -> list[Item]:
    """Items by key, a BatchGetItem per 100 keys; items that do not exist are simply missing from the result.

    Keys DynamoDB leaves unprocessed (throttling) are asked for again with a
    short backoff. Keys still unprocessed after the last try raise
    DependencyFailed: a throttled read must never pass for a missing item (an
    endpoint read as deleted, a breaker read as closed).
    """
    client = table.meta.client  # the resource's client (de)serializes attribute values itself
    items: list[Item] = []
    for start in range(0, len(wanted), BATCH_GET_LIMIT):
        request: dict[str, Any] = {table.name: {"Keys": wanted[start : start + BATCH_GET_LIMIT], **({"ConsistentRead": True} if consistent else {})}}
        for attempt in range(BATCH_GET_TRIES):
            if attempt:
                time.sleep(0.05 * 2 ** (attempt - 1))
            result = client.batch_get_item(RequestItems=request)
            items.extend(result.get("Responses", {}).get(table.name, []))
            request = result.get("UnprocessedKeys") or {}
            if not request:
                break
        else:
            left = len(request.get(table.name, {}).get("Keys", []))
            raise DependencyFailed(f"{left} keys still unprocessed after {BATCH_GET_TRIES} BatchGetItem tries", cause="UnprocessedKeys")
    return items


def encode_cursor(key: dict[str, Any] | None) -> str | None:
    if not key:
        return None
    return base64.urlsafe_b64encode(json.dumps(key, sort_keys=True).encode()).decode().rstrip("=")


def _decoded(cursor: str) -> Any:
    try:
        return json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, UnicodeDecodeError):
        raise InvalidCursor("cursor is not valid") from None


def encode_position(owner: str, position: str) -> str:
    """A cursor that is a position in a merged read (e.g. an endpoint's log across its shards), tied to its owner."""
    return base64.urlsafe_b64encode(json.dumps({"owner": owner, "at": position}, sort_keys=True).encode()).decode().rstrip("=")


def decode_position(cursor: str | None, owner: str) -> str | None:
    """The position an encode_position cursor holds, refused unless it was made for `owner`."""
    if not cursor:
        return None
    held = _decoded(cursor)
    if not isinstance(held, dict) or set(held) != {"owner", "at"} or held["owner"] != owner or not isinstance(held["at"], str) or not held["at"]:
        raise InvalidCursor("cursor is not valid")
    return held["at"]


def decode_cursor(cursor: str | None, partition: str, index: str = "") -> dict[str, Any] | None:
    """A cursor back into a key, refused unless it points into the caller's own partition (of the table, or of the named index)."""
    if not cursor:
        return None
    key = _decoded(cursor)
    index_keys = keys.INDEX_KEYS[index] if index else ()
    expected = {keys.PK, keys.SK, *index_keys}
    owner = index_keys[0] if index_keys else keys.PK
    if not isinstance(key, dict) or set(key) != expected or key.get(owner) != partition or not all(isinstance(v, str) and v for v in key.values()):
        raise InvalidCursor("cursor is not valid")
    return key
