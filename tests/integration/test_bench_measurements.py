"""The benchmark's measurements at a tiny size: the metered paths and one-invocation throughput cannot rot.

`make bench` runs these first (marker `bench`), not `make test`: they drive the real handlers against a moto
server for about two minutes of CPU, and the adaptive limiter rightly defers tasks when a loaded machine slows
the receiver's answers, which changes what a path costs. The benchmark's model and simulator are checked by the
unit tests (tests/unit/test_bench_*.py) in every `make test`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench import __main__ as bench_cli
from bench.measurement import destinations, latency, localmode, ordered, standin, throughput
from bench.measurement.meter import Units
from bench.models import cost, duration, scale
from bench.report import costs, local, plots
from bench.report import destinations as destinations_report
from bench.report import ordered as ordered_report
from bench.scenarios import catalog

pytestmark = pytest.mark.bench


@pytest.fixture(scope="module")
def cpu() -> dict[str, Any]:
    """Measured in a process of its own, as `make bench` does: the CPU clock of a test worker also counts
    the threads earlier tests left running (receivers, pollers), which made a deferral look dearer than a send."""
    code = "import json, sys; from bench.models import duration; json.dump(duration.measure_cpu(runs=1), sys.stdout)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True, env=env)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.fixture(scope="module")
def paths(cpu: dict[str, Any]) -> dict[str, Units]:
    return cost.measure_paths(1024, count=10, cpu=cpu["ms"])


def test_the_handlers_cpu_is_measured_out_of_process(cpu: dict[str, Any]) -> None:
    assert set(cpu["ms"]) == set(duration.CPU_KINDS)
    assert all(v > 0 for v in cpu["ms"].values())
    # A batch of 100 events costs more CPU than one event (about 15 times); a deferral no more than two sends. Not
    # "less than a send": since a long deferral notes its wait for the sweeper, the two measure within noise of
    # each other on one run (31.4 against 30.2 ms in a loaded CI run)
    assert cpu["ms"]["ingest_batch"] > cpu["ms"]["ingest_single"]
    assert cpu["ms"]["defer"] < 2 * cpu["ms"]["attempt_ok"]


def test_every_path_is_measured_through_the_real_handlers(paths: dict[str, Units]) -> None:
    assert set(paths) == set(cost.PATHS)
    # Ingest: a request per event alone, a hundredth of one in a batch; the event is written either way, and its
    # pending delivery is only planned on it (its item comes with its first recorded attempt)
    assert paths["ingest_single"].api_requests == 1
    assert paths["ingest_batch"].api_requests == pytest.approx(0.01)
    assert paths["ingest_single"].dynamodb_write_units == 1  # the sweeper's note is written only when a request fails
    assert paths["ingest_batch"].dynamodb_write_units == pytest.approx(paths["ingest_single"].dynamodb_write_units)
    # A successful attempt: claim, record and new state at least; SQS only through the event source (receive + delete per 10)
    ok = paths["attempt_ok"]
    assert ok.dynamodb_write_units >= 2  # at least the limiter's grant and the delivery's success
    assert ok.sqs_requests == pytest.approx(0.2)
    assert ok.sfn_transitions == 0 and ok.sns_publishes == 0
    assert ok.lambda_requests == pytest.approx(0.1) and ok.lambda_gb_seconds > 0
    # A hop of a retry not due yet: a send in a batch of ten and the event source's receive and delete, an invocation
    # shared by ten; no read, no write, no transition
    hop = paths["wait_hop"]
    assert hop.sqs_requests == pytest.approx(0.3) and hop.lambda_requests == pytest.approx(0.1)
    assert hop.dynamodb_write_units == hop.dynamodb_read_units == hop.sfn_transitions == 0
    # Honest conditions: the receiver's 200 B answer is stored and the requests leave AWS; two batches at once conflict
    assert ok.dynamodb_stored_bytes > 200 and ok.transfer_out_bytes > 1024
    assert paths["attempt_fail_sqs"].dynamodb_stored_bytes > ok.dynamodb_stored_bytes + 800  # the 1 KB failure body
    # (whether two concurrent batches lose a conditional write in this short run depends on timing: the meter's
    # counting of lost writes is checked deterministically below)
    # A success while the breaker remembers a failure writes the breaker too
    # (net of the conditional writes that lost a race, each billed a write: how many is a matter of timing)
    after_failure = paths["attempt_ok_after_failure"]
    assert after_failure.dynamodb_write_units - after_failure.conditional_conflicts >= ok.dynamodb_write_units - ok.conditional_conflicts + 0.9
    # Fan-out: one event item shared by five deliveries
    assert paths["ingest_batch_fanout5"].dynamodb_write_units < paths["ingest_batch"].dynamodb_write_units
    # At the default 5 in flight, a batch sharing one endpoint defers half its tasks: they come back through the retry queue
    assert paths["attempt_ok_one_endpoint"].lambda_requests > ok.lambda_requests
    # A failure retried over SQS adds one delayed send; a long wait adds a Step Functions execution instead
    assert paths["attempt_fail_sqs"].sqs_requests == pytest.approx(ok.sqs_requests + 1)
    assert paths["attempt_fail_sqs"].sfn_transitions == 0
    assert paths["attempt_fail_sfn"].sfn_transitions == 2
    # Exhaustion: the DLQ send and the operators' notification
    assert paths["attempt_exhausted"].sqs_requests == pytest.approx(ok.sqs_requests + 1)
    assert paths["attempt_exhausted"].sns_publishes == 1
    # Re-schedules (breaker open, rate limit spent) read state, write nothing and send no request (checked inside)
    for name in ("defer_breaker", "defer_ratelimit"):
        assert paths[name].dynamodb_write_units == 0
        assert paths[name].sqs_requests == pytest.approx(1.2)
        assert paths[name].log_bytes > 0


def test_the_report_prices_every_configuration(paths: dict[str, Units]) -> None:
    report = cost.cost_report({"1KB": paths})
    row = report["per_million_usd"]["1KB"]["98.5%"]["batch"]
    assert row["largest"] == max(row["breakdown"], key=row["breakdown"].get)
    assert row["total"] == pytest.approx(sum(row["breakdown"].values()), rel=1e-3)
    single = report["per_million_usd"]["1KB"]["98.5%"]["single"]
    assert single["breakdown"]["api_gateway"] == pytest.approx(1.0, rel=0.02)  # $1 per million requests, one per (delivered) event
    assert single["total"] > row["total"]
    assert report["per_million_usd"]["1KB"]["90%"]["batch"]["total"] > row["total"]
    eb = row["eventbridge_breakdown"]
    assert eb["put_events"] + eb["invocations"] == pytest.approx(1.2, abs=0.02)
    assert eb["data_transfer_out"] == pytest.approx(row["breakdown"]["data_transfer_out"])  # the same requests leave AWS
    for line in ("dynamodb_storage", "dynamodb_pitr", "data_transfer_out"):
        assert row["breakdown"][line] > 0
    assert row["breakdown"]["dynamodb_pitr"] == pytest.approx(row["breakdown"]["dynamodb_storage"] * 0.20 / 0.25, rel=1e-3)
    assert 0.01 < row["successes_after_a_failure"] < 0.02  # only the success that ends a failure streak writes the breaker


@pytest.fixture(scope="module")
def one_invocation() -> dict[str, Any]:
    return throughput.measure(batches=(10,), runs=1)


def test_one_invocation_is_measured_against_the_ideal(one_invocation: dict[str, Any]) -> None:
    result = one_invocation
    got = result["batches"]["10"]
    # Ten 100 ms requests in one invocation, all delivered (checked inside): never faster than one receiver answer
    assert got["elapsed_s"] >= throughput.RECEIVER_SECONDS
    assert 0 < result["ratio_to_ideal"]["10"] <= 1
    assert got["ideal_per_second"] == 100
    assert got["aws_calls_per_delivery"] > 0


def test_the_report_writes_results_docs_and_plots(paths: dict[str, Units], one_invocation: dict[str, Any], cpu: dict[str, Any], tmp_path: Path) -> None:
    # Given every measurement, at a tiny size
    results: dict[str, Any] = {name: run(scale=0.02) for name, run in catalog.ALL.items()}
    results["cost"] = cost.cost_report({"1KB": paths, "16KB": paths}, cpu={"1KB": cpu, "16KB": cpu})
    results["cost"]["previous_run"] = costs.previous_run(
        {"meta": {"command": "make bench", "generated_at": "x"}, "cost": {**results["cost"], "duration_model": {}}}
    )
    results["throughput"] = {**one_invocation, "stand_in": standin.measure(runs=1)}
    results["meta"] = {"command": "make bench", "generated_at": "2026-11-29T00:00:00Z", "scale": 0.02, "seconds": 1.0, "machine": "test"}
    (tmp_path / "results.json").write_text(json.dumps(results))
    # When the docs are rendered from the results file (as `python -m bench --report-only --out DIR` does)
    assert bench_cli.main(["--report-only", "--out", str(tmp_path)]) == 0
    # Then the document has every section, its tables and its plots, and names the command that made them
    doc = (tmp_path / "benchmarks.md").read_text()
    for heading in (
        "Efficiency per delivery",
        "Against the ideal",
        "Outage isolation",
        "Retry storm",
        "Slow subscriber",
        "A capacity-limited receiver",
        "Recovery after a long outage",
        "Flaky receivers",
        "Cost per million",
        "throughput of one invocation",
    ):
        assert heading in doc
    assert doc.count("Made by `make bench`") == 9  # at the top, and under each of the eight sections
    # And the ideal table judges every figure that has a goal
    assert "| outage isolation: healthy p99 during the outage / before it |" in doc
    # And so does the efficiency goals' table
    assert "| 1 KB / 98.5 % / batched, on-demand |" in doc and "| retry storm: drain / ideal |" in doc
    pngs = sorted(p.name for p in (tmp_path / "img").glob("bench-*.png"))
    assert len(pngs) == 6
    for name in pngs:
        assert f"(img/{name})" in doc
        assert (tmp_path / "img" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plots.FLAKY_TABLE_CUMULATIVE[0] == 0.70 and "70.00%" in doc
    # And the scale model ran on the measurements: every profile's rate and binding limit, in results.json and in the
    # table an --out elsewhere gets for docs/scaling.md
    written = json.loads((tmp_path / "results.json").read_text())["scale"]
    assert [c["name"] for c in written["configurations"]][:4] == ["small", "default", "large", "xlarge"]
    assert all(c["deliveries_per_second"] > 0 and c["binding_limit"] for c in written["configurations"])
    assert (tmp_path / "scaling.md").read_text().strip() == scale.rendered(written)
    # The honest cost: both runs' figures side by side, and the per-path units before and after
    assert "Largest move of a total: 0.0% (within the 5 %" in doc
    assert "### Per path (1 KB), before and after" in doc and "attempt_ok_after_failure" in doc


def test_a_lost_conditional_write_is_counted_and_billed(aws: None) -> None:
    # Given the meter installed over a table holding one item
    import boto3
    from botocore.exceptions import ClientError

    from bench.measurement.meter import Meter
    from hookline.wiring import topology
    from local.resources import create_table

    name = create_table(boto3.client("dynamodb"), topology.TABLE, "meter")
    meter = Meter()
    meter.install()
    try:
        table = boto3.resource("dynamodb").Table(name)
        table.put_item(Item={"pk": "a", "sk": "b", "v": "x" * 100})
        # When a conditional put that must fail is made
        with meter.measure() as spent:
            with pytest.raises(ClientError, match="ConditionalCheckFailed"):
                table.put_item(Item={"pk": "a", "sk": "b", "v": "y"}, ConditionExpression="attribute_not_exists(pk)")
        # Then it counts as one lost conditional write, and is billed as a write all the same
        assert spent().conditional_conflicts == 1 and spent().dynamodb_write_units >= 1
    finally:
        meter.uninstall()


@pytest.mark.slow
def test_local_mode_under_load_is_measured_through_its_front_door() -> None:
    # A tiny run (one batch of ten events to five endpoints) so the measurement cannot rot; `make bench` runs it full size
    lm = localmode.measure(batches=1, events_per_batch=10, reads=2)
    assert lm["deliveries"] == 50 and lm["batch_answer_s"]["median"] > 0
    assert set(lm["reads_ms"]) == {"GET /v1/endpoints", "GET /v1/endpoints/{id}"}
    assert all(r["max"] >= r["median"] > 0 for r in lm["reads_ms"].values())
    assert 0 <= lm["backlog_at_reads"] <= 50
    assert local.local_mode_section(lm, "made")[0] == "## Local mode under load"


@pytest.mark.slow
def test_accept_to_receiver_latency_is_measured_through_local_modes_front_door() -> None:
    # A tiny run (ten events) so the measurement cannot rot; `make bench` runs it with latency.EVENTS
    found = latency.measure_local(events=10)
    assert found["events"] == 10 and found["max_ms"] >= found["p99_ms"] >= found["p50_ms"] > 0
    assert found["accept_time"] == "the start of the POST"


def test_the_ingests_aws_calls_are_counted_in_order() -> None:
    # One warm POST /v1/events: the endpoints' read, the event's write, then the send that queues its delivery
    calls = latency.ingest_calls()
    assert calls[-1] == "sqs.SendMessageBatch"
    assert "dynamodb.PutItem" in calls


# -- destinations beside HTTP, and an ordered endpoint's throughput (issue 26) ------------------------------------------


@pytest.fixture(scope="module")
def destination_run() -> dict[str, Any]:
    """A successful attempt to ten HTTP endpoints and to ten SQS queues in the customer's account (no CPU figures: shape only)."""
    return destinations.measure_paths(1024, count=10)


