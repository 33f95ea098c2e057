"""Secrets sealed at rest with the stack's KMS key, by envelope encryption: the `Sealer` port.

`seal` asks KMS for a fresh data key (GenerateDataKey, AES-256) under an encryption context (an endpoint's tenant and
id: hookline.core.auth.seal_context), encrypts the secret with it (AES-GCM, the context as associated data too), and
keeps only the data key as KMS encrypted it: `v1.<encrypted data key>.<nonce>.<ciphertext>`, each base64. `open` asks
KMS to decrypt the data key (Decrypt, with the same context: another endpoint's context fails there, and in AES-GCM),
then decrypts the secret. An opened data key is kept in the process for `cache_seconds` (keyed by its encrypted
form), so a warm delivery function opens an endpoint's secrets without calling KMS on every delivery.

`cryptography` is imported when a secret is first sealed or opened, never at a function's cold start
(tests/unit/test_cold_start_imports.py). A secret is never logged; a failure says which step failed, not what it held.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

VERSION = "v1"
NONCE_BYTES = 12  # AES-GCM's standard nonce
DATA_KEY_CACHE_SECONDS = 300.0  # how long an opened data key is kept in the process
DATA_KEY_CACHE_MOST = 1024  # opened data keys kept at once (the oldest dropped first)


class SealFailed(Exception):
    """A secret could not be sealed or opened (KMS refused or is unreachable, or the sealed text is not one of ours)."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _aad(context: Mapping[str, str]) -> bytes:
    return json.dumps(dict(context), separators=(",", ":"), sort_keys=True).encode()


class KmsSealer:
    """Envelope encryption under one KMS key (the stack's), its data keys opened at most once per `cache_seconds`."""

    def __init__(self, kms: Callable[[], Any], key_id: str, cache_seconds: float = DATA_KEY_CACHE_SECONDS, clock: Callable[[], float] = time.monotonic):
        self._kms = kms  # a client maker: the client is made on the first seal or open
        self._key_id = key_id
        self._cache_seconds = cache_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._opened: dict[tuple[bytes, str], tuple[bytes, float]] = {}
        self.kms_calls = 0  # GenerateDataKey and Decrypt calls made: what the cache saves

    def seal(self, plaintext: bytes, context: Mapping[str, str]) -> str:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        if not self._key_id:
            raise SealFailed("no key to seal with (HOOKLINE_SECRETS_KEY_ARN is empty)")
        try:
            self.kms_calls += 1
            answer = self._kms().generate_data_key(KeyId=self._key_id, KeySpec="AES_256", EncryptionContext=dict(context))
        except (ClientError, BotoCoreError) as exc:
            raise SealFailed(f"KMS GenerateDataKey failed: {_code(exc)}") from None
        nonce = os.urandom(NONCE_BYTES)
        sealed = AESGCM(answer["Plaintext"]).encrypt(nonce, plaintext, _aad(context))
        return ".".join((VERSION, _b64(answer["CiphertextBlob"]), _b64(nonce), _b64(sealed)))

    def open(self, sealed: str, context: Mapping[str, str]) -> bytes:
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        version, *parts = sealed.split(".")
        if version != VERSION or len(parts) != 3:
            raise SealFailed("not a sealed secret of this version")
        try:
            wrapped, nonce, ciphertext = (base64.b64decode(p, validate=True) for p in parts)
        except ValueError:
            raise SealFailed("not a sealed secret") from None
        key = self._data_key(wrapped, context)
        try:
            return AESGCM(key).decrypt(nonce, ciphertext, _aad(context))
        except InvalidTag:
            raise SealFailed("sealed secret does not open under this context") from None

    def _data_key(self, wrapped: bytes, context: Mapping[str, str]) -> bytes:
        cache_key = (wrapped, _aad(context).decode())
        now = self._clock()
        with self._lock:
            kept = self._opened.get(cache_key)
        if kept is not None and kept[1] > now:
            return kept[0]
        try:
            self.kms_calls += 1
            plaintext = bytes(self._kms().decrypt(CiphertextBlob=wrapped, EncryptionContext=dict(context), KeyId=self._key_id)["Plaintext"])
        except (ClientError, BotoCoreError) as exc:
            raise SealFailed(f"KMS Decrypt failed: {_code(exc)}") from None
        with self._lock:
            for stale in [k for k, (_, until) in self._opened.items() if until <= now]:
                del self._opened[stale]
            while len(self._opened) >= DATA_KEY_CACHE_MOST:
                del self._opened[next(iter(self._opened))]
            self._opened[cache_key] = (plaintext, now + self._cache_seconds)
        return plaintext


def _code(exc: Exception) -> str:
    if isinstance(exc, ClientError):
        return str(exc.response.get("Error", {}).get("Code") or "ClientError")
    return type(exc).__name__
