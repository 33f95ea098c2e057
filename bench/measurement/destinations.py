"""Cost per million delivered webhooks of each destination type, beside HTTP: hookline's side and the customer's.

An endpoint delivers over HTTP, or into a resource in the customer's own AWS account (`hookline.core.destinations`):
an SQS queue (SendMessage), an SNS topic (Publish), an EventBridge bus (PutEvents, one entry), a Kinesis stream
(PutRecord) or an S3 bucket (PutObject), through a role hookline assumes (STS AssumeRole, the credentials cached per
role and external id until 5 minutes before they expire: `hookline.adapters.destinations`). hookline's own path
(API Gateway, the ingest Lambda, DynamoDB, SQS, the delivery Lambda, logs) is the same for every type; what differs
is the successful attempt: an AWS put in place of an HTTP POST (no connection to open, no receiver to wait on, no
data transfer out of AWS for a put in the stack's region), and the put is billed to the resource's owner.

Measured (`measure_paths`, the real handlers under moto with `bench.measurement.meter`): a successful attempt to ten HTTP endpoints
and to ten SQS destinations in another account (`CUSTOMER_ACCOUNT`), alike in everything else, counting every AWS call
the delivery makes into that account (the puts and the AssumeRole calls). The handlers' CPU per attempt of each kind is
measured out of process (`measure_cpu`, as `bench.models.duration.measure_cpu` does), and Lambda time comes from
`bench.models.duration`'s model: a put is one AWS call, `aws_call_ms`, where an HTTP attempt waits on a new connection and the
receiver's answer.

Derived: hookline's cost per million for a type is the HTTP figure of the cost section (`bench.models.cost`) with each
successful attempt's cost replaced by the SQS destination's (the measured difference); SNS, EventBridge, Kinesis and
S3 are priced as that same path, their put being one AWS call as SendMessage is. The customer's side is one put per
delivered webhook (measured for SQS), at its documented price (`bench.models.prices`) for the bytes each type's layout
carries, computed with hookline's own layout functions from the SQS message the run sent.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import boto3

from bench.measurement.harness import REGION, Harness, _sqs, moto_hookline, quiet
from bench.measurement.meter import KB, SQS_CHUNK, Meter, Units, _message_bytes, chunks
from bench.measurement.payloads import event_body
from bench.measurement.receiver import BenchReceiver
from bench.models.cost import ENDPOINTS_PER_SET, INGEST_MODES, SIZES, SUCCESS_RATES, _World
from bench.models.duration import BATCH, _cpu, _receiver_process
from bench.models.prices import MILLION, US_EAST_1, Prices
from hookline.core import destinations
from hookline.wiring import topology

CUSTOMER_ACCOUNT = "111122223333"
ROLE_ARN = f"arn:aws:iam::{CUSTOMER_ACCOUNT}:role/{destinations.ROLE_NAME_PREFIX}orders"
QUEUE_NAME = "hookline-bench-orders"
QUEUE_URL = f"https://sqs.{REGION}.amazonaws.com/{CUSTOMER_ACCOUNT}/{QUEUE_NAME}"
AWS_TYPES: tuple[destinations.DestinationType, ...] = ("sqs", "sns", "eventbridge", "kinesis", "s3")
KINESIS_CHUNK = 25 * KB
EVENTBRIDGE_TIME_BYTES = 14  # an entry's size counts its Time as 14 bytes (PutEvents entry size, EventBridge user guide)
HOURS_PER_MONTH = 730
MEASURED = {"http", "sqs"}
SETTLE_ROUNDS = 30  # at most, of one delivery per endpoint, before measuring
PUT: dict[str, str] = {"http": "POST", **{t: destinations.ACTIONS[t].split(":")[1] for t in AWS_TYPES}}  # what one delivery calls


def customer_session() -> boto3.Session:
    """The customer's own account (moto hands out credentials of the role's account), as tests/integration/test_destinations.py does."""
    creds = boto3.client("sts").assume_role(RoleArn=f"arn:aws:iam::{CUSTOMER_ACCOUNT}:role/admin", RoleSessionName="customer")["Credentials"]
    return boto3.Session(
        aws_access_key_id=creds["AccessKeyId"], aws_secret_access_key=creds["SecretAccessKey"], aws_session_token=creds["SessionToken"], region_name=REGION
    )


def _queue_messages(sqs: Any) -> int:
    attrs = sqs.get_queue_attributes(QueueUrl=QUEUE_URL, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"])
    return sum(int(v) for v in attrs["Attributes"].values())


def _endpoints(harness: Harness, prefix: str, target: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Ten endpoints at the default limits, each subscribed to its own event type (`target`: its url or destination):
    (event types, endpoint ids)."""
    types, ids = [f"{prefix}.t{i}" for i in range(ENDPOINTS_PER_SET)], []
    for t in types:
        # An HTTP endpoint gets a URL of its own: the meter models kept-alive connections per endpoint.
        own = {**target, "url": f"{target['url']}/{t}"} if "url" in target else target
        status, ep = harness.api("POST", "/v1/endpoints", {**own, "event_types": [t]})
        assert status == 201, ep
        ids.append(ep["id"])
    return types, ids


