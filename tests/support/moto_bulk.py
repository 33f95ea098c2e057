"""moto's DynamoDB with 100,000 items in a table: put quickly, and queried by partition.

`put_copies` puts copies of an item the adapters wrote, each with its own keys and
ids, straight into moto's table: a PutItem through boto3 takes moto about a
millisecond, so 100,000 would take minutes; these take a second or two.

moto 5 answers every Query by sorting all the items of the table (comparing
DynamoDB values through Python properties), then keeping those of the
partition the query names: about four seconds a query at 100,000 items, even
for a partition of one item. Inside `partitioned_queries()`, the candidates
moto starts from are that partition's items alone: of the table's partition, or
of the index's (the items whose index key holds the value asked for). moto
then does what it always does with them (the key condition, the order, Limit,
the filter, ScannedCount), so every answer is the one it gives without this.
Only string keys are narrowed (hookline's keys are all strings); a query on any
other key, and every Scan, goes to moto as it is.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, cast

from moto.core import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import Table

_ASKED = threading.local()  # the query running on this thread: moto answers on the caller's thread
# Where moto's Table.query takes index_name after hash_key: (hash_key, range_comparison, range_objs, limit,
# exclusive_start_key, scan_index_forward, projection_expressions, index_name, ...)
_INDEX_NAME_ARG = 6


@contextmanager
def partitioned_queries() -> Iterator[None]:
    query, all_items = Table.query, Table.all_items

    def narrowed_query(self: Table, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = args[_INDEX_NAME_ARG] if len(args) > _INDEX_NAME_ARG else kwargs.get("index_name")
        _ASKED.query = (self, hash_key, index_name, kwargs.get("hash_key_conditions") or [])
        try:
            return query(self, hash_key, *args, **kwargs)
        finally:
            _ASKED.query = None

    def candidates(self: Table) -> list[Any]:
        asked = getattr(_ASKED, "query", None)
        if asked is None or asked[0] is not self or not self.range_key_attr:
            return all_items(self)
        _, hash_key, index_name, conditions = asked
        if not index_name:
            if hash_key is None or hash_key.type != "S":
                return all_items(self)
            partition = self.items.get(hash_key)  # .get: the table's defaultdict gains no empty partition
            # In key order already (plain string order is DynamoDB's for strings), so moto's own sort is one pass.
            return sorted(partition.values(), key=lambda item: item.range_key.value) if partition else []
        if not conditions or any(value.type != "S" for _, value in conditions):
            return all_items(self)
        wanted = [(name, value.value) for name, value in conditions]
        return [
            item
            for partition in self.items.values()
            for item in partition.values()
            if all((held := item.attrs.get(name)) is not None and held.type == "S" and held.value == value for name, value in wanted)
        ]

    Table.query, Table.all_items = narrowed_query, candidates  # type: ignore[method-assign]
    try:
        yield
    finally:
        Table.query, Table.all_items = query, all_items  # type: ignore[method-assign]


def moto_table(name: str, region: str = "us-east-1") -> Table:
    return dynamodb_backends[DEFAULT_ACCOUNT_ID][region].get_table(name)


def put_copies(table: Table, template: dict[str, str], copies: Iterable[dict[str, str]]) -> int:
    """Put a copy of the item at `template` (its key) for each dict of string attributes, which replace the
    template's (its new key among them); how many were put.

    The copies share the template's other attribute values, as moto holds them: fine for items a test reads and
    does not change in place (moto replaces a changed attribute's value, except inside a map or list).
    """
    hash_attr, range_attr = table.hash_key_attr, table.range_key_attr
    assert range_attr is not None, "a table with a sort key, as hookline's"
    source = table.get_item(DynamoType({"S": template[hash_attr]}), DynamoType({"S": template[range_attr]}))
    assert source is not None, f"no item at {template}"
    count = 0
    for changes in copies:
        # moto's Item and its size-checked dict, built without checking the size again attribute by attribute
        # (quadratic in the attributes; the template passed, and only short keys and ids change)
        attrs = LimitedSizeDict.__new__(LimitedSizeDict)
        dict.update(attrs, source.attrs)
        dict.update(attrs, {name: DynamoType({"S": value}) for name, value in changes.items()})
        item = cast(Item, Item.__new__(Item))
        item.hash_key, item.range_key, item.attrs = attrs[hash_attr], attrs[range_attr], attrs
        table.items[item.hash_key][item.range_key] = item
        count += 1
    return count
