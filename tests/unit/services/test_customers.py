"""CustomerService and the customer side of EndpointService over in-memory fakes: create or replace,
read, list, delete with the endpoints (paged through a job), statistics, and the ceiling on endpoints."""

from __future__ import annotations

import pytest

from hookline.core.contract.customers import PutCustomer
from hookline.core.contract.endpoints import CreateEndpoint, UpdateEndpoint
from hookline.core.customers import DEFAULT_CUSTOMER_CONCURRENCY, DEFAULT_CUSTOMER_RATE_PER_SECOND, Customer, CustomerLimits
from hookline.core.errors import NotFound, Unavailable, ValidationFailed
from hookline.core.models import Endpoint
from hookline.core.stats import attempt_counts, hour_of
from hookline.services.bulk import DELETE_PAGE
from tests.unit.services.conftest import World

ACME = PutCustomer.model_validate({"name": "Acme Corp", "email": "ops@acme.example.com", "metadata": {"plan": "pro"}})


def _customer(world: World, uid: str = "acme-co", tenant: str = "acme", **limits: float) -> Customer:
    stamp = "2026-11-29T11:00:00.000Z"
    customer = Customer(tenant, uid, uid.title(), limits=CustomerLimits(**limits), created_at=stamp, updated_at=stamp)  # type: ignore[arg-type]
    return world.customers.put(customer)[0]


# -- PUT, GET, list ------------------------------------------------------------------------------------


def test_put_creates_then_replaces_and_a_repeat_changes_nothing(world: World) -> None:
    service = world.customer_service()
    # When a customer is put for the first time
    created, was_created = service.put("acme", "acme-co", ACME)
    # Then it is created with the clock's time and the default limits
    assert was_created
    assert created.model_dump() == {
        "uid": "acme-co",
        "name": "Acme Corp",
        "email": "ops@acme.example.com",
        "metadata": {"plan": "pro"},
        "limits": {"max_rate_per_second": DEFAULT_CUSTOMER_RATE_PER_SECOND, "max_concurrency": DEFAULT_CUSTOMER_CONCURRENCY},
        "created_at": "2026-11-29T12:00:00.000Z",
        "updated_at": "2026-11-29T12:00:00.000Z",
    }
    # When the same body is put again later, Then it answers as before and writes nothing
    world.clock.advance(60)
    world.customers.faults.fail("put")
    assert service.put("acme", "acme-co", ACME) == (created, False)
    world.customers.faults.heal()
    # When another body is put, Then the customer is replaced (not created): the email is gone, the creation time stays
    replaced, was_created = service.put("acme", "acme-co", PutCustomer.model_validate({"name": "Acme", "limits": {"max_concurrency": 3}}))
    assert not was_created
    assert (replaced.email, replaced.metadata.root, replaced.limits.model_dump()) == (
        None,
        {},
        {"max_rate_per_second": DEFAULT_CUSTOMER_RATE_PER_SECOND, "max_concurrency": 3},
    )
    assert (replaced.created_at, replaced.updated_at) == ("2026-11-29T12:00:00.000Z", "2026-11-29T12:01:00.000Z")
    assert service.get("acme", "acme-co") == replaced


def test_a_customer_is_the_tenants_own(world: World) -> None:
    world.customer_service().put("acme", "acme-co", ACME)
    with pytest.raises(NotFound) as missing:
        world.customer_service().get("other", "acme-co")
    assert missing.value.code == "customer_not_found"
    with pytest.raises(NotFound):
        world.customer_service().get("acme", "no#such")
    with pytest.raises(ValidationFailed):
        world.customer_service().put("acme", "no#such", ACME)


def test_customers_are_listed_in_pages(world: World) -> None:
    for uid in ("c", "a", "b"):
        _customer(world, uid)
    _customer(world, "z", tenant="other")
    first = world.customer_service().list("acme", 2, None)
    rest = world.customer_service().list("acme", 2, first.next)
    assert [c.uid for c in first.items + rest.items] == ["a", "b", "c"]
    assert rest.next is None


# -- endpoints of a customer -----------------------------------------------------------------------------


def test_an_endpoint_is_created_for_a_known_customer_only(world: World) -> None:
    _customer(world)
    service = world.endpoint_service()
    created = service.create("acme", CreateEndpoint(url="https://example.com/hook", customer="acme-co"))
    assert created.customer == "acme-co"
    assert world.endpoints.get("acme", created.id).customer == "acme-co"
    assert service.create("acme", CreateEndpoint(url="https://example.com/own")).customer is None
    with pytest.raises(NotFound) as missing:
        service.create("acme", CreateEndpoint(url="https://example.com/hook", customer="nobody"))
    assert missing.value.code == "customer_not_found"
    with pytest.raises(NotFound):
        service.create("other", CreateEndpoint(url="https://example.com/hook", customer="acme-co"))
    assert len(world.endpoints.items) == 2


