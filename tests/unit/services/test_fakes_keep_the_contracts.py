"""The in-memory fakes keep the storage ports' contracts (the same checks run against the DynamoDB adapters in
tests/integration/test_port_contracts.py), and each fake offers every method of the ports it stands for."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest

from hookline.services import ports
from hookline.services.delivery import ports as delivery_ports
from tests.fakes.contracts import CHECKS, Stores
from tests.fakes.customers import FakeCustomerStore
from tests.fakes.delivery import FakeScheduler
from tests.fakes.endpoints import FakeEndpointStore
from tests.fakes.events import FakeEventStore
from tests.fakes.outside import FakeSender, FakeStats, RecordingNotify
from tests.fakes.queues import FakeQueue
from tests.fakes.replays import FakeReplayStore
from tests.fakes.sealer import FakeSealer
from tests.fakes.state import FakeEndpointStateStore
from tests.fakes.waits import FakeWaitNotes


def fake_stores() -> Stores:
    endpoints = FakeEndpointStore()
    states = FakeEndpointStateStore(endpoints)
    return Stores(endpoints, states, FakeEventStore(), FakeReplayStore(), FakeCustomerStore(), FakeStats(states))


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_the_fakes_keep_the_contract(check: Callable[[Stores], None]) -> None:
    check(fake_stores())


PORTS = [
    (ports.CustomerStore, FakeCustomerStore),
    (ports.TenantEndpoints, FakeEndpointStore),
    (ports.EndpointStore, FakeEndpointStore),
    (delivery_ports.EndpointControl, FakeEndpointStore),
    (ports.EndpointHealthStore, FakeEndpointStateStore),
    (delivery_ports.EndpointStates, FakeEndpointStateStore),
    (ports.EventStore, FakeEventStore),
    (ports.EventRecords, FakeEventStore),
    (ports.BroadcastEvents, FakeEventStore),
    (ports.EndpointPages, FakeEndpointStore),
    (delivery_ports.DeliveryLog, FakeEventStore),
    (ports.ReplayStore, FakeReplayStore),
    (delivery_ports.ReplayProgress, FakeReplayStore),
    (ports.StatsReader, FakeStats),
    (delivery_ports.StatsSink, FakeStats),
    (ports.TaskQueue, FakeQueue),
    (ports.JobQueue, FakeQueue),
    (ports.Sender, FakeSender),
    (ports.DeliveryReader, FakeEventStore),
    (ports.RetryWaitNotes, FakeWaitNotes),
    (delivery_ports.Scheduler, FakeScheduler),
    (ports.Notify, RecordingNotify),
    (ports.Sealer, FakeSealer),
]


def _methods(port: type) -> dict[str, inspect.Signature]:
    names = {n for klass in port.__mro__ if klass not in (object,) and klass.__module__.startswith("hookline") for n in vars(klass)}
    return {n: inspect.signature(getattr(port, n)) for n in names if not n.startswith("_") or n == "__call__"}


@pytest.mark.parametrize(("port", "fake"), PORTS, ids=lambda p: p.__name__)
def test_each_fake_offers_its_ports_methods_with_the_same_parameters(port: type, fake: type) -> None:
    # A port that gains a method or a parameter must take its fake along (mypy does not check tests/)
    wanted = _methods(port)
    assert wanted, f"{port.__name__} declares no method"
    for name, signature in wanted.items():
        offered = getattr(fake, name, None)
        assert offered is not None, f"{fake.__name__} lacks {port.__name__}.{name}"
        have = inspect.signature(offered).parameters
        for param in signature.parameters.values():
            if param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
                assert any(p.kind == param.kind for p in have.values()), f"{fake.__name__}.{name} takes no {param}"
                continue
            assert param.name in have, f"{fake.__name__}.{name} lacks the parameter {param.name!r}"
            assert have[param.name].default == param.default, f"{fake.__name__}.{name}({param.name}) defaults differ"
