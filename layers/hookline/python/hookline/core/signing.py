"""Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"  # noqa: S105 - a format prefix, not a secret


def generate_secret() -> str:
    # 24 random bytes, as Svix and the spec's examples use.
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def secret_bytes(secret: str) -> bytes:
    raw = secret[len(SECRET_PREFIX) :] if secret.startswith(SECRET_PREFIX) else secret
    return base64.b64decode(raw)


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    to_sign = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_bytes(secret), to_sign, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def signature_header(secrets_in_use: list[str], msg_id: str, timestamp: int, body: bytes) -> str:
    """Several secrets (during rotation) give several space-separated signatures."""
    return " ".join(sign(s, msg_id, timestamp, body) for s in secrets_in_use)
