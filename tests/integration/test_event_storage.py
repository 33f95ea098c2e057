"""How event bodies are stored: large ones compressed (fewer DynamoDB units), every one read back byte for byte."""

from __future__ import annotations

import json

import boto3
from standardwebhooks.webhooks import Webhook

from hookline.wiring import topology
from tests.conftest import Hookline
from tests.support.receiver import running_receiver


def _stored(hookline: Hookline, tenant: str, event_id: str) -> dict[str, object]:
    table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
    item = table.get_item(Key={"pk": f"E#{tenant}#{event_id}", "sk": "EVENT"})["Item"]
    assert isinstance(item, dict)
    return item


def test_a_large_body_is_stored_compressed_and_delivered_byte_for_byte(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        # Given an endpoint, and a 16 KB event of repetitive JSON (as order payloads are)
        _, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url})
        data = {"items": [{"sku": f"SKU-{i:05d}", "name": "blue widget, large", "quantity": i % 7, "currency": "eur"} for i in range(220)]}
        status, accepted = hookline.api("POST", "/v1/events", {"type": "order.created", "data": data})
        assert status == 202
        # Then the stored item holds the body compressed, at a fraction of its size
        item = _stored(hookline, "acme", accepted["id"])
        assert "body" not in item
        packed = item["body_z"].value  # type: ignore[attr-defined]
        assert len(packed) < len(json.dumps(data)) / 4
        # And it reads back whole
        _, event = hookline.api("GET", f"/v1/events/{accepted['id']}")
        assert event["data"] == data
        # And the webhook carries the exact body that was signed
        hookline.drain()
        [got] = receiver.requests
        assert Webhook(ep["secret"]).verify(got.body, got.headers)["data"] == data


def test_a_small_body_is_stored_as_it_is(hookline: Hookline) -> None:
    status, accepted = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {"x": 1}})
    assert status == 202
    item = _stored(hookline, "acme", accepted["id"])
    assert "body_z" not in item
    assert json.loads(str(item["body"]))["data"] == {"x": 1}
