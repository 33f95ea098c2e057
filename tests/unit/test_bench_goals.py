"""Issue 28's goal table (bench/models/goals.py): each figure judged against its goal, and the arithmetic of a goal that
lies below what the kept features allow."""

from __future__ import annotations

from typing import Any

import pytest

from bench.models import duration, goals
from bench.models.prices import provisioned_dynamodb

BREAKDOWN = {"dynamodb": 2.0, "lambda": 0.5, "dynamodb_storage": 0.45, "dynamodb_pitr": 0.35, "sqs": 0.13, "data_transfer_out": 0.12, "api_gateway": 0.01}
UNITS = {"dynamodb_write_units": 3.2e6, "dynamodb_read_units": 2.0e6, "lambda_requests": 1.0e5}


def _row(total: float, storage: float = 0.45, pitr: float = 0.35) -> dict[str, Any]:
    return {"total": total, "breakdown": BREAKDOWN | {"dynamodb_storage": storage, "dynamodb_pitr": pitr}, "units": UNITS}


def _results(
    total: float,
    per_webhook: float = 0.05,
    drain: float = 1.1,
    cpu: float = 4.0,
    floor_ms: dict[str, float] | None = None,
    fanout: dict[str, Any] | None = None,
    storage: float = 0.45,
) -> dict[str, Any]:
    rows = {"batch": _row(total, storage=storage)} | ({"batch_fanout5": fanout} if fanout else {})
    model: dict[str, Any] = {"ms": {"attempt_ok": cpu}} | ({"floor_ms": floor_ms} if floor_ms else {})
    return {
        "cost": {
            "per_million_usd": {"1KB": {"98.5%": rows}},
            "per_path": {"1KB": {"ingest_batch": {"units": {"dynamodb_write_units": 1.0}}, "ingest_batch_fanout5": {"units": {"dynamodb_write_units": 0.402}}}},
            "duration_model": {"1KB": model},
        },
        "connections": {
            "keepalive_seconds": 4.0,
            "rows": [{"rate_per_second": 1.0, "instances": 1, "per_webhook": 0.02}],
            "goal_row": {"rate_per_second": 1.0, "instances": 2, "per_webhook": per_webhook, "model": 0.135},
        },
        "throughput": {
            "batches": {"10": {"handler_cpu_ms_per_delivery": 4.0}},
            "stand_in": {"batches": {"10": {"ratio_to_ideal": 0.85, "sequential_calls": 3.0}}},
        },
        "retry_storm": {"hookline": {"drain_vs_ideal": drain}},
    }


def test_the_least_cost_counts_the_floors_writes_one_read_retention_and_what_leaves_aws() -> None:
    least = goals.least_cost({"breakdown": BREAKDOWN, "units": UNITS}, event_wru=1.0, mode="on-demand")
    assert least == {
        "writes": 2.5,  # the event, the grant, the give-back and the attempt record at $0.625 a million
        "one read": 0.125,
        "storage and PITR": 0.8,
        "transfer, SQS, API": 0.26,
        "Lambda requests": 0.02,
    }
    provisioned = goals.least_cost({"breakdown": BREAKDOWN, "units": UNITS}, event_wru=1.0, mode="provisioned")
    assert provisioned["writes"] == pytest.approx(4 * 0.00065 / 3600 / 0.7 * 1e6, abs=1e-4)


def test_every_goal_is_judged_and_one_below_the_kept_features_says_why() -> None:
    found = {r["what"]: r for r in goals.rows(_results(total=3.0), floors={"1KB/98.5%/batch": 2.1})}
    on_demand = found["1 KB / 98.5 % / batched, on-demand"]
    # 1.4 x $2.10 = $2.94 is under the least the features allow ($3.71), so the row says so with its sum
    assert on_demand["met"] is False
    assert "the least is $3.71 = writes $2.50 + one read $0.12" in on_demand["note"] and "> $2.94" in on_demand["note"]
    assert found["handler CPU per delivery, batch 10, full speed (ms)"]["met"] is True
    assert found["one invocation, batch 10: AWS calls in a row on a task's path"]["met"] is True
    assert found["retry storm: drain / ideal"]["met"] is True
    handshakes = next(r for w, r in found.items() if w.startswith("handshakes"))
    assert (handshakes["met"], handshakes["note"]) == (True, "")


