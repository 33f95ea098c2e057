"""The operational notifications hookline sends, and the port that sends them."""

from __future__ import annotations

from typing import Any, Protocol

CIRCUIT_OPENED = "endpoint.circuit_opened"
RECOVERED = "endpoint.recovered"
DISABLED = "endpoint.disabled"
EXHAUSTED = "delivery.exhausted"


class Notify(Protocol):
    def __call__(self, kind: str, **details: Any) -> None: ...
