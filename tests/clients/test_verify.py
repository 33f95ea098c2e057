"""`hookline_client.verify`: a receiver's check of a webhook's Standard Webhooks signature."""

from __future__ import annotations

import base64
import json
import time
from datetime import UTC, datetime

import pytest
from standardwebhooks.webhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError as StandardError

from hookline_client import WebhookVerificationError, verify

SECRET = "whsec_" + base64.b64encode(b"k" * 24).decode()
OTHER = "whsec_" + base64.b64encode(b"o" * 24).decode()
BODY = json.dumps({"id": "evt_1", "type": "invoice.paid", "timestamp": "2026-03-14T09:00:00Z", "version": "2026-01-01", "data": {"n": 1}}).encode()


def signed(body: bytes = BODY, *secrets: str, at: float | None = None) -> dict[str, str]:
    """The headers hookline sends: one `v1,` signature per secret, space-separated."""
    moment = datetime.fromtimestamp(at if at is not None else time.time(), tz=UTC)
    signatures = " ".join(Webhook(s).sign("evt_1", moment, body.decode()) for s in secrets or (SECRET,))
    return {"Webhook-Id": "evt_1", "Webhook-Timestamp": str(int(moment.timestamp())), "Webhook-Signature": signatures}


def test_a_signed_webhook_verifies_and_returns_its_body() -> None:
    message = verify(BODY, signed(), SECRET)
    assert message["type"] == "invoice.paid"
    assert message["data"] == {"n": 1}
    assert verify(BODY.decode(), signed(), SECRET)["id"] == "evt_1"  # str bodies too; header names in any case


def test_a_tampered_body_is_refused() -> None:
    with pytest.raises(WebhookVerificationError, match="signature mismatch"):
        verify(BODY.replace(b'"n": 1', b'"n": 2'), signed(), SECRET)


def test_another_secret_is_refused_and_either_secret_of_a_rotation_verifies() -> None:
    with pytest.raises(WebhookVerificationError, match="signature mismatch"):
        verify(BODY, signed(), OTHER)
    # During a rotation deliveries carry both signatures; a receiver may hold both secrets
    assert verify(BODY, signed(BODY, SECRET, OTHER), OTHER)["id"] == "evt_1"
    assert verify(BODY, signed(BODY, OTHER), [SECRET, OTHER])["id"] == "evt_1"


def test_missing_stale_and_malformed_headers_are_refused_clearly() -> None:
    headers = signed()
    del headers["Webhook-Signature"]
    with pytest.raises(WebhookVerificationError, match="missing header webhook-signature"):
        verify(BODY, headers, SECRET)
    with pytest.raises(WebhookVerificationError, match="more than 5 minutes"):
        verify(BODY, signed(at=time.time() - 3600), SECRET)
    with pytest.raises(WebhookVerificationError, match="malformed"):
        verify(BODY, {**signed(), "Webhook-Signature": "garbage"}, SECRET)
    with pytest.raises(WebhookVerificationError, match="not UTF-8"):
        verify(b"\xff\xfe", signed(), SECRET)


def test_the_error_is_standardwebhooks_own_and_bad_arguments_are_programming_errors() -> None:
    with pytest.raises(StandardError):
        verify(BODY, signed(), OTHER)
    with pytest.raises(ValueError, match="whsec_"):
        verify(BODY, signed(), "not-a-secret")
    with pytest.raises(ValueError, match="no secret"):
        verify(BODY, signed(), [])
    with pytest.raises(TypeError, match="raw body"):
        verify(json.loads(BODY), signed(), SECRET)  # type: ignore[arg-type]


@pytest.mark.parametrize("secret", ["whsec_!!!!", "whsec_ ", "whsec_=="])
def test_a_secret_that_decodes_to_no_key_is_a_value_error(secret: str) -> None:
    with pytest.raises(ValueError, match="base64"):
        verify(secret, b"{}", {"webhook-id": "msg_1", "webhook-timestamp": "1", "webhook-signature": "v1,x"})
