"""The Sealer port in memory: sealed texts that hold nothing in the clear, opened only under the context they were
sealed with (as KMS and AES-GCM refuse another), counting seals and opens."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping


class SealRefused(Exception):
    """Opened under another context, or not a text this sealer made."""


class FakeSealer:
    def __init__(self) -> None:
        self.sealed = 0
        self.opened = 0

    def seal(self, plaintext: bytes, context: Mapping[str, str]) -> str:
        self.sealed += 1
        inner = json.dumps({"context": dict(context), "plaintext": base64.b64encode(plaintext[::-1]).decode()}, sort_keys=True)
        return "fake." + base64.urlsafe_b64encode(inner.encode()[::-1]).decode()

    def open(self, sealed: str, context: Mapping[str, str]) -> bytes:
        self.opened += 1
        if not sealed.startswith("fake."):
            raise SealRefused("not sealed here")
        inner = json.loads(base64.urlsafe_b64decode(sealed.removeprefix("fake."))[::-1])
        if inner["context"] != dict(context):
            raise SealRefused("another context")
        return base64.b64decode(inner["plaintext"])[::-1]
