"""The reads a DynamoDB client makes, counted as DynamoDB bills them, phase by phase.

DynamoDB bills a read by the items it reads, not the items it returns: a GetItem
reads one item (found or not), a BatchGetItem one per key asked for, and a Query
or Scan every item its key condition matches up to its Limit, those its
FilterExpression then drops included (the answer's `ScannedCount`). The units
follow the size of what was read (4 KB a unit), so for items of like sizes the
count of items read is the bill; that count is what is kept. A botocore hook on
the client sees every call, from every thread (a delivery batch's calls run on
a pool), and files it under the phase running.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

READS = frozenset({"GetItem", "BatchGetItem", "TransactGetItems", "Query", "Scan"})
_EQUALITY = re.compile(r"(#\w+|\w+)\s*=\s*(:\w+)")
_PARTITION_KEYS = frozenset({"pk", "gsi1pk", "gsi2pk", "gsi3pk", "gsi4pk"})


@dataclass(frozen=True)
class Read:
    operation: str
    index: str  # the index a Query or Scan names; "" for the table's own keys
    partition: str  # the partition key value a Query names; "" for the other reads
    items: int  # the items DynamoDB reads (and bills) for it


@dataclass(frozen=True)
class Phase:
    reads: tuple[Read, ...]

    @property
    def requests(self) -> int:
        return len(self.reads)

    @property
    def items(self) -> int:
        return sum(r.items for r in self.reads)

    def of(self, operation: str) -> list[Read]:
        return [r for r in self.reads if r.operation == operation]

    def summary(self) -> str:
        return f"{self.requests} requests, {self.items} items"


class ReadOverrun(Exception):
    """A single read read more items than the meter allows (raised in the read's caller, to stop a long read early)."""


class ReadMeter:
    """Counts the reads `client` makes inside `phase(...)`: `with ReadMeter(client) as meter, meter.phase("list"): ...`.

    With `most_items`, a read of more items than that stops at once (ReadOverrun, in whatever made it) and its
    phase fails naming it: a read that grows with a table of 100,000 items fails in a second, not in minutes.
    """

    def __init__(self, client: Any, most_items: int | None = None) -> None:
        self._client = client
        self._most_items = most_items
        self._lock = threading.Lock()
        self._current: str | None = None
        self._phases: dict[str, list[Read]] = {}
        self._overrun: str | None = None

    def __enter__(self) -> ReadMeter:
        self._client.meta.events.register("before-call.dynamodb", self._before)
        self._client.meta.events.register("after-call.dynamodb", self._after)
        return self

    def __exit__(self, *_: object) -> None:
        self._client.meta.events.unregister("before-call.dynamodb", self._before)
        self._client.meta.events.unregister("after-call.dynamodb", self._after)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        assert self._current is None, f"phase {name} inside {self._current}"
        self._phases.setdefault(name, [])
        self._current = name
        try:
            yield
        finally:
            self._current = None
            if self._overrun is not None:
                raise AssertionError(self._overrun)  # rather than what the overrun made of the call it stopped

    def __getitem__(self, name: str) -> Phase:
        return Phase(tuple(self._phases[name]))

    def names(self) -> list[str]:
        return list(self._phases)

    def _before(self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        if model.name in READS and self._current is not None:
            body = params.get("body") or b"{}"
            context["hookline_read"] = (self._current, json.loads(body))

    def _after(self, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        phase, request = context.pop("hookline_read", (None, None))
        if phase is None:
            return
        read = Read(model.name, request.get("IndexName", ""), _partition(request), _items_read(model.name, request, parsed))
        with self._lock:
            self._phases[phase].append(read)
        if self._most_items is not None and read.items > self._most_items:
            self._overrun = f"{phase}: one {read.operation} of {read.partition or read.index or 'keys'} read {read.items} items (at most {self._most_items})"
            raise ReadOverrun(self._overrun)


def _items_read(operation: str, request: dict[str, Any], parsed: dict[str, Any]) -> int:
    if operation == "GetItem":
        return 1
    if operation == "BatchGetItem":
        return sum(len(asked.get("Keys", [])) for asked in request.get("RequestItems", {}).values())
    if operation == "TransactGetItems":
        return len(request.get("TransactItems", []))
    return int(parsed.get("ScannedCount", 0))


def _partition(request: dict[str, Any]) -> str:
    """The partition key value of a Query's key condition (`#n0 = :v0 AND ...`)."""
    names = request.get("ExpressionAttributeNames", {})
    values = request.get("ExpressionAttributeValues", {})
    for name, value in _EQUALITY.findall(request.get("KeyConditionExpression", "")):
        if names.get(name, name) in _PARTITION_KEYS:
            return str(values.get(value, {}).get("S", ""))
    return ""
