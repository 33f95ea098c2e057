"""Each endpoint's breaker and limiter in memory, as hookline.adapters.dynamo.state.EndpointStateRepository keeps them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

from hookline.core.breaker import Breaker
from hookline.core.conflicts import Lost
from hookline.core.models import Endpoint
from hookline.core.ratelimit import Limiter
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.endpoints import FakeEndpointStore
from tests.fakes.faults import Faults


def _as_stored[State: (Breaker, Limiter)](state: State) -> State:
    """What reading a state back gives: the adapter stores every float to six decimal places."""
    changes: dict[str, Any] = {}
    for f in fields(state):
        value = getattr(state, f.name)
        if isinstance(value, float):
            changes[f.name] = round(value, 6)
        elif isinstance(value, tuple):
            changes[f.name] = tuple(round(v, 6) if isinstance(v, float) else v for v in value)
    return replace(state, **changes)


class FakeEndpointStateStore:
    """EndpointHealthStore (the services' port) and EndpointStates (the delivery service's).

    Contract, as the adapter's: a save writes only if the stored version is the
    one the caller read, or nothing is stored yet (False otherwise); what is
    read back has its floats rounded to six places; `reset_breaker` writes a
    closed breaker that keeps the trip count, unconditionally. `load` reads the
    endpoint from the endpoint store this one sits beside (one table).
    """

    def __init__(self, endpoints: FakeEndpointStore):
        self._endpoints = endpoints
        self.breakers: dict[tuple[str, str], Breaker] = {}
        self.limiters: dict[tuple[str, str], Limiter] = {}
        self.writes: list[tuple[str, str, Breaker | Limiter]] = []  # ("breaker" | "limiter", endpoint id, state) of every write that landed
        self.conflicts = 0  # saves refused for a stale version
        self.faults = Faults()
        self._lock = new_lock()

    @atomic
    def load(self, tenant: str, endpoint_id: str) -> tuple[Endpoint | None, Breaker, Limiter]:
        self.faults.check("load")
        key = (tenant, endpoint_id)
        return self._endpoints.items.get(key), self.breakers.get(key, Breaker()), self.limiters.get(key, Limiter())

    def load_many(self, endpoints: Sequence[tuple[str, str]]) -> dict[tuple[str, str], tuple[Endpoint | None, Breaker, Limiter]]:
        return {(tenant, endpoint_id): self.load(tenant, endpoint_id) for tenant, endpoint_id in dict.fromkeys(endpoints)}

    @atomic
    def breaker(self, tenant: str, endpoint_id: str) -> Breaker:
        self.faults.check("breaker")
        return self.breakers.get((tenant, endpoint_id), Breaker())

    @atomic
    def limiter(self, tenant: str, endpoint_id: str) -> Limiter:
        self.faults.check("limiter")
        return self.limiters.get((tenant, endpoint_id), Limiter())

    @atomic
    def save_breaker(self, tenant: str, endpoint_id: str, state: Breaker, expected_version: int) -> bool | Lost[Breaker]:
        self.faults.check("save_breaker")
        return self._save("breaker", self.breakers, tenant, endpoint_id, state, expected_version)

    @atomic
    def save_limiter(self, tenant: str, endpoint_id: str, state: Limiter, expected_version: int) -> bool | Lost[Limiter]:
        self.faults.check("save_limiter")
        return self._save("limiter", self.limiters, tenant, endpoint_id, state, expected_version)

    @atomic
    def reset_breaker(self, tenant: str, endpoint_id: str) -> None:
        self.faults.check("reset_breaker")
        old = self.breakers.get((tenant, endpoint_id), Breaker())
        self.breakers[(tenant, endpoint_id)] = fresh = Breaker(trips=old.trips, version=old.version + 1)
        self.writes.append(("breaker", endpoint_id, fresh))

    def _save[State: (Breaker, Limiter)](
        self, kind: str, store: dict[tuple[str, str], State], tenant: str, endpoint_id: str, state: State, expected_version: int
    ) -> bool | Lost[State]:
        current = store.get((tenant, endpoint_id))
        if current is not None and current.version != expected_version:
            self.conflicts += 1
            return Lost(current)  # as DynamoDB's refusal returns the item (ReturnValuesOnConditionCheckFailure=ALL_OLD)
        store[(tenant, endpoint_id)] = stored = _as_stored(state)
        self.writes.append((kind, endpoint_id, stored))
        return True
