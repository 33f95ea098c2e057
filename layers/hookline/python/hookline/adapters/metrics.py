"""What a batch of delivery reports records as CloudWatch metrics (EMF, through Powertools Metrics).

Attempts (by outcome), ResponseTime, FirstAttemptSuccess, DeadLettered and
BreakerOpened feed the stack's dashboard and alarms. Metrics never carry ids
or secrets, only counts and durations.

ResponseTime and the three counts are added to the invocation's metric set,
which the handler's `log_metrics` decorator flushes. Attempts carries an
`outcome` dimension the others do not have, and an EMF document has one value
per dimension, so each outcome's count is its own `single_metric` document,
written when its block ends (Powertools' way for a metric with other dimensions).

EmailFailed (a customer email that did not go out), LeasesNotGivenBack (a
batch's concurrency leases left to expire) and InternalFailures (tasks
dead-lettered because of hookline itself) are written at once, each its own
document with the `service` dimension: an alarm on the metric with that one
dimension sees every one of them.

InternalFailures and ServerErrors (the api function's 5xx answers) are what a
canary deploy rolls back on, for the new version only (infra/deploys.py): their
document carries a second dimension set, `service` + `function` + `version`
(the Lambda runtime's AWS_LAMBDA_FUNCTION_NAME and AWS_LAMBDA_FUNCTION_VERSION),
so one count feeds both the service-wide metric and the version's own. A version
is a metric only once it fails, so the metrics stay few.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from aws_lambda_powertools.metrics import MetricUnit, single_metric
from aws_lambda_powertools.metrics.functions import is_metrics_disabled
from aws_lambda_powertools.metrics.provider.cloudwatch_emf.cloudwatch import AmazonCloudWatchEMFProvider

from hookline.adapters.observability import get_logger, get_metrics

if TYPE_CHECKING:  # the API publishes neither, and need not import the delivery's models at its cold start
    from hookline.core.internal_failures import InternalFailure
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
    _count_now("UnqueuedFound", unqueued_events)


def publish_overdue_retries(requeued: int) -> None:
    """The sweeper's other finding, `OverdueRetriesRequeued`: retries whose wait in Step Functions never put them back
    (stopped, failed, throttled, never started), queued again (hookline.core.waits); in a healthy stack none. Written at
    once, every run."""
    _count_now("OverdueRetriesRequeued", requeued)


def _count_now(name: str, value: int) -> None:
    """A count written at once as its own document, dimensioned by `service` alone (safe from any thread)."""
    if is_metrics_disabled():
        return
    metrics = get_metrics()
    with single_metric(name=name, unit=MetricUnit.Count, value=value, namespace=metrics.namespace, default_dimensions={"service": str(metrics.service)}):
        pass


# The dimensions that name the version a count came from, and the runtime's variables they are read from.
FUNCTION_DIMENSION = "function"
VERSION_DIMENSION = "version"
_RUNTIME_VARIABLES = {FUNCTION_DIMENSION: "AWS_LAMBDA_FUNCTION_NAME", VERSION_DIMENSION: "AWS_LAMBDA_FUNCTION_VERSION"}


def version_dimensions(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """`function` and `version` of the running code, as the Lambda runtime names them; none outside Lambda (tests,
    local mode), where there is no version to judge."""
    found = {dimension: environ.get(variable, "") for dimension, variable in _RUNTIME_VARIABLES.items()}
    return found if all(found.values()) else {}


def _count_by_version(name: str, value: int) -> None:
    """A count written at once as one document with two dimension sets: `service` alone, and `service` + the version's
    (when running in Lambda). CloudWatch files the one value under both metrics."""
    if is_metrics_disabled():
        return
    metrics = get_metrics()
    document = AmazonCloudWatchEMFProvider(namespace=metrics.namespace, service=str(metrics.service))
    document.add_metric(name=name, unit=MetricUnit.Count, value=value)
    if by_version := version_dimensions():
        document.add_dimensions(service=str(metrics.service), **by_version)
    document.flush_metrics()


def server_error() -> None:
    """`ServerErrors`: the api function answered a request 5xx (an unexpected exception, or a dependency that failed).
    A canary of the api function rolls back on its version's rate of them; the cause is in the log line beside it."""
    _count_by_version("ServerErrors", 1)


def leases_not_given_back() -> None:
    """`LeasesNotGivenBack`: one batch's concurrency leases on an endpoint that stay out until they expire (the
    give-back raised, or lost the race on every try; hookline.services.delivery.health). Its endpoint and cause are in
    the log line beside it, never in the metric."""
    _count_now("LeasesNotGivenBack", 1)


def email_failed() -> None:
    """`EmailFailed`: one customer email that did not go out (SES refused it, or what it needed could not be read).
    Its error code is on the endpoint's health and in the log, never in the metric."""
    _count_now("EmailFailed", 1)


INTERNAL_FAILURE = "internal failure: record dead-lettered"


def publish_internal_failures(failures: Sequence[InternalFailure]) -> None:
    """`InternalFailures`: the batch's records dead-lettered because of hookline itself (hookline.core.internal_failures),
    one count for them all, by service and by version (no `reason` dimension: a metric with another dimension is another
    metric, which the alarms would not see); each is logged with its reason, message id, receive count and error code."""
    if not failures:
        return
    logger = get_logger()
    for f in failures:
        logger.error(INTERNAL_FAILURE, extra={"reason": f.reason, "message_id": f.message_id, "receive_count": f.receive_count, "error": f.error})
    _count_by_version("InternalFailures", len(failures))
