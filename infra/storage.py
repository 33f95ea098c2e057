"""DynamoDB tables, one per `topology.TABLES` entry with its global secondary indexes, encrypted with the stack's key."""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from hookline.wiring.topology import TABLES, TableSpec
from infra import construct_name
from infra.constants import KEEP


class Storage(Construct):
    """A customer-managed KMS key (rotated yearly) and the tables it encrypts; the SNS topics and every log group use the key too."""

    def __init__(self, scope: Construct, construct_id: str, *, prefix: str) -> None:
        super().__init__(scope, construct_id)
        self.key = kms.Key(
            self,
            "Key",
            description=f"{prefix}: encryption of the DynamoDB data, the SNS notifications and the CloudWatch Logs log groups",
            enable_key_rotation=True,
            # The retained table stays readable only while its key exists.
            removal_policy=KEEP,
        )
        # CloudWatch Logs encrypts and reads this account's log groups in this region with the key, and nothing else.
        stack = Stack.of(self)
        self.key.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal(f"logs.{stack.region}.amazonaws.com")],
                actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
                resources=["*"],
                conditions={"ArnLike": {"kms:EncryptionContext:aws:logs:arn": f"arn:{stack.partition}:logs:{stack.region}:{stack.account}:log-group:*"}},
            )
        )
        self.tables: dict[str, dynamodb.Table] = {spec.key: self._table(spec, prefix) for spec in TABLES}

    def table(self, spec: TableSpec) -> dynamodb.Table:
        return self.tables[spec.key]

    def _table(self, spec: TableSpec, prefix: str) -> dynamodb.Table:
        table = dynamodb.Table(
            self,
            f"{construct_name(spec.key)}Table",
            table_name=spec.physical_name(prefix),
            partition_key=dynamodb.Attribute(name=spec.partition_key, type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name=spec.sort_key, type=dynamodb.AttributeType.STRING),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            encryption=dynamodb.TableEncryption.CUSTOMER_MANAGED,
            encryption_key=self.key,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(point_in_time_recovery_enabled=True),
            time_to_live_attribute=spec.ttl_attribute,
            removal_policy=KEEP,
        )
        # String keys, all attributes projected; on-demand billing carries over to the index.
        for index in spec.indexes:
            table.add_global_secondary_index(
                index_name=index.name,
                partition_key=dynamodb.Attribute(name=index.partition_key, type=dynamodb.AttributeType.STRING),
                sort_key=dynamodb.Attribute(name=index.sort_key, type=dynamodb.AttributeType.STRING),
                projection_type=dynamodb.ProjectionType.KEYS_ONLY if index.projection == "KEYS_ONLY" else dynamodb.ProjectionType.ALL,
            )
        return table
