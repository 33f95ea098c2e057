"""Each endpoint's reads and writes of a batch, side by side, on one pool per process."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

PARALLEL_ENDPOINTS = 100  # endpoints of one batch planned, released and counted at once: a batch's endpoints, all of them


def carried[**Params, Result](work: Callable[Params, Result]) -> Callable[Params, Result]:
    """`work`, to run on a pool thread inside a copy of the caller's context variables, a fresh copy per call.

    A pool thread does not inherit them, and they hold what the invocation's log lines carry (the
    function, its request id, the task: see hookline.adapters.observability.with_invocation_keys).
    """
    caller = contextvars.copy_context()

    def run(*args: Params.args, **kwargs: Params.kwargs) -> Result:
        return caller.copy().run(work, *args, **kwargs)

    return run


class EndpointPool:
    """Runs one piece of work per endpoint concurrently, so a batch spanning many endpoints is not a queue of round trips.

    The pool is created on first use and kept for the life of the process (a warm
    Lambda reuses it); a single item runs on the caller's thread.
    """

    def __init__(self, workers: int = PARALLEL_ENDPOINTS) -> None:
        self._workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def map[Item, Result](self, work: Callable[[Item], Result], items: list[Item]) -> list[Result]:
        if len(items) <= 1:
            return [work(i) for i in items]
        return list(self._executor().map(carried(work), items))

    def submit(self, work: Callable[[], None]) -> Future[None]:
        """`work` on the pool, started now; its future says when it is done. A pool that is shutting down (the
        interpreter's exit) runs it on the caller's thread instead."""
        try:
            return self._executor().submit(carried(work))
        except RuntimeError:
            done: Future[None] = Future()
            work()
            done.set_result(None)
            return done

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self._workers, thread_name_prefix="endpoint")
            return self._pool
