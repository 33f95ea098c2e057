"""Response classification: what one attempt's outcome means. Pure.

The matrix follows the Standard Webhooks spec and the seeds: 2xx succeeds;
timeouts, connection failures, 408, 429 and 5xx are worth retrying; every
other 4xx and every 3xx (redirects are never followed) is permanent; 410 Gone
is permanent and also asks for the endpoint to be disabled.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Verdict(str, Enum):
    SUCCESS = "success"
    RETRY = "retry"
    PERMANENT = "permanent"


# Error classes an attempt can end with before any HTTP status arrives.
TIMEOUT = "timeout"
CONNECTION_REFUSED = "connection_refused"
CONNECTION_RESET = "connection_reset"
CONNECTION_ERROR = "connection_error"
DNS_FAILURE = "dns_failure"
TLS_ERROR = "tls_error"
SSRF_BLOCKED = "ssrf_blocked"
INVALID_URL = "invalid_url"

TRANSIENT_ERRORS = frozenset({TIMEOUT, CONNECTION_REFUSED, CONNECTION_RESET, CONNECTION_ERROR, DNS_FAILURE, TLS_ERROR})


@dataclass(frozen=True)
class Outcome:
    """What came back from one HTTP attempt: a status code, or an error class."""

    status_code: int | None = None
    error: str | None = None
    retry_after: str | None = None  # the raw Retry-After header, if the receiver sent one


@dataclass(frozen=True)
class Classification:
    verdict: Verdict
    reason: str
    disable_endpoint: bool = False


def classify(outcome: Outcome) -> Classification:
    if outcome.status_code is None:
        error = outcome.error or CONNECTION_ERROR
        if error in TRANSIENT_ERRORS:
            return Classification(Verdict.RETRY, error)
        return Classification(Verdict.PERMANENT, error)
    code = outcome.status_code
    if 200 <= code <= 299:
        return Classification(Verdict.SUCCESS, "2xx")
    if code == 410:
        return Classification(Verdict.PERMANENT, "410 gone: endpoint disabled", disable_endpoint=True)
    if code in (408, 429) or 500 <= code <= 599:
        return Classification(Verdict.RETRY, f"{code} is retryable")
    if 300 <= code <= 399:
        return Classification(Verdict.PERMANENT, f"{code} redirect: redirects are not followed")
    return Classification(Verdict.PERMANENT, f"{code} client error: not retried")
