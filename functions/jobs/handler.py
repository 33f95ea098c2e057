"""Jobs Lambda: customers' time-window replays (from the jobs queue) and the operators' DLQ drain (invoked directly).

Both are idempotent: a replayed delivery restarts only once per generation, and
a duplicate task is dropped by the delivery claim.
"""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from hookline.adapters.observability import lambda_handler
from hookline.entrypoints.jobs import handle


@lambda_handler()
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle(event, context)
