"""One place for the logger, the tracer and the metrics, and for how a Lambda handler wears them.

The three are created on first use (cached) and configured by POWERTOOLS_*
variables. Every functions/<name>/handler.py decorates its handler with
`lambda_handler`, so all functions apply Powertools' decorators the same way,
once, when the module is loaded.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]

SERVICE = "hookline"
# The CloudWatch namespace of the EMF metrics; infra/monitoring.py graphs and alarms on it.
METRICS_NAMESPACE = "hookline"


@lru_cache(maxsize=1)
def get_logger() -> Logger:
    return Logger(service=SERVICE)


@lru_cache(maxsize=1)
def get_tracer() -> Tracer:
    """X-Ray through Powertools; POWERTOOLS_TRACE_DISABLED=true turns it off (tests, local mode)."""
    return Tracer(service=SERVICE)


@lru_cache(maxsize=1)
def get_metrics() -> Metrics:
    """EMF metrics with the `service` dimension; POWERTOOLS_METRICS_DISABLED=true keeps them off stdout (tests, local mode)."""
    # Most API, authorizer and replay invocations record no metric; Powertools' own advice for that is to silence its warning.
    warnings.filterwarnings("ignore", "No application metrics to publish")
    return Metrics(namespace=METRICS_NAMESPACE, service=SERVICE)


def lambda_handler(*, correlation_id_path: str | None = None) -> Callable[[Handler], Handler]:
    """A decorator that makes an entry function a Lambda handler, with Powertools' three decorators in the one order:

    1. `logger.inject_lambda_context`, outermost: the cold start, the invocation's context and, when
       `correlation_id_path` is given, the correlation id it selects from the event are on every line;
    2. `metrics.log_metrics`: the library flushes what the invocation recorded once the work is done;
    3. `tracer.capture_lambda_handler(capture_response=False)`, innermost: the X-Ray subsegment spans
       just the work, and responses stay out of traces.

    The handler needs a Lambda context (inject_lambda_context reads it); the runtime always passes one.
    """

    def decorate(entry: Handler) -> Handler:
        traced = get_tracer().capture_lambda_handler(entry, capture_response=False)
        measured = get_metrics().log_metrics(traced)
        handler: Handler = get_logger().inject_lambda_context(measured, correlation_id_path=correlation_id_path)
        return handler

    return decorate
