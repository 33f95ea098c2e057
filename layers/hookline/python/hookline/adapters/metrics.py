"""What a batch of delivery reports records as CloudWatch metrics (EMF, through Powertools Metrics).

Attempts (by outcome), ResponseTime, FirstAttemptSuccess, DeadLettered and
BreakerOpened feed the stack's dashboard and alarms. Metrics never carry ids
or secrets, only counts and durations.

ResponseTime and the three counts are added to the invocation's metric set,
which the handler's `log_metrics` decorator flushes. Attempts carries an
`outcome` dimension the others do not have, and an EMF document has one value
per dimension, so each outcome's count is its own `single_metric` document,
written when its block ends (Powertools' way for a metric with other dimensions).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from aws_lambda_powertools.metrics import MetricUnit, single_metric
from aws_lambda_powertools.metrics.functions import is_metrics_disabled

from hookline.adapters.observability import get_metrics
from hookline.core.reports import DeliveryReport

SENT = ("succeeded", "failed", "retrying")


def publish(reports: Iterable[DeliveryReport]) -> None:
    """Record the batch's metrics; the caller's `log_metrics` flushes all but Attempts, which is written here."""
    if is_metrics_disabled():
        # single_metric ignores the switch, and a disabled flush keeps the metric set, so nothing is recorded at all.
        return
    reports = list(reports)
    metrics = get_metrics()
    for outcome, count in sorted(Counter(r.outcome for r in reports).items()):
        with single_metric(
            name="Attempts", unit=MetricUnit.Count, value=count, namespace=metrics.namespace, default_dimensions={"service": str(metrics.service)}
        ) as metric:
            metric.add_dimension(name="outcome", value=outcome)
    sent = [r for r in reports if r.outcome in SENT]
    for r in sent:
        metrics.add_metric(name="ResponseTime", unit=MetricUnit.Milliseconds, value=r.duration_ms)
    firsts = sum(1 for r in sent if r.first_attempt and r.outcome == "succeeded")
    dead = sum(1 for r in reports if r.path == "dlq")
    opened = sum(1 for r in reports if r.breaker_event in ("opened", "reopened"))
    for name, value in (("FirstAttemptSuccess", firsts), ("DeadLettered", dead), ("BreakerOpened", opened)):
        if value:
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)


def publish_sweep(unqueued_events: int) -> None:
    """The sweeper's finding, `UnqueuedFound`: stored events it had to queue (the stack alarms on any). Written at once."""
    if is_metrics_disabled():
        return
    metrics = get_metrics()
    with single_metric(
        name="UnqueuedFound", unit=MetricUnit.Count, value=unqueued_events, namespace=metrics.namespace, default_dimensions={"service": str(metrics.service)}
    ):
        pass
