"""Fixes for costs in moto (5.2.5) that grow with the backlog, installed by local mode.

SQS: moto's `SendMessage` asks the queue for all its attributes to read one (`ContentBasedDeduplication`, a FIFO
queue's), and three of those attributes count the queue's messages by scanning them with a clock call each.
With a few thousand messages queued, each send took tens of milliseconds, so a 100-event batch with fan-out 5
(50 `SendMessageBatch` calls) took seconds more for every thousand deliveries waiting. While moto sends a message,
the queue's attributes are the one it reads, computed as moto computes it; everywhere else they are moto's own.
`ReceiveMessage` does the same for every message it hands out (to check the retention period): while moto
receives, the attributes are that one. And `ReceiveMessage` lists every visible message of the queue (two clock
calls each) to hand out the first ten: while moto receives, the list is read lazily, message by message, as moto
goes through it (each message's visibility read as moto reaches it, as moto then reads it again), from a snapshot
of the queue's messages; its truth (`wait_for_messages`) is whether one is visible. `DeleteMessage` goes through
every message of the queue twice, building each one's list of receipt handles, to find the one message that was
given the handle: each message is remembered by the handles moto gives it, and found in the queue by identity;
the queue keeps the same messages in the same order (a handle it does not know is searched as moto searches).
With 10,000 messages queued, a receive of ten and their delete took 90 ms, and 5 ms so.

The server: moto finds each request's service by listing the folders of its own package on disk; the list is
read once.

DynamoDB: moto answers every `Query` by listing every item of the table, sorted by key (an O(n log n) sort with
Python comparisons of its typed values), then keeping the partition's items, and sorting those again. With 5,000
deliveries waiting (some 15,000 items) one query took tens of milliseconds, and `GET /v1/endpoints/{id}` makes
three. While moto queries a table, the items it lists are only the queried partition's (a table query), or every
item unsorted (an index query, which sorts what it keeps by the index's keys and the table's, a total order):
the same results in the same order; everywhere else `all_items` is moto's own. An index query then sorts the
partition (20,000 paused deliveries of one endpoint, say) by a tuple of moto's typed values, each comparison
two Python calls: while moto queries, items whose sort keys are all strings or all numbers are sorted by the
same values as plain `str` / `Decimal` (moto compares exactly those, `cast_value`), the same comparisons in the
same sort, so the same order; any other key is sorted as moto sorts it. And a page after the first skips the
items up to its start key one by one, building typed values for each: in a list sorted that way the items moto
skips are a prefix, so where it ends is found by moto's own comparison, in a binary search. Two strings'
typed values compare equal as their strings do, everywhere (moto compares their `cast_value`, the string): the
partition's items are compared with the query's key one by one. With 20,000 paused deliveries of one endpoint,
a page of them took 180 ms, and 75 ms so.
"""

from __future__ import annotations

import functools
import inspect
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from moto import backends
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.sqs.exceptions import ReceiptHandleIsInvalid
from moto.sqs.models import Message, Queue, SQSBackend

_sending = threading.local()
_querying = threading.local()
_installed = False


def install() -> None:
    global _installed
    if _installed:
        return
    every_attribute = Queue.attributes.fget  # type: ignore[attr-defined]
    every_module = backends.list_of_moto_modules
    send_message = SQSBackend.send_message

    receive_message = SQSBackend.receive_message

    def attributes(self: Queue) -> dict[str, Any]:
        doing = getattr(_sending, "active", "")
        if doing == "send":
            return {"ContentBasedDeduplication": str(getattr(self, "content_based_deduplication", False)).lower()} if self.fifo_queue else {}
        if doing == "receive":  # each message received is checked against the retention period, read as an attribute
            return {"MessageRetentionPeriod": getattr(self, "message_retention_period")}  # noqa: B009 - set by moto from the attributes
        result: dict[str, Any] = every_attribute(self)
        return result

    def marked(doing: str, call: Any) -> Any:
        """`call`, with the queue attributes it reads cut down to the one that call reads (see `attributes`)."""

        def run(self: SQSBackend, *args: Any, **kwargs: Any) -> Any:
            _sending.active = doing
            try:
                return call(self, *args, **kwargs)
            finally:
                _sending.active = ""

        return run

    every_message = Queue.messages.fget  # type: ignore[attr-defined]

    def messages(self: Queue) -> Any:
        if getattr(_sending, "active", "") == "receive":
            return _Visible(list(self._messages))
        return every_message(self)

    Queue.attributes = property(attributes)  # type: ignore[assignment, method-assign]
    Queue.messages = property(messages)  # type: ignore[assignment, method-assign]
    Queue.delete_message = _delete_message  # type: ignore[method-assign]
    mark_received = Message.mark_received

    def marking(self: Message, visibility_timeout: int | None = None) -> None:
        mark_received(self, visibility_timeout)
        _holders[self.receipt_handle] = self  # type: ignore[index]

    Message.mark_received = marking  # type: ignore[method-assign]
    SQSBackend.send_message = marked("send", send_message)  # type: ignore[method-assign]
    SQSBackend.receive_message = marked("receive", receive_message)  # type: ignore[method-assign]
    _install_query()
    # moto's server looks up each request's service by listing its own package's folders on disk, every time.
    backends.list_of_moto_modules = functools.cache(lambda: tuple(every_module()))
    _installed = True


