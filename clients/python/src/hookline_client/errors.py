"""The errors the client raises: one for every refused or failed call, one for a webhook that does not verify."""

from __future__ import annotations

from typing import Any

from standardwebhooks.webhooks import WebhookVerificationError as _StandardWebhookVerificationError

# The code of an answer without hookline's envelope: API Gateway's own (`{"message": ...}`) or a proxy's page.
_GATEWAY_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found", 413: "payload_too_large", 429: "too_many_requests"}


class HooklineError(Exception):
    """A call the API refused or that failed: `status` (0 when no answer came), `code` and `message`.

    `code` is the API's stable machine-readable code (`customer_not_found`, `idempotency_conflict`,
    `schema_violation`, ...); `details` holds the other fields of the error envelope (a schema
    violation's `pointer` and `rule`, a failed test event's `attempt`).
    """

    def __init__(self, status: int, code: str, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"{status} {code}: {message}" if status else f"{code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        # The idempotency key a call to send an event went with (the caller's `id`, or the one the client made):
        # repeat the call with `id=` it, and no second event is made, however the failed call ended.
        self.idempotency_key: str | None = None

    def keyed(self, key: str) -> HooklineError:
        """This error, naming the idempotency key of the call that failed (`idempotency_key`; and in the message when
        repeating it can help: no answer, 429 or 5xx, after which the event may be stored)."""
        self.idempotency_key = key
        if self.status in {0, 429} or self.status >= 500:
            self.args = (f"{self.args[0]} (idempotency key {key}: repeat with this id)",)
        return self

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, message={self.message!r})"

    @classmethod
    def from_answer(cls, status: int, body: Any, text: str = "") -> HooklineError:
        """The error an answer describes: hookline's `{"error": {"code", "message"}}`, else API Gateway's `{"message"}`."""
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            details = {k: v for k, v in error.items() if k not in ("code", "message")}
            return cls(status, error["code"], str(error.get("message", "")), details=details)
        fallback = _GATEWAY_CODES.get(status, "server_error" if status >= 500 else "http_error")
        if isinstance(body, dict) and isinstance(body.get("message"), str):
            return cls(status, fallback, body["message"])
        return cls(status, fallback, text.strip()[:500] or f"HTTP {status}")


class HooklineConnectionError(HooklineError):
    """No answer came (refused connection, timeout, reset) after every retry; `status` is 0."""

    def __init__(self, message: str) -> None:
        super().__init__(0, "connection_error", message)


class WebhookVerificationError(_StandardWebhookVerificationError):
    """A webhook that must not be trusted: a missing or malformed header, a stale timestamp, or no matching signature.

    A subclass of `standardwebhooks`' own error, so code that catches that one catches this too.
    """
