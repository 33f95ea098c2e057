"""A polling endpoint's mailbox over moto (hookline.adapters.dynamo.mailbox, hookline.services.polling): where puts
land, what a poll reads with its one query, and what it acknowledges."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.mailbox import Mailbox
from hookline.adapters.dynamo.poll_tokens import PollTokenRepository
from hookline.adapters.dynamo.stats import StatsRepository
from hookline.core import ids, polling
from hookline.core.access import Principal
from hookline.core.clock import iso
from hookline.core.destinations import Destination
from hookline.core.models import Endpoint
from hookline.core.webhook import Outbound
from hookline.services.polling import PollService
from hookline.wiring import topology
from tests.conftest import Hookline

TENANT = "acme"
ACCEPTED = datetime(2026, 12, 8, 12, 0, 0, tzinfo=UTC)
ENDPOINT = Endpoint("ep_01kkntq2cnt8b8hz3pj95wjvcc", TENANT, "", "whsec_x", destination=Destination("poll", ""))


@dataclass
class Counting:
    """The table, counting the queries made through it."""

    table: Any
    queries: list[dict[str, Any]] = field(default_factory=list)

    def query(self, **request: Any) -> Any:
        self.queries.append(request)
        return self.table.query(**request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.table, name)


@dataclass
class Clock:
    now: datetime

    def __call__(self) -> datetime:
        return self.now


class Endpoints:
    def get(self, tenant: str, endpoint_id: str) -> Endpoint | None:
        return ENDPOINT if (tenant, endpoint_id) == (TENANT, ENDPOINT.id) else None


def _outbound(n: int) -> Outbound:
    event_id = f"evt_{n:026d}"
    created = iso(ACCEPTED + timedelta(milliseconds=n))
    delivery = ids.delivery_id(TENANT, event_id, ENDPOINT.id, int((ACCEPTED + timedelta(milliseconds=n)).timestamp() * 1000))
    return Outbound(f'{{"n":{n}}}'.encode(), {"webhook-id": event_id, "webhook-signature": "v1,x"}, event_id, "a.b", created, None, ENDPOINT.id, delivery)


def test_a_poll_is_one_query_and_acknowledges_the_page_it_moves_past(hookline: Hookline) -> None:
    table = Counting(boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env]))
    clock = Clock(ACCEPTED)
    mailbox = Mailbox(table, clock, retention_days=30)
    stats = StatsRepository(table.table)
    service = PollService(Endpoints(), mailbox, PollTokenRepository(table), clock, stats)
    # Given five webhooks put on time, in the order the workers happened to put them (not their acceptance order),
    # each delivery's item written as its recorded attempt writes it
    for n in (2, 0, 1, 4, 3):
        message = _outbound(n)
        assert mailbox.send(ENDPOINT, message).status_code == 202
        table.put_item(Item={**keys.delivery(TENANT, message.event_id, message.delivery_id), "status": "succeeded"})
    who = Principal(TENANT, poll_endpoint=ENDPOINT.id)
    # When polled before they settled, nothing is read yet
    assert service.poll(who, ENDPOINT.id, None, 2) == {"webhooks": [], "cursor": None, "done": True}
    # When polled once they settled, pages of 2 come in order of acceptance, each poll one query
    clock.now = ACCEPTED + timedelta(seconds=polling.SETTLE_SECONDS + 1)
    table.queries.clear()
    first = service.poll(who, ENDPOINT.id, None, 2)
    second = service.poll(who, ENDPOINT.id, first["cursor"], 2)
    assert [json.loads(w["body"])["n"] for w in first["webhooks"] + second["webhooks"]] == [0, 1, 2, 3]
    assert (first["done"], second["done"], len(table.queries)) == (False, False, 2)
    # And the second poll acknowledged the first page: its deliveries have polled_at, the others not yet
    polled = {m.event_id: _polled_at(table, m) for m in map(_outbound, range(5))}
    assert [bool(polled[f"evt_{n:026d}"]) for n in range(5)] == [True, True, False, False, False]
    assert stats.window(TENANT, ENDPOINT.id, ACCEPTED, clock.now)["polled"] == 2
    # And a late put (a retry, a replay) lands past every cursor given out: the next poll still reads it
    late = Outbound(b'{"n":9}', {}, "evt_late", "a.b", iso(ACCEPTED), None, ENDPOINT.id, "")
    clock.now += timedelta(seconds=1)
    mailbox.send(ENDPOINT, late)
    clock.now += timedelta(seconds=polling.SETTLE_SECONDS + 1)
    third = service.poll(who, ENDPOINT.id, second["cursor"], 2)
    fourth = service.poll(who, ENDPOINT.id, third["cursor"], 2)
    assert [w["id"] for w in third["webhooks"] + fourth["webhooks"]] == [_outbound(4).event_id, "evt_late"]
    assert third["webhooks"][-1]["delivery_id"] is None and (fourth["webhooks"], fourth["done"]) == ([], True)  # a test event's: no delivery
    # And the page before is acknowledged too; a cursor kept from earlier (a restart) reads from where it was, again
    assert all(_polled_at(table, _outbound(n)) for n in (2, 3))
    again = service.poll(who, ENDPOINT.id, first["cursor"], 2)
    assert [json.loads(w["body"])["n"] for w in again["webhooks"]] == [2, 3]
    assert _polled_at(table, _outbound(0)) == iso(ACCEPTED + timedelta(seconds=polling.SETTLE_SECONDS + 1))  # the first poll's time kept
    # And the statistics count each of the five deliveries once (the fourth poll moved past the last one), however
    # often a page is acknowledged again
    again_past = service.poll(who, ENDPOINT.id, again["cursor"], 2)
    assert [json.loads(w["body"])["n"] for w in again_past["webhooks"]] == [4, 9]
    assert stats.window(TENANT, ENDPOINT.id, ACCEPTED, clock.now)["polled"] == 5


def test_the_poll_service_is_forgotten_with_every_other_one(hookline: Hookline) -> None:
    # Given the composition root's poll service, built over this moto (local mode restarts on another)
    from hookline.wiring import container

    built = container.poll_service()
    assert container.poll_service() is built
    # When the root is reset, then every cached service is forgotten, the poll service too
    container.reset()
    cached = {name: getter.cache_info().currsize for name, getter in vars(container).items() if hasattr(getter, "cache_info")}
    assert {name: size for name, size in cached.items() if size} == {}
    assert container.poll_service() is not built


def _polled_at(table: Any, message: Outbound) -> str:
    item = table.get_item(Key=keys.delivery(TENANT, message.event_id, message.delivery_id), ConsistentRead=True)["Item"]
    return str(item.get("polled_at", ""))
