"""Domain errors. The API turns each into `{"error": {"code", "message"}}` in one place."""

from __future__ import annotations


class HooklineError(Exception):
    status = 500
    code = "internal_error"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


class BadRequest(HooklineError):
    status = 400
    code = "bad_request"


class Unauthorized(HooklineError):
    status = 401
    code = "unauthorized"


class NotFound(HooklineError):
    status = 404
    code = "not_found"


class Conflict(HooklineError):
    status = 409
    code = "conflict"


class PayloadTooLarge(HooklineError):
    status = 413
    code = "payload_too_large"


class ValidationFailed(HooklineError):
    status = 422
    code = "validation_failed"


class Unavailable(HooklineError):
    """A dependency failed; the caller may repeat the request safely."""

    status = 503
    code = "unavailable"


class FailedDependency(HooklineError):
    """The receiver did not accept a test event (424), with the attempt's outcome."""

    status = 424
    code = "test_event_failed"

    def __init__(self, message: str, outcome: dict[str, object]):
        super().__init__(message)
        self.outcome = outcome
