"""DynamoDB's per-item atomicity, which moto lacks.

In DynamoDB a conditional write checks its condition and writes in one atomic
step. moto checks, then writes, in plain Python: two threads (the local
runner's pollers, or a test's racing workers) can both pass the same condition.
While `atomic_dynamodb_writes()` is active, moto's DynamoDB operations on items
run one at a time, which is what the service's single-flight claims and
versioned breaker and limiter writes rely on.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from moto.dynamodb.models import DynamoDBBackend

# Reads too: DynamoDB never shows half an update, while moto changes an item's attributes one by one.
_WRITES = ("put_item", "update_item", "delete_item", "batch_write_item", "transact_write_items")
_READS = ("get_item", "query", "scan", "batch_get_item", "transact_get_items")
_LOCK = threading.RLock()


def _serialized(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def run(*args: Any, **kwargs: Any) -> Any:
        with _LOCK:
            return method(*args, **kwargs)

    run.__hookline_serialized__ = True  # type: ignore[attr-defined]
    return run


@contextmanager
def atomic_dynamodb_writes() -> Iterator[None]:
    originals = {name: getattr(DynamoDBBackend, name) for name in _WRITES + _READS}
    if any(getattr(m, "__hookline_serialized__", False) for m in originals.values()):
        yield  # already active (nested use)
        return
    for name, method in originals.items():
        setattr(DynamoDBBackend, name, _serialized(method))
    try:
        yield
    finally:
        for name, method in originals.items():
            setattr(DynamoDBBackend, name, method)
