"""A hot endpoint through the real planner and worker (hookline.core.leases over the fakes): its token lease is spent
over the batches of one process with no limiter write, within its rate, and given back once it is over; its statistics
are held across the process's batches, not written once a batch (hookline.services.delivery.stats_buffer)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace
from datetime import timedelta
from typing import Any

from hookline.core.models import Delivery, DeliveryTask, Endpoint, Event, webhook_body
from hookline.core.settings import Settings
from hookline.core.stats import HOLD_ATTEMPTS, HOLD_SECONDS, VERSION_USE_HOLD_SECONDS
from hookline.core.versions import BASE_VERSION
from tests.fakes.catalog import FakeVersionUsage
from tests.fakes.contracts import endpoint
from tests.fakes.delivery import delivery_rig
from tests.unit.services.pipeline import Pipeline, most_in_any_window


def _limiter_writes(settings: Settings) -> tuple[int, int, object]:
    """Limiter writes and batches for 200 events to an endpoint allowed 2,000 requests a second, one process, batches of ten."""
    rig = delivery_rig(settings=settings)
    pipe = Pipeline(rig, batch_size=10, invocations=1)
    ep = pipe.endpoint(endpoint(rate_limit_per_second=2000, max_concurrency=100))
    writes: list[int] = []
    save = rig.states.save_limiter

    def counted(*args: object, **kwargs: object) -> bool:
        writes.append(1)
        return save(*args, **kwargs)  # type: ignore[arg-type]

    rig.states.save_limiter = counted  # type: ignore[method-assign]
    tasks: list[DeliveryTask] = [pipe.event(ep, i) for i in range(200)]
    # When one process takes them in batches of ten
    pipe.run(60)
    # Then every event was delivered once
    assert sorted(s.webhook_id for s in pipe.sent) == sorted(t.event_id for t in tasks)
    assert {pipe.delivery(t).status for t in tasks} == {"succeeded"}
    assert most_in_any_window([s.at for s in pipe.sent]) <= 2000
    return len(writes), len({p.round for p in pipe.planned}), rig.states.limiter("acme", ep.id)


def test_a_hot_endpoint_is_paced_by_a_token_lease_with_a_fraction_of_a_write_per_batch() -> None:
    # Given an endpoint past HOOKLINE_TOKEN_LEASE_MIN_RATE: its limiter takes a fraction of a write a batch
    writes, batches, limiter = _limiter_writes(Settings())
    assert batches >= 20
    assert writes < 0.5 * batches
    assert limiter.token_leases  # type: ignore[attr-defined]
    # And with leases off (the minimum above its rate) the same run takes a grant and a give-back per batch
    per_batch, batches, limiter = _limiter_writes(replace(Settings(), token_lease_min_rate=1e9))
    assert per_batch >= 2 * batches - 2
    assert not limiter.token_leases  # type: ignore[attr-defined]


def _event(pipe: Pipeline, ep: Endpoint, n: int) -> DeliveryTask:
    """An event with one delivery to `ep` at the default payload version, queued now (as `Pipeline.event`)."""
    created = pipe.rig.clock().strftime("%Y-%m-%dT%H:%M:%S.000Z")
    event_id, delivery_id = f"evt_{ep.id}_{n:04d}", f"dlv_{ep.id}_{n:04d}"
    event = Event(id=event_id, tenant=ep.tenant, type="a.b", created_at=created, body=webhook_body(event_id, "a.b", created, {"n": n}), request_hash=str(n))
    delivery = Delivery(delivery_id, ep.tenant, event_id, ep.id, created_at=created, updated_at=created, version=BASE_VERSION)
    task = replace(pipe.rig.events.add(event, delivery), fresh=True)
    pipe.submit(task)
    return task


def test_a_hot_endpoint_s_statistics_are_held_across_a_process_s_batches_and_each_attempt_counted_once() -> None:
    usage = FakeVersionUsage()
    rig = delivery_rig(usage=usage)
    pipe = Pipeline(rig, batch_size=10, invocations=1)
    hot = pipe.endpoint(endpoint(rate_limit_per_second=2000, max_concurrency=100))
    written: list[tuple[str, float]] = []
    add_stats, add_usage = rig.stats.add, usage.add

    def stats_added(tenant: str, endpoint_id: str, hour: str, counts: dict[str, int]) -> None:
        written.append(("statistics", rig.clock.timestamp()))
        add_stats(tenant, endpoint_id, hour, counts)

    def usage_added(tenant: str, version: str, day: str, count: int, last_at: str) -> None:
        written.append(("usage", rig.clock.timestamp()))
        add_usage(tenant, version, day, count, last_at)

    rig.stats.add, usage.add = stats_added, usage_added  # type: ignore[method-assign]
    start = rig.clock.timestamp()
    # Given one process that paces a hot endpoint by a token lease, running a batch of one webhook every 10 ms for 3 s
    for n in range(300):
        _event(pipe, hot, n)
        pipe.run(0.01)
    pipe.run(2)  # (the few its first, small lease deferred come back)
    assert len(pipe.sent) == 300 and rig.states.limiter("acme", hot.id).token_leases
    # Then its statistics and its version use were written once a second, or once per HOLD_ATTEMPTS attempts, over
    # the 5 s: not once a batch (300 times each)
    for kind in ("statistics", "usage"):
        times = [at for k, at in written if k == kind]
        assert 2 <= len(times) <= 5 + 300 // HOLD_ATTEMPTS
        assert max(Counter(math.floor(at - start) for at in times).values()) <= 2
    # When a second later the process runs a batch of another endpoint's
    rig.clock.advance(HOLD_SECONDS)
    other = pipe.endpoint(endpoint("ep_02"))
    _event(pipe, other, 0)
    pipe.run(1)
    # Then what it still held of the hot endpoint is written too: every attempt counted once
    now = rig.clock()
    assert rig.stats.window("acme", hot.id, now - timedelta(hours=1), now)["attempts"] == 300
    # And once the version use it holds is VERSION_USE_HOLD_SECONDS old, the next batch writes it (all but what is
    # younger than that), and what is left is written when flushed: every delivery's use counted once
    rig.clock.advance(VERSION_USE_HOLD_SECONDS)
    _event(pipe, other, 1)
    pipe.run(1)
    assert usage.usage("acme", BASE_VERSION, "2000-01-01")[0] >= 301
    for write in rig.worker.recorder.stats.writes():
        write()
    assert usage.usage("acme", BASE_VERSION, "2000-01-01")[0] == 302


def test_a_tenants_version_use_takes_one_write_per_process_every_hold_whatever_its_batches() -> None:
    # Given one process sending a batch every 10 ms for 5 s to ten ordinary endpoints of one tenant (paced per batch,
    # below the token-lease minimum), all at one payload version: the tenant's version-use item for the day is shared
    usage = FakeVersionUsage()
    rig = delivery_rig(usage=usage)
    pipe = Pipeline(rig, batch_size=10, invocations=1)
    endpoints = [pipe.endpoint(endpoint(f"ep_{i:02d}", rate_limit_per_second=500)) for i in range(10)]
    written: list[float] = []
    add_usage = usage.add

    def counted(*args: Any, **kwargs: Any) -> None:
        written.append(rig.clock.timestamp())
        add_usage(*args, **kwargs)

    usage.add = counted  # type: ignore[method-assign]
    for n in range(500):
        _event(pipe, endpoints[n % 10], n)
        pipe.run(0.01)
        # (the first use is written at once: a version used is never shown unused)
        assert written or not pipe.sent
    pipe.run(1)
    assert len(pipe.sent) == 500
    # Then the item took a write every VERSION_USE_HOLD_SECONDS, not one a batch (hundreds)
    assert 2 <= len(written) <= 6 / VERSION_USE_HOLD_SECONDS + 1
    # And every delivery's use is counted once, what the process still holds once flushed
    for write in rig.worker.recorder.stats.writes():
        write()
    assert usage.usage("acme", BASE_VERSION, "2000-01-01")[0] == 500
