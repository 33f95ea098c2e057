"""cdk-nag AwsSolutions checks and the few findings acknowledged, each with its reason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aws_cdk import Acknowledgment, App, Validations
from cdk_nag import AwsSolutionsChecks
from constructs import IConstruct

from hookline.topology import FUNCTIONS, STATE_MACHINES

if TYPE_CHECKING:
    from infra.stack import HooklineStack


def add_checks(app: App) -> None:
    """Run AwsSolutions on every stack; an unacknowledged finding fails synth."""
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))


def _ack(scope: IConstruct, rule: str, reason: str) -> None:
    Validations.of(scope).acknowledge(Acknowledgment(id=rule, reason=reason))


def acknowledge(stack: HooklineStack) -> None:
    """Acknowledge findings on the narrowest construct that produces them."""
    functions = stack.functions
    for spec in FUNCTIONS:
        role = functions.roles[spec.name]
        _ack(
            role,
            "AwsSolutions-IAM5[Resource::*]",
            "Active X-Ray tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, "
            "which support no resource-level permissions; Resource '*' is the only valid value.",
        )
        if any(g.access == "read_write" for g in spec.grants):
            for action in ("kms:ReEncrypt*", "kms:GenerateDataKey*"):
                _ack(
                    role,
                    f"AwsSolutions-IAM5[Action::{action}]",
                    "Table.grant_read_write_data on a table encrypted with the stack's customer-managed key "
                    "grants these KMS action families; the statement's resource is that single key, not '*'.",
                )
    for machine in STATE_MACHINES:
        _ack(
            stack.state_machines.roles[machine.key],
            "AwsSolutions-IAM5[Resource::*]",
            "Logging to CloudWatch Logs (required by SF1) needs the logs:*LogDelivery, logs:PutResourcePolicy, "
            "logs:DescribeResourcePolicies and logs:DescribeLogGroups actions, and X-Ray tracing (SF2) needs "
            "xray:PutTraceSegments, PutTelemetryRecords, GetSamplingRules and GetSamplingTargets; none of these "
            "supports resource-level permissions, so AWS documents Resource '*' for them. The workflow's one "
            "data-plane permission, sqs:SendMessage, is scoped to its target queue.",
        )
    for route in stack.api.health_routes:
        _ack(
            route,
            "AwsSolutions-APIG4",
            "GET /health is a deliberately public liveness probe: it returns a constant and touches no tenant data. "
            "Every /v1 route uses the Lambda API-key authorizer.",
        )
