"""Issue 14's figures against their ideal (bench/report/efficiency.py) and the stand-in AWS of the design's throughput (bench/measurement/standin.py)."""

from __future__ import annotations

from typing import Any

import pytest

from bench.measurement.standin import Latent, StandIn
from bench.report.efficiency import ideal_rows


def _results(drain_vs_ideal: float, peak_in_flight: int, first_success_s: float = 198.3) -> dict[str, Any]:
    return {
        "outage_isolation": {"hookline": {"healthy_p99_during_vs_before": 1.02, "failed_requests_failing": 300}, "baseline": {"failed_requests_failing": 3000}},
        "retry_storm": {"hookline": {"drain_vs_ideal": drain_vs_ideal, "peak_vs_limit": 0.9, "attempts_per_event": 1.0, "requests_during_outage": 18}},
        "slow_subscriber": {"hookline": {"slow_backlog_end_share": 0.01, "others_p99_vs_alone": 1.05}},
        "capacity_limited": {"hookline": {"peak_in_flight": peak_in_flight, "capacity_in_flight": 16}},
        "recovery": {"hookline": {"first_success_after_recovery_s": first_success_s, "first_success_worst_phase_s": 300.4, "probes_per_hour_while_down": 12}},
        "throughput": {
            "batches": {"10": {"handler_cpu_ms_per_delivery": 14.0}},
            "stand_in": {"batches": {"10": {"ratio_to_ideal": 0.81, "sequential_calls": 4.1}}},
        },
    }


def test_each_figure_is_judged_against_its_goal() -> None:
    rows = {r["what"]: r for r in ideal_rows(_results(drain_vs_ideal=1.5, peak_in_flight=16))}
    assert rows["outage isolation: healthy p99 during the outage / before it"]["met"] is True
    assert rows["outage isolation: failed requests to the failing endpoints (hookline / naive baseline)"]["figure"] == 0.1
    assert rows["retry storm: drain time after recovery / ideal (backlog / limit)"]["met"] is False
    assert rows["capacity-limited receiver: most requests in flight / its capacity"] | {} == {
        "what": "capacity-limited receiver: most requests in flight / its capacity",
        "figure": 1.0,
        "goal": "<= 1.0",
        "met": True,
    }
    assert rows["recovery after a 6-hour outage: first success after the receiver is back (s)"]["met"] is True
    probes = rows["recovery: most probes in any hour while down"]
    assert (probes["figure"], probes["goal"], probes["met"]) == (12, "<= 12", True)
    late = {r["what"]: r for r in ideal_rows(_results(drain_vs_ideal=1.0, peak_in_flight=16, first_success_s=3600.0))}
    assert late["recovery after a 6-hour outage: first success after the receiver is back (s)"]["met"] is False
    assert rows["one invocation, batch 10, AWS at 5 ms a call: deliveries/s / ideal"]["met"] is True
    assert rows["one invocation, batch 10: AWS calls in a row on a task's critical path"]["met"] is False
    # The CPU is stated for a 512 MB Lambda: 512/1,769 of a vCPU
    assert rows["one invocation, batch 10: handler CPU per delivery on a 512 MB Lambda (ms)"]["figure"] == round(14.0 * 1769 / 512, 1)


def test_a_latent_port_counts_every_call_and_passes_it_through() -> None:
    calls = [0]
    port = Latent({"a": 1}, 0.0, calls)
    assert port.get("a") == 1 and port.get("b", 2) == 2
    assert calls == [2]


def test_the_stand_in_runs_the_real_handler_over_the_fakes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")  # the handler publishes its metrics; keep them out of other tests
    # One batch of 3 tasks, one per endpoint, with no added latency: each delivered once, through the AWS ports
    stand_in = StandIn(0.0, 3)
    elapsed, cpu, calls = stand_in.run(3)
    assert elapsed > 0.1 and cpu > 0  # the receiver answers in 100 ms
    delivered = [d for d in stand_in.events.all_deliveries() if d.status == "succeeded"]
    assert len(delivered) == 3
    assert calls >= 3 * 2  # at least a plan and a record per task's endpoint
