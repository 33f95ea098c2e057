"""Step Functions state machines, one per `topology.STATE_MACHINES` entry.

Each definition comes from `StateMachineSpec.definition()`, the single source the local
runner uses too; the stack only substitutes the target queue's and the dead-letter queue's
URLs at deploy time.
"""

from __future__ import annotations

import json

from aws_cdk import Aws, CfnResource, Fn
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from hookline.wiring.topology import STATE_MACHINES, StateMachineSpec
from infra import construct_name
from infra.constants import KEEP, LOG_RETENTION
from infra.queues import Queues

# The substitution variables CloudFormation fills from DefinitionSubstitutions: `${TargetQueueUrl}`, `${DeadLetterQueueUrl}`.
TARGET_QUEUE_URL = "TargetQueueUrl"
DEAD_LETTER_QUEUE_URL = "DeadLetterQueueUrl"


def definition_string(spec: StateMachineSpec) -> str:
    """The spec's ASL, with substitution variables where the target queue's and the dead-letter queue's URLs go."""
    return json.dumps(spec.definition("${" + TARGET_QUEUE_URL + "}", "${" + DEAD_LETTER_QUEUE_URL + "}"), indent=2)


class StateMachines(Construct):
    """Standard workflows with their own role, log group (all events) and X-Ray tracing."""

    def __init__(self, scope: Construct, construct_id: str, *, prefix: str, queues: Queues, key: kms.IKey) -> None:
        super().__init__(scope, construct_id)
        self._prefix = prefix
        self._queues = queues
        self._key = key
        self.state_machines: dict[str, sfn.StateMachine] = {}
        self.roles: dict[str, iam.Role] = {}
        self.log_groups: dict[str, logs.LogGroup] = {}
        for spec in STATE_MACHINES:
            self.state_machines[spec.key] = self._state_machine(spec)

    def state_machine(self, spec: StateMachineSpec) -> sfn.StateMachine:
        return self.state_machines[spec.key]

    def _state_machine(self, spec: StateMachineSpec) -> sfn.StateMachine:
        name = construct_name(spec.key)
        target = self._queues.queue(spec.target)
        dead_letter = self._queues.queue(spec.dead_letter)
        # Under /aws/vendedlogs/ so the log delivery does not grow the account's CloudWatch Logs
        # resource policy (limited to 5,120 characters) with one statement per log group. The name ends
        # with the stack's own id: the group outlives the stack (KEEP), and a stack created again under
        # the same name after `cdk destroy` must not collide with it ("already exists").
        stack_id = Fn.select(2, Fn.split("/", Aws.STACK_ID))
        log_group = logs.LogGroup(
            self,
            f"{name}Logs",
            log_group_name=f"/aws/vendedlogs/states/{spec.physical_name(self._prefix)}-{stack_id}",
            retention=LOG_RETENTION,
            encryption_key=self._key,
            removal_policy=KEEP,
        )
        role = iam.Role(
            self,
            f"{name}Role",
            assumed_by=iam.ServicePrincipal("states.amazonaws.com"),
            description=f"hookline {spec.key} state machine",
        )
        state_machine = sfn.StateMachine(
            self,
            f"{name}StateMachine",
            state_machine_name=spec.physical_name(self._prefix),
            state_machine_type=sfn.StateMachineType.STANDARD,
            definition_body=sfn.DefinitionBody.from_string(definition_string(spec)),
            definition_substitutions={TARGET_QUEUE_URL: target.queue_url, DEAD_LETTER_QUEUE_URL: dead_letter.queue_url},
            role=role,
            # Execution data stays out of the logs: the task carries only ids, but logs need not repeat it.
            logs=sfn.LogOptions(destination=log_group, level=sfn.LogLevel.ALL, include_execution_data=False),
            tracing_enabled=True,
        )
        # All the workflow does: send the task to its target queue, or to the dead-letter queue when that fails
        # (SQS-managed SSE needs no KMS grant).
        target.grant_send_messages(role)
        dead_letter.grant_send_messages(role)
        # cfn-lint W3005 (redundant DependsOn), as on the functions (see infra/functions.py): the state
        # machine depends on the whole role construct to wait for its DefaultPolicy, and the entry for the
        # Role itself repeats the RoleArn GetAtt. Harmless; CDK has no switch to drop it alone.
        cfn_state_machine = state_machine.node.default_child
        if isinstance(cfn_state_machine, CfnResource):
            cfn_state_machine.add_metadata("cfn-lint", {"config": {"ignore_checks": ["W3005"]}})
        self.roles[spec.key] = role
        self.log_groups[spec.key] = log_group
        return state_machine
