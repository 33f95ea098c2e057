"""Upgrading: the deliveries of events the previous release accepted, through the real handlers against moto.

That release kept an event's deliveries in the event's own partition, with ids that do not name their endpoint, and
listed every delivery in its keys-only endpoint-log index. This one keeps them in their endpoint's delivery log. Until
the earlier events expire, their deliveries are found, sent, retried and listed where that release kept them
(hookline.adapters.dynamo.events), while the events accepted now go to the log.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3

from hookline.adapters.dynamo import event_items, keys
from hookline.adapters.dynamo.events import EventRepository
from hookline.core import ids
from hookline.core.clock import epoch_ms, iso
from hookline.core.models import LAYOUT_ENDPOINT_KEYED, LAYOUT_EVENT_KEYED, Attempt, Delivery, DeliveryTask, Event, PlannedDelivery
from hookline.wiring import topology
from tests.conftest import Hookline
from tests.support.receiver import running_receiver

TENANT = "acme"


def _now() -> datetime:
    return datetime.now(UTC)


def _earlier_event(table: Any, endpoint_id: str, minutes_ago: int, n: int) -> tuple[Event, str]:
    """An event as the previous release stored it: no layout on its item, one delivery planned with a random id."""
    now = _now() - timedelta(minutes=minutes_ago)
    ms = epoch_ms(now)
    delivery_id = ids.new_id(ids.DELIVERY, ms)
    event = Event.accepted(
        ids.new_id(ids.EVENT, ms), TENANT, "order.updated", iso(now), {"n": n}, "h", deliveries=(PlannedDelivery(delivery_id, endpoint_id),), layout=1
    )
    EventRepository(table, topology.TABLE.ttl_attribute).create_event(event, _expires())
    table.update_item(Key=keys.event(TENANT, event.id), UpdateExpression="REMOVE #l", ExpressionAttributeNames={"#l": event_items.LAYOUT})
    return event, delivery_id


def _expires() -> int:
    return int((_now() + timedelta(days=30)).timestamp())


def _log(hookline: Hookline, ep: str, **query: str) -> tuple[list[dict[str, Any]], str | None]:
    status, page = hookline.api("GET", f"/v1/endpoints/{ep}/deliveries", query={"status": "all", "order": "desc", **query})
    assert status == 200, page
    return list(page["items"]), page["next"]


def test_an_earlier_release_s_deliveries_are_sent_retried_and_listed_where_it_kept_them(hookline: Hookline) -> None:
    table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
    with running_receiver() as receiver:
        status, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "rate_limit_per_second": 50})
        assert status == 201, ep
        # Given two events the previous release accepted: one whose delivery failed (its item in the event's partition,
        # with that release's log index keys and an attempt item), one whose delivery is only planned, its task queued
        failed_event, failed_id = _earlier_event(table, ep["id"], 30, 1)
        failed = failed_event.planned_delivery(failed_id)
        assert failed is not None and failed.layout == LAYOUT_EVENT_KEYED
        stored = Delivery(failed_id, TENANT, failed_event.id, ep["id"], "failed", 1, failed.created_at, failed.created_at, layout=LAYOUT_EVENT_KEYED)
        table.put_item(
            Item={
                **event_items.delivery_item(stored, topology.TABLE.ttl_attribute, _expires()),
                **keys.log_keys(TENANT, ep["id"], stored.created_at, failed_id),
            }
        )
        table.put_item(Item=event_items.attempt_item(stored, Attempt(1, stored.created_at, 400, None, 7, "failed", "client error"), "expires_at", _expires()))
        planned_event, planned_id = _earlier_event(table, ep["id"], 20, 2)
        task = DeliveryTask(TENANT, planned_event.id, planned_id, ep["id"], fresh=True)
        hookline.sqs.send_message(QueueUrl=hookline.env[topology.DELIVERY_QUEUE.env], MessageBody=task.to_message())

        # When the queued task is delivered, the failed one retried, and a new event accepted
        status, retried = hookline.api("POST", f"/v1/events/{failed_event.id}/deliveries/{failed_id}/retry")
        assert status == 202, retried
        status, accepted = hookline.api("POST", "/v1/events", {"type": "order.updated", "data": {"n": 3}})
        assert status == 202, accepted
        hookline.pump()
        assert sorted(json.loads(r.body)["data"]["n"] for r in receiver.requests) == [1, 2, 3]

    # Then each earlier delivery succeeded where that release kept it, and nothing of them went to the endpoint's log
    for event, delivery_id, attempts in ((failed_event, failed_id, [400, 200]), (planned_event, planned_id, [200])):
        status, detail = hookline.api("GET", f"/v1/events/{event.id}/deliveries/{delivery_id}")
        assert status == 200, detail
        assert (detail["status"], [a["status_code"] for a in detail["attempts"]]) == ("succeeded", attempts)
        assert table.get_item(Key=keys.delivery(TENANT, event.id, delivery_id, LAYOUT_EVENT_KEYED)).get("Item", {}).get("status") == "succeeded"
        assert "Item" not in table.get_item(Key=keys.delivery(TENANT, event.id, delivery_id))
    # And the new event's delivery is in the log, its id naming the endpoint
    _, new_event = hookline.api("GET", f"/v1/events/{accepted['id']}")
    [new] = new_event["deliveries"]
    assert new["status"] == "succeeded" and ids.endpoint_mark_of(TENANT, accepted["id"], new["id"]) == ids.endpoint_mark(ep["id"])
    assert table.get_item(Key=keys.delivery(TENANT, accepted["id"], new["id"], LAYOUT_ENDPOINT_KEYED))["Item"]["status"] == "succeeded"

    # And the endpoint's log lists all three, newest first: the log's, then the earlier release's from its index,
    # also one at a time, each once, and oldest first the other way round
    everything, nxt = _log(hookline, ep["id"], limit="10")
    assert nxt is None
    assert [d["event_id"] for d in everything] == [accepted["id"], planned_event.id, failed_event.id]
    for order in ("desc", "asc"):
        seen, cursor = [], None
        while True:
            page, cursor = _log(hookline, ep["id"], limit="1", order=order, **({"cursor": cursor} if cursor else {}))
            seen += page
            if not cursor:
                break
        assert [d["id"] for d in seen] == [d["id"] for d in (everything if order == "desc" else everything[::-1])]
    # And a window that holds only the earlier ones lists only them
    since = iso(_now() - timedelta(minutes=40))
    until = iso(_now() - timedelta(minutes=10))
    windowed, _ = _log(hookline, ep["id"], since=since, until=until)
    assert [d["event_id"] for d in windowed] == [planned_event.id, failed_event.id]


def test_a_delivery_the_earlier_release_stored_during_a_deploy_stays_where_it_stored_it(hookline: Hookline) -> None:
    table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
    with running_receiver() as receiver:
        status, ep = hookline.api("POST", "/v1/endpoints", {"url": receiver.url, "rate_limit_per_second": 50})
        assert status == 201, ep
        # Given two events this release accepted, whose first attempts the earlier release made during a deploy (both
        # releases running): it stored each delivery in the event's partition, as it keeps them, with its attempt
        accepted = [hookline.api("POST", "/v1/events", {"type": "order.updated", "data": {"n": n}})[1]["id"] for n in (1, 2)]
        assert len(hookline.queued()) == 2  # their first tasks, taken by the earlier release
        tasks = []
        for event_id, fresh in zip(accepted, (True, False), strict=True):
            _, shown = hookline.api("GET", f"/v1/events/{event_id}")
            planned = Delivery(shown["deliveries"][0]["id"], TENANT, event_id, ep["id"], "pending", 1, iso(_now()), iso(_now()), layout=LAYOUT_EVENT_KEYED)
            table.put_item(Item=event_items.delivery_item(planned, topology.TABLE.ttl_attribute, _expires()))
            table.put_item(Item=event_items.attempt_item(planned, Attempt(1, iso(_now()), 503, None, 9, "retrying", "server error"), "expires_at", _expires()))
            # and queued its retry: one read on its first receive (fresh), one that claims
            tasks.append(DeliveryTask(TENANT, event_id, planned.id, ep["id"], attempt=2, fresh=fresh))
        for task in tasks:
            hookline.sqs.send_message(QueueUrl=hookline.env[topology.RETRY_QUEUE.env], MessageBody=task.to_message())

        # When this release receives the retries
        hookline.pump()
        assert len(receiver.requests) == 2

    # Then each delivery is recorded where the earlier release stored it, with both attempts, and nothing in the log
    for task in tasks:
        status, detail = hookline.api("GET", f"/v1/events/{task.event_id}/deliveries/{task.delivery_id}")
        assert status == 200, detail
        assert (detail["status"], [a["status_code"] for a in detail["attempts"]]) == ("succeeded", [503, 200])
        assert "Item" not in table.get_item(Key=keys.delivery(TENANT, task.event_id, task.delivery_id))
    # And the endpoint's log lists each once
    everything, _ = _log(hookline, ep["id"])
    assert sorted(d["id"] for d in everything) == sorted(t.delivery_id for t in tasks)
