"""Cost per million delivered webhooks, from the real handlers' AWS calls under moto.

Each path of a delivery runs through the real API and delivery handlers while a
`Meter` counts its billable units: ingest (one event per request, or batches of
100), an attempt that succeeds, one that fails and is retried through an SQS
delay, one whose retry waits in Step Functions, one that is exhausted to the
DLQ, and the re-schedules of a task whose endpoint's breaker is open or whose
rate limit is spent. The mix of paths per delivered webhook then comes from the
real retry policy (`hookline.core.policy.decide`) at a given first-attempt success
rate, and everything is priced from `bench.prices`.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.harness import Harness, moto_hookline
from bench.meter import Meter, Units, chunks
from bench.prices import MILLION, US_EAST_1, Prices
from hookline.adapters import aws
from hookline.adapters.dynamo.state import EndpointStateRepository
from hookline.core.breaker import Breaker
from hookline.core.classify import Outcome
from hookline.core.config import retry_policy
from hookline.core.policy import decide
from hookline.core.ratelimit import Limiter
from hookline.core.settings import Settings
from hookline.wiring import topology
from local.receiver import WebhookReceiver

SIZES = {"1KB": 1024, "16KB": 16 * 1024}
SUCCESS_RATES = {"98.5%": 0.985, "90%": 0.90}
INGEST_MODES = ("single", "batch")
ENDPOINTS_PER_SET = 10  # a batch of ten tasks spans ten endpoints: no per-endpoint write is shared
PATHS = (
    "ingest_single",
    "ingest_batch",
    "attempt_ok",
    "attempt_ok_one_endpoint",
    "attempt_fail_sqs",
    "attempt_fail_sfn",
    "attempt_exhausted",
    "defer_breaker",
    "defer_ratelimit",
)


_WORDS = [
    "invoice",
    "order",
    "customer",
    "payment",
    "refund",
    "shipment",
    "account",
    "plan",
    "seat",
    "coupon",
    "tax",
    "region",
    "warehouse",
    "carrier",
    "label",
    "status",
    "pending",
    "paid",
    "failed",
    "captured",
    "settled",
    "partial",
    "monthly",
    "annual",
    "trial",
    "premium",
    "basic",
    "blue",
    "green",
    "large",
    "small",
    "express",
    "standard",
    "priority",
    "return",
    "exchange",
    "gift",
    "card",
    "bank",
    "transfer",
    "wallet",
]


def event_body(size: int, n: int, event_type: str) -> dict[str, Any]:
    """An event whose webhook body (envelope included) is about `size` bytes of realistic JSON.

    Line items with random ids, amounts and words: it compresses about as well
    as real webhook payloads do (2-3x), not as a run of one character would.
    """
    rng = random.Random(f"{n}-{size}")
    envelope = len(json.dumps({"id": "evt_" + "0" * 26, "type": event_type, "timestamp": "2026-11-29T00:00:00.000Z", "data": {"n": n, "items": []}}))
    items: list[dict[str, Any]] = []
    used = envelope
    while True:
        item = {
            "id": f"li_{rng.getrandbits(64):016x}",
            "sku": f"SKU-{rng.randrange(10**6):06d}",
            "name": " ".join(rng.choice(_WORDS) for _ in range(3)),
            "quantity": rng.randint(1, 12),
            "unit_amount": rng.randrange(100, 100_000),
            "currency": rng.choice(("eur", "usd", "gbp")),
        }
        cost = len(json.dumps(item)) + 2
        if used + cost > size:
            break
        items.append(item)
        used += cost
    return {"type": event_type, "data": {"n": n, "items": items}}


@dataclass
class _World:
    harness: Harness
    meter: Meter
    receiver: WebhookReceiver
    size: int
    sets: int = 0

    def endpoints(self, **extra: Any) -> tuple[list[str], list[str]]:
        """A fresh set of endpoints, each subscribed to its own event type; returns (types, endpoint ids)."""
        self.sets += 1
        types = [f"set{self.sets}.t{i}" for i in range(ENDPOINTS_PER_SET)]
        ids = []
        for t in types:
            status, ep = self.harness.api(
                "POST", "/v1/endpoints", {"url": self.receiver.url, "event_types": [t], "rate_limit_per_second": 500, "max_concurrency": 100, **extra}
            )
            assert status == 201, ep
            ids.append(ep["id"])
        return types, ids

    def post_events(self, types: list[str], count: int) -> None:
        for i in range(count):
            status, body = self.harness.api("POST", "/v1/events", event_body(self.size, i, types[i % len(types)]))
            assert status == 202, body
            self.meter.api_request(len(json.dumps(event_body(self.size, i, types[i % len(types)]))))

    def deliver_all(self) -> int:
        return self.harness.drain(topology.DELIVERY_QUEUE, batch_size=10)

    def per(self, count: int, run: Callable[[], Any]) -> Units:
        with self.meter.measure() as spent:
            run()
        return spent().scaled(1 / count)


def measure_paths(size: int, count: int = 30, progress: Callable[[str], None] = lambda _s: None) -> dict[str, Units]:
    """Billable units per occurrence of each path, for events of `size` bytes."""
    assert count % ENDPOINTS_PER_SET == 0
    paths: dict[str, Units] = {}
    with moto_hookline() as harness, WebhookReceiver() as receiver:
        meter = Meter()
        meter.install()
        harness.invoke = meter.invoke
        try:
            w = _World(harness, meter, receiver, size)
            types, _ = w.endpoints()
            w.per(1, lambda: w.post_events(types, ENDPOINTS_PER_SET))  # warm up: imports and first clients are not steady state
            w.deliver_all()
            progress("ingest")
            paths["ingest_single"] = w.per(count, lambda: w.post_events(types, count))
            batch = {"events": [event_body(size, i, types[i % len(types)]) for i in range(100)]}

            def post_batch() -> None:
                status, body = harness.api("POST", "/v1/events/batch", batch)
                assert status == 202, body
                meter.api_request(len(json.dumps(batch)))

            paths["ingest_batch"] = w.per(100, post_batch)
            progress("attempts")
            paths["attempt_ok"] = w.per(count + 100, w.deliver_all)
            assert len(receiver.received) == ENDPOINTS_PER_SET + count + 100
            # The same, when every batch of ten shares one endpoint (its limiter and stats writes are shared too).
            status, _ = harness.api(
                "POST", "/v1/endpoints", {"url": receiver.url, "event_types": ["hot"], "rate_limit_per_second": 500, "max_concurrency": 100}
            )
            assert status == 201
            w.post_events(["hot"], count)
            paths["attempt_ok_one_endpoint"] = w.per(count, w.deliver_all)

            receiver.status = 503
            for name, settings in (
                ("attempt_fail_sqs", {}),
                ("attempt_fail_sfn", {"HOOKLINE_SQS_MAX_DELAY_SECONDS": "1", "HOOKLINE_RETRY_JITTER": "equal"}),  # every retry waits > 1 s: Step Functions
                ("attempt_exhausted", {"HOOKLINE_MAX_ATTEMPTS": "1"}),
            ):
                harness.configure(**{"HOOKLINE_SQS_MAX_DELAY_SECONDS": "900", "HOOKLINE_MAX_ATTEMPTS": "12", "HOOKLINE_RETRY_JITTER": "full", **settings})
                types, _ = w.endpoints()  # fresh endpoints: three failures each stay under the breaker's threshold
                w.post_events(types, count)
                paths[name] = w.per(count, w.deliver_all)
            harness.configure(HOOKLINE_SQS_MAX_DELAY_SECONDS="900", HOOKLINE_MAX_ATTEMPTS="12", HOOKLINE_RETRY_JITTER="full")
            receiver.status = 200
            progress("deferrals")

            states = EndpointStateRepository(aws.dynamodb_table(harness.env[topology.TABLE.env]))
            now = time.time()
            types, ids = w.endpoints()
            for ep in ids:
                states.save_breaker(
                    "bench", ep, Breaker(state="open", consecutive_failures=10, open_until=now + 60, open_since=now, cooldown_seconds=60, trips=1), 0
                )
            w.post_events(types, count)
            paths["defer_breaker"] = w.per(count, w.deliver_all)
            types, ids = w.endpoints()
            for ep in ids:
                states.save_limiter("bench", ep, Limiter(tat=now + 60), 0)
            w.post_events(types, count)
            paths["defer_ratelimit"] = w.per(count, w.deliver_all)
            assert len(receiver.received) == ENDPOINTS_PER_SET + 2 * count + 100 + 3 * count  # deferred tasks sent nothing
        finally:
            meter.uninstall()
    return paths


@dataclass(frozen=True)
class Mix:
    """Paths per webhook: attempts by how they ended, from the real retry policy."""

    attempt_ok: float
    attempt_fail_sqs: float
    attempt_fail_sfn: float
    attempt_exhausted: float
    delivered: float

    @property
    def attempts(self) -> float:
        return self.attempt_ok + self.attempt_fail_sqs + self.attempt_fail_sfn + self.attempt_exhausted


def path_mix(success_rate: float, settings: Settings | None = None, webhooks: int = 20_000, seed: int = 7) -> Mix:
    """Each attempt succeeds with `success_rate` (independently); failures are 503s scheduled by `decide`."""
    settings = settings or Settings()
    policy = retry_policy(settings)
    rng = random.Random(seed)
    counts = {"attempt_ok": 0, "attempt_fail_sqs": 0, "attempt_fail_sfn": 0, "attempt_exhausted": 0}
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
            counts["attempt_fail_sqs" if decision.retry_in_seconds <= settings.sqs_max_delay_seconds else "attempt_fail_sfn"] += 1
            now += timedelta(seconds=decision.retry_in_seconds)
            attempt += 1
    return Mix(**{k: v / webhooks for k, v in counts.items()}, delivered=counts["attempt_ok"] / webhooks)


def per_million(paths: dict[str, Units], mix: Mix, ingest: str, success: str = "attempt_ok") -> Units:
    """Units per million delivered webhooks (one subscribed endpoint per event); `success` names the successful attempt's path."""
    one = paths[f"ingest_{ingest}"] + paths[success].scaled(mix.attempt_ok)
    for name in ("attempt_fail_sqs", "attempt_fail_sfn", "attempt_exhausted"):
        one = one + paths[name].scaled(getattr(mix, name))
    return one.scaled(MILLION / mix.delivered)


