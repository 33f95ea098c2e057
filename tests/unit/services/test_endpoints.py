"""EndpointService over in-memory fakes, on a fake clock: create, patch, rotate, reveal the secret, test, enable, describe, stats."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from typing import Any

import jsonschema_rs
import pydantic
import pytest

from hookline.core import ids, notifications
from hookline.core.breaker import Breaker
from hookline.core.contract.endpoints import CreateEndpoint, Endpoint, EndpointSecret, PreviousSecretShown, TestAttempt, UpdateEndpoint
from hookline.core.destinations import ROLE_NAME_PREFIX
from hookline.core.errors import Conflict, DependencyFailed, FailedDependency, NotFound, ValidationFailed
from hookline.core.models import EmailOutcome
from hookline.core.ratelimit import Limiter
from hookline.core.rotation import MAX_LIVE_SECRETS, ROTATION_CONFLICT, TOO_MANY_SECRETS
from hookline.core.signing import sign
from hookline.core.stats import attempt_counts, hour_of
from tests.fakes.contracts import delivery
from tests.fakes.outside import Request, answering, failing
from tests.unit.services.conftest import World

NEW = CreateEndpoint.model_validate({"url": "https://example.com/hooks", "event_types": ["invoice.paid"], "rate_limit_per_second": 5, "max_concurrency": 2})


def change(**fields: object) -> UpdateEndpoint:
    return UpdateEndpoint.model_validate(fields)


def signed_with(request: Request, secret: str) -> bool:
    """The request carries a Standard Webhooks signature made with `secret` (verified here: the official
    library checks the timestamp against the real clock, which these tests do not use)."""
    msg_id, ts = request.headers["webhook-id"], int(request.headers["webhook-timestamp"])
    return sign(secret, msg_id, ts, request.body) in request.headers["webhook-signature"].split(" ")


def test_create_stamps_the_clocks_time_and_shows_the_secret_once(world: World) -> None:
    service = world.endpoint_service()
    created = service.create("acme", NEW)
    assert ids.is_id(created.id, ids.ENDPOINT)
    assert created.secret.startswith("whsec_")
    assert created.created_at == created.updated_at == "2026-11-29T12:00:00.000Z"
    assert (created.rate_limit_per_second, created.max_concurrency, created.status) == (5, 2, "active")
    # The secret is stored, and never shown again
    assert world.endpoints.get("acme", created.id).secret == created.secret
    assert "secret" not in service.get("acme", created.id).public()
    assert service.list("acme", 10, None).items == [Endpoint.model_validate(created.model_dump(exclude={"secret"}))]


def test_create_refuses_an_unsafe_url_and_stores_nothing(world: World) -> None:
    with pytest.raises(ValidationFailed):
        world.endpoint_service().create("acme", CreateEndpoint(url="https://10.0.0.1/hook"))
    assert world.endpoints.items == {}


def test_create_past_the_owners_most_is_409_and_stores_nothing(world: World) -> None:
    # Given a tenant whose owners may have two endpoints each, and two of its own
    world.settings = replace(world.settings, max_endpoints_per_owner=2)
    service = world.endpoint_service()
    kept = [service.create("acme", NEW).id for _ in range(2)]
    # When a third is created, Then it is 409 endpoint_limit_reached naming the most, and nothing more is stored
    with pytest.raises(Conflict) as refused:
        service.create("acme", NEW)
    assert (refused.value.code, "(2)" in refused.value.message) == ("endpoint_limit_reached", True)
    assert sorted(e.id for e in world.endpoints.items.values()) == sorted(kept)
    # And once one is deleted, another may be created
    service.delete("acme", kept[0])
    assert service.create("acme", NEW).id not in kept


def test_patch_changes_fields_at_the_clocks_time_and_names_why_it_was_disabled(world: World) -> None:
    service = world.endpoint_service()
    created = service.create("acme", NEW)
    world.clock.advance(90)
    disabled = service.update("acme", created.id, change(status="disabled", max_concurrency=4))
    assert (disabled.status, disabled.disabled_reason, disabled.max_concurrency) == ("disabled", "manual", 4)
    assert disabled.updated_at == "2026-11-29T12:01:30.000Z"
    assert disabled.created_at == created.created_at
    enabled = service.update("acme", created.id, change(status="active"))
    assert (enabled.status, enabled.disabled_reason) == ("active", None)
    assert Endpoint.of(world.endpoints.get("acme", created.id)) == enabled
    with pytest.raises(pydantic.ValidationError, match=r"hookline.validation_failed"):  # the contract's refusal, as the API answers it
        service.update("acme", created.id, change(max_concurrency=0))


def test_patch_of_an_endpoint_deleted_meanwhile_is_not_found(world: World) -> None:
    service = world.endpoint_service()
    created = service.create("acme", NEW)
    # Given a delete that lands between the patch's read and its write
    read = world.endpoints.get
    world.endpoints.get = lambda t, e: (read(t, e), world.endpoints.delete(t, e))[0]  # type: ignore[method-assign]
    with pytest.raises(NotFound):
        service.update("acme", created.id, change(description="late"))
    assert world.endpoints.items == {}


def test_patch_delete_and_get_stay_within_the_tenant(world: World) -> None:
    service = world.endpoint_service()
    created = service.create("acme", NEW)
    for call in (lambda: service.get("other", created.id), lambda: service.update("other", created.id, change(description="x"))):
        with pytest.raises(NotFound):
            call()
    with pytest.raises(NotFound):
        service.delete("other", created.id)
    service.delete("acme", created.id)
    with pytest.raises(NotFound):
        service.delete("acme", created.id)


def test_rotation_signs_with_both_secrets_for_the_overlap_then_only_the_new_one(world: World) -> None:
    service = world.endpoint_service()
    created = service.create("acme", NEW)
    old = created.secret
    # When the secret is rotated
    rotated = service.rotate_secret("acme", created.id)
    new = rotated.secret
    # Then the old one stays valid for the overlap (a day by default), by the clock
    assert new != old
    assert rotated.previous_secret_valid_until == "2026-11-30T12:00:00.000Z"
    stored = world.endpoints.get("acme", created.id)
    overlap = world.settings.secret_overlap_seconds
    assert stored.signing_secrets(world.clock.timestamp() + overlap - 1, overlap) == [new, old]
    assert stored.signing_secrets(world.clock.timestamp() + overlap, overlap) == [new]
    # And a test event sent during the overlap carries both signatures; one sent after it, only the new one
    world.endpoints.disable("acme", created.id, "manual", "t")
    world.clock.advance(overlap - 1)
    service.enable("acme", created.id)
    during = world.sender.requests[-1]
    assert signed_with(during, new) and signed_with(during, old)
    world.clock.advance(2)
    service.enable("acme", created.id)
    after = world.sender.requests[-1]
    assert signed_with(after, new) and not signed_with(after, old)
    with pytest.raises(NotFound):
        service.rotate_secret("other", created.id)


def test_the_secret_is_revealed_with_each_previous_one_until_its_own_end(world: World) -> None:
    service = world.endpoint_service()
    ep = world.add_endpoint()
    assert service.secret("acme", ep.id) == EndpointSecret(secret=ep.secret, created_at=ep.created_at, previous_secrets=[])
    assert service.secret("acme", ep.id).model_dump(exclude_none=True) == {"secret": ep.secret, "created_at": ep.created_at, "previous_secrets": []}
    # When the secret is rotated, and again 100 s later
    world.clock.advance(30)
    second = service.rotate_secret("acme", ep.id).secret
    world.clock.advance(100)
    third = service.rotate_secret("acme", ep.id).secret
    overlap = world.settings.secret_overlap_seconds
    # Then until the first overlap ends both earlier secrets are shown, each with when it stops signing
    world.clock.advance(overlap - 101)
    first_end, second_end = "2026-11-30T12:00:30.000Z", "2026-11-30T12:02:10.000Z"
    assert service.secret("acme", ep.id) == EndpointSecret(
        secret=third,
        created_at="2026-11-29T12:02:10.000Z",
        previous_secrets=[PreviousSecretShown(secret=second, valid_until=second_end), PreviousSecretShown(secret=ep.secret, valid_until=first_end)],
        previous_secret=second,
        previous_expires_at=second_end,
    )
    # And from the first one's end on, only the second one beside the current one
    world.clock.advance(1)
    assert [p.secret for p in service.secret("acme", ep.id).previous_secrets] == [second]
    world.clock.advance(100)
    assert service.secret("acme", ep.id) == EndpointSecret(secret=third, created_at="2026-11-29T12:02:10.000Z", previous_secrets=[])
    for tenant, endpoint_id in (("other", ep.id), ("acme", "ep_nope")):
        with pytest.raises(NotFound):
            service.secret(tenant, endpoint_id)


def test_a_rotation_past_the_most_live_secrets_is_refused_naming_when_the_oldest_ends(world: World) -> None:
    service = world.endpoint_service()
    ep = world.add_endpoint()
    # Given MAX_LIVE_SECRETS sign (the current one and four earlier ones), a minute apart
    for _ in range(MAX_LIVE_SECRETS - 1):
        world.clock.advance(60)
        service.rotate_secret("acme", ep.id)
    before = world.endpoints.get("acme", ep.id)
    # When one more rotation is asked for
    with pytest.raises(Conflict) as refused:
        service.rotate_secret("acme", ep.id)
    # Then it is refused, naming when the oldest stops signing, and nothing changed
    oldest_end = "2026-11-30T12:01:00.000Z"
    assert refused.value.code == TOO_MANY_SECRETS and oldest_end in refused.value.message
    assert refused.value.envelope()["error"]["secrets"]["previous_valid_until"][-1] == oldest_end
    assert world.endpoints.get("acme", ep.id) == before
    # And once it has stopped, a rotation lands again
    world.clock.advance(world.settings.secret_overlap_seconds - 4 * 60 + 60)
    assert service.rotate_secret("acme", ep.id).secret


def test_a_rotation_another_one_beat_answers_409_with_what_signs_and_no_secret(world: World) -> None:
    service = world.endpoint_service()
    ep = world.add_endpoint()
    # Given another rotation lands between this one's read and its write
    real_get = world.endpoints.get
    raced: list[str] = []

    def get_then_race(tenant: str, endpoint_id: str) -> Any:
        read = real_get(tenant, endpoint_id)
        if not raced:
            raced.append("racing")
            raced[0] = service.rotate_secret(tenant, endpoint_id).secret
        return read

    world.endpoints.get = get_then_race  # type: ignore[method-assign]
    with pytest.raises(Conflict) as lost:
        service.rotate_secret("acme", ep.id)
    # Then this one answers 409 with the state the winner left, and its own secret was never stored
    error = lost.value.envelope()["error"]
    assert error["code"] == ROTATION_CONFLICT and "whsec_" not in str(error)
    assert error["secrets"] == {"current_created_at": "2026-11-29T12:00:00.000Z", "previous_valid_until": ["2026-11-30T12:00:00.000Z"]}
    assert real_get("acme", ep.id).signing_secrets(world.clock.timestamp(), world.settings.secret_overlap_seconds) == [raced[0], ep.secret]


@pytest.mark.parametrize("status", ["active", "disabled"])
def test_a_test_send_answers_with_the_attempt_and_stores_nothing(world: World, status: str) -> None:
    world.sender.answer = answering(200, body="x" * (world.settings.response_body_limit_bytes + 10), duration_ms=40)
    ep = world.add_endpoint(status=status, disabled_reason="failing" if status == "disabled" else None, headers=(("x-team", "billing"),))
    out = world.endpoint_service().test("acme", ep.id)
    # Then one signed `hookline.test` webhook went out, with the endpoint's headers
    [request] = world.sender.requests
    assert request.url == ep.url and request.headers["x-team"] == "billing"
    assert json.loads(request.body)["type"] == "hookline.test"
    assert signed_with(request, ep.secret)
    # And the answer is the attempt, its body truncated like an attempt's
    assert out == TestAttempt(
        webhook_id=request.headers["webhook-id"],
        status_code=200,
        error=None,
        duration_ms=40,
        succeeded=True,
        response_body="x" * world.settings.response_body_limit_bytes,
    )
    # And nothing was stored, queued or announced; the endpoint is as it was
    assert world.endpoints.get("acme", ep.id) == ep
    assert world.events.events == {} and world.events.rows == {}
    assert world.delivery_queue.sent == world.retry_queue.sent == world.notify.sent == world.states.writes == []


@pytest.mark.parametrize(
    ("answer", "status_code", "error"),
    [(answering(503, body="busy"), 503, None), (failing("timeout"), None, "timeout"), (failing("ssrf_blocked", "10.0.0.1 is private"), None, "ssrf_blocked")],
    ids=["503", "timeout", "ssrf-refused"],
)
def test_a_failed_test_send_is_an_answer_not_an_error(world: World, answer: object, status_code: int | None, error: str | None) -> None:
    world.sender.answer = answer  # type: ignore[assignment]
    ep = world.add_endpoint()
    out = world.endpoint_service().test("acme", ep.id)
    assert (out.status_code, out.error, out.succeeded) == (status_code, error, False)
    assert world.endpoints.get("acme", ep.id) == ep and world.states.writes == []


def test_a_test_send_to_an_unknown_or_foreign_endpoint_sends_nothing(world: World) -> None:
    ep = world.add_endpoint()
    for tenant, endpoint_id in (("other", ep.id), ("acme", "ep_nope")):
        with pytest.raises(NotFound):
            world.endpoint_service().test(tenant, endpoint_id)
    assert world.sender.requests == []


def test_enable_sends_a_signed_test_event_then_reactivates_and_requeues_the_paused_backlog(world: World) -> None:
    service = world.endpoint_service()
    ep = world.add_endpoint(status="disabled", disabled_reason="failing", headers=(("x-team", "billing"),))
    # Given 150 paused deliveries (more than one page of the index), a failing breaker and an open one's trip count
    paused = [delivery(f"dlv_{i:03d}", f"evt_{i:03d}", ep.id, status="paused") for i in range(150)]
    world.events.create_deliveries(paused, 0)
    assert world.states.save_breaker("acme", ep.id, Breaker(state="open", open_until=world.clock.timestamp() + 600, trips=4, version=7), 0)
    # When it is enabled and the receiver answers the test event
    world.clock.advance(5)
    out = service.enable("acme", ep.id)
    # Then the test event went out signed, with the endpoint's headers, as `hookline.test`
    [request] = world.sender.requests
    assert request.url == ep.url and request.headers["x-team"] == "billing"
    assert json.loads(request.body)["type"] == "hookline.test"
    assert signed_with(request, ep.secret)
    assert out.test.webhook_id == request.headers["webhook-id"]
    # And the endpoint is active, its breaker fresh (the trips kept), and the answer names the job re-queueing its backlog
    assert (out.status, out.requeue.status) == ("active", "running")
    assert "disabled_reason" not in out.model_dump(exclude_none=True)
    assert world.endpoints.get("acme", ep.id).updated_at == "2026-11-29T12:00:05.000Z"
    assert world.states.breaker("acme", ep.id) == Breaker(trips=4, version=8)
    assert world.retry_queue.sent == []  # nothing of the backlog moved inside the request
    assert world.notify.sent == [(notifications.RECOVERED, {"tenant": "acme", "endpoint_id": ep.id, "requeue_job": out.requeue.id})]
    # When the job runs, Then every paused delivery is queued once on the retry queue, a page per step, spread at the endpoint's rate
    assert world.run_jobs() == 2
    assert sorted(t.delivery_id for t in world.retry_queue.tasks()) == [d.id for d in paused]
    assert max(s.delay for s in world.retry_queue.sent) == int(99 / ep.rate_limit_per_second)
    assert world.delivery_queue.sent == []
    progress = world.job_runner().describe("acme", out.requeue.id)
    assert (progress.kind, progress.status, progress.counts, progress.endpoint_id) == ("requeue_paused", "done", {"requeued": 150}, ep.id)


@pytest.mark.parametrize("answer", [answering(500), answering(301), failing("timeout")], ids=["500", "301", "timeout"])
def test_enable_fails_with_424_and_changes_nothing_while_the_receiver_fails(world: World, answer: object) -> None:
    world.sender.answer = answer  # type: ignore[assignment]
    ep = world.add_endpoint(status="disabled", disabled_reason="failing")
    world.events.create_deliveries([delivery("dlv_1", "evt_1", ep.id, status="paused")], 0)
    with pytest.raises(FailedDependency) as err:
        world.endpoint_service().enable("acme", ep.id)
    assert err.value.status == 424
    assert world.endpoints.get("acme", ep.id) == ep
    assert world.retry_queue.sent == [] and world.notify.sent == [] and world.states.writes == []
    assert world.jobs.sent == [] and world.job_store.items == {}  # no job was started


def test_enabling_an_active_endpoint_announces_no_recovery(world: World) -> None:
    ep = world.add_endpoint()
    assert world.endpoint_service().enable("acme", ep.id).requeue.status == "running"
    assert world.notify.sent == []
    assert world.run_jobs() == 1 and world.retry_queue.sent == []


def test_describe_reports_health_by_the_clock(world: World) -> None:
    ep = world.add_endpoint(rate_limit_per_second=10)
    now = world.clock.timestamp()
    opened = Breaker(
        state="open",
        consecutive_failures=10,
        open_until=now + 60,
        open_since=now,
        cooldown_seconds=60.0,
        trips=1,
        recent="0" * 10,
        last_error="503",
        last_failure_at=now,
        version=1,
    )
    assert world.states.save_breaker("acme", ep.id, opened, 0)
    # Given a 429 halved the rate just now
    # and adaptive concurrency has learned a 250 ms baseline and a limit of 12.6 (under the ceiling of 50)
    learned = Limiter(effective_rate=5.0, adjusted_at=now, concurrency_limit=12.6, rtt_short=0.3, rtt_long=0.25, version=1)
    assert world.states.save_limiter("acme", ep.id, learned, 0)
    # And the last day's statistics counted 3 successes of 12 attempts; a day and more ago does not count
    world.stats.add("acme", ep.id, hour_of(world.clock()), {"attempts": 12, "succeeded": 3, "failed": 9})
    world.stats.add("acme", ep.id, hour_of(world.clock() - timedelta(hours=25)), {"attempts": 50, "succeeded": 50})
    service = world.endpoint_service()
    health = service.describe("acme", ep.id).health.model_dump()
    assert health == {
        "circuit": {"state": "open", "consecutive_failures": 10, "open_until": "2026-11-29T12:01:00.000Z", "trips": 1},
        "success_rate": 0.25,
        "attempts": 12,  # the rate is over the last day's 12, not the 50 before
        "last_error": "503",
        "last_error_at": "2026-11-29T12:00:00.000Z",
        "effective_rate_per_second": 5.0,
        # the open breaker keeps it on the retry lane
        "concurrency": {"limit": 12, "ceiling": 50, "latency_ms": 250.0, "lane": "retry"},
        "last_email": None,  # no email to its customer yet
    }
    # When 20 s pass, the rate has recovered by 0.05/s each second; after 10 minutes it is back to the configured 10
    world.clock.advance(20)
    assert service.describe("acme", ep.id).health.effective_rate_per_second == 6.0
    world.clock.advance(600)
    assert service.describe("acme", ep.id).health.effective_rate_per_second == 10.0
    for tenant, endpoint_id in (("other", ep.id), ("acme", "ep_nope")):
        with pytest.raises(NotFound):
            service.describe(tenant, endpoint_id)


def test_describe_says_how_the_last_email_to_the_customer_went(world: World) -> None:
    # Given an endpoint whose customer's last email SES refused, and one whose last email went out
    refused = world.add_endpoint(customer="cus-1", last_email=EmailOutcome("failed", "2026-11-29T11:00:00.000Z", "disabled", "MessageRejected"))
    sent = world.add_endpoint(customer="cus-1", url="https://example.com/other", last_email=EmailOutcome("sent", "2026-11-29T11:30:00.000Z", "recovered"))
    service = world.endpoint_service()
    # Then each one's health says so: when, about what, and (failed) the error's code
    assert service.describe("acme", refused.id).health.model_dump()["last_email"] == {
        "outcome": "failed",
        "at": "2026-11-29T11:00:00.000Z",
        "about": "disabled",
        "error": "MessageRejected",
    }
    assert service.describe("acme", sent.id).health.model_dump()["last_email"] == {
        "outcome": "sent",
        "at": "2026-11-29T11:30:00.000Z",
        "about": "recovered",
        "error": None,
    }
    # And the endpoint itself (lists, GET without health) does not carry it
    assert "last_email" not in service.get("acme", refused.id).public()


def test_stats_add_up_the_last_day_by_default(world: World) -> None:
    ep = world.add_endpoint()
    now = world.clock()
    # Given attempts two hours ago, and one two days ago (outside the default window)
    for counts in (attempt_counts(True, 40, True, "succeeded"), attempt_counts(False, 900, True, "")):
        world.stats.add("acme", ep.id, hour_of(now - timedelta(hours=2)), counts)
    world.stats.add("acme", ep.id, hour_of(now - timedelta(days=2)), attempt_counts(True, 5, True, "succeeded"))
    service = world.endpoint_service()
    out = service.stats("acme", ep.id)
    assert (out.since, out.until) == ("2026-11-28T12:00:00Z", "2026-11-29T12:00:00Z")
    assert (out.attempts, out.succeeded, out.failed) == (2, 1, 1)
    assert (out.first_attempt_delivery_rate, out.eventual_delivery_success_rate) == (0.5, 1.0)
    assert service.stats("acme", ep.id, since="2026-11-27T00:00:00Z").attempts == 3
    with pytest.raises(ValidationFailed):
        service.stats("acme", ep.id, since="2026-11-29T12:00:00Z", until="2026-11-29T11:00:00Z")


def test_a_crash_between_the_job_and_the_activation_leaves_the_endpoint_disabled_with_its_backlog_paused(world: World) -> None:
    ep = world.add_endpoint(status="disabled", disabled_reason="failing")
    world.events.create_deliveries([delivery(f"dlv_{i}", f"evt_{i}", ep.id, status="paused") for i in range(3)], 0)
    # Given the endpoint's save fails after the job was started (the Lambda died there)
    world.endpoints.faults.fail("save", times=1)
    with pytest.raises(DependencyFailed):
        world.endpoint_service().enable("acme", ep.id)
    # When the job's steps run, Then they wait for the endpoint to be active, and give up after ten minutes
    assert world.run_jobs(max_steps=1) == 1 and world.retry_queue.sent == []
    [waiting] = world.jobs.sent
    assert waiting.delay == 5  # the same page, tried again shortly
    world.clock.advance(601)
    assert world.run_jobs() == 1
    [job] = world.job_store.items.values()
    assert (job.status, job.note) == ("cancelled", "the endpoint was not re-enabled; its backlog stays paused")
    # And the endpoint is still disabled, its backlog paused: consistent, and a new enable starts a new job
    assert world.endpoints.get("acme", ep.id).status == "disabled" and world.retry_queue.sent == []
    assert all(d.status == "paused" for d in world.events.all_deliveries())
    world.endpoint_service().enable("acme", ep.id)
    assert world.run_jobs() == 1 and len(world.retry_queue.sent) == 3


def test_a_requeue_killed_mid_way_is_finished_by_its_redelivered_step(world: World) -> None:
    ep = world.add_endpoint(status="disabled", disabled_reason="failing")
    paused = [delivery(f"dlv_{i:03d}", f"evt_{i:03d}", ep.id, status="paused") for i in range(250)]
    world.events.create_deliveries(paused, 0)
    job = world.endpoint_service().enable("acme", ep.id).requeue
    assert world.run_jobs(max_steps=1) == 1  # the first page
    # Given the second step dies after queueing its page but before the job's advance (the job item's write fails)
    world.job_store.faults.fail("advance", times=1)
    step = world.jobs.sent[0]
    with pytest.raises(DependencyFailed):
        world.run_jobs(max_steps=1)
    # When SQS delivers that step again, Then the job finishes, every delivery queued (the repeated page's twice: the claim drops one)
    world.jobs.sent.insert(0, step)
    world.run_jobs()
    assert sorted({t.delivery_id for t in world.retry_queue.tasks()}) == [d.id for d in paused]
    progress = world.job_runner().describe("acme", job.id)
    assert (progress.status, progress.counts) == ("done", {"requeued": 250})


BUS = {
    "type": "eventbridge",
    "event_bus_arn": "arn:aws:events:eu-west-1:111122223333:event-bus/orders",
    "role_arn": f"arn:aws:iam::111122223333:role/{ROLE_NAME_PREFIX}orders",
}


@pytest.mark.parametrize(
    ("body", "taken"),
    [
        ({"destination": BUS, "headers": {"X-Team": "billing"}}, False),  # schemathesis's find: nowhere to put them
        ({"destination": BUS, "headers": {}}, True),
        ({"destination": BUS, "headers": None}, True),
        ({"destination": {"type": "http", "url": "https://receiver.example/hook"}, "headers": {"X-Team": "billing"}}, True),
        ({"url": "https://receiver.example/hook", "headers": {"X-Team": "billing"}}, True),
    ],
)
def test_custom_headers_with_a_destination_are_refused_alike_by_the_document_and_the_service(world: World, body: dict[str, Any], taken: bool) -> None:
    # Given a new endpoint's body; Then the document's schema and the service give the table's answer
    schema = CreateEndpoint.model_json_schema()
    assert jsonschema_rs.validator_for(schema).is_valid(body) is taken
    try:
        world.endpoint_service().create("acme", CreateEndpoint.model_validate(body))
    except ValidationFailed as exc:
        assert exc.code == "invalid_destination" and "headers" in exc.message
        refused = True
    else:
        refused = False
    assert refused is not taken
