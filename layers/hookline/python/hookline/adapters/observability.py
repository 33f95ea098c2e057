"""One place for the logger, the tracer and the metrics, and for how a Lambda handler wears them.

The three are created on first use (cached) and configured by POWERTOOLS_*
variables. Every functions/<name>/handler.py decorates its handler with
`lambda_handler`, so all functions apply Powertools' decorators the same way,
once, when the module is loaded.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging.lambda_context import build_lambda_context_model
from aws_lambda_powertools.utilities import jmespath_utils

from hookline.core.tracing import tracing_enabled

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]

SERVICE = "hookline"
# The CloudWatch namespace of the EMF metrics; infra/monitoring.py graphs and alarms on it.
METRICS_NAMESPACE = "hookline"


@lru_cache(maxsize=1)
def get_logger() -> Logger:
    return Logger(service=SERVICE)


@lru_cache(maxsize=1)
def get_tracer() -> Tracer:
    """X-Ray through Powertools; POWERTOOLS_TRACE_DISABLED=true turns it off (tests, local mode).

    Made only when tracing is on (`lambda_handler`): Powertools' Tracer imports aws_xray_sdk when it is made,
    about a fifth of a function's cold start, which a function with tracing off does not pay (`core.tracing`).
    """
    return Tracer(service=SERVICE)


@lru_cache(maxsize=1)
def get_metrics() -> Metrics:
    """EMF metrics with the `service` dimension; POWERTOOLS_METRICS_DISABLED=true keeps them off stdout (tests, local mode)."""
    # Most API, authorizer and jobs invocations record no metric; Powertools' own advice for that is to silence its warning.
    warnings.filterwarnings("ignore", "No application metrics to publish")
    return Metrics(namespace=METRICS_NAMESPACE, service=SERVICE)


def lambda_handler(*, correlation_id_path: str | None = None) -> Callable[[Handler], Handler]:
    """A decorator that makes an entry function a Lambda handler, with Powertools' three layers in the one order:

    1. `with_invocation_keys`, outermost: the cold start, the invocation's context and, when
       `correlation_id_path` is given, the correlation id it selects from the event are on every line
       (Powertools' `inject_lambda_context` writes the same keys, but for the whole process: see there);
    2. `metrics.log_metrics`: the library flushes what the invocation recorded once the work is done;
    3. `tracer.capture_lambda_handler(capture_response=False)`, innermost: the X-Ray subsegment spans
       just the work, and responses stay out of traces; only when tracing is on (`core.tracing.tracing_enabled`
       of the environment, read when the module is loaded), so a function with it off never imports X-Ray.

    The handler needs a Lambda context (the first layer reads it); the runtime always passes one.
    """

    def decorate(entry: Handler) -> Handler:
        traced = get_tracer().capture_lambda_handler(entry, capture_response=False) if tracing_enabled(os.environ) else entry
        measured = get_metrics().log_metrics(traced)
        return with_invocation_keys(measured, correlation_id_path)

    return decorate


def with_invocation_keys(handler: Handler, correlation_id_path: str | None = None) -> Handler:
    """`handler` with the keys of `inject_lambda_context` (cold_start, function_name, function_request_id, ...,
    correlation_id) on every line it writes, held by the invocation's thread rather than by the process.

    In Lambda a process serves one invocation at a time, and the two are the same. Local mode runs every
    function in one process, on threads, where process-wide keys would name whichever function set them
    last: a delivery batch logged as the authorizer, a job id on an API request. The keys live in a
    context variable, which the delivery pools copy into their threads (`endpoint_pool.carried`), so a batch's
    worker threads write its keys as the invocation's own thread does. The cold start is per function.

    As `inject_lambda_context` does, a warm invocation rolls POWERTOOLS_LOGGER_SAMPLE_RATE's debug sampling
    again. Unlike it, POWERTOOLS_LOGGER_LOG_EVENT is not honoured: a whole event carries the caller's
    Authorization header (an API key or a portal session token) and webhook bodies, and no secret is logged.
    """
    logger = get_logger()
    cold = [True]

    @functools.wraps(handler)
    def invoked(event: dict[str, Any], context: Any) -> dict[str, Any]:
        keys: dict[str, Any] = {"cold_start": cold[0], **build_lambda_context_model(context).__dict__}
        if logger.sampling_rate and not cold[0]:
            logger.refresh_sample_rate_calculation()
        cold[0] = False
        if correlation_id_path:
            keys["correlation_id"] = jmespath_utils.query(envelope=correlation_id_path, data=event)
        before = dict(logger.thread_safe_get_current_keys())
        logger.thread_safe_append_keys(**keys)
        try:
            return handler(event, context)
        finally:
            # Back to the keys from before (none, in Lambda), set anew: Powertools' remove_keys edits the dict in place,
            # which the copies the pools made of this context may still share.
            logger.thread_safe_clear_keys()
            if before:
                logger.thread_safe_append_keys(**before)

    return invoked