class _Visible:
    """A queue's visible messages (`Queue.messages`), read as they are gone through."""

    def __init__(self, held: list[Message]) -> None:
        self._held = held

    def __iter__(self) -> Iterator[Message]:
        return (message for message in self._held if message.visible and not message.delayed)

    def __bool__(self) -> bool:
        return any(message.visible and not message.delayed for message in self._held)


# Each message a handle was given to (moto's `Message.mark_received`), for as long as the message lives.
_holders: weakref.WeakValueDictionary[str, Message] = weakref.WeakValueDictionary()


def _delete_message(self: Queue, receipt_handle: str) -> None:
    """moto's `Queue.delete_message`: the messages that ever had the handle leave the queue, their handles deleted.

    A handle is 185 random letters, given to one message only (the copies moto hands out are not queued): when the
    message it was given to is in the queue, that is the one; else (a handle from before `install`, or not this
    queue's) moto's own test, message by message."""
    if receipt_handle in self.deleted_messages:
        return  # already deleted: deleting it again is fine
    held = self._messages
    holder = _holders.get(receipt_handle)
    try:
        position = held.index(holder) if holder is not None else -1  # Message has no __eq__: found by identity
    except ValueError:
        position = -1
    gone = [held[position]] if position >= 0 else [message for message in held if message.had_receipt_handle(receipt_handle)]
    if not gone:
        raise ReceiptHandleIsInvalid()
    for message in gone:
        self.pending_messages.discard(message)
        self.deleted_messages.update(message.all_receipt_handles)  # type: ignore[arg-type]
    if position >= 0:
        self._messages = held[:position] + held[position + 1 :]
        return
    ids = {id(message) for message in gone}
    self._messages = [message for message in held if id(message) not in ids]


_PLAIN_KINDS = ("S", "N")  # a string's cast_value is its value, a number's its Decimal
_UNSET = object()


def _plain_keys(items: list[Any], attrs: list[str]) -> tuple[list[tuple[Any, ...]], tuple[str, ...]] | None:
    """Each item's sort key as plain values (what moto's typed values compare by), and their types; None unless
    there are items and every one has every key attribute, of one type per attribute, a string or a number."""
    if not items:
        return None
    kinds: list[str] = []
    columns: list[list[Any]] = []
    for name in attrs:
        values = [item.attrs.get(name) for item in items]
        kind = getattr(values[0], "type", None)
        if kind not in _PLAIN_KINDS or any(value is None or value.type != kind for value in values):
            return None
        kinds.append(kind)
        columns.append([value.value for value in values] if kind == "S" else [Decimal(value.value) for value in values])
    return list(zip(*columns, strict=True)), tuple(kinds)