def test_an_sqs_destination_makes_one_put_per_delivery_and_assumes_each_role_once(destination_run: dict[str, Any]) -> None:
    run = destination_run
    # Exactly one SendMessage per delivery and no other call into the customer's account while measured
    assert run["calls_per_delivery"] == {"sqs.SendMessage": 1.0}
    # AssumeRole once per role and external id (each endpoint has its own) for the whole run, at its first put: the cache holds
    assert run["calls_in_run"]["sts.AssumeRole"] == run["endpoints"]
    assert set(run["calls_in_run"]) == {"sqs.SendMessage", "sts.AssumeRole"}
    # Every put landed in the customer's queue; the HTTP set's requests went to the receiver only
    assert run["queue_messages"] == run["calls_in_run"]["sqs.SendMessage"]
    # (whether the endpoints settled on the first lane before the measured deliveries is timing: recorded, not asserted)
    assert run["settle"]["attempt_ok_sqs"]["rounds"] >= 1
    http, sqs = run["paths"]["attempt_ok"], run["paths"]["attempt_ok_sqs"]
    assert sqs.destination_puts == 1 and sqs.assume_role_calls == 0
    assert sqs.destination_put_bytes > 1024 * 0.8  # the webhook's body and its signature attributes
    # A put leaves no byte to the internet; the POST does
    assert sqs.transfer_out_bytes == 0 and http.transfer_out_bytes > 1024
    assert http.destination_puts == 0
    # hookline's own path is still there: the attempt is recorded, the event source received and deleted the task
    assert sqs.dynamodb_write_units >= 2 and sqs.sqs_requests >= 0.2 and sqs.lambda_requests >= 0.1


