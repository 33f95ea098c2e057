"""The operators' DLQ drain, as a bulk job (kind `drain_dlq`): dead-lettered deliveries back onto the retry queue.

An operator starts it (`make dlq-drain`: a direct invocation of the jobs function,
which answers at once naming the job) and watches it (the same CLI reads the job until
it ends). Each step receives up to 100 matching dead letters (at most 20 receives of
ten), sends them to the retry queue spread over SQS delays at the drain's pace, then
deletes them from the DLQ; the next step is due when they are. A moved task claims its
attempt before it sends (hookline.core.deadletters), so a crash between the send and
the delete, a repeated step, or two drains at once put a task on the retry queue twice
and the receiver still gets it once. Tasks hookline dead-lettered itself come back as
manual replays with a fresh attempt budget (the worker restarts them).

Letters it leaves (another tenant's or endpoint's, and poison, which is for a human)
stay hidden from its receives for 15 minutes; `skipped` and `poison` count the letters
it looked at and left, so a drain running longer than that sees a letter again and
counts it again. The drain ends when the DLQ hands out nothing more (three empty
receives in a row and no letter visible), after 25 steps in a row that moved nothing
(up to 5,000 letters looked at, none its own: run it again to look further), or at
`max_messages`. A crashed step's moves are not counted, so `moved` can fall short of
what went back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hookline.core import ids
from hookline.core.deadletters import DeadLetter, verdict
from hookline.core.errors import ValidationFailed
from hookline.core.jobs import DRAIN_DLQ, JOB, Job, StepResult, paced
from hookline.core.models import DeliveryTask
from hookline.core.sqs import MAX_DELAY_SECONDS
from hookline.services.jobs import JobRunner
from hookline.services.ports import DeadLetterQueue, TaskQueue

OPERATORS = ""  # the jobs' tenant for operators' work: no tenant is named "" (an API key names a non-empty one)
DRAIN_PAGE = 100  # dead letters moved per step
DRAIN_RECEIVES = 20  # receives per step at most (ten letters each)
# A receive that waits for nothing can come back empty from a queue holding a few letters (SQS samples its servers):
# the DLQ is taken for empty after this many empty receives in a row and its count of visible letters at 0.
EMPTY_RECEIVES = 3
HIDE_SECONDS = 900  # how long a letter the drain leaves stays hidden from the drain's next receives
IDLE_STEPS = 25  # steps in a row that moved nothing (up to 5,000 letters looked at, none its own) end the drain
DEFAULT_MAX_MESSAGES = 100_000
RESTARTS_A_MINUTE = 20  # drains of one filter started within a minute after each other ended (then: the last one again)


@dataclass(frozen=True)
class DlqDrain:
    """The job kind (see the module's docstring)."""

    dead_letters: DeadLetterQueue
    retry_queue: TaskQueue

    def step(self, job: Job, now: datetime) -> StepResult:
        p = job.params
        rate, cap = float(p["rate"]), int(p["max_messages"])
        page = max(1, min(DRAIN_PAGE, int(rate * MAX_DELAY_SECONDS)))  # the page's delays stay within SQS's longest
        want = min(page, cap - job.counts.get("moved", 0))
        moves: list[DeliveryTask] = []
        moved: list[DeadLetter] = []
        counts = {"moved": 0, "skipped": 0, "poison": 0}
        empty_in_a_row = 0
        for _ in range(DRAIN_RECEIVES):
            if len(moves) >= want or empty_in_a_row >= EMPTY_RECEIVES:
                break
            letters = self.dead_letters.receive(min(10, want - len(moves)), HIDE_SECONDS)
            empty_in_a_row = 0 if letters else empty_in_a_row + 1
            for letter in letters:
                what, task = verdict(letter, p.get("tenant", ""), p.get("endpoint_id", ""))
                if task is not None:
                    moves.append(task)
                    moved.append(letter)
                else:
                    counts["skipped" if what == "skip" else "poison"] += 1
        delays, next_in = paced(len(moves), rate)
        if moves:
            self.retry_queue.enqueue(moves, delays=delays)
            self.dead_letters.delete(moved)  # after the send: a crash in between leaves a copy, which the claim drops
        counts["moved"] = len(moves)
        idle = 0 if moves else int(job.cursor or 0) + 1  # steps in a row that moved nothing (the cursor carries it)
        emptied = empty_in_a_row >= EMPTY_RECEIVES and self.dead_letters.visible() == 0
        last = emptied or idle >= IDLE_STEPS or job.counts.get("moved", 0) + len(moves) >= cap
        return StepResult(counts=counts, cursor=None if last else str(idle), next_in=next_in)


@dataclass(frozen=True)
class DrainControl:
    """What the operators' CLI invokes: start a drain, read a job."""

    jobs: JobRunner
    default_rate: float
    clock: Callable[[], datetime]

    def start(self, command: dict[str, Any]) -> dict[str, Any]:
        """The drain's job, started (or, asked again within the minute with the same filter, the same one)."""
        params = drain_params(command, self.default_rate)
        minute = self.clock().strftime("%Y-%m-%dT%H:%M")
        for n in range(RESTARTS_A_MINUTE):
            # The same drain asked again (a retried invoke) while it runs is that drain; one asked after it ended is a new one.
            job_id = ids.derived_id(JOB, DRAIN_DLQ, *(params[k] for k in sorted(params)), minute, str(n))
            existing = self.jobs.get(OPERATORS, job_id)
            if existing is None or existing.status == "running":
                break
        return {"job": self.jobs.start(OPERATORS, DRAIN_DLQ, params, job_id=job_id).public()}

    def describe(self, command: dict[str, Any]) -> dict[str, Any]:
        return {"job": self.jobs.find(str(command.get("tenant", OPERATORS)), str(command.get("job_id", ""))).public()}


def drain_params(command: dict[str, Any], default_rate: float) -> dict[str, str]:
    """The drain's parameters from the invocation: ValidationFailed names a bad one."""
    unknown = set(command) - {"kind", "rate", "tenant", "endpoint_id", "max_messages"}
    if unknown:
        raise ValidationFailed(f"unknown field(s) {', '.join(sorted(unknown))}", code="unknown_field")
    rate, cap = command.get("rate", default_rate), command.get("max_messages", DEFAULT_MAX_MESSAGES)
    if isinstance(rate, bool) or not isinstance(rate, int | float) or isinstance(cap, bool) or not isinstance(cap, int):
        raise ValidationFailed("'rate' must be a number and 'max_messages' an integer")
    for name in ("tenant", "endpoint_id"):
        if not isinstance(command.get(name, ""), str):
            raise ValidationFailed(f"'{name}' must be a string")
    if not 0.1 <= rate <= 1000 or cap < 1:
        raise ValidationFailed("'rate' must be 0.1 to 1000 per second and 'max_messages' at least 1")
    return {"rate": f"{rate:g}", "max_messages": str(cap), "tenant": str(command.get("tenant") or ""), "endpoint_id": str(command.get("endpoint_id") or "")}
