"""Domain errors, and the one error envelope every hookline answer uses: `{"error": {"code", "message"}}`."""

from __future__ import annotations

from typing import Any


def envelope(code: str, message: str, **details: Any) -> dict[str, Any]:
    """The body of an error answer: the API's, local mode's front door's, a refused direct invocation's.

    `code` is a stable snake_case identifier clients branch on; `message` is for
    people; `details` add fields beside them (a failed test event's attempt).
    """
    return {"error": {"code": code, "message": message, **details}}


class HooklineError(Exception):
    status = 500
    code = "internal_error"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code

    def envelope(self) -> dict[str, Any]:
        return envelope(self.code, self.message)


class BadRequest(HooklineError):
    status = 400
    code = "bad_request"


class Unauthorized(HooklineError):
    status = 401
    code = "unauthorized"


class Forbidden(HooklineError):
    """The caller is who it says, but may not do this (a portal session on a producer-only or mutating route)."""

    status = 403
    code = "forbidden"


class NotFound(HooklineError):
    status = 404
    code = "not_found"


class MethodNotAllowed(HooklineError):
    """A path hookline serves, asked with a method it does not serve there: `allow` lists those it does."""

    status = 405
    code = "method_not_allowed"

    def __init__(self, message: str, code: str | None = None, allow: tuple[str, ...] = ()):
        super().__init__(message, code)
        self.allow = allow


class Conflict(HooklineError):
    """409; `details` add fields beside the code and message (a refused rotation's `secrets`)."""

    status = 409
    code = "conflict"

    def __init__(self, message: str, code: str | None = None, **details: Any):
        super().__init__(message, code)
        self.details = details

    def envelope(self) -> dict[str, Any]:
        return envelope(self.code, self.message, **self.details)


class PayloadTooLarge(HooklineError):
    status = 413
    code = "payload_too_large"


class ValidationFailed(HooklineError):
    status = 422
    code = "validation_failed"


class InvalidCursor(ValidationFailed):
    """A paging cursor that is malformed or points outside the caller's own items."""

    code = "invalid_cursor"


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

    def envelope(self) -> dict[str, Any]:
        return envelope(self.code, self.message, attempt=self.outcome)


class DependencyFailed(Exception):
    """A dependency (DynamoDB, SQS, Step Functions) failed or refused a request, after the SDK's own retries.

    The adapters behind the services' ports raise it instead of the SDK's
    errors, so no service handles botocore. It is not a HooklineError: each
    service decides what it means (the event routes answer 503, "repeat the
    request"); left unhandled, the API answers 503 `unavailable` too, and a
    function's invocation fails (its messages come back). `cause`
    names the original error (its class name, or its AWS error code when botocore raised the generic
    ClientError), for the answer and the log.
    """

    def __init__(self, message: str, cause: str = ""):
        super().__init__(message)
        self.cause = cause or type(self).__name__


def error_code(exc: BaseException) -> str:
    """What a failure is known by in logs, metrics and the endpoint's health: a failed dependency's cause (its AWS
    error code, e.g. MessageRejected), else the error's class. Never its message, which may name an address or a url."""
    return exc.cause if isinstance(exc, DependencyFailed) else type(exc).__name__
