"""A broadcast through the real handlers over moto: the API stores it and starts its job, the jobs function fans it
out a page of endpoints per step of the job, and the delivery function sends each subscribed endpoint its webhook once;
the job (GET /v1/jobs/{id}) and the event (GET /v1/events/{id}) show the same progress. (3,200 endpoints run over the
fakes, tests/unit/services/test_broadcast.py: at that size moto alone would take minutes.)"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import boto3
import pytest
from boto3.dynamodb.conditions import Key

from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.endpoints import EndpointRepository
from hookline.adapters.dynamo.ops import query_all
from hookline.core import ids
from hookline.core.broadcast import fanout_job_id
from hookline.core.models import Endpoint
from hookline.services import broadcast
from hookline.wiring import topology
from tests.conftest import Hookline
from tests.support.events import sqs_event
from tests.support.receiver import running_receiver

PAGE = 10  # endpoints per fan-out step here (100 in the service): the paging is what is tested, and each delivery through moto costs ~80 ms
CUSTOMERS = 15  # two pages with the tenant's own four


@pytest.fixture(autouse=True)
def _small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(broadcast, "PAGE", PAGE)


STAMP = "2026-01-01T00:00:00.000Z"
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
BODY = {"type": "plan.changed", "data": {"notice": "prices change on 1 February"}, "id": "notice-2026-02"}


def _add_endpoints(hookline: Hookline, url: str) -> dict[str, str]:
    """CUSTOMERS customers' subscribed endpoints (written straight to the table: as many API calls would only slow the test), and
    through the API the tenant's own two, an unsubscribed customer's, a disabled one and another tenant's; by id, a label."""
    repo = EndpointRepository(boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env]))
    labels: dict[str, str] = {}
    for i in range(CUSTOMERS):
        ep = Endpoint(
            id=ids.new_id(ids.ENDPOINT, 1_767_225_600_000 + i),
            tenant="acme",
            url=f"{url}/c{i:03d}",
            secret=SECRET,
            event_types=("plan.changed",),
            created_at=STAMP,
            updated_at=STAMP,
            customer=f"c{i:03d}",
        )
        repo.create(ep, most=100)
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
        status, shown = hookline.api("GET", f"/v1/events/{event_id}", query={"limit": "10", **({"cursor": cursor} if cursor else {})})
        assert status == 200, shown
        assert len(shown["deliveries"]) <= 10
        found += shown["deliveries"]
        cursor = shown["deliveries_next"]
        if not cursor:
            return shown, found


def _delivery_items(hookline: Hookline, event_id: str) -> int:
    """How many delivery items of the event the table holds, counted in every endpoint's delivery log."""
    table = boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env])
    endpoints = query_all(table, KeyConditionExpression=Key(keys.PK).eq(keys.tenant_partition("acme")) & Key(keys.SK).begins_with(keys.ENDPOINT_PREFIX))
    return sum(
        1
        for ep in endpoints
        for partition in keys.endpoint_log_partitions("acme", ep["id"])
        for item in query_all(table, KeyConditionExpression=Key(keys.PK).eq(partition))
        if item["event_id"] == event_id
    )