def test_a_goal_within_reach_and_missed_is_not_excused() -> None:
    found = {r["what"]: r for r in goals.rows(_results(total=3.6, per_webhook=0.13, drain=1.5, storage=0.1), floors={"1KB/98.5%/batch": 3.0})}
    on_demand = found["1 KB / 98.5 % / batched, on-demand"]
    # with $0.45 retained, the least, $3.35, is under both $3.50 and 1.4 x $3.00: the row shows the gap, and no excuse
    assert on_demand["met"] is False and "below what the kept features allow" not in on_demand["note"]
    assert on_demand["note"].startswith("within reach of the kept features: the least is $3.35 = writes $2.50")
    assert on_demand["note"].endswith("<= $3.50; this run carries $0.25 above it")
    assert found["retry storm: drain / ideal"]["met"] is False
    handshakes = next(r for w, r in found.items() if w.startswith("handshakes"))
    assert handshakes["met"] is False and ">= 4.6 s" in handshakes["note"]  # exp(-k x 1/s / 2) <= 0.1 needs k >= 2 ln 10
    assert "lives 4 s" in handshakes["note"]
    assert "NOT met" in goals.printed(list(found.values()))


def _found(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["what"]: r for r in goals.rows(results, floors={})}


FANOUT = "1 KB / 98.5 % / batched fan-out 5, on-demand"
PROVISIONED = "1 KB / 98.5 % / batched, provisioned at steady load"


@pytest.mark.parametrize(
    ("what", "results", "note"),
    [
        # Fan-out 5: the event written once for 5 deliveries, 0.402 WRU each; (0.402 + 3) x $0.625 = $2.13, + one read
        # $0.125 + storage and PITR $0.80 + transfer, SQS, API $0.26 + Lambda requests $0.02 = $3.33 > $2.75
        (
            FANOUT,
            _results(total=3.0, fanout=_row(4.37)),
            "below what the kept features allow: the least is $3.33 = writes $2.13 + one read $0.12 + storage and PITR $0.80 "
            "+ transfer, SQS, API $0.26 + Lambda requests $0.02 > $2.75",
        ),
        # ... and with $0.50 less retained (storage and PITR $0.30) the least, $2.83, is still above the goal
        (FANOUT, _results(total=3.0, fanout=_row(4.37, storage=0.2, pitr=0.1)), "below what the kept features allow: the least is $2.83 = writes $2.13"),
        # Provisioned at 70 %: 4 writes x $0.00065 / 3,600 / 0.7 = $1.03 a million, one read $0.05, + $0.80 + $0.26 + $0.02
        # = $2.16 > $2.00
        (
            PROVISIONED,
            _results(total=5.1),
            "below what the kept features allow: the least is $2.16 = writes $1.03 + one read $0.05 + storage and PITR $0.80 "
            "+ transfer, SQS, API $0.26 + Lambda requests $0.02 > $2.00",
        ),
        # ... and $0.35 less retained puts the least, $1.81, under it; the run's figure: $5.10 - DynamoDB $2.00 + (3.2 M x
        # $0.00065 + 2 M x $0.00013) / 3,600 / 0.7 = $4.03, $2.22 above the least
        (
            PROVISIONED,
            _results(total=5.1, storage=0.1),
            "within reach of the kept features: the least is $1.81 = writes $1.03 + one read $0.05 + storage and PITR $0.45 "
            "+ transfer, SQS, API $0.26 + Lambda requests $0.02 <= $2.00; this run carries $2.22 above it",
        ),
        # met: nothing to say
        (PROVISIONED, _results(total=3.0), ""),
    ],
)
def test_the_fan_out_and_provisioned_rows_show_the_least_the_kept_features_allow(what: str, results: dict[str, Any], note: str) -> None:
    row = _found(results)[what]
    assert row["met"] is (note == "")
    assert row["note"].startswith(note) and (note != "" or row["note"] == "")


def test_the_least_cost_prices_provisioned_capacity_as_the_provisioned_section_does() -> None:
    least = goals.least_cost({"breakdown": BREAKDOWN, "units": UNITS}, event_wru=0.402, mode="provisioned")
    assert least["writes"] == pytest.approx(provisioned_dynamodb(3.402, 0, 0.7) * 1e6, abs=1e-4)
    assert least["one read"] == pytest.approx(provisioned_dynamodb(0, 1, 0.7) * 1e6, abs=1e-4)


# measure_cpu's floor_ms: each write through boto3's Table and (low level) its client; the least takes the cheaper
FLOOR = {
    "grant": 1.25,
    "attempt_record": 1.28,
    "give_back": 1.26,
    "grant_low_level": 1.13,
    "attempt_record_low_level": 1.16,
    "give_back_low_level": 1.16,
    "sign": 0.01,
    "post": 1.37,
}
CPU = "handler CPU per delivery, batch 10, full speed (ms)"


