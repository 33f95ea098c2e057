"""The cost model's arithmetic: DynamoDB item sizes and units, chunking, pricing, and the path mix from the real policy."""

from __future__ import annotations

import pytest

from bench.measurement.meter import Units, chunks, item_size, read_units, write_units
from bench.models import cost, duration, prices, waits
from bench.models.prices import MILLION, US_EAST_1
from bench.report import floor
from hookline.core.settings import Settings

# The breaker's share of a mix is not what these tests check: a tenth of the benchmark's outcomes keeps them quick.
BREAKER_OUTCOMES = 20_000


def test_item_size_follows_dynamodbs_rules() -> None:
    # Names count, strings are UTF-8 bytes, numbers about one byte per two digits plus one
    assert item_size({"pk": {"S": "abc"}}) == 2 + 3
    assert item_size({"é": {"S": "é"}}) == 2 + 2
    assert item_size({"n": {"N": "12345"}}) == 1 + 4
    assert item_size({"b": {"BOOL": True}, "z": {"NULL": True}}) == 2 + 2
    # Lists and maps: 3 bytes, plus 1 per element, plus the elements (and map keys)
    assert item_size({"l": {"L": [{"S": "ab"}, {"N": "1"}]}}) == 1 + 3 + (1 + 2) + (1 + 2)
    assert item_size({"m": {"M": {"k": {"S": "v"}}}}) == 1 + 3 + 1 + 1 + 1
    assert item_size(None) == 0


def test_units_round_up_and_bill_the_larger_image() -> None:
    assert write_units(0, 1) == 1
    assert write_units(1024, 0) == 1
    assert write_units(300, 1025) == 2  # the larger of before and after
    assert write_units(0, 0) == 1  # a failed conditional write still costs a unit
    assert read_units(0, consistent=False) == 0.5
    assert read_units(4097, consistent=False) == 1.0
    assert read_units(4097, consistent=True) == 2.0
    assert chunks(1) == 1 and chunks(64 * 1024) == 1 and chunks(64 * 1024 + 1) == 2


def test_units_price_by_service() -> None:
    u = Units(dynamodb_write_units=MILLION, sqs_requests=MILLION, api_requests=MILLION, log_bytes=1e9, lambda_gb_seconds=1.0)
    dollars = u.dollars(US_EAST_1)
    assert dollars["dynamodb"] == pytest.approx(0.625)
    assert dollars["sqs"] == pytest.approx(0.40)
    assert dollars["api_gateway"] == pytest.approx(1.00)
    assert dollars["cloudwatch_logs"] == pytest.approx(0.50)
    assert dollars["lambda"] == pytest.approx(0.0000133334)
    assert (u + u).scaled(0.5) == u


def test_path_mix_comes_from_the_retry_policy() -> None:
    # At 98.5 % first-attempt success nearly every webhook takes one attempt; every failure is retried over SQS first
    mix = cost.path_mix(0.985, webhooks=4000, breaker_outcomes=BREAKER_OUTCOMES)
    assert mix.delivered == pytest.approx(1.0)
    assert mix.attempt_fail_sqs == pytest.approx(0.015, abs=0.006)
    assert mix.attempts / mix.delivered == pytest.approx(1 / 0.985, abs=0.01)
    # With only Step Functions for long waits (SQS delays capped at 1 s, no hops), failures go there instead
    long_waits = cost.path_mix(
        0.9, Settings(sqs_max_delay_seconds=1, retry_jitter="equal", sqs_hops_up_to_seconds=0), webhooks=2000, breaker_outcomes=BREAKER_OUTCOMES
    )
    assert long_waits.attempt_fail_sqs == 0
    assert long_waits.attempt_fail_sfn > 0.09
    assert long_waits.claimed == pytest.approx(long_waits.attempt_fail_sfn)
    # With hops (the default bound), the same waits hop through the retry queue: none in Step Functions, every such
    # attempt claims (as one out of Step Functions does), and a wait of n x 900 s is n sends
    hopping = cost.path_mix(0.5, Settings(sqs_max_delay_seconds=1, retry_jitter="equal"), webhooks=2000, breaker_outcomes=BREAKER_OUTCOMES)
    assert hopping.attempt_fail_sfn == 0
    assert hopping.claimed == pytest.approx(hopping.attempt_fail_sqs)
    far = cost.path_mix(0.0, Settings(retry_base_seconds=1800, max_attempts=2, retry_jitter="equal"), webhooks=200, breaker_outcomes=BREAKER_OUTCOMES)
    assert far.attempt_fail_sfn == 0 and 2 <= far.wait_hops <= 4  # one wait of 1,800 to 3,600 s: 2 to 4 sends
    # With one attempt allowed, every failure is exhausted
    one_shot = cost.path_mix(0.9, Settings(max_attempts=1), webhooks=2000, breaker_outcomes=BREAKER_OUTCOMES)
    assert one_shot.attempt_exhausted == pytest.approx(1 - one_shot.delivered)


