"""A task's plan for this invocation, as the delivery service carries it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from hookline.core.breaker import Breaker
from hookline.core.models import Delivery, Endpoint, Event
from hookline.core.planning import PlanKind, Step
from hookline.core.ratelimit import Limiter


@dataclass(frozen=True)
class Plan:
    """What a task may do in this invocation, decided once per endpoint and batch (see `hookline.core.planning`)."""

    step: Step | None  # None: planning itself failed (see `failed`)
    endpoint: Endpoint | None = None
    breaker: Breaker | None = None  # the breaker as planned (the probe's lease when probing)
    event: Event | None = None  # read for the whole batch at planning, so a task need not read it alone
    delivery: Delivery | None = None  # a fresh task's delivery, read with the bodies (None: not found, or not read)
    delivery_read: bool = False  # whether `delivery` was read: a fresh task then checks it instead of claiming
    failed: str = ""  # planning itself failed (e.g. DynamoDB is down): the task fails and SQS redelivers it
    # The limiter as this batch's grant wrote it, when the endpoint had nothing else in flight: the batch's give-back
    # proposes from it instead of reading the item first (its write is conditional, so a stale guess costs a retry)
    granted: Limiter | None = None

    @property
    def kind(self) -> PlanKind | Literal["fail"]:
        return "fail" if self.step is None else self.step.kind

    @property
    def sends(self) -> bool:
        return self.kind in ("go", "probe")
