"""Waiting, in real time, for something a running local mode does in the background (a delivery, a retry)."""

from __future__ import annotations

import time
from collections.abc import Callable

DEADLINE_SECONDS = 20


def wait_for[T](condition: Callable[[], T], seconds: float = DEADLINE_SECONDS) -> T:
    """`condition()`'s first truthy value, polled every 0.2 s; fails the test with its last value after `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            assert value, f"not within {seconds} s: {value!r}"
            return value
        time.sleep(0.2)