def test_per_million_weighs_paths_by_the_mix() -> None:
    paths = {name: Units() for name in cost.PATHS}
    paths["ingest_single"] = Units(api_requests=1)
    paths["attempt_ok"] = Units(dynamodb_write_units=2)
    paths["attempt_fail_sqs"] = Units(dynamodb_write_units=3)
    mix = cost.Mix(attempt_ok=0.5, attempt_fail_sqs=0.5, attempt_fail_sfn=0.0, attempt_exhausted=0.0, delivered=0.5)
    units = cost.per_million(paths, mix, "single")
    assert units.api_requests == pytest.approx(2 * MILLION)  # one request per event, half the events delivered
    assert units.dynamodb_write_units == pytest.approx((0.5 * 2 + 0.5 * 3) / 0.5 * MILLION)


def test_the_waits_of_a_delivery_failing_every_attempt_are_priced_term_by_term() -> None:
    # Given a hop, a Step Functions wait's extra units and an attempt path (made-up units)
    paths = {
        "wait_hop": Units(sqs_requests=0.3, lambda_requests=0.1),
        "attempt_fail_sqs": Units(sqs_requests=1.2, dynamodb_write_units=8),
        "attempt_fail_sfn": Units(sqs_requests=1.2, dynamodb_write_units=9, sfn_transitions=2, conditional_conflicts=-1),
    }
    # When the default schedule's waits are priced
    report = waits.waits_report(paths, deliveries=2_000)
    now, before = report["per_delivery"], report["before_per_delivery"]
    # Then a delivery failing all 12 attempts waits 11 times; with hops none is in Step Functions, without them some are
    assert now["waits"] == before["waits"] == 11
    assert now["stepfunctions"] == 0 and before["stepfunctions"] > 4
    assert now["claimed"] == pytest.approx(before["stepfunctions"])  # the same waits over 900 s, taken another way
    # And each term is its count times its unit price: a hop $0.12 + $0.02, a claim two writes, a wait 2 transitions and a write
    assert report["hop_usd_per_million"] == pytest.approx(0.14)
    assert report["stepfunctions_wait_usd_per_million"] == pytest.approx(50.625)
    assert report["terms_usd"]["hops"] == pytest.approx(now["hops"] * 0.14, rel=1e-3)
    assert report["terms_usd"]["claims"] == pytest.approx(now["claimed"] * 1.25, rel=1e-3)
    assert report["usd_per_million_failing_deliveries"] == pytest.approx(sum(report["terms_usd"].values()), abs=1e-3)
    assert report["before_usd_per_million_failing_deliveries"] > 10 * report["usd_per_million_failing_deliveries"]


