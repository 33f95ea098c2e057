"""Ids, the webhook body and the queue task: pure."""

from __future__ import annotations

import re

import pytest

from hookline.core import ids
from hookline.core.models import DeliveryTask, MalformedTask, webhook_body


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
