"""The response classification matrix, table-tested."""

from __future__ import annotations

import pytest

from hookline.core.classify import Outcome, Verdict, aws_error, classify


@pytest.mark.parametrize(
    ("outcome", "verdict", "disable"),
    [
        (Outcome(200), Verdict.SUCCESS, False),
        (Outcome(201), Verdict.SUCCESS, False),
        (Outcome(204), Verdict.SUCCESS, False),
        (Outcome(299), Verdict.SUCCESS, False),
        (Outcome(301), Verdict.PERMANENT, False),
        (Outcome(302), Verdict.PERMANENT, False),
        (Outcome(307), Verdict.PERMANENT, False),
        (Outcome(400), Verdict.PERMANENT, False),
        (Outcome(401), Verdict.PERMANENT, False),
        (Outcome(403), Verdict.PERMANENT, False),
        (Outcome(404), Verdict.PERMANENT, False),
        (Outcome(408), Verdict.RETRY, False),
        (Outcome(410), Verdict.PERMANENT, True),
        (Outcome(413), Verdict.PERMANENT, False),
        (Outcome(422), Verdict.PERMANENT, False),
        (Outcome(429), Verdict.RETRY, False),
        (Outcome(500), Verdict.RETRY, False),
        (Outcome(502), Verdict.RETRY, False),
        (Outcome(503), Verdict.RETRY, False),
        (Outcome(504), Verdict.RETRY, False),
        (Outcome(599), Verdict.RETRY, False),
        (Outcome(error="timeout"), Verdict.RETRY, False),
        (Outcome(error="connection_refused"), Verdict.RETRY, False),
        (Outcome(error="connection_reset"), Verdict.RETRY, False),
        (Outcome(error="dns_failure"), Verdict.RETRY, False),
        (Outcome(error="tls_error"), Verdict.RETRY, False),
        (Outcome(error="ssrf_blocked"), Verdict.PERMANENT, False),
        (Outcome(error="invalid_url"), Verdict.PERMANENT, False),
        (Outcome(error="endpoint_deleted"), Verdict.PERMANENT, False),
    ],
)
def test_matrix(outcome: Outcome, verdict: Verdict, disable: bool) -> None:
    result = classify(outcome)
    assert result.verdict is verdict
    assert bool(result.disable_endpoint) is disable
    assert result.reason


@pytest.mark.parametrize(
    ("code", "verdict", "disable"),
    [
        ("ThrottlingException", Verdict.RETRY, ""),
        ("ProvisionedThroughputExceededException", Verdict.RETRY, ""),
        ("SlowDown", Verdict.RETRY, ""),
        ("InternalFailure", Verdict.RETRY, ""),
        ("ServiceUnavailable", Verdict.RETRY, ""),
        ("KMSThrottlingException", Verdict.RETRY, ""),
        ("AccessDenied", Verdict.RETRY, "access_denied"),
        ("AccessDeniedException", Verdict.RETRY, "access_denied"),
        ("AuthorizationError", Verdict.RETRY, "access_denied"),
        ("NotAuthorizedForSourceException", Verdict.RETRY, "access_denied"),
        ("NoSuchBucket", Verdict.RETRY, "destination_missing"),
        ("AWS.SimpleQueueService.NonExistentQueue", Verdict.RETRY, "destination_missing"),
        ("ResourceNotFoundException", Verdict.RETRY, "destination_missing"),
        ("KMS.DisabledException", Verdict.RETRY, "kms_refused"),
        ("KMSAccessDeniedException", Verdict.RETRY, "kms_refused"),
        ("InvalidParameterValue", Verdict.PERMANENT, ""),
        ("MalformedDetail", Verdict.PERMANENT, ""),
        ("SomethingNew", Verdict.RETRY, ""),
    ],
)
def test_aws_error_codes(code: str, verdict: Verdict, disable: str) -> None:
    """A non-HTTP destination's AWS error code: throttling and server faults retry; access, a missing resource and KMS
    refusals retry but disable the endpoint (so the delivery is parked, not failed); other client errors are permanent."""
    result = classify(Outcome(error=aws_error(code)))
    assert (result.verdict, result.disable_endpoint) == (verdict, disable)
    assert code in result.reason