def _sqs_destination() -> dict[str, Any]:
    return {"destination": {"type": "sqs", "queue_url": QUEUE_URL, "role_arn": ROLE_ARN}}


def _health(harness: Harness, ids: list[str]) -> list[dict[str, Any]]:
    """Each endpoint's adaptive concurrency as the API shows it: its lane and its latency baseline."""
    out = []
    for ep in ids:
        status, body = harness.api("GET", f"/v1/endpoints/{ep}")
        assert status == 200, body
        out.append((body.get("health") or {}).get("concurrency") or {})
    return out


def _waiting(queue_url: str) -> int:
    """Messages on a queue, visible, delayed or in flight."""
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesDelayed", "ApproximateNumberOfMessagesNotVisible"]
    return sum(int(v) for v in _sqs().get_queue_attributes(QueueUrl=queue_url, AttributeNames=names)["Attributes"].values())


def _settle(deliver_round: Callable[[], None], harness: Harness, ids: list[str]) -> dict[str, Any]:
    """Rounds of one delivery per endpoint until every endpoint is served from the first lane: the steady state.

    A destination's first put on an instance also assumes the role and builds the client, and that time is the
    attempt's latency, which seeds the endpoint's latency baseline; over `AdaptiveConfig.slow_seconds` the endpoint is
    served from the retry lane until the baseline falls (`hookline.core.adaptive`). What the first round saw is kept."""
    deliver_round()
    first = _health(harness, ids)
    rounds, health = 1, first
    while any(h.get("lane", "first") != "first" for h in health) and rounds < SETTLE_ROUNDS:
        time.sleep(1.0)  # the baseline falls with time, between samples (its time constant: `long_down_seconds`)
        deliver_round()
        rounds += 1
        health = _health(harness, ids)
    return {
        "rounds": rounds,
        "settled": all(h.get("lane", "first") == "first" for h in health),
        "first_round_latency_ms": sorted(h.get("latency_ms") or 0.0 for h in first)[len(first) // 2],
        "first_round_on_retry_lane": sum(h.get("lane", "first") != "first" for h in first),
    }


# -- the handlers' CPU per attempt, out of process ------------------------------------------------------------------


def _samples(
    sets: dict[str, list[str]], one_batch: Callable[[list[str]], float | None], drain_retries: Callable[[], None], runs: int
) -> tuple[dict[str, list[float]], int]:
    """`runs` batches of each set taken in turn (at most four times as many tries): the CPU ms of those in which no task
    was deferred, and how many were."""
    samples: dict[str, list[float]] = {kind: [] for kind in sets}
    deferred = 0
    for _ in range(runs * 4):
        for kind, types in sets.items():
            if len(samples[kind]) >= runs:
                continue
            ms = one_batch(types)
            if ms is None:
                deferred += 1
                drain_retries()  # its deferred tasks delivered: the next batch starts clean
            else:
                samples[kind].append(round(ms, 3))
        if all(len(v) >= runs for v in samples.values()):
            break
    return samples, deferred


def measure_cpu(runs: int = 5, size: int = 1024, progress: Callable[[str], None] = lambda _s: None) -> dict[str, Any]:
    """CPU ms per successful attempt, to an HTTP endpoint and to an SQS destination: the fastest of `runs` batches of ten.

    moto server and the receiver run in processes of their own, so `time.process_time` counts the handler's Python
    (boto3 and the HTTP client included). The same endpoints serve every run, once settled (`_settle`): the steady
    state, with the assumed role's credentials and client cached. A batch in which the limiter deferred a task is
    not a sample (its CPU is not ten attempts'); it is counted in `deferred_batches`."""
    with quiet(), moto_hookline(server=True) as h, _receiver_process(200) as url:
        customer_session().client("sqs").create_queue(QueueName=QUEUE_NAME)
        retry_url = h.env[topology.RETRY_QUEUE.env]

        def one_batch(types: list[str]) -> float | None:
            status, body = h.api("POST", "/v1/events/batch", {"events": [event_body(size, i, t) for i, t in enumerate(types)]})
            assert status == 202, body
            messages = h.receive(topology.DELIVERY_QUEUE, BATCH)
            assert len(messages) == BATCH
            before = _waiting(retry_url)
            event = h.batch_event(topology.DELIVERY_QUEUE, messages)  # the event source mapping's work, not the handler's
            ms = _cpu(lambda: h.invoke_consumer(topology.DELIVERY_QUEUE, event)) / BATCH
            return None if _waiting(retry_url) > before else ms

        def drain_retries() -> None:
            deadline = time.monotonic() + 60
            while _waiting(retry_url) and time.monotonic() < deadline:  # deferred tasks come back, then are sent
                if not h.drain(topology.RETRY_QUEUE):
                    time.sleep(0.2)

        def round_of(types: list[str]) -> Callable[[], None]:
            def run() -> None:
                one_batch(types)
                drain_retries()

            return run

        sets = {"attempt_ok": _endpoints(h, "cpu.http", {"url": url}), "attempt_ok_sqs": _endpoints(h, "cpu.sqs", _sqs_destination())}
        settled = {kind: _settle(round_of(types), h, ids) for kind, (types, ids) in sets.items()}
        progress("cpu: settled")
        samples, deferred = _samples({kind: types for kind, (types, _ids) in sets.items()}, one_batch, drain_retries, runs)
        progress("cpu: sampled")
    missing = [k for k, v in samples.items() if not v]
    if missing:
        raise RuntimeError(f"every batch of {missing} had a task deferred: the machine is too loaded to measure an attempt's CPU")
    return {"runs": runs, "ms": {k: round(min(v), 3) for k, v in samples.items()}, "samples": samples, "deferred_batches": deferred, "settle": settled}


# -- the metered paths ------------------------------------------------------------------------------------------------


def measure_paths(size: int, count: int = 30, cpu: dict[str, float] | None = None, progress: Callable[[str], None] = lambda _s: None) -> dict[str, Any]:
    """A successful attempt to HTTP endpoints and to SQS destinations, metered alike: units per attempt, and the calls into the customer's account.

    Each set is ten endpoints (a batch of ten spans them all, as in `bench.models.cost`), settled first (`_settle`: for an
    SQS destination the first round assumes each endpoint's role, once per role and external id, which every later
    delivery of the run finds cached), then `count` deliveries are measured. A task the limiter defers on the way
    is in its path's figure (it errs high, never low), as in `bench.models.cost`.
    """
    assert count % ENDPOINTS_PER_SET == 0
    cpu = cpu or {}
    with moto_hookline() as harness, BenchReceiver() as receiver:
        customer_sqs = customer_session().client("sqs")
        customer_sqs.create_queue(QueueName=QUEUE_NAME)
        meter = Meter()
        meter.install()
        harness.invoke = meter.invoke
        try:
            w = _World(harness, meter, receiver, size)

            def puts() -> float:
                return meter.units.destination_puts

            def round_of(types: list[str], sent: Callable[[], float] | None = None) -> Callable[[], None]:
                def run() -> None:
                    w.post_events(types, ENDPOINTS_PER_SET)
                    w.deliver_every(ENDPOINTS_PER_SET, sent=sent)

                return run

            paths: dict[str, Units] = {}
            settled: dict[str, Any] = {}
            types, ids = _endpoints(harness, "http", {"url": receiver.url})
            settled["attempt_ok"] = _settle(round_of(types), harness, ids)  # also the warm-up: imports, first clients
            meter.cpu_ms_per_task = cpu.get("attempt_ok", 0.0)
            w.post_events(types, count)
            paths["attempt_ok"] = w.per(count, lambda: w.deliver_every(count))
            progress("http")

            meter.cpu_ms_per_task = cpu.get("attempt_ok_sqs", 0.0)
            types, ids = _endpoints(harness, "sqs", _sqs_destination())
            settled["attempt_ok_sqs"] = _settle(round_of(types, puts), harness, ids)
            calls_before = meter.destination_calls.copy()
            w.post_events(types, count)
            paths["attempt_ok_sqs"] = w.per(count, lambda: w.deliver_every(count, sent=puts))
            progress("sqs")
            assert meter.unattributed == 0, "work ran outside any metered invocation"
            measured_calls = meter.destination_calls - calls_before
            return {
                "paths": paths,
                "endpoints": ENDPOINTS_PER_SET,
                "deliveries": count,
                "settle": settled,
                "calls_per_delivery": {k: round(v / count, 4) for k, v in sorted(measured_calls.items())},
                "calls_in_run": dict(sorted(meter.destination_calls.items())),  # the settling rounds included
                "queue_messages": _queue_messages(customer_sqs),
                "http_requests": len(receiver.received),
                "sample": meter.last_put.get("params", {}),
            }
        finally:
            meter.uninstall()


# -- pricing ----------------------------------------------------------------------------------------------------------


def put_bytes(sample: dict[str, Any]) -> dict[str, int]:
    """What one delivery's put carries for each type, from the SQS message the run sent (its body is the webhook's
    exact body and its attributes the signature headers), laid out as `hookline.core.destinations` lays out each type."""
    body = str(sample["MessageBody"]).encode()
    headers = {k: v["StringValue"] for k, v in (sample.get("MessageAttributes") or {}).items()}
    webhook = json.loads(body)
    detail = json.dumps(destinations.event_detail(headers, body), separators=(",", ":"), ensure_ascii=False)
    record = json.dumps(destinations.envelope(headers, body), separators=(",", ":"), ensure_ascii=False)
    return {
        "sqs": _message_bytes(sample),
        "sns": _message_bytes({"Message": sample["MessageBody"], "MessageAttributes": sample.get("MessageAttributes")}),
        # Source + DetailType + Detail + Time: how PutEvents sizes an entry (64 KB chunks)
        "eventbridge": len(destinations.DEFAULT_EVENT_SOURCE) + len(str(webhook["type"]).encode()) + len(detail.encode()) + EVENTBRIDGE_TIME_BYTES,
        # the record's data and its partition key (the event's customer, else its id)
        "kinesis": len(record.encode()) + len(destinations.partition_key(webhook.get("customer"), webhook["id"]).encode()),
        "s3": len(body),
    }


def customer_lines(kind: str, size: int, puts: float, p: Prices = US_EAST_1) -> dict[str, float]:
    """USD per million delivered billed to the customer's account for `puts` puts per delivered webhook of `size` bytes."""
    n = puts * MILLION
    if kind == "sqs":
        return {"SendMessage": n * chunks(size, SQS_CHUNK) * p.sqs_request}
    if kind == "sns":
        return {"Publish": n * chunks(size, SQS_CHUNK) * p.sns_publish, "delivery to SQS subscriptions": n * p.sns_to_sqs_delivery}
    if kind == "eventbridge":
        return {"PutEvents": n * chunks(size, SQS_CHUNK) * p.eventbridge_put_event}
    if kind == "kinesis":
        return {"PUT payload units": n * chunks(size, KINESIS_CHUNK) * p.kinesis_put_payload_unit}
    if kind == "s3":
        return {"PutObject": n * p.s3_put_request, "storage, one month": n * size / 1e9 * p.s3_standard_gb_month}
    return {}


def destination_report(measured: dict[str, dict[str, Any]], cost: dict[str, Any], cpu: dict[str, Any] | None = None, p: Prices = US_EAST_1) -> dict[str, Any]:
    """The figures `results.json` keeps under "destinations": per payload size, the measured paths and calls, and per
    success rate and ingest mode, each type's cost per million on hookline's side, the customer's, and their total."""
    sizes: dict[str, Any] = {}
    memory_gb = topology.DELIVERY.memory_mb / 1024
    for size_name, run in measured.items():
        http, sqs = run["paths"]["attempt_ok"], run["paths"]["attempt_ok_sqs"]
        difference = {k: round((v - http.dollars(p)[k]) * MILLION, 4) for k, v in sqs.dollars(p).items()}
        change = sum(difference.values())
        puts = round(sqs.destination_puts, 4)  # per successful attempt: one delivered webhook
        carried = put_bytes(run["sample"])
        per_million: dict[str, Any] = {}
        for rate_name in SUCCESS_RATES:
            per_million[rate_name] = {}
            for ingest in INGEST_MODES:
                base = cost["per_million_usd"].get(size_name, {}).get(rate_name, {}).get(ingest)
                if base is None:
                    continue
                rows: dict[str, Any] = {"http": {"hookline": base["total"], "customer": 0.0, "customer_lines": {}, "total": base["total"]}}
                for kind in AWS_TYPES:
                    lines = {k: round(v, 4) for k, v in customer_lines(kind, carried[kind], puts, p).items()}
                    ours = round(base["total"] + change, 4)
                    theirs = round(sum(lines.values()), 4)
                    rows[kind] = {"hookline": ours, "customer": theirs, "customer_lines": lines, "total": round(ours + theirs, 4)}
                per_million[rate_name][ingest] = rows
        sizes[size_name] = {
            "paths": {name: {"usd_per_million": round(sum(u.dollars(p).values()) * MILLION, 4), "units": u.as_dict()} for name, u in run["paths"].items()},
            "difference_per_million": difference,  # an SQS put in place of an HTTP POST, per million successful attempts
            "settle": run.get("settle"),
            "calls_per_delivery": run["calls_per_delivery"],
            "calls_in_run": run["calls_in_run"],
            "endpoints": run["endpoints"],
            "deliveries": run["deliveries"],
            "queue_messages": run["queue_messages"],
            "puts_per_delivery": puts,
            "put_bytes": carried,
            "per_million_usd": per_million,
        }
    return {
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "customer_account": CUSTOMER_ACCOUNT,
        "puts": PUT,
        "measured": sorted(MEASURED),
        "cpu": cpu,
        "sizes": sizes,
        "role_session_seconds": destinations.ROLE_SESSION_SECONDS,
        # Each 10 ms a put takes beyond the model's AWS call (ten puts side by side per invocation of a batch of ten).
        "per_10ms_more_per_put": round(MILLION / ENDPOINTS_PER_SET * 0.010 * memory_gb * p.lambda_gb_second_arm64, 4),
        "kinesis_shard_month": round(p.kinesis_shard_hour * HOURS_PER_MONTH, 2),
        "prices": {
            "sqs_request": p.sqs_request * MILLION,
            "sqs_fifo_request": p.sqs_fifo_request * MILLION,
            "sns_publish": p.sns_publish * MILLION,
            "eventbridge_put_event": p.eventbridge_put_event * MILLION,
            "kinesis_put_payload_unit": p.kinesis_put_payload_unit * MILLION,
            "kinesis_shard_hour": p.kinesis_shard_hour,
            "s3_put_request": p.s3_put_request * MILLION,
            "s3_standard_gb_month": p.s3_standard_gb_month,
            "sts_assume_role": p.sts_assume_role,
        },
    }


def measure(
    cost: dict[str, Any], count: int = 30, cpu_runs: int = 5, sizes: dict[str, int] | None = None, progress: Callable[[str], None] = lambda _s: None
) -> dict[str, Any]:
    """Everything above for each payload size, priced against the cost section's HTTP figures (`results["cost"]`)."""
    started = time.monotonic()
    measured: dict[str, dict[str, Any]] = {}
    cpus: dict[str, Any] = {}
    for size_name, size in (sizes or SIZES).items():
        cpus[size_name] = measure_cpu(runs=cpu_runs, size=size)
        progress(f"{size_name}: cpu")
        measured[size_name] = measure_paths(size, count=count, cpu=cpus[size_name]["ms"])
        progress(f"{size_name}: paths")
    out = destination_report(measured, cost, cpus)
    out["count"] = count
    out["seconds"] = round(time.monotonic() - started, 1)
    out["machine"] = f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(prog="python -m bench.measurement.destinations", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=30, help="deliveries per measured path (a multiple of 10)")
    parser.add_argument("--cpu-runs", type=int, default=5)
    parser.add_argument("--into", type=Path, required=True, help="the results.json whose cost section prices it, and where the figures go")
    args = parser.parse_args(argv)
    results = json.loads(args.into.read_text())
    results["destinations"] = measure(results["cost"], count=args.count, cpu_runs=args.cpu_runs)
    results["destinations"]["command"] = "python -m bench.measurement.destinations " + " ".join(argv if argv is not None else sys.argv[1:])
    args.into.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results["destinations"], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