def test_storage_and_transfer_are_priced_as_lines_of_their_own() -> None:
    u = Units(dynamodb_stored_bytes=1e9, transfer_out_bytes=1e9)
    dollars = u.dollars(US_EAST_1)
    months = 30 / 30.4375  # the 30-day retention, then TTL deletes it
    assert dollars["dynamodb_storage"] == pytest.approx(0.25 * months)
    assert dollars["dynamodb_pitr"] == pytest.approx(0.20 * months)
    assert dollars["data_transfer_out"] == pytest.approx(0.09)


def test_successes_after_a_failure_come_from_the_breakers_rule() -> None:
    # Only the success that ends a failure streak writes the breaker: one right after a failure, 0.015 of them
    assert cost.after_failure_share(0.985, outcomes=50_000) == pytest.approx(0.015, abs=0.003)
    assert cost.after_failure_share(1.0, outcomes=1000) == 0


def test_the_duration_model_states_its_parts() -> None:
    a = duration.ASSUMED
    assert a.connect_ms == a.dns_ms + a.handshake_ms == a.dns_ms + 2 * a.rtt_ms  # a new connection: TCP and one TLS 1.3 round trip
    assert a.slowest_answer_ms(1) == pytest.approx(a.receiver_median_ms)
    assert a.slowest_answer_ms(10) > 2 * a.receiver_median_ms
    sent = duration.Invocation(tasks=10, sends=10, handshakes=3, aws_calls=80, sleeps=[(0.0, 0.1), (0.05, 0.2)])
    assert sent.waited_seconds() == pytest.approx(0.2)  # overlapping sleeps count once
    ms = duration.billed_ms(512, 100.0, sent)
    assert ms == pytest.approx(100 * 1769 / 512 + 8 * a.aws_call_ms + 200 + a.connect_ms + a.slowest_answer_ms(10), abs=1)
    # Every send on a kept-alive connection: its DNS lookup still, no handshake
    reused = duration.billed_ms(512, 100.0, duration.Invocation(tasks=10, sends=10, handshakes=0, aws_calls=80, sleeps=sent.sleeps))
    assert ms - reused == pytest.approx(a.handshake_ms, abs=1)
    assert duration.billed_ms(512, 0.0, duration.Invocation(tasks=1)) == 1  # a started ms is billed


def test_the_floor_counts_the_event_the_limiters_grant_and_give_back_and_the_attempt_record_and_what_leaves_aws() -> None:
    breakdown = {"data_transfer_out": 0.18, "sqs": 0.12, "api_gateway": 0.01, "dynamodb": 9.0, "lambda": 1.0}
    results = {
        "per_million_usd": {"1KB": {"98.5%": {"batch": {"total": 5.5, "breakdown": breakdown}}}},
        "per_path": {"1KB": {"ingest_batch": {"units": {"dynamodb_write_units": 1.0}}}},
    }
    [row] = floor.floor_rows(results)
    # 4 writes at $0.625 per million, plus what leaves AWS, SQS and API Gateway; no read, Lambda or storage
    assert row == {
        "configuration": "1KB/98.5%/batch",
        "goal": 1.50,
        "event_wru": 1.0,
        "floor_wru": 4.0,
        "floor": pytest.approx(4 * 0.625 + 0.31),
        "issue_floor": pytest.approx(2 * 0.625 + 0.31),
        "measured": 5.5,
    }


def test_provisioned_capacity_is_priced_per_unit_hour_over_the_target_use() -> None:
    # A million writes and a million reads a month of deliveries, spread at steady load: each unit a second needs
    # 1/0.7 of a capacity unit, billed by the hour
    found = prices.provisioned(10.0, {"dynamodb": 0.75, "lambda": 9.25}, {"dynamodb_write_units": 1e6, "dynamodb_read_units": 1e6})
    dynamodb = 1e6 * (0.00065 + 0.00013) / 3600 / 0.7
    assert found == {"dynamodb": round(dynamodb, 4), "total": round(10.0 - 0.75 + dynamodb, 4)}
    assert round(dynamodb, 4) == 0.3095  # against $0.75 on demand for the same units
