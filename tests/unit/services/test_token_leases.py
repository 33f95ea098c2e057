"""A hot endpoint through the real planner and worker (hookline.core.leases over the fakes): its token lease is spent
over the batches of one process with no limiter write, within its rate, and given back once it is over."""

from __future__ import annotations

from dataclasses import replace

from hookline.core.models import DeliveryTask
from hookline.core.settings import Settings
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
