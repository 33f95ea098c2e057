"""Response classification: what one attempt's outcome means. Pure.

The matrix follows the Standard Webhooks spec and the seeds: 2xx succeeds;
timeouts, connection failures, 408, 429 and 5xx are worth retrying; every
other 4xx and every 3xx (redirects are never followed) is permanent; 410 Gone
is permanent and also asks for the endpoint to be disabled.

A non-HTTP destination (hookline.core.destinations) answers with an AWS error code instead, kept as
`aws.<Code>`: throttling and server errors are retried; access denied, a destination or role that is
not there, and KMS refusals are retried too, but disable the endpoint first, so the delivery is parked
(paused) until someone fixes the access and enables it again; any other client error is permanent,
and a code not known here is retried.
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
# The endpoint's `auth` gave no credentials to send: its OAuth2 token endpoint failed (unreachable, refused, no token)
# or its sealed secrets could not be opened. Retried and counted like a receiver that is down (hookline.core.auth).
AUTH_FAILED = "auth_failed"

TRANSIENT_ERRORS = frozenset({TIMEOUT, CONNECTION_REFUSED, CONNECTION_RESET, CONNECTION_ERROR, DNS_FAILURE, TLS_ERROR, AUTH_FAILED})

# Why an answer disables its endpoint (the endpoint's `disabled_reason`).
GONE = "gone"  # 410
ACCESS_DENIED = "access_denied"  # the destination (or the role hookline assumes) refused hookline
DESTINATION_MISSING = "destination_missing"  # the queue, topic, bus, stream, bucket or role does not exist
KMS_REFUSED = "kms_refused"  # the destination's KMS key refused (disabled, deleted, or not granted)

AWS_ERROR_PREFIX = "aws."
AWS_RETRYABLE = frozenset(
    {
        "Throttling",
        "ThrottlingException",
        "ThrottledException",
        "RequestThrottled",
        "RequestThrottledException",
        "TooManyRequestsException",
        "ProvisionedThroughputExceededException",
        "KMSThrottlingException",
        "KMS.ThrottlingException",
        "SlowDown",
        "RequestLimitExceeded",
        "RequestTimeout",
        "RequestTimeoutException",
        "ServiceUnavailable",
        "ServiceUnavailableException",
        "InternalError",
        "InternalFailure",
        "InternalServerError",
        "InternalServiceError",
        "InternalException",
        "KMSInternalException",
        "ExpiredToken",
        "ExpiredTokenException",
        "RequestExpired",
    }
)
AWS_ACCESS_DENIED = frozenset(
    {
        "AccessDenied",
        "AccessDeniedException",
        "AuthorizationError",
        "AuthorizationErrorException",
        "NotAuthorizedForSourceException",
        "AllAccessDisabled",
        "InvalidClientTokenId",
        "UnrecognizedClientException",
    }
)
AWS_MISSING = frozenset(
    {
        "NoSuchBucket",
        "QueueDoesNotExist",
        "AWS.SimpleQueueService.NonExistentQueue",
        "NonExistentQueue",
        "NotFound",
        "NotFoundException",
        "ResourceNotFoundException",
        "NoSuchEntity",
    }
)
AWS_CLIENT_ERRORS = frozenset(
    {
        "InvalidParameterValue",
        "InvalidParameterException",
        "InvalidParameter",
        "ValidationException",
        "ValidationError",
        "InvalidMessageContents",
        "MessageTooLong",
        "EntityTooLarge",
        "InvalidArgument",
        "MalformedDetail",
        "InvalidAttributeValue",
        "KeyTooLongError",
        "MissingParameter",
    }
)


def aws_error(code: str) -> str:
    """An attempt's error for an AWS error code."""
    return AWS_ERROR_PREFIX + code


def _aws(code: str) -> Classification:
    if code in AWS_RETRYABLE:
        return Classification(Verdict.RETRY, f"{code} is retryable")
    if code in AWS_ACCESS_DENIED:
        return Classification(Verdict.RETRY, f"{code}: the destination refused hookline; endpoint disabled", disable_endpoint=ACCESS_DENIED)
    if code in AWS_MISSING:
        return Classification(Verdict.RETRY, f"{code}: the destination does not exist; endpoint disabled", disable_endpoint=DESTINATION_MISSING)
    if code.startswith("KMS"):
        return Classification(Verdict.RETRY, f"{code}: the destination's KMS key refused; endpoint disabled", disable_endpoint=KMS_REFUSED)
    if code in AWS_CLIENT_ERRORS:
        return Classification(Verdict.PERMANENT, f"{code}: the destination refused this delivery: not retried")
    return Classification(Verdict.RETRY, f"{code} is not known to be permanent: retried")


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
    disable_endpoint: str = ""  # why the endpoint is disabled by this answer (GONE, ACCESS_DENIED, ...); "": it is not


def classify(outcome: Outcome) -> Classification:
    if outcome.status_code is None:
        error = outcome.error or CONNECTION_ERROR
        if error.startswith(AWS_ERROR_PREFIX):
            return _aws(error.removeprefix(AWS_ERROR_PREFIX))
        if error in TRANSIENT_ERRORS:
            return Classification(Verdict.RETRY, error)
        return Classification(Verdict.PERMANENT, error)
    code = outcome.status_code
    if 200 <= code <= 299:
        return Classification(Verdict.SUCCESS, "2xx")
    if code == 410:
        return Classification(Verdict.PERMANENT, "410 gone: endpoint disabled", disable_endpoint=GONE)
    if code in (408, 429) or 500 <= code <= 599:
        return Classification(Verdict.RETRY, f"{code} is retryable")
    if 300 <= code <= 399:
        return Classification(Verdict.PERMANENT, f"{code} redirect: redirects are not followed")
    return Classification(Verdict.PERMANENT, f"{code} client error: not retried")