def test_each_destination_type_is_priced_on_both_sides(destination_run: dict[str, Any]) -> None:
    # Given the cost section's HTTP figure (any: the destinations report adds the measured difference to it)
    cost_section = {"per_million_usd": {"1KB": {"98.5%": {"batch": {"total": 5.0}}}}}
    found = destinations.destination_report({"1KB": destination_run}, cost_section)
    rows = found["sizes"]["1KB"]["per_million_usd"]["98.5%"]["batch"]
    assert set(rows) == {"http", *destinations.AWS_TYPES}
    assert rows["http"] == {"hookline": 5.0, "customer": 0.0, "customer_lines": {}, "total": 5.0}
    for kind in destinations.AWS_TYPES:
        row = rows[kind]
        assert row["total"] == pytest.approx(row["hookline"] + row["customer"], abs=1e-3)
        assert row["customer"] == pytest.approx(sum(row["customer_lines"].values()), abs=1e-3)
        # hookline's side is the same path for every AWS type
        assert row["hookline"] == rows["sqs"]["hookline"]
    # One put of one chunk per delivered webhook, at each type's list price per million
    assert rows["sqs"]["customer_lines"] == {"SendMessage": 0.4}
    assert rows["sns"]["customer"] == pytest.approx(0.5)
    assert rows["eventbridge"]["customer"] == pytest.approx(1.0)
    assert rows["kinesis"]["customer"] == pytest.approx(0.014)
    assert rows["s3"]["customer_lines"]["PutObject"] == pytest.approx(5.0) and rows["s3"]["customer_lines"]["storage, one month"] > 0
    # What the put changed on hookline's side: no data transfer out
    assert found["sizes"]["1KB"]["difference_per_million"]["data_transfer_out"] < 0
    carried = found["sizes"]["1KB"]["put_bytes"]
    assert carried["eventbridge"] > 2 * carried["s3"] > 0  # the detail holds the body twice
    # And the report renders it
    section = destinations_report.destinations_section(found | {"command": "test", "machine": "test", "seconds": 1.0}, "made")
    assert section[0] == "## Cost per million by destination type"
    assert any("billed to the customer's account" in line for line in section)


