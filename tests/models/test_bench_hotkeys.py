"""The scale model's figure for one hot endpoint (bench/models/hotkeys.py): writes a second on each of its keys, from the core's
own rules over a simulated run (issue 30, item 3: at most 500 a second on any item at 5,000 deliveries a second)."""

from __future__ import annotations

from bench.models.hotkeys import KEYS, hot_endpoint_writes
from hookline.core.stats import HOLD_ATTEMPTS, VERSION_USE_HOLD_SECONDS

PACED = 5000 / 1.1  # an endpoint allowed 5,000 a second is paced a little under it (core.ratelimit's margin)


def test_a_hot_endpoint_at_5000_a_second_writes_no_item_more_than_500_times_a_second() -> None:
    # Given ten instances, each able to send a batch of ten every 20 ms, and 5,000 tasks a second to one endpoint
    writes = hot_endpoint_writes(5000, 10, 10)
    # Then its leases settle near its paced rate
    assert writes.sent >= 0.95 * PACED
    # And no item takes more than 500 writes in a second, no delivery log partition more than DynamoDB's 1,000
    assert all(writes.per_key()[key] <= 500 for key in KEYS if key != "delivery_log_partition"), writes
    assert 0.9 * PACED / 8 <= writes.delivery_log_partition <= 1000
    # And the statistics and version-use items about one write per instance a second, or per HOLD_ATTEMPTS deliveries:
    # the batches that sent, one write each, would have been more than ten times as many
    for held in (writes.statistics, writes.version_usage):
        assert held <= 10 + writes.sent / HOLD_ATTEMPTS < writes.batches / 8
    assert writes.limiter <= 2 * 10  # a lease and a give-back per instance a second
    assert (writes.breaker, writes.delivery_item) == (0, 1)


def test_with_smaller_batches_the_held_statistics_take_no_more_writes() -> None:
    # Given twenty instances taking batches of five: twice the batches for the same deliveries
    writes = hot_endpoint_writes(5000, 5, 20)
    assert writes.sent >= 0.95 * PACED and writes.batches >= 800  # one write a batch would pass the bound
    # Then the statistics and version-use items still take about a write per instance a second
    assert max(writes.statistics, writes.version_usage) <= 20 + writes.sent / HOLD_ATTEMPTS
    assert max(writes.per_key()[key] for key in KEYS if key != "delivery_log_partition") <= 500


def test_below_the_lease_minimum_each_batch_writes_the_limiter_twice_and_carries_its_statistics() -> None:
    # Given an endpoint allowed 800 a second (under HOOKLINE_TOKEN_LEASE_MIN_RATE): paced by per-batch grants
    writes = hot_endpoint_writes(800, 10, 4, seconds=4)
    # Then each batch takes a grant and a give-back, the give-back carrying its statistics, and a version-use ADD
    total = {key: sum(second.get(key, 0) for second in writes.seconds) for key in ("batches", *KEYS)}
    assert writes.sent <= 800 / 1.1 + 1
    assert total["statistics"] == 0
    assert 4 <= total["version_usage"] <= 4 * (4 / VERSION_USE_HOLD_SECONDS + 1) < total["batches"]
    assert total["limiter"] == 2 * total["batches"]
