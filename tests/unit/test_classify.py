"""The response classification matrix, table-tested."""

from __future__ import annotations

import pytest

from hookline.core.classify import Outcome, Verdict, classify


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
    assert result.disable_endpoint is disable
    assert result.reason
