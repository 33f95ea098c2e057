"""What this process knows of its token leases on hot endpoints (hookline.core.leases), kept across batches.

A warm Lambda instance runs one batch at a time and keeps this book between them, so a lease written once is
spent over the batches that follow with no write. Nothing here is written anywhere: the lease itself is in the
endpoint's limiter item, and a process that dies takes only what its lease bounds (see hookline.core.leases).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from hookline.core import leases
from hookline.core.leases import Holding

ANSWERS_KEPT = 200  # an endpoint's latest answers under a lease, folded into its adaptive limit when the lease is given back
ENDPOINTS_KEPT = 10_000  # endpoints remembered at most (those with nothing in flight are forgotten first)

Answer = tuple[float | None, int | None, str | None]  # what a request saw: latency (s), status, error


class TokenLeaseBook:
    """Per (tenant, endpoint): this process's holding, and the answers its requests got under the lease; thread-safe.

    Batches that plan one endpoint side by side in one process (local mode's threads) take turns (`planning`), so
    each plans from the holding the one before it left, and its requests in flight are counted once."""

    def __init__(self, holder: str = "") -> None:
        self.holder = holder or f"p_{uuid.uuid4().hex[:16]}"
        self._lock = threading.Lock()
        self._held: dict[tuple[str, str], Holding] = {}
        self._answers: dict[tuple[str, str], list[Answer]] = {}
        self._turns: dict[tuple[str, str], threading.Lock] = {}

    @contextmanager
    def planning(self, tenant: str, endpoint_id: str) -> Iterator[None]:
        """One batch at a time plans the endpoint in this process: from reading its holding to keeping the new one."""
        with self._lock:
            turn = self._turns.setdefault((tenant, endpoint_id), threading.Lock())
        with turn:
            yield

    def holding(self, tenant: str, endpoint_id: str) -> Holding:
        with self._lock:
            return self._held.get((tenant, endpoint_id), Holding())

    def holds(self, tenant: str, endpoint_id: str) -> bool:
        """Whether this process paces the endpoint by a lease (its latest plan there took one, or spent one)."""
        with self._lock:
            held = self._held.get((tenant, endpoint_id))
            return held is not None and held.lease is not None

    def keep(self, tenant: str, endpoint_id: str, holding: Holding) -> None:
        with self._lock:
            if len(self._held) >= ENDPOINTS_KEPT and (tenant, endpoint_id) not in self._held:
                idle = [key for key, h in self._held.items() if h.in_flight == 0]
                for key in idle[: max(1, len(idle) // 2)]:
                    self._held.pop(key, None)
                    self._answers.pop(key, None)
                    self._turns.pop(key, None)
            self._held[(tenant, endpoint_id)] = holding

    def ended(self, tenant: str, endpoint_id: str, slot_expiry: float, count: int, answers: Sequence[Answer]) -> None:
        """`count` requests under the slots of `slot_expiry` ended, with these answers."""
        key = (tenant, endpoint_id)
        with self._lock:
            held = self._held.get(key)
            if held is None:
                return
            self._held[key] = leases.ended(held, slot_expiry, count)
            kept = self._answers.setdefault(key, [])
            kept.extend(answers)
            del kept[:-ANSWERS_KEPT]

    def to_give_back(self, tenant: str, endpoint_id: str, now: float) -> tuple[Holding, int, tuple[Answer, ...]]:
        """The holding, the slots to give back now (0: the lease goes on) and the answers to fold in with them;
        a lease given back is marked so, and its answers taken."""
        key = (tenant, endpoint_id)
        with self._lock:
            held = self._held.get(key, Holding())
            count = leases.to_give_back(held, now)
            if not count:
                return held, 0, ()
            self._held[key] = leases.given_back(held)
            return held, count, tuple(self._answers.pop(key, ()))
