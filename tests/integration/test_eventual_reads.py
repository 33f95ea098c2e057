"""The delivery batch's read of bodies and deliveries is eventually consistent (half the read units); an event a
replica has not seen yet (just written) is read again strongly, its deliveries with it
(hookline.adapters.dynamo.events.EventRepository.read_for_sending)."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from hookline.adapters.dynamo import events as events_module
from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.events import EventRepository
from hookline.core.models import PlannedDelivery
from hookline.wiring import topology
from local.resources import create_table
from tests.fakes.contracts import event


def _repository() -> EventRepository:
    name = create_table(boto3.client("dynamodb"), topology.TABLE, "eventual")
    return EventRepository(boto3.resource("dynamodb").Table(name))


def test_an_event_an_eventually_consistent_read_missed_is_read_again_strongly_with_its_deliveries(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repository()
    assert repo.create_event(event(deliveries=(PlannedDelivery("dlv_01", "ep_01"),)), 2_000_000_000)
    assert repo.create_event(event("evt_02", deliveries=(PlannedDelivery("dlv_02", "ep_01"),)), 2_000_000_000)
    reads: list[tuple[bool, list[str]]] = []
    real = events_module.batch_get

    def lagging(table: Any, wanted: list[keys.Key], consistent: bool = False) -> list[dict[str, Any]]:
        reads.append((consistent, sorted(str(k[keys.PK]) for k in wanted)))
        found = real(table, wanted, consistent)
        # A replica that has seen evt_02 but not yet evt_01 (written a moment ago)
        return found if consistent else [i for i in found if not str(i[keys.PK]).endswith("evt_01")]

    monkeypatch.setattr(events_module, "batch_get", lagging)
    events, deliveries = repo.read_for_sending(
        [("acme", "evt_01"), ("acme", "evt_02")], [("acme", "evt_01", "dlv_01"), ("acme", "evt_02", "dlv_02")], consistent=False
    )
    # Both bodies and both planned deliveries came back; only evt_01 and its delivery were read a second time, strongly
    assert set(events) == {("acme", "evt_01"), ("acme", "evt_02")}
    assert {k: d.status for k, d in deliveries.items()} == {("acme", "evt_01", "dlv_01"): "pending", ("acme", "evt_02", "dlv_02"): "pending"}
    assert [c for c, _ in reads] == [False, True]
    again = sorted(str(k[keys.PK]) for k in (keys.event("acme", "evt_01"), keys.delivery("acme", "evt_01", "dlv_01")))
    assert reads[1][1] == again


def test_a_consistent_read_is_one_strongly_consistent_request(aws: None, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = _repository()
    assert repo.create_event(event(deliveries=(PlannedDelivery("dlv_01", "ep_01"),)), 2_000_000_000)
    reads: list[bool] = []
    real = events_module.batch_get

    def counted(table: Any, wanted: list[keys.Key], consistent: bool = False) -> list[dict[str, Any]]:
        reads.append(consistent)
        return real(table, wanted, consistent)

    monkeypatch.setattr(events_module, "batch_get", counted)
    events, _ = repo.read_for_sending([("acme", "evt_01")], [("acme", "evt_01", "dlv_01")])
    assert set(events) == {("acme", "evt_01")} and reads == [True]