def test_one_ordered_endpoint_is_served_one_attempt_at_a_time_in_order() -> None:
    # A tiny run (ten events per endpoint; `make bench` runs a hundred)
    found = ordered.measure(events=10, receiver_ms=(5,), side_by_side=2)
    runs = found["runs"]["5"]
    one = runs["ordered"]
    assert one["complete"] and one["delivered"] == 10 and one["repeated"] == 0
    # In order, and never two batches of its message group at once, although two pollers ran
    assert one["in_order"] and one["most_batches_of_a_group_in_flight"] == 1
    assert runs["unordered"]["complete"] and runs["ordered_2_endpoints"]["complete"] and runs["ordered_2_endpoints"]["in_order"]
    # Never faster than the receiver alone allows one attempt at a time; the bound falls as the receiver slows
    assert 0 < one["deliveries_per_second"] <= 1000 / 5
    assert one["overhead_ms_per_attempt"] > 0 and one["aws_calls_per_delivery"] > 0
    bounds = [b["here_per_second"] for b in found["bound"].values()]
    assert bounds == sorted(bounds, reverse=True)
    assert found["lambda_model"]["overhead_ms_per_attempt"] > found["lambda_model"]["connect_ms"]
    section = ordered_report.ordered_section(found, "made")
    assert section[0] == "## Throughput of an ordered (FIFO) endpoint"