def _install_query() -> None:
    every_item = Table.all_items
    query = Table.query

    def all_items(self: Table) -> list[Any]:
        if getattr(_querying, "table", None) is not self:
            return every_item(self)
        if _querying.index_name:
            # Only the items whose index keys equal the query's: moto checks the same again on what it is given.
            items = [item for held in self.items.values() for item in (held.values() if self.range_key_attr else (held,))]
            for name, value in _querying.hash_conditions or ():
                kind, raw = value.type, value.value
                items = [item for item in items if (got := item.attrs.get(name)) is not None and got.value == raw and got.type == kind]
            return items
        held = self.items.get(_querying.hash_key)
        if held is None:
            return []
        return list(held.values()) if self.range_key_attr else [held]

    parameters = inspect.signature(query)

    def querying(self: Table, *args: Any, **kwargs: Any) -> Any:
        if getattr(_querying, "as_moto", False):
            return query(self, *args, **kwargs)
        named = parameters.bind(self, *args, **kwargs).arguments
        _querying.table, _querying.hash_key, _querying.index_name = self, named.get("hash_key"), named.get("index_name")
        _querying.hash_conditions = named.get("hash_key_conditions")
        _querying.sorted = None
        try:
            return query(self, *args, **kwargs)
        finally:
            _querying.table = _querying.sorted = None

    Table.all_items = all_items  # type: ignore[method-assign]
    Table.query = querying  # type: ignore[method-assign]
    _install_index_sort()
    _install_string_comparisons()


def _install_string_comparisons() -> None:
    """Two strings' typed values are equal when their strings are (moto's cast_value of a string is its value);
    every other comparison is moto's own."""
    equal, unequal = DynamoType.__eq__, DynamoType.__ne__

    def eq(self: DynamoType, other: DynamoType) -> bool:
        if self.type == "S" and other.type == "S":
            return bool(self.value == other.value)
        return equal(self, other)

    def ne(self: DynamoType, other: DynamoType) -> bool:
        if self.type == "S" and other.type == "S":
            return bool(self.value != other.value)
        return unequal(self, other)

    DynamoType.__eq__ = eq  # type: ignore[method-assign]
    DynamoType.__ne__ = ne  # type: ignore[method-assign]


def _install_index_sort() -> None:
    """An index query's sort, and its skip to the start key, while moto queries (see the module's docstring)."""
    sorted_items = Table.sorted_items
    comes_before = Table._item_comes_before_dct

    def sorting(self: Table, hash_key_attrs: list[str], range_key_attrs: list[str | None], items: list[Any]) -> list[Any]:
        if getattr(_querying, "table", None) is not self:
            return sorted_items(self, hash_key_attrs, range_key_attrs, items)
        attrs = self._generate_attr_to_sort_by(hash_key_attrs, range_key_attrs)
        plain = _plain_keys(items, attrs)
        if plain is None:
            return sorted_items(self, hash_key_attrs, range_key_attrs, items)
        keys, kinds = plain
        order = sorted(range(len(items)), key=keys.__getitem__)  # a stable sort, as moto's: equal keys keep their order
        items[:] = [items[i] for i in order]
        _querying.sorted, _querying.sort_attrs, _querying.sort_kinds, _querying.boundary = items, attrs, kinds, _UNSET
        return items

    def before(self: Table, item: Any, dct: dict[str, Any], hash_key_attrs: list[str], range_key_attrs: list[str | None], forward: bool) -> bool:
        listed = getattr(_querying, "sorted", None) if getattr(_querying, "table", None) is self else None
        if listed is None:
            return bool(comes_before(self, item, dct, hash_key_attrs, range_key_attrs, forward))
        if _querying.boundary is _UNSET:
            # moto asks from the first item on and stops skipping at the first False: find that one, by moto's comparison
            start_key = [dct.get(name) for name in _querying.sort_attrs]
            if listed[0] is not item or any(not isinstance(v, dict) or list(v) != [kind] for v, kind in zip(start_key, _querying.sort_kinds, strict=True)):
                _querying.sorted = None
                return bool(comes_before(self, item, dct, hash_key_attrs, range_key_attrs, forward))
            low, high = 0, len(listed)
            while low < high:
                middle = (low + high) // 2
                if comes_before(self, listed[middle], dct, hash_key_attrs, range_key_attrs, forward):
                    low = middle + 1
                else:
                    high = middle
            _querying.boundary = listed[low] if low < len(listed) else None
        return item is not _querying.boundary

    Table.sorted_items = sorting  # type: ignore[method-assign]
    Table._item_comes_before_dct = before  # type: ignore[assignment, method-assign]


@contextmanager
def queries_as_moto_makes_them() -> Iterator[None]:
    """moto's own query path on this thread (the test comparing the two)."""
    _querying.as_moto = True
    try:
        yield
    finally:
        _querying.as_moto = False
