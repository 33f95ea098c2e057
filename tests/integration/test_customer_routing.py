"""Routing by customer through the real handlers over moto: the API, the delivery function and the replay
function's delete job. No event ever reaches another customer's endpoint."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import boto3
from botocore.exceptions import ClientError
from freezegun import freeze_time

from hookline.adapters import aws
from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.customers import CustomerRepository
from hookline.adapters.dynamo.endpoints import OWN_INDEX_SETTLE_SECONDS, EndpointRepository
from hookline.core.customers import deletion_job_id
from hookline.services.bulk import DELETE_PAGE
from hookline.wiring import topology
from local.resources import create_table
from tests.conftest import Hookline
from tests.fakes.contracts import endpoint
from tests.support.reads import ReadMeter
from tests.support.receiver import running_receiver

START = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def test_events_reach_exactly_their_customers_endpoints_through_the_api(hookline: Hookline) -> None:
    with running_receiver() as receiver:
        # Given customers A and B of acme, each with two endpoints, acme's own two, and another tenant's A
        for tenant, uid in (("acme", "A"), ("acme", "B"), ("other", "A")):
            assert hookline.api("PUT", f"/v1/customers/{uid}", {"name": f"Customer {uid}"}, tenant=tenant)[0] == 201
        named: dict[str, str] = {}
        for tenant, owner, name in (
            ("acme", "A", "A1"),
            ("acme", "A", "A2"),
            ("acme", "B", "B1"),
            ("acme", "B", "B2"),
            ("acme", None, "own1"),
            ("acme", None, "own2"),
            ("other", "A", "other-A"),
        ):
            body = {"url": f"{receiver.url}/{name}", **({"customer": owner} if owner else {})}
            status, created = hookline.api("POST", "/v1/endpoints", body, tenant=tenant)
            assert status == 201
            named[created["id"]] = name
        # When events are sent for A, for B and for nobody, one by one and in a batch
        sent: dict[str, str] = {}
        for label, customer in (("for-A", "A"), ("for-B", "B"), ("for-none", None)):
            body = {"type": "invoice.paid", "data": {"label": label}, **({"customer": customer} if customer else {})}
            status, answer = hookline.api("POST", "/v1/events", body)
            assert (status, answer["deliveries"]) == (202, 2)
            sent[label] = answer["id"]
        batch = [{"type": "invoice.paid", "data": {"label": f"batch-{c}"}, **({"customer": c} if c else {})} for c in ("B", None, "A")]
        status, answer = hookline.api("POST", "/v1/events/batch", {"events": batch})
        assert (status, [r["deliveries"] for r in answer["results"]]) == (202, [2, 2, 2])
        # (a receiver slowed by a loaded machine may have its next tasks deferred to the retry lane for a moment)
        hookline.pump_until(lambda: len(receiver.requests) >= 12)
        # Then each endpoint received exactly the events of its own owner, once each
        got = sorted((r.path.rsplit("/", 1)[-1], json.loads(r.body)["data"]["label"]) for r in receiver.requests)
    assert got == sorted(
        [(ep, label) for ep in ("A1", "A2") for label in ("for-A", "batch-A")]
        + [(ep, label) for ep in ("B1", "B2") for label in ("for-B", "batch-B")]
        + [(ep, label) for ep in ("own1", "own2") for label in ("for-none", "batch-None")]
    )
    # And each event's log shows its customer and only its owner's endpoints
    for label, customer in (("for-A", "A"), ("for-none", None)):
        status, event = hookline.api("GET", f"/v1/events/{sent[label]}")
        assert (status, event["customer"]) == (200, customer)
        assert sorted(named[d["endpoint_id"]] for d in event["deliveries"]) == (["A1", "A2"] if customer else ["own1", "own2"])


def test_a_known_customer_without_endpoints_keeps_its_event_and_an_unknown_one_is_404(hookline: Hookline) -> None:
    assert hookline.api("PUT", "/v1/customers/quiet", {"name": "Quiet"})[0] == 201
    status, answer = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}, "customer": "quiet"})
    assert (status, answer["deliveries"]) == (202, 0)
    assert hookline.api("GET", f"/v1/events/{answer['id']}")[1]["customer"] == "quiet"
    status, refused = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}, "customer": "loud"})
    assert (status, refused["error"]["code"]) == (404, "customer_not_found")
    assert hookline.queued() == []


def test_deleting_a_customer_with_many_endpoints_finishes_in_the_replay_functions_paged_job(hookline: Hookline) -> None:
    # Given a customer with more endpoints than one request deletes, and an endpoint of acme's own
    assert hookline.api("PUT", "/v1/customers/big", {"name": "Big"})[0] == 201
    for i in range(DELETE_PAGE + 20):
        assert hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/big/{i}", "customer": "big"})[0] == 201
    own = hookline.api("POST", "/v1/endpoints", {"url": "https://example.com/own"})[1]
    # When it is deleted, Then the answer is 202 naming the job, and the customer is gone at once
    status, answer = hookline.api("DELETE", "/v1/customers/big")
    assert (status, answer["job"]["status"]) == (202, "running")
    assert hookline.api("GET", "/v1/customers/big")[0] == 404
    # And once the jobs function has run the job's steps (a page each), none of its endpoints is left, and acme's own is
    assert hookline.drain(topology.JOBS_QUEUE) == 2
    status, page = hookline.api("GET", "/v1/endpoints", query={"limit": "100"})
    assert (status, [e["id"] for e in page["items"]]) == (200, [own["id"]])
    status, job = hookline.api("GET", f"/v1/jobs/{answer['job']['id']}")
    assert (status, job["status"], job["counts"], job["steps"]) == (200, "done", {"endpoints_deleted": DELETE_PAGE + 20}, 2)


def test_an_endpoint_stored_before_the_customer_index_still_gets_the_tenants_own_events(hookline: Hookline) -> None:
    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    with freeze_time(START) as frozen, running_receiver() as receiver, ReadMeter(table.meta.client) as meter:
        # Given an endpoint as an older version stored it: no customer, and none of the customer-endpoints index's keys
        status, created = hookline.api("POST", "/v1/endpoints", {"url": f"{receiver.url}/legacy"})
        assert status == 201
        table.update_item(Key=keys.endpoint("acme", created["id"]), UpdateExpression=f"REMOVE {keys.GSI2_PK}, {keys.GSI2_SK}")
        assert keys.GSI2_PK not in table.get_item(Key=keys.endpoint("acme", created["id"]))["Item"]
        # And a customer's endpoint
        assert hookline.api("PUT", "/v1/customers/A", {"name": "A"})[0] == 201
        assert hookline.api("POST", "/v1/endpoints", {"url": f"{receiver.url}/A", "customer": "A"})[0] == 201
        # When the tenant sends an event of its own
        with meter.phase("first"):
            status, answer = hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})
        # Then that endpoint is among its deliveries, found in the tenant's partition of the table
        assert (status, answer["deliveries"]) == (202, 1)
        assert [r.partition for r in meter["first"].of("Query")] == [keys.tenant_partition("acme")]
        # And it now carries its index keys, and the tenant is marked: its own are read from the index a minute on
        assert table.get_item(Key=keys.endpoint("acme", created["id"]))["Item"][keys.GSI2_PK] == keys.owner_partition("acme", None)
        mark = table.get_item(Key=keys.own_endpoints_indexed("acme"))["Item"]
        assert float(mark["index_from"]) == START.timestamp() + OWN_INDEX_SETTLE_SECONDS
        # When it sends another within that minute, and one more after it
        with meter.phase("within the minute"):
            assert hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})[1]["deliveries"] == 1
        frozen.tick(OWN_INDEX_SETTLE_SECONDS)
        with meter.phase("after it"):
            assert hookline.api("POST", "/v1/events", {"type": "a.b", "data": {}})[1]["deliveries"] == 1
        hookline.pump()
    # Then within the minute the tenant's partition was read again, after it only the index's partition of its own
    assert [r.partition for r in meter["within the minute"].of("Query")] == [keys.tenant_partition("acme")]
    assert [(r.index, r.partition) for r in meter["after it"].of("Query")] == [(keys.CUSTOMER_INDEX, keys.owner_partition("acme", None))]
    # And the endpoint received all three events, and the customer's none
    assert [r.path.rsplit("/", 1)[-1] for r in receiver.requests] == ["legacy"] * 3


def test_a_mark_the_table_refused_is_written_by_the_next_read_of_the_tenants_own(aws: None) -> None:
    # Given a tenant's own endpoint, and a table that refuses the next PutItem (throttled)
    table = boto3.resource("dynamodb").Table(create_table(boto3.client("dynamodb"), topology.TABLE, "marks"))
    repo = EndpointRepository(table)
    repo.create(endpoint("ep_01"), most=100)
    refused: list[str] = []

    def refuse_once(**_: Any) -> None:
        if not refused:
            refused.append("PutItem")
            raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException", "Message": "injected"}}, "PutItem")

    table.meta.client.meta.events.register("before-call.dynamodb.PutItem", refuse_once)
    # When the tenant's own are read, Then they come back all the same, and the tenant is not marked
    assert [e.id for e in repo.all_of_owner("acme", None)] == ["ep_01"]
    assert refused == ["PutItem"]
    assert "Item" not in table.get_item(Key=keys.own_endpoints_indexed("acme"))
    # When they are read again, Then they come back again, and the mark is written
    assert [e.id for e in repo.all_of_owner("acme", None)] == ["ep_01"]
    assert table.get_item(Key=keys.own_endpoints_indexed("acme"))["Item"]["tenant"] == "acme"


def test_the_previous_releases_deletion_page_on_the_job_queue_finishes_as_a_job(hookline: Hookline) -> None:
    # Given a customer's endpoints, and the page message the previous release queued when it deleted the customer
    assert hookline.api("PUT", "/v1/customers/old", {"name": "Old"})[0] == 201
    created_at = hookline.api("GET", "/v1/customers/old")[1]["created_at"]
    for i in range(3):
        assert hookline.api("POST", "/v1/endpoints", {"url": f"https://example.com/old/{i}", "customer": "old"})[0] == 201
    boto3.client("sqs").send_message(
        QueueUrl=hookline.env[topology.JOBS_QUEUE.env],
        MessageBody=json.dumps({"kind": "delete_customer_endpoints", "tenant": "acme", "customer": "old", "created_at": created_at, "cursor": ""}),
    )
    CustomerRepository(aws.dynamodb_table(hookline.env[topology.TABLE.env])).delete("acme", "old")  # as the previous release did
    # When the jobs function runs the job queue, Then the endpoints are gone, by the customer's deletion job
    hookline.drain(topology.JOBS_QUEUE)
    assert hookline.api("GET", "/v1/endpoints")[1]["items"] == []
    job = hookline.api("GET", f"/v1/jobs/{deletion_job_id('acme', 'old', created_at)}")[1]
    assert (job["status"], job["counts"]) == ("done", {"endpoints_deleted": 3})
