"""The per-endpoint rules' settings, in one object: what planning (before a batch) and health tracking (after an answer) share.

Built from `Settings` by `core.config.endpoint_rules`, so the delivery worker
and the benchmark simulator run under exactly the same rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from hookline.core.breaker import BreakerConfig
from hookline.core.ratelimit import LimiterConfig


@dataclass(frozen=True)
class EndpointRules:
    breaker: BreakerConfig
    limiter: LimiterConfig
    disable_after_seconds: float  # an unbroken outage this long disables the endpoint
    retry_after_jitter_seconds: float  # spread over the end of a Retry-After pause
    # How long a task comes back after when the endpoint is busy with something
    # else: another task's half-open probe, or an earlier attempt still being recorded.
    busy_retry_seconds: float
