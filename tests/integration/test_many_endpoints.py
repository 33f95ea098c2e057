"""A tenant with 100,000 endpoints costs what a tenant with 100 costs, request by request (issue 30, item 4).

Two tenants share one table over moto: one with 100 endpoints, one with 100,000 (in both, three of the tenant's own
and three of the customer `target`, made through the API; the rest 10 to a customer). Each goes through the same
phases, the real handlers every time: an event for a customer, the delivery of one of its tasks, an event for the
tenant's own endpoints, the API's endpoint list and a customer's (the portal's), the customer list, the sweeper
finding an event unqueued, and a broadcast (accepted, its first step, a page of its deliveries). A botocore hook
on the table's client counts each phase's reads as DynamoDB bills them (tests/support/reads.py: the items a
Query reads, those its filter drops included). They must be the same for both tenants: no read grows with the
endpoints a tenant has, and none is a Scan.

The extra endpoints and customers are copies, put straight into moto's table, of an endpoint and a customer the
API stored (tests/support/moto_bulk.py), and moto's queries look at the partition they name: through the API
and moto as they come, 100,000 would take minutes. Both tenants are past their first read of their own endpoints
(the mark that they are all in the customer-endpoints index is written and settled, as it is a minute after a
tenant's first event without a customer: tests/integration/test_customer_routing.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from freezegun import freeze_time

from hookline.adapters import aws
from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.unqueued import UnqueuedNoteRepository
from hookline.adapters.dynamo.waits import RetryWaitRepository
from hookline.core import ids
from hookline.core.sweeps import MINUTE_FORMAT, minutes_to_sweep
from hookline.core.versions import BASE_VERSION
from hookline.wiring import container, topology
from tests.conftest import Hookline
from tests.support.events import sqs_event
from tests.support.moto_bulk import moto_table, partitioned_queries, put_copies
from tests.support.reads import ReadMeter
from tests.support.receiver import Receiver, running_receiver

SIZES = {"small": 100, "large": 100_000}  # tenant: its endpoints
PER_OWNER = 3  # the customer `target`'s endpoints, and the tenant's own, made through the API
PER_CUSTOMER = 10  # each further customer's endpoints
PAGE = 100  # the endpoint list's page, and a broadcast step's
CUSTOMER_PAGE = 10  # the customer list's page: a full one for the small tenant too (it has 11 customers)
NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def _phases(hookline: Hookline, meter: ReadMeter, receiver: Receiver, tenant: str) -> Iterator[None]:
    """One tenant's phases, each metered as `<tenant>:<phase>`; each `yield` lets the other tenant run the same phase."""

    def api(method: str, path: str, body: Any = None, **query: str) -> Any:
        status, answer = hookline.api(method, path, body, tenant=tenant, **({"query": query} if query else {}))
        assert status < 300, (status, answer)
        return answer

    with meter.phase(f"{tenant}:an event for a customer"):
        accepted = api("POST", "/v1/events", {"type": "order.paid", "data": {"n": 1}, "customer": "target"})
    assert accepted["deliveries"] == PER_OWNER
    tasks = hookline.queued()
    yield
    with meter.phase(f"{tenant}:the delivery of one task"):
        result = hookline.deliver(tasks[:1])
    assert result.get("batchItemFailures", []) == []
    assert len(receiver.requests) == 1
    receiver.requests.clear()
    yield
    with meter.phase(f"{tenant}:an event for the tenant's own endpoints"):
        own_event = api("POST", "/v1/events", {"type": "order.paid", "data": {"n": 2}})
    assert own_event["deliveries"] == PER_OWNER
    hookline.queued()  # its tasks: the sweeper's phase queues them again
    yield
    with meter.phase(f"{tenant}:a page of the API's endpoint list"):
        page = api("GET", "/v1/endpoints", limit=str(PAGE))
    assert (len(page["items"]), bool(page["next"])) == (PAGE, SIZES[tenant] > PAGE)
    yield
    with meter.phase(f"{tenant}:a customer's endpoint list (the portal's)"):
        page = api("GET", "/v1/endpoints", customer="target")
    assert len(page["items"]) == PER_OWNER
    yield
    with meter.phase(f"{tenant}:a page of the customer list"):
        page = api("GET", "/v1/customers", limit=str(CUSTOMER_PAGE))
    assert len(page["items"]) == CUSTOMER_PAGE
    yield
    _note_unqueued(hookline, tenant, own_event["id"])
    with meter.phase(f"{tenant}:the sweeper's run"):
        report = hookline.handlers["jobs"]({"kind": "sweep"}, None)
    assert (report["unqueued_events"], report["queued_deliveries"]) == (1, PER_OWNER), report
    hookline.queued()
    yield
    # One tenant's broadcast at a time: each step is the one message on the job queue
    with meter.phase(f"{tenant}:a broadcast accepted"):
        broadcast = api("POST", "/v1/events/broadcast", {"type": "plan.changed", "data": {"n": 3}})
    [step] = hookline.queued(topology.JOBS_QUEUE)
    with meter.phase(f"{tenant}:a broadcast's first step"):
        hookline.handlers["jobs"](sqs_event([step], hookline.queue_arn(topology.JOBS_QUEUE)), None)
    hookline.queued()
    with meter.phase(f"{tenant}:a page of a broadcast's deliveries"):
        event = api("GET", f"/v1/events/{broadcast['id']}", limit="50")
    assert (event["broadcast"]["endpoints_scanned"], len(event["deliveries"])) == (PAGE, 50)
    yield


