"""Delivery Lambda (and the retry function, which deploys this code again): drains its queue, reporting batch item failures.

Each function names its own entry (hookline.wiring.topology: `handler.handler` for the delivery function, which
drains the delivery queue's first attempts, `handler.retry` for the retry function, `handler.ordered` for the
ordered function, which drains the ordered endpoints' FIFO queue), so the code knows its lane from its wiring.

A record is retried by SQS only when hookline could not finish it; a failed
webhook is a recorded outcome. See hookline.entrypoints.delivery and
hookline.services.delivery for the at-least-once, single-flight contract.
The batch's delivery metrics are flushed by `log_metrics` when it returns.
"""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from hookline.adapters.observability import lambda_handler
from hookline.entrypoints.delivery import handle_batch, handle_ordered_batch


@lambda_handler()
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle_batch(event, context, lane="first")


@lambda_handler()
def retry(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle_batch(event, context, lane="retry")


@lambda_handler()
def ordered(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle_ordered_batch(event, context)
