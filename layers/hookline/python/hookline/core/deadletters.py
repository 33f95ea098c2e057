"""What the operators' DLQ drain does with one dead letter: move it back, leave it (another tenant's or endpoint's),
or set it aside as poison. Pure: the drain job (hookline.services.drain) receives and moves, this decides."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from hookline.core.models import DeliveryTask, MalformedTask

Verdict = Literal["move", "skip", "poison"]
POISON_REASON = "poison"  # the `reason` attribute of a message hookline could not read as a task
# The `reason` of a task the retry state machine (hookline.wiring.topology.RETRY_WAIT) could not put back on the
# retry queue after its wait: a task like any other, moved back like any other. Its attempt claims before it sends,
# so a letter whose retry the sweeper has re-queued meanwhile (hookline.core.waits) is dropped when it comes back.
RETRY_WAIT_FAILED = "retry_wait_failed"


@dataclass(frozen=True)
class DeadLetter:
    body: str
    reason: str  # the `reason` message attribute hookline dead-lettered it with ("" for SQS's own redrive)
    handle: str  # its receipt handle, to delete it once moved


def verdict(letter: DeadLetter, tenant: str = "", endpoint_id: str = "") -> tuple[Verdict, DeliveryTask | None]:
    """Move a readable task of the drain's tenant and endpoint (when it names them), as a task that claims its attempt
    before it sends (never *fresh*: a copy may be on the queue already); leave the others; poison is left for a human."""
    if letter.reason == POISON_REASON:
        return "poison", None
    try:
        task = DeliveryTask.from_message(letter.body)
    except MalformedTask:
        return "poison", None
    if (tenant and task.tenant != tenant) or (endpoint_id and task.endpoint_id != endpoint_id):
        return "skip", None
    return "move", replace(task, fresh=False)
