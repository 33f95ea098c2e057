"""Issue 30's scale model (bench/models/scale.py) and docs/scaling.md: each profile's sustained rate, the limit that binds it
and the quotas it needs, from make bench's measured parts; the doc says what the model prints."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench.models import scale
from hookline.adapters.dynamo import keys
from hookline.core import profiles, stats, validation
from hookline.core.settings import MAX_TABLE_CAPACITY, Settings
from infra import sizing

REPO = Path(__file__).resolve().parents[2]
RESULTS = json.loads((REPO / "bench" / "results.json").read_text())
DOC = (REPO / "docs" / "scaling.md").read_text()


@pytest.fixture(scope="module")
def model() -> dict[str, Any]:
    """The model on the committed measurements, made once and only where a test asks (its hot endpoint is a simulated
    run of about a second each): made at import, it ran while pytest collected, in every xdist worker."""
    return scale.model(RESULTS)


def _by_name(model: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in model["configurations"]}


def test_the_committed_results_hold_what_the_model_makes_of_their_measurements(model: dict[str, Any]) -> None:
    # Given the measurements make bench committed, when the model runs on them again
    again = json.loads(json.dumps(model))
    # Then it is what results.json holds under "scale": the model in the code is the one that wrote them
    assert RESULTS["scale"] == again


def test_the_doc_prints_the_models_table(model: dict[str, Any]) -> None:
    # The generated part of docs/scaling.md is the model's table, byte for byte
    start, end = DOC.index(scale.DOC_BEGIN), DOC.index(scale.DOC_END) + len(scale.DOC_END)
    assert DOC[start:end] == scale.rendered(model)


def test_the_default_profile_delivers_a_thousand_a_second_and_one_profile_ten_thousand_with_its_quotas_named() -> None:
    configurations = _by_name(RESULTS["scale"])
    for c in configurations.values():
        assert {"name", "deliveries_per_second", "binding_limit", "usd_per_million", "quota_increases"} <= set(c)
        assert isinstance(c["quota_increases"], list)
    assert configurations["default"]["deliveries_per_second"] >= 1000
    big = [c for c in configurations.values() if c["deliveries_per_second"] >= 10_000]
    assert big, "no profile reaches 10,000 deliveries a second"
    for c in big:
        assert c["binding_limit"]
        assert any("DynamoDB" in q for q in c["quota_increases"]), c["quota_increases"]


def _write_units_needed(configuration: dict[str, Any]) -> int:
    """The write units a second the configuration's table-level write quota increase asks for."""
    (increase,) = [q for q in configuration["quota_increases"] if "write throughput" in q]
    found = re.search(r"at least ([\d,]+) write units", increase)
    assert found is not None, increase
    return int(found.group(1).replace(",", ""))


def test_the_binding_limit_is_the_slowest_setting_and_a_quota_below_it_is_listed() -> None:
    # Given the measured parts, and a delivery handler made ten times as fast (so reserved concurrency carries more)
    results = copy.deepcopy(RESULTS)
    for row in results["throughput"]["batches"].values():
        row["handler_cpu_ms_per_delivery"] /= 10
    fast = scale.configuration(results, "xlarge", Settings.from_env({"HOOKLINE_SIZE": "xlarge"}))
    slow = scale.configuration(RESULTS, "xlarge", Settings.from_env({"HOOKLINE_SIZE": "xlarge"}))
    # Then the rate rises, is still bound by a setting's limit (the lowest of them), and needs more DynamoDB
    assert fast["deliveries_per_second"] > slow["deliveries_per_second"]
    settings_limits = {k: v for k, v in fast["limits"].items() if "DynamoDB's table" not in k and "per account" not in k and "share of" not in k}
    assert fast["deliveries_per_second"] == min(settings_limits.values())
    assert fast["binding_limit"] == min(settings_limits, key=lambda k: settings_limits[k])
    assert _write_units_needed(fast) > _write_units_needed(slow) > scale.QUOTAS.dynamodb_table_write_units
    # And with the quota raised (a stated input), it is no longer listed
    raised = scale.Quotas(dynamodb_table_write_units=10**7, dynamodb_table_read_units=10**7)
    assert scale.configuration(results, "xlarge", Settings.from_env({"HOOKLINE_SIZE": "xlarge"}), q=raised)["quota_increases"] == []


def test_more_instances_or_memory_deliver_more_and_a_throttle_binds_single_event_ingest() -> None:
    rates = {c["name"]: c["deliveries_per_second"] for c in RESULTS["scale"]["configurations"]}
    assert rates["small"] < rates["default"] < rates["large"] < rates["xlarge"]
    single = _by_name(RESULTS["scale"])["default, single-event ingest"]
    assert single["deliveries_per_second"] == Settings().api_throttle_rate
    assert "throttle" in single["binding_limit"]


