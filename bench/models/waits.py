"""What the waits of a delivery that fails every attempt cost: `cost.waits` in bench/results.json.

A delivery whose receiver fails all 12 attempts of the default schedule waits 11 times, each wait drawn by the real
retry policy (`hookline.core.policy.decide`, full jitter) and taken the way the real scheduler takes it
(`hookline.core.waits.how_to_wait`). A wait costs, beyond its first send (which its failed attempt's measured path,
`attempt_fail_sqs`, already holds):

- each further hop through the retry queue: the measured `wait_hop` path (a send in a batch of ten, the event source's
  receive and delete and an invocation shared by ten, the invocation's seconds and logs);
- for a wait that hopped or waited in Step Functions, the claim its attempt then makes instead of a read (`CLAIM`);
- for a wait in Step Functions: what the measured `attempt_fail_sfn` path spends beyond `attempt_fail_sqs` (two
  state transitions, the wait's note written and dropped), each line at least zero.

The same deliveries are priced again with hops off (HOOKLINE_SQS_HOPS_UP_TO_SECONDS=0, every wait over 900 s in Step
Functions) as `before_usd_per_million_failing_deliveries`.

`python -m bench.models.cost --hops-only` measures the hop alone and prices the cost section again with it.
"""

from __future__ import annotations

import random
from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from bench.measurement.meter import Units
from bench.models.prices import MILLION, US_EAST_1, Prices
from hookline.core.classify import Outcome
from hookline.core.config import retry_policy
from hookline.core.policy import decide
from hookline.core.settings import Settings
from hookline.core.waits import hops, how_to_wait

# A hopped retry's attempt claims (a conditional write of the delivery, under 2 KB) where a fresh one reads: charged as
# two write units, which errs high (hookline.core.waits.hopped).
CLAIM = Units(dynamodb_write_units=2.0)
GOAL_USD = 30.0  # the goal for the waits of a delivery failing every attempt, per million such deliveries
DELIVERIES = 20_000


def one_wait(delay: float, now: datetime, settings: Settings) -> tuple[str, int, bool]:
    """How the real scheduler takes one wait (`hookline.core.waits.how_to_wait`): its path, the hops beyond its first
    send, and whether its attempt then claims (out of a hop or a wait in Step Functions, a task claims instead of
    reading). Shared by this module and bench.models.cost.path_mix."""
    plan = how_to_wait(delay, now.timestamp(), settings.sqs_max_delay_seconds, settings.sqs_hops_up_to_seconds)
    return plan.path, hops(delay) - 1 if plan.path == "hops" else 0, plan.path != "sqs"


def waits_of(settings: Settings, deliveries: int = DELIVERIES, seed: int = 7) -> dict[str, float]:
    """Per delivery failing every attempt: its waits, the hops beyond each wait's first send, the attempts that claim
    (after a wait that hopped or was in Step Functions) and the waits in Step Functions."""
    policy = retry_policy(settings)
    rng = random.Random(seed)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    out = {"waits": 0.0, "hops": 0.0, "claimed": 0.0, "stepfunctions": 0.0}
    for _ in range(deliveries):
        now, attempt = start, 1
        while (decision := decide(attempt, start, Outcome(status_code=503), now, policy, rng)).retry_in_seconds is not None:
            delay = decision.retry_in_seconds
            path, extra_hops, claims = one_wait(delay, now, settings)
            out["waits"] += 1
            out["stepfunctions"] += path == "stepfunctions"
            out["hops"] += extra_hops
            out["claimed"] += claims
            now += timedelta(seconds=delay)
            attempt += 1
    return {k: v / deliveries for k, v in out.items()}


def _at_least_zero(u: Units) -> Units:
    return Units(**{f.name: max(0.0, getattr(u, f.name)) for f in fields(Units)})


def _usd(u: Units, p: Prices) -> float:
    return sum(u.dollars(p).values())


def waits_report(paths: dict[str, Units], p: Prices = US_EAST_1, settings: Settings | None = None, deliveries: int = DELIVERIES) -> dict[str, Any]:
    """`cost.waits` from one payload size's measured paths, over `deliveries` drawn deliveries."""
    settings = settings or Settings()
    hop, sfn = paths["wait_hop"], _at_least_zero(paths["attempt_fail_sfn"] - paths["attempt_fail_sqs"])

    def priced(w: dict[str, float]) -> dict[str, float]:
        terms = {
            "hops": _usd(hop.scaled(w["hops"]), p) * MILLION,
            "claims": _usd(CLAIM.scaled(w["claimed"]), p) * MILLION,
            "stepfunctions": _usd(sfn.scaled(w["stepfunctions"]), p) * MILLION,
        }
        return {k: round(v, 4) for k, v in terms.items()}

    now, before = waits_of(settings, deliveries), waits_of(replace(settings, sqs_hops_up_to_seconds=0), deliveries)
    terms, before_terms = priced(now), priced(before)
    return {
        "usd_per_million_failing_deliveries": round(sum(terms.values()), 4),
        "goal_usd": GOAL_USD,
        "terms_usd": terms,
        "per_delivery": {k: round(v, 4) for k, v in now.items()},
        "hop_usd_per_million": round(_usd(hop, p) * MILLION, 4),
        "hop_units": {k: round(v, 4) for k, v in hop.as_dict().items() if v},
        "claim_usd_per_million": round(_usd(CLAIM, p) * MILLION, 4),
        "stepfunctions_wait_usd_per_million": round(_usd(sfn, p) * MILLION, 4),
        "stepfunctions_wait_units": {k: round(v, 4) for k, v in sfn.as_dict().items() if v},
        "hops_up_to_seconds": settings.sqs_hops_up_to_seconds,
        "attempts": settings.max_attempts,
        "before_usd_per_million_failing_deliveries": round(sum(before_terms.values()), 4),
        "before_terms_usd": before_terms,
        "before_per_delivery": {k: round(v, 4) for k, v in before.items()},
    }
