"""The core's configuration objects, derived from `Settings` in one place (the delivery service and the simulator share them)."""

from __future__ import annotations

from hookline.core.adaptive import AdaptiveConfig
from hookline.core.backoff import BackoffPolicy, Jitter
from hookline.core.breaker import BreakerConfig
from hookline.core.policy import RetryPolicy
from hookline.core.ratelimit import LimiterConfig, TokenLeaseConfig
from hookline.core.rules import EndpointRules
from hookline.core.settings import Settings

# A task comes back this soon while another task probes its endpoint or an earlier attempt is still being recorded.
BUSY_RETRY_SECONDS = 5.0


def retry_policy(settings: Settings) -> RetryPolicy:
    jitter: Jitter = "equal" if settings.retry_jitter == "equal" else "full"
    backoff = BackoffPolicy(base_seconds=settings.retry_base_seconds, cap_seconds=settings.retry_max_delay_seconds, jitter=jitter)
    return RetryPolicy(backoff=backoff, max_attempts=settings.max_attempts, max_age_seconds=settings.max_age_seconds)


def breaker_config(settings: Settings) -> BreakerConfig:
    return BreakerConfig(
        threshold=settings.breaker_threshold,
        cooldown_seconds=settings.breaker_cooldown_seconds,
        probe_interval_seconds=settings.breaker_probe_interval_seconds,
        window=settings.breaker_window,
        failure_rate=settings.breaker_failure_rate,
        timeout_threshold=settings.breaker_timeout_threshold,
        # A probe's lease outlives its request; a crashed prober frees it soon after.
        probe_lease_seconds=2 * (settings.connect_timeout_seconds + settings.request_timeout_seconds),
    )


def hand_on_seconds(settings: Settings, function_timeout_seconds: float) -> float:
    """How long after its plan a batch may still hand one of its leases to its next task waiting on the limit
    (hookline.core.planning.under_lease): what is left of the delivery function's timeout once the batch's first
    requests (a whole request deadline, after at most the pacing horizon) and one more handed-on request have room."""
    request = settings.connect_timeout_seconds + settings.request_timeout_seconds
    return max(0.0, function_timeout_seconds - 2 * request - LimiterConfig.horizon_seconds)


def limiter_config(settings: Settings, lease_seconds: float) -> LimiterConfig:
    # A token lease's slots outlive the requests started in it, as a probe's lease does.
    leases = TokenLeaseConfig(min_rate=settings.token_lease_min_rate, slot_seconds=2 * (settings.connect_timeout_seconds + settings.request_timeout_seconds))
    return LimiterConfig(lease_seconds=lease_seconds, adaptive=AdaptiveConfig(initial=settings.initial_concurrency), token_leases=leases)


def endpoint_rules(settings: Settings, lease_seconds: float) -> EndpointRules:
    return EndpointRules(
        breaker=breaker_config(settings),
        limiter=limiter_config(settings, lease_seconds),
        disable_after_seconds=settings.disable_after_seconds,
        retry_after_jitter_seconds=retry_policy(settings).backoff.retry_after_jitter_seconds,
        busy_retry_seconds=BUSY_RETRY_SECONDS,
    )