def test_the_least_cpu_takes_each_write_through_the_cheaper_client_the_signature_and_the_post() -> None:
    assert goals.least_cpu(FLOOR) == {"grant": 1.13, "attempt record": 1.16, "give-back": 1.16, "signing": 0.01, "POST": 1.37}
    assert set(goals._WRITE_NAMES) == set(duration.FLOOR_WRITES)
    assert set(FLOOR) == set(duration.FLOOR_CALLS)


@pytest.mark.parametrize(
    ("cpu", "floor_ms", "note"),
    [
        # a results.json from before the floor was measured: the cell stays empty
        (9.8, None, ""),
        # met: nothing to say
        (4.0, FLOOR, ""),
        # 1.13 + 1.16 + 1.16 + 0.01 + 1.37 = 4.83 <= 5: within reach, and 9.8 - 4.83 = 4.97 ms carried above it
        (
            9.8,
            FLOOR,
            "within reach of the kept features: the least is 4.83 ms = grant 1.13 ms + attempt record 1.16 ms + give-back 1.16 ms "
            "+ signing 0.01 ms + POST 1.37 ms <= 5 ms; this run carries 4.97 ms above it",
        ),
        # Table only (no low-level figures): 1.25 + 1.28 + 1.26 + 0.01 + 1.37 = 5.17, over 5 by less than 20 %: not proven
        (9.8, {k: v for k, v in FLOOR.items() if "low_level" not in k}, "at the floor: the least is 5.17 ms = grant 1.25 ms"),
        # a POST of 1.9 ms: 1.13 + 1.16 + 1.16 + 0.01 + 1.9 = 5.36, over 5 by less than the CPU figures' 20 % spread: not proven
        (9.8, FLOOR | {"post": 1.9}, "at the floor: the least is 5.36 ms = grant 1.13 ms"),
        # a POST of 2.8 ms: 1.13 + 1.16 + 1.16 + 0.01 + 2.8 = 6.26 > 6: the goal is below what the kept features allow
        (9.8, FLOOR | {"post": 2.8}, "below what the kept features allow: the least is 6.26 ms = grant 1.13 ms + attempt record 1.16 ms"),
    ],
)
def test_the_cpu_row_says_how_far_the_goal_is_from_the_bare_calls(cpu: float, floor_ms: dict[str, float] | None, note: str) -> None:
    row = _found(_results(total=3.0, cpu=cpu, floor_ms=floor_ms))[CPU]
    assert row["met"] is (cpu <= goals.CPU_GOAL_MS)
    assert row["note"].startswith(note) and (note != "" or row["note"] == "")


def test_what_a_figure_carries_above_the_least_is_each_line_of_the_gap_and_adds_up_to_it() -> None:
    # 4.5 WRU and 2.5 RRU per webhook, 0.3 of the writes lost races: DynamoDB $2.8125 + $0.3125 on demand
    units = {"dynamodb_write_units": 4.5e6, "dynamodb_read_units": 2.5e6, "conditional_conflicts": 0.3e6, "lambda_requests": 1.1e5}
    breakdown = {"dynamodb": 3.125, "lambda": 0.3, "cloudwatch_logs": 0.07, "dynamodb_storage": 0.45, "dynamodb_pitr": 0.35}
    breakdown |= {"sqs": 0.13, "data_transfer_out": 0.11, "api_gateway": 0.01, "step_functions": 0.0, "sns": 0.0}
    row = {"total": round(sum(breakdown.values()), 4), "breakdown": breakdown, "units": units}
    above = goals.above_least(row, event_wru=1.0, mode="on-demand")
    assert above == {
        "lost conditional writes": 0.1875,  # 0.3 x $0.625
        "other writes": 0.125,  # (4.5 - 0.3 lost - 1 event - 3 the floor's) x $0.625
        "reads beyond one": 0.1875,  # 1.5 x $0.125
        "Lambda seconds": 0.278,  # $0.30 less 110,000 requests at $0.20 a million
        "logs": 0.07,
        "the rest": 0.0,
    }
    least = goals.least_cost(row, event_wru=1.0, mode="on-demand")
    assert sum(least.values()) + sum(above.values()) == pytest.approx(row["total"], abs=1e-3)
    # Priced provisioned, the same units: the lines move with the price and still add up to that figure
    provisioned_above = goals.above_least(row, event_wru=1.0, mode="provisioned")
    provisioned_least = goals.least_cost(row, event_wru=1.0, mode="provisioned")
    assert provisioned_above["lost conditional writes"] == pytest.approx(provisioned_dynamodb(0.3, 0, 0.7) * 1e6, abs=1e-4)
    assert sum(provisioned_least.values()) + sum(provisioned_above.values()) == pytest.approx(goals.figure_of(row, "provisioned"), abs=1e-3)
