"""HTTP with retries: one logical call, repeated on 429, 5xx and connection errors while that is safe.

A call is `IDEMPOTENT` when repeating it cannot do the work twice: a read, a PUT, an event send
(its `id` is the idempotency key, one per logical call), a replay (the same request within a minute
names the same replay), a portal session (a second, never-seen token is harmless). It is retried
on 429, on every 5xx and on every connection error or timeout.

A call is `UNSAFE` when a repeat could do the work twice (creating an endpoint: the API takes no
idempotency key for it). It is retried only when the request cannot have been processed: API
Gateway's 429 (its throttle answers before hookline's code runs) and a connection that was never
established. A 5xx or a timeout after the request went out is raised to the caller.
"""

from __future__ import annotations

import enum
import json
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote

import requests
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError

from .errors import HooklineConnectionError, HooklineError

USER_AGENT_PREFIX = "hookline-client-python"


class Retry(enum.Enum):
    IDEMPOTENT = "idempotent"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait: `max_retries` after the first try, each after an exponential backoff with
    jitter (`backoff_base` doubling up to `backoff_max` seconds) or the `Retry-After` asked for, up to `max_retry_after`."""

    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be 0 or more")


def path_segment(value: str) -> str:
    """`value` as one path segment: what RFC 3986 allows in a segment stays (the API reads the path undecoded)."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"an id must be a non-empty string, not {value!r}")
    return quote(value, safe=":@!$&'()*+,;=")


def retry_after_seconds(value: str | None, now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> float | None:
    """The wait a `Retry-After` header asks for, in seconds (delta-seconds or an HTTP date); None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - now()).total_seconds()
    if math.isnan(seconds):
        return None
    return max(0.0, seconds)


def _never_sent(exc: requests.RequestException) -> bool:
    """The request cannot have reached the server: the connection was refused or never established."""
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return True
    if not isinstance(exc, requests.exceptions.ConnectionError):
        return False
    reason: Any = exc.args[0] if exc.args else None
    reason = getattr(reason, "reason", reason)  # urllib3's MaxRetryError wraps the cause
    return isinstance(reason, NewConnectionError | ConnectTimeoutError)


class Transport:
    """The client's one way to the API: authentication, JSON, errors and the retry loop."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float,
        policy: RetryPolicy,
        session: requests.Session | None,
        sleep: Callable[[float], None],
        user_agent: str,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http:// or https:// URL, not {base_url!r}")
        if not api_key:
            raise ValueError("api_key is empty")
        if any(c.isspace() or not c.isprintable() for c in api_key):  # the key itself is never put in the message
            raise ValueError("api_key holds whitespace or a control character (a newline read from a file with it?)")
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.timeout = timeout
        self.policy = policy
        self._owns_session = session is None
        self.session = session if session is not None else requests.Session()
        self._sleep = sleep
        self._user_agent = user_agent
        self._random = random.Random()

    def close(self) -> None:
        if self._owns_session:
            self.session.close()

    def backoff(self, retry: int) -> float:
        """The wait before retry number `retry` (0 for the first): exponential, capped, with jitter (half to all of it)."""
        ceiling = min(self.policy.backoff_max, self.policy.backoff_base * (2**retry))
        return self._random.uniform(ceiling / 2, ceiling)

    def request(
        self,
        method: str,
        path: str,
        *,
        retry: Retry,
        body: Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """Send the call (the same bytes on every try) and return the decoded JSON answer (None for 204)."""
        url = self.base_url + path
        headers = {"Authorization": f"Bearer {self._api_key}", "Accept": "application/json", "User-Agent": self._user_agent}
        data: bytes | None = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        query = {k: v for k, v in (params or {}).items() if v is not None}
        tries = 0
        while True:
            try:
                response = self.session.request(method, url, data=data, params=query, headers=headers, timeout=self.timeout)
            except requests.RequestException as exc:
                transient = isinstance(exc, requests.exceptions.ConnectionError | requests.exceptions.Timeout | requests.exceptions.ChunkedEncodingError)
                retryable = transient and (retry is Retry.IDEMPOTENT or _never_sent(exc))
                if not retryable or tries >= self.policy.max_retries:
                    raise HooklineConnectionError(f"{method} {path}: {type(exc).__name__}: {str(exc).replace(self._api_key, '***')}") from exc
                self._sleep(self.backoff(tries))
                tries += 1
                continue
            status = response.status_code
            if status < 400:
                return _decode(response, method, path)
            retryable = status == 429 or (status >= 500 and retry is Retry.IDEMPOTENT)
            wait = retry_after_seconds(response.headers.get("Retry-After"))
            if not retryable or tries >= self.policy.max_retries or (wait is not None and wait > self.policy.max_retry_after):
                raise HooklineError.from_answer(status, _json_or_none(response), response.text)
            response.close()
            self._sleep(wait if wait is not None else self.backoff(tries))
            tries += 1


def _json_or_none(response: requests.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _decode(response: requests.Response, method: str, path: str) -> Any:
    if response.status_code == 204 or not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        raise HooklineError(response.status_code, "invalid_response", f"{method} {path} answered {response.status_code} without JSON") from None