def test_the_meter_counts_a_put_into_a_customers_account_apart_from_hooklines_own(aws: None) -> None:
    # Given the meter installed, and the destination adapter's own session (built after it)
    import boto3

    from bench.measurement.meter import Meter
    from hookline.adapters.destinations import AwsDestinations

    url = destinations.customer_session().client("sqs").create_queue(QueueName="orders")["QueueUrl"]
    own = boto3.client("sqs").create_queue(QueueName="own")["QueueUrl"]
    meter = Meter()
    meter.install()
    try:
        adapter = AwsDestinations("us-east-1")
        # When a put goes through it into the customer's account, with a role assumed first
        with meter.measure() as spent:
            client = adapter._client("sqs", "us-east-1", destinations.ROLE_ARN, "hookline-x")
            client.send_message(QueueUrl=url, MessageBody="x" * 100)
            boto3.client("sqs").send_message(QueueUrl=own, MessageBody="y")  # hookline's own session
        # Then the put and the AssumeRole are the customer's, and only hookline's own request is billed to hookline
        assert spent().destination_puts == 1 and spent().assume_role_calls == 1 and spent().destination_put_bytes == 100
        assert spent().sqs_requests == 1
        assert meter.destination_calls == {"sts.AssumeRole": 1, "sqs.SendMessage": 1}
    finally:
        meter.uninstall()
