"""Lambda duration from a stated model, not from wall time under an emulator.

A delivery invocation is billed for, one after another:
- its CPU work: the handler's CPU per task, measured (the fastest of several runs) with DynamoDB,
  SQS and the receiver in processes of their own, so only the handler's own Python is on the
  clock, then stretched to the function's CPU share (Lambda gives one vCPU at 1,769 MB and a
  proportional share below);
- its AWS round trips: the calls the run made, `AWS_CALL_MS` each, the batch's tasks side by side
  (one lane per task; a lane's calls in a row);
- the limiter's pacing: the seconds the worker actually slept before a send (measured);
- its requests, side by side: a DNS lookup for each (the SSRF guard resolves every POST), a new
  connection (TCP and TLS) when one of them has none to reuse (`Invocation.handshakes`: the meter
  counts a send as reusing its endpoint's connection when the same process sent to that endpoint
  within `HOOKLINE_KEEPALIVE_SECONDS`, hookline.adapters.http.ConnectionPools), and the slowest of
  the batch's answers (the median of the maximum of n lognormal latencies).

`make bench` measures the CPU figures once per run; two runs must agree within 5 %.
"""

from __future__ import annotations

import json
import math
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import partial
from typing import Any

from boto3.dynamodb.types import TypeSerializer

from bench.measurement.harness import Harness, moto_hookline, quiet
from bench.measurement.payloads import event_body
from bench.measurement.receiver import reply_body
from hookline.adapters import aws
from hookline.adapters.dynamo import keys
from hookline.adapters.dynamo.state import STATS, STATS_HOUR, STATS_TOKEN, EndpointStateRepository
from hookline.adapters.http import WebhookClient
from hookline.core import signing
from hookline.core.breaker import Breaker
from hookline.core.models import DeliveryTask
from hookline.core.webhook import webhook_headers
from hookline.wiring import container, topology

LAMBDA_MB_PER_VCPU = 1769  # https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory-computing.html


@dataclass(frozen=True)
class Assumptions:
    """What the duration model assumes; every figure it prints is stated here."""

    receiver_median_ms: float = 100.0  # a receiver's answer, p50 (request sent to response read)
    receiver_sigma: float = 0.5  # lognormal spread of that latency (p99 = 3.2x the median)
    rtt_ms: float = 20.0  # Lambda (us-east-1) to a typical receiver
    dns_ms: float = 5.0  # the client resolves the host on every POST (SSRF guard)
    tls_round_trips: int = 1  # TLS 1.3; 2 for TLS 1.2
    aws_call_ms: float = 5.0  # one DynamoDB / SQS / Step Functions call from Lambda in region, warm HTTPS connection
    tls_client_bytes: int = 700  # what the client sends in a TLS 1.3 handshake (ClientHello, Finished): data out

    @property
    def connect_ms(self) -> float:
        """DNS, TCP and TLS before the request leaves on a new connection."""
        return self.dns_ms + self.handshake_ms

    @property
    def handshake_ms(self) -> float:
        """TCP and TLS: what a kept-alive connection saves (its DNS lookup is made anyway)."""
        return self.rtt_ms * (1 + self.tls_round_trips)

    def slowest_answer_ms(self, sends: int) -> float:
        """The median of the slowest of `sends` parallel answers: median x exp(sigma x z), z the normal quantile of 0.5^(1/n)."""
        if sends <= 0:
            return 0.0
        z = statistics.NormalDist().inv_cdf(0.5 ** (1 / sends))
        return self.receiver_median_ms * math.exp(self.receiver_sigma * z)


ASSUMED = Assumptions()


@dataclass
class Invocation:
    """What one handler invocation did, as the meter saw it."""

    tasks: int = 1
    sends: int = 0
    handshakes: int = 0  # of those, the ones on a new connection
    aws_calls: int = 0
    sleeps: list[tuple[float, float]] = field(default_factory=list)  # (start, end), perf_counter

    def waited_seconds(self) -> float:
        """Wall time some task spent sleeping for the limiter (the union of the sleeps: the tasks run side by side)."""
        total, end = 0.0, -math.inf
        for s, e in sorted(self.sleeps):
            if e > end:
                total += e - max(s, end)
                end = e
        return total


def cpu_at_memory_ms(cpu_ms: float, memory_mb: int) -> float:
    """`cpu_ms` of one full vCPU's work, in wall time on a function of `memory_mb`: Lambda gives one vCPU at
    LAMBDA_MB_PER_VCPU and a proportional share below (more memory adds vCPUs, which one thread does not use)."""
    return cpu_ms * max(1.0, LAMBDA_MB_PER_VCPU / memory_mb)


