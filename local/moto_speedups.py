"""Fixes for two costs in moto (5.2.5) that grow with the backlog, installed by local mode.

SQS: moto's `SendMessage` asks the queue for all its attributes to read one (`ContentBasedDeduplication`, a FIFO
queue's), and three of those attributes count the queue's messages by scanning them with a clock call each.
With a few thousand messages queued, each send took tens of milliseconds, so a 100-event batch with fan-out 5
(50 `SendMessageBatch` calls) took seconds more for every thousand deliveries waiting. While moto sends a message,
the queue's attributes are the one it reads, computed as moto computes it; everywhere else they are moto's own.
`ReceiveMessage` does the same for every message it hands out (to check the retention period): while moto
receives, the attributes are that one.

The server: moto finds each request's service by listing the folders of its own package on disk; the list is
read once.

DynamoDB: moto answers every `Query` by listing every item of the table, sorted by key (an O(n log n) sort with
Python comparisons of its typed values), then keeping the partition's items, and sorting those again. With 5,000
deliveries waiting (some 15,000 items) one query took tens of milliseconds, and `GET /v1/endpoints/{id}` makes
three. While moto queries a table, the items it lists are only the queried partition's (a table query), or every
item unsorted (an index query, which sorts what it keeps by the index's keys and the table's, a total order):
the same results in the same order; everywhere else `all_items` is moto's own.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from moto import backends
from moto.dynamodb.models.table import Table
from moto.sqs.models import Queue, SQSBackend

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

    Queue.attributes = property(attributes)  # type: ignore[assignment, method-assign]
    SQSBackend.send_message = marked("send", send_message)  # type: ignore[method-assign]
    SQSBackend.receive_message = marked("receive", receive_message)  # type: ignore[method-assign]
    _install_query()
    # moto's server looks up each request's service by listing its own package's folders on disk, every time.
    backends.list_of_moto_modules = functools.cache(lambda: tuple(every_module()))
    _installed = True


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
        try:
            return query(self, *args, **kwargs)
        finally:
            _querying.table = None

    Table.all_items = all_items  # type: ignore[method-assign]
    Table.query = querying  # type: ignore[method-assign]


@contextmanager
def queries_as_moto_makes_them() -> Iterator[None]:
    """moto's own query path on this thread (the test comparing the two)."""
    _querying.as_moto = True
    try:
        yield
    finally:
        _querying.as_moto = False
