"""What a receiver answered to one webhook request (or the error that stood in for an answer)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from hookline.core import classify


@dataclass(frozen=True)
class HttpResult:
    status_code: int | None
    error: str | None
    duration_ms: int
    body: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    detail: str = ""

    @property
    def outcome(self) -> classify.Outcome:
        retry_after = next((v for k, v in self.headers.items() if k.lower() == "retry-after"), None)
        return classify.Outcome(status_code=self.status_code, error=self.error, retry_after=retry_after)