def test_an_endpoints_limits_stay_under_its_customers_ceiling(world: World) -> None:
    _customer(world, max_rate_per_second=4.0, max_concurrency=2)
    service = world.endpoint_service()
    # Given no limits, an endpoint takes the defaults lowered to the ceiling
    created = service.create("acme", CreateEndpoint(url="https://example.com/hook", customer="acme-co"))
    assert (created.rate_limit_per_second, created.max_concurrency) == (4.0, 2)
    # Above the ceiling, at creation and by a change, it is refused naming the ceiling
    with pytest.raises(ValidationFailed, match=r"above the customer's ceiling of 4 \(limits.max_rate_per_second\)") as refused:
        service.create("acme", CreateEndpoint(url="https://example.com/hook", customer="acme-co", rate_limit_per_second=5))
    assert refused.value.code == "above_customer_limit"
    with pytest.raises(ValidationFailed, match=r"'max_concurrency' 3 is above the customer's ceiling of 2"):
        service.update("acme", created.id, UpdateEndpoint(max_concurrency=3))
    assert service.update("acme", created.id, UpdateEndpoint(rate_limit_per_second=1.5)).rate_limit_per_second == 1.5
    # When the ceiling is lowered below the endpoint's settings, other changes still pass
    world.customers.put(Customer("acme", "acme-co", "Acme", limits=CustomerLimits(1.0, 1)))
    assert service.update("acme", created.id, UpdateEndpoint(description="still mine")).description == "still mine"
    # The tenant's own endpoints have no ceiling but the endpoint maximum
    assert service.create("acme", CreateEndpoint(url="https://example.com/own", rate_limit_per_second=400)).rate_limit_per_second == 400


def test_the_endpoint_list_filters_by_customer(world: World) -> None:
    _customer(world, "a")
    _customer(world, "b")
    mine = [world.add_endpoint(customer="a") for _ in range(3)]
    world.add_endpoint(customer="b")
    world.add_endpoint()
    service = world.endpoint_service()
    first = service.list("acme", 2, None, customer="a")
    rest = service.list("acme", 2, first.next, customer="a")
    assert [e.id for e in first.items + rest.items] == sorted(e.id for e in mine)
    assert len(service.list("acme", 10, None).items) == 5
    with pytest.raises(NotFound):
        service.list("acme", 10, None, customer="c")


# -- DELETE ------------------------------------------------------------------------------------------------


def _endpoints_of(world: World, customer: str | None) -> list[Endpoint]:
    return [e for e in world.endpoints.items.values() if e.customer == customer]


def test_deleting_a_customer_deletes_its_endpoints_and_no_others_by_a_job(world: World) -> None:
    _customer(world, "a")
    _customer(world, "b")
    for owner in ("a", "a", "b", None):
        world.add_endpoint(customer=owner)
    world.add_endpoint(tenant="other", customer="a")
    # When it is deleted, Then the customer is gone at once and the answer names the job deleting its endpoints
    job = world.customer_service().delete("acme", "a").job
    assert world.customers.get("acme", "a") is None
    assert job.status == "running" and len(_endpoints_of(world, "a")) == 3
    assert world.run_jobs() == 1
    assert _endpoints_of(world, "a") == [e for e in world.endpoints.items.values() if e.tenant == "other"]
    assert len(_endpoints_of(world, "b")) == len(_endpoints_of(world, None)) == 1
    assert world.job_runner().describe("acme", job.id).model_dump() | {"created_at": "", "updated_at": ""} == {
        "id": job.id,
        "kind": "delete_customer_endpoints",
        "status": "done",
        "steps": 1,
        "counts": {"endpoints_deleted": 2},
        "customer": "a",
        "customer_created_at": "2026-11-29T11:00:00.000Z",
        "created_at": "",
        "updated_at": "",
    }
    with pytest.raises(NotFound):
        world.customer_service().delete("acme", "a")


def test_a_customer_with_thousands_of_endpoints_is_deleted_a_page_per_step(world: World) -> None:
    _customer(world, "big")
    for _ in range(2 * DELETE_PAGE + 5):
        world.add_endpoint(customer="big")
    world.add_endpoint()
    # When it is deleted, Then the request deletes none of them itself: the job does, a page per step
    job = world.customer_service().delete("acme", "big").job
    assert len(_endpoints_of(world, "big")) == 2 * DELETE_PAGE + 5
    assert world.run_jobs() == 3
    assert _endpoints_of(world, "big") == []
    assert len(_endpoints_of(world, None)) == 1
    progress = world.job_runner().describe("acme", job.id)
    assert (progress.status, progress.steps, progress.counts) == ("done", 3, {"endpoints_deleted": 2 * DELETE_PAGE + 5})


