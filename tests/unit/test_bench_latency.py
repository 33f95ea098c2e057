"""The latency model's arithmetic (bench/models/latency.py): its quantiles of named terms, what each term is made of,
and the inputs it reads from `make bench`'s results. No time is measured here."""

from __future__ import annotations

import pytest

from bench.models import latency
from bench.models.latency import Inputs, Term, quantiles
from hookline.core.settings import Settings

FIXED = Term("fixed", 10.0, "test")


@pytest.mark.parametrize(
    ("terms", "p50", "p99"),
    [
        # fixed times add up, and a fixed path has no tail
        ([FIXED], 10.0, 10.0),
        ([FIXED, Term("calls", 5.0, "test", times=3)], 25.0, 25.0),
        # a term that never happens adds nothing; one that always happens adds all of it
        ([FIXED, Term("never", 1000.0, "test", chance=0.0)], 10.0, 10.0),
        ([FIXED, Term("always", 1000.0, "test", chance=1.0)], 1010.0, 1010.0),
        # a term in 0.5 % of paths stays out of the p99; in 2 % it is in it, and not in the p50
        ([FIXED, Term("rare", 1000.0, "test", chance=0.005)], 10.0, 10.0),
        ([FIXED, Term("two in a hundred", 1000.0, "test", chance=0.02)], 10.0, 1010.0),
        # what follows the arrival is not in the latency
        ([FIXED, Term("the receiver's answer", 20.0, "test", after_arrival=True)], 10.0, 10.0),
    ],
)
def test_quantiles_of_the_terms(terms: list[Term], p50: float, p99: float) -> None:
    got = quantiles(terms, samples=2000)
    assert (got["p50_ms"], got["p99_ms"]) == (p50, p99)


def test_answered_adds_what_follows_the_arrival() -> None:
    got = quantiles([FIXED, Term("the receiver's answer", 20.0, "test", after_arrival=True)], samples=100)
    assert (got["answered_p50_ms"], got["answered_p99_ms"]) == (30.0, 30.0)


def test_a_spread_term_keeps_its_median_and_has_a_tail() -> None:
    # lognormal, sigma 0.5: the median stays, the p99 is median x exp(0.5 x 2.326) = 3.2 x median
    got = quantiles([Term("network", 10.0, "test", sigma=0.5)], samples=20_000)
    assert got["p50_ms"] == pytest.approx(10.0, rel=0.03)
    assert got["p99_ms"] == pytest.approx(32.0, rel=0.06)


def test_the_same_terms_give_the_same_figures() -> None:
    terms = [Term("network", 10.0, "test", sigma=0.5), Term("rare", 500.0, "test", chance=0.01)]
    assert quantiles(terms) == quantiles(terms)


INPUTS = Inputs(
    ingest_cpu_ms=3.0,
    ingest_calls=3,
    delivery_cpu_ms=4.0,
    delivery_calls_before_post=2,
    handshake_chance=0.1,
    receiver_ms=20.0,
    api_memory_mb=512,
    delivery_memory_mb=1769,
    api_import_ms=1000.0,
    delivery_import_ms=800.0,
)


def _by_name(terms: list[Term]) -> dict[str, Term]:
    return {t.name: t for t in terms}


def test_the_terms_stretch_cpu_to_the_functions_share_of_a_vcpu() -> None:
    terms = _by_name(latency.terms(INPUTS))
    assert terms["API function CPU, one 1 KB event"].median_ms == pytest.approx(3.0 * 1769 / 512)
    assert terms["delivery function CPU per task"].median_ms == pytest.approx(4.0)  # a whole vCPU at 1,769 MB


def test_the_terms_count_the_calls_in_a_row_and_the_handshakes_share() -> None:
    terms = _by_name(latency.terms(INPUTS))
    assert terms["API function AWS calls in a row, the SQS send last"].times == 3
    assert terms["delivery AWS calls in a row before the POST"].times == 2
    assert terms["TCP and TLS handshake"].chance == 0.1
    assert terms["the receiver's answer"].after_arrival and terms["the receiver's answer"].median_ms == 20.0


