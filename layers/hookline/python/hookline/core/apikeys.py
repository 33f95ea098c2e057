"""API keys: each belongs to one tenant, is shown once and is stored only as its hash.

`HOOKLINE_API_KEYS` (local mode) lists keys as `tenant:key,tenant:key`.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KEY_PREFIX = "hk_"


def generate_api_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def bearer_key(headers: Mapping[str, Any] | None) -> str | None:
    """The credential of an `Authorization: Bearer <key>` header (its name in any case), or None."""
    for name, value in (headers or {}).items():
        if name.lower() == "authorization" and isinstance(value, str):
            scheme, _, key = value.strip().partition(" ")
            if scheme.lower() == "bearer" and key.strip():
                return key.strip()
    return None


def hash_api_key(key: str) -> str:
    # Keys are 256-bit random, so an unsalted SHA-256 cannot be brute-forced;
    # a fast hash keeps the authorizer cheap.
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class ApiKeyRecord:
    tenant: str
    key_hash: str
    revoked: bool = False


def parse_key_list(raw: str) -> list[tuple[str, str]]:
    """`tenant:key,tenant:key` -> [(tenant, key)]; raises ValueError on a malformed entry."""
    pairs = []
    for entry in raw.split(","):
        part = entry.strip()
        if not part:
            continue
        tenant, sep, key = part.partition(":")
        if not sep or not tenant.strip() or not key.strip():
            raise ValueError(f"HOOKLINE_API_KEYS entry {part!r} is not tenant:key")
        pairs.append((tenant.strip(), key.strip()))
    return pairs
