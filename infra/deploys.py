"""How a new version of each function goes live behind its `live` alias, per `Settings.deploy_strategy`.

`canary` (the default): one CodeDeploy application for the stack and one Lambda deployment group per
function. When a deploy publishes a new version, CloudFormation hands the alias update to CodeDeploy
(the alias's CodeDeployLambdaAliasUpdate policy), which sends 10 % of the alias's traffic to the new
version for 5 minutes, then all of it. If one of the function's canary alarms goes off meanwhile, or the
deployment fails or is stopped (`make rollback`), CodeDeploy moves the alias back to the version before
and CloudFormation rolls the stack update back.

The canary alarms judge the new version alone, by a rate (infra.deploy_names.canary_signals, CANARY_PERCENT,
CANARY_LEAST): Lambda's Errors and Invocations with the dimensions FunctionName, Resource (`<function>:live`) and
ExecutedVersion (what Lambda publishes for an alias's invocations, per version served), and the functions' EMF
counts with `function` and `version`. The version is the one the deploy publishes (its GetAtt Version), so the
alarm is updated in the same stack update, after the new version exists; the alias depends on it, so the alarm
watches the new version before CodeDeploy shifts any traffic. A customer's receiver running out of retries is
never a signal: at real traffic some receiver always is. The alarms notify no one: the function's own alarms
(infra/monitoring.py) already page.

`all_at_once`: no CodeDeploy resource and no canary alarm; CloudFormation moves the alias to the new version itself.
"""

from __future__ import annotations

from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_codedeploy as codedeploy
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from hookline.core.settings import Settings
from hookline.wiring.topology import FUNCTIONS, FunctionSpec
from infra import construct_name
from infra.deploy_names import (
    CANARY,
    CANARY_LEAST,
    CANARY_PERCENT,
    CANARY_SIGNALS,
    LIVE_ALIAS,
    canary_alarm_name,
    canary_signals,
    deployment_application_name,
    deployment_group_name,
)
from infra.functions import METRICS_NAMESPACE, SERVICE_NAME, Functions
from infra.monitoring import PERIOD

LAMBDA_NAMESPACE = "AWS/Lambda"


def rollback_alarms(prefix: str, spec: FunctionSpec) -> tuple[str, ...]:
    """The names of the alarms that roll a canary of the function back (docs/operations.md's canary table)."""
    return tuple(canary_alarm_name(prefix, spec.name, signal) for signal in canary_signals(spec))


def version_dimensions(fn: lambda_.Function, version: lambda_.IVersion, namespace: str) -> dict[str, str]:
    """The dimensions that name one version of the function served through its live alias: Lambda's own, or those the
    functions' EMF counts carry (hookline.adapters.metrics.version_dimensions)."""
    if namespace == LAMBDA_NAMESPACE:
        return {"FunctionName": fn.function_name, "Resource": f"{fn.function_name}:{LIVE_ALIAS}", "ExecutedVersion": version.version}
    return {"service": SERVICE_NAME, "function": fn.function_name, "version": version.version}


def rate_expression() -> str:
    """Failures per 100 invocations of the version, counted only from CANARY_LEAST failures in the period (0 below)."""
    return f"IF(failed >= {CANARY_LEAST}, 100 * failed / invocations, 0)"


class Deploys(Construct):
    """The CodeDeploy application, a canary deployment group per function and its canary alarms; nothing with all_at_once."""

    def __init__(self, scope: Construct, construct_id: str, *, prefix: str, settings: Settings, functions: Functions) -> None:
        super().__init__(scope, construct_id)
        self.application: codedeploy.LambdaApplication | None = None
        self.deployment_groups: dict[str, codedeploy.LambdaDeploymentGroup] = {}
        self.alarms: dict[str, list[cloudwatch.Alarm]] = {}
        if settings.deploy_strategy != CANARY:
            return
        self.application = codedeploy.LambdaApplication(self, "Application", application_name=deployment_application_name(prefix))
        for spec in FUNCTIONS:
            alias = functions.alias(spec)
            self.alarms[spec.name] = [self._canary_alarm(prefix, spec, functions.function(spec), signal) for signal in canary_signals(spec)]
            # The alias's update is the deployment: it waits for the alarms to watch the version it moves to.
            for alarm in self.alarms[spec.name]:
                alias.node.add_dependency(alarm)
            self.deployment_groups[spec.name] = codedeploy.LambdaDeploymentGroup(
                self,
                f"{construct_name(spec.name)}DeploymentGroup",
                application=self.application,
                deployment_group_name=deployment_group_name(prefix, spec.name),
                alias=alias,
                deployment_config=codedeploy.LambdaDeploymentConfig.CANARY_10_PERCENT_5_MINUTES,
                alarms=self.alarms[spec.name],
                auto_rollback=codedeploy.AutoRollbackConfig(failed_deployment=True, stopped_deployment=True, deployment_in_alarm=True),
            )

    def _canary_alarm(self, prefix: str, spec: FunctionSpec, fn: lambda_.Function, signal: str) -> cloudwatch.Alarm:
        """More than CANARY_PERCENT of the new version's invocations failed by `signal` in a PERIOD, CANARY_LEAST or more."""
        version = fn.current_version
        metric_name = CANARY_SIGNALS[signal]
        namespace = LAMBDA_NAMESPACE if metric_name == "Errors" else METRICS_NAMESPACE

        def metric(namespace: str, name: str) -> cloudwatch.Metric:
            return cloudwatch.Metric(
                namespace=namespace, metric_name=name, dimensions_map=version_dimensions(fn, version, namespace), statistic="Sum", period=PERIOD
            )

        return cloudwatch.Alarm(
            self,
            f"{construct_name(spec.name)}{construct_name(signal)}CanaryAlarm",
            alarm_name=canary_alarm_name(prefix, spec.name, signal),
            alarm_description=f"The version of the {spec.name} function its last deploy published: {metric_name} on more than "
            f"{CANARY_PERCENT} per 100 of its invocations within {PERIOD.to_minutes()} minutes, {CANARY_LEAST} or more. A canary "
            "deployment in progress rolls back on it; it notifies no one.",
            metric=cloudwatch.MathExpression(
                expression=rate_expression(),
                using_metrics={"failed": metric(namespace, metric_name), "invocations": metric(LAMBDA_NAMESPACE, "Invocations")},
                period=PERIOD,
                label=f"{signal} per 100 invocations",
            ),
            threshold=CANARY_PERCENT,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
            evaluation_periods=1,
            # No data: the version served nothing in the period (before the shift, or a quiet queue), so nothing failed.
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
