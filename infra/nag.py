"""cdk-nag AwsSolutions checks and the few findings acknowledged, each with its reason."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from aws_cdk import Acknowledgment, App, CfnElement, Stack, Validations
from cdk_nag import AwsSolutionsChecks
from constructs import IConstruct

from hookline.core.destinations import ROLE_NAME_PREFIX
from hookline.wiring.topology import FUNCTIONS, STATE_MACHINES, TableSpec

if TYPE_CHECKING:
    from infra.api import Api
    from infra.deploys import Deploys
    from infra.functions import Functions
    from infra.statemachines import StateMachines
    from infra.storage import Storage


def add_checks(app: App) -> None:
    """Run AwsSolutions on every stack; an unacknowledged finding fails synth."""
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))


def _ack(scope: IConstruct, rule: str, reason: str) -> None:
    Validations.of(scope).acknowledge(Acknowledgment(id=rule, reason=reason))


def destination_acknowledgements() -> dict[str, str]:
    """The wildcard of the grant to reach customers' destinations, their roles (infra.functions.destination_statements), with its reason."""
    outside = (
        "The statement carries the condition aws:ResourceAccount != this stack's account, so nothing of the account hookline "
        "runs in (its own queues, topic, buckets) matches, whatever an endpoint names."
    )
    return {
        "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:iam::*:role/"
        + ROLE_NAME_PREFIX
        + "*]": "A customer's destination role lives in the customer's account, known only when the endpoint is made: the delivery role may "
        "assume any role in another account whose name starts with the documented prefix, and each such role's trust policy "
        "admits it only with the endpoint's own external id (sts:ExternalId), which stops the confused deputy. " + outside,
    }


def acknowledge(*, functions: Functions, storage: Storage, state_machines: StateMachines, api: Api, deploys: Deploys) -> None:
    """Acknowledge findings on the narrowest construct that produces them (the stack calls this with its parts)."""
    for spec in FUNCTIONS:
        _ack(
            functions.function(spec),
            "AwsSolutions-L1",
            "The functions run python3.13, not the newest runtime Lambda offers (python3.14): 3.13 is the Python that CI, "
            "mypy and the dependency layer's wheels are built and tested on (the make targets make the venv with it), and "
            "3.14 is not available on the machines that test hookline. Deploying an untested interpreter would be the riskier choice.",
        )
        role = functions.roles[spec.name]
        if functions.traced:  # HOOKLINE_TRACING off: no X-Ray grant, nothing on '*'
            _ack(
                role,
                "AwsSolutions-IAM5[Resource::*]",
                "Active X-Ray tracing (HOOKLINE_TRACING) needs xray:PutTraceSegments and xray:PutTelemetryRecords, "
                "which support no resource-level permissions; Resource '*' is the only valid value.",
            )
        accesses = {g.access for g in spec.grants}
        if "read_write" in accesses:
            _ack(
                role,
                "AwsSolutions-IAM5[Action::kms:ReEncrypt*]",
                "Table.grant_read_write_data on a table encrypted with the stack's customer-managed key "
                "grants this KMS action family; the statement's resource is that single key, not '*'.",
            )
        if accesses & {"read_write", "publish"}:
            _ack(
                role,
                "AwsSolutions-IAM5[Action::kms:GenerateDataKey*]",
                "Table.grant_read_write_data on a table, and Topic.grant_publish on an SNS topic, both encrypted with "
                "the stack's customer-managed key, grant this KMS action family; the statement's resource is that "
                "single key, not '*'.",
            )
        if "deliver" in accesses:
            for rule, reason in destination_acknowledgements().items():
                _ack(role, rule, reason)
        tables = {g.resource.key: g.resource for g in spec.grants if isinstance(g.resource, TableSpec) and g.resource.indexes}
        for table in tables.values():
            cfn_table = cast(CfnElement, storage.table(table).node.default_child)
            indexes = ", ".join(index.name for index in table.indexes)
            _ack(
                role,
                f"AwsSolutions-IAM5[Resource::<{Stack.of(cfn_table).get_logical_id(cfn_table)}.Arn>/index/*]",
                f"Table.grant_read_data / grant_read_write_data on a table with global secondary indexes also grants "
                f"'<table arn>/index/*', so the role can query them: the wildcard matches only this table's own indexes "
                f"({indexes}), which project items the role may already read on the table itself. An index accepts no "
                f"writes, so it adds no write access.",
            )
    for machine in STATE_MACHINES:
        _ack(
            state_machines.roles[machine.key],
            "AwsSolutions-IAM5[Resource::*]",
            "Logging to CloudWatch Logs (required by SF1) needs the logs:*LogDelivery, logs:PutResourcePolicy, "
            "logs:DescribeResourcePolicies and logs:DescribeLogGroups actions, and X-Ray tracing (SF2) needs "
            "xray:PutTraceSegments, PutTelemetryRecords, GetSamplingRules and GetSamplingTargets; none of these "
            "supports resource-level permissions, so AWS documents Resource '*' for them. The workflow's one "
            "data-plane permission, sqs:SendMessage, is scoped to its target queue.",
        )
    for group in deploys.deployment_groups.values():
        _ack(
            group,
            "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]",
            "CDK's LambdaDeploymentGroup attaches this policy to its service role, even to a role passed in; it is AWS's "
            "purpose-built limited policy for CodeDeploy's Lambda deployments: cloudwatch:DescribeAlarms and lambda:GetAlias, "
            "UpdateAlias and GetProvisionedConcurrencyConfig (read the rollback alarms, shift the live alias), S3 reads of "
            "AppSpec files under */CodeDeploy/* or tagged UseWithCodeDeploy (hookline has none: CloudFormation passes the "
            "AppSpec inline), and invoking functions named CodeDeployHook_* (hookline has no hooks). Only "
            "codedeploy.amazonaws.com assumes the role.",
        )
    for route in api.health_routes:
        _ack(
            route,
            "AwsSolutions-APIG4",
            "GET /health is a deliberately public liveness probe: it returns a constant and touches no tenant data. "
            "Every /v1 route uses the Lambda API-key authorizer.",
        )
    _ack(
        api.default_route,
        "AwsSolutions-APIG4",
        "$default catches only requests no other route matches (an unknown path, or GET-only public paths asked with "
        "another method; every /v1 path matches the authorized /v1/{proxy+} route first) and hands them to the api "
        "function, which answers a JSON 404 or 405 without reading any data.",
    )
    for route in api.portal_routes:
        _ack(
            route,
            "AwsSolutions-APIG4",
            "GET /portal and GET /portal/{name} serve the customer portal's static page and files (HTML, CSS, JavaScript "
            "shipped with the code) and read nothing but the public part of a tenant's portal settings (the producer's "
            "display name and the origins allowed to frame the page, both shown to customers anyway): no customer or "
            "delivery data, no state. A browser cannot send a Bearer header when it opens a link, "
            "so the page is public; it reads the portal session token from the URL fragment and calls the /v1 routes, "
            "which stay behind the Lambda authorizer.",
        )
