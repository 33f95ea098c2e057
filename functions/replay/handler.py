"""Replay Lambda: customers' time-window replays (from the replay queue) and the operators' DLQ drain (invoked directly).

Both are idempotent: a replayed delivery restarts only once per generation, and
a duplicate task is dropped by the delivery claim.
"""

from typing import Any

from hookline.adapters.observability import traced
from hookline.entrypoints.replay import handle


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return traced(handle)(event, context)
