"""The HTTP API: GET /health and the customer portal's static page in the open, everything under /v1 behind the Lambda authorizer."""

from __future__ import annotations

import json

import jsii
from aws_cdk import Duration, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from hookline.core.settings import Settings
from infra.constants import KEEP, LOG_RETENTION

# One JSON object per request: structured access logs, tenant included once authorized.
ACCESS_LOG_FORMAT = json.dumps(
    {
        "requestId": "$context.requestId",
        "ip": "$context.identity.sourceIp",
        "requestTime": "$context.requestTime",
        "httpMethod": "$context.httpMethod",
        "routeKey": "$context.routeKey",
        "status": "$context.status",
        "protocol": "$context.protocol",
        "responseLength": "$context.responseLength",
        "integrationLatency": "$context.integrationLatency",
        "integrationError": "$context.integrationErrorMessage",
        "authorizerError": "$context.authorizer.error",
        "tenant": "$context.authorizer.tenant",
    }
)


def api_name(stack_name: str) -> str:
    """The HTTP API's name: `<stack name>-api`, as every other physical name starts with the stack's."""
    return f"{stack_name}-api"


@jsii.implements(apigwv2.IAccessLogSettings)
class _AccessLogSettings:
    def __init__(self, destination: apigwv2.IAccessLogDestination, log_format: apigw.AccessLogFormat) -> None:
        self._destination = destination
        self._format = log_format

    @property
    def destination(self) -> apigwv2.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigw.AccessLogFormat:
        return self._format


class Api(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        settings: Settings,
        handler: lambda_.IFunction,
        authorizer_handler: lambda_.IFunction,
        key: kms.IKey,
    ) -> None:
        super().__init__(scope, construct_id)
        self.access_logs = logs.LogGroup(self, "AccessLogs", retention=LOG_RETENTION, encryption_key=key, removal_policy=KEEP)
        # Named after the stack, so the console and `aws apigatewayv2 get-apis` tell installs apart (CDK names it after the
        # construct id otherwise: every install's API was `HttpApi`). Name is no createOnlyProperty: an in-place update.
        self.http_api = apigwv2.HttpApi(
            self, "HttpApi", api_name=api_name(Stack.of(self).stack_name), description="hookline webhook API", create_default_stage=False
        )
        self.stage = apigwv2.HttpStage(
            self,
            "DefaultStage",
            http_api=self.http_api,
            stage_name="$default",
            auto_deploy=True,
            access_log_settings=_AccessLogSettings(
                apigwv2.LogGroupLogDestination(self.access_logs),
                apigw.AccessLogFormat.custom(ACCESS_LOG_FORMAT),
            ),
            # Stage-wide (HOOKLINE_API_THROTTLE_RATE and _BURST); per-tenant limits belong in the application.
            throttle=apigwv2.ThrottleSettings(rate_limit=settings.api_throttle_rate, burst_limit=settings.api_throttle_burst),
        )
        # Payload format 2.0 with simple responses: {"isAuthorized": bool, "context": {"tenant": ...}}.
        self.authorizer = authorizers.HttpLambdaAuthorizer(
            "ApiKeyAuthorizer",
            authorizer_handler,
            response_types=[authorizers.HttpLambdaResponseType.SIMPLE],
            identity_source=["$request.header.Authorization"],
            results_cache_ttl=Duration.seconds(settings.authorizer_cache_seconds),
        )
        integration = integrations.HttpLambdaIntegration("ApiIntegration", handler)
        self.health_routes = self.http_api.add_routes(path="/health", methods=[apigwv2.HttpMethod.GET], integration=integration)
        # The portal page and its files: static, no data until its script calls /v1 with a session token.
        self.portal_routes = [
            *self.http_api.add_routes(path="/portal", methods=[apigwv2.HttpMethod.GET], integration=integration),
            *self.http_api.add_routes(path="/portal/{name}", methods=[apigwv2.HttpMethod.GET], integration=integration),
        ]
        self.v1_routes = self.http_api.add_routes(
            path="/v1/{proxy+}",
            methods=[apigwv2.HttpMethod.ANY],
            integration=integration,
            authorizer=self.authorizer,
        )
        # Whatever matches no route above (an unknown path, or a public path asked with another method) reaches the
        # api function, which answers it in hookline's JSON error shape (404, or 405 with Allow) instead of API
        # Gateway's own {"message": "Not Found"}. It never reaches a /v1 path: those all match the authorized route.
        self.default_route = apigwv2.HttpRoute(self, "DefaultRoute", http_api=self.http_api, route_key=apigwv2.HttpRouteKey.DEFAULT, integration=integration)