def test_a_step_run_twice_is_counted_once(world: World) -> None:
    _customer(world, "big")
    for _ in range(DELETE_PAGE + 1):
        world.add_endpoint(customer="big")
    job = world.customer_service().delete("acme", "big").job
    # Given the first step's message delivered twice (SQS at least once)
    world.jobs.sent.append(world.jobs.sent[0])
    assert world.run_jobs() == 3  # the duplicate's advance loses, so its chain ends
    progress = world.job_runner().describe("acme", job.id)
    assert (progress.status, progress.steps, progress.counts) == ("done", 2, {"endpoints_deleted": DELETE_PAGE + 1})
    assert _endpoints_of(world, "big") == []


def test_a_customer_created_again_under_the_uid_keeps_its_new_endpoints_and_none_of_the_old(world: World) -> None:
    _customer(world, "big")
    for _ in range(DELETE_PAGE + 1):
        world.add_endpoint(customer="big")
    world.customer_service().delete("acme", "big")
    # Given the uid created again, with an endpoint of its own, before the job runs
    world.clock.advance(5)
    world.customer_service().put("acme", "big", PutCustomer(name="Big again"))
    new = world.add_endpoint(customer="big")
    # When the job runs, Then every endpoint of the old customer is gone, and the new one's stays
    assert world.run_jobs() == 2
    assert _endpoints_of(world, "big") == [new]


def test_a_delete_that_fails_midway_answers_503_and_a_repeat_starts_no_second_job(world: World) -> None:
    _customer(world, "a")
    for _ in range(3):
        world.add_endpoint(customer="a")
    world.customers.faults.fail("delete", times=1)
    with pytest.raises(Unavailable):
        world.customer_service().delete("acme", "a")
    assert world.customers.get("acme", "a") is not None
    first = world.jobs.bodies()
    job = world.customer_service().delete("acme", "a").job
    assert world.customers.get("acme", "a") is None
    assert world.jobs.bodies() == first * 2  # the same job, its first step queued again (harmless)
    assert world.run_jobs() == 2 and _endpoints_of(world, "a") == []
    assert world.job_runner().describe("acme", job.id).counts == {"endpoints_deleted": 3}


# -- statistics ------------------------------------------------------------------------------------------------


def test_customer_stats_add_up_its_endpoints_and_no_others(world: World) -> None:
    _customer(world, "a")
    _customer(world, "b")
    one, two = world.add_endpoint(customer="a"), world.add_endpoint(customer="a")
    theirs, own = world.add_endpoint(customer="b"), world.add_endpoint()
    hour = hour_of(world.clock())
    for endpoint, succeeded in ((one, True), (one, True), (two, False), (theirs, False), (own, False)):
        world.stats.add("acme", endpoint.id, hour, attempt_counts(succeeded, 40, first=True, ended="succeeded" if succeeded else "failed"))
    stats = world.customer_service().stats("acme", "a")
    assert (stats.customer, stats.endpoints, stats.attempts, stats.succeeded, stats.failed) == ("a", 2, 3, 2, 1)
    assert stats.first_attempt_delivery_rate == round(2 / 3, 4)
    assert stats.until == "2026-11-29T12:00:00Z"
    # Only its endpoints' windows were read
    empty = world.customer_service().stats("acme", "a", since="2026-11-28T00:00:00Z", until="2026-11-28T06:00:00Z")
    assert empty.attempts == 0
    with pytest.raises(NotFound):
        world.customer_service().stats("acme", "c")
    with pytest.raises(ValidationFailed):
        world.customer_service().stats("acme", "a", since="2026-11-29T12:00:00Z", until="2026-11-29T11:00:00Z")


def test_a_customer_with_1000_endpoints_is_deleted_by_a_job_whose_progress_reads_on_the_way(world: World) -> None:
    _customer(world, "huge")
    for _ in range(1000):
        world.add_endpoint(customer="huge")
    job = world.customer_service().delete("acme", "huge").job
    assert world.run_jobs(max_steps=4) == 4
    progress = world.job_runner().describe("acme", job.id)
    assert (progress.status, progress.counts) == ("running", {"endpoints_deleted": 4 * DELETE_PAGE})
    world.run_jobs()
    progress = world.job_runner().describe("acme", job.id)
    assert (progress.status, progress.counts) == ("done", {"endpoints_deleted": 1000})
    assert _endpoints_of(world, "huge") == []
