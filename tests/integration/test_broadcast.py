"""A broadcast through the real handlers over moto: the API stores it and queues one job, the replay function fans
it out a page of endpoints per job, and the delivery function sends each subscribed endpoint its webhook once."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import boto3
from boto3.dynamodb.conditions import Key

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.adapters.dynamo.ops import query_all
from hookline.core import ids
from hookline.core.models import Endpoint
from hookline.services.broadcast import PAGE
from hookline.wiring import topology
from tests.conftest import Hookline
from tests.support.events import sqs_event
from tests.support.receiver import running_receiver

CUSTOMERS = 500
STAMP = "2026-01-01T00:00:00.000Z"
BODY = {"type": "plan.changed", "data": {"notice": "prices change on 1 February"}, "id": "notice-2026-02"}


def _add_endpoints(hookline: Hookline, url: str) -> dict[str, str]:
    """500 customers' subscribed endpoints (written straight to the table: 500 API calls would only slow the test), and
    through the API the tenant's own two, an unsubscribed customer's, a disabled one and another tenant's; by id, a label."""
    repo = EndpointRepository(boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env]))
    labels: dict[str, str] = {}
    for i in range(CUSTOMERS):
        ep = Endpoint(
            id=ids.new_id(ids.ENDPOINT, 1_767_225_600_000 + i),
            tenant="acme",
            url=f"{url}/c{i:03d}",
            secret="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            event_types=("plan.changed",),
            created_at=STAMP,
            updated_at=STAMP,
            customer=f"c{i:03d}",
        )
        repo.create(ep)
        labels[ep.id] = f"c{i:03d}"
    for label, body, tenant in (
        ("own", {"url": f"{url}/own"}, "acme"),
        ("own-typed", {"url": f"{url}/own-typed", "event_types": ["plan.changed"]}, "acme"),
        ("unsubscribed", {"url": f"{url}/unsubscribed", "event_types": ["invoice.paid"]}, "acme"),
        ("disabled", {"url": f"{url}/disabled"}, "acme"),
        ("other-tenant", {"url": f"{url}/other-tenant"}, "globex"),
    ):
        status, created = hookline.api("POST", "/v1/endpoints", body, tenant=tenant)
        assert status == 201, created
        labels[created["id"]] = label
    [disabled] = [ep for ep, label in labels.items() if label == "disabled"]
    assert hookline.api("PATCH", f"/v1/endpoints/{disabled}", {"status": "disabled"})[0] == 200
    return labels


def _all_deliveries(hookline: Hookline, event_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The event as GET /v1/events/{id} shows it, and its deliveries, read page by page."""
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        status, shown = hookline.api("GET", f"/v1/events/{event_id}", query={"limit": "100", **({"cursor": cursor} if cursor else {})})
        assert status == 200, shown
        assert len(shown["deliveries"]) <= 100
        found += shown["deliveries"]
        cursor = shown["deliveries_next"]
        if not cursor:
            return shown, found


def _delivery_items(hookline: Hookline, event_id: str) -> int:
    """How many delivery items the event's collection holds, counted in the table (attempts and the event aside)."""
    table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
    return sum(
        1
        for item in query_all(table, KeyConditionExpression=Key(keys.PK).eq(keys.event_partition("acme", event_id)))
        if "#A#" not in item[keys.SK] and item[keys.SK].startswith(keys.DELIVERY_PREFIX)
    )


def test_a_broadcast_to_500_customers_reaches_each_subscribed_endpoint_once_and_its_repeat_creates_nothing(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        labels = _add_endpoints(hookline, receiver.url)
        subscribed = {label for label in labels.values() if label not in ("unsubscribed", "disabled", "other-tenant")}
        # When the tenant broadcasts
        status, answer = hookline.api("POST", "/v1/events/broadcast", BODY)
        # Then it is accepted at once, with one job queued and nothing delivered yet
        assert (status, answer) == (202, {"id": answer["id"], "status": "fanning_out"})
        assert hookline.queued(topology.DELIVERY_QUEUE) == []
        status, shown = hookline.api("GET", f"/v1/events/{answer['id']}")
        assert (status, shown["broadcast"]["status"], shown["deliveries"], shown["deliveries_next"]) == (200, "fanning_out", [], None)
        # When the replay function takes the first job: one page of endpoints
        [job] = hookline.queued(topology.REPLAY_QUEUE)
        hookline.handlers["replay"](sqs_event([job]), None)
        # Then the progress shows that page, still fanning out
        progress = hookline.api("GET", f"/v1/events/{answer['id']}")[1]["broadcast"]
        assert (progress["status"], progress["pages"], progress["endpoints_scanned"]) == ("fanning_out", 1, PAGE)
        # When the rest of the jobs and every delivery run
        hookline.pump()
        # Then each subscribed endpoint received the webhook exactly once, and no other endpoint did
        got = Counter(r.path.rsplit("/", 1)[-1] for r in receiver.requests)
        assert got == Counter(subscribed)
        assert len(got) == CUSTOMERS + 2
        assert {json.loads(r.body)["id"] for r in receiver.requests} == {answer["id"]}
        assert {r.headers["webhook-id"] for r in receiver.requests} == {answer["id"]}
        # And the event shows the finished fan-out and every delivery once, a page at a time
        shown, deliveries = _all_deliveries(hookline, answer["id"])
        assert shown["broadcast"] == {"status": "done", "pages": 6, "endpoints_scanned": CUSTOMERS + 4, "deliveries": CUSTOMERS + 3, "paused": 1}
        assert Counter(labels[d["endpoint_id"]] for d in deliveries) == Counter([*subscribed, "disabled"])
        assert Counter(d["status"] for d in deliveries) == {"succeeded": CUSTOMERS + 2, "paused": 1}

        # When the broadcast is repeated with its id
        assert hookline.api("POST", "/v1/events/broadcast", BODY) == (202, answer)
        # Then nothing is queued, created or sent
        assert hookline.queued(topology.REPLAY_QUEUE) == []
        assert hookline.pump() == 0
        assert _delivery_items(hookline, answer["id"]) == len(deliveries)
        assert hookline.api("GET", f"/v1/events/{answer['id']}")[1]["broadcast"] == shown["broadcast"]
        assert len(receiver.requests) == CUSTOMERS + 2
        # And the same id with another body is a conflict
        status, refused = hookline.api("POST", "/v1/events/broadcast", {**BODY, "data": {"notice": "changed"}})
        assert (status, refused["error"]["code"]) == (409, "idempotency_conflict")


def test_a_broadcast_names_no_customer_and_a_repeat_before_its_first_step_queues_the_job_again(hookline: Hookline) -> None:
    status, refused = hookline.api("POST", "/v1/events/broadcast", {**BODY, "customer": "c001"})
    assert (status, refused["error"]["code"]) == (422, "unknown_field")
    assert hookline.queued(topology.REPLAY_QUEUE) == []
    # Given a broadcast whose job has not run; When it is repeated, Then its job is queued again: harmless
    first = hookline.api("POST", "/v1/events/broadcast", BODY)
    assert hookline.api("POST", "/v1/events/broadcast", BODY) == first
    assert len(hookline.queued(topology.REPLAY_QUEUE)) == 2
    # And an ordinary event with the broadcast's id is a conflict
    assert hookline.api("POST", "/v1/events", BODY)[0] == 409
