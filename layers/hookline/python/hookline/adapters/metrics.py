"""CloudWatch metrics in the embedded metric format (Powertools Metrics), one flush per batch.

Attempts (by outcome), ResponseTime, FirstAttemptSuccess, DeadLettered and
BreakerOpened feed the stack's dashboard and alarms. Metrics never carry ids
or secrets, only counts and durations.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit, single_metric

from hookline.core.reports import DeliveryReport

NAMESPACE = "hookline"
SENT = ("succeeded", "failed", "retrying")


@lru_cache(maxsize=1)
def _metrics() -> Metrics:
    return Metrics(namespace=NAMESPACE, service=NAMESPACE)


def publish(reports: Iterable[DeliveryReport]) -> None:
    if os.environ.get("POWERTOOLS_METRICS_DISABLED", "").lower() == "true":
        return  # Powertools' own switch; single_metric does not honour it
    reports = list(reports)
    by_outcome = Counter(r.outcome for r in reports)
    for outcome, count in sorted(by_outcome.items()):
        with single_metric(name="Attempts", unit=MetricUnit.Count, value=count, namespace=NAMESPACE, default_dimensions={"service": NAMESPACE}) as metric:
            metric.add_dimension(name="outcome", value=outcome)
    metrics = _metrics()
    sent = [r for r in reports if r.outcome in SENT]
    for r in sent:
        metrics.add_metric(name="ResponseTime", unit=MetricUnit.Milliseconds, value=r.duration_ms)
    firsts = sum(1 for r in sent if r.first_attempt and r.outcome == "succeeded")
    dead = sum(1 for r in reports if r.path == "dlq")
    opened = sum(1 for r in reports if r.breaker_event in ("opened", "reopened"))
    for name, value in (("FirstAttemptSuccess", firsts), ("DeadLettered", dead), ("BreakerOpened", opened)):
        if value:
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
    if sent or firsts or dead or opened:
        metrics.flush_metrics()
