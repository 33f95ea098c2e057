"""Local mode serves API requests first: its pollers hold off starting a batch while one is being answered.

In the cloud the API and the delivery functions run on separate machines. Local mode runs them, and moto, in
one Python process, so under a backlog the pollers' work took the interpreter from the API: a 100-event batch
waited 5 to 7 s behind them (0.5 s with them stopped). A request in flight now makes each poller wait before
its next batch, for at most `max_wait_seconds`, so no stream of requests can starve delivery; a batch already
running finishes.
"""

from __future__ import annotations

import threading
import time


class ApiFirst:
    def __init__(self, max_wait_seconds: float = 0.5) -> None:
        self.max_wait_seconds = max_wait_seconds
        self._busy = 0
        self._idle = threading.Condition()

    def __enter__(self) -> ApiFirst:
        with self._idle:
            self._busy += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._idle:
            self._busy -= 1
            if self._busy == 0:
                self._idle.notify_all()

    @property
    def busy(self) -> bool:
        return self._busy > 0

    def yield_to_requests(self) -> float:
        """Wait while a request is being answered (at most `max_wait_seconds`); returns how long it waited."""
        started = time.monotonic()
        with self._idle:
            self._idle.wait_for(lambda: self._busy == 0, timeout=self.max_wait_seconds)
        return time.monotonic() - started
