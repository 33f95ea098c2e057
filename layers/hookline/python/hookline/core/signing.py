"""Standard Webhooks signatures: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` with `whsec_` secrets, and
`v1a,<base64 Ed25519 signature of the same>` with `whsk_` private keys (their `whpk_` public keys shown, and as JWKs)."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from typing import Any

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


def signature_header(secrets_in_use: Sequence[str], msg_id: str, timestamp: int, body: bytes) -> str:
    """Several secrets (during rotation) give several space-separated signatures."""
    return " ".join(sign(s, msg_id, timestamp, body) for s in secrets_in_use)


# -- Standard Webhooks v1a: Ed25519 -----------------------------------------------------------------------------------
PRIVATE_KEY_PREFIX = "whsk_"  # a format prefix, not a key
PUBLIC_KEY_PREFIX = "whpk_"


def generate_key() -> str:
    """A new Ed25519 private key, `whsk_` + base64 of its 32-byte seed and then its 32-byte public key (libsodium's
    and Go's form of a private key: the public key is read from it without any cryptography)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # only the code that makes keys pays for the import
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat, PublicFormat

    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return PRIVATE_KEY_PREFIX + base64.b64encode(seed + key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()


def public_key(private_key: str) -> str:
    """The `whpk_` public key (base64 of its 32 raw bytes, as the spec writes it) of a `whsk_` private key."""
    return PUBLIC_KEY_PREFIX + base64.b64encode(base64.b64decode(private_key.removeprefix(PRIVATE_KEY_PREFIX))[32:]).decode()


@functools.lru_cache(maxsize=512)
def _signer(private_key: str) -> Any:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # only the code that signs pays for the import

    return Ed25519PrivateKey.from_private_bytes(base64.b64decode(private_key.removeprefix(PRIVATE_KEY_PREFIX))[:32])


def sign_ed25519(private_key: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """`v1a,<base64 Ed25519 signature of "{id}.{timestamp}.{body}">` (Standard Webhooks' asymmetric signature)."""
    return "v1a," + base64.b64encode(_signer(private_key).sign(f"{msg_id}.{timestamp}.".encode() + body)).decode()


def ed25519_header(keys_in_use: Sequence[str], msg_id: str, timestamp: int, body: bytes) -> str:
    """One `v1a` signature per live private key (during a rotation's overlap), space-separated."""
    return " ".join(sign_ed25519(k, msg_id, timestamp, body) for k in keys_in_use)


def jwk(public: str, **more: Any) -> dict[str, Any]:
    """A `whpk_` public key as an RFC 8037 OKP JSON Web Key, its `kid` the RFC 7638 thumbprint (base64url SHA-256 of
    the key's required members in lexicographic order); `more` members are added (the endpoint's id)."""
    x = base64.urlsafe_b64encode(base64.b64decode(public.removeprefix(PUBLIC_KEY_PREFIX))).decode().rstrip("=")
    members = f'{{"crv":"Ed25519","kty":"OKP","x":"{x}"}}'
    kid = base64.urlsafe_b64encode(hashlib.sha256(members.encode()).digest()).decode().rstrip("=")
    return {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "use": "sig", "alg": "EdDSA", **more}
