"""How a new version of each function goes live behind its `live` alias, per `Settings.deploy_strategy`.

`canary` (the default): one CodeDeploy application for the stack and one Lambda deployment group per
function. When a deploy publishes a new version, CloudFormation hands the alias update to CodeDeploy
(the alias's CodeDeployLambdaAliasUpdate policy), which sends 10 % of the alias's traffic to the new
version for 5 minutes, then all of it. If an alarm that says hookline itself is failing goes off meanwhile
(`rollback_alarms`), or the deployment fails or is stopped (`make rollback`), CodeDeploy moves the alias
back to the version before and CloudFormation rolls the stack update back. A customer's receiver running
out of retries is never one of them: at real traffic some receiver always is.

`all_at_once`: no CodeDeploy resource at all; CloudFormation moves the alias to the new version itself.
"""

from __future__ import annotations

from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_codedeploy as codedeploy
from constructs import Construct

from hookline.core.settings import Settings
from hookline.wiring.topology import API, FUNCTIONS, FunctionSpec, QueueSpec
from infra import construct_name
from infra.deploy_names import CANARY, deployment_application_name, deployment_group_name
from infra.functions import Functions
from infra.monitoring import AlarmSet, internal_dead_letter_queues


def dead_letter_queues_of(spec: FunctionSpec) -> tuple[QueueSpec, ...]:
    """The internal dead-letter queues a function's work can end up in, in topology order.

    Those it sends to itself, and those of the queues it sends to or consumes, among the queues only hookline's own
    failures fill (monitoring.internal_dead_letter_queues): the job queue's DLQ, not the delivery DLQ, where a
    customer's exhausted deliveries go by design. The authorizer's work reaches no queue.
    """
    internal = {q.key for q in internal_dead_letter_queues()}
    touched = [g.resource for g in spec.grants if isinstance(g.resource, QueueSpec) and g.access in ("send", "consume")]
    if spec.sqs_source is not None:
        touched.append(spec.sqs_source.queue)
    found = {q.key for queue in touched for q in (queue, queue.dead_letter) if q is not None and q.key in internal}
    return tuple(q for q in internal_dead_letter_queues() if q.key in found)


def rollback_alarms(spec: FunctionSpec, alarms: AlarmSet) -> list[cloudwatch.Alarm]:
    """What rolls a canary of the function back: hookline's own faults, never a customer's.

    - its error alarm (infra/monitoring.py's, on the function as a whole, the Errors metric without a Resource
      dimension: every invocation through the alias counts, whichever version served it, and so does a direct
      invoke, which runs the new code too);
    - for a queue consumer, the internal-failures alarm: a task about to be dead-lettered through hookline's fault
      (poison, or an exception or a dependency failure on its last receive);
    - for the api function, the API's 5xx alarm;
    - the new-letters alarms of the internal dead-letter queues its work can reach (new letters, not letters: with
      a not-empty alarm, letters waiting from before the deploy would roll back every deploy).

    Not the delivery DLQ's new letters: a receiver that exhausts its retries sends one there, which says nothing of
    the new version.
    """
    chosen = [alarms.errors[spec.name]]
    if spec.sqs_source is not None:
        chosen.append(alarms.internal_failures)
    if spec.name == API.name:
        chosen.append(alarms.api_server_errors)
    chosen.extend(alarms.new_dead_letters[q.key] for q in dead_letter_queues_of(spec))
    return chosen


class Deploys(Construct):
    """The CodeDeploy application and a canary deployment group per function; nothing with all_at_once."""

    def __init__(self, scope: Construct, construct_id: str, *, prefix: str, settings: Settings, functions: Functions, alarms: AlarmSet) -> None:
        super().__init__(scope, construct_id)
        self.application: codedeploy.LambdaApplication | None = None
        self.deployment_groups: dict[str, codedeploy.LambdaDeploymentGroup] = {}
        if settings.deploy_strategy != CANARY:
            return
        self.application = codedeploy.LambdaApplication(self, "Application", application_name=deployment_application_name(prefix))
        for spec in FUNCTIONS:
            self.deployment_groups[spec.name] = codedeploy.LambdaDeploymentGroup(
                self,
                f"{construct_name(spec.name)}DeploymentGroup",
                application=self.application,
                deployment_group_name=deployment_group_name(prefix, spec.name),
                alias=functions.alias(spec),
                deployment_config=codedeploy.LambdaDeploymentConfig.CANARY_10_PERCENT_5_MINUTES,
                alarms=rollback_alarms(spec, alarms),
                auto_rollback=codedeploy.AutoRollbackConfig(failed_deployment=True, stopped_deployment=True, deployment_in_alarm=True),
            )
