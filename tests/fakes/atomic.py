"""Each write of a fake is one atomic step, as each DynamoDB conditional write is.

The delivery service plans, releases and counts a batch's endpoints on a
thread pool, so two threads may check-and-set the same fake at once; without
the lock a fake could lose an update that DynamoDB would have refused.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any


def new_lock() -> threading.RLock:
    return threading.RLock()


def atomic[Method: Callable[..., Any]](method: Method) -> Method:
    """The method runs under the instance's `_lock` (from `new_lock`)."""

    @functools.wraps(method)
    def locked(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return locked  # type: ignore[return-value]
