"""Verifying a webhook hookline delivered, for receivers: the Standard Webhooks signature, by `standardwebhooks`."""

from __future__ import annotations

import binascii
from collections.abc import Iterable, Mapping
from typing import cast

from standardwebhooks.webhooks import EmptyWebhookSecretError, Webhook
from standardwebhooks.webhooks import WebhookVerificationError as _StandardWebhookVerificationError

from .errors import WebhookVerificationError
from .models import WebhookMessage

HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")


def _webhook(secret: str) -> Webhook:
    if not isinstance(secret, str) or not secret.startswith("whsec_") or len(secret) <= len("whsec_"):
        raise ValueError("the secret must be the endpoint's signing secret, `whsec_` and base64 (GET /v1/endpoints/{id}/secret shows it)")
    try:
        return Webhook(secret)
    except (binascii.Error, ValueError, EmptyWebhookSecretError) as exc:  # base64 that decodes to nothing: no key
        raise ValueError(f"the secret is not `whsec_` and base64: {exc}") from None


def verify(payload: bytes | str, headers: Mapping[str, str], secret: str | Iterable[str]) -> WebhookMessage:
    """Check a webhook's signature and return its parsed body (`{"id", "type", "timestamp", "version", "data"}`).

    `payload` is the request body exactly as received (bytes, before any JSON parsing), `headers`
    the request's headers (any case: `webhook-id`, `webhook-timestamp`, `webhook-signature`), and
    `secret` the endpoint's `whsec_…` secret, or several (during a rotation deliveries carry a
    signature for the new and the previous secret: either verifies). A timestamp more than five
    minutes away from now is refused (a replayed webhook). Raises `WebhookVerificationError` saying
    what is wrong; answer such a request 4xx and do nothing with it. Deduplicate on `webhook-id`:
    delivery is at least once.
    """
    if not isinstance(payload, bytes | str):
        raise TypeError(f"payload must be the raw body (bytes or str), not {type(payload).__name__}: a re-serialised body does not verify")
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets:
        raise ValueError("no secret to verify with")
    verifiers = [_webhook(s) for s in secrets]
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    missing = [h for h in HEADERS if not lowered.get(h)]
    if missing:
        raise WebhookVerificationError(f"not a signed webhook: missing header {', '.join(missing)}")
    if isinstance(payload, bytes):
        try:
            payload = payload.decode("utf-8")
        except UnicodeDecodeError:
            raise WebhookVerificationError("the body is not UTF-8: it is not what hookline signed") from None
    failure = ""
    for verifier in verifiers:
        try:
            return cast(WebhookMessage, verifier.verify(payload, lowered))
        except _StandardWebhookVerificationError as exc:
            failure = str(exc)
            if failure != "No matching signature found":  # the timestamp or the headers: another secret changes nothing
                break
        except (ValueError, binascii.Error):  # a malformed signature list, or a body that is not JSON
            raise WebhookVerificationError("malformed webhook-signature header or body: expected `v1,<base64>` signatures and a JSON body") from None
    if failure == "No matching signature found":
        raise WebhookVerificationError("signature mismatch: the body was changed, or it was signed with another secret")
    if "too old" in failure or "too new" in failure:
        raise WebhookVerificationError(f"webhook-timestamp {lowered['webhook-timestamp']} is more than 5 minutes from now: a replayed webhook, or a clock off")
    raise WebhookVerificationError(f"invalid webhook headers: {failure}")