@pytest.mark.parametrize(("window_s", "waited_ms"), [(0, 0.0), (1, 1000.0), (5, 5000.0)])
def test_a_batching_window_is_waited_out_by_a_batch_that_does_not_fill(window_s: int, waited_ms: float) -> None:
    terms = _by_name(latency.terms(Inputs(**{**INPUTS.__dict__, "batch_window_s": window_s})))
    assert terms["batching window (a batch that does not fill waits it out)"].median_ms == waited_ms


def test_cold_starts_are_terms_only_when_asked_for() -> None:
    assert not any("cold start" in t.name for t in latency.terms(INPUTS))
    cold = _by_name(latency.terms(INPUTS, cold_in=100))
    assert cold["API function cold start"].median_ms == pytest.approx(1000.0 * 1769 / 512)
    assert cold["API function cold start"].chance == 0.01
    assert cold["delivery function cold start"].median_ms == pytest.approx(800.0)


def test_one_cold_start_in_a_hundred_lands_in_the_p99() -> None:
    # two functions on the path, each cold once in 100 invocations: about 2 % of events meet one
    figures = latency.model(INPUTS)
    assert figures["p99_ms_one_cold_start_in_100"] > figures["p99_ms"] + 700
    assert figures["p50_ms"] < figures["p99_ms"]


RESULTS = {
    "api": {"cold_start": {"import_ms": 1200.0}, "request_cpu": {"ms": {"POST /v1/events (1 KB)": 3.5}}},
    "cost": {"duration_model": {"1KB": {"ms": {"attempt_ok": 4.2}}}},
    "throughput": {"stand_in": {"batches": {"10": {"sequential_calls": 3.0}}}},
    "connections": {"goal_row": {"per_webhook": 0.09}},
}


def test_inputs_read_the_runs_figures_and_the_stacks_settings() -> None:
    got = latency.inputs(RESULTS, ingest_calls=3, receiver_ms=20.0, settings=Settings(delivery_memory_mb=1024, delivery_batch_window_seconds=1))
    assert got == Inputs(
        ingest_cpu_ms=3.5,
        ingest_calls=3,
        delivery_cpu_ms=4.2,
        delivery_calls_before_post=2,  # the read and the grant: the record follows the answer
        handshake_chance=0.09,
        receiver_ms=20.0,
        api_memory_mb=512,
        delivery_memory_mb=1024,
        batch_window_s=1,
        api_import_ms=1200.0,
        delivery_import_ms=1200.0,  # no per-function figure: the API's import
    )


def test_inputs_take_each_functions_own_import_when_measured() -> None:
    cold = {"import_ms": 1200.0, "functions": {"api": {"import_cpu_ms": 500.0}, "delivery": {"import_cpu_ms": 400.0}}}
    got = latency.inputs({**RESULTS, "api": {**RESULTS["api"], "cold_start": cold}}, 3, 20.0, Settings())
    assert (got.api_import_ms, got.delivery_import_ms) == (500.0, 400.0)


def test_the_report_shows_every_term_and_the_goals() -> None:
    from bench.report.latency import latency_section

    aws = latency.model(INPUTS)
    local = {"events": 10, "rate_per_second": 20.0, "receiver_ms": 20.0, "accept_time": "the start of the POST"}
    local |= {"sent_per_second": 12.0, "p50_ms": 90.0, "p99_ms": 200.0, "max_ms": 250.0, "post_answer_p50_ms": 80.0}
    text = "\n".join(latency_section({"local": local, "ingest_calls": ["dynamodb.PutItem", "sqs.SendMessageBatch"], "aws_model": aws}, "made"))
    for term in aws["terms"]:
        assert f"| {term['what']}" in text
    assert f"| p50, warm (ms) | {aws['p50_ms']} | <= 150 | yes |" in text
    assert f"| p99, one cold start in 100 invocations of each function (ms) | {aws['p99_ms_one_cold_start_in_100']} |" in text
    assert "dynamodb.PutItem, sqs.SendMessageBatch" in text
