"""Authorizer Lambda: API key -> tenant, for HTTP API simple responses; logged under the request's id, as the API is."""

from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from hookline.adapters.observability import lambda_handler
from hookline.entrypoints.authorizer import handle


@lambda_handler(correlation_id_path=correlation_paths.API_GATEWAY_HTTP)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle(event, context)
