"""Ids, the webhook body and the queue task: pure."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookline.core import ids
from hookline.core.clock import epoch_ms, iso, parse_iso
from hookline.core.models import LAYOUT_EVENT_KEYED, DeliveryTask, Event, MalformedTask, webhook_body


def test_ids_are_prefixed_and_well_formed() -> None:
    for prefix in ("evt", "ep", "dlv"):
        value = ids.new_id(prefix, 1_700_000_000_000)
        assert re.fullmatch(rf"{prefix}_[0-9a-hjkmnp-tv-z]{{26}}", value)
        assert ids.is_id(value, prefix)
        assert not ids.is_id(value, "other")
    assert not ids.is_id("evt_short", "evt")
    assert not ids.is_id(None, "evt")


def test_ids_sort_by_creation_time() -> None:
    assert ids.new_id("evt", 1_000) < ids.new_id("evt", 2_000)
    assert len({ids.new_id("evt", 5) for _ in range(1000)}) == 1000


def test_derived_ids_are_stable_and_tenant_specific() -> None:
    assert ids.derived_id("evt", "acme", "k1") == ids.derived_id("evt", "acme", "k1")
    assert ids.derived_id("evt", "acme", "k1") != ids.derived_id("evt", "other", "k1")
    assert ids.is_id(ids.derived_id("evt", "acme", "k1"), "evt")


@settings(max_examples=200)
@given(
    tenant=st.text(min_size=1, max_size=12),
    event_n=st.integers(0, 2**40),
    endpoints=st.lists(st.integers(0, 2**40), min_size=2, max_size=5, unique=True),
    ms=st.integers(0, 32**10 - 2),
)
def test_a_delivery_id_carries_its_time_and_gives_its_endpoint_s_mark_back_from_its_event(tenant: str, event_n: int, endpoints: list[int], ms: int) -> None:
    event_id = ids.new_id(ids.EVENT, event_n)
    made = {ep: ids.delivery_id(tenant, event_id, ep, ms) for ep in (ids.new_id(ids.ENDPOINT, n) for n in endpoints)}
    for endpoint_id, delivery_id in made.items():
        assert ids.is_id(delivery_id, ids.DELIVERY) and delivery_id[4:14] == ids.new_id(ids.DELIVERY, ms)[4:14]  # its creation time
        assert ids.endpoint_mark_of(tenant, event_id, delivery_id) == ids.endpoint_mark(endpoint_id)
        assert ids.delivery_id(tenant, event_id, endpoint_id, ms) == delivery_id  # the same however often it is made
        # Another event's mask gives another mark: the id names its endpoint only with its own event
        assert ids.endpoint_mark_of(tenant, event_id + "x", delivery_id) != ids.endpoint_mark(endpoint_id)
        assert ids.time_bound(ids.DELIVERY, ms, upper=False) <= delivery_id <= ids.time_bound(ids.DELIVERY, ms, upper=True)
        assert ids.time_bound(ids.DELIVERY, ms + 1, upper=False) > delivery_id
    assert len(set(made.values())) == len(made)  # one event's deliveries to different endpoints differ


def test_delivery_ids_sort_by_creation_time_and_a_malformed_one_names_no_mark() -> None:
    assert ids.delivery_id("acme", "evt_1", "ep_2", 1_000) < ids.delivery_id("acme", "evt_1", "ep_1", 1_001)
    with pytest.raises(ValueError):
        ids.endpoint_mark_of("acme", "evt_1", "dlv_short")


def test_epoch_ms_is_the_millisecond_iso_writes() -> None:
    # 0.124 s after a whole second is 123.99999… ms in float seconds times 1,000: the id and created_at must agree
    moment = datetime(2026, 12, 3, 10, 0, 0, 124_000, tzinfo=UTC)
    assert int(moment.timestamp() * 1000) % 1000 in (123, 124)
    assert epoch_ms(moment) % 1000 == 124 == int(iso(moment)[20:23])
    assert epoch_ms(parse_iso(iso(moment))) == epoch_ms(moment)


def test_a_broadcast_s_delivery_ids_follow_its_layout() -> None:
    broadcast = Event("evt_1", "acme", "a.b", "2026-12-03T10:00:00.124Z", "{}", "h")
    assert broadcast.broadcast_delivery_id("ep_1") == ids.delivery_id("acme", "evt_1", "ep_1", epoch_ms(parse_iso(broadcast.created_at)))
    earlier = replace(broadcast, layout=LAYOUT_EVENT_KEYED)
    assert earlier.broadcast_delivery_id("ep_1") == ids.legacy_broadcast_delivery_id("acme", "evt_1", "ep_1") == ids.derived_id("dlv", "acme", "evt_1", "ep_1")


def test_webhook_body_is_byte_stable() -> None:
    data = {"b": 1, "a": {"é": [1.5, None, True]}}
    first = webhook_body("evt_1", "a.b", "2026-01-01T00:00:00.000Z", data)
    assert first == webhook_body("evt_1", "a.b", "2026-01-01T00:00:00.000Z", dict(data))
    assert first == '{"id":"evt_1","type":"a.b","timestamp":"2026-01-01T00:00:00.000Z","data":{"b":1,"a":{"é":[1.5,null,true]}}}'


def test_task_round_trips_and_rejects_garbage() -> None:
    task = DeliveryTask("acme", "evt_1", "dlv_1", "ep_1", 3)
    assert DeliveryTask.from_message(task.to_message()) == task
    for bad in ("", "[]", "{}", '{"tenant": "a"}', '{"tenant":"a","event_id":"e","delivery_id":"d","endpoint_id":"p","attempt":0}'):
        with pytest.raises(MalformedTask):
            DeliveryTask.from_message(bad)
