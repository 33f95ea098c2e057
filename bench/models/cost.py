"""Cost per million delivered webhooks, from the real handlers' AWS calls under moto.

Each path of a delivery runs through the real API and delivery handlers while a
`Meter` counts its billable units: ingest (one event per request, or batches of
100), an attempt that succeeds, one that fails and is retried through an SQS
delay, one whose retry waits in Step Functions, one that is exhausted to the
DLQ, and the re-schedules of a task whose endpoint's breaker is open or whose
rate limit is spent. The mix of paths per delivered webhook then comes from the
real retry policy (`hookline.core.policy.decide`) at a given first-attempt success
rate, and everything is priced from `bench.models.prices`.

Honest conditions: endpoints keep the default limits (ceilings of 50/s and 50 in flight, starting at 5 in flight); batches
are consumed two at a time (as the event source runs several pollers), so the
limiter's and breaker's conditional writes conflict and the lost ones are billed;
the receiver answers 200 B on success and 1 KB on failure; a success on an
endpoint whose breaker still remembers a failure is its own measured path, and
its share of successes comes from the breaker's own rule (`core.breaker.record`);
Lambda time comes from `bench.models.duration`'s stated model.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3

from bench.measurement.harness import Harness, moto_hookline
from bench.measurement.meter import Meter, Units, chunks
from bench.measurement.payloads import event_body
from bench.measurement.receiver import BenchReceiver
from bench.models.prices import MILLION, US_EAST_1, Prices, provisioned
from bench.models.waits import CLAIM, one_wait, waits_report
from hookline.adapters import aws
from hookline.adapters.dynamo.state import EndpointStateRepository
from hookline.core.breaker import Breaker, health, record
from hookline.core.classify import Outcome
from hookline.core.config import breaker_config, retry_policy
from hookline.core.models import DeliveryTask
from hookline.core.policy import decide
from hookline.core.ratelimit import Limiter
from hookline.core.settings import Settings
from hookline.wiring import topology

SIZES = {"1KB": 1024, "16KB": 16 * 1024}
SUCCESS_RATES = {"98.5%": 0.985, "90%": 0.90}
INGEST_MODES = ("single", "batch", "batch_fanout5")
ENDPOINTS_PER_SET = 10  # a batch of ten tasks spans ten endpoints: no per-endpoint write is shared
FANOUT = 5  # endpoints subscribed to each event of the fan-out ingest
CONCURRENT_BATCHES = 2  # batches consumed at once: the event source runs several pollers
PATHS = (
    "ingest_single",
    "ingest_batch",
    "ingest_batch_fanout5",
    "attempt_ok",
    "attempt_ok_after_failure",
    "attempt_ok_one_endpoint",
    "attempt_fail_sqs",
    "attempt_fail_sfn",
    "attempt_exhausted",
    "defer_breaker",
    "defer_ratelimit",
    "wait_hop",
)
DEFAULT_WAITS = {
    "HOOKLINE_SQS_MAX_DELAY_SECONDS": str(Settings().sqs_max_delay_seconds),
    "HOOKLINE_SQS_HOPS_UP_TO_SECONDS": str(Settings().sqs_hops_up_to_seconds),
    "HOOKLINE_MAX_ATTEMPTS": str(Settings().max_attempts),
    "HOOKLINE_RETRY_JITTER": Settings().retry_jitter,
}
HOP_AHEAD_SECONDS = 3600  # the measured hops' tasks are due this far ahead: each goes back with SQS's longest delay


@dataclass
class _World:
    harness: Harness
    meter: Meter
    receiver: BenchReceiver
    size: int
    sets: int = 0
    cpu: dict[str, float] = field(default_factory=dict)

    def endpoints(self, **extra: Any) -> tuple[list[str], list[str]]:
        """A fresh set of endpoints, each subscribed to its own event type; returns (types, endpoint ids)."""
        self.sets += 1
        types = [f"set{self.sets}.t{i}" for i in range(ENDPOINTS_PER_SET)]
        ids = []
        for t in types:
            # The default limits (ceilings of 50/s and 50 in flight; a new endpoint starts at 5), as a customer's endpoint gets them.
            # Each its own URL: the meter models kept-alive connections per endpoint (bench.measurement.meter.Units.handshakes).
            status, ep = self.harness.api("POST", "/v1/endpoints", {"url": f"{self.receiver.url}/{t}", "event_types": [t], **extra})
            assert status == 201, ep
            ids.append(ep["id"])
        return types, ids

    def post_events(self, types: list[str], count: int) -> None:
        for i in range(count):
            status, body = self.harness.api("POST", "/v1/events", event_body(self.size, i, types[i % len(types)]))
            assert status == 202, body
            self.meter.api_request(len(json.dumps(event_body(self.size, i, types[i % len(types)]))))

    def deliver_all(self, queue: topology.QueueSpec = topology.DELIVERY_QUEUE) -> int:
        """Drain a queue, CONCURRENT_BATCHES invocations at a time."""
        total = 0
        with ThreadPoolExecutor(CONCURRENT_BATCHES) as pool:
            while True:
                batches = [b for b in (self.harness.receive(queue, 10) for _ in range(CONCURRENT_BATCHES)) if b]
                if not batches:
                    return total
                list(pool.map(lambda b: self.harness.consume(queue, b), batches))
                total += sum(len(b) for b in batches)

    def deliver_every(self, sends: int, deadline_seconds: float = 60.0, sent: Callable[[], float] | None = None) -> None:
        """Drain the delivery queue, then the retry queue as deferred tasks come back, until `sends` more requests were
        sent (to the receiver, or what `sent` counts: an AWS destination's puts)."""
        count = sent or (lambda: len(self.receiver.received))
        target = count() + sends
        self.deliver_all()
        deadline = time.monotonic() + deadline_seconds
        while count() < target:
            assert time.monotonic() < deadline, f"{target - count()} deferred tasks never came back"
            if not self.deliver_all(topology.RETRY_QUEUE):
                time.sleep(0.2)

    def per(self, count: int, run: Callable[[], Any]) -> Units:
        with self.meter.measure() as spent:
            run()
        return spent().scaled(1 / count)


def measure_paths(  # noqa: PLR0915 - one measurement script, path after path
    size: int, count: int = 30, progress: Callable[[str], None] = lambda _s: None, cpu: dict[str, float] | None = None
) -> dict[str, Units]:
    """Billable units per occurrence of each path, for events of `size` bytes.

    `cpu` is `bench.models.duration.measure_cpu(...)["ms"]`: the CPU figures the duration model charges each path.
    """
    assert count % ENDPOINTS_PER_SET == 0
    cpu = cpu or {}
    paths: dict[str, Units] = {}
    with moto_hookline() as harness, BenchReceiver() as receiver:
        meter = Meter()
        meter.install()
        harness.invoke = meter.invoke

        def charge(api: str = "ingest_single", task: str = "attempt_ok") -> None:
            meter.cpu_ms_per_api_call = cpu.get(api, 0.0)
            meter.cpu_ms_per_task = cpu.get(task, 0.0)

        try:
            w = _World(harness, meter, receiver, size, cpu=cpu)
            types, _ = w.endpoints()
            w.per(1, lambda: w.post_events(types, ENDPOINTS_PER_SET))  # warm up: imports and first clients are not steady state
            w.deliver_every(ENDPOINTS_PER_SET)
            # Hops first, while the retry queue holds nothing else; what they queue again is purged, so no later path meets it.
            paths["wait_hop"] = measure_hops(w, count)
            harness.purge(topology.RETRY_QUEUE)
            progress("ingest")
            charge("ingest_single")
            paths["ingest_single"] = w.per(count, lambda: w.post_events(types, count))
            batch = {"events": [event_body(size, i, types[i % len(types)]) for i in range(100)]}

            def post_batch(body: dict[str, Any]) -> None:
                status, reply = harness.api("POST", "/v1/events/batch", body)
                assert status == 202, reply
                meter.api_request(len(json.dumps(body)))

            charge("ingest_batch")
            paths["ingest_batch"] = w.per(100, lambda: post_batch(batch))
            progress("attempts")
            charge(task="attempt_ok")
            # deliver_every: on a loaded machine a slow answer can send an endpoint's next tasks to the retry lane
            # (hookline.core.planning); their deferral is then in the figure, which errs high, never low.
            paths["attempt_ok"] = w.per(count + 100, lambda: w.deliver_every(count + 100))
            assert len(receiver.received) == ENDPOINTS_PER_SET + count + 100
            # Fan-out: every event goes to FANOUT endpoints; priced per delivery (the attempts are measured apart).
            fan_types = [f"fan{i}" for i in range(2)]
            for t in fan_types:
                for k in range(FANOUT):
                    status, _ep = harness.api("POST", "/v1/endpoints", {"url": f"{receiver.url}/{t}/{k}", "event_types": [t]})
                    assert status == 201
            charge("ingest_batch")
            fan_events = 100 if count >= 30 else count  # a full batch in `make bench`; fewer in the tests, which only check the shape
            fan_batch = {"events": [event_body(size, i, fan_types[i % 2]) for i in range(fan_events)]}
            paths["ingest_batch_fanout5"] = w.per(fan_events * FANOUT, lambda: post_batch(fan_batch))
            harness.purge(topology.DELIVERY_QUEUE)
            # The same, when every batch of ten shares one endpoint (its limiter and stats writes are shared too).
            status, _ = harness.api("POST", "/v1/endpoints", {"url": f"{receiver.url}/hot", "event_types": ["hot"]})
            assert status == 201
            w.post_events(["hot"], count)
            # A new endpoint starts at 5 in flight: half of the first batches is deferred and comes back through the retry queue, that is in the path.
            paths["attempt_ok_one_endpoint"] = w.per(count, lambda: w.deliver_every(count))

            # A success while the breaker remembers a failure: one real failed attempt per endpoint first.
            types, _ = w.endpoints()
            receiver.status = 503
            w.post_events(types, ENDPOINTS_PER_SET)
            w.deliver_every(ENDPOINTS_PER_SET)
            receiver.status = 200
            w.post_events(types, count)
            charge(task="attempt_ok_after_failure")
            paths["attempt_ok_after_failure"] = w.per(count, lambda: w.deliver_every(count))

            receiver.status = 503
            charge(task="attempt_fail")
            for name, settings in (
                ("attempt_fail_sqs", {}),
                # every retry waits > 1 s, and none hops: Step Functions
                ("attempt_fail_sfn", {"HOOKLINE_SQS_MAX_DELAY_SECONDS": "1", "HOOKLINE_RETRY_JITTER": "equal", "HOOKLINE_SQS_HOPS_UP_TO_SECONDS": "0"}),
                ("attempt_exhausted", {"HOOKLINE_MAX_ATTEMPTS": "1"}),
            ):
                harness.configure(**{**DEFAULT_WAITS, **settings})
                types, _ = w.endpoints()  # fresh endpoints: three failures each stay under the breaker's threshold
                w.post_events(types, count)
                paths[name] = w.per(count, lambda: w.deliver_every(count))
            harness.configure(**DEFAULT_WAITS)
            receiver.status = 200
            progress("deferrals")

            charge(task="defer")
            states = EndpointStateRepository(aws.dynamodb_table(harness.env[topology.TABLE.env]))
            now = time.time()
            types, ids = w.endpoints()
            deferred_types = list(types)
            for ep in ids:
                states.save_breaker(
                    "bench", ep, Breaker(state="open", consecutive_failures=10, open_until=now + 60, open_since=now, cooldown_seconds=60, trips=1), 0
                )
            w.post_events(types, count)
            paths["defer_breaker"] = w.per(count, w.deliver_all)
            types, ids = w.endpoints()
            deferred_types += types
            for ep in ids:
                states.save_limiter("bench", ep, Limiter(tat=now + 60), 0)
            w.post_events(types, count)
            paths["defer_ratelimit"] = w.per(count, w.deliver_all)
            # Deferred tasks sent nothing. (A task of an earlier path that comes back from a deferral of its own may
            # send meanwhile, on a busy machine: its units then count here too, which errs high, never low.)
            sent = receiver.types & set(deferred_types)
            assert not sent, f"deferred tasks sent webhooks of {sorted(sent)}"
            assert meter.unattributed == 0, "work ran outside any metered invocation"
        finally:
            meter.uninstall()
    return paths


def measure_hops(w: _World, count: int) -> Units:
    """Units per hop of a retry hopping to its due time: `count` tasks due HOP_AHEAD_SECONDS ahead put on the retry
    queue (unmetered, as the hop before them would), received and queued again by the retry function, ten a batch.
    A hop reads nothing and decides little: it is charged a deferral's CPU, which errs high."""
    sqs = boto3.session.Session().client("sqs")  # a session of its own: the meter does not see the setup
    url = w.harness.env[topology.RETRY_QUEUE.env]
    due = int(time.time()) + HOP_AHEAD_SECONDS
    tasks = [DeliveryTask("bench", f"evt_hop{i}", f"dlv_hop{i}", f"ep_hop{i % ENDPOINTS_PER_SET}", attempt=6, due=due) for i in range(count)]
    for start in range(0, count, 10):
        entries = [{"Id": str(i), "MessageBody": t.to_message()} for i, t in enumerate(tasks[start : start + 10])]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    w.meter.cpu_ms_per_task = w.cpu.get("defer", 0.0)
    units = w.per(count, lambda: w.deliver_all(topology.RETRY_QUEUE))
    assert not w.receiver.types & {t.endpoint_id for t in tasks}, "a hop sent a webhook"
    return units


def measure_hop_path(size: int, cpu: dict[str, float], count: int = 30) -> Units:
    """The `wait_hop` path alone (`python -m bench.models.waits`), measured as `measure_paths` measures it."""
    with moto_hookline() as harness, BenchReceiver() as receiver:
        meter = Meter()
        meter.install()
        harness.invoke = meter.invoke
        try:
            units = measure_hops(_World(harness, meter, receiver, size, cpu=cpu), count)
            assert meter.unattributed == 0, "work ran outside any metered invocation"
        finally:
            meter.uninstall()
    return units


def after_failure_share(success_rate: float, outcomes: int = 200_000, seed: int = 11) -> float:
    """Of an endpoint's successes, the share that writes its breaker: `core.breaker.record` over independent outcomes.

    Only the success that ends a failure streak writes it, so at 98.5 % about one success in 66 does.
    """
    rng = random.Random(seed)
    cfg = breaker_config(Settings())  # the stack's defaults
    b = Breaker()
    successes = writes = 0
    for i in range(outcomes):
        ok = rng.random() < success_rate
        change = record(b, health(Outcome(status_code=200 if ok else 503)), float(i), cfg)
        if ok:
            successes += 1
            writes += change is not None
        if change is not None:
            b = change.state if change.state.state == "closed" else Breaker(recent=change.state.recent)  # an opening is out of scope here
    return writes / max(1, successes)


@dataclass(frozen=True)
class Mix:
    """Paths per webhook: attempts by how they ended, from the real retry policy."""

    attempt_ok: float
    attempt_fail_sqs: float
    attempt_fail_sfn: float
    attempt_exhausted: float
    delivered: float
    after_failure: float = 0.0  # of the successes, the share that finds a failure in the breaker's memory
    wait_hops: float = 0.0  # hops through the retry queue beyond each wait's first send (hookline.core.waits)
    claimed: float = 0.0  # attempts after a wait that hopped or was in Step Functions: their task claims instead of reading

    @property
    def attempts(self) -> float:
        return self.attempt_ok + self.attempt_fail_sqs + self.attempt_fail_sfn + self.attempt_exhausted


def path_mix(success_rate: float, settings: Settings | None = None, webhooks: int = 20_000, seed: int = 7, breaker_outcomes: int = 200_000) -> Mix:
    """Each attempt succeeds with `success_rate` (independently); failures are 503s scheduled by `decide`; the breaker's
    share (`after_failure`) over `breaker_outcomes` outcomes."""
    settings = settings or Settings()
    policy = retry_policy(settings)
    rng = random.Random(seed)
    counts = {"attempt_ok": 0, "attempt_fail_sqs": 0, "attempt_fail_sfn": 0, "attempt_exhausted": 0}
    hopped = {"wait_hops": 0, "claimed": 0}
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for _ in range(webhooks):
        now, attempt = start, 1
        while True:
            if rng.random() < success_rate:
                counts["attempt_ok"] += 1
                break
            decision = decide(attempt, start, Outcome(status_code=503), now, policy, rng)
            if decision.retry_in_seconds is None:
                counts["attempt_exhausted"] += 1
                break
            path, extra_hops, claims = one_wait(decision.retry_in_seconds, now, settings)
            counts["attempt_fail_sfn" if path == "stepfunctions" else "attempt_fail_sqs"] += 1
            hopped["wait_hops"] += extra_hops
            hopped["claimed"] += claims
            now += timedelta(seconds=decision.retry_in_seconds)
            attempt += 1
    share = after_failure_share(success_rate, breaker_outcomes)
    return Mix(
        **{k: v / webhooks for k, v in counts.items()},
        delivered=counts["attempt_ok"] / webhooks,
        after_failure=share,
        **{k: v / webhooks for k, v in hopped.items()},
    )


def per_million(paths: dict[str, Units], mix: Mix, ingest: str, success: str = "attempt_ok") -> Units:
    """Units per million delivered webhooks (one subscribed endpoint per event, or FANOUT for `batch_fanout5`).

    `success` names the successful attempt's path on a pristine breaker; the `mix.after_failure` share of
    successes takes `attempt_ok_after_failure` instead (when measured).
    """
    after = mix.after_failure if "attempt_ok_after_failure" in paths else 0.0
    one = paths[f"ingest_{ingest}"] + paths[success].scaled(mix.attempt_ok * (1 - after))
    if after:
        one = one + paths["attempt_ok_after_failure"].scaled(mix.attempt_ok * after)
    for name in ("attempt_fail_sqs", "attempt_fail_sfn", "attempt_exhausted"):
        one = one + paths[name].scaled(getattr(mix, name))
    if "wait_hop" in paths:
        one = one + paths["wait_hop"].scaled(mix.wait_hops) + CLAIM.scaled(mix.claimed)
    return one.scaled(MILLION / mix.delivered)


def eventbridge_per_million(size: int, mix: Mix, transfer_out_bytes: float = 0.0, p: Prices = US_EAST_1) -> dict[str, float]:
    """EventBridge API destinations: PutEvents (per 64 KB), one invocation per attempt, and the same requests' data transfer out.

    `transfer_out_bytes` is per million delivered (hookline's requests: EventBridge sends the same body and
    similar headers, and whether it reuses connections is not documented). It stores nothing: no delivery log,
    so no storage line (an archive for replay would add $0.10/GB archived and $0.023/GB-month).
    """
    return {
        "put_events": chunks(size) * p.eventbridge_put_event * MILLION / mix.delivered,
        "invocations": mix.attempts * p.eventbridge_api_destination_invocation * MILLION / mix.delivered,
        "data_transfer_out": transfer_out_bytes / 1e9 * p.data_transfer_out_gb,
        "storage": 0.0,
    }


def _total(units: Units, p: Prices) -> float:
    return sum(units.dollars(p).values())


def cost_report(paths_by_size: dict[str, dict[str, Units]], p: Prices = US_EAST_1, cpu: dict[str, Any] | None = None) -> dict[str, Any]:
    per_million_usd: dict[str, Any] = {}
    for size_name, paths in paths_by_size.items():
        per_million_usd[size_name] = {}
        for rate_name, rate in SUCCESS_RATES.items():
            mix = path_mix(rate)
            per_million_usd[size_name][rate_name] = {}
            for ingest in INGEST_MODES:
                if f"ingest_{ingest}" not in paths:
                    continue
                units = per_million(paths, mix, ingest)
                breakdown = {k: round(v, 4) for k, v in sorted(units.dollars(p).items(), key=lambda kv: -kv[1])}
                total = _total(units, p)
                eventbridge = eventbridge_per_million(SIZES[size_name], mix, units.transfer_out_bytes, p)
                eb_total = sum(eventbridge.values())
                per_million_usd[size_name][rate_name][ingest] = {
                    "total": round(total, 4),
                    "breakdown": breakdown,
                    "largest": next(iter(breakdown)),
                    "units": {k: round(v, 1) for k, v in units.as_dict().items()},
                    "attempts_per_webhook": round(mix.attempts / mix.delivered, 4),
                    "successes_after_a_failure": round(mix.after_failure, 4),
                    "eventbridge_api_destinations": round(eb_total, 4),
                    "eventbridge_breakdown": {k: round(v, 4) for k, v in eventbridge.items()},
                    "ratio_to_eventbridge": round(total / eb_total, 3),
                    "total_when_batches_share_an_endpoint": round(_total(per_million(paths, mix, ingest, "attempt_ok_one_endpoint"), p), 4),
                    "provisioned": provisioned(total, breakdown, units.as_dict(), p),
                }
    per_path = {
        size_name: {name: {"usd_per_million": round(_total(u, p) * MILLION, 4), "units": u.as_dict()} for name, u in paths.items()}
        for size_name, paths in paths_by_size.items()
    }
    out: dict[str, Any] = {"per_million_usd": per_million_usd, "per_path": per_path, "prices": asdict(p)}
    first = next(iter(paths_by_size.values()), {})
    if "wait_hop" in first:
        out["waits"] = waits_report(first, p)
    if cpu is not None:
        out["duration_model"] = cpu
    return out


def _stored_units(stored: dict[str, Any]) -> Units:
    names = {f.name for f in fields(Units)}
    return Units(**{k: v for k, v in stored["units"].items() if k in names})


def hops_only(target: Path) -> dict[str, Any]:
    """Measure the `wait_hop` path alone (each payload size), then price the cost section again from `target`'s
    measured units with it (`cost.waits` included), and write it back: `python -m bench.models.cost --hops-only`."""
    results = json.loads(target.read_text())
    section = results["cost"]
    paths_by_size: dict[str, dict[str, Units]] = {}
    for size_name, size in SIZES.items():
        paths = {name: _stored_units(stored) for name, stored in section["per_path"][size_name].items()}
        paths["wait_hop"] = measure_hop_path(size, cpu=section["duration_model"][size_name]["ms"])
        paths_by_size[size_name] = paths
    results["cost"] = {**section, **cost_report(paths_by_size, cpu=section["duration_model"])}
    target.write_text(json.dumps(results, indent=1) + "\n")
    return dict(results["cost"]["waits"])


if __name__ == "__main__":
    if sys.argv[1:2] != ["--hops-only"]:
        raise SystemExit("usage: python -m bench.models.cost --hops-only [results.json]  (make bench measures everything)")
    print(json.dumps(hops_only(Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).resolve().parents[1] / "results.json"), indent=1))