def _customers(endpoints: int) -> int:
    """The tenant's customers: `target` and one per PER_CUSTOMER of the endpoints beyond the API's."""
    return 1 + -(-(endpoints - 2 * PER_OWNER) // PER_CUSTOMER)


def _populate(hookline: Hookline, receiver: Receiver, tenant: str) -> None:
    """The customer `target` and its endpoints and the tenant's own through the API; the rest copies of them."""
    assert hookline.api("PUT", "/v1/customers/target", {"name": "Target"}, tenant=tenant)[0] == 201
    made = []
    for owner in ("target", None):
        for i in range(PER_OWNER):
            body = {"url": f"{receiver.url}/{owner or 'own'}/{i}", **({"customer": owner} if owner else {})}
            status, created = hookline.api("POST", "/v1/endpoints", body, tenant=tenant)
            assert status == 201, created
            made.append(created["id"])
    table = moto_table(hookline.env[topology.TABLE.env])
    more = SIZES[tenant] - len(made)
    uids = [f"c{n:05d}" for n in range(_customers(SIZES[tenant]) - 1)]
    put_copies(table, keys.customer(tenant, "target"), ({**keys.customer(tenant, uid), "uid": uid, "name": uid} for uid in uids))

    def endpoint(n: int) -> dict[str, str]:
        endpoint_id, uid = ids.derived_id(ids.ENDPOINT, tenant, str(n)), uids[n // PER_CUSTOMER]
        owner = {**keys.owner_keys(tenant, uid, endpoint_id), **keys.version_keys(tenant, BASE_VERSION, endpoint_id)}
        return {**keys.endpoint(tenant, endpoint_id), "id": endpoint_id, "customer": uid, **owner}

    assert put_copies(table, keys.endpoint(tenant, made[0]), (endpoint(n) for n in range(more))) == more
    # The copies are where the adapters look: a customer's in its partition of the customer-endpoints index
    status, page = hookline.api("GET", "/v1/endpoints", tenant=tenant, query={"customer": uids[-1]})
    assert (status, {e["customer"] for e in page["items"]}) == (200, {uids[-1]})
    # As a minute after the tenant's first event without a customer: its own endpoints are read from the index
    aws.dynamodb_table(hookline.env[topology.TABLE.env]).put_item(Item={**keys.own_endpoints_indexed(tenant), "tenant": tenant, "index_from": 0})


def _note_unqueued(hookline: Hookline, tenant: str, event_id: str) -> None:
    """Note the event as a request that failed before queueing it would, in the one minute the sweeper reads next."""
    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    settings = container.get_settings()
    now = datetime.now(UTC)
    due = minutes_to_sweep(None, now, timedelta(seconds=settings.sweep_grace_seconds))[-1]
    UnqueuedNoteRepository(table).open(tenant, [event_id], datetime.strptime(due, MINUTE_FORMAT).replace(tzinfo=UTC))
    UnqueuedNoteRepository(table).save_checkpoint(_minute_before(due))
    waits_due = minutes_to_sweep(None, now, timedelta(seconds=settings.sweep_wait_margin_seconds))[-1]
    RetryWaitRepository(table).save_checkpoint(_minute_before(waits_due))


def _minute_before(minute: str) -> str:
    return (datetime.strptime(minute, MINUTE_FORMAT) - timedelta(minutes=1)).strftime(MINUTE_FORMAT)


def test_a_tenant_with_100000_endpoints_reads_what_one_with_100_reads(hookline: Hookline, monkeypatch: pytest.MonkeyPatch) -> None:
    # The catalog is read with every request, not kept for a few seconds of real time: what a phase reads must not
    # depend on how fast the machine ran the one before
    monkeypatch.setenv("HOOKLINE_CATALOG_CACHE_SECONDS", "0")
    container.reset()
    table = aws.dynamodb_table(hookline.env[topology.TABLE.env])
    with freeze_time(NOW), partitioned_queries(), running_receiver() as receiver, ReadMeter(table.meta.client, most_items=PAGE) as meter:
        # Given a tenant with 100 endpoints and one with 100,000, each with its customers
        for tenant in SIZES:
            _populate(hookline, receiver, tenant)
        # When each goes through the same phases, phase by phase
        for _ in zip(*(_phases(hookline, meter, receiver, tenant) for tenant in SIZES), strict=True):
            pass
    # Then every phase read as much for the large tenant as for the small one, and nothing scanned the table
    names = [name.removeprefix("small:") for name in meter.names() if name.startswith("small:")]
    assert len(names) == 10
    compared = {name: (meter[f"small:{name}"], meter[f"large:{name}"]) for name in names}
    for name, (small, large) in compared.items():
        assert (large.requests, large.items) == (small.requests, small.items), f"{name}: {small.summary()} at 100 endpoints, {large.summary()} at 100,000"
        assert not large.of("Scan"), name
    # And no phase reads much more than a page of them
    assert max(large.items for _, large in compared.values()) <= PAGE + 10, {name: large.summary() for name, (_, large) in compared.items()}
