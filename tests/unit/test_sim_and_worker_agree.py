"""The benchmark simulator and the delivery worker make the same decisions for the same inputs.

Both call the core (`core.planning.plan_group`, `core.health`); these tests
feed them the same endpoint state, tasks, time and random seed and compare what
each decided, so a rule cannot drift between what runs and what is measured.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.scenarios import sim
from hookline.core.breaker import Breaker
from hookline.core.classify import TIMEOUT
from hookline.core.config import limiter_config
from hookline.core.models import Delivery, DeliveryTask, Endpoint, Event
from hookline.core.planning import leases_held
from hookline.core.policy import decide
from hookline.core.ratelimit import Limiter, current_rate, release
from hookline.core.responses import HttpResult
from hookline.core.settings import Settings
from tests.fakes.delivery import DeliveryRig, delivery_rig
from tests.fakes.outside import FakeSender

NOW = sim.EPOCH + 1_000.0
SEED = 11
LIMITER = limiter_config(Settings(), lease_seconds=120)


@dataclass(frozen=True)
class Case:
    tasks: int
    breaker: Breaker = field(default_factory=Breaker)
    limiter: Limiter = field(default_factory=Limiter)
    paused_until: float | None = None
    active: bool = True


STATES = {
    "pristine, within limits": Case(breaker=Breaker(), limiter=Limiter(), tasks=3),
    "more tasks than concurrency": Case(breaker=Breaker(), limiter=Limiter(), tasks=8),
    "busy limiter": Case(breaker=Breaker(), limiter=Limiter(tat=NOW + 0.5, leases=(NOW + 60,) * 4, version=3), tasks=4),
    "breaker open": Case(breaker=Breaker(state="open", open_until=NOW + 40, open_since=NOW - 20, cooldown_seconds=60, trips=1, version=2), tasks=4),
    "breaker due for a probe": Case(breaker=Breaker(state="open", open_until=NOW - 1, open_since=NOW - 61, cooldown_seconds=60, trips=1, version=2), tasks=5),
    "probe in flight": Case(breaker=Breaker(state="half_open", probe_until=NOW + 20, open_since=NOW - 61, cooldown_seconds=60, version=3), tasks=2),
    "outage past the disable threshold": Case(
        breaker=Breaker(state="open", open_until=NOW - 1, open_since=NOW - 500_000, cooldown_seconds=3600, version=9), tasks=3
    ),
    "paused by Retry-After": Case(breaker=Breaker(), limiter=Limiter(), tasks=3, paused_until=NOW + 30),
    "disabled": Case(breaker=Breaker(), limiter=Limiter(), tasks=2, active=False),
}


def _endpoint(paused_until: float | None = None, active: bool = True) -> Endpoint:
    return Endpoint(
        id="ep_1",
        tenant="acme",
        url="https://example.com/h",
        secret="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        paused_until=paused_until,
        status="active" if active else "disabled",
    )


def _tasks(rig: DeliveryRig, count: int) -> list[DeliveryTask]:
    tasks = []
    for i in range(count):
        event = Event(id=f"evt_{i}", tenant="acme", type="a.b", created_at="2023-11-14T22:13:20.000Z", body='{"data":{}}', request_hash="h")
        delivery = Delivery(id=f"dlv_{i}", tenant="acme", event_id=event.id, endpoint_id="ep_1", created_at=event.created_at)
        rig.events.create_event(event, 0)
        rig.events.create_deliveries([delivery], 0)
        tasks.append(DeliveryTask("acme", event.id, delivery.id, "ep_1", 1))
    return tasks


@pytest.mark.parametrize("name", list(STATES))
def test_the_simulator_plans_a_batch_exactly_as_the_worker_does(name: str) -> None:
    case = STATES[name]
    endpoint = _endpoint(case.paused_until, case.active)
    breaker, limiter = case.breaker, case.limiter
    # Given the worker, on fakes, with an endpoint in this state
    rig = delivery_rig(seed=SEED)
    rig.clock.now = datetime.fromtimestamp(NOW, UTC)
    rig.endpoints.add(endpoint)
    rig.states.breakers[("acme", "ep_1")] = breaker
    rig.states.limiters[("acme", "ep_1")] = limiter
    tasks = _tasks(rig, case.tasks)
    # And the simulator, with the same endpoint state, time and seed
    s = sim.Sim(SEED)
    system = sim.Hookline(s, workers=3)
    ep = sim.Endpoint(0, "g", sim.Receiver(), breaker=breaker, limiter=limiter, paused_until=endpoint.paused_until, active=endpoint.status == "active")
    # When each plans the batch
    plans = rig.worker.plan(tasks)
    simulated = system.plan(ep, len(tasks), NOW - sim.EPOCH)
    # Then they decide the same thing for every task, and leave the endpoint in the same state
    assert [plans[t].step for t in tasks] == list(simulated.steps)
    assert rig.states.breaker("acme", "ep_1") == ep.breaker
    assert rig.states.limiter("acme", "ep_1") == ep.limiter
    assert (rig.endpoints.items[("acme", "ep_1")].status == "active") == ep.active


DUE = Breaker(state="open", consecutive_failures=10, open_until=NOW, open_since=NOW - 60, cooldown_seconds=60, trips=1, version=2)
LONG_OUTAGE = Breaker(state="open", consecutive_failures=10, open_until=NOW, open_since=NOW - 500_000, cooldown_seconds=3600, trips=9, version=40)
ONE_SECOND = 1.0

# name: (the breaker to start from, [(seconds since the previous answer, the answer)])
ANSWERS: dict[str, tuple[Breaker, list[tuple[float, HttpResult]]]] = {
    "a run of 503s opens the breaker, then tasks wait": (Breaker(), [(ONE_SECOND, HttpResult(503, None, 5))] * 12),
    "timeouts count as failures": (Breaker(), [(ONE_SECOND, HttpResult(None, TIMEOUT, 10_000))] * 10),
    "a 429 slows the limiter": (Breaker(), [(ONE_SECOND, HttpResult(429, None, 5)), (ONE_SECOND, HttpResult(200, None, 5))]),
    "failures then a success close the streak": (Breaker(), [(ONE_SECOND, HttpResult(500, None, 5))] * 4 + [(ONE_SECOND, HttpResult(200, None, 5))]),
    "4xx says nothing about health": (Breaker(), [(ONE_SECOND, HttpResult(404, None, 5)), (ONE_SECOND, HttpResult(400, None, 5))]),
    "a failed probe reopens, the next probe closes": (
        DUE,
        [
            (ONE_SECOND, HttpResult(503, None, 5)),
            (ONE_SECOND, HttpResult(200, None, 5)),
            (200.0, HttpResult(200, None, 5)),
            (ONE_SECOND, HttpResult(200, None, 5)),
        ],
    ),
    "a failed probe past the disable threshold disables, then tasks park": (
        LONG_OUTAGE,
        [(ONE_SECOND, HttpResult(503, None, 5)), (ONE_SECOND, HttpResult(200, None, 5))],
    ),
    "a 410 disables the endpoint, then tasks park": (Breaker(), [(ONE_SECOND, HttpResult(410, None, 5)), (ONE_SECOND, HttpResult(200, None, 5))]),
    "a Retry-After pauses the endpoint, then tasks wait": (
        Breaker(),
        [(ONE_SECOND, HttpResult(503, None, 5, headers={"retry-after": "30"})), (ONE_SECOND, HttpResult(200, None, 5)), (40.0, HttpResult(200, None, 5))],
    ),
}


@pytest.mark.parametrize("name", list(ANSWERS))
def test_the_simulator_tracks_health_exactly_as_the_worker_does(name: str) -> None:
    start, script = ANSWERS[name]
    current: list[HttpResult] = []
    rig = delivery_rig(FakeSender(lambda _r: current[-1]), seed=SEED)
    rig.clock.now = datetime.fromtimestamp(NOW, UTC)
    rig.endpoints.add(_endpoint())
    rig.states.breakers[("acme", "ep_1")] = start
    s = sim.Sim(SEED)
    system = sim.Hookline(s, workers=3)
    ep = sim.Endpoint(0, "g", sim.Receiver(), breaker=start)
    for task, (gap, answer) in zip(_tasks(rig, len(script)), script, strict=True):
        # When a task comes up `gap` seconds after the last, in the worker (plan, send, decide, track) and in the simulator
        rig.clock.advance(gap)
        at = rig.clock.timestamp()
        current.append(answer)
        sent_before = len(rig.http.requests)
        report = rig.worker.deliver(task)
        [step] = system.plan(ep, 1, at - sim.EPOCH).steps
        if step.kind in ("go", "probe"):
            decision = decide(1, s.dt(0.0), answer.outcome, s.dt(at - sim.EPOCH), system.policy, s.rng)
            system.track_health(ep, answer.outcome, decision, at, probe=step.kind == "probe")
        for expiry, count in leases_held([step]).items():
            ep.limiter = release(ep.limiter, expiry, count, at)
        # Then both took the same step, and the breaker, the limiter's rate and the endpoint agree after every answer
        assert (len(rig.http.requests) > sent_before) == (step.kind in ("go", "probe"))
        assert report.outcome == {"go": report.outcome, "probe": report.outcome, "defer": "deferred", "park": "parked"}[step.kind]
        endpoint = rig.endpoints.items[("acme", "ep_1")]
        assert rig.states.breaker("acme", "ep_1") == ep.breaker
        assert current_rate(rig.states.limiter("acme", "ep_1"), 10.0, at, LIMITER) == pytest.approx(current_rate(ep.limiter, 10.0, at, LIMITER))
        assert (endpoint.status == "active", endpoint.paused_until) == (ep.active, pytest.approx(ep.paused_until) if ep.paused_until else None)


def test_the_simulator_defines_no_rule_of_its_own() -> None:
    # The simulator may model time, queues and receivers, but every decision is imported from the core.
    tree = ast.parse(Path(sim.__file__).read_text())
    imported = {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hookline.core") for alias in node.names
    }
    # give_back: the lease release and the adaptive limit's learning, as the worker calls it
    assert {"plan_group", "breaker_after", "limiter_after", "endpoint_after", "decide", "give_back"} <= imported
    defined = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    assert not defined & {"admit", "record", "acquire", "slow_down", "observe", "deferral", "health", "classify_outcome"}
    # (and no local copy of a planning constant: the half-open deferral drifted once)
    assert "BUSY_RETRY" not in Path(sim.__file__).read_text()
