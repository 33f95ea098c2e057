"""Making a fake's dependency fail on demand, as an adapter reports it: DependencyFailed."""

from __future__ import annotations

from hookline.core.errors import DependencyFailed


class Faults:
    """Which of a fake's operations fail, and how many more times (None: until healed)."""

    def __init__(self) -> None:
        self._failing: dict[str, tuple[int | None, str]] = {}
        self.raised: list[str] = []

    def fail(self, operation: str, times: int | None = None, cause: str = "ServiceUnavailable") -> None:
        """Make `operation` raise DependencyFailed, `times` times (None: every time until `heal`)."""
        self._failing[operation] = (times, cause)

    def heal(self, operation: str | None = None) -> None:
        if operation is None:
            self._failing.clear()
        else:
            self._failing.pop(operation, None)

    def check(self, operation: str) -> None:
        """Called first by every operation of a fake: raises if that operation is set to fail."""
        if operation not in self._failing:
            return
        left, cause = self._failing[operation]
        if left is not None:
            if left <= 1:
                del self._failing[operation]
            else:
                self._failing[operation] = (left - 1, cause)
        self.raised.append(operation)
        raise DependencyFailed(f"{operation} failed (injected)", cause=cause)