def test_the_invocation_waits_longer_at_less_memory() -> None:
    at_512 = scale.invocation_seconds(RESULTS, 10, 512)
    at_1769 = scale.invocation_seconds(RESULTS, 10, 1769)
    assert at_512 > at_1769 > 0
    # Past a whole vCPU, Lambda gives a single-threaded handler nothing more
    assert scale.invocation_seconds(RESULTS, 10, 3538) == at_1769


@pytest.mark.parametrize("size", profiles.SIZES)
def test_the_docs_profile_table_is_the_profiles(size: str) -> None:
    # "| `default` | for | 90 + 60 + 4 | 512 MB |": the reservations and memory the doc quotes are the profile's
    settings = Settings.from_env({"HOOKLINE_SIZE": size})
    row = next(line for line in DOC.splitlines() if line.startswith(f"| `{size}` |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    if sizing.reserved_total(settings):
        assert cells[2] == f"{settings.delivery_concurrency} + {settings.retry_concurrency} + {settings.jobs_concurrency}"
    else:
        assert cells[2].startswith("nothing")
    assert cells[3].startswith(f"{settings.delivery_memory_mb:,} MB")


def test_the_doc_quotes_the_settings_it_names() -> None:
    assert f"({Settings().api_throttle_rate} requests a second in the default profile" in DOC
    assert f"minimum of {sizing.UNRESERVED_MINIMUM}" in DOC
    assert f"table-level quota ({MAX_TABLE_CAPACITY:,} by default)" in DOC
    flat = " ".join(DOC.split())
    assert f"Its rate limit goes up to {validation.MAX_RATE_PER_SECOND:,.0f} a second and its concurrency to {validation.MAX_CONCURRENCY} in flight" in flat
    assert f"`HOOKLINE_TOKEN_LEASE_MIN_RATE` ({Settings().token_lease_min_rate:,.0f} a second)" in flat
    assert f"once a second or per {stats.HOLD_ATTEMPTS} deliveries" in flat and stats.HOLD_SECONDS == 1
    assert f"one write per instance every {stats.VERSION_USE_HOLD_SECONDS:g} s" in flat
    assert f"one of its endpoint's {keys.DELIVERY_SHARDS} delivery-log partitions" in flat
    assert "[docs/scaling.md](docs/scaling.md)" in (REPO / "README.md").read_text()


def test_the_retry_lane_against_timeouts_is_its_instances_batches_over_the_deadline() -> None:
    settings = Settings()
    expected = settings.retry_concurrency * settings.retry_batch_size / settings.request_timeout_seconds
    assert scale.retries_against_timeouts(settings) == expected
    assert _by_name(RESULTS["scale"])["default"]["retries_per_second_against_timeouts"] == int(expected)
    assert f"(`HOOKLINE_REQUEST_TIMEOUT_SECONDS`, {settings.request_timeout_seconds:g} s)" in DOC
    assert f"`HOOKLINE_BREAKER_TIMEOUT_THRESHOLD` ({settings.breaker_timeout_threshold})" in DOC


def test_the_hot_endpoint_at_5000_a_second_writes_no_item_more_than_500_times_a_second(model: dict[str, Any]) -> None:
    hot = model["hot_endpoint"]
    assert hot["rate"] == 5000 and hot["item_bound"] == 500
    for run in hot["runs"]:
        # It is delivered near its paced rate (the limiter keeps a margin under the endpoint's limit), or near all of it
        # under a higher limit
        assert run["sent_per_second"] >= 0.95 * min(hot["rate"], run["limit"] / 1.1)
        items = {k: v for k, v in run["writes"].items() if k != "delivery_log_partition"}
        assert max(items.values()) <= hot["item_bound"], run
        assert run["writes"]["delivery_log_partition"] <= hot["partition_bound"], run
    assert max(run["sent_per_second"] for run in hot["runs"]) >= 0.98 * hot["rate"]


def test_a_tenants_version_use_item_stays_under_a_partitions_writes_at_every_profile(model: dict[str, Any]) -> None:
    for c in model["configurations"]:
        assert c["version_use_writes_per_second"] <= scale.HOT_ITEM_BOUND, c["name"]
    xlarge = _by_name(model)["xlarge"]
    # (one write a batch would be past DynamoDB's 1,000 for one partition at the xlarge rate)
    assert xlarge["deliveries_per_second"] / Settings().delivery_batch_size > 1000
