"""The rest of the outside world: a receiver behind the HTTP sender, the notification topic, the statistics table."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hookline.core.models import Endpoint
from hookline.core.responses import HttpResult
from hookline.core.stats import Carried, hour_of
from hookline.core.webhook import Outbound
from tests.fakes.atomic import atomic, new_lock
from tests.fakes.faults import Faults


@dataclass(frozen=True)
class Request:
    url: str
    body: bytes
    headers: dict[str, str]


Answer = Callable[[Request], HttpResult]


def answering(status: int, body: str = "ok", headers: dict[str, str] | None = None, duration_ms: int = 12) -> Answer:
    return lambda _r: HttpResult(status, None, duration_ms, body=body, headers=headers or {})


def failing(error: str = "connection_refused", detail: str = "") -> Answer:
    return lambda _r: HttpResult(None, error, 3, detail=detail)


class FakeSender:
    """Sender: records each delivery as a request (to the endpoint's URL, or its destination's address) and answers
    it with `answer` (200 "ok" by default).

    Contract, as the adapter's: every failure is an HttpResult, never an exception.
    """

    def __init__(self, answer: Answer | None = None):
        self.answer: Answer = answer or answering(200)
        self.requests: list[Request] = []

    def send(self, endpoint: Endpoint, message: Outbound) -> HttpResult:
        request = Request(endpoint.destination.address if endpoint.destination is not None else endpoint.url, message.body, dict(message.headers))
        self.requests.append(request)
        return self.answer(request)


def scripted(*results: HttpResult) -> Answer:
    """Answers in turn, the last one repeated."""
    script = list(results)
    return lambda _r: script.pop(0) if len(script) > 1 else script[0]


class RecordingNotify:
    """Notify: keeps every notification as (kind, details)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, kind: str, **details: Any) -> None:
        self.sent.append((kind, details))

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.sent]


class FakeStats:
    """StatsReader and StatsSink: counters per endpoint and hour, added up over a window of hours (both ends included).

    As the adapter: an endpoint's latest hour may be carried on its limiter (`states`, the state store beside it),
    `move` adds carried counters to their hour once per token, and a reader adds what is carried and not moved."""

    def __init__(self, states: Any = None) -> None:
        self.slots: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
        self.moved: set[tuple[str, str, str, str]] = set()  # (tenant, endpoint, hour, token)
        self.states = states
        self.faults = Faults()
        self._lock = new_lock()

    @atomic
    def add(self, tenant: str, endpoint_id: str, hour: str, counts: dict[str, int]) -> None:
        self.faults.check("add")
        slot = self.slots[(tenant, endpoint_id, hour)]
        for name, value in counts.items():
            slot[name] += value

    @atomic
    def move(self, tenant: str, endpoint_id: str, carried: Carried) -> None:
        self.faults.check("move")
        if (tenant, endpoint_id, carried.hour, carried.token) in self.moved:
            return
        self.moved.add((tenant, endpoint_id, carried.hour, carried.token))
        slot = self.slots[(tenant, endpoint_id, carried.hour)]
        for name, value in carried.counts:
            slot[name] += value

    def window(self, tenant: str, endpoint_id: str, since: datetime, until: datetime) -> dict[str, int]:
        self.faults.check("window")
        totals: dict[str, int] = defaultdict(int)
        for _, counts in self.hours(tenant, endpoint_id, since, until):
            for name, value in counts.items():
                totals[name] += value
        return dict(totals)

    def hours(self, tenant: str, endpoint_id: str, since: datetime, until: datetime) -> list[tuple[str, dict[str, int]]]:
        self.faults.check("hours")
        low, high = hour_of(since), hour_of(until)
        found = {hour: dict(counts) for (t, e, hour), counts in self.slots.items() if (t, e) == (tenant, endpoint_id) and low <= hour <= high}
        limiter = self.states.limiters.get((tenant, endpoint_id)) if self.states is not None else None
        carried = limiter.carried if limiter is not None else Carried()
        if carried.counts and low <= carried.hour <= high and (tenant, endpoint_id, carried.hour, carried.token) not in self.moved:
            slot = found.setdefault(carried.hour, {})
            for name, value in carried.counts:
                slot[name] = slot.get(name, 0) + value
        return sorted(found.items())