def eventbridge_per_million(size: int, mix: Mix, p: Prices = US_EAST_1) -> float:
    """EventBridge API destinations: PutEvents (per 64 KB) plus one invocation per attempt."""
    return (chunks(size) * p.eventbridge_put_event + mix.attempts * p.eventbridge_api_destination_invocation) * MILLION / mix.delivered


def cost_report(paths_by_size: dict[str, dict[str, Units]], p: Prices = US_EAST_1) -> dict[str, Any]:
    per_million_usd: dict[str, Any] = {}
    for size_name, paths in paths_by_size.items():
        per_million_usd[size_name] = {}
        for rate_name, rate in SUCCESS_RATES.items():
            mix = path_mix(rate)
            per_million_usd[size_name][rate_name] = {}
            for ingest in INGEST_MODES:
                units = per_million(paths, mix, ingest)
                breakdown = {k: round(v, 4) for k, v in sorted(units.dollars(p).items(), key=lambda kv: -kv[1])}
                total = sum(units.dollars(p).values())
                eventbridge = eventbridge_per_million(SIZES[size_name], mix)
                per_million_usd[size_name][rate_name][ingest] = {
                    "total": round(total, 4),
                    "breakdown": breakdown,
                    "largest": next(iter(breakdown)),
                    "units": {k: round(v, 1) for k, v in units.as_dict().items()},
                    "attempts_per_webhook": round(mix.attempts / mix.delivered, 4),
                    "eventbridge_api_destinations": round(eventbridge, 4),
                    "ratio_to_eventbridge": round(total / eventbridge, 3),
                    "total_when_batches_share_an_endpoint": round(sum(per_million(paths, mix, ingest, "attempt_ok_one_endpoint").dollars(p).values()), 4),
                }
    per_path = {
        size_name: {name: {"usd_per_million": round(sum(u.dollars(p).values()) * MILLION, 4), "units": u.as_dict()} for name, u in paths.items()}
        for size_name, paths in paths_by_size.items()
    }
    return {"per_million_usd": per_million_usd, "per_path": per_path, "prices": asdict(p)}
