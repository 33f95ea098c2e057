"""Planning under contention: another worker's state write lands between our read and our write.

A conflict's refusal returns the item that beat the write (ReturnValuesOnConditionCheckFailure=ALL_OLD), and the
plan is made again from it with no read; a refusal that did not return it costs one consistent read of the item that
lost (not of both). After every try is lost the tasks wait as the limiter would make them wait.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from hookline.core.breaker import Breaker
from hookline.core.conflicts import Lost
from hookline.core.models import DeliveryTask
from hookline.core.ratelimit import Limiter
from hookline.services.cas import SAVE_TRIES
from hookline.services.delivery.worker import DeliveryWorker
from tests.fakes.contracts import endpoint
from tests.fakes.delivery import DeliveryRig, delivery_rig
from tests.fakes.state import FakeEndpointStateStore
from tests.unit.services.pipeline import Pipeline


class Contended:
    """The rig's state store, with another worker writing the same item just before each of our first `races` saves of
    it; `returned`: whether a refusal returns the item as it is (False: a bare refusal, as without ALL_OLD)."""

    def __init__(self, store: FakeEndpointStateStore, races: int, returned: bool = True):
        self._store = store
        self._races = races
        self._returned = returned
        self.reads: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def breaker(self, tenant: str, endpoint_id: str) -> Breaker:
        self.reads["breaker"] += 1
        return self._store.breaker(tenant, endpoint_id)

    def limiter(self, tenant: str, endpoint_id: str) -> Limiter:
        self.reads["limiter"] += 1
        return self._store.limiter(tenant, endpoint_id)

    def save_breaker(self, tenant: str, endpoint_id: str, state: Breaker, expected_version: int) -> bool | Lost[Breaker]:
        if self._races > 0:
            self._races -= 1
            current = self._store.breaker(tenant, endpoint_id)
            self._store.save_breaker(
                tenant, endpoint_id, Breaker(state="half_open", probe_until=state.probe_until, version=current.version + 1), current.version
            )
        return self._refusal(self._store.save_breaker(tenant, endpoint_id, state, expected_version))

    def save_limiter(self, tenant: str, endpoint_id: str, state: Limiter, expected_version: int) -> bool | Lost[Limiter]:
        if self._races > 0:
            self._races -= 1
            current = self._store.limiter(tenant, endpoint_id)
            self._store.save_limiter(tenant, endpoint_id, Limiter(tat=current.tat, leases=current.leases, version=current.version + 1), current.version)
        return self._refusal(self._store.save_limiter(tenant, endpoint_id, state, expected_version))

    def _refusal[S](self, saved: bool | Lost[S]) -> bool | Lost[S]:
        return saved if self._returned or saved is True else Lost()


def _contended(races: int, breaker: Breaker | None = None, returned: bool = True) -> tuple[DeliveryWorker, DeliveryRig, Contended, list[DeliveryTask]]:
    rig = delivery_rig()
    pipe = Pipeline(rig)
    ep = pipe.endpoint(endpoint())
    tasks = [pipe.event(ep, i) for i in range(3)]
    if breaker is not None:
        rig.states.breakers[(ep.tenant, ep.id)] = breaker
    contended = Contended(rig.states, races, returned)
    worker = replace(rig.worker, planner=replace(rig.worker.planner, states=contended))
    return worker, rig, contended, tasks


@pytest.mark.parametrize(("returned", "reads"), [(True, Counter()), (False, Counter({"limiter": 1}))], ids=["item returned", "bare refusal"])
def test_a_lost_limiter_write_is_planned_again_from_the_limiter_that_won(returned: bool, reads: Counter[str]) -> None:
    # Given another worker takes the limiter between our read and our write, once
    worker, rig, contended, tasks = _contended(races=1, returned=returned)
    # When the batch is planned
    plans = worker.plan(tasks)
    # Then the grant was made again from the limiter the refusal returned (else from one fresh read of it), and it landed
    assert contended.reads == reads
    assert [p.kind for p in plans.values()] == ["go", "go", "go"]
    assert rig.states.conflicts == 1
    assert rig.states.limiters[(tasks[0].tenant, tasks[0].endpoint_id)].version == 2  # the other worker's, then ours on top


@pytest.mark.parametrize(("returned", "reads"), [(True, Counter()), (False, Counter({"breaker": 1}))], ids=["item returned", "bare refusal"])
def test_a_lost_probe_race_sees_the_others_probe_and_the_tasks_come_back_shortly(returned: bool, reads: Counter[str]) -> None:
    # Given a breaker due for its probe, and another worker taking the probe first
    now = 1_795_953_600.0
    due = Breaker(state="open", consecutive_failures=10, open_until=now - 1, open_since=now - 61, cooldown_seconds=60, trips=1, version=2)
    worker, rig, contended, tasks = _contended(races=1, breaker=due, returned=returned)
    rig.clock.now = rig.clock.now.fromtimestamp(now, rig.clock.now.tzinfo)
    # When the batch is planned
    plans = worker.plan(tasks)
    # Then the breaker the refusal returned (else one fresh read of it) showed the other's probe, and every task waits a few seconds for it, sending nothing
    assert contended.reads == reads
    assert {(p.kind, p.step.reason if p.step else "") for p in plans.values()} == {("defer", "circuit half-open: probing")}
    assert all(5.0 <= p.step.defer_seconds <= 10.0 for p in plans.values() if p.step)


@pytest.mark.parametrize(("returned", "reads"), [(True, Counter()), (False, Counter({"limiter": SAVE_TRIES - 1}))], ids=["item returned", "bare refusal"])
def test_losing_every_try_defers_the_tasks_as_the_limiter_would(returned: bool, reads: Counter[str]) -> None:
    # Given another worker wins the limiter every time
    worker, rig, contended, tasks = _contended(races=SAVE_TRIES, returned=returned)
    # When the batch is planned
    plans = worker.plan(tasks)
    # Then it tried SAVE_TRIES times, read nothing (or only the limiter, between tries, and not after the last), and put every task off as a rate-limit wait
    assert rig.states.conflicts == SAVE_TRIES
    assert contended.reads == reads
    assert {(p.kind, p.step.reason if p.step else "") for p in plans.values()} == {("defer", "endpoint rate or concurrency limit")}