def _progress(hookline: Hookline, answer: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The broadcast's job as GET /v1/jobs/{id} shows it, and its fan-out as GET /v1/events/{id} does; the two agree."""
    status, job = hookline.api("GET", f"/v1/jobs/{answer['job']['id']}")
    assert status == 200, job
    status, shown = hookline.api("GET", f"/v1/events/{answer['id']}")
    assert status == 200, shown
    fanout = shown["broadcast"]
    assert (job["kind"], job["event_id"], job["steps"]) == ("broadcast", answer["id"], fanout["pages"])
    counters = ("endpoints_scanned", "deliveries", "paused")
    assert {k: job["counts"].get(k, 0) for k in counters} == {k: fanout[k] for k in counters}
    assert (job["status"] == "done") == (fanout["status"] == "done")
    return job, fanout


def _step(hookline: Hookline) -> None:
    """The jobs function takes the job queue's one message: one step."""
    [message] = hookline.queued(topology.JOBS_QUEUE)
    assert json.loads(message["Body"])["kind"] == "job"
    assert hookline.handlers["jobs"](sqs_event([message]), None) == {"batchItemFailures": []}


def test_a_broadcast_to_many_customers_runs_as_a_job_reaching_each_subscribed_endpoint_once_and_its_repeat_creates_nothing(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        labels = _add_endpoints(hookline, receiver.url)
        subscribed = {label for label in labels.values() if label not in ("unsubscribed", "disabled", "other-tenant")}
        # When the tenant broadcasts
        status, answer = hookline.api("POST", "/v1/events/broadcast", BODY)
        # Then it is accepted at once with its job (its id derived from the event's), nothing delivered yet
        job_id = fanout_job_id("acme", answer["id"])
        assert (status, answer) == (202, {"id": answer["id"], "status": "fanning_out", "job": {"id": job_id, "status": "running"}})
        assert hookline.queued(topology.DELIVERY_QUEUE) == []
        job, fanout = _progress(hookline, answer)
        assert (job["status"], job["steps"], fanout["status"]) == ("running", 0, "fanning_out")
        assert hookline.api("GET", f"/v1/events/{answer['id']}")[1]["deliveries"] == []
        # When the jobs function takes the job's first step: one page of endpoints
        _step(hookline)
        # Then both views show that page, still running
        job, fanout = _progress(hookline, answer)
        assert (job["status"], fanout["status"], fanout["pages"], fanout["endpoints_scanned"]) == ("running", "fanning_out", 1, PAGE)
        # When the rest of the steps and every delivery run
        hookline.pump()
        # Then each subscribed endpoint received the webhook exactly once, and no other endpoint did
        got = Counter(r.path.rsplit("/", 1)[-1] for r in receiver.requests)
        assert got == Counter(subscribed)
        assert len(got) == CUSTOMERS + 2
        assert {json.loads(r.body)["id"] for r in receiver.requests} == {answer["id"]}
        assert {r.headers["webhook-id"] for r in receiver.requests} == {answer["id"]}
        # And the job is done, and the event shows the finished fan-out and every delivery once, a page at a time
        job, fanout = _progress(hookline, answer)
        done = {"status": "done", "pages": 2, "endpoints_scanned": CUSTOMERS + 4, "deliveries": CUSTOMERS + 3, "paused": 1}
        assert (job["status"], fanout) == ("done", done)
        shown, deliveries = _all_deliveries(hookline, answer["id"])
        assert shown["broadcast"] == done
        assert Counter(labels[d["endpoint_id"]] for d in deliveries) == Counter([*subscribed, "disabled"])
        assert Counter(d["status"] for d in deliveries) == {"succeeded": CUSTOMERS + 2, "paused": 1}

        # When the broadcast is repeated with its id
        assert hookline.api("POST", "/v1/events/broadcast", BODY) == (202, {**answer, "job": {"id": job_id, "status": "done"}})
        # Then nothing is queued, created or sent
        assert hookline.queued(topology.JOBS_QUEUE) == []
        assert hookline.pump() == 0
        assert _delivery_items(hookline, answer["id"]) == len(deliveries)
        assert _progress(hookline, answer)[1] == done
        assert len(receiver.requests) == CUSTOMERS + 2
        # And the same id with another body is a conflict
        status, refused = hookline.api("POST", "/v1/events/broadcast", {**BODY, "data": {"notice": "changed"}})
        assert (status, refused["error"]["code"]) == (409, "idempotency_conflict")


def test_a_broadcast_names_no_customer_and_a_repeat_before_its_first_step_queues_that_step_again(hookline: Hookline) -> None:
    status, refused = hookline.api("POST", "/v1/events/broadcast", {**BODY, "customer": "c001"})
    assert (status, refused["error"]["code"]) == (422, "unknown_field")
    assert hookline.queued(topology.JOBS_QUEUE) == []
    # Given a broadcast whose first step has not run; When it is repeated, Then that step is queued again: harmless
    hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/hook"})
    status, first = hookline.api("POST", "/v1/events/broadcast", BODY)
    assert status == 202
    assert hookline.api("POST", "/v1/events/broadcast", BODY) == (202, first)
    steps = hookline.queued(topology.JOBS_QUEUE)
    assert [json.loads(m["Body"])["step"] for m in steps] == [0, 0]
    # And the two copies take the one page once
    hookline.handlers["jobs"](sqs_event(steps), None)
    job, fanout = _progress(hookline, first)
    assert (job["status"], job["steps"], fanout["endpoints_scanned"], fanout["deliveries"]) == ("done", 1, 1, 1)
    assert len(hookline.queued(topology.DELIVERY_QUEUE)) == 1
    # And an ordinary event with the broadcast's id is a conflict
    assert hookline.api("POST", "/v1/events", BODY)[0] == 409


def test_the_previous_releases_broadcast_message_finishes_as_the_broadcasts_job(hookline: Hookline) -> None:
    repo = EndpointRepository(boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env]))
    for i in range(CUSTOMERS):
        ep_id = ids.new_id(ids.ENDPOINT, 1_767_225_600_000 + i)
        repo.create(Endpoint(id=ep_id, tenant="acme", url="https://example.com/hook", secret=SECRET, created_at=STAMP, updated_at=STAMP), most=100)
    # Given a broadcast as the previous release stored it: its event with the fan-out at step 0, no job, and its message
    status, answer = hookline.api("POST", "/v1/events/broadcast", BODY)
    assert status == 202
    hookline.queued(topology.JOBS_QUEUE)
    boto3.resource("dynamodb").Table(hookline.env[topology.TABLE.env]).delete_item(Key=keys.job("acme", answer["job"]["id"]))
    legacy = json.dumps({"kind": "broadcast", "tenant": "acme", "event_id": answer["id"]})
    sqs = boto3.client("sqs")
    for _ in range(2):  # at least once: SQS may hand it over twice
        sqs.send_message(QueueUrl=hookline.env[topology.JOBS_QUEUE.env], MessageBody=legacy)
    # When the jobs function takes it, and whatever it queues
    hookline.drain(topology.JOBS_QUEUE)
    # Then it started the broadcast's job, which fanned it out: one delivery per endpoint, each queued once, both views agreeing
    job, fanout = _progress(hookline, answer)
    assert (job["status"], fanout) == ("done", {"status": "done", "pages": 2, "endpoints_scanned": CUSTOMERS, "deliveries": CUSTOMERS, "paused": 0})
    assert _delivery_items(hookline, answer["id"]) == CUSTOMERS
    tasks = [json.loads(m["Body"]) for m in hookline.queued(topology.DELIVERY_QUEUE, max_messages=1000)]
    assert len(tasks) == len({t["delivery_id"] for t in tasks}) == CUSTOMERS
    # And the message again, after the job is done, starts nothing
    sqs.send_message(QueueUrl=hookline.env[topology.JOBS_QUEUE.env], MessageBody=legacy)
    assert hookline.drain(topology.JOBS_QUEUE) == 1
    assert _progress(hookline, answer)[0] == job
    assert hookline.queued(topology.DELIVERY_QUEUE) == []
