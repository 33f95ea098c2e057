"""DynamoDB tables, one per `topology.TABLES` entry with its global secondary indexes, encrypted with the stack's key.

Billed on demand, or (HOOKLINE_TABLE_BILLING=provisioned) in capacity units that Application Auto Scaling keeps at
TABLE_CAPACITY_TARGET_PERCENT used, between the settings' minimum and maximum, on the table and on each index: an
index of a provisioned table has capacity of its own, and a write the index cannot take throttles the table's write.
"""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from hookline.core.settings import TABLE_CAPACITY_TARGET_PERCENT, Settings
from hookline.wiring.topology import TABLES, TableSpec
from infra import construct_name
from infra.constants import KEEP


class Storage(Construct):
    """A customer-managed KMS key (rotated yearly) and the tables it encrypts; the SNS topics and every log group use the key too."""

    def __init__(self, scope: Construct, construct_id: str, *, prefix: str, settings: Settings) -> None:
        super().__init__(scope, construct_id)
        self._settings = settings
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
                principals=[iam.ServicePrincipal(f"logs.{stack.region}.{stack.url_suffix}")],
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
            billing_mode=dynamodb.BillingMode.PROVISIONED if self._provisioned else dynamodb.BillingMode.PAY_PER_REQUEST,
            read_capacity=self._start_reads,
            write_capacity=self._start_writes,
            encryption=dynamodb.TableEncryption.CUSTOMER_MANAGED,
            encryption_key=self.key,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(point_in_time_recovery_enabled=True),
            time_to_live_attribute=spec.ttl_attribute,
            removal_policy=KEEP,
            # Retained or not, a table is deleted by hand or by an update only once this is lifted (HOOKLINE_TABLE_DELETION_PROTECTION).
            deletion_protection=self._settings.table_deletion_protection,
        )
        # String keys; the table's billing carries over to the index (provisioned: capacity of its own, scaled the same way).
        for index in spec.indexes:
            table.add_global_secondary_index(
                index_name=index.name,
                partition_key=dynamodb.Attribute(name=index.partition_key, type=dynamodb.AttributeType.STRING),
                sort_key=dynamodb.Attribute(name=index.sort_key, type=dynamodb.AttributeType.STRING),
                projection_type=dynamodb.ProjectionType.KEYS_ONLY if index.projection == "KEYS_ONLY" else dynamodb.ProjectionType.ALL,
                read_capacity=self._start_reads,
                write_capacity=self._start_writes,
            )
        if self._provisioned:
            self._auto_scale(table, [index.name for index in spec.indexes])
        return table

    @property
    def _provisioned(self) -> bool:
        return self._settings.table_billing == "provisioned"

    @property
    def _start_reads(self) -> int | None:
        """A provisioned table's or index's read capacity to start with (auto scaling moves it): the minimum."""
        return self._settings.table_min_read_capacity if self._provisioned else None

    @property
    def _start_writes(self) -> int | None:
        return self._settings.table_min_write_capacity if self._provisioned else None

    def _auto_scale(self, table: dynamodb.Table, indexes: list[str]) -> None:
        """Target tracking on the table's and each index's read and write capacity."""
        s = self._settings
        reads = {"min_capacity": s.table_min_read_capacity, "max_capacity": s.table_max_read_capacity}
        writes = {"min_capacity": s.table_min_write_capacity, "max_capacity": s.table_max_write_capacity}
        scaled = [table.auto_scale_read_capacity(**reads), table.auto_scale_write_capacity(**writes)]
        for name in indexes:
            scaled += [
                table.auto_scale_global_secondary_index_read_capacity(name, **reads),
                table.auto_scale_global_secondary_index_write_capacity(name, **writes),
            ]
        for attribute in scaled:
            attribute.scale_on_utilization(target_utilization_percent=TABLE_CAPACITY_TARGET_PERCENT)