def billed_ms(memory_mb: int, cpu_ms: float, inv: Invocation, a: Assumptions = ASSUMED) -> int:
    """Milliseconds billed for an invocation (rounded up to the ms)."""
    cpu = cpu_at_memory_ms(cpu_ms, memory_mb)
    lanes = max(1, inv.tasks)
    aws = math.ceil(inv.aws_calls / lanes) * a.aws_call_ms
    wait = inv.waited_seconds() * 1000
    network = (a.dns_ms + (a.handshake_ms if inv.handshakes else 0.0) + a.slowest_answer_ms(inv.sends)) if inv.sends else 0.0
    return max(1, math.ceil(cpu + aws + wait + network))


# -- the CPU figures ---------------------------------------------------------------------------

CPU_KINDS = ("ingest_single", "ingest_batch", "attempt_ok", "attempt_ok_after_failure", "attempt_fail", "defer")
BATCH = 10


@contextmanager
def _receiver_process(status: int) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "bench.measurement.receiver", "--port", str(port), "--status", str(status)])
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("bench receiver did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/webhook"
    finally:
        proc.terminate()
        proc.wait(10)


def _cpu(run: Callable[[], Any]) -> float:
    started = time.process_time()
    run()
    return (time.process_time() - started) * 1000


# -- the floor: the bare calls a delivery cannot do without -------------------------------------

# Per delivery, in the worst case the CPU goal names (a batch of 10, each task a different endpoint), with the
# features kept: the limiter's grant (a conditional write per endpoint and batch: strict concurrency and rate across
# instances), the attempt record (the delivery log), the give-back that frees the concurrency and carries the
# endpoint's statistics (a conditional write per endpoint and batch), the signature, and the POST itself. Each write
# is measured twice: through the handler's own Table (hookline.adapters.aws.dynamodb_table: boto3's Table with
# hookline's codec and transport, as the handler writes), and (`*_low_level`) the same request through a low-level
# client with the same Config and botocore's own send, its values serialized on the clock: how a request is built and
# sent is a choice, not a feature, so the floor takes the cheaper of the two.
FLOOR_WRITES = ("grant", "attempt_record", "give_back")
FLOOR_CALLS = (*FLOOR_WRITES, *(f"{w}_low_level" for w in FLOOR_WRITES), "sign", "post")


def _floor_writes(task: DeliveryTask, version: int, made: int, now: float) -> dict[str, dict[str, Any]]:
    """The three writes of FLOOR_WRITES for `task`, as a Table's UpdateItem requests: on the limiter's `version`
    (created if not there yet, as the handler's writes are) and the delivery's attempt `made`. Each carries no more
    than it must: the grant sets the pace and appends a lease, the record sets the status and keeps the attempt with
    the receiver's 200 B answer, the give-back drops the lease and writes the hour's counters; none carries the rest
    of its item (a first record's base attributes, the limiter's adaptive state)."""
    at = datetime.fromtimestamp(now, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    limiter = keys.limiter(task.tenant, task.endpoint_id)
    on_version = f"attribute_not_exists({keys.PK}) OR version = :v"
    attempt = {
        "number": made,
        "at": at,
        "status_code": 200,
        "duration_ms": 5,
        "outcome": "succeeded",
        "reason": "2xx",
        "response_body": reply_body(200).decode(),
    }
    counts = {"attempts": 2, "succeeded": 2, "first_attempts": 2, "first_attempt_succeeded": 2, "ended_succeeded": 2, "l00": 2}
    return {
        "grant": {
            "Key": limiter,
            "UpdateExpression": "SET tat = :tat, leases = list_append(if_not_exists(leases, :none), :lease), version = :next",
            "ConditionExpression": on_version,
            "ExpressionAttributeValues": {
                ":tat": Decimal(f"{now + 0.2:.6f}"),
                ":none": [],
                ":lease": [Decimal(f"{now + 30:.6f}")],
                ":next": version + 1,
                ":v": version,
            },
        },
        "attempt_record": {
            "Key": keys.delivery(task.tenant, task.event_id, task.delivery_id),
            "UpdateExpression": "SET #s = :status, attempts_made = :n, updated_at = :now, last_status_code = :code, success_attempt = :attempt",
            "ConditionExpression": f"attribute_not_exists({keys.PK}) OR attempts_made < :n",
            "ExpressionAttributeNames": {"#s": "status"},
            "ExpressionAttributeValues": {":status": "succeeded", ":n": made, ":now": at, ":code": 200, ":attempt": attempt},
        },
        "give_back": {
            "Key": limiter,
            "UpdateExpression": f"SET leases = :none, observed_at = :at, version = :next, {STATS_HOUR} = :hour, {STATS} = :stats, {STATS_TOKEN} = :token",
            "ConditionExpression": on_version,
            "ExpressionAttributeValues": {
                ":none": [],
                ":at": Decimal(f"{now:.6f}"),
                ":next": version + 2,
                ":v": version + 1,
                ":hour": at[:13],
                ":stats": counts,
                ":token": str(version + 2),
            },
        },
    }


_SERIALIZE = TypeSerializer().serialize


def _low_level(table_name: str, request: dict[str, Any]) -> dict[str, Any]:
    """A Table's request as the low-level client takes it: the table named, keys and values in DynamoDB's JSON."""
    wire = {k: {name: _SERIALIZE(v) for name, v in request[k].items()} for k in ("Key", "ExpressionAttributeValues")}
    return {**request, **wire, "TableName": table_name}


def _each(call: Callable[..., Any], requests: list[dict[str, Any]], low_level_table: str = "") -> None:
    """`call` with each request; with `low_level_table`, each turned into the low-level client's form first (on the clock)."""
    for request in requests:
        call(**(_low_level(low_level_table, request) if low_level_table else request))


def _floor_cpu(table: Any, client: WebhookClient, tasks: list[DeliveryTask], url: str, size: int) -> dict[str, float]:
    """CPU ms per call of each of FLOOR_CALLS, made bare for `tasks` (a batch's, each to an endpoint of its own, just
    delivered): each write a conditional UpdateItem to moto server (`_floor_writes`), through the handler's own Table
    (`hookline.adapters.aws.dynamodb_table`) and through a low-level client with its Config; the signature by
    `hookline.core.webhook.webhook_headers`; the POST through the handler's own `WebhookClient` on the connection it
    kept to the receiver. The Table's requests are built before the clock starts."""

    now = time.time()
    low_level = aws._client("dynamodb")  # the handler's Config; a client of its own: the Table's client rewrites what it sends
    table_writes: dict[str, list[dict[str, Any]]] = {w: [] for w in FLOOR_WRITES}
    low_level_writes: dict[str, list[dict[str, Any]]] = {w: [] for w in FLOOR_WRITES}
    for task in tasks:
        version = int(table.get_item(Key=keys.limiter(task.tenant, task.endpoint_id), ConsistentRead=True).get("Item", {}).get("version", 0))
        delivery = table.get_item(Key=keys.delivery(task.tenant, task.event_id, task.delivery_id), ConsistentRead=True).get("Item", {})
        made = int(delivery.get("attempts_made", 0)) + 1
        for w, request in _floor_writes(task, version, made, now).items():
            table_writes[w].append(request)
        for w, request in _floor_writes(task, version + 2, made + 1, now).items():  # after the Table's writes
            low_level_writes[w].append(request)
    secret = signing.generate_secret()
    bodies = [json.dumps(event_body(size, i, "floor.sent")).encode() for i in range(len(tasks))]
    signed: list[dict[str, str]] = []
    answers: list[int | None] = []
    client.post(url, bodies[0], webhook_headers(tasks[0].event_id, int(now), bodies[0], [secret]))  # the kept connection, as a warm instance has it
    opened = client.pools.opened()
    ms = {w: _cpu(partial(_each, table.update_item, table_writes[w])) for w in FLOOR_WRITES}
    ms |= {f"{w}_low_level": _cpu(partial(_each, low_level.update_item, low_level_writes[w], table.name)) for w in FLOOR_WRITES}
    ms["sign"] = _cpu(lambda: signed.extend(webhook_headers(t.event_id, int(now), b, [secret]) for t, b in zip(tasks, bodies, strict=True)))
    ms["post"] = _cpu(lambda: answers.extend(client.post(url, b, h).status_code for b, h in zip(bodies, signed, strict=True)))
    if client.pools.opened() != opened or answers != [200] * len(tasks):
        raise RuntimeError(f"the floor's POSTs are meant to be answered 200 on a kept connection: {answers}, {client.pools.opened() - opened} opened")
    return {k: v / len(tasks) for k, v in ms.items()}


def _webhook_client() -> WebhookClient:
    """The delivery handler's own webhook client (container.delivery_worker's), with the connections it keeps."""
    client = getattr(container.delivery_worker().sender.sender, "http", None)
    if not isinstance(client, WebhookClient):
        raise RuntimeError("the delivery worker no longer sends through a WebhookClient at sender.sender.http")
    return client


def measure_cpu(runs: int = 5, size: int = 1024, progress: Callable[[str], None] = lambda _s: None) -> dict[str, Any]:
    """The handlers' own CPU: ms per task (attempts, deferrals) or per invocation (ingest), the fastest of `runs`.

    The fastest, not the median: on this machine the samples are bimodal (e.g. 13 or 26 ms for one success),
    the slow mode being other processes' interference, so a median of five flipped between the two from run to
    run (a 6 % move of the total); the fastest run is the handler's own work, which a Lambda's CPU share gives it.

    moto server and the receivers run in processes of their own, so `time.process_time` counts the
    handler's Python (boto3 and the HTTP client included) and nothing else.

    `floor_ms`: beside each run's batch of successes, the same way, the bare calls a delivery cannot do without with
    its features kept (FLOOR_CALLS, `_floor_cpu`), ms per call: what bench.models.goals.least_cpu sets the CPU goal against.
    """

    samples: dict[str, list[float]] = {k: [] for k in CPU_KINDS}
    floor: dict[str, list[float]] = {k: [] for k in FLOOR_CALLS}
    with quiet(), moto_hookline(server=True) as h, _receiver_process(200) as ok_url, _receiver_process(503) as fail_url:
        table = aws.dynamodb_table(h.env[topology.TABLE.env])
        states = EndpointStateRepository(table)
        sets = 0

        def endpoints(url: str) -> tuple[list[str], list[str]]:
            nonlocal sets
            sets += 1
            types, ids = [f"cpu{sets}.t{i}" for i in range(BATCH)], []
            for t in types:
                status, ep = h.api("POST", "/v1/endpoints", {"url": url, "event_types": [t]})
                assert status == 201, ep
                ids.append(ep["id"])
            return types, ids

        batch_tasks: list[DeliveryTask] = []  # the last batch's

        def one_batch(h: Harness, types: list[str]) -> float:
            status, body = h.api("POST", "/v1/events/batch", {"events": [event_body(size, i, t) for i, t in enumerate(types)]})
            assert status == 202, body
            messages = h.receive(topology.DELIVERY_QUEUE, BATCH)
            assert len(messages) == BATCH
            batch_tasks[:] = [DeliveryTask.from_message(m["Body"]) for m in messages]
            event = h.batch_event(topology.DELIVERY_QUEUE, messages)  # the event source mapping's work, not the handler's
            return _cpu(lambda: h.invoke_consumer(topology.DELIVERY_QUEUE, event)) / BATCH

        for attempt in range(runs + 1):  # the first is a warm-up: imports, clients, pools
            types, _ = endpoints(ok_url)
            single = _cpu(partial(h.api, "POST", "/v1/events", event_body(size, 0, types[0])))
            batch = {"events": [event_body(size, i, types[i % BATCH]) for i in range(100)]}
            many = _cpu(partial(h.api, "POST", "/v1/events/batch", batch))
            h.receive(topology.DELIVERY_QUEUE, 1000)  # the ingest runs' tasks: not measured here
            ok = one_batch(h, types)
            bare = _floor_cpu(table, _webhook_client(), batch_tasks, ok_url, size)
            types_f, ids_f = endpoints(ok_url)
            now = time.time()
            for ep in ids_f:  # a failure streak of one: the success that ends it writes the breaker
                states.save_breaker("bench", ep, Breaker(consecutive_failures=1, recent="0", last_error="http_503", last_failure_at=now), 0)
            after_failure = one_batch(h, types_f)
            fail = one_batch(h, endpoints(fail_url)[0])
            types_d, ids_d = endpoints(ok_url)
            for ep in ids_d:
                states.save_breaker(
                    "bench", ep, Breaker(state="open", consecutive_failures=10, open_until=now + 60, open_since=now, cooldown_seconds=60, trips=1), 0
                )
            defer = one_batch(h, types_d)
            if attempt:
                for kind, value in zip(CPU_KINDS, (single, many, ok, after_failure, fail, defer), strict=True):
                    samples[kind].append(round(value, 3))
                for call, value in bare.items():
                    floor[call].append(round(value, 3))
            progress(f"run {attempt}/{runs}")
    return {
        "runs": runs,
        "ms": {k: round(min(v), 3) for k, v in samples.items()},
        "samples": samples,
        "unit": {k: "per invocation" if k.startswith("ingest") else "per task" for k in CPU_KINDS},
        # the bare calls a delivery cannot do without (FLOOR_CALLS, `_floor_cpu`), ms per call, the fastest of the runs
        "floor_ms": {k: round(min(v), 3) for k, v in floor.items()},
        "floor_samples": floor,
        "assumptions": asdict(ASSUMED) | {"connect_ms": ASSUMED.connect_ms, "handshake_ms": ASSUMED.handshake_ms, "lambda_mb_per_vcpu": LAMBDA_MB_PER_VCPU},
    }
