"""One place for the logger and the tracer. Created lazily, configured by POWERTOOLS_* variables."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from aws_lambda_powertools import Logger, Tracer

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


@lru_cache(maxsize=1)
def get_logger() -> Logger:
    return Logger(service="hookline")


@lru_cache(maxsize=1)
def get_tracer() -> Tracer:
    """X-Ray through Powertools; POWERTOOLS_TRACE_DISABLED=true turns it off (tests, local mode)."""
    return Tracer(service="hookline")


def traced(handler: Handler) -> Handler:
    """The same handler, as an X-Ray subsegment with cold-start annotation (the one decorator order, everywhere)."""
    wrapped: Handler = get_tracer().capture_lambda_handler(handler, capture_response=False)
    return wrapped
